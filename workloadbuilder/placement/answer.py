"""The one answer format both strategies return: ``Placement``, with a documented, stable ``to_dict()``.

``to_dict()`` (and ``to_json()``) give, in this key order:

    {
      "feasible": bool,            # every root hierarchy's gang is satisfied
      "strategy": "kube-scheduler" | "complete",
      "groups": [                  # every requested group, parents first, children in creation order
        {"name", "kind" ("PodGroup" | "CompositePodGroup"), "template", "parent",
         "domains": {topologyKey: value},   # the group's domain at every level (inherited ones too)
         "pods": [{"name", "node"}],        # placed pods only
         "required": int,                   # minCount / minGroupCount (1 for basic)
         "claims": [{"name", "devices": [{"pool", "count"}]}],
         "capacityLeft": {resource: quantity}}   # free in the group's domain afterwards
      ],
      "victims": [{"name", "kind" ("CompositePodGroup" | "PodGroup" | "Pod"), "priority",
                   "pods": [{"name", "node"}]}],
      "explanation": {...},        # see explain.py
      "text": str                  # a short human summary
    }

A group that was not placed has empty ``domains``, ``pods`` and ``claims``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, MutableSequence, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

from workloadbuilder.placement.explanation import RootExplanation

__all__ = ["ClaimPlacement", "GroupPlacement", "Placement", "PodList", "PodPlacement", "Victim"]


@dataclass(frozen=True)
class PodPlacement:
    """One pod and the node it goes to."""

    name: str
    node: str

    def to_dict(self) -> dict[str, str]:
        """This pod's part of ``Placement.to_dict()``: ``{"name", "node"}``."""
        return {"name": self.name, "node": self.node}


class PodList(MutableSequence[PodPlacement]):
    """A group's placed pods: a list of ``PodPlacement`` that is built when first read.

    ``place`` answers with the pods' names and node indices; a caller that
    only asks whether the gang fits, or how many pods were placed
    (``len``), never pays for thousands of records. Reading, changing or
    comparing it (with any sequence of ``PodPlacement``) builds the records once.
    """

    __slots__ = ("_items", "_source")

    def __init__(
        self,
        pods: Iterable[PodPlacement] = (),
        *,
        names: Sequence[str] = (),
        nodes: Sequence[int] = (),
        node_names: Sequence[str] = (),
    ) -> None:
        """The pods given, or (lazily) pod ``names[k]`` on node ``node_names[nodes[k]]`` for each k."""
        self._items: list[PodPlacement] | None = list(pods) if not nodes else None
        self._source = (names, nodes, node_names) if nodes else None

    def _list(self) -> list[PodPlacement]:
        if self._items is None:
            assert self._source is not None
            names, nodes, node_names = self._source
            self._items = [PodPlacement(names[k], node_names[i]) for k, i in enumerate(nodes)]
            self._source = None
        return self._items

    def __len__(self) -> int:
        return len(self._source[1]) if self._source is not None else len(self._list())

    @overload
    def __getitem__(self, index: int) -> PodPlacement: ...

    @overload
    def __getitem__(self, index: slice) -> list[PodPlacement]: ...

    def __getitem__(self, index: int | slice) -> PodPlacement | list[PodPlacement]:
        return self._list()[index]

    @overload
    def __setitem__(self, index: int, value: PodPlacement) -> None: ...

    @overload
    def __setitem__(self, index: slice, value: Iterable[PodPlacement]) -> None: ...

    def __setitem__(self, index: int | slice, value: Any) -> None:
        self._list()[index] = value

    def __delitem__(self, index: int | slice) -> None:
        del self._list()[index]

    def insert(self, index: int, value: PodPlacement) -> None:
        """Insert ``value`` before ``index``, as ``list.insert``."""
        self._list().insert(index, value)

    def __iter__(self) -> Iterator[PodPlacement]:
        return iter(self._list())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (PodList, list, tuple)):
            return self._list() == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, as a list

    def __repr__(self) -> str:
        return repr(self._list())

    def to_dicts(self) -> list[dict[str, str]]:
        """Each pod's ``to_dict()``, without building the records when they were not read."""
        if self._source is not None:
            names, nodes, node_names = self._source
            return [{"name": names[k], "node": node_names[i]} for k, i in enumerate(nodes)]
        return [pod.to_dict() for pod in self._list()]


@dataclass(frozen=True)
class ClaimPlacement:
    """A group claim's devices: ``(pool, count)`` pairs."""

    name: str
    devices: tuple[tuple[str, int], ...]

    def to_dict(self) -> dict[str, Any]:
        """This claim's part of ``Placement.to_dict()``: its name and the devices taken from each pool."""
        return {"name": self.name, "devices": [{"pool": pool, "count": n} for pool, n in self.devices]}


@dataclass
class GroupPlacement:
    """Where one requested group landed (or that it did not)."""

    name: str
    kind: str
    template: str | None
    parent: str | None
    required: int
    domains: dict[str, str] = field(default_factory=dict)
    pods: MutableSequence[PodPlacement] = field(default_factory=PodList)
    """The placed pods (a ``PodList``, built when first read)."""
    claims: list[ClaimPlacement] = field(default_factory=list)
    capacity_left: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """This group's part of ``Placement.to_dict()``, in the documented shape."""
        return {
            "name": self.name,
            "kind": self.kind,
            "template": self.template,
            "parent": self.parent,
            "domains": dict(self.domains),
            "pods": self.pods.to_dicts() if isinstance(self.pods, PodList) else [pod.to_dict() for pod in self.pods],
            "required": self.required,
            "claims": [claim.to_dict() for claim in self.claims],
            "capacityLeft": dict(self.capacity_left),
        }


@dataclass
class Victim:
    """A running unit the placement evicts."""

    name: str
    kind: str
    priority: int
    pods: list[PodPlacement]

    def to_dict(self) -> dict[str, Any]:
        """This victim's part of ``Placement.to_dict()``."""
        return {
            "name": self.name,
            "kind": self.kind,
            "priority": self.priority,
            "pods": [pod.to_dict() for pod in self.pods],
        }


@dataclass
class Placement:
    """The answer to "will this gang be placed, where, and if not, why"."""

    feasible: bool
    strategy: str
    groups: list[GroupPlacement]
    victims: list[Victim]
    explanation: dict[str, Any]
    text: str
    warnings: list[str] = field(default_factory=list)
    """What the model noticed but does not model, or that kube-scheduler would treat differently, for this answer."""
    explained: list[RootExplanation] = field(default_factory=list)
    """``explanation["roots"]`` as typed records, root by root (their ``to_dict()`` is what the JSON holds)."""

    def group(self, name: str) -> GroupPlacement:
        """The placement of the group of that name."""
        for group in self.groups:
            if group.name == name:
                return group
        raise KeyError(name)

    def to_dict(self) -> dict[str, Any]:
        """The documented JSON shape (see the module docstring); stable across releases."""
        return {
            "feasible": self.feasible,
            "strategy": self.strategy,
            "groups": [group.to_dict() for group in self.groups],
            "victims": [victim.to_dict() for victim in self.victims],
            "explanation": self.explanation,
            "text": self.text,
            "warnings": list(self.warnings),
        }

    def to_json(self, indent: int | None = 2) -> str:
        """``to_dict()`` as JSON text."""
        return json.dumps(self.to_dict(), indent=indent)
