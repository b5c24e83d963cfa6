"""materialize: every runtime group of a Workload, linked, owned, named and ordered root to leaves."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml
from kubernetes.client import V1alpha3CompositePodGroup, V1beta1PodGroup, V1beta1Workload, V1OwnerReference

from workloadbuilder import (
    AggregateError,
    Builder,
    BuildError,
    BuildOptions,
    PolicyInput,
    WorkloadInput,
    WorkloadItem,
    to_dict,
    to_yaml,
)
from workloadbuilder.podgroup import new_pod_group
from workloadbuilder.runtime.hierarchy import Hierarchy, RuntimeGroup, materialize
from workloadbuilder.runtime.naming import pod_group_name, runtime_group_name
from workloadbuilder.validation.formats import is_dns1123_subdomain

ROOT = Path(__file__).resolve().parents[2]
LWS = {
    "apiVersion": "leaderworkerset.x-k8s.io/v1",
    "kind": "LeaderWorkerSet",
    "name": "vllm",
    "uid": "lws-uid",
    "controller": True,
}
JOBSET = {
    "apiVersion": "jobset.x-k8s.io/v1alpha2",
    "kind": "JobSet",
    "name": "train",
    "uid": "js-uid",
    "controller": True,
}


def gang(min_count: int) -> WorkloadInput:
    return WorkloadInput(policy=PolicyInput(pod_group_data={"gang": {"minCount": min_count}}))


def composite_gang(min_group_count: int) -> WorkloadInput:
    return WorkloadInput(policy=PolicyInput(composite_pod_group_data={"gang": {"minGroupCount": min_group_count}}))


def compile_tree(root: WorkloadItem, name: str = "wl", owner: dict[str, Any] | None = None) -> V1beta1Workload:
    return Builder(root, BuildOptions(name=name, namespace="ns", owner=owner or LWS)).build_workload()


def lws_workload() -> V1beta1Workload:
    """Composite ``replica`` (gang of 2 groups) over gang leaves ``leader`` (1) and ``worker`` (4)."""
    root = WorkloadItem(
        name="replica",
        input=composite_gang(2),
        children=[WorkloadItem(name="leader", input=gang(1)), WorkloadItem(name="worker", input=gang(4))],
    )
    return compile_tree(root)


def group_dict(
    kind: str,
    name: str,
    template: str,
    spec: dict[str, Any],
    parent: str | None = None,
    owners: Sequence[dict[str, Any]] = (LWS,),
) -> dict[str, Any]:
    """The exact manifest of one runtime group of Workload ``wl`` in namespace ``ns``."""
    full_spec = dict(spec)
    if parent is not None:
        full_spec["parentCompositePodGroupName"] = parent
    full_spec["workloadRef"] = {"templateName": template, "workloadName": "wl"}
    version = "v1alpha3" if kind == "CompositePodGroup" else "v1beta1"
    return {
        "apiVersion": f"scheduling.k8s.io/{version}",
        "kind": kind,
        "metadata": {"name": name, "namespace": "ns", "ownerReferences": list(owners)},
        "spec": full_spec,
    }


def names(hierarchy: Hierarchy) -> list[str]:
    return [group.name for group in hierarchy]


# --- the shapes controllers have ---


def test_lws_shape_every_object_exactly():
    hierarchy = materialize(lws_workload(), {"replica": 2})
    replica = [runtime_group_name("wl", "replica", (i,)) for i in range(2)]
    leader = [runtime_group_name("wl", "leader", (i,)) for i in range(2)]
    worker = [runtime_group_name("wl", "worker", (i,)) for i in range(2)]
    assert [to_dict(obj) for obj in hierarchy.objects()] == [
        group_dict("CompositePodGroup", replica[0], "replica", {"schedulingPolicy": {"gang": {"minGroupCount": 2}}}),
        group_dict("CompositePodGroup", replica[1], "replica", {"schedulingPolicy": {"gang": {"minGroupCount": 2}}}),
        group_dict("PodGroup", leader[0], "leader", {"schedulingPolicy": {"gang": {"minCount": 1}}}, replica[0]),
        group_dict("PodGroup", worker[0], "worker", {"schedulingPolicy": {"gang": {"minCount": 4}}}, replica[0]),
        group_dict("PodGroup", leader[1], "leader", {"schedulingPolicy": {"gang": {"minCount": 1}}}, replica[1]),
        group_dict("PodGroup", worker[1], "worker", {"schedulingPolicy": {"gang": {"minCount": 4}}}, replica[1]),
    ]
    assert replica[0] == "wl-replica-0-548b7f657b"  # FNV-32a("wl" "replica" "[0]") = 1046392136


def test_lws_shape_runtime_groups():
    hierarchy = materialize(lws_workload(), {"replica": 3})
    assert [(g.template_name, g.indices, g.depth, g.is_composite) for g in hierarchy] == [
        ("replica", (0,), 1, True),
        ("replica", (1,), 1, True),
        ("replica", (2,), 1, True),
        ("leader", (0,), 2, False),
        ("worker", (0,), 2, False),
        ("leader", (1,), 2, False),
        ("worker", (1,), 2, False),
        ("leader", (2,), 2, False),
        ("worker", (2,), 2, False),
    ]
    assert [g.parent for g in hierarchy.pod_groups()] == [hierarchy.find("replica", i).name for i in (0, 0, 1, 1, 2, 2)]


def test_job_shape_gets_the_job_controller_pod_group_name():
    workload = compile_tree(WorkloadItem(name="trainer-pgt-0", input=gang(4)), name="trainer-7dccc85c97")
    (group,) = materialize(workload)
    assert group == RuntimeGroup(
        "trainer-7dccc85c97-trainer-pgt-0-5bbdf84755", "trainer-pgt-0", None, (), 1, group.object
    )
    assert group.name == pod_group_name("trainer-7dccc85c97", "trainer-pgt-0")


def test_flat_forest_shape_one_pod_group_per_child_job():
    workload = V1beta1Workload.model_validate(
        {
            "metadata": {"name": "wl", "namespace": "ns", "ownerReferences": [JOBSET]},
            "spec": {
                "podGroupTemplates": [
                    {"name": "driver", "schedulingPolicy": {"basic": {}}},
                    {"name": "workers", "schedulingPolicy": {"gang": {"minCount": 8}}},
                ]
            },
        }
    )
    hierarchy = materialize(workload, {"workers": 3})
    assert [(g.name, g.parent) for g in hierarchy] == [
        (pod_group_name("wl", "driver"), None),
        (runtime_group_name("wl", "workers", (0,)), None),
        (runtime_group_name("wl", "workers", (1,)), None),
        (runtime_group_name("wl", "workers", (2,)), None),
    ]
    assert to_dict(hierarchy.find("workers", 2).object)["metadata"]["ownerReferences"] == [JOBSET]


def test_every_scheduling_field_is_copied_as_new_pod_group_copies_it():
    workload = V1beta1Workload.model_validate(
        {
            "metadata": {"name": "wl", "namespace": "ns", "ownerReferences": [LWS]},
            "spec": {
                "compositePodGroupTemplates": [
                    {
                        "name": "top",
                        "schedulingPolicy": {"gang": {"minGroupCount": 1}},
                        "schedulingConstraints": {"topology": [{"key": "zone"}]},
                        "disruptionMode": {"all": {}},
                        "priorityClassName": "high",
                        "priority": 1000,
                        "preemptionPolicy": "Never",
                        "podGroupTemplates": [
                            {
                                "name": "gpu",
                                "schedulingPolicy": {"gang": {"minCount": 2}},
                                "schedulingConstraints": {"topology": [{"key": "rack"}]},
                                "disruptionMode": {"all": {}},
                                "resourceClaims": [{"name": "gpus", "resourceClaimTemplateName": "a100"}],
                                "priorityClassName": "high",
                                "priority": 1000,
                                "preemptionPolicy": "Never",
                            }
                        ],
                    }
                ]
            },
        }
    )
    top, gpu = materialize(workload)
    template = workload.spec.composite_pod_group_templates[0].pod_group_templates[0]
    expected = to_dict(new_pod_group(workload, template, gpu.name, workload.metadata.owner_references))
    expected["spec"]["parentCompositePodGroupName"] = top.name
    assert to_dict(gpu.object) == expected
    assert to_dict(top.object)["spec"] == {
        "disruptionMode": {"all": {}},
        "preemptionPolicy": "Never",
        "priority": 1000,
        "priorityClassName": "high",
        "schedulingConstraints": {"topology": [{"key": "zone"}]},
        "schedulingPolicy": {"gang": {"minGroupCount": 1}},
        "workloadRef": {"templateName": "top", "workloadName": "wl"},
    }


# --- instances ---


@pytest.mark.parametrize(
    ("instances", "expected"),
    [
        (None, [("replica", ()), ("leader", ()), ("worker", ())]),
        ({}, [("replica", ()), ("leader", ()), ("worker", ())]),
        ({"replica": 0}, []),
        ({"worker": 0}, [("replica", ()), ("leader", ())]),
        ({"replica": 1}, [("replica", (0,)), ("leader", (0,)), ("worker", (0,))]),
        (
            {"replica": 2, "worker": 2},
            [
                ("replica", (0,)),
                ("replica", (1,)),
                ("leader", (0,)),
                ("worker", (0, 0)),
                ("worker", (0, 1)),
                ("leader", (1,)),
                ("worker", (1, 0)),
                ("worker", (1, 1)),
            ],
        ),
    ],
    ids=["none", "empty", "zero-root", "zero-leaf", "replicated-once", "replicated-twice"],
)
def test_instances_count_per_parent_instance(
    instances: dict[str, int] | None, expected: list[tuple[str, tuple[int, ...]]]
):
    hierarchy = materialize(lws_workload(), instances)
    assert [(g.template_name, g.indices) for g in hierarchy] == expected
    assert names(hierarchy) == [runtime_group_name("wl", template, indices) for template, indices in expected]


def test_a_group_keeps_its_name_when_its_count_changes():
    small = materialize(lws_workload(), {"replica": 1})
    large = materialize(lws_workload(), {"replica": 5})
    assert set(names(small)) < set(names(large))


@pytest.mark.parametrize(
    ("instances", "message"),
    [
        (
            {"replicas": 2},
            'instances names template "replicas", which the Workload does not have (have [leader worker replica])',
        ),
        ({"replica": -1}, 'instances of template "replica" must be a count >= 0, got -1'),
        ({"replica": True}, 'instances of template "replica" must be a count >= 0, got True'),
        ({"replica": 2.0}, 'instances of template "replica" must be a count >= 0, got 2.0'),
    ],
    ids=["unknown-template", "negative", "bool", "float"],
)
def test_bad_instances_raise(instances: dict[str, Any], message: str):
    with pytest.raises(BuildError) as caught:
        materialize(lws_workload(), instances)
    assert str(caught.value) == message


# --- owners ---


def test_explicit_owner_replaces_the_workloads():
    owner = {"apiVersion": "v1", "kind": "ConfigMap", "name": "cm", "uid": "cm-uid"}
    hierarchy = materialize(lws_workload(), owner=owner)
    assert {str(to_dict(obj)["metadata"]["ownerReferences"]) for obj in hierarchy.objects()} == {str([owner])}


def test_default_owner_is_the_workloads_controller_reference():
    workload = lws_workload()
    other = {"apiVersion": "v1", "kind": "ConfigMap", "name": "cm", "uid": "cm-uid"}
    workload.metadata.owner_references = [V1OwnerReference.model_validate(other), *workload.metadata.owner_references]
    root, *_ = materialize(workload)
    assert to_dict(root.object)["metadata"]["ownerReferences"] == [LWS]


def test_link_workload_adds_a_non_controller_reference():
    workload = lws_workload()
    workload.metadata.uid = "wl-uid"
    hierarchy = materialize(workload, link_workload=True)
    workload_ref = {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "Workload", "name": "wl", "uid": "wl-uid"}
    assert [to_dict(obj)["metadata"]["ownerReferences"] for obj in hierarchy.objects()] == [[LWS, workload_ref]] * 3


NO_OWNER = 'runtime groups must be owned by their controller for garbage collection: pass owner, Workload "wl" has '


@pytest.mark.parametrize(
    ("change", "kwargs", "message"),
    [
        (
            lambda wl: setattr(wl.metadata, "name", None),
            {},
            "cannot materialize a Workload without a name: runtime groups refer to it by name",
        ),
        (
            lambda wl: None,
            {"link_workload": True},
            'cannot link runtime groups to Workload "wl": it has no uid yet (create it first)',
        ),
        (
            lambda wl: setattr(wl.metadata, "owner_references", None),
            {},
            NO_OWNER + "0 owner references and 0 controllers",
        ),
        (
            lambda wl: setattr(wl.metadata, "owner_references", [*wl.metadata.owner_references] * 2),
            {},
            NO_OWNER + "2 owner references and 2 controllers",
        ),
    ],
    ids=["no-name", "link-without-uid", "no-owner", "two-controllers"],
)
def test_contract_violations_raise(change, kwargs: dict[str, Any], message: str):
    workload = lws_workload()
    change(workload)
    with pytest.raises(BuildError) as caught:
        materialize(workload, **kwargs)
    assert str(caught.value) == message


# --- names ---


def test_custom_namer():
    def namer(workload: str, template: str, indices: Sequence[int]) -> str:
        return ".".join([workload, template, *map(str, indices)])

    assert names(materialize(lws_workload(), {"replica": 2}, namer=namer)) == [
        "wl.replica.0",
        "wl.replica.1",
        "wl.leader.0",
        "wl.worker.0",
        "wl.leader.1",
        "wl.worker.1",
    ]


@pytest.mark.parametrize(
    ("namer", "message"),
    [
        (
            lambda wl, t, i: "same",
            'runtime group name "same" is given to template "replica" [] and to template "leader" []',
        ),
        (
            lambda wl, t, i: t.upper(),
            'runtime group name "REPLICA" of template "replica" is not a valid DNS subdomain: a lowercase RFC 1123 '
            "subdomain",
        ),
    ],
    ids=["duplicate", "invalid"],
)
def test_bad_names_from_a_namer_raise(namer, message: str):
    with pytest.raises(BuildError) as caught:
        materialize(lws_workload(), namer=namer)
    assert str(caught.value).startswith(message)


def test_long_names_at_the_limits_stay_valid():
    long_workload = "w" * 253
    root = WorkloadItem(name="r" * 63, children=[WorkloadItem(name="l" * 63)])
    hierarchy = materialize(compile_tree(root, name=long_workload), {"r" * 63: 8})
    assert len(hierarchy) == 16
    assert len(set(names(hierarchy))) == 16
    assert all(len(name) == 253 and is_dns1123_subdomain(name) == [] for name in names(hierarchy))
    assert hierarchy.find("l" * 63, 7).object.spec.workload_ref.workload_name == long_workload


# --- deep and wide trees ---


def full_tree(prefix: str, depth: int, fanout: int) -> WorkloadItem:
    if depth == 1:
        return WorkloadItem(name=prefix)
    return WorkloadItem(name=prefix, children=[full_tree(f"{prefix}-{i}", depth - 1, fanout) for i in range(fanout)])


def assert_well_formed(hierarchy: Hierarchy, workload: V1beta1Workload) -> None:
    """Parents before children, parent links to composites of the parent template, unique valid names."""
    position = {group.name: i for i, group in enumerate(hierarchy)}
    assert len(position) == len(hierarchy)
    parent_template = template_parents(workload)
    for group in hierarchy:
        assert is_dns1123_subdomain(group.name) == []
        assert group.object.metadata.name == group.name
        assert group.object.spec.parent_composite_pod_group_name == group.parent
        if group.parent is None:
            assert group.depth == 1
            assert parent_template[group.template_name] is None
            continue
        parent = hierarchy[group.parent]
        assert position[parent.name] < position[group.name]
        assert parent.is_composite
        assert parent.depth == group.depth - 1
        assert parent.template_name == parent_template[group.template_name]
    depths = [group.depth for group in hierarchy]
    assert depths == sorted(depths)


def template_parents(workload: V1beta1Workload) -> dict[str, str | None]:
    out: dict[str, str | None] = {}

    def walk(templates: Any, parent: str | None) -> None:
        for template in templates or []:
            out[template.name] = parent
            walk(getattr(template, "pod_group_templates", None), template.name)
            walk(getattr(template, "composite_pod_group_templates", None), template.name)

    walk(workload.spec.pod_group_templates, None)
    walk(workload.spec.composite_pod_group_templates, None)
    return out


def test_depth_4_fan_out_8_template_tree():
    workload = compile_tree(full_tree("n", 4, 8))
    hierarchy = materialize(workload)
    assert len(hierarchy) == 1 + 8 + 64 + 512
    assert [sum(1 for g in hierarchy if g.depth == d) for d in (1, 2, 3, 4)] == [1, 8, 64, 512]
    assert len(hierarchy.pod_groups()) == 512
    assert_well_formed(hierarchy, workload)
    assert hierarchy.children_of(hierarchy.find("n-7-7").name)[-1].template_name == "n-7-7-7"


def test_depth_4_with_8_instances_per_level():
    chain = WorkloadItem(
        name="l1",
        children=[WorkloadItem(name="l2", children=[WorkloadItem(name="l3", children=[WorkloadItem(name="l4")])])],
    )
    workload = compile_tree(chain)
    hierarchy = materialize(workload, {"l1": 8, "l2": 8, "l3": 8, "l4": 8})
    assert len(hierarchy) == 8 + 64 + 512 + 4096
    assert_well_formed(hierarchy, workload)
    leaf = hierarchy.find("l4", 7, 6, 5, 4)
    assert leaf.name == runtime_group_name("wl", "l4", (7, 6, 5, 4))
    assert hierarchy[leaf.parent].indices == (7, 6, 5)


def test_leaves_at_every_depth():
    root = WorkloadItem(
        name="a",
        children=[
            WorkloadItem(name="a-leaf"),
            WorkloadItem(
                name="b",
                children=[WorkloadItem(name="b-leaf"), WorkloadItem(name="c", children=[WorkloadItem(name="c-leaf")])],
            ),
        ],
    )
    workload = compile_tree(root)
    hierarchy = materialize(workload, {"b": 2})
    assert [(g.template_name, g.indices, g.parent and hierarchy[g.parent].template_name) for g in hierarchy] == [
        ("a", (), None),
        ("a-leaf", (), "a"),
        ("b", (0,), "a"),
        ("b", (1,), "a"),
        ("b-leaf", (0,), "b"),
        ("c", (0,), "b"),
        ("b-leaf", (1,), "b"),
        ("c", (1,), "b"),
        ("c-leaf", (0,), "c"),
        ("c-leaf", (1,), "c"),
    ]
    assert_well_formed(hierarchy, workload)


# --- the Hierarchy ---


def test_hierarchy_lookups():
    hierarchy = materialize(lws_workload(), {"replica": 2})
    replica0, replica1 = hierarchy.roots()
    leader1 = hierarchy.find("leader", 1)
    assert (hierarchy.template_of(leader1.name), hierarchy.parent_of(leader1.name)) == ("leader", replica1.name)
    assert hierarchy.parent_of(replica0.name) is None
    assert [g.template_name for g in hierarchy.children_of(replica0.name)] == ["leader", "worker"]
    assert hierarchy.children_of(leader1.name) == []
    assert hierarchy.children_of(None) == [replica0, replica1]
    assert hierarchy[leader1.name] is leader1
    assert leader1.name in hierarchy
    assert "nope" not in hierarchy
    assert (len(hierarchy), len(hierarchy.pod_groups())) == (6, 4)
    assert hierarchy.deletion_order() == list(reversed(hierarchy.objects()))
    assert isinstance(replica0.object, V1alpha3CompositePodGroup)
    assert isinstance(leader1.object, V1beta1PodGroup)
    with pytest.raises(KeyError):
        hierarchy.find("leader", 2)
    with pytest.raises(KeyError):
        hierarchy["nope"]


def test_runtime_groups_do_not_alias_the_workload():
    workload = lws_workload()
    before = to_dict(workload)
    hierarchy = materialize(workload, {"replica": 2})
    hierarchy.find("worker", 0).object.spec.scheduling_policy.gang.min_count = 99
    assert to_dict(workload) == before
    assert hierarchy.find("worker", 1).object.spec.scheduling_policy.gang.min_count == 4


# --- round trips ---


def test_dict_workload_gives_the_same_hierarchy():
    workload = lws_workload()
    from_model = [to_dict(obj) for obj in materialize(workload, {"replica": 2}).objects()]
    from_dict = [to_dict(obj) for obj in materialize(to_dict(workload), {"replica": 2}).objects()]
    assert from_dict == from_model


def test_yaml_round_trip():
    hierarchy = materialize(lws_workload(), {"replica": 2})
    documents = list(yaml.safe_load_all(to_yaml(hierarchy.objects())))
    assert documents == [to_dict(obj) for obj in hierarchy.objects()]
    models = [
        (V1alpha3CompositePodGroup if doc["kind"] == "CompositePodGroup" else V1beta1PodGroup).model_validate(doc)
        for doc in documents
    ]
    assert to_yaml(models) == to_yaml(hierarchy.objects())
    # a Workload read back from YAML materializes the same groups
    workload_again = yaml.safe_load(to_yaml(lws_workload()))
    assert [to_dict(o) for o in materialize(workload_again, {"replica": 2}).objects()] == documents


# --- the runtime page ---


def test_a_dict_workload_that_does_not_decode_raises_at_its_path():
    workload = {"metadata": {"name": "wl"}, "spec": {"podGroupTemplates": [{"name": "a", "minCont": 1}]}}
    with pytest.raises(AggregateError) as caught:
        materialize(workload)
    assert [error["loc"] for error in caught.value.errors()] == [("spec", "podGroupTemplates", 0, "minCont")]
