"""The public testing kit: factories, the error matcher, golden files, strategies, the pytest plugin."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings

from workloadbuilder import Builder, ErrorType, FieldPath, to_yaml
from workloadbuilder.field import forbidden, invalid
from workloadbuilder.placement import Cluster
from workloadbuilder.testing import assert_field_errors, assert_golden, make_cluster, make_item, make_options
from workloadbuilder.testing.strategies import cluster_descriptions, workload_item_trees

SCHEDULING = FieldPath("spec", "scheduling")


def test_make_item_gang_sets_a_leaf_gang_at_scheduling_policy():
    errors = Builder(make_item("job", path=SCHEDULING, gang=0), make_options()).validate()
    assert [str(e) for e in errors] == [
        "spec.scheduling.schedulingPolicy.gang.minCount: Invalid value: 0: must be greater than or equal to 1"
    ]


def test_make_options_allows_everything_and_owns_by_a_job():
    options = make_options(namespace="ml")
    assert (options.name, options.namespace, options.owner.kind, len(options.allowed_policies)) == (
        "wl",
        "ml",
        "Job",
        2,
    )


@pytest.mark.parametrize(
    "expected",
    [
        [("Invalid", "spec.x"), ("Forbidden", "spec.y")],
        [(ErrorType.INVALID, "spec.x"), ("FieldValueForbidden", "spec.y")],
        [("Invalid", "spec.x", "must be positive"), ("Forbidden", "spec.y", "")],
    ],
    ids=["short-names", "enum-and-go-strings", "with-detail"],
)
def test_assert_field_errors_accepts_every_spelling(expected):
    errors = [invalid(FieldPath("spec", "x"), 0, "must be positive"), forbidden(FieldPath("spec", "y"))]
    assert_field_errors(errors, expected)


@pytest.mark.parametrize(
    "expected",
    [
        [("Invalid", "spec.x")],
        [("Invalid", "spec.x"), ("Invalid", "spec.y")],
        [("Required", "spec.x"), ("Forbidden", "spec.y")],
    ],
    ids=["too-few-expected", "wrong-type", "wrong-first-type"],
)
def test_assert_field_errors_fails_on_any_difference(expected):
    errors = [invalid(FieldPath("spec", "x"), 0, "must be positive"), forbidden(FieldPath("spec", "y"))]
    with pytest.raises(AssertionError, match="expected"):
        assert_field_errors(errors, expected)


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


@settings(max_examples=40, deadline=None)
@given(workload_item_trees())
def test_generated_trees_validate_and_compile(tree):
    builder = Builder(tree, make_options())
    assert builder.validate() == []
    workload = builder.build_workload()
    templates = workload.spec.pod_group_templates or workload.spec.composite_pod_group_templates
    assert templates[0].name == tree.name


def test_make_cluster_generates_a_small_topology():
    cluster = make_cluster(32, hosts_per_rack=4)
    assert len(cluster) == 32


@settings(max_examples=30, deadline=None)
@given(cluster_descriptions(max_nodes=8))
def test_generated_cluster_descriptions_load_and_place_a_single_pod(description):
    from workloadbuilder.placement import PlacementRequest, place, verify

    cluster = Cluster.from_yaml(description)
    assert len(cluster) == len(description["nodes"])
    group = {"kind": "PodGroup", "metadata": {"name": "one"}, "spec": {"schedulingPolicy": {"basic": {}}}}
    request = PlacementRequest.from_groups([group], {"one": (1, {"cpu": "100m"})})
    answer = place(request, cluster)
    assert verify(request, cluster, answer) == []


def test_a_mismatch_shows_expected_and_received_pairs_with_the_received_type():
    from workloadbuilder.field import type_invalid

    errors = [type_invalid(FieldPath("spec", "roles").index(1).child("replicas"), "4", "must be of type integer")]
    with pytest.raises(AssertionError) as raised:
        assert_field_errors(errors, [("Invalid", "spec.roles[1].replicas"), ("Required", "spec.x")])
    assert str(raised.value).splitlines() == [
        "expected 2 error(s), got 1:",
        "! [0] expected (Invalid, spec.roles[1].replicas)",
        '! [0] received (TypeInvalid, spec.roles[1].replicas): spec.roles[1].replicas: Invalid value: "4": '
        "must be of type integer",
        "! [1] expected (Required, spec.x)",
        "! [1] received (none)",
    ]


def test_the_docs_list_every_error_type():
    page = (Path(__file__).resolve().parents[2] / "docs" / "testing.md").read_text()
    rows = [line.split("|")[1:5] for line in page.splitlines() if line.startswith('| `"')]
    listed = {
        cells[1].strip(" `"): (cells[0].strip(' `"'), cells[2].strip(" `"), cells[3].strip(" `")) for cells in rows
    }
    assert sorted(listed) == sorted(e.name for e in ErrorType)
    for name, (short, go_type, display) in listed.items():
        assert (ErrorType(go_type), ErrorType[name].display) == (ErrorType[name], display)
        with pytest.raises(AssertionError, match=r"^expected 1 error\(s\), got 0:"):
            assert_field_errors([], [(short, "x")])


def test_a_failing_kit_assertion_hides_the_kits_source(pytester: pytest.Pytester):
    pytester.makepyfile(
        """
        from workloadbuilder.testing import assert_field_errors

        def test_errors():
            assert_field_errors([], [("Invalid", "spec.x")])
        """
    )
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    assert "__tracebackhide__" not in result.stdout.str()
    assert "def assert_field_errors" not in result.stdout.str()
    result.stdout.fnmatch_lines([">*assert_field_errors(*", "E*AssertionError: expected 1 error(s), got 0:"])
