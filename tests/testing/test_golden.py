"""assert_golden and Golden: objects compared with a YAML file, the file written on request."""

from __future__ import annotations

from pathlib import Path

import pytest

from workloadbuilder import Builder, to_yaml
from workloadbuilder.testing import assert_golden, make_item, make_options
from workloadbuilder.testing.golden import Golden


def test_golden_writes_on_update_then_compares(tmp_path: Path):
    workload = Builder(make_item("job", gang=3), make_options()).build_workload()
    target = tmp_path / "golden" / "job.yaml"
    with pytest.raises(AssertionError, match="does not exist"):
        assert_golden(workload, target)
    assert_golden(workload, target, update=True)
    assert target.read_text() == to_yaml(workload)
    assert_golden(workload, target)
    other = Builder(make_item("job", gang=4), make_options()).build_workload()
    with pytest.raises(AssertionError, match=r"-        minCount: 3\n\+        minCount: 4"):
        assert_golden(other, target)


def test_golden_takes_dicts_and_lists_of_objects(tmp_path: Path):
    objects = [{"kind": "A", "metadata": {"name": "a"}}, {"kind": "B"}]
    target = tmp_path / "two.yaml"
    assert_golden(objects, str(target), update=True)
    assert target.read_text() == to_yaml(objects)
    assert_golden(objects, target)


def test_a_missing_golden_file_names_the_flag_that_creates_it(tmp_path: Path):
    target = tmp_path / "none.yaml"
    with pytest.raises(AssertionError) as raised:
        assert_golden({"kind": "A"}, target)
    assert str(raised.value) == f"golden file {target} does not exist; run with --update-goldens to create it"
    assert not target.exists()


def test_a_difference_is_a_unified_diff_of_the_file_against_the_output(tmp_path: Path):
    target = tmp_path / "a.yaml"
    target.write_text("kind: A\n")
    with pytest.raises(AssertionError) as raised:
        assert_golden({"kind": "B"}, target)
    assert (
        str(raised.value)
        == f"output differs from {target}:\n--- {target}\n+++ actual\n@@ -1 +1 @@\n-kind: A\n+kind: B\n"
    )


def test_the_golden_fixture_checks_files_in_its_folder_and_rewrites_them_when_updating(tmp_path: Path):
    Golden(tmp_path / "golden", update=True).check({"kind": "A"}, "a.yaml")
    assert (tmp_path / "golden" / "a.yaml").read_text() == "kind: A\n"
    Golden(tmp_path / "golden", update=False).check({"kind": "A"}, "a.yaml")
    with pytest.raises(AssertionError, match="output differs"):
        Golden(tmp_path / "golden", update=False).check({"kind": "B"}, "a.yaml")
