"""The Python API's contract under mutated inputs: a result, or a ``WorkloadBuilderError``, never anything else.

And one promise between two entry points: a plan whose ``validate()`` finds
nothing compiles (validation catches everything compile would refuse).
"""

from __future__ import annotations

from typing import Any

import yaml
from fuzz_helpers import CASES, FUZZ, SEEDS, dump_documents, hostile_texts, mutated_documents
from hypothesis import given
from hypothesis import strategies as st

import workloadbuilder as wb
from workloadbuilder import manifests
from workloadbuilder.adapters import adapter_for
from workloadbuilder.adapters.documents import request_from_plan
from workloadbuilder.errors import WorkloadBuilderError
from workloadbuilder.migration.versions import migrate
from workloadbuilder.placement import Cluster, place

SCHEDULING = [
    docs for docs in SEEDS if any(str(d.get("apiVersion", "")).startswith("scheduling.k8s.io/") for d in docs)
]
CLUSTER = Cluster.generate(8, hosts_per_rack=4)
COMPACT = {
    "nodes": [{"name": "a", "labels": {"zone": "z"}, "allocatable": {"cpu": "4", "pods": "10"}, "used": {"cpu": "1"}}],
    "devicePools": [{"name": "p", "deviceClass": "d", "count": 2, "node": "a"}],
    "running": [
        {
            "name": "g",
            "kind": "PodGroup",
            "priority": 1,
            "pods": [{"name": "p0", "node": "a", "requests": {"cpu": "1"}}],
        }
    ],
}
KUBECTL_NODES = {
    "apiVersion": "v1",
    "kind": "List",
    "items": [
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": f"n{i}", "labels": {"topology.kubernetes.io/zone": "z"}},
            "status": {"allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"}},
        }
        for i in range(2)
    ],
}
KUBECTL_PODS = {
    "apiVersion": "v1",
    "kind": "List",
    "items": [
        {
            "metadata": {"name": "p", "namespace": "default"},
            "spec": {
                "nodeName": "n0",
                "priority": 10,
                "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}],
            },
            "status": {"phase": "Running"},
        }
    ],
}


def _refused_or_done(entry: str, call: Any, *args: Any) -> Any:
    """``call(*args)``, or ``None`` when it refuses the input with a ``WorkloadBuilderError``."""
    CASES[entry] += 1
    try:
        return call(*args)
    except WorkloadBuilderError:
        return None


@FUZZ
@given(data=hostile_texts())
def test_manifests_load_raises_only_manifest_error(data: bytes) -> None:
    CASES["manifests.load"] += 1
    try:
        manifests.load(data.decode("utf-8", "replace"))
    except manifests.ManifestError as err:
        problems = err.problems
    else:
        return
    assert problems
    assert all(str(problem) for problem in problems)


@FUZZ
@given(docs=mutated_documents())
def test_plans_validate_compile_and_place_or_refuse(docs: list[dict[str, Any]]) -> None:
    for i, doc in enumerate(docs):
        adapter = adapter_for(str(doc.get("apiVersion", "")), str(doc.get("kind", "")))
        if adapter is None:
            continue
        related = docs[:i] + docs[i + 1 :]
        plan = _refused_or_done("Adapter.plan", adapter.plan, doc, related)
        if plan is None:
            continue
        findings = _refused_or_done("Plan.validate", plan.validate)
        compiled = _refused_or_done("Plan.compile", plan.compile)
        if findings == []:
            assert compiled is not None, "validate() found nothing, compile() refused"
        if compiled is None:
            continue
        request = _refused_or_done("request_from_plan", request_from_plan, compiled)
        if request is not None:
            _refused_or_done("place", place, request, CLUSTER)


@FUZZ
@given(docs=mutated_documents(SCHEDULING or SEEDS))
def test_scheduling_objects_validate_migrate_and_update_or_refuse(docs: list[dict[str, Any]]) -> None:
    for doc in docs:
        _refused_or_done("manifests.load", manifests.load, dump_documents([doc]))
        _refused_or_done("migrate", migrate, doc)
        for old in docs:
            _refused_or_done("check_update", wb.check_update, old, doc)


@FUZZ
@given(cluster=mutated_documents([[COMPACT]]))
def test_cluster_from_yaml_refuses_with_field_errors(cluster: list[dict[str, Any]]) -> None:
    _refused_or_done("Cluster.from_yaml", Cluster.from_yaml, yaml.safe_dump(cluster[0]))


@FUZZ
@given(nodes=mutated_documents([[KUBECTL_NODES]]), pods=mutated_documents([[KUBECTL_PODS]]), text=st.booleans())
def test_cluster_from_kubectl_refuses_with_field_errors(
    nodes: list[dict[str, Any]], pods: list[dict[str, Any]], text: bool
) -> None:
    source: Any = yaml.safe_dump(nodes[0]) if text else nodes[0]
    cluster = _refused_or_done("Cluster.from_kubectl", Cluster.from_kubectl, source, pods[0])
    if cluster is not None:
        assert len(cluster) >= 0
