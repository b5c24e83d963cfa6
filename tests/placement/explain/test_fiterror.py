"""kube-scheduler's FitError line on a realistic kubectl dump: taints, NotReady, cordon, daemonset pods."""

from __future__ import annotations

from pathlib import Path

import pytest
from placement_helpers import pod_group, request

from workloadbuilder.placement import Cluster, Pods, place

DUMP = Path(__file__).resolve().parents[3] / "examples" / "gpu_cluster"


@pytest.fixture(scope="module")
def gpu_cluster() -> Cluster:
    return Cluster.from_kubectl((DUMP / "nodes.json").read_text(), (DUMP / "pods.json").read_text())


def pod(gpus: str, tolerations: list[dict[str, str]] | None = None, **spec: object) -> dict[str, object]:
    return {
        "spec": {
            "tolerations": tolerations or [],
            "containers": [{"name": "m", "resources": {"limits": {"nvidia.com/gpu": gpus}}}],
            **spec,
        }
    }


TOLERATE_GPU = [{"key": "nvidia.com/gpu", "operator": "Exists"}]
CASES = [
    (
        "no toleration",
        pod("1"),
        (
            "0/9 nodes are available: 1 node(s) were unschedulable, 2 Insufficient nvidia.com/gpu, "
            "6 node(s) had untolerated taint(s)."
        ),
    ),
    (
        "nine GPUs",
        pod("9", TOLERATE_GPU),
        (
            "0/9 nodes are available: 1 node(s) were unschedulable, 2 node(s) had untolerated taint(s), "
            "6 Insufficient nvidia.com/gpu."
        ),
    ),
    (
        "a selector no node matches",
        pod("1", [{"operator": "Exists"}], nodeSelector={"node.kubernetes.io/instance-type": "h100"}),
        "0/9 nodes are available: 9 node(s) didn't match Pod's node affinity/selector.",
    ),
]


@pytest.mark.parametrize(("spec", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_the_fit_error_line_counts_each_nodes_first_failing_filter(
    gpu_cluster: Cluster, spec: dict[str, object], expected: str
) -> None:
    req = request([pod_group("pg", 1)], {"pg": Pods(1, template=spec)})
    answer = place(req, gpu_cluster)
    assert answer.feasible is False
    assert answer.explanation["roots"][0]["fitErrors"] == [{"group": "pg", "pod": "pg-0", "message": expected}]
    assert f"- `pg` pod `pg-0`: {expected}" in answer.text.splitlines()


def test_the_not_ready_node_with_its_taint_draws_no_warning(gpu_cluster: Cluster) -> None:
    assert gpu_cluster.warnings == ()


NAMED = {"key": "metadata.name", "operator": "In"}
PREFILTER_CASES = [
    (
        "one term naming one node: the others are left out by PreFilter",
        [{"matchFields": [{**NAMED, "values": ["n1"]}]}],
        "0/4 nodes are available: 1 Insufficient cpu, 3 node(s) didn't satisfy plugin(s) [NodeAffinity].",
    ),
    (
        "two terms naming nodes: their names are united",
        [{"matchFields": [{**NAMED, "values": ["n1"]}]}, {"matchFields": [{**NAMED, "values": ["n3"]}]}],
        "0/4 nodes are available: 2 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) [NodeAffinity].",
    ),
    (
        "a term naming no node keeps every node",
        [
            {"matchFields": [{**NAMED, "values": ["n1"]}]},
            {"matchExpressions": [{"key": "x", "operator": "DoesNotExist"}]},
        ],
        "0/4 nodes are available: 4 Insufficient cpu.",
    ),
    (
        "a term naming two disjoint nodes: PreFilter's conflict is the only reason",
        [{"matchFields": [{**NAMED, "values": ["n1"]}, {**NAMED, "values": ["n2"]}]}],
        "0/4 nodes are available: pod affinity terms conflict.",
    ),
    (
        "a named node that does not exist: every node is left out",
        [{"matchFields": [{**NAMED, "values": ["ghost"]}]}],
        "0/4 nodes are available: 4 node(s) didn't satisfy plugin(s) [NodeAffinity].",
    ),
]


@pytest.mark.parametrize(("terms", "expected"), [c[1:] for c in PREFILTER_CASES], ids=[c[0] for c in PREFILTER_CASES])
def test_node_affinity_prefilter_narrows_the_nodes_before_the_filters(terms: list[object], expected: str) -> None:
    cluster = Cluster.from_yaml(
        {"nodes": [{"name": f"n{i}", "allocatable": {"cpu": "4", "pods": "110"}} for i in range(4)]}
    )
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}}
    template = {"spec": {"affinity": affinity, "containers": [{"name": "c", "resources": {"requests": {"cpu": "8"}}}]}}
    answer = place(request([pod_group("pg", 1)], {"pg": Pods(1, template=template)}), cluster)
    assert answer.explanation["roots"][0]["fitErrors"] == [{"group": "pg", "pod": "pg-0", "message": expected}]
