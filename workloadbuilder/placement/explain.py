"""Why a gang does (not) fit, in terms a person can act on; every line a cause that holds.

One explanation per root hierarchy, built right after its scheduling cycle
from kube-scheduler's trace (what each group could fit in each candidate
domain) and the cluster as that cycle left it:

* ``quorum``: pods (or child groups) that exist against ``minCount``
  (``minGroupCount``); a gang short of its quorum is never even tried.
* ``levels``: for each group that failed somewhere, its best candidate
  domain and shortfall, and how many candidates would have fit
  ("rack rack-00-0-03 in block block-00-0 fits 6 of 8 pods; 0 of 16 racks fit 8").
  A composite candidate names the children that fit, those that did not
  and how many were never tried (kube-scheduler stops once
  ``minGroupCount`` is out of reach); a domain that holds a PodGroup alone
  says what was left of it once the groups before it were placed.
* ``resources``: for each failing PodGroup, how many nodes each requested
  resource rules out on its own (a node without room for even one pod).
* ``claims``: group claims that could not be allocated, or whose devices
  pin the group to the nodes that reach them, and why.
* ``placedBefore`` and ``interplay``: the roots placed before this one, and
  those of them that took the room it needs (``interplay`` module).
* ``preemption``: whether evicting lower-priority work would help, and
  what it would evict.
* ``search`` and ``greedyGap`` (complete strategy): how the search ended
  (a search cut short says the root "is not placed", never that it cannot
  be), and, when kube-scheduler fails where a placement exists, why its
  greedy order misses it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from workloadbuilder.placement.claims import CANNOT_ALLOCATE, ClaimPin, devices_free, pins
from workloadbuilder.placement.cluster import Cluster, Domain, is_slot
from workloadbuilder.placement.complete import SearchReport
from workloadbuilder.placement.explanation import RootExplanation
from workloadbuilder.placement.fiterror import fit_error
from workloadbuilder.placement.interplay import interplay, names_of
from workloadbuilder.placement.kube_scheduler import KubeScheduler, needed
from workloadbuilder.placement.outcome import CandidateTrace, GroupTrace, Outcome
from workloadbuilder.placement.preemption import Unit
from workloadbuilder.placement.request import GroupRequest
from workloadbuilder.placement.snapshot import Snapshot

__all__ = ["RootReport", "admissible", "count_of", "explain_root", "proof_text", "short_key"]


@dataclass
class RootReport:
    """Everything known about one root hierarchy's attempt."""

    root: GroupRequest
    outcome: Outcome
    trace: GroupTrace | None = None
    search: SearchReport | None = None
    victims: list[Unit] | None = None
    preemption: dict[str, Any] | None = None
    earlier: tuple[RootReport, ...] = ()
    """The roots placed before this one in the same ``place`` call, in queue order."""


def short_key(key: str | None) -> str:
    """A topology key's last segment, for prose: ``topology.example.com/rack`` → ``rack``."""
    if key is None:
        return "domain"
    return key.rsplit("/", 1)[-1]


def admissible(group: GroupRequest) -> bool:
    """Whether the group passes kube-scheduler's queue admission (enough pods, enough admissible children)."""
    if group.is_leaf:
        return group.count >= needed(group)
    return sum(admissible(child) for child in group.children) >= needed(group)


def explain_root(report: RootReport, snap: Snapshot, kube: KubeScheduler) -> RootExplanation:
    """The structured explanation of one root, with its ``text`` lines (``to_dict()`` is its JSON form)."""
    root = report.root
    out: dict[str, Any] = {
        "group": root.name,
        "feasible": report.outcome.success,
        "quorum": _quorum(root),
        "levels": [],
        "resources": [],
        "claims": [],
        "preemption": report.preemption,
        "search": None,
        "greedyGap": None,
        "fitErrors": [],
        "placedBefore": [earlier.root.name for earlier in report.earlier if earlier.outcome.success],
        "interplay": None,
    }
    if report.search is not None:
        out["search"] = {
            "greedy": report.search.greedy,
            "timeout": report.search.timeout,
            "timedOut": report.search.timed_out,
        }
    out["text"] = _success(report, out) if report.outcome.success else _failure(report, out, snap, kube)
    return RootExplanation.from_dict(out)


def _success(report: RootReport, out: dict[str, Any]) -> list[str]:
    """Where the root went, what the greedy order misses (complete), and what it evicts."""
    lines = [_placed_line(report.root, report.outcome)]
    if report.search is not None and not report.search.greedy and report.trace is not None:
        out["greedyGap"] = _greedy_gap(report.trace, report.outcome)
        lines.append(out["greedyGap"])
    if report.victims:
        lines.append(_victims_line(report.victims))
    return lines


def _failure(report: RootReport, out: dict[str, Any], snap: Snapshot, kube: KubeScheduler) -> list[str]:
    """The quorum, each failing level, the resources and claims in the way, earlier roots, the search, preemption."""
    root, search = report.root, report.search
    timed_out = search is not None and search.timed_out
    if not admissible(root):
        short = [entry for entry in out["quorum"] if not entry["ok"]]
        lines = [f"`{root.name}` waits for its quorum: " + "; ".join(_quorum_text(entry) for entry in short)]
    else:  # a search cut short rules nothing out: the root is not placed, not unplaceable
        lines = [f"`{root.name}` {'is not placed' if timed_out else 'cannot be placed'}"]
    out["fitErrors"] = _fit_errors(root, snap, kube)
    lines += [f"`{entry['group']}` pod `{entry['pod']}`: {entry['message']}" for entry in out["fitErrors"]]
    if report.trace is not None:
        out["levels"] = _levels(report.trace, snap, kube)
        reported = {level["group"] for level in out["levels"]}
        failing = [group for group in root.walk() if group.is_leaf and group.name in reported]
        out["resources"] = _resources(failing, snap, kube)
        out["claims"] = _claims(failing, report.trace, snap, kube)
        lines += [level["text"] for level in out["levels"]]
        lines += _resource_lines(out["resources"])
        lines += [claim["text"] for claim in out["claims"]]
    if admissible(root):
        out["interplay"] = interplay(root, [(e.root, e.outcome) for e in report.earlier], snap.cluster)
        if out["interplay"] is not None:
            lines.append(out["interplay"]["text"])
    if search is not None and not search.greedy:
        if timed_out:
            lines.append(
                f"the complete search reached its time bound ({search.timeout:g} s): no placement found, none ruled out"
            )
        elif admissible(root):
            lines.append(proof_text(out["placedBefore"]))
    if report.preemption is not None:
        lines.append(report.preemption["text"])
    return lines


def proof_text(placed_before: Sequence[str]) -> str:
    """What the complete search proved when it found nothing: no placement, beside the roots placed before."""
    if not placed_before:
        return "no placement exists (proved by the complete search)"
    return f"no placement exists beside what {names_of(list(placed_before))} placed (proved by the complete search)"


def _fit_errors(root: GroupRequest, snap: Snapshot, kube: KubeScheduler) -> list[dict[str, str]]:
    """kube-scheduler's FitError line for every pod shape of the root that no node can take now."""
    out = []
    for group in root.walk():
        if not group.is_leaf:
            continue
        first = 0
        for shape, count in kube.shapes(group):
            message = fit_error(snap, shape) if count else None
            if message is not None:
                out.append({"group": group.name, "pod": group.pod_names[first], "message": message})
            first += count
    return out


# -- quorum --------------------------------------------------------------------------


def _quorum(root: GroupRequest) -> list[dict[str, Any]]:
    entries = []
    for group in root.walk():
        if not group.gang:
            continue
        if group.is_leaf:
            have, unit = group.count, "pods"
        else:
            have, unit = sum(admissible(child) for child in group.children), "groups"
        need = needed(group)
        entries.append(
            {"group": group.name, "kind": group.kind, "have": have, "need": need, "unit": unit, "ok": have >= need}
        )
    return entries


def _quorum_text(entry: dict[str, Any]) -> str:
    if entry["unit"] == "pods":
        return f"`{entry['group']}` has {entry['have']} of the {entry['need']} pods its minCount needs"
    return f"`{entry['group']}` can admit {entry['have']} of the {entry['need']} child groups its minGroupCount needs"


# -- levels ------------------------------------------------------------------------------


def _traces(trace: GroupTrace) -> Iterable[GroupTrace]:
    yield trace
    for candidate in trace.candidates:
        for child in candidate.children:
            yield from _traces(child)


@dataclass
class _Tried:
    """Every failed attempt of one group: each trace, with the names of the groups placed before it in its cycle."""

    group: GroupRequest
    keys: tuple[str, ...]
    traces: list[tuple[GroupTrace, tuple[str, ...]]]


def _levels(root_trace: GroupTrace, snap: Snapshot, kube: KubeScheduler) -> list[dict[str, Any]]:
    """One entry per group that failed in some scope, parents first.

    Only failed attempts are read (a group placed under one candidate of its
    parent and not under another is explained by the one where it failed).
    A CompositePodGroup's entry is what the simulation saw, child by child.
    A PodGroup's entry counts every domain of its innermost topology key in
    the cluster, each on its own (without its siblings' pods); when some
    would fit alone, it says what was left of one once the groups placed
    before it had taken their share, or that none of them was tried.
    """
    tried: dict[str, _Tried] = {}
    for trace, keys, before in _traces_with_keys(root_trace, (), ()):
        entry = tried.setdefault(trace.group.name, _Tried(trace.group, keys, []))
        if trace.chosen is None:
            entry.traces.append((trace, before))
    levels: list[dict[str, Any]] = []
    alike: dict[tuple[Any, ...], dict[str, Any]] = {}
    for entry in tried.values():
        group = entry.group
        if not entry.traces:
            continue
        signature = (group.parent, kube.signature(group))
        if signature in alike:  # an identical sibling fails for the same reason
            alike[signature]["alike"].append(group.name)
            continue
        level = (
            _leaf_level(group, entry.keys, snap, kube, entry.traces)
            if group.is_leaf
            else _composite_level(group, entry.traces)
        )
        level["alike"] = []
        alike[signature] = level
        levels.append(level)
    for level in levels:
        alike_names = level.pop("alike")
        level["text"] = _subject(level["group"], len(alike_names)) + level.pop("says")
        level["alike"] = alike_names
    # PodGroups never simulated (their parent's candidates were ruled out by
    # capacity alone) are reported when they fit nowhere even on their own.
    for group, keys in _walk_with_keys(root_trace.group, ()):
        if group.is_leaf and group.name not in tried:
            level = _leaf_level(group, keys, snap, kube, [])
            if not level["fitting"]:
                level["text"] = _subject(group.name, 0) + level.pop("says")
                level["alike"] = []
                levels.append(level)
    return levels


def _subject(group: str, alike: int) -> str:
    """How a level's line starts: the group, and how many identical siblings fail the same way."""
    return f"`{group}` (and {count_of(alike, 'sibling')} like it): " if alike else f"`{group}`: "


def _own_keys(group: GroupRequest, keys: tuple[str, ...]) -> tuple[str, ...]:
    """The topology keys of ``group`` and its ancestors, outermost first, each once (a child may repeat its parent's)."""
    key = group.topology_key
    return (*keys, key) if key and (not keys or keys[-1] != key) else keys


def _walk_with_keys(group: GroupRequest, keys: tuple[str, ...]) -> Iterable[tuple[GroupRequest, tuple[str, ...]]]:
    own = _own_keys(group, keys)
    yield group, own
    for child in group.children:
        yield from _walk_with_keys(child, own)


def _traces_with_keys(
    trace: GroupTrace, keys: tuple[str, ...], before: tuple[str, ...]
) -> Iterable[tuple[GroupTrace, tuple[str, ...], tuple[str, ...]]]:
    """Every attempt in the trace, with its topology keys (outermost first) and the groups placed before it.

    ``before`` names, in order, the siblings (of the group and of each of
    its ancestors) that the simulation had placed when it tried the group:
    what had taken its share of the candidate domain.
    """
    own = _own_keys(trace.group, keys)
    yield trace, own, before
    for candidate in trace.candidates:
        placed: list[str] = []
        for child in candidate.children:
            yield from _traces_with_keys(child, own, (*before, *placed))
            if child.chosen is not None:
                placed.append(child.group.name)


def _leaf_level(
    group: GroupRequest,
    keys: tuple[str, ...],
    snap: Snapshot,
    kube: KubeScheduler,
    traces: list[tuple[GroupTrace, tuple[str, ...]]],
) -> dict[str, Any]:
    cluster, need = snap.cluster, needed(group)
    key = keys[-1] if keys else None
    # what the simulation saw in each domain it tried: the most that fit, its note, its trace, what came before
    seen: dict[int, tuple[Domain, int, str, GroupTrace, tuple[str, ...]]] = {}
    for trace, before in traces:
        for domain, placed, note in trace.fits:
            if domain.uid not in seen or placed > seen[domain.uid][1]:
                seen[domain.uid] = (domain, placed, note, trace, before)
    if seen and (group.claims or group.simulated_only):
        # where the claims fit depends on the first pod's node, and one pod
        # shape changes the room left for the next: only the simulation knows
        fits = [(domain, placed) for domain, placed, *_ in seen.values()]
    else:
        domains = list(cluster.domains(key).values()) if key is not None else [cluster.root]
        fits = [(domain, _fit_alone(group, domain, snap, kube)) for domain in domains]
    fitting = sum(1 for _, placed in fits if placed >= need)
    entry: dict[str, Any] = {
        "group": group.name,
        "kind": group.kind,
        "topologyKey": key,
        "need": need,
        "candidates": len(fits),
        "fitting": fitting,
        "best": None,
    }
    if not fits:
        entry["says"] = f"no node has the label `{key}`"
        return entry
    counted = f"; {fitting} of {count_of(len(fits), short_key(key))} fit {need}" if key is not None else ""
    # the candidates tried that hold the minimum alone (parts of the counted domains where keys cross-cut)
    alone = [(domain, _fit_alone(group, domain, snap, kube)) for domain, *_ in seen.values()] if fitting else []
    tried = [(domain, placed) for domain, placed in alone if placed >= need]
    if tried:
        domain, placed = max(tried, key=lambda pair: pair[1])
        _, left, _, _, before = seen[domain.uid]
        entry["best"] = {"domain": _leaf_where(domain, keys, cluster), "fits": left, "alone": placed}
        what = _leaf_domain(domain, keys, cluster)
        entry["says"] = f"{what} fits {need} of {need} pods on its own, {left} once {_took(before)}{counted}"
        return entry
    domain, placed = max(fits, key=lambda pair: pair[1])
    what = _leaf_domain(domain, keys, cluster)
    entry["best"] = {"domain": _leaf_where(domain, keys, cluster), "fits": placed, "alone": None}
    if fitting:  # no candidate tried holds it alone: the domains that do were not (its parent's was not simulated)
        if seen:
            domain, placed, *_ = max(seen.values(), key=lambda item: item[1])
            what = _leaf_domain(domain, keys, cluster)
            entry["best"] = {"domain": _leaf_where(domain, keys, cluster), "fits": placed, "alone": None}
        entry["says"] = f"{what} fits {placed} of {need} pods{counted} {_not_tried(fits, need, seen, keys)}"
        return entry
    text = f"{what} fits {placed} of {need} pods"
    if domain.uid in seen:
        _, _, note, trace, _ = seen[domain.uid]
        reasons = [note] if note else []
        reasons += [f"claim `{pin.claim}` {_pin_text(pin)}" for pin in _pins_at(trace, domain, snap, kube)]
        if reasons:
            text += f" ({'; '.join(reasons)})"
    entry["says"] = text + counted
    return entry


def _not_tried(
    fits: list[tuple[Domain, int]], need: int, seen: dict[int, tuple[Any, ...]], keys: tuple[str, ...]
) -> str:
    """Why the domains that hold a PodGroup alone did not: split by its parent's domains, or never tried."""
    fitting = {domain.value for domain, placed in fits if placed >= need}
    one = len(fitting) == 1
    if len(keys) > 1 and fitting & {item[0].value for item in seen.values()}:
        return f"on {'its' if one else 'their'} own, but not within one {short_key(keys[-2])}"
    return "on its own, but it was not tried" if one else "on their own, but none of them was tried"


def _pins_at(trace: GroupTrace, domain: Domain, snap: Snapshot, kube: KubeScheduler) -> tuple[ClaimPin, ...]:
    """The claims that pin a PodGroup's pods in one candidate domain of ``trace`` (none recorded: none)."""
    devices = trace.claim_devices.get(domain.uid)
    return () if devices is None else pins(snap, kube.shape(trace.group), domain.nodes, *devices)


def _took(before: tuple[str, ...]) -> str:
    """What the groups placed first did, for prose: "`a` took its share", "`a`, `b` took their share"."""
    if not before:
        return "the groups placed before it took their share"
    return f"{names_of(before)} took {'its' if len(before) == 1 else 'their'} share"


def _pin_text(pin: ClaimPin, subject: str = "it") -> str:
    """Why a claim keeps pods out: it pins ``subject`` to who reaches its devices, and how it got them."""
    pools = ", ".join(f"`{pool}`" for pool in pin.pools)
    how = f"it was allocated already, from {pools}" if pin.earlier else f"first-fit for the first pod took {pools}"
    return f"pins {subject} to {pin.reach}: {how}"


def _leaf_domain(domain: Domain, keys: tuple[str, ...], cluster: Cluster) -> str:
    """A PodGroup's candidate in prose: ``rack r3 in zone b``, or ``the cluster``."""
    if domain.key is None:
        return "the cluster"
    text = f"{short_key(domain.key)} {domain.value}"
    if len(keys) > 1 and domain.nodes:
        text += f" in {short_key(keys[-2])} {cluster.labels[domain.nodes[0]].get(keys[-2], '')}"
    return text


def _leaf_where(domain: Domain, keys: tuple[str, ...], cluster: Cluster) -> dict[str, str]:
    """A PodGroup's candidate as labels, its parent's level first: ``{zone: b, rack: r3}``."""
    if domain.key is None:
        return {}
    where = {domain.key: domain.value or ""}
    if len(keys) > 1 and domain.nodes:
        where = {keys[-2]: cluster.labels[domain.nodes[0]].get(keys[-2], ""), **where}
    return where


def _fit_alone(group: GroupRequest, domain: Domain, snap: Snapshot, kube: KubeScheduler) -> int:
    """How many of the PodGroup's pods fit ``domain``, each pod shape on its own (an upper bound for mixed shapes)."""
    return min(group.count, sum(min(count, snap.fit(shape, domain)) for shape, count in kube.shapes(group)))


def _composite_level(group: GroupRequest, traces: list[tuple[GroupTrace, tuple[str, ...]]]) -> dict[str, Any]:
    """What the simulation saw in a CompositePodGroup's candidates: the one that came closest, child by child."""
    need = needed(group)
    seen: dict[int, tuple[Domain, Domain, CandidateTrace]] = {}
    for trace, _ in traces:
        for candidate in trace.candidates:
            known = seen.get(candidate.domain.uid)
            if known is None or _closer(candidate, known[2]):
                seen[candidate.domain.uid] = (candidate.domain, trace.scope, candidate)
    candidates = list(seen.values())
    fitting = sum(1 for _, _, c in candidates if c.success)
    entry: dict[str, Any] = {
        "group": group.name,
        "kind": group.kind,
        "topologyKey": group.topology_key,
        "need": need,
        "candidates": len(candidates),
        "fitting": fitting,
        "best": None,
    }
    if not candidates:
        scopes = {trace.scope.uid: trace.scope for trace, _ in traces}.values()
        where = " or ".join(_describe(scope, scope) for scope in scopes if scope.key is not None)
        entry["says"] = f"no node{f' of {where}' if where else ''} has the label `{group.topology_key}`"
        return entry
    domain, scope, best = max(candidates, key=lambda c: (not c[2].skipped, c[2].placed))
    entry["best"] = {"domain": _where(domain, scope), "fits": best.placed, "alone": None}
    entry["says"] = _candidate_text(group, _describe(domain, scope), best, need)
    if group.topology_key is not None:
        entry["says"] += f"; {fitting} of {count_of(len(candidates), short_key(group.topology_key))} fit {need}"
    return entry


def _closer(candidate: CandidateTrace, known: CandidateTrace) -> bool:
    """Whether ``candidate`` says more than ``known`` of the same domain: simulated beats bounded, then more fit."""
    return (not candidate.skipped, candidate.placed) > (not known.skipped, known.placed)


def _candidate_text(group: GroupRequest, where: str, candidate: CandidateTrace, need: int) -> str:
    """One composite candidate in words: the children that fit and that did not, and those never tried."""
    total = len(group.children)
    if candidate.skipped:
        return f"in {where}, at most {candidate.placed} of its {count_of(total, 'child group')} fit, each on its own"
    untried = total - len(candidate.children)
    if not untried:
        return f"{where} fits {candidate.placed} of {count_of(need, 'child group')}"
    fit = [child.group.name for child in candidate.children if child.chosen is not None]
    failed = [child.group.name for child in candidate.children if child.chosen is None]
    one = len(failed) == 1
    if fit:
        verb = "fits" if len(fit) == 1 else "fit"
        said = f"{_child_groups(fit)} {verb}, {names_of(failed)} {'does' if one else 'do'} not"
    else:
        said = f"{_child_groups(failed)} {'does' if one else 'do'} not fit"
    rest = "the other child group was not tried" if untried == 1 else f"the other {untried} were not tried"
    return f"in {where}, {said}; {rest}, since {need} must fit"


def _child_groups(names: list[str]) -> str:
    """The children named for prose, after "child group" or "child groups"."""
    return f"{'child group' if len(names) == 1 else 'child groups'} {names_of(names)}"


def count_of(n: int, noun: str) -> str:
    """``1 rack``, ``3 racks``."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _where(domain: Domain, scope: Domain) -> dict[str, str]:
    where = {}
    if scope.key is not None:
        where[scope.key] = scope.value or ""
    if domain.key is not None:
        where[domain.key] = domain.value or ""
    return where


def _describe(domain: Domain, scope: Domain) -> str:
    if domain.key is None:
        return "the cluster"
    text = f"{short_key(domain.key)} {domain.value}"
    if scope.key is not None and scope.key != domain.key:
        text += f" in {short_key(scope.key)} {scope.value}"
    return text


# -- resources and claims ---------------------------------------------------------------


def _resources(groups: list[GroupRequest], snap: Snapshot, kube: KubeScheduler) -> list[dict[str, Any]]:
    """Per failing PodGroup, nodes that each requested resource rules out alone, most first."""
    cluster = snap.cluster
    total = len(cluster)
    cordoned = total - sum(cluster.schedulable)
    out = []
    for group in groups:
        shape = kube.shape(group)
        counts: dict[str, int] = {}
        for resource in shape.missing:
            counts[resource] = total
        for r, q in shape.terms:
            if is_slot(cluster.resources[r]):
                continue
            short = int(np.count_nonzero(cluster.free_columns()[r][cluster.vector_index] < q))
            for i in snap.changed_in(cluster.root):
                short += (snap.free(i)[r] < q) - (cluster.vectors[cluster.vector_of[i]][r] < q)
            counts[cluster.resources[r]] = short
        entries = [
            {"group": group.name, "resource": resource, "nodes": n, "of": total}
            for resource, n in sorted(counts.items(), key=lambda item: (-item[1], item[0]))
            if n > 0
        ]
        if cordoned:
            entries.append({"group": group.name, "resource": "unschedulable", "nodes": cordoned, "of": total})
        out += entries
    return out


def _resource_lines(entries: list[dict[str, Any]]) -> list[str]:
    lines = []
    seen: set[str] = set()
    for entry in entries:
        if entry["group"] in seen:
            continue
        seen.add(entry["group"])
        if entry["resource"] == "unschedulable":
            lines.append(f"`{entry['group']}`: {entry['nodes']} of {entry['of']} nodes are cordoned")
        else:
            lines.append(
                f"`{entry['group']}`: {entry['resource']} rules out the most nodes "
                f"({entry['nodes']} of {entry['of']} lack room for one pod)"
            )
    return lines


def _claims(
    groups: list[GroupRequest], root_trace: GroupTrace, snap: Snapshot, kube: KubeScheduler
) -> list[dict[str, Any]]:
    """Per failing PodGroup's claim: too few free devices, no node to allocate it from, or devices that pin the pods.

    A claim allocated before the group was tried (another group's
    ``resourceClaimName``) needs no free devices; it can only pin. Pins are
    read at the failed candidate where the most of the group's pods fit.
    """
    failed = [trace for trace in _traces(root_trace) if trace.chosen is None]
    unallocatable = {trace.group.name for trace in failed if any(note == CANNOT_ALLOCATE for _, _, note in trace.fits)}
    closest: dict[str, tuple[int, GroupTrace, Domain]] = {}
    for trace in failed:
        for domain, placed, _ in trace.fits:
            known = closest.get(trace.group.name)
            if domain.uid in trace.claim_devices and (known is None or placed > known[0]):
                closest[trace.group.name] = (placed, trace, domain)
    pinned = {
        (name, pin.claim): pin
        for name, (_, trace, domain) in closest.items()
        for pin in _pins_at(trace, domain, snap, kube)
    }
    out = []
    for group in groups:
        for ref in group.claims:
            supply = sum(
                devices_free(snap, pool) for pool in snap.cluster.pools if pool.device_class == ref.device.device_class
            )
            pinning = pinned.get((group.name, ref.name))
            if ref.identity not in snap.allocations and supply < ref.device.count:
                reason = f"only {supply} free `{ref.device.device_class}` devices in the cluster"
            elif group.name in unallocatable and ref.identity not in snap.allocations:
                reason = "no candidate node could allocate it for the first pod"
            elif pinning is not None:
                reason = f"it {_pin_text(pinning, 'the group')}"
            else:
                continue
            out.append(
                {
                    "group": group.name,
                    "claim": ref.name,
                    "deviceClass": ref.device.device_class,
                    "count": ref.device.count,
                    "free": supply,
                    "reason": reason,
                    "text": f"`{group.name}`: claim `{ref.name}` needs {ref.device.count} `{ref.device.device_class}` devices: {reason}",
                }
            )
    return out


# -- success ----------------------------------------------------------------------------------


def _placed_line(root: GroupRequest, outcome: Outcome) -> str:
    result = outcome.results.get(root.name)
    where = ""
    if result is not None and result.domains:
        where = " in " + ", ".join(f"{short_key(key)} {value}" for key, value in result.domains.items())
    groups = sum(1 for group in root.walk() if group.name in outcome.results)
    return f"`{root.name}`: placed {count_of(outcome.placed, 'pod')} of {count_of(groups, 'group')}{where}"


def _victims_line(units: list[Unit]) -> str:
    pods = sum(len(unit.pods) for unit in units)
    names = ", ".join(f"`{unit.name}`" for unit in units[:5]) + (", ..." if len(units) > 5 else "")
    top = max(unit.priority for unit in units)
    return f"evicts {count_of(len(units), 'unit')} ({count_of(pods, 'pod')}, priority up to {top}): {names}"


def _greedy_gap(trace: GroupTrace, outcome: Outcome) -> str:
    """Why kube-scheduler's greedy, in-order simulation misses the placement the search found."""
    reason = _gap_in(trace, outcome)
    text = "a placement exists but kube-scheduler's greedy order will not find it"
    return f"{text}, because {reason}" if reason else text


def _gap_in(trace: GroupTrace, outcome: Outcome) -> str | None:
    group = trace.group
    result = outcome.results.get(group.name)
    if result is None:
        return None
    if group.is_leaf:
        if group.claims:
            names = ", ".join(f"`{ref.name}`" for ref in group.claims)
            return (
                f"it allocates {names} of `{group.name}` first-fit for the first pod (kubernetes#138765), "
                "which leaves the group's other pods no node that reaches those devices"
            )
        return None
    want = result.domains.get(group.topology_key) if group.topology_key else None
    for candidate in trace.candidates:
        if candidate.skipped or (want is not None and candidate.domain.value != want):
            continue
        for position, child in enumerate(candidate.children):
            if child.chosen is not None:
                continue
            placed = outcome.results.get(child.group.name)
            if placed is None:
                continue
            value = placed.domains.get(child.group.topology_key) if child.group.topology_key else None
            for earlier in candidate.children[:position]:
                if earlier.chosen is not None and value is not None and earlier.chosen.value == value:
                    return f"`{earlier.group.name}` takes {short_key(child.group.topology_key)} `{value}` first"
            deeper = _gap_in(child, outcome)
            if deeper:
                return deeper
            before = [earlier.group.name for earlier in candidate.children[:position] if earlier.chosen is not None]
            if before:
                names = ", ".join(f"`{name}`" for name in before)
                verb = "is placed first and leaves" if len(before) == 1 else "are placed first and leave"
                text = f"{names} {verb} `{child.group.name}` no room"
                left_out = [name for name in before if name not in outcome.results]
                if left_out:
                    text += f" (the gang fits without {', '.join(f'`{name}`' for name in left_out)})"
                return text
        return None
    return None
