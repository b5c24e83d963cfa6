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
         "capacityLeft": {resource: quantity},   # free afterwards on the domain's nodes its pods may use
         "unusable": {"nodes": int, "reasons": {why: nodes}, "free": {resource: quantity}}}
                                            # the domain's other nodes (cordoned, not ready, tainted, not
                                            # selected) and what is free there; zero nodes when none
      ],
      "victims": [{"name", "kind" ("CompositePodGroup" | "PodGroup" | "Pod"), "priority",
                   "pods": [{"name", "node"}]}],
      "explanation": {...},        # see explain/root.py
      "text": str                  # a short human summary
    }

A group that was not placed has empty ``domains``, ``pods`` and ``claims``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, MutableSequence, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

from workloadbuilder._internal.arguments import check_fields

__all__ = [
    "BestCandidate",
    "ClaimPlacement",
    "ClaimProblem",
    "DomainExclusions",
    "FilterRejection",
    "FitErrorLine",
    "GroupPlacement",
    "Interplay",
    "Level",
    "Placement",
    "PodList",
    "PodPlacement",
    "PreemptionReason",
    "PreemptionReport",
    "QuorumEntry",
    "ResourceShortage",
    "RootExplanation",
    "SearchSummary",
    "Victim",
]

# The explanation of one root, as typed records: what ``Placement.explanation["roots"]`` holds, by attribute.
# Each record is frozen; its ``to_dict()`` gives the documented JSON shape (the keys of
# ``Placement.to_dict()["explanation"]["roots"][i]``) unchanged, and readers in Python use the attributes.


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
class DomainExclusions:
    """One of the best domains of a PodGroup that fits in none, node by node.

    ``excluded`` pairs the short name of each filter that rejects nodes
    (``not ready``, ``untolerated taint``, ``Insufficient nvidia.com/gpu``)
    with how many it rejects, in filter order; ``fit`` pairs a number of
    pods with how many of the other nodes hold that many on their own.
    Each node counts once, so the counts add up to ``nodes``.
    """

    domain: Mapping[str, str]
    nodes: int
    excluded: tuple[tuple[str, int], ...]
    fit: tuple[tuple[int, int], ...]
    text: str

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {
            "domain": dict(self.domain),
            "nodes": self.nodes,
            "excluded": [{"reason": reason, "nodes": n} for reason, n in self.excluded],
            "fit": [{"pods": pods, "nodes": n} for pods, n in self.fit],
            "text": self.text,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DomainExclusions:
        """The record of a ``to_dict()`` form."""
        return cls(
            dict(data["domain"]),
            data["nodes"],
            tuple((entry["reason"], entry["nodes"]) for entry in data["excluded"]),
            tuple((entry["pods"], entry["nodes"]) for entry in data["fit"]),
            data["text"],
        )


@dataclass(frozen=True)
class Level:
    """One group that failed somewhere: its candidates, how many fit, its best one, and identical siblings.

    ``exclusions`` counts the nodes of the best domains when the group fits in none of them.
    """

    group: str
    kind: str
    topology_key: str | None
    need: int
    candidates: int
    fitting: int
    best: BestCandidate | None
    text: str
    alike: tuple[str, ...] = ()
    exclusions: tuple[DomainExclusions, ...] = ()

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
            "exclusions": [entry.to_dict() for entry in self.exclusions],
        }


@dataclass(frozen=True)
class ResourceShortage:
    """How many nodes a requested resource (or a cordon: ``unschedulable``) rules out alone.

    Counted in kube-scheduler's filter order: a resource is blamed only for
    nodes that pass every filter before NodeResourcesFit (``passed`` of the
    cluster's ``of``); ``pod`` names the first pod of the shape counted when
    the group's pods come in several shapes.
    """

    group: str
    resource: str
    nodes: int
    of: int
    passed: int | None = None
    pod: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {
            "group": self.group,
            "resource": self.resource,
            "nodes": self.nodes,
            "of": self.of,
            "passed": self.of if self.passed is None else self.passed,
            "pod": self.pod,
        }


@dataclass(frozen=True)
class FilterRejection:
    """The nodes a filter before NodeResourcesFit rejects first for a group's pods, and what in it did.

    ``causes`` are ``(what, nodes)``, most first: for TaintToleration each
    node's first untolerated taint (``nvidia.com/gpu=present:NoSchedule``),
    for NodeAffinity the ``nodeSelector`` pairs and required terms the
    rejected nodes fail. ``text`` is the line the explanation shows.
    """

    group: str
    pod: str | None
    filter: str
    nodes: int
    of: int
    causes: tuple[tuple[str, int], ...]
    text: str

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {
            "group": self.group,
            "pod": self.pod,
            "filter": self.filter,
            "nodes": self.nodes,
            "of": self.of,
            "causes": [{"cause": cause, "nodes": n} for cause, n in self.causes],
            "text": self.text,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> FilterRejection:
        """The record of a ``to_dict()`` form."""
        causes = tuple((entry["cause"], entry["nodes"]) for entry in data["causes"])
        return cls(data["group"], data["pod"], data["filter"], data["nodes"], data["of"], causes, data["text"])


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
class PreemptionReason:
    """Why one victim goes: below the preemptor's priority, and the placed pods need its room."""

    name: str
    kind: str
    priority: int
    pods: int
    nodes: tuple[str, ...]
    violates_budget: bool
    text: str

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {
            "name": self.name,
            "kind": self.kind,
            "priority": self.priority,
            "pods": self.pods,
            "nodes": list(self.nodes),
            "violatesBudget": self.violates_budget,
            "text": self.text,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PreemptionReason:
        """The record of a ``to_dict()`` form."""
        return cls(
            data["name"],
            data["kind"],
            data["priority"],
            data["pods"],
            tuple(data["nodes"]),
            data["violatesBudget"],
            data["text"],
        )


@dataclass(frozen=True)
class PreemptionReport:
    """Whether evicting lower-priority work lets a root that did not fit be placed: which victims and why.

    ``status`` is kube-scheduler's PodGroupPostFilter status message where
    it has one; ``victims`` are most important first; ``violations``
    counts the victims that violate a PodDisruptionBudget.
    """

    would_help: bool
    eligible: bool
    status: str | None
    victims: tuple[str, ...]
    pods: int
    violations: int
    reasons: tuple[PreemptionReason, ...]
    text: str

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: ``wouldHelp, eligible, status, victims, pods, violations, reasons, text``."""
        return {
            "wouldHelp": self.would_help,
            "eligible": self.eligible,
            "status": self.status,
            "victims": list(self.victims),
            "pods": self.pods,
            "violations": self.violations,
            "reasons": [reason.to_dict() for reason in self.reasons],
            "text": self.text,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PreemptionReport:
        """The record of a ``to_dict()`` form."""
        return cls(
            data["wouldHelp"],
            data["eligible"],
            data["status"],
            tuple(data["victims"]),
            data["pods"],
            data["violations"],
            tuple(PreemptionReason.from_dict(reason) for reason in data["reasons"]),
            data["text"],
        )


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
    preemption: PreemptionReport | None
    search: SearchSummary | None
    greedy_gap: str | None
    fit_errors: tuple[FitErrorLine, ...]
    text: tuple[str, ...]
    placed_before: tuple[str, ...] = ()
    """The roots placed before this one in the same call (queue order): what a complete search's proof assumes."""
    interplay: Interplay | None = None
    filters: tuple[FilterRejection, ...] = ()
    """Per failing PodGroup, the nodes each filter before NodeResourcesFit rejects first, and why."""

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: the keys and order ``Placement.to_dict()`` documents."""
        return {
            "group": self.group,
            "feasible": self.feasible,
            "quorum": [entry.to_dict() for entry in self.quorum],
            "levels": [level.to_dict() for level in self.levels],
            "filters": [entry.to_dict() for entry in self.filters],
            "resources": [entry.to_dict() for entry in self.resources],
            "claims": [claim.to_dict() for claim in self.claims],
            "preemption": None if self.preemption is None else self.preemption.to_dict(),
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
                    tuple(DomainExclusions.from_dict(entry) for entry in level.get("exclusions", ())),
                )
                for level in data["levels"]
            ),
            filters=tuple(FilterRejection.from_dict(entry) for entry in data.get("filters", ())),
            resources=tuple(ResourceShortage(**entry) for entry in data["resources"]),
            claims=tuple(
                ClaimProblem(c["group"], c["claim"], c["deviceClass"], c["count"], c["free"], c["reason"], c["text"])
                for c in data["claims"]
            ),
            preemption=None if data["preemption"] is None else PreemptionReport.from_dict(data["preemption"]),
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


# The placement answer itself.


@dataclass(frozen=True)
class PodPlacement:
    """One pod and the node it goes to."""

    name: str
    node: str

    def to_dict(self) -> dict[str, str]:
        """This pod's part of ``Placement.to_dict()``: ``{"name", "node"}``."""
        return {"name": self.name, "node": self.node}

    def __post_init__(self) -> None:
        check_fields(self)


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

    def __post_init__(self) -> None:
        check_fields(self)


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
    """Free capacity left in the group's domain on the nodes its pods may use (pod-and-node filters pass)."""
    unusable: dict[str, Any] = field(default_factory=dict)
    """The domain's nodes its pods may not use: ``{"nodes", "reasons": {why: nodes}, "free": {resource: quantity}}``."""

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
            "unusable": dict(self.unusable) if self.unusable else {"nodes": 0, "reasons": {}, "free": {}},
        }

    def __post_init__(self) -> None:
        check_fields(self)


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

    def __post_init__(self) -> None:
        check_fields(self)


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

    def __post_init__(self) -> None:
        check_fields(self)
