"""The pytest plugin: ``--update-goldens`` and the ``wb_golden`` fixture, in a child pytest session."""

from __future__ import annotations

import pytest


def test_the_plugin_offers_the_wb_golden_fixture(pytester: pytest.Pytester):
    pytester.makepyfile(
        """
        from workloadbuilder.testing import make_item, make_options
        from workloadbuilder import Builder

        def test_job(wb_golden):
            wb_golden.check(Builder(make_item("job", gang=2), make_options()).build_workload(), "job.yaml")
        """
    )
    pytester.runpytest("--update-goldens").assert_outcomes(passed=1)
    assert "minCount: 2" in (pytester.path / "golden" / "job.yaml").read_text()
    pytester.runpytest().assert_outcomes(passed=1)


def test_the_golden_folder_is_beside_the_test_module_and_a_difference_fails(pytester: pytest.Pytester):
    pytester.mkpydir("sub")
    pytester.path.joinpath("sub", "test_one.py").write_text(
        "def test_one(wb_golden):\n    wb_golden.check({'kind': 'A'}, 'one.yaml')\n"
    )
    pytester.runpytest("--update-goldens").assert_outcomes(passed=1)
    assert (pytester.path / "sub" / "golden" / "one.yaml").read_text() == "kind: A\n"
    (pytester.path / "sub" / "golden" / "one.yaml").write_text("kind: B\n")
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*output differs from *one.yaml:*", "*-kind: B", "*+kind: A"])


def test_the_plugin_adds_its_option_to_the_help(pytester: pytest.Pytester):
    result = pytester.runpytest("--help")
    result.stdout.fnmatch_lines(["*--update-goldens*rewrite workloadbuilder golden files*"])
