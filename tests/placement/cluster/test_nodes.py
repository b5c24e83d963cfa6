"""Node items of ``kubectl get nodes -o json``: read by the fields the model needs, nothing of the input kept.

A realistic node dump (``tests/data/placement/node-realistic.json``, an EKS GPU
node) reads into exact records; equal quantity strings of different
resources keep their own meaning; the model holds no dict or list of the
input; malformed nodes are errors at their paths.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from workloadbuilder.field import AggregateError, ErrorList, ErrorType
from workloadbuilder.placement import Cluster
from workloadbuilder.placement.cluster.images import ImageIndex
from workloadbuilder.placement.cluster.nodes import _NodeDumpReader
from workloadbuilder.placement.k8s.constraints import Taint

DUMP = Path(__file__).parents[2] / "data" / "placement" / "node-realistic.json"
GI, KI = 2**30, 2**10
NAME = "ip-10-24-131-17.ec2.internal"


def _dump() -> dict[str, Any]:
    item: dict[str, Any] = json.loads(DUMP.read_text(encoding="utf-8"))
    return item


def test_realistic_node_reads_exactly() -> None:
    cluster = Cluster.from_kubectl([_dump()])
    assert cluster.names == [NAME]
    assert cluster.labels[0] == _dump()["metadata"]["labels"]
    assert dict(zip(cluster.resources, (column[0] for column in cluster.allocatable), strict=True)) == {
        "cpu": 191_450,
        "memory": 2001321736 * KI * 1000,
        "pods": 110_000,
        "ephemeral-storage": 1846700085301 * 1000,
        "hugepages-1Gi": 0,
        "hugepages-2Mi": 0,
        "nvidia.com/gpu": 8000,
        "vpc.amazonaws.com/efa": 32_000,
    }
    assert cluster.taints == [(Taint("nvidia.com/gpu", "present", "NoSchedule"),)]
    assert cluster.schedulable == [True]
    assert cluster.warnings == ()


def test_the_model_keeps_nothing_of_the_input() -> None:
    items = [_dump(), _dump()]
    items[1]["metadata"]["name"] = "second"
    inside: set[int] = set()

    def collect(value: Any) -> None:
        if isinstance(value, (dict, list)):
            inside.add(id(value))
            for child in value.values() if isinstance(value, dict) else value:
                collect(child)

    collect(items)
    cluster = Cluster.from_kubectl(items)
    kept = [
        vars(cluster)[name] for name in ("labels", "taints", "allocatable", "used", "names", "schedulable", "images")
    ]
    found: list[str] = []

    def walk(value: Any, where: str) -> None:
        if id(value) in inside:
            found.append(where)
        if isinstance(value, (dict, list, tuple)):
            for key, child in value.items() if isinstance(value, dict) else enumerate(value):
                walk(child, f"{where}[{key}]")

    walk(kept, "cluster")
    assert found == []
    assert cluster.labels[0]["topology.kubernetes.io/zone"] is cluster.labels[1]["topology.kubernetes.io/zone"]
    assert cluster.taints[0] is cluster.taints[1]


def test_images_read_by_name_with_their_nodes_and_sizes() -> None:
    items = [_dump(), _dump()]
    items[1]["metadata"]["name"] = "second"
    items[1]["status"]["images"] = items[1]["status"]["images"][:1]
    cluster = Cluster.from_kubectl(items)
    expected = {
        name: ([0, 1] if k == 0 else [0], [image["sizeBytes"]] * (2 if k == 0 else 1))
        for k, image in enumerate(_dump()["status"]["images"])
        for name in image["names"]
    }
    assert {name: (nodes.tolist(), sizes.tolist()) for name, (nodes, sizes) in cluster.images.items()} == expected
    assert cluster.has_images


def test_a_name_on_two_images_of_one_node_counts_the_node_once_with_the_later_size() -> None:
    item = _item()
    item["status"]["images"] = [{"names": ["app:v1"], "sizeBytes": 5}, {"names": ["app:v1", "app@x"], "sizeBytes": 9}]
    cluster = Cluster.from_kubectl([item])
    assert {name: (n.tolist(), s.tolist()) for name, (n, s) in cluster.images.items()} == {
        "app:v1": ([0], [9]),
        "app@x": ([0], [9]),
    }


def test_a_node_without_images_lists_none() -> None:
    cluster = Cluster.from_kubectl([_item(), _item("b")])
    assert (cluster.images, cluster.has_images) == (ImageIndex(), False)


def _item(name: Any = "a", labels: Any = None, taints: Any = None, allocatable: Any = None) -> dict[str, Any]:
    """A node item with these fields (``None``: left out; allocatable defaults to one CPU)."""
    metadata: dict[str, Any] = {"name": name} if labels is None else {"name": name, "labels": labels}
    item: dict[str, Any] = {"metadata": metadata, "status": {"allocatable": allocatable or {"cpu": "1"}}}
    if taints is not None:
        item["spec"] = {"taints": taints}
    return item


def _images(images: Any) -> dict[str, Any]:
    """A node item whose ``status.images`` is ``images``."""
    item = _item()
    item["status"]["images"] = images
    return item


TYPE, REQUIRED, INVALID, UNSUPPORTED = (
    ErrorType.TYPE_INVALID,
    ErrorType.REQUIRED,
    ErrorType.INVALID,
    ErrorType.NOT_SUPPORTED,
)
EFFECT = "nodes[0].spec.taints[0].effect"
BAD = [
    ("not an object", ["n"], [(TYPE, "nodes[0]")]),
    ("no metadata", [{"status": {"allocatable": {}}}], [(REQUIRED, "nodes[0].metadata.name")]),
    ("empty name", [_item(name="")], [(REQUIRED, "nodes[0].metadata.name")]),
    ("name not a string", [_item(name=5)], [(REQUIRED, "nodes[0].metadata.name")]),
    ("no status", [{"metadata": {"name": "a"}}], [(REQUIRED, "nodes[0].status.allocatable")]),
    ("null allocatable", [{"metadata": {"name": "a"}, "status": {"allocatable": None}}],
     [(REQUIRED, "nodes[0].status.allocatable")]),
    ("allocatable a list", [_item(allocatable=["1"])], [(TYPE, "nodes[0].status.allocatable")]),
    ("bad quantity", [_item(), _item("b", allocatable={"cpu": "1", "memory": "x"})],
     [(INVALID, "nodes[1].status.allocatable[memory]")]),
    ("negative quantity", [_item(allocatable={"cpu": "-1"})], [(INVALID, "nodes[0].status.allocatable[cpu]")]),
    ("quantity a map", [_item(allocatable={"cpu": {"v": 1}})], [(TYPE, "nodes[0].status.allocatable[cpu]")]),
    ("labels a list", [_item(labels=["x"])], [(TYPE, "nodes[0].metadata.labels")]),
    ("label not a string", [_item(labels={"x": "1", "y": 2})], [(TYPE, "nodes[0].metadata.labels[y]")]),
    ("taints not a list", [_item(taints={"key": "x"})], [(TYPE, "nodes[0].spec.taints")]),
    ("taint not an object", [_item(taints=["x"])], [(TYPE, "nodes[0].spec.taints[0]"), (UNSUPPORTED, EFFECT)]),
    ("taint effect unknown", [_item(taints=[{"key": "x", "effect": "Never"}])], [(UNSUPPORTED, EFFECT)]),
    ("taint key not a string", [_item(taints=[{"key": ["x"], "effect": "NoSchedule"}])],
     [(TYPE, "nodes[0].spec.taints[0].key")]),
    ("duplicate name", [_item(), _item()], [(ErrorType.DUPLICATE, "nodes[1].name")]),
    ("images not a list", [_images({"names": ["x"]})], [(TYPE, "nodes[0].status.images")]),
    ("image not an object", [_images(["x"])], [(TYPE, "nodes[0].status.images[0]")]),
    ("image size a string", [_images([{"names": ["x"], "sizeBytes": "5"}])],
     [(TYPE, "nodes[0].status.images[0].sizeBytes")]),
    ("image size a bool", [_images([{"names": ["x"], "sizeBytes": True}])],
     [(TYPE, "nodes[0].status.images[0].sizeBytes")]),
    ("image names a map", [_images([{"names": {"x": 1}}])], [(TYPE, "nodes[0].status.images[0].names")]),
    ("image name a number", [_images([{"names": ["x", 7]}])], [(TYPE, "nodes[0].status.images[0].names[1]")]),
    ("in a mixed List", [{"kind": "Pod"}, {"kind": "Node", **_item(allocatable={"cpu": "x"})}],
     [(INVALID, "items[1].status.allocatable[cpu]")]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("items", "expected"), [(items, expected) for _, items, expected in BAD], ids=[n for n, _, _ in BAD]
)
def test_malformed_nodes_are_errors_at_their_paths(items: list[Any], expected: list[tuple[ErrorType, str]]) -> None:
    with pytest.raises(AggregateError) as err:
        Cluster.from_kubectl(copy.deepcopy(items))
    assert [(e.type, e.field) for e in err.value.field_errors] == expected


def test_a_bad_taint_list_is_reported_for_every_node_that_has_it() -> None:
    items = [_item(name, taints=[{"key": "x", "effect": "Never"}]) for name in ("a", "b")]
    with pytest.raises(AggregateError) as err:
        Cluster.from_kubectl(items)
    assert [e.field for e in err.value.field_errors] == [
        "nodes[0].spec.taints[0].effect",
        "nodes[1].spec.taints[0].effect",
    ]


def _nodes(count: int) -> list[Any]:
    items = []
    for i in range(count):
        item = _dump()
        item["metadata"]["name"] = f"node-{i}"
        item["status"]["allocatable"]["memory"] = f"{2001321736 - i}Ki"
        items.append(item)
    return items


READ_ONCE = [
    ("a dump as kubectl prints it", lambda items: None, True),
    ("a node listing its resources in another order", lambda items: items[1]["status"].update(
        allocatable=dict(reversed(items[1]["status"]["allocatable"].items()))), True),
    ("a quantity that is a YAML number", lambda items: items[2]["status"]["allocatable"].update(pods=110), True),
    ("a bad quantity on the last node", lambda items: items[-1]["status"]["allocatable"].update(memory="x"), False),
    ("a quantity with a line break", lambda items: items[0]["status"]["allocatable"].update(pods="1\n1"), False),
]  # fmt: skip


@pytest.mark.parametrize(("change", "by_column"), [c[1:] for c in READ_ONCE], ids=[c[0] for c in READ_ONCE])
def test_a_dump_is_read_by_column_unless_a_column_holds_a_bad_string(change: Any, by_column: bool) -> None:
    """Well-formed nodes are read in one pass, amounts by column; a bad string makes the reader read them again."""
    items = _nodes(4)
    change(items)
    read = _NodeDumpReader("nodes", ErrorList(), by_column=True).read(items, range(len(items)))
    assert (read is not None) == by_column
    if read is not None:
        assert read == _NodeDumpReader("nodes", ErrorList(), by_column=False).read(items, range(len(items)))
