"""The explanation of one root, as typed records: what ``Placement.explanation["roots"]`` holds, by attribute.

Each record is frozen and has ``to_dict()``, which gives the documented
JSON shape (the keys of ``Placement.to_dict()["explanation"]["roots"][i]``)
unchanged; readers in Python (the CLI, a renderer) use the attributes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "BestCandidate",
    "ClaimProblem",
    "FitErrorLine",
    "Interplay",
    "Level",
    "QuorumEntry",
    "ResourceShortage",
    "RootExplanation",
    "SearchSummary",
]


@dataclass(frozen=True)
class QuorumEntry:
    """A gang's quorum: the pods (``unit`` ``pods``) or admissible child groups (``groups``) it has and needs."""

    group: str
    kind: str
    have: int
    need: int
    unit: str
    ok: bool

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {
            "group": self.group,
            "kind": self.kind,
            "have": self.have,
            "need": self.need,
            "unit": self.unit,
            "ok": self.ok,
        }


@dataclass(frozen=True)
class BestCandidate:
    """A level's best candidate domain (its labels, outermost first) and what fit there.

    ``fits`` is what fit there when it was tried (or, for a domain never
    tried, on its own); ``alone`` is set when the domain holds the
    group's minimum on its own, but not once the groups before it were placed.
    """

    domain: Mapping[str, str]
    fits: int
    alone: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {"domain": dict(self.domain), "fits": self.fits, "alone": self.alone}


@dataclass(frozen=True)
class Level:
    """One group that failed somewhere: its candidates, how many fit, its best one, and identical siblings."""

    group: str
    kind: str
    topology_key: str | None
    need: int
    candidates: int
    fitting: int
    best: BestCandidate | None
    text: str
    alike: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {
            "group": self.group,
            "kind": self.kind,
            "topologyKey": self.topology_key,
            "need": self.need,
            "candidates": self.candidates,
            "fitting": self.fitting,
            "best": None if self.best is None else self.best.to_dict(),
            "text": self.text,
            "alike": list(self.alike),
        }


@dataclass(frozen=True)
class ResourceShortage:
    """How many of the cluster's nodes a requested resource (or a cordon: ``unschedulable``) rules out alone."""

    group: str
    resource: str
    nodes: int
    of: int

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {"group": self.group, "resource": self.resource, "nodes": self.nodes, "of": self.of}


@dataclass(frozen=True)
class ClaimProblem:
    """A group claim that could not be allocated, and why."""

    group: str
    claim: str
    device_class: str
    count: int
    free: int
    reason: str
    text: str

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {
            "group": self.group,
            "claim": self.claim,
            "deviceClass": self.device_class,
            "count": self.count,
            "free": self.free,
            "reason": self.reason,
            "text": self.text,
        }


@dataclass(frozen=True)
class SearchSummary:
    """How the complete strategy's search ended."""

    greedy: bool
    timeout: float
    timed_out: bool

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {"greedy": self.greedy, "timeout": self.timeout, "timedOut": self.timed_out}


@dataclass(frozen=True)
class FitErrorLine:
    """kube-scheduler's FitError message for one pod shape of a group that no node can take."""

    group: str
    pod: str
    message: str

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {"group": self.group, "pod": self.pod, "message": self.message}


@dataclass(frozen=True)
class Interplay:
    """The roots placed before a failing root that took the room it needs: without them it fits."""

    roots: tuple[str, ...]
    text: str

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {"roots": list(self.roots), "text": self.text}


@dataclass(frozen=True)
class RootExplanation:
    """Everything said about one root hierarchy; ``text`` is its lines, the first one the verdict."""

    group: str
    feasible: bool
    quorum: tuple[QuorumEntry, ...]
    levels: tuple[Level, ...]
    resources: tuple[ResourceShortage, ...]
    claims: tuple[ClaimProblem, ...]
    preemption: Mapping[str, Any] | None
    search: SearchSummary | None
    greedy_gap: str | None
    fit_errors: tuple[FitErrorLine, ...]
    text: tuple[str, ...]
    placed_before: tuple[str, ...] = ()
    """The roots placed before this one in the same call (queue order): what a complete search's proof assumes."""
    interplay: Interplay | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: the keys and order ``Placement.to_dict()`` documents."""
        return {
            "group": self.group,
            "feasible": self.feasible,
            "quorum": [entry.to_dict() for entry in self.quorum],
            "levels": [level.to_dict() for level in self.levels],
            "resources": [entry.to_dict() for entry in self.resources],
            "claims": [claim.to_dict() for claim in self.claims],
            "preemption": self.preemption,
            "search": None if self.search is None else self.search.to_dict(),
            "greedyGap": self.greedy_gap,
            "fitErrors": [line.to_dict() for line in self.fit_errors],
            "text": list(self.text),
            "placedBefore": list(self.placed_before),
            "interplay": None if self.interplay is None else self.interplay.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RootExplanation:
        """The records of a ``to_dict()`` form (what ``explain`` builds, and what JSON readers hold)."""
        search = data["search"]
        return cls(
            group=data["group"],
            feasible=data["feasible"],
            quorum=tuple(QuorumEntry(**entry) for entry in data["quorum"]),
            levels=tuple(
                Level(
                    level["group"],
                    level["kind"],
                    level["topologyKey"],
                    level["need"],
                    level["candidates"],
                    level["fitting"],
                    _best(level["best"]),
                    level["text"],
                    tuple(level.get("alike", ())),
                )
                for level in data["levels"]
            ),
            resources=tuple(ResourceShortage(**entry) for entry in data["resources"]),
            claims=tuple(
                ClaimProblem(c["group"], c["claim"], c["deviceClass"], c["count"], c["free"], c["reason"], c["text"])
                for c in data["claims"]
            ),
            preemption=data["preemption"],
            search=None if search is None else SearchSummary(search["greedy"], search["timeout"], search["timedOut"]),
            greedy_gap=data["greedyGap"],
            fit_errors=tuple(FitErrorLine(**line) for line in data.get("fitErrors", ())),
            text=tuple(data["text"]),
            placed_before=tuple(data.get("placedBefore", ())),
            interplay=None
            if data.get("interplay") is None
            else Interplay(tuple(data["interplay"]["roots"]), data["interplay"]["text"]),
        )


def _best(raw: Mapping[str, Any] | None) -> BestCandidate | None:
    return None if raw is None else BestCandidate(dict(raw["domain"]), raw["fits"], raw.get("alone"))
