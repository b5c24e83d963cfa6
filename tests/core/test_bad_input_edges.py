"""Bad input at the edges: adapters, placement readers and the CLI answer with errors at paths, never a traceback."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

from workloadbuilder import BuildOptions
from workloadbuilder.adapters import JobAdapter, JobSetAdapter, LeaderWorkerSetAdapter, PlanError, as_dict
from workloadbuilder.adapters.base import Plan
from workloadbuilder.cli.app import main
from workloadbuilder.field import AggregateError
from workloadbuilder.placement import Cluster, PlacementRequest

HUGE = 10**20
CONTAINERS = {"spec": {"containers": [{"name": "c", "image": "i"}]}}
JOB_POD = {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]}}


def job(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "j", "uid": "u"},
        "spec": {"template": JOB_POD, **spec},
    }


def jobset(replicas: Any) -> dict[str, Any]:
    return {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": "js", "uid": "u"},
        "spec": {
            "replicatedJobs": [{"name": "w", "replicas": replicas, "template": {"spec": {"template": CONTAINERS}}}]
        },
    }


def lws(replicas: Any = 1, size: Any = 2) -> dict[str, Any]:
    return {
        "apiVersion": "leaderworkerset.x-k8s.io/v1",
        "kind": "LeaderWorkerSet",
        "metadata": {"name": "l", "uid": "u"},
        "spec": {"replicas": replicas, "leaderWorkerTemplate": {"size": size, "workerTemplate": CONTAINERS}},
    }


PODS = "must be less than or equal to 100000 (workloadbuilder plans at most 100000 pods per object)"
GROUPS = "must be less than or equal to 10000 (workloadbuilder plans at most 10000 runtime groups per object)"


@pytest.mark.parametrize(
    ("adapter", "obj", "path", "bound"),
    [
        (JobAdapter(), job(parallelism=HUGE), "spec.parallelism", PODS),
        (JobAdapter(), job(completions=HUGE), "spec.completions", "must be less than or equal to 2147483647"),
        (JobSetAdapter(), jobset(HUGE), "spec.replicatedJobs[0].replicas", GROUPS),
        (LeaderWorkerSetAdapter(), lws(replicas=HUGE), "spec.replicas", GROUPS),
        (LeaderWorkerSetAdapter(), lws(size=HUGE), "spec.leaderWorkerTemplate.size", PODS),
    ],
    ids=["job-parallelism", "job-completions", "jobset-replicas", "lws-replicas", "lws-size"],
)
def test_a_count_beyond_its_bound_is_an_error_at_its_path(
    adapter: Any, obj: dict[str, Any], path: str, bound: str
) -> None:
    findings = adapter.plan(obj).validate()
    assert [str(f.error.field) for f in findings] == [path]
    assert str(findings[0].error).endswith(bound)
    with pytest.raises(PlanError):
        adapter.plan(obj).compile()


@pytest.mark.parametrize("junk", [None, [1], "x", 3], ids=["none", "list", "str", "int"])
def test_planning_a_non_mapping_is_a_type_error_in_words(junk: Any) -> None:
    with pytest.raises(TypeError, match="is a mapping or a pydantic model"):
        as_dict(junk)
    with pytest.raises(TypeError, match="is a mapping or a pydantic model"):
        JobAdapter().plan(junk)


@pytest.mark.parametrize(
    ("metadata", "ref"),
    [([1], "Job/"), ("x", "Job/"), ({"name": 5}, "Job/"), ({"name": "a"}, "Job/a"), (None, "Job/")],
    ids=["list", "str", "int-name", "ok", "none"],
)
def test_object_ref_survives_malformed_metadata(metadata: Any, ref: str) -> None:
    plan = Plan(source={"kind": "Job", "metadata": metadata}, roots=[], options=BuildOptions())
    assert plan.object_ref == ref


def _pod_group(**spec: Any) -> dict[str, Any]:
    return {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", "metadata": {"name": "g"}, "spec": spec}


@pytest.mark.parametrize(
    ("groups", "pods", "path"),
    [
        ([{**_pod_group(), "spec": 3}], {"g": {"count": 1}}, "groups[0].spec"),
        ([{**_pod_group(), "metadata": [1]}], {}, "groups[0].metadata"),
        ([{**_pod_group(), "metadata": {"name": 7}}], {}, "groups[0].metadata.name"),
        ([_pod_group(workloadRef="x")], {"g": {"count": 1}}, "groups[0].spec.workloadRef"),
        ([_pod_group(disruptionMode=[])], {"g": {"count": 1}}, "groups[0].spec.disruptionMode"),
        (
            [_pod_group(schedulingConstraints={"topology": 5})],
            {"g": {"count": 1}},
            "groups[0].spec.schedulingConstraints.topology",
        ),
        ([_pod_group()], {"g": -1}, "pods[g]"),
        ([_pod_group()], {"g": (1,)}, "pods[g]"),
    ],
    ids=[
        "spec-int",
        "metadata-list",
        "name-int",
        "workload-ref-str",
        "disruption-list",
        "topology-int",
        "pods-int",
        "pods-short-tuple",
    ],
)
def test_from_groups_reports_malformed_sections_at_their_paths(groups: Any, pods: Any, path: str) -> None:
    with pytest.raises(AggregateError) as raised:
        PlacementRequest.from_groups(groups, pods)
    assert path in [str(err.field) for err in raised.value.field_errors]


NODE = {"metadata": {"name": "n"}, "status": {"allocatable": {"cpu": "4"}}}


@pytest.mark.parametrize(
    ("nodes", "pods", "path"),
    [
        (-1, None, "nodes"),
        ({"items": 5}, None, "nodes"),
        ({"items": [NODE]}, 7, "pods"),
        (
            {"items": [{"metadata": {"name": "n"}, "status": {"allocatable": {"cpu": []}}}]},
            None,
            "nodes[0].status.allocatable[cpu]",
        ),
        (
            {"items": [{"metadata": {"name": "n"}, "status": {"allocatable": {"cpu": {}}}}]},
            None,
            "nodes[0].status.allocatable[cpu]",
        ),
    ],
    ids=["nodes-int", "items-int", "pods-int", "quantity-list", "quantity-map"],
)
def test_from_kubectl_reports_malformed_lists_at_their_paths(nodes: Any, pods: Any, path: str) -> None:
    with pytest.raises(AggregateError) as raised:
        Cluster.from_kubectl(nodes, pods)
    assert path in [str(err.field) for err in raised.value.field_errors]


def _run(*argv: str) -> tuple[int, str]:
    err = io.StringIO()
    code = main(list(argv), stdout=io.StringIO(), stderr=err)
    return code, err.getvalue()


@pytest.mark.parametrize(
    ("name", "text", "command", "code"),
    [
        ("bad-metadata.yaml", "apiVersion: batch/v1\nkind: Job\nmetadata: [1]\nspec: 3\n", "validate", 1),
        ("bad-metadata.yaml", "apiVersion: batch/v1\nkind: Job\nmetadata: [1]\nspec: 3\n", "compile", 2),
        ("list.yaml", "- a\n- b\n", "validate", 2),
        ("scalar.json", "42\n", "compile", 2),
        (
            "huge.yaml",
            (
                "apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata: {name: x, uid: u}\n"
                "spec: {replicas: 2, leaderWorkerTemplate: {size: 100000000000000000000}}\n"
            ),
            "compile",
            2,
        ),
    ],
    ids=[
        "validate-metadata-list",
        "compile-metadata-list",
        "validate-yaml-list",
        "compile-json-scalar",
        "compile-huge-size",
    ],
)
def test_cli_answers_junk_with_one_line_and_no_internal_error(
    tmp_path: Path, name: str, text: str, command: str, code: int
) -> None:
    path = tmp_path / name
    path.write_text(text)
    got, err = _run(command, str(path))
    assert got == code
    assert "internal error" not in err
    if code == 2:
        assert err.startswith("error: ")
        assert err.count("\n") == 1
