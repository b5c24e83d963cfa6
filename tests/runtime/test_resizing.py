"""resize: JSON Patches for a gang template's minCount and every PodGroup made from it."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from kubernetes.client import V1beta1PodGroup, V1beta1Workload

from workloadbuilder import BuildError, to_dict
from workloadbuilder.runtime.hierarchy import materialize
from workloadbuilder.runtime.resizing import Patch, resize

OWNER = {
    "apiVersion": "jobset.x-k8s.io/v1alpha2",
    "kind": "JobSet",
    "name": "train",
    "uid": "js-uid",
    "controller": True,
}


def flat_workload() -> V1beta1Workload:
    return V1beta1Workload.model_validate(
        {
            "metadata": {"name": "wl", "namespace": "ml", "ownerReferences": [OWNER]},
            "spec": {
                "podGroupTemplates": [
                    {"name": "driver", "schedulingPolicy": {"basic": {}}},
                    {"name": "workers", "schedulingPolicy": {"gang": {"minCount": 4}}},
                ]
            },
        }
    )


def nested_workload() -> V1beta1Workload:
    return V1beta1Workload.model_validate(
        {
            "metadata": {"name": "wl", "namespace": "ml", "ownerReferences": [OWNER]},
            "spec": {
                "compositePodGroupTemplates": [
                    {
                        "name": "top",
                        "schedulingPolicy": {"gang": {"minGroupCount": 2}},
                        "podGroupTemplates": [{"name": "leader", "schedulingPolicy": {"gang": {"minCount": 1}}}],
                        "compositePodGroupTemplates": [
                            {
                                "name": "mid",
                                "schedulingPolicy": {"basic": {}},
                                "podGroupTemplates": [
                                    {"name": "a", "schedulingPolicy": {"basic": {}}},
                                    {"name": "deep", "schedulingPolicy": {"gang": {"minCount": 3}}},
                                ],
                            }
                        ],
                    }
                ]
            },
        }
    )


def pod_group(
    name: str, template: str, min_count: int | None, workload: str = "wl", namespace: str = "ml"
) -> dict[str, Any]:
    policy = {"basic": {}} if min_count is None else {"gang": {"minCount": min_count}}
    return {
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"schedulingPolicy": policy, "workloadRef": {"workloadName": workload, "templateName": template}},
    }


def replace(path: str, value: int) -> dict[str, Any]:
    return {"op": "replace", "path": path, "value": value}


def pod_group_patch(name: str, value: int) -> Patch:
    return Patch(
        "scheduling.k8s.io/v1beta1", "PodGroup", name, "ml", [replace("/spec/schedulingPolicy/gang/minCount", value)]
    )


def test_resize_a_flat_template_and_its_pod_groups():
    pod_groups = [
        pod_group("wl-driver-x", "driver", None),
        pod_group("wl-workers-0-x", "workers", 4),
        pod_group("wl-workers-1-x", "workers", 4),
        pod_group("other-workers-x", "workers", 4, workload="other"),
        pod_group("wl-workers-ns-x", "workers", 4, namespace="elsewhere"),
    ]
    assert resize(flat_workload(), pod_groups, "workers", 6) == [
        Patch(
            "scheduling.k8s.io/v1beta1",
            "Workload",
            "wl",
            "ml",
            [
                {"op": "test", "path": "/spec/podGroupTemplates/1/name", "value": "workers"},
                replace("/spec/podGroupTemplates/1/schedulingPolicy/gang/minCount", 6),
            ],
        ),
        pod_group_patch("wl-workers-0-x", 6),
        pod_group_patch("wl-workers-1-x", 6),
    ]


@pytest.mark.parametrize(
    ("template", "pointer"),
    [
        ("leader", "/spec/compositePodGroupTemplates/0/podGroupTemplates/0"),
        ("deep", "/spec/compositePodGroupTemplates/0/compositePodGroupTemplates/0/podGroupTemplates/1"),
    ],
    ids=["depth-2", "depth-3"],
)
def test_resize_a_nested_template(template: str, pointer: str):
    (patch,) = resize(nested_workload(), [], template, 7)
    assert patch.body == [
        {"op": "test", "path": f"{pointer}/name", "value": template},
        replace(f"{pointer}/schedulingPolicy/gang/minCount", 7),
    ]
    assert patch.patch_type == "application/json-patch+json"


def test_only_objects_off_the_value_are_patched():
    pod_groups = [pod_group("wl-workers-0-x", "workers", 6), pod_group("wl-workers-1-x", "workers", 4)]
    workload = flat_workload()
    workload.spec.pod_group_templates[1].scheduling_policy.gang.min_count = 6
    assert resize(workload, pod_groups, "workers", 6) == [pod_group_patch("wl-workers-1-x", 6)]
    assert resize(workload, pod_groups[:1], "workers", 6) == []


def test_models_and_dicts_give_the_same_patches():
    workload = flat_workload()
    groups = materialize(workload, {"workers": 2})
    models = [group.object for group in groups]
    from_models = resize(workload, models, "workers", 2)
    from_dicts = resize(to_dict(workload), [to_dict(m) for m in models], "workers", 2)
    assert from_models == from_dicts
    assert [patch.name for patch in from_models] == [
        "wl",
        groups.find("workers", 0).name,
        groups.find("workers", 1).name,
    ]


def apply(document: dict[str, Any], operations: list[dict[str, Any]]) -> dict[str, Any]:
    """A minimal RFC 6902 applier for the two operations resize uses."""
    out = copy.deepcopy(document)
    for operation in operations:
        *parents, last = operation["path"].strip("/").split("/")
        node: Any = out
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        key: Any = int(last) if isinstance(node, list) else last
        if operation["op"] == "test":
            assert node[key] == operation["value"], f"test failed at {operation['path']}"
        else:
            assert key in node if isinstance(node, dict) else key < len(node)
            node[key] = operation["value"]
    return out


def test_applied_patches_resize_everything():
    workload = nested_workload()
    hierarchy = materialize(workload, {"top": 2})
    objects = {group.name: to_dict(group.object) for group in hierarchy}
    patches = resize(workload, hierarchy.objects(), "deep", 9)
    patched_workload = apply(to_dict(workload), patches[0].body)
    deep_template = patched_workload["spec"]["compositePodGroupTemplates"][0]["compositePodGroupTemplates"][0][
        "podGroupTemplates"
    ][1]
    assert deep_template["schedulingPolicy"] == {"gang": {"minCount": 9}}
    assert [p.name for p in patches[1:]] == [hierarchy.find("deep", 0).name, hierarchy.find("deep", 1).name]
    for patch in patches[1:]:
        assert (
            V1beta1PodGroup.model_validate(apply(objects[patch.name], patch.body)).spec.scheduling_policy.gang.min_count
            == 9
        )
    # a reordered template list fails the test operation instead of resizing another template
    moved = to_dict(workload)
    moved["spec"]["compositePodGroupTemplates"][0]["compositePodGroupTemplates"][0]["podGroupTemplates"].reverse()
    with pytest.raises(AssertionError, match="test failed"):
        apply(moved, patches[0].body)


@pytest.mark.parametrize(
    ("workload", "pod_groups", "template", "value", "message"),
    [
        (flat_workload, [], "driver", 2, 'cannot resize podGroupTemplate "driver": its scheduling policy is basic'),
        (
            nested_workload,
            [],
            "top",
            2,
            'cannot resize compositePodGroupTemplate "top": only a PodGroup\'s minCount may change after creation',
        ),
        (
            flat_workload,
            [],
            "missing",
            2,
            'podGroupTemplate "missing" not found in workload "wl" (have [driver workers])',
        ),
        (flat_workload, [], "workers", 0, 'cannot resize podGroupTemplate "workers": minCount must be >= 1, got 0'),
        (
            flat_workload,
            [],
            "workers",
            True,
            'cannot resize podGroupTemplate "workers": minCount must be >= 1, got True',
        ),
        (flat_workload, [], "workers", 2.5, 'cannot resize podGroupTemplate "workers": minCount must be >= 1, got 2.5'),
        (
            flat_workload,
            [pod_group("wl-workers-0-x", "workers", None)],
            "workers",
            2,
            'PodGroup "wl-workers-0-x" made from podGroupTemplate "workers" has no gang policy to resize',
        ),
    ],
    ids=["basic", "composite", "unknown", "zero", "bool", "float", "basic-pod-group"],
)
def test_resize_refuses(workload, pod_groups: list[dict[str, Any]], template: str, value: Any, message: str):
    with pytest.raises(BuildError) as caught:
        resize(workload(), pod_groups, template, value)
    assert str(caught.value) == message
