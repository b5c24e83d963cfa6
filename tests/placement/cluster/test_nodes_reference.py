"""The kubectl node reader's fast paths read exactly what a plain field-by-field reader reads.

``reference`` below reads each node with the generic readers
(``read_resource_list`` for allocatable, ``read_taints``, a plain label
loop, the first Ready condition) and no memo, layout or column; whatever
nodes it is given, ``Cluster.from_kubectl`` must build the same model or
raise the same errors. The inputs mix everything the fast paths branch on:
quantities in every form (common, exponents, decimals, every suffix,
signs, bad strings, non-strings), nodes listing different resources or the
same ones in another order, equal and distinct strings, labels and taints
of every shape, Ready in every state, cordons and duplicate names.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workloadbuilder.field import AggregateError, ErrorList, FieldPath, duplicate, required, type_invalid
from workloadbuilder.placement import Cluster
from workloadbuilder.placement.cluster.readers import NOT_READY_TAINTS
from workloadbuilder.placement.k8s.constraints import Taint, read_taints
from workloadbuilder.placement.k8s.quantity import resource_millis
from workloadbuilder.placement.k8s.resources import read_resource_list

DUMP = Path(__file__).parents[2] / "data" / "placement" / "node-realistic.json"


def _labels(raw: Any, path: FieldPath, errors: ErrorList) -> dict[str, str]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        errors.append(type_invalid(path, raw, "must be of type object"))
        return {}
    out = {}
    for key, value in raw.items():
        if isinstance(value, str):
            out[str(key)] = value
        else:
            errors.append(type_invalid(path.key(str(key)), value, "must be of type string"))
    return out


def _ready(conditions: Any) -> str:
    if not isinstance(conditions, list):
        return "True"
    for condition in conditions:
        if isinstance(condition, Mapping) and condition.get("type") == "Ready":
            return str(condition.get("status") or "Unknown")
    return "Unknown"


def reference(items: list[Any]) -> tuple[list[dict[str, Any]], list[str], ErrorList]:
    """Node records, warnings and errors of ``items`` read field by field, errors in the reader's order."""
    errors = ErrorList()
    records: list[dict[str, Any]] = []
    warnings: list[str] = []
    names: list[str | None] = []
    for i, item in enumerate(items):
        path = FieldPath("nodes").index(i)
        names.append(None)
        if not isinstance(item, Mapping):
            errors.append(type_invalid(path, item, "must be of type object"))
            continue
        metadata, status = item.get("metadata"), item.get("status")
        name = metadata.get("name") if isinstance(metadata, Mapping) else None
        allocatable = status.get("allocatable") if isinstance(status, Mapping) else None
        if not isinstance(name, str) or not name:
            errors.append(required(path.child("metadata", "name")))
            continue
        if allocatable is None:
            errors.append(required(path.child("status", "allocatable")))
            continue
        if not isinstance(allocatable, Mapping):
            errors.append(type_invalid(path.child("status", "allocatable"), allocatable, "must be of type object"))
            continue
        assert isinstance(metadata, Mapping)
        assert isinstance(status, Mapping)
        spec = item.get("spec")
        spec = spec if isinstance(spec, Mapping) else {}
        raw_taints = spec.get("taints")
        taints = read_taints(raw_taints, path.child("spec", "taints"), errors) if raw_taints is not None else ()
        labels = _labels(metadata.get("labels"), path.child("metadata", "labels"), errors)
        amounts = read_resource_list(allocatable, path.child("status", "allocatable"), errors)
        names[-1] = name
        records.append(
            {
                "name": name,
                "labels": labels,
                "allocatable": amounts,
                "schedulable": not spec.get("unschedulable"),
                "taints": taints,
            }
        )
        ready = _ready(status.get("conditions"))
        if ready != "True" and not any(taint.key in NOT_READY_TAINTS for taint in taints):
            warnings.append(
                f"node {name} reports Ready={ready} but has no node.kubernetes.io/not-ready or unreachable taint: "
                "kube-scheduler still places pods on it, and so does this model"
            )
    seen: set[str] = set()
    for i, found in enumerate(names):
        if found is not None and found in seen:
            errors.append(duplicate(FieldPath("nodes").index(i).child("name"), found))
        elif found is not None:
            seen.add(found)
    return records, warnings, errors


def _model(cluster: Cluster) -> dict[str, Any]:
    """Everything the reader decides, in plain values."""
    return {
        "names": cluster.names,
        "labels": cluster.labels,
        "resources": cluster.resources,
        "allocatable": cluster.allocatable,
        "used": cluster.used,
        "schedulable": cluster.schedulable,
        "taints": cluster.taints,
        "warnings": cluster.warnings,
        "vectors": cluster.vectors,
        "vector_of": cluster.vector_of,
    }


def check_against_reference(items: list[Any]) -> None:
    """``from_kubectl`` on ``items`` builds what the reference reads, or raises exactly its errors."""
    records, warnings, errors = reference(copy.deepcopy(items))
    expected = errors.to_aggregate()
    if expected is not None:
        with pytest.raises(AggregateError) as raised:
            Cluster.from_kubectl(items)
        assert [str(error) for error in raised.value.field_errors] == [str(error) for error in expected.field_errors]
        return
    assert _model(Cluster.from_kubectl(items)) == _model(Cluster.build(records, warnings=warnings))


COMMON = ["0", "1", "8", "32", "110", "500m", "191450m", "2001321736Ki", "64Gi", "1Ti", "1846700085301", "7k"]
OTHER = [
    "1e3", "1E-2", "2e+1", "1.5", "0.5", "1.5Gi", "0.1n", "100u", "100n", "+2", "3M", "4G", "5T", "6P", "7E",
    "8Mi", "9Pi", "10Ei", "00012", "1.", ".5", "123456789012345678901", "1e30",
]  # fmt: skip
BAD: list[Any] = ["x", "", "1.2.3", "-1", "-500m", "1KiB", "٣", "1 ", 5, 1.5, None, True, ["1"], {"v": 1}]
RESOURCES = ["cpu", "memory", "pods", "nvidia.com/gpu", "hugepages-2Mi", "ephemeral-storage"]
TAINT_LISTS: list[Any] = [
    [],
    [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}],
    [{"key": "node.kubernetes.io/not-ready", "effect": "NoExecute", "timeAdded": "2026-11-30T21:02:13Z"}],
    [
        {"key": "spot", "effect": "PreferNoSchedule"},
        {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"},
    ],
]
BAD_TAINTS: list[Any] = [
    [{"key": "x", "effect": "Never"}],
    ["x"],
    {"key": "x"},
    [{"key": ["x"], "effect": "NoSchedule"}],
]
CONDITIONS: list[Any] = [
    None,
    [],
    [{"type": "Ready", "status": "True"}],
    [{"type": "MemoryPressure", "status": "False"}, {"type": "Ready", "status": "False"}],
    [{"type": "Ready", "status": "Unknown"}, {"type": "Ready", "status": "True"}],
    ["x", {"type": "Ready", "status": "True"}],
    [{"type": "Ready"}],
    "not a list",
]
LABEL_KEYS = ["topology.kubernetes.io/zone", "rack", "kubernetes.io/hostname", "nvidia.com/gpu.product"]
LABEL_VALUES = ["us-east-1a", "us-east-1b", "r1", "", "NVIDIA-H100-80GB-HBM3"]


@st.composite
def node_items(draw: st.DrawFn, bad: bool) -> list[Any]:
    """Node items sharing strings, resource lists and label sets, as a dump does; with ``bad``, some malformed."""
    quantities = st.sampled_from(COMMON + OTHER + (BAD if bad else []))
    count = draw(st.integers(1, 12))
    items: list[Any] = []
    for j in range(count):
        resources = draw(st.lists(st.sampled_from(RESOURCES), unique=True, max_size=len(RESOURCES)))
        item: dict[str, Any] = {
            "metadata": {"name": f"node-{j}"},
            "status": {"allocatable": {resource: draw(quantities) for resource in resources}},
        }
        if draw(st.booleans()):
            keys = draw(st.lists(st.sampled_from(LABEL_KEYS), unique=True))
            values = LABEL_VALUES + ([2, None] if bad else [])
            item["metadata"]["labels"] = {key: draw(st.sampled_from(values)) for key in keys}
        spec: dict[str, Any] = {}
        taints = draw(st.sampled_from([None, *TAINT_LISTS, *(BAD_TAINTS if bad else [])]))
        if taints is not None:
            spec["taints"] = copy.deepcopy(taints)
        if draw(st.booleans()):
            spec["unschedulable"] = draw(st.booleans())
        if spec or draw(st.booleans()):
            item["spec"] = spec
        conditions = draw(st.sampled_from(CONDITIONS))
        if conditions is not None:
            item["status"]["conditions"] = copy.deepcopy(conditions)
        items.append(item)
    if bad and draw(st.booleans()):
        position = draw(st.integers(0, count - 1))
        broken = draw(
            st.sampled_from(
                [
                    "not an object",
                    {"status": {"allocatable": {}}},
                    {"metadata": {"name": ""}, "status": {"allocatable": {}}},
                    {"metadata": {"name": "x"}, "status": {"allocatable": None}},
                    {"metadata": {"name": "x"}, "status": {"allocatable": ["1"]}},
                    {"metadata": {"name": "x"}, "status": "nothing"},
                    {"metadata": {"name": "x"}, "status": {"allocatable": {}}, "metadata2": 1},
                    {"metadata": {"name": "node-0", "labels": ["x"]}, "status": {"allocatable": {"cpu": "1"}}},
                ]
            )
        )
        items.insert(position, copy.deepcopy(broken))
    return items


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(node_items(bad=False))
def test_well_formed_nodes_read_as_the_reference_reads_them(items: list[Any]) -> None:
    check_against_reference(items)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(node_items(bad=True))
def test_malformed_nodes_give_the_reference_errors(items: list[Any]) -> None:
    check_against_reference(items)


def _realistic(count: int) -> list[Any]:
    """``count`` copies of the EKS GPU node, each with its own name, CPU, memory and storage."""
    template = json.loads(DUMP.read_text(encoding="utf-8"))
    items = []
    for i in range(count):
        item = copy.deepcopy(template)
        item["metadata"]["name"] = f"ip-10-24-{i // 250}-{i % 250}.ec2.internal"
        item["metadata"]["labels"]["kubernetes.io/hostname"] = item["metadata"]["name"]
        allocatable = item["status"]["allocatable"]
        allocatable["cpu"] = f"{191450 - i % 700}m"
        allocatable["memory"] = f"{2001321736 - i}Ki"
        allocatable["ephemeral-storage"] = str(1846700085301 - 7 * i)
        items.append(item)
    return items


def test_more_distinct_quantities_than_a_memo_holds_read_as_the_reference() -> None:
    items = [
        {"metadata": {"name": f"n{i}"}, "status": {"allocatable": {"cpu": f"{i % 3000}m", "memory": f"{i + 1}Ki"}}}
        for i in range(5000)
    ]
    check_against_reference(items)
    memory = Cluster.from_kubectl(items).allocatable[1]
    assert (memory[0], memory[2500], memory[-1]) == (1024 * 1000, 2501 * 1024 * 1000, 5000 * 1024 * 1000)


class _Mapping(Mapping[str, Any]):
    """A mapping that is no dict, as a Python caller may pass."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        self._data = dict(data)

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)


class _Text(str):
    """A string that is not exactly ``str``, as a Python caller may pass."""


def _as_mapping(*where: Any) -> Any:
    def change(items: list[Any]) -> None:
        target = items[where[0]]
        for step in where[1:-1]:
            target = target[step]
        target[where[-1]] = _Mapping(target[where[-1]])

    return change


def _edge(change: Any) -> list[Any]:
    items = _realistic(3)
    change(items)
    return items


def _set(where: tuple[Any, ...], value: Any) -> Any:
    def change(items: list[Any]) -> None:
        target = items[where[0]]
        for step in where[1:-1]:
            target = target[step]
        target[where[-1]] = value

    return change


def _drop(node: int, *where: str) -> Any:
    def change(items: list[Any]) -> None:
        target = items[node]
        for step in where[:-1]:
            target = target[step]
        del target[where[-1]]

    return change


def _reorder(items: list[Any]) -> None:
    allocatable = items[1]["status"]["allocatable"]
    items[1]["status"]["allocatable"] = dict(reversed(list(allocatable.items())))


EDGES = [
    ("as dumped", lambda items: None),
    ("allocatable in another order", _reorder),
    ("a resource only one node has", _set((2, "status", "allocatable", "example.com/fpga"), "2")),
    ("a resource one node lacks", _drop(1, "status", "allocatable", "nvidia.com/gpu")),
    ("no spec", _drop(1, "spec")),
    ("spec not an object", _set((1, "spec"), "x")),
    ("no labels", _drop(2, "metadata", "labels")),
    ("null labels", _set((2, "metadata", "labels"), None)),
    ("no conditions", _drop(1, "status", "conditions")),
    ("cordoned", _set((1, "spec", "unschedulable"), True)),
    ("NotReady without its taint", _set((0, "status", "conditions", 3, "status"), "False")),
    ("NotReady with its taint", lambda items: (
        _set((0, "status", "conditions", 3, "status"), "Unknown")(items),
        items[0]["spec"]["taints"].append({"key": "node.kubernetes.io/unreachable", "effect": "NoExecute"}),
    )),
    ("no taints", _drop(0, "spec", "taints")),
    ("a quantity as a YAML number", _set((1, "status", "allocatable", "pods"), 110)),
    ("an exponent quantity", _set((1, "status", "allocatable", "memory"), "2.0494e12")),
    ("a bad quantity on the second node", _set((1, "status", "allocatable", "memory"), "lots")),
    ("a negative quantity", _set((2, "status", "allocatable", "cpu"), "-2")),
    ("a quantity that is a map", _set((2, "status", "allocatable", "cpu"), {"v": 1})),
    ("a quantity with a line break", _set((1, "status", "allocatable", "memory"), "1\n2")),
    ("a quantity that is a str subclass", _set((2, "status", "allocatable", "memory"), _Text("64Gi"))),
    ("a bad quantity only on the last node", _set((2, "status", "allocatable", "pods"), "110x")),
    ("a label that is a number", _set((1, "metadata", "labels", "nvidia.com/gpu.count"), 8)),
    ("a taint without effect", _set((1, "spec", "taints"), [{"key": "x"}])),
    ("allocatable a mapping that is no dict", _as_mapping(1, "status", "allocatable")),
    ("labels a mapping that is no dict", _as_mapping(1, "metadata", "labels")),
    ("a condition a mapping that is no dict", _as_mapping(2, "status", "conditions", 3)),
    ("the same name twice", _set((2, "metadata", "name"), "ip-10-24-0-0.ec2.internal")),
]  # fmt: skip


@pytest.mark.parametrize("change", [change for _, change in EDGES], ids=[name for name, _ in EDGES])
def test_realistic_edges_read_as_the_reference(change: Any) -> None:
    check_against_reference(_edge(change))


SUFFIX_QUANTITIES = [
    "1", "1n", "1u", "1m", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei",
    "1e3", "1E3", "1e-3", "1e+3", "1.5", "1.5m", "1.5Ki", "0.001", "999999999999999999", "9223372036854775807Ki",
]  # fmt: skip


@pytest.mark.parametrize("text", SUFFIX_QUANTITIES, ids=SUFFIX_QUANTITIES)
@pytest.mark.parametrize("resource", ["cpu", "memory"], ids=["cpu", "memory"])
def test_every_quantity_form_reads_as_resource_millis(resource: str, text: str) -> None:
    items = [
        {"metadata": {"name": name}, "status": {"allocatable": {resource: value, "pods": "110"}}}
        for name, value in (("a", text), ("b", text), ("c", "7"))
    ]
    cluster = Cluster.from_kubectl(items)
    column = cluster.allocatable[cluster.resource_index[resource]]
    assert column == [resource_millis(resource, text), resource_millis(resource, text), resource_millis(resource, "7")]
    check_against_reference(items)


def test_equal_taint_lists_are_one_tuple_and_read_as_the_reference() -> None:
    items = _realistic(4)
    cluster = Cluster.from_kubectl(items)
    assert cluster.taints[0] == (Taint("nvidia.com/gpu", "present", "NoSchedule"),)
    assert all(taints is cluster.taints[0] for taints in cluster.taints)
