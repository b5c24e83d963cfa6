"""Requests are read from runtime objects (dicts or client models), pod counts and requests; bad input is
field errors."""

from __future__ import annotations

from typing import Any

import pytest
from kubernetes.client import V1Container, V1PodSpec, V1PodTemplateSpec, V1ResourceRequirements
from placement_helpers import BLOCK, RACK, composite, pod_group

from workloadbuilder import Builder, BuildOptions, ConstraintsInput, PolicyInput, WorkloadInput, WorkloadItem, to_dict
from workloadbuilder.adapters.documents import request_from_plan
from workloadbuilder.field import AggregateError, ErrorType
from workloadbuilder.placement import DeviceRequest, PlacementRequest, Pods

OWNER = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "name": "train", "uid": "js-uid"}
PODS = {"workers-a": Pods(5, requests={"nvidia.com/gpu": "1"}), "workers-b": Pods(3, requests={"cpu": "500m"})}


def _leaf_item(name: str, min_count: int, key: str | None) -> WorkloadItem:
    constraints = ConstraintsInput(pod_group_data={"topology": [{"key": key}]} if key else None)
    return WorkloadItem(
        name=name,
        input=WorkloadInput(
            policy=PolicyInput(pod_group_data={"gang": {"minCount": min_count}}), constraints=constraints
        ),
    )


def _models() -> list[Any]:
    """The runtime groups as client models, made by the Builder from a WorkloadItem tree."""
    root = WorkloadItem(
        name="train",
        input=WorkloadInput(
            policy=PolicyInput(composite_pod_group_data={"gang": {"minGroupCount": 2}}),
            constraints=ConstraintsInput(composite_pod_group_data={"topology": [{"key": BLOCK}]}),
        ),
        children=[_leaf_item("workers-a", 5, RACK), _leaf_item("workers-b", 2, None)],
    )
    builder = Builder(root, BuildOptions(name="train", namespace="ml", owner=OWNER))
    builder.build_workload()
    top = builder.new_composite_pod_group("train", "train")
    leaves = [builder.new_pod_group(name, name) for name in ("workers-a", "workers-b")]
    for leaf in leaves:
        leaf.spec.parent_composite_pod_group_name = "train"
    return [top, *leaves]


def _dicts() -> list[dict[str, Any]]:
    return [to_dict(obj) for obj in _models()]


@pytest.mark.parametrize("flavour", [_models, _dicts], ids=["client-models", "dicts"])
def test_reads_the_hierarchy(flavour: Any) -> None:
    req = PlacementRequest.from_groups(flavour(), PODS)
    assert [root.name for root in req.roots] == ["train"]
    assert [(g.name, g.kind, g.template, g.parent, g.gang, g.minimum, g.topology_key, g.count) for g in req.groups] == [
        ("train", "CompositePodGroup", "train", None, True, 2, BLOCK, 0),
        ("workers-a", "PodGroup", "workers-a", "train", True, 5, RACK, 5),
        ("workers-b", "PodGroup", "workers-b", "train", True, 2, None, 3),
    ]
    assert req.group("workers-a").requests == {"nvidia.com/gpu": 1000}
    assert req.group("workers-b").pod_names == ("workers-b-0", "workers-b-1", "workers-b-2")


def test_children_in_creation_order() -> None:
    groups = [composite("root", 2), pod_group("late", 1, parent="root"), pod_group("early", 1, parent="root")]
    groups[1]["metadata"]["creationTimestamp"] = "2026-07-01T10:00:05Z"
    groups[2]["metadata"]["creationTimestamp"] = "2026-07-01T10:00:01Z"
    req = PlacementRequest.from_groups(groups, {"late": (1, {}), "early": (1, {})})
    assert [child.name for child in req.roots[0].children] == ["early", "late"]


def test_basic_policies_and_missing_min_group_count() -> None:
    root = composite("root", None)
    root["spec"]["schedulingPolicy"] = {"gang": {}}  # minGroupCount unset: every child
    req = PlacementRequest.from_groups(
        [root, pod_group("a", None, parent="root"), pod_group("b", None, parent="root")], {"a": (2, {}), "b": (1, {})}
    )
    assert [(g.name, g.gang, g.minimum) for g in req.groups] == [("root", True, 2), ("a", False, 1), ("b", False, 1)]


TEMPLATE = {
    "spec": {
        "containers": [
            {"name": "w", "resources": {"requests": {"cpu": "2", "memory": "4Gi"}}},
            {"name": "s", "resources": {"requests": {"cpu": "500m"}}},
        ]
    }
}
MODEL_TEMPLATE = V1PodTemplateSpec(
    spec=V1PodSpec(
        containers=[
            V1Container(name="w", resources=V1ResourceRequirements(requests={"cpu": "2", "memory": "4Gi"})),
            V1Container(name="s", resources=V1ResourceRequirements(requests={"cpu": "500m"})),
        ]
    )
)


@pytest.mark.parametrize(
    "template", [TEMPLATE, TEMPLATE["spec"], MODEL_TEMPLATE], ids=["template", "pod-spec", "client-model"]
)
def test_requests_from_a_pod_template(template: Any) -> None:
    req = PlacementRequest.from_groups([pod_group("w", 2)], {"w": Pods(2, template=template, names=("w-a", "w-b"))})
    assert req.group("w").requests == {"cpu": 2500, "memory": 4 * 2**30 * 1000}
    assert req.group("w").pod_names == ("w-a", "w-b")


def test_claims_are_shared_by_name_and_private_by_template() -> None:
    groups = [
        pod_group(
            "a",
            1,
            claims=[
                {"name": "nic", "resourceClaimName": "shared-nics"},
                {"name": "gpu", "resourceClaimTemplateName": "gpu-t"},
            ],
        ),
        pod_group("b", 1, claims=[{"name": "nic", "resourceClaimName": "shared-nics"}]),
    ]
    req = PlacementRequest.from_groups(
        groups,
        {"a": (1, {}), "b": (1, {})},
        {"shared-nics": {"deviceClass": "rdma", "count": 2}, "gpu-t": DeviceRequest("gpu", 4)},
    )
    a, b = req.group("a").claims, req.group("b").claims
    assert [c.identity for c in a] == [("claim", "shared-nics"), ("template", "a", "gpu")]
    assert b[0].identity == a[0].identity
    assert a[1].device == DeviceRequest("gpu", 4)


REQUEST_ERRORS = [
    (
        "unknown parent",
        [pod_group("a", 1, parent="nope")],
        {"a": (1, {})},
        None,
        [(ErrorType.NOT_FOUND, "groups[0].spec.parentCompositePodGroupName")],
    ),
    (
        "parent is a PodGroup",
        [pod_group("p", 1), pod_group("a", 1, parent="p")],
        {"a": (1, {}), "p": (1, {})},
        None,
        [(ErrorType.INVALID, "groups[1].spec.parentCompositePodGroupName")],
    ),
    ("pods missing", [pod_group("a", 1)], {}, None, [(ErrorType.REQUIRED, "pods[a]")]),
    (
        "pods for no PodGroup",
        [pod_group("a", 1)],
        {"a": (1, {}), "b": (1, {})},
        None,
        [(ErrorType.NOT_FOUND, "pods[b]")],
    ),
    (
        "bad request quantity",
        [pod_group("a", 1)],
        {"a": (1, {"cpu": "two"})},
        None,
        [(ErrorType.INVALID, "pods[a].requests[cpu]")],
    ),
    ("negative count", [pod_group("a", 1)], {"a": (-1, {})}, None, [(ErrorType.INVALID, "pods[a].count")]),
    (
        "claim without a device request",
        [pod_group("a", 1, claims=[{"name": "c", "resourceClaimName": "x"}])],
        {"a": (1, {})},
        None,
        [(ErrorType.NOT_FOUND, "claims[x]")],
    ),
    (
        "claim without a source",
        [pod_group("a", 1, claims=[{"name": "c"}])],
        {"a": (1, {})},
        None,
        [(ErrorType.REQUIRED, "groups[0].spec.resourceClaims[0]")],
    ),
    (
        "minCount zero",
        [pod_group("a", 0)],
        {"a": (1, {})},
        None,
        [(ErrorType.INVALID, "groups[0].spec.schedulingPolicy.gang.minCount")],
    ),
    ("no kind", [{"metadata": {"name": "a"}}], {}, None, [(ErrorType.INVALID, "groups[0].kind")]),
    (
        "priority differs from the parent",
        [composite("r", 1, priority=10), pod_group("a", 1, parent="r", priority=5)],
        {"a": (1, {})},
        None,
        [(ErrorType.INVALID, "groups[1].spec.priority")],
    ),
    (
        "two topology constraints",
        [{**pod_group("a", 1), "spec": {"schedulingConstraints": {"topology": [{"key": "x"}, {"key": "y"}]}}}],
        {"a": (1, {})},
        None,
        [(ErrorType.TOO_MANY, "groups[0].spec.schedulingConstraints.topology")],
    ),
    (
        "deeper than four levels",
        [
            composite("l1", 1),
            composite("l2", 1, parent="l1"),
            composite("l3", 1, parent="l2"),
            composite("l4", 1, parent="l3"),
            pod_group("l5", 1, parent="l4"),
        ],
        {"l5": (1, {})},
        None,
        [(ErrorType.INVALID, "groups[4]")],
    ),
    (
        "duplicate name",
        [pod_group("a", 1), pod_group("a", 1)],
        {"a": (1, {})},
        None,
        [(ErrorType.INVALID, "groups[1].metadata.name")],
    ),
    (
        "bad device count",
        [pod_group("a", 1)],
        {"a": (1, {})},
        {"x": {"deviceClass": "d", "count": 0}},
        [(ErrorType.INVALID, "claims[x].count")],
    ),
]


@pytest.mark.parametrize(
    ("groups", "pods", "claims", "expected"),
    [row[1:] for row in REQUEST_ERRORS],
    ids=[row[0] for row in REQUEST_ERRORS],
)
def test_request_errors_at_their_paths(
    groups: list[Any], pods: dict[str, Any], claims: Any, expected: list[tuple[ErrorType, str]]
) -> None:
    with pytest.raises(AggregateError) as err:
        PlacementRequest.from_groups(groups, pods, claims)
    assert [(e.type, e.field) for e in err.value.field_errors] == expected


def test_a_cycle_is_reported() -> None:
    groups = [composite("a", 1, parent="b"), composite("b", 1, parent="a")]
    with pytest.raises(AggregateError) as err:
        PlacementRequest.from_groups(groups, {})
    assert {e.detail for e in err.value.field_errors} == {"the hierarchy has a cycle"}


def test_from_plan_reads_groups_and_pod_templates() -> None:
    from workloadbuilder.adapters.base import Plan, PodAssignment

    source = {
        "apiVersion": "example.com/v1",
        "kind": "Trainer",
        "metadata": {"name": "train"},
        "spec": {"workers": {"template": TEMPLATE}},
    }
    item = _leaf_item("workers", 4, RACK)
    plan = Plan(
        source=source,
        roots=[item],
        options=BuildOptions(
            name="train", namespace="ml", owner=OWNER, allowed_policies=["Gang"], allowed_disruption_modes=["Single"]
        ),
        assign_pods=lambda hierarchy: [
            PodAssignment(group.name, {"role": "worker"}, 4, "spec.workers.template", group.template_name)
            for group in hierarchy.pod_groups()
        ],
    )
    req = request_from_plan(plan)
    (group,) = req.groups
    assert (group.template, group.minimum, group.count, group.requests) == (
        "workers",
        4,
        4,
        {"cpu": 2500, "memory": 4 * 2**30 * 1000},
    )
    assert request_from_plan(plan, requests={group.name: {"cpu": "1"}}).groups[0].requests == {"cpu": 1000}
