"""kubectl JSON text decoded in C to the fields the readers read: the same cluster, and the same errors, as parsed."""

from __future__ import annotations

import copy
import importlib.util
import json
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from workloadbuilder.field import AggregateError
from workloadbuilder.placement.cluster import kubectl_text
from workloadbuilder.placement.cluster.readers import read_kubectl
from workloadbuilder.placement.cluster.records import ClusterParts, NodeColumns

from .test_nodes_reference import node_items

REALISTIC = Path(__file__).resolve().parents[4] / "shared" / "bench" / "realistic_cluster.py"
"""The realistic dump generator every benchmark reads clusters from (``../shared/bench`` beside the repository)."""


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("realistic_cluster", REALISTIC)
    if spec is None or spec.loader is None or not REALISTIC.is_file():
        pytest.skip(f"no realistic cluster generator at {REALISTIC}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def realistic() -> Callable[[int, int], tuple[str, str]]:
    """``generate(nodes, seed)`` of the realistic generator: nodes' and running pods' kubectl text."""
    module = _generator()
    return lambda nodes, seed: module.generate(nodes, seed)  # type: ignore[no-any-return]


def _outcome(read: Callable[[], ClusterParts]) -> ClusterParts | list[str]:
    """What a reader gives: its parts, or its field errors as lines."""
    try:
        return read()
    except AggregateError as raised:
        return [str(error) for error in raised.field_errors]


def check_same_reading(nodes: Any, pods: Any = None) -> ClusterParts | list[str]:
    """The text of ``nodes`` and ``pods`` reads as the parsed values do: equal parts, or the same errors."""
    nodes_text = json.dumps(nodes)
    pods_text = None if pods is None else json.dumps(pods)
    careful = _outcome(lambda: read_kubectl(copy.deepcopy(nodes), copy.deepcopy(pods)))
    fast = _outcome(lambda: read_kubectl(nodes_text, pods_text))
    assert fast == careful
    return fast


@pytest.mark.parametrize(("nodes", "seed"), [(16, 1), (300, 2), (1100, 3)], ids=["16-nodes", "300-nodes", "1100-nodes"])
def test_a_realistic_dump_reads_as_its_parsed_json(realistic: Any, nodes: int, seed: int) -> None:
    nodes_text, pods_text = realistic(nodes, seed)
    assert kubectl_text.decoded(nodes_text, pods_text) is not None, "the fast decode takes a realistic dump"
    parsed = read_kubectl(json.loads(nodes_text), json.loads(pods_text))
    assert read_kubectl(nodes_text, pods_text) == parsed
    assert read_kubectl(nodes_text.encode(), pods_text.encode()) == parsed
    assert len(parsed.pods) == sum(1 for i in range(nodes) if i % 16 < 10)


def _set(path: str, value: Any) -> Callable[[Any], None]:
    """A change that sets the value at a dotted path (``items.3.status.allocatable.cpu``); ``...`` deletes it."""

    def change(data: Any) -> None:
        *parents, last = [int(part) if part.isdigit() else part for part in path.split(".")]
        for part in parents:
            data = data[part]
        if value is ...:
            del data[last]
        else:
            data[last] = value

    return change


NODE_CHANGES = {
    "cpu-a-number": _set("items.3.status.allocatable.cpu", 5),
    "cpu-no-quantity": _set("items.3.status.allocatable.cpu", "lots"),
    "memory-null": _set("items.2.status.allocatable.memory", None),
    "allocatable-a-list": _set("items.1.status.allocatable", ["1"]),
    "no-allocatable": _set("items.1.status.allocatable", ...),
    "name-empty": _set("items.2.metadata.name", ""),
    "no-name": _set("items.2.metadata.name", ...),
    "name-a-number": _set("items.2.metadata.name", 7),
    "name-twice": _set("items.5.metadata.name", "gpu-node-000004"),
    "label-a-number": _set("items.0.metadata.labels.rack", 2),
    "labels-a-list": _set("items.0.metadata.labels", ["x"]),
    "taint-effect-unknown": _set("items.4.spec.taints.0.effect", "Never"),
    "taint-key-a-list": _set("items.4.spec.taints.0.key", ["x"]),
    "taints-an-object": _set("items.4.spec.taints", {"key": "x"}),
    "unschedulable-a-string": _set("items.6.spec.unschedulable", "yes"),
    "unschedulable": _set("items.6.spec.unschedulable", True),
    "conditions-a-string": _set("items.7.status.conditions", "not a list"),
    "ready-false": _set("items.7.status.conditions.3.status", "False"),
    "ready-a-number": _set("items.7.status.conditions.3.status", 1),
    "image-size-a-string": _set("items.8.status.images.0.sizeBytes", "big"),
    "image-size-a-float": _set("items.8.status.images.0.sizeBytes", 1.5),
    "image-names-null": _set("items.8.status.images.1.names", None),
    "image-a-string": _set("items.8.status.images.2", "x"),
    "images-an-object": _set("items.8.status.images", {}),
    "item-a-string": _set("items.9", "not an object"),
    "status-a-string": _set("items.9.status", "nothing"),
    "kind-a-number": _set("items.10.kind", 5),
    "kind-a-pod": _set("items.10.kind", "Pod"),
    "items-an-object": _set("items", {"a": 1}),
}
POD_CHANGES = {
    "priority-a-string": _set("items.0.spec.priority", "high"),
    "priority-a-float": _set("items.0.spec.priority", 1.0),
    "request-no-quantity": _set("items.1.spec.containers.0.resources.requests.cpu", "lots"),
    "request-a-number": _set("items.1.spec.containers.0.resources.requests.cpu", 30),
    "limits-a-list": _set("items.1.spec.containers.0.resources.limits", ["4"]),
    "init-restart-policy-other": _set("items.2.spec.initContainers.1.restartPolicy", "OnFailure"),
    "node-name-a-number": _set("items.2.spec.nodeName", 5),
    "node-unknown": _set("items.2.spec.nodeName", "no-such-node"),
    "metadata-a-list": _set("items.3.metadata", []),
    "succeeded": _set("items.3.status.phase", "Succeeded"),
    "host-port": _set("items.4.spec.containers.0.ports", [{"hostPort": 8080, "protocol": "UDP"}]),
    "host-port-too-big": _set("items.4.spec.containers.0.ports", [{"hostPort": 70000}]),
    "priority-class-unknown": _set("items.5.spec.priorityClassName", "nope"),
    "group": _set("items.5.spec.schedulingGroup", {"podGroupName": "g"}),
    "overhead": _set("items.5.spec.overhead", {"cpu": "250m"}),
    "pod-level-resources": _set("items.5.spec.resources", {"requests": {"cpu": "40"}}),
    "spec-null": _set("items.6.spec", None),
}


@pytest.mark.parametrize("change", NODE_CHANGES.values(), ids=NODE_CHANGES.keys())
def test_a_changed_node_reads_as_its_parsed_json(realistic: Any, change: Callable[[Any], None]) -> None:
    nodes_text, pods_text = realistic(16, 1)
    nodes = json.loads(nodes_text)
    change(nodes)
    check_same_reading(nodes, json.loads(pods_text))


@pytest.mark.parametrize("change", POD_CHANGES.values(), ids=POD_CHANGES.keys())
def test_a_changed_pod_reads_as_its_parsed_json(realistic: Any, change: Callable[[Any], None]) -> None:
    nodes_text, pods_text = realistic(16, 1)
    pods = json.loads(pods_text)
    change(pods)
    check_same_reading(json.loads(nodes_text), pods)


def test_bad_values_are_errors_at_their_paths(realistic: Any) -> None:
    nodes = json.loads(realistic(16, 1)[0])
    nodes["items"][3]["status"]["allocatable"]["cpu"] = "lots"
    nodes["items"][5]["status"]["images"][0]["sizeBytes"] = "big"
    assert check_same_reading(nodes) == [
        'nodes[3].status.allocatable[cpu]: Invalid value: "lots": quantities must match the regular expression '
        "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
        'nodes[5].status.images[0].sizeBytes: Invalid value: "big": must be of type integer',
    ]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(node_items(bad=True))
def test_generated_nodes_read_from_text_as_parsed(items: list[Any]) -> None:
    check_same_reading({"kind": "List", "items": items})
    check_same_reading(items)


@pytest.mark.parametrize(
    "text",
    [
        '{"items": [{"metadata": {"name": "a"}, "status": {"allocatable": {"cpu": NaN}}}]}',
        "items:\n- metadata: {name: a}\n  status: {allocatable: {cpu: '1'}}\n",
        '{"items": [{"kind": "Node", "metadata": {"name": "a"}}, {"kind": "Pod", "metadata": {"name": "p"}}]}',
    ],
    ids=["nan", "yaml", "mixed-list"],
)
def test_what_the_decoder_refuses_is_read_the_careful_way(text: str) -> None:
    assert kubectl_text.decoded(text, None) is None


def test_a_key_given_twice_keeps_its_last_value_as_gos_decoder_does() -> None:
    text = '{"items": [{"metadata": {"name": "a", "name": "b"}, "status": {"allocatable": {"cpu": "1"}}}]}'
    parts = read_kubectl(text)
    assert isinstance(parts.nodes, NodeColumns)
    assert parts.nodes.names == ["b"]


def test_nodes_listing_the_same_image_share_its_decoded_entry() -> None:
    image = {"names": ["registry.example.com/a:1"], "sizeBytes": 10}
    node = {"metadata": {"name": "n"}, "status": {"allocatable": {"cpu": "1"}, "images": [image]}}
    second = copy.deepcopy(node)
    second["metadata"]["name"] = "m"
    found = kubectl_text.decoded(json.dumps({"items": [node, second]}), None)
    assert found is not None
    first_images, second_images = (item["status"]["images"] for item in found[0]["items"])
    assert first_images == [image]
    assert first_images[0] is second_images[0]
