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
from dataclasses import dataclass, field
from typing import Any

from workloadbuilder.placement.explanation import RootExplanation

__all__ = ["ClaimPlacement", "GroupPlacement", "Placement", "PodPlacement", "Victim"]


@dataclass(frozen=True)
class PodPlacement:
    """One pod and the node it goes to."""

    name: str
    node: str

    def to_dict(self) -> dict[str, str]:
        """This pod's part of ``Placement.to_dict()``: ``{"name", "node"}``."""
        return {"name": self.name, "node": self.node}


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
    pods: list[PodPlacement] = field(default_factory=list)
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
            "pods": [pod.to_dict() for pod in self.pods],
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
