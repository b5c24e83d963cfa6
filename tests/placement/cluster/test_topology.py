"""The topology index (``cluster.topology``): domains per key, their nesting and partitions, per-domain sums."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from placement_helpers import RACK, ZONE, cluster, node

from workloadbuilder.placement.cluster.arrays import IntArray
from workloadbuilder.placement.cluster.topology import Domain, DomainSet, Topology, alloc_sums


@dataclass
class Columns:
    """A ``NodeColumnsView`` of plain lists: labels per node, two scored resources (allocatable and used)."""

    labels: list[dict[str, str]]
    allocatable: list[list[int]] = field(default_factory=list)
    used: list[list[int]] = field(default_factory=list)

    @property
    def names(self) -> list[str]:
        return [f"n{i}" for i in range(len(self.labels))]

    @property
    def score_index(self) -> tuple[int, ...]:
        return (0, 1)

    def allocatable_array(self, r: int) -> IntArray:
        return np.asarray([row[r] for row in self.allocatable] or [0] * len(self.labels), dtype=np.int64)

    def used_array(self, r: int) -> IntArray:
        return np.asarray([row[r] for row in self.used] or [0] * len(self.labels), dtype=np.int64)


# --- moved from test_model.py: the same questions through Cluster, the façade ---


def test_domains_nest_and_partition() -> None:
    cl = cluster(
        node("n1", zone="z1", rack="r2"),
        node("n2", zone="z1", rack="r1"),
        node("n3", zone="z2", rack="r3"),
        node("n4", zone="z2"),  # no rack label: in no rack domain
    )
    racks = cl.domains(RACK)
    assert list(racks) == ["r1", "r2", "r3"]
    assert racks["r1"].nodes == [1]
    z1 = cl.domains(ZONE)["z1"]
    assert [d.value for d in cl.subdomains(z1, RACK)] == ["r1", "r2"]
    assert cl.subdomains(cl.root, RACK) == list(racks.values())
    assert cl.subdomains(z1, ZONE) == [z1]


def test_domains_that_do_not_nest_are_partitioned() -> None:
    cl = cluster(node("n1", zone="z1", rack="r1"), node("n2", zone="z2", rack="r1"))
    z2 = cl.domains(ZONE)["z2"]
    (part,) = cl.subdomains(z2, RACK)
    assert (part.value, part.nodes) == ("r1", [1])
    assert part is not cl.domains(RACK)["r1"]


# --- Topology, DomainSet and Domain directly ---


def test_the_root_is_every_node_alone_in_its_set() -> None:
    topology = Topology(Columns([{}, {}, {}], allocatable=[[1, 10], [2, 20], [3, 30]]))
    root = topology.root
    assert (root.key, root.value, root.nodes, root.label) == (None, None, [0, 1, 2], "the cluster")
    assert repr(root) == "Domain(the cluster, 3 nodes)"
    assert root.family is not None
    assert root.family.domains == [root]
    assert root.alloc_sum == (6, 60)
    assert root.used_sum == (0, 0)


def test_a_keys_domains_are_by_value_in_string_order_and_unlabelled_nodes_are_in_none() -> None:
    labels = [{"k": "b"}, {"k": "a"}, {}, {"k": "b"}, {"k": "10"}, {"k": "9"}]
    topology = Topology(Columns(labels, allocatable=[[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0]]))
    domains = topology.domains("k")
    assert list(domains) == ["10", "9", "a", "b"]
    assert {value: d.nodes for value, d in domains.items()} == {"10": [4], "9": [5], "a": [1], "b": [0, 3]}
    assert domains["b"].label == "k=b"
    assert repr(domains["b"]) == "Domain(k=b, 2 nodes)"
    assert topology.label_values("k") == ["b", "a", None, "b", "10", "9"]
    family = domains["b"].family
    assert family is not None
    assert family.codes.tolist() == [3, 2, -1, 3, 0, 1]
    assert family.complete is False
    assert family.runs is None
    assert family.alloc_sums == [(16, 0), (32, 0), (2, 0), (9, 0)]
    assert [d.position for d in domains.values()] == [0, 1, 2, 3]
    assert len(family) == 4


def test_a_key_is_indexed_on_first_use_and_kept() -> None:
    topology = Topology(Columns([{"k": "a"}]))
    assert topology.indexed("k") is None
    first = topology.key_index("k")
    assert topology.indexed("k") is first
    assert topology.domains("k") is first.domains
    assert topology.domains("absent") == {}


def test_nodes_in_domain_order_have_runs() -> None:
    topology = Topology(Columns([{"k": "a"}, {"k": "a"}, {"k": "b"}, {"k": "c"}, {"k": "c"}]))
    family = topology.domains("k")["a"].family
    assert family is not None
    assert family.complete is True
    assert family.runs is not None
    assert family.runs.tolist() == [0, 2, 3]


def test_positions_members_and_alloc_sums_of_some_domains() -> None:
    labels = [{"k": "a"}, {"k": "b"}, {"k": "a"}, {"k": "c"}]
    topology = Topology(Columns(labels, allocatable=[[1, 5], [2, 6], [3, 7], [4, 8]]))
    a, b, c = topology.domains("k").values()
    family = a.family
    assert family is not None
    positions = family.positions([c, a])
    assert positions is not None
    assert positions.tolist() == [2, 0]
    assert family.positions([a, topology.root]) is None
    nodes, offsets = family.members([c, a])
    assert (nodes.tolist(), offsets) == ([3, 0, 2], [0, 1, 3])
    every, every_offsets = family.members([a, b, c])
    assert (every.tolist(), every_offsets) == ([0, 2, 1, 3], [0, 2, 3, 4])
    assert family.members([a, b, c])[0] is every  # all of them in order: made once
    assert [column.tolist() for column in alloc_sums([c, a])] == [[4, 4], [8, 12]]


def test_subdomains_read_the_nesting_when_every_child_lies_in_one_parent() -> None:
    labels = [{"z": "z1", "r": "r1"}, {"z": "z1", "r": "r2"}, {"z": "z2", "r": "r3"}]
    topology = Topology(Columns(labels))
    z1 = topology.domains("z")["z1"]
    racks = topology.domains("r")
    assert topology.subdomains(z1, "r") == [racks["r1"], racks["r2"]]
    assert topology.key_index("r").nested_in == {"z": {"z1": [racks["r1"], racks["r2"]], "z2": [racks["r3"]]}}
    assert topology.subdomains(topology.root, "r") == list(racks.values())
    assert topology.subdomains(z1, "z") == [z1]


def test_a_partition_is_made_once_per_parent_and_key() -> None:
    labels = [{"z": "z1", "r": "r1"}, {"z": "z2", "r": "r1"}, {"z": "z2", "r": "r2"}]
    topology = Topology(Columns(labels, allocatable=[[1, 0], [2, 0], [4, 0]]))
    z2 = topology.domains("z")["z2"]
    parts = topology.subdomains(z2, "r")
    assert [(d.value, d.nodes) for d in parts] == [("r1", [1]), ("r2", [2])]
    assert topology.key_index("r").nested_in == {"z": None}
    assert topology.subdomains(z2, "r") is parts
    assert parts[0] is not topology.domains("r")["r1"]
    assert [d.alloc_sum for d in parts] == [(2, 0), (4, 0)]
    assert len({d.uid for d in [*parts, *topology.domains("r").values(), z2, topology.root]}) == 6


def test_a_domain_set_of_no_domains_over_no_nodes() -> None:
    family = DomainSet(Columns([]), [], 0)
    assert (len(family), family.complete, family.codes.tolist(), family.runs) == (0, True, [], None)


def test_domain_node_array_is_its_nodes() -> None:
    domain = Domain("k", "v", [3, 1], 7)
    assert domain.node_array.tolist() == [3, 1]
    assert domain.node_array is domain.node_array


label_sets = st.lists(
    st.fixed_dictionaries({}, optional={"z": st.sampled_from("xy"), "r": st.sampled_from("abc")}), max_size=10
)


@given(label_sets)
def test_subdomains_partition_the_parents_labelled_nodes_by_value(labels: list[dict[str, str]]) -> None:
    topology = Topology(Columns(labels))
    for parent in [topology.root, *topology.domains("z").values()]:
        expected: dict[str, list[int]] = {}
        for i in parent.nodes:
            if "r" in labels[i]:
                expected.setdefault(labels[i]["r"], []).append(i)
        found = topology.subdomains(parent, "r")
        assert [(d.key, d.value, d.nodes) for d in found] == [("r", v, expected[v]) for v in sorted(expected)]
