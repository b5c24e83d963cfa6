"""Why a gang does (not) fit, in terms a person can act on.

One explanation per root hierarchy, built from kube-scheduler's trace (what
each group could fit in each candidate domain) and the cluster as it stood:

* ``quorum``: pods (or child groups) that exist against ``minCount``
  (``minGroupCount``); a gang short of its quorum is never even tried.
* ``levels``: for each group that failed somewhere, its best candidate
  domain and shortfall, and how many candidates would have fit
  ("rack rack-00-0-03 in block block-00-0 fits 6 of 8 pods; 0 of 16 racks fit 8").
* ``resources``: for each failing PodGroup, how many nodes each requested
  resource rules out on its own (a node without room for even one pod).
* ``claims``: group claims that could not be allocated, and why.
* ``preemption``: whether evicting lower-priority work would help, and
  what it would evict.
* ``search`` and ``greedyGap`` (complete strategy): how the search ended,
  and, when kube-scheduler fails where a placement exists, why its greedy
  order misses it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from workloadbuilder.placement.claims import devices_free
from workloadbuilder.placement.cluster import Domain, is_slot
from workloadbuilder.placement.complete import SearchReport
from workloadbuilder.placement.explanation import RootExplanation
from workloadbuilder.placement.fiterror import fit_error
from workloadbuilder.placement.kube_scheduler import KubeScheduler, needed
from workloadbuilder.placement.outcome import GroupTrace, Outcome
from workloadbuilder.placement.preemption import Unit
from workloadbuilder.placement.request import GroupRequest
from workloadbuilder.placement.snapshot import Snapshot

__all__ = ["RootReport", "admissible", "count_of", "explain_root", "short_key"]


@dataclass
class RootReport:
    """Everything known about one root hierarchy's attempt."""

    root: GroupRequest
    outcome: Outcome
    trace: GroupTrace | None = None
    search: SearchReport | None = None
    victims: list[Unit] | None = None
    preemption: dict[str, Any] | None = None


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
    """The quorum, each failing level, the resources and claims in the way, the search, preemption."""
    root = report.root
    if admissible(root):
        lines = [f"`{root.name}` cannot be placed"]
    else:
        short = [entry for entry in out["quorum"] if not entry["ok"]]
        lines = [f"`{root.name}` waits for its quorum: " + "; ".join(_quorum_text(entry) for entry in short)]
    out["fitErrors"] = _fit_errors(root, snap, kube)
    lines += [f"`{entry['group']}` pod `{entry['pod']}`: {entry['message']}" for entry in out["fitErrors"]]
    if report.trace is not None:
        out["levels"] = _levels(report.trace, snap, kube)
        reported = {level["group"] for level in out["levels"]}
        failing = [group for group in root.walk() if group.is_leaf and group.name in reported]
        out["resources"] = _resources(failing, snap, kube)
        out["claims"] = _claims(failing, report.trace, snap)
        lines += [level["text"] for level in out["levels"]]
        lines += _resource_lines(out["resources"])
        lines += [claim["text"] for claim in out["claims"]]
    search = report.search
    if search is not None and not search.greedy:
        if search.timed_out:
            lines.append(
                f"the complete search reached its time bound ({search.timeout:g} s): no placement found, none ruled out"
            )
        elif admissible(root):
            lines.append("no placement exists (proved by the complete search)")
    if report.preemption is not None:
        lines.append(report.preemption["text"])
    return lines


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


def _levels(root_trace: GroupTrace, snap: Snapshot, kube: KubeScheduler) -> list[dict[str, Any]]:
    """One entry per group that failed in some scope, parents first.

    A CompositePodGroup's entry is what the simulation saw (child groups
    satisfied per candidate domain). A PodGroup's entry counts every domain
    of its innermost topology key in the cluster, each on its own (without
    its siblings' pods), and notes when some would fit alone but none did
    once the groups placed before it had taken their share.
    """
    by_group: dict[str, list[GroupTrace]] = {}
    order: list[tuple[GroupRequest, tuple[str, ...]]] = []
    for trace, keys in _traces_with_keys(root_trace, ()):
        if trace.group.name not in by_group:
            order.append((trace.group, keys))
        by_group.setdefault(trace.group.name, []).append(trace)
    levels: list[dict[str, Any]] = []
    alike: dict[tuple[Any, ...], dict[str, Any]] = {}
    for group, keys in order:
        traces = by_group[group.name]
        if all(trace.chosen is not None for trace in traces):
            continue
        signature = (group.parent, kube.signature(group))
        if signature in alike:  # an identical sibling fails for the same reason
            alike[signature]["alike"].append(group.name)
            continue
        level = _leaf_level(group, keys, snap, kube, traces) if group.is_leaf else _composite_level(group, traces)
        level["alike"] = []
        alike[signature] = level
        levels.append(level)
    for level in levels:
        alike = level.pop("alike")
        level["text"] = _subject(level["group"], len(alike)) + level.pop("says")
        level["alike"] = alike
    # PodGroups never simulated (their parent's candidates were ruled out by
    # capacity alone) are reported when they fit nowhere even on their own.
    for group, keys in _walk_with_keys(root_trace.group, ()):
        if group.is_leaf and group.name not in by_group:
            level = _leaf_level(group, keys, snap, kube, [])
            if not level["fitting"]:
                level["text"] = _subject(group.name, 0) + level.pop("says")
                level["alike"] = []
                levels.append(level)
    return levels


def _subject(group: str, alike: int) -> str:
    """How a level's line starts: the group, and how many identical siblings fail the same way."""
    return f"`{group}` (and {count_of(alike, 'sibling')} like it): " if alike else f"`{group}`: "


def _walk_with_keys(group: GroupRequest, keys: tuple[str, ...]) -> Iterable[tuple[GroupRequest, tuple[str, ...]]]:
    own = (*keys, group.topology_key) if group.topology_key else keys
    yield group, own
    for child in group.children:
        yield from _walk_with_keys(child, own)


def _traces_with_keys(trace: GroupTrace, keys: tuple[str, ...]) -> Iterable[tuple[GroupTrace, tuple[str, ...]]]:
    """Every attempt in the trace, with the topology keys of the group and its ancestors, outermost first."""
    own = (*keys, trace.group.topology_key) if trace.group.topology_key else keys
    yield trace, own
    for candidate in trace.candidates:
        for child in candidate.children:
            yield from _traces_with_keys(child, own)


def _leaf_level(
    group: GroupRequest, keys: tuple[str, ...], snap: Snapshot, kube: KubeScheduler, traces: list[GroupTrace]
) -> dict[str, Any]:
    cluster, need = snap.cluster, needed(group)
    key = keys[-1] if keys else None
    notes: dict[int, str] = {}
    simulated_fits = [fit for trace in traces for fit in trace.fits]
    if group.claims or (group.simulated_only and simulated_fits):
        # where the claims fit depends on the first pod's node, and one pod
        # shape changes the room left for the next: only the simulation knows
        simulated: dict[int, tuple[Domain, int]] = {}
        for trace in traces:
            for domain, placed, note in trace.fits:
                if domain.uid not in simulated or placed > simulated[domain.uid][1]:
                    simulated[domain.uid], notes[domain.uid] = (domain, placed), note
        fits = list(simulated.values())
        domains = [domain for domain, _ in fits]
    else:
        domains = list(cluster.domains(key).values()) if key is not None else [cluster.root]
        fits = [(domain, _fit_alone(group, domain, snap, kube)) for domain in domains]
    fitting = sum(1 for _, placed in fits if placed >= need)
    entry: dict[str, Any] = {
        "group": group.name,
        "kind": group.kind,
        "topologyKey": key,
        "need": need,
        "candidates": len(domains),
        "fitting": fitting,
        "best": None,
    }
    if not domains:
        entry["says"] = f"no node has the label `{key}`"
        return entry
    domain, placed = max(fits, key=lambda pair: pair[1])
    outer = keys[-2] if len(keys) > 1 else None
    where = {key: domain.value or ""} if key is not None else {}
    context = ""
    if outer is not None and domain.nodes:
        value = cluster.labels[domain.nodes[0]].get(outer, "")
        where = {outer: value, **where}
        context = f" in {short_key(outer)} {value}"
    entry["best"] = {"domain": where, "fits": placed}
    what = f"{short_key(key)} {domain.value}{context}" if key is not None else "the cluster"
    text = f"{what} fits {placed} of {need} pods"
    if notes.get(domain.uid):
        text += f" ({notes[domain.uid]})"
    if key is not None:
        text += f"; {fitting} of {count_of(len(domains), short_key(key))} fit {need}"
    if fitting and not group.claims and not group.simulated_only:
        text += ", but none once the groups placed before it took their share"
    entry["says"] = text
    return entry


def _fit_alone(group: GroupRequest, domain: Domain, snap: Snapshot, kube: KubeScheduler) -> int:
    """How many of the PodGroup's pods fit ``domain``, each pod shape on its own (an upper bound for mixed shapes)."""
    return min(group.count, sum(min(count, snap.fit(shape, domain)) for shape, count in kube.shapes(group)))


def _composite_level(group: GroupRequest, traces: list[GroupTrace]) -> dict[str, Any]:
    need = needed(group)
    seen: dict[int, tuple[Domain, Domain, int]] = {}
    for trace in traces:
        for candidate in trace.candidates:
            known = seen.get(candidate.domain.uid)
            if known is None or candidate.placed > known[2]:
                seen[candidate.domain.uid] = (candidate.domain, trace.scope, candidate.placed)
    candidates = list(seen.values())
    fitting = sum(1 for _, _, placed in candidates if placed >= need)
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
        entry["says"] = f"no node has the label `{group.topology_key}`"
        return entry
    domain, scope, placed = max(candidates, key=lambda c: c[2])
    entry["best"] = {"domain": _where(domain, scope), "fits": placed}
    text = f"{_describe(domain, scope)} fits {placed} of {need} child groups"
    if group.topology_key is not None:
        text += f"; {fitting} of {count_of(len(candidates), short_key(group.topology_key))} fit {need}"
    entry["says"] = text
    return entry


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
    if scope.key is not None and scope is not domain:
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


def _claims(groups: list[GroupRequest], root_trace: GroupTrace, snap: Snapshot) -> list[dict[str, Any]]:
    noted = {trace.group.name for trace in _traces(root_trace) if any(note for _, _, note in trace.fits)}
    out = []
    for group in groups:
        for ref in group.claims:
            supply = sum(
                devices_free(snap, pool) for pool in snap.cluster.pools if pool.device_class == ref.device.device_class
            )
            if supply < ref.device.count:
                reason = f"only {supply} free `{ref.device.device_class}` devices in the cluster"
            elif group.name in noted:
                reason = "no candidate node could allocate it for the first pod"
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
