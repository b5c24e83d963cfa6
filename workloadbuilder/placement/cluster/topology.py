"""The topology index of a cluster: domains per label key, their nesting, and per-domain sums.

A ``Domain`` is the nodes whose label ``key`` has one value (or every node,
for the root). A key's domains form a ``DomainSet`` that knows every node's
domain and each domain's summed allocatable and usage of the scored
resources, so a figure for every rack is one pass. ``Topology`` indexes a
key on first use and keeps it; domains of a key that nest inside the domains
of another key (rack inside block) are found without scanning nodes again.
``Cluster`` (``cluster.model``) owns one ``Topology`` and answers its
questions (``Cluster.domains``, ``Cluster.subdomains``) through it.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
import numpy.typing as npt

from workloadbuilder.placement.cluster.arrays import IntArray, group_sums

__all__ = ["Domain", "DomainSet", "KeyIndex", "NodeColumnsView", "Topology", "alloc_sums"]


class NodeColumnsView(Protocol):
    """What the topology reads of a cluster: node names and labels, and the scored resources' exact columns."""

    @property
    def names(self) -> list[str]:
        """Node names, in input order."""

    @property
    def labels(self) -> list[dict[str, str]]:
        """Each node's labels."""

    @property
    def score_index(self) -> tuple[int, ...]:
        """The columns of the scored resources."""

    def allocatable_array(self, r: int) -> IntArray:
        """``allocatable[r]`` as an exact array over the nodes."""

    def used_array(self, r: int) -> IntArray:
        """``used[r]`` as an exact array over the nodes."""


class Domain:
    """One topology domain: the nodes whose label ``key`` has ``value`` (or every node, for the root).

    Every domain belongs to one ``DomainSet`` (the domains of its key, a
    partition of a parent, or the root alone) at ``position``: per-domain
    figures of a whole set (how many pods of a shape fit, the scored
    resources given out) are computed for all its domains in one pass.
    """

    __slots__ = ("_array", "family", "key", "label", "nodes", "position", "uid", "value")

    def __init__(self, key: str | None, value: str | None, nodes: list[int], uid: int) -> None:
        self.key = key
        self.value = value
        self.nodes = nodes
        self.uid = uid
        self.label = "the cluster" if key is None else f"{key}={value}"
        self.family: DomainSet | None = None
        self.position = 0
        self._array: npt.NDArray[np.int64] | None = None

    @property
    def node_array(self) -> npt.NDArray[np.int64]:
        """``nodes`` as an array."""
        if self._array is None:
            self._array = np.asarray(self.nodes, dtype=np.int64)
        return self._array

    @property
    def alloc_sum(self) -> tuple[int, ...]:
        """The scored resources' allocatable, added over the domain's nodes."""
        assert self.family is not None
        return self.family.alloc_sums[self.position]

    @property
    def used_sum(self) -> tuple[int, ...]:
        """The scored resources running pods take, added over the domain's nodes."""
        assert self.family is not None
        return self.family.used_sums[self.position]

    def __repr__(self) -> str:
        return f"Domain({self.label}, {len(self.nodes)} nodes)"


class DomainSet:
    """Disjoint domains, each node's position among them (``codes``; -1: in none), and per-domain sums.

    ``alloc_columns`` / ``used_columns`` hold, per scored resource, the
    domains' summed allocatable and used amounts as exact arrays
    (``arrays.exact``); ``alloc_sums`` / ``used_sums`` are the same per
    domain as tuples of Python integers. ``complete`` says whether every
    node of the cluster is in one of the domains, and ``runs`` (when the
    nodes come domain by domain, in order) where each domain's nodes start.
    """

    __slots__ = (
        "_every",
        "_members",
        "alloc_columns",
        "alloc_sums",
        "codes",
        "complete",
        "domains",
        "runs",
        "uid",
        "used_columns",
        "used_sums",
    )

    def __init__(self, cluster: NodeColumnsView, domains: list[Domain], uid: int) -> None:
        # Made once per partition of a cluster (a topology key, or a key within a parent domain) and never
        # changed after: every attribute is set here but ``_members``, filled on first use.
        self.uid = uid  # unique within the cluster, a cache key
        self.domains = domains  # the domains, in value order; each learns its family and position here
        self._every = np.arange(len(domains), dtype=np.int64)  # the positions of all domains, 0..n-1
        # the nodes of all domains one domain after another, and where each starts: made on first ``members``
        self._members: tuple[npt.NDArray[np.int64], list[int]] | None = None
        codes = np.full(len(cluster.names), -1, dtype=np.int64)
        for position, domain in enumerate(domains):
            domain.family = self
            domain.position = position
            codes[domain.node_array] = position
        self.codes = codes
        self.complete = bool((codes >= 0).all())  # every node is in one of the domains
        in_turn = self.complete and len(codes) > 0 and bool((np.diff(codes) >= 0).all())
        self.runs = np.flatnonzero(np.diff(codes, prepend=-1)) if in_turn else None
        count = len(domains)
        self.alloc_columns = [group_sums(codes, cluster.allocatable_array(r), count) for r in cluster.score_index]
        self.used_columns = [group_sums(codes, cluster.used_array(r), count) for r in cluster.score_index]
        self.alloc_sums = list(zip(*(column.tolist() for column in self.alloc_columns), strict=True))
        self.used_sums = list(zip(*(column.tolist() for column in self.used_columns), strict=True))

    def positions(self, domains: Sequence[Domain]) -> npt.NDArray[np.int64] | None:
        """Where each of ``domains`` is in this set (``None``: one of them is not in it)."""
        if self._is_every(domains):
            return self._every
        positions = []
        for domain in domains:
            if domain.family is not self:
                return None
            positions.append(domain.position)
        return np.asarray(positions, dtype=np.int64)

    def members(self, domains: Sequence[Domain]) -> tuple[npt.NDArray[np.int64], list[int]]:
        """The nodes of ``domains``, one domain after the other, and where each domain's nodes start (and end)."""
        if self._is_every(domains):
            if self._members is None:
                self._members = self._concatenate(self.domains)
            return self._members
        return self._concatenate(domains)

    def _is_every(self, domains: Sequence[Domain]) -> bool:
        """Whether ``domains`` are this set's domains, all of them in order."""
        return len(domains) == len(self.domains) and list(domains) == self.domains

    @staticmethod
    def _concatenate(domains: Sequence[Domain]) -> tuple[npt.NDArray[np.int64], list[int]]:
        offsets = [0]
        for domain in domains:
            offsets.append(offsets[-1] + len(domain.nodes))
        return np.concatenate([domain.node_array for domain in domains]), offsets

    def __len__(self) -> int:
        return len(self.domains)


def alloc_sums(domains: Sequence[Domain]) -> list[IntArray]:
    """The summed allocatable of each of ``domains`` (one ``DomainSet``), one exact array per scored resource."""
    family = domains[0].family
    assert family is not None
    positions = family.positions(domains)
    assert positions is not None, "the domains belong to one DomainSet"
    return [column[positions] for column in family.alloc_columns]


@dataclass
class KeyIndex:
    """One indexed topology key: each node's value, the key's domains by value, their set, and nestings found."""

    values: list[str | None]  # node i's value of the key (None: unlabelled)
    domains: dict[str, Domain]  # the key's domains, by value in string order
    family: DomainSet  # the same domains as one set
    # by parent key, the key's domains grouped by the parent domain holding each (None: they do not nest); filled
    # as ``Topology.subdomains`` first asks
    nested_in: dict[str, dict[str, list[Domain]] | None] = field(default_factory=dict)


class Topology:
    """The domains of a cluster's topology keys, indexed per key on first use.

    Attributes:
        root: the whole cluster as one domain (key ``None``), alone in its ``DomainSet``.
    """

    def __init__(self, cluster: NodeColumnsView) -> None:
        # The cluster never changes; the indexes below fill in as queries first ask for a key and keep their answers.
        self._cluster = cluster  # the nodes the domains partition
        self._uids = itertools.count()  # the next uid of a Domain or DomainSet made here (a cache key)
        self.root = Domain(None, None, list(range(len(cluster.names))), next(self._uids))
        DomainSet(cluster, [self.root], next(self._uids))
        self._keys: dict[str, KeyIndex] = {}  # topology key -> each node's value and the key's domains
        self._partitions: dict[tuple[int, str], list[Domain]] = {}  # (parent domain uid, key) -> its parts

    def indexed(self, key: str) -> KeyIndex | None:
        """The index of ``key`` if some query already made it (``None``: not yet), without making it."""
        return self._keys.get(key)

    def key_index(self, key: str) -> KeyIndex:
        """The index of topology key ``key``, made on first use and kept."""
        index = self._keys.get(key)
        if index is None:
            values = [labels.get(key) for labels in self._cluster.labels]
            members: dict[str, list[int]] = {}
            for i, value in enumerate(values):
                if value is not None:
                    members.setdefault(value, []).append(i)
            domains = {value: Domain(key, value, members[value], next(self._uids)) for value in sorted(members)}
            family = DomainSet(self._cluster, list(domains.values()), next(self._uids))
            index = self._keys[key] = KeyIndex(values, domains, family)
        return index

    def domains(self, key: str) -> dict[str, Domain]:
        """Every domain of a topology key, by label value in string order; nodes without the label are in none."""
        return self.key_index(key).domains

    def label_values(self, key: str) -> list[str | None]:
        """Each node's value of ``key`` (``None`` where the label is missing)."""
        return self.key_index(key).values

    def subdomains(self, parent: Domain, key: str) -> list[Domain]:
        """The domains of ``key`` inside ``parent``, in label-value order, as kube-scheduler partitions a placement.

        When every ``key`` domain lies inside one ``parent.key`` domain (racks
        in blocks), the answer is read from the index; otherwise ``parent``'s
        nodes are partitioned afresh.
        """
        if parent.key is None:
            return list(self.domains(key).values())
        if parent.key == key:
            return [parent]
        child = self.key_index(key)
        if parent.key not in child.nested_in:
            child.nested_in[parent.key] = self._nesting(child, parent.key)
        nested = child.nested_in[parent.key]
        if nested is not None and self.domains(parent.key).get(parent.value or "") is parent:
            return nested.get(parent.value or "", [])
        return self._partition(parent, key)

    def _nesting(self, child: KeyIndex, parent_key: str) -> dict[str, list[Domain]] | None:
        parent_values = self.label_values(parent_key)
        by_parent: dict[str, list[Domain]] = {}
        for domain in child.domains.values():
            owners = {parent_values[i] for i in domain.nodes}
            if len(owners) != 1 or None in owners:
                return None
            by_parent.setdefault(owners.pop(), []).append(domain)  # type: ignore[arg-type]
        return by_parent

    def _partition(self, parent: Domain, key: str) -> list[Domain]:
        cached = self._partitions.get((parent.uid, key))
        if cached is not None:
            return cached
        values = self.label_values(key)
        members: dict[str, list[int]] = {}
        for i in parent.nodes:
            value = values[i]
            if value is not None:
                members.setdefault(value, []).append(i)
        parts = [Domain(key, value, members[value], next(self._uids)) for value in sorted(members)]
        DomainSet(self._cluster, parts, next(self._uids))
        self._partitions[(parent.uid, key)] = parts
        return parts
