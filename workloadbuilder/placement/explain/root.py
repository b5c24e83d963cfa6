"""Why a gang does (not) fit, in terms a person can act on; every line a cause that holds.

One explanation per root hierarchy, built right after its scheduling cycle
from kube-scheduler's trace (what each group could fit in each candidate
domain) and the cluster as that cycle left it:

* ``quorum``: pods (or child groups) that exist against ``minCount``
  (``minGroupCount``); a gang short of its quorum is never even tried.
* ``levels`` (the ``levels`` module): for each group that failed somewhere, its best candidate
  domain and shortfall, and how many candidates would have fit
  ("rack rack-00-0-03 in block block-00-0 fits 6 of 8 pods; 0 of 16 racks fit 8").
  A composite candidate names the children that fit, those that did not
  and how many were never tried (kube-scheduler stops once
  ``minGroupCount`` is out of reach); a domain that holds a PodGroup alone
  says what was left of it once the groups before it were placed. A
  PodGroup that fits in none of its domains has its best domains counted
  node by node (``exclusions`` module): "rack r1: 8 nodes; 1 not ready,
  1 untolerated taint, 1 Insufficient nvidia.com/gpu; 5 fit 1 pod each".
* ``filters`` (the ``stages`` module): for each failing PodGroup (and pod
  shape), the nodes each filter before NodeResourcesFit rejects first, in
  kube-scheduler's order, with the taints and selector terms that did it.
* ``resources``: for each failing PodGroup (and pod shape), how many of the
  nodes those filters pass each requested resource rules out on its own (a
  node without room for even one pod); a node turned away earlier is never
  a resource's.
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

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from workloadbuilder.placement.answer import PreemptionReport, RootExplanation
from workloadbuilder.placement.cluster.model import is_slot
from workloadbuilder.placement.cluster.topology import Domain
from workloadbuilder.placement.explain import podgroup
from workloadbuilder.placement.explain.fiterror import fit_error
from workloadbuilder.placement.explain.interplay import interplay
from workloadbuilder.placement.explain.levels import every_trace, levels, pins_at
from workloadbuilder.placement.explain.stages import FilterCount, Stages, stages
from workloadbuilder.placement.explain.wording import count_of, names_of, pin_text, short_key
from workloadbuilder.placement.filters import nodeaffinity, nodename, nodeunschedulable, tainttoleration
from workloadbuilder.placement.framework.claims import CANNOT_ALLOCATE, class_devices_free
from workloadbuilder.placement.framework.outcome import GroupTrace, Outcome
from workloadbuilder.placement.framework.preemption import Unit
from workloadbuilder.placement.framework.queue import admissible
from workloadbuilder.placement.framework.snapshot import Shape, Snapshot
from workloadbuilder.placement.request.model import GroupRequest
from workloadbuilder.placement.strategies.complete import SearchReport
from workloadbuilder.placement.strategies.kube_scheduler import KubeScheduler

__all__ = ["RootReport", "explain_root", "proof_text", "shortage_text"]


@dataclass
class RootReport:
    """Everything known about one root hierarchy's attempt."""

    root: GroupRequest
    outcome: Outcome
    trace: GroupTrace | None = None
    search: SearchReport | None = None
    victims: list[Unit] | None = None
    preemption: PreemptionReport | None = None  # whether evicting lower-priority work helps (a root that failed)
    earlier: tuple[RootReport, ...] = ()
    """The roots placed before this one in the same ``place`` call, in queue order."""


def explain_root(report: RootReport, snap: Snapshot, kube: KubeScheduler) -> RootExplanation:
    """The structured explanation of one root, with its ``text`` lines (``to_dict()`` is its JSON form)."""
    root = report.root
    out: dict[str, Any] = {
        "group": root.name,
        "feasible": report.outcome.success,
        "quorum": _quorum(root),
        "levels": [],
        "filters": [],
        "resources": [],
        "claims": [],
        "preemption": None if report.preemption is None else report.preemption.to_dict(),
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
        out["levels"] = levels(report.trace, snap, kube)
        reported = {level["group"] for level in out["levels"]}
        failing = [group for group in root.walk() if group.is_leaf and group.name in reported]
        rows = _stage_rows(failing, snap, kube)
        out["filters"] = _filters(rows)
        out["resources"] = _resources(rows, snap)
        out["claims"] = _claims(failing, report.trace, snap, kube)
        for level in out["levels"]:
            lines.append(level["text"])
            lines += [f"`{level['group']}`: {entry['text']}" for entry in level["exclusions"]]
        lines += [entry["text"] for entry in out["filters"]]  # cordons first: NodeUnschedulable runs first
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
        lines.append(report.preemption.text)
    return lines


def proof_text(placed_before: Sequence[str]) -> str:
    """What the complete search proved when it found nothing: no placement, beside the roots placed before."""
    if not placed_before:
        return "no placement exists (proved by the complete search)"
    return f"no placement exists beside what {names_of(list(placed_before))} placed (proved by the complete search)"


def _fit_errors(root: GroupRequest, snap: Snapshot, kube: KubeScheduler) -> list[dict[str, str]]:
    """kube-scheduler's FailedScheduling messages for the root's pods.

    For a gang PodGroup root of one pod shape, the messages its placement
    cycle writes (``podgroup`` module: the first placement's FitError and
    the pod-group messages); otherwise the FitError line for every pod shape
    that no node can take now.
    """
    if admissible(root) and podgroup.modelled(root):
        return [
            {"group": root.name, "pod": pod, "message": m} for pod, m in podgroup.failed_scheduling(root, snap, kube)
        ]
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
        need = group.needed
        entries.append(
            {"group": group.name, "kind": group.kind, "have": have, "need": need, "unit": unit, "ok": have >= need}
        )
    return entries


def _quorum_text(entry: dict[str, Any]) -> str:
    if entry["unit"] == "pods":
        return f"`{entry['group']}` has {entry['have']} of the {entry['need']} pods its minCount needs"
    return f"`{entry['group']}` can admit {entry['have']} of the {entry['need']} child groups its minGroupCount needs"


# -- resources and claims ---------------------------------------------------------------


@dataclass(frozen=True)
class _Row:
    """One pod shape of a failing PodGroup and its nodes counted by first rejecting filter."""

    group: GroupRequest
    pod: str | None  # the shape's first pod, when the group's pods come in several shapes
    shape: Shape
    stages: Stages


def _stage_rows(groups: list[GroupRequest], snap: Snapshot, kube: KubeScheduler) -> list[_Row]:
    """The pod shapes of each failing PodGroup to explain, counted by ``stages`` (kube-scheduler's filter order).

    A group of one shape has that shape. Of several (an LWS leader and its
    workers), only the shapes whose pods the cluster cannot hold even on
    their own are explained, so a leader that fits is not blamed for its
    workers; when each shape fits on its own, all are.
    """
    rows = []
    for group in groups:
        shapes = kube.shapes(group)
        mine: list[tuple[_Row, bool]] = []
        first = 0
        for shape, count in shapes:
            if count:
                pod = group.pod_names[first] if len(shapes) > 1 else None
                row = _Row(group, pod, shape, stages(snap, shape))
                mine.append((row, len(shapes) > 1 and _room_for(snap, row) >= count))
            first += count
        short = [row for row, fits_alone in mine if not fits_alone]
        rows += short or [row for row, _ in mine]
    return rows


def _room_for(snap: Snapshot, row: _Row) -> int:
    """How many pods of the row's shape the nodes that reach NodeResourcesFit hold, each node on its own."""
    if row.shape.missing:
        return 0
    nodes = snap.cluster.root.node_array[row.stages.reached]
    per_node = np.full(len(nodes), np.iinfo(np.int64).max, dtype=np.int64)
    for resource, amount in row.shape.requests.items():
        if amount > 0:
            per_node = np.minimum(per_node, np.maximum(snap.free_at(resource, nodes), 0) // amount)
    return int(per_node.sum()) if len(nodes) else 0


def _who(row: _Row) -> str:
    """```g``` or ```g`` pod ``g-0``` when the group has several pod shapes."""
    return f"`{row.group.name}`" if row.pod is None else f"`{row.group.name}` pod `{row.pod}`"


def _filters(rows: list[_Row]) -> list[dict[str, Any]]:
    """Per failing pod shape, the filters before NodeResourcesFit that reject nodes first, and what in them did."""
    out = []
    for row in rows:
        total = row.stages.total
        checked = total  # the nodes each filter is asked about: those the filters before it passed
        for entry in row.stages.filters:
            out.append(
                {
                    "group": row.group.name,
                    "pod": row.pod,
                    "filter": entry.filter,
                    "nodes": entry.nodes,
                    "of": total,
                    "causes": [{"cause": cause, "nodes": n} for cause, n in entry.causes],
                    "text": f"{_who(row)}: {_filter_text(entry, total, checked)}",
                }
            )
            checked -= entry.nodes
    return out


def _filter_text(entry: FilterCount, total: int, checked: int) -> str:
    """``34 of 50 nodes have a taint its pods do not tolerate: nvidia.com/gpu=present:NoSchedule on 34 nodes``."""
    nodes = f"{entry.nodes:,} of {total:,} nodes"
    one = entry.nodes == 1  # "1 of 50 nodes is cordoned"
    are, have, do = ("is", "has", "does") if one else ("are", "have", "do")
    causes = ", ".join(f"{cause} on {count_of(n, 'node')}" for cause, n in entry.causes)
    if entry.filter == tainttoleration.NAME:
        return f"{nodes} {have} a taint its pods do not tolerate: {causes}"
    if entry.filter == nodeaffinity.NAME:
        causes = ", ".join(f"{cause} not matched by {n:,} of {checked:,} nodes" for cause, n in entry.causes)
        return f"{nodes} {do} not match its node selector or affinity: {causes}"
    if entry.filter == nodeunschedulable.NAME:
        return f"{nodes} {are} cordoned"
    if entry.filter == nodename.NAME:
        return f"{nodes} {are} not the node its spec.nodeName names"
    return f"{nodes} {are} left out by its node affinity's metadata.name terms (NodeAffinity PreFilter)"


def _resources(rows: list[_Row], snap: Snapshot) -> list[dict[str, Any]]:
    """Per failing pod shape, how many nodes each requested resource rules out alone, most first.

    In kube-scheduler's order: only the nodes every filter before
    NodeResourcesFit passed (``passed``) can be short of a resource, so a
    shape whose nodes were all turned away earlier blames no resource.
    Cordoned nodes (NodeUnschedulable's) are an entry apart.
    """
    cluster = snap.cluster
    total = len(cluster)
    out = []
    for row in rows:
        shape, reached = row.shape, row.stages.reached
        passed = int(np.count_nonzero(reached))
        counts: dict[str, int] = {}
        for resource in shape.missing:
            counts[resource] = passed
        for r, q in shape.terms:
            if is_slot(cluster.resources[r]):
                continue
            short = snap.free_at(cluster.resources[r], cluster.root.node_array) < q
            counts[cluster.resources[r]] = int(np.count_nonzero(short & reached))
        base = {"group": row.group.name}
        out += [
            {**base, "resource": resource, "nodes": n, "of": total, "passed": passed, "pod": row.pod}
            for resource, n in sorted(counts.items(), key=lambda item: (-item[1], item[0]))
            if n > 0
        ]
        cordoned = row.stages.count(nodeunschedulable.NAME)
        if cordoned:
            out.append(
                {**base, "resource": "unschedulable", "nodes": cordoned, "of": total, "passed": total, "pod": row.pod}
            )
    return out


def shortage_text(entry: Any, short: bool) -> str:
    """One resource shortfall as a line: the verdict's way (``short``) or the explanation's.

    ``entry`` is a ``ResourceShortage`` or its JSON form. The count is of
    the nodes the filters before NodeResourcesFit passed, and says so when
    those are fewer than the cluster's nodes.
    """
    get = entry.get if isinstance(entry, dict) else lambda key: getattr(entry, key)
    group, pod, resource = get("group"), get("pod"), get("resource")
    nodes, total = get("nodes"), get("of")
    passed = get("passed")
    passed = total if passed is None else passed
    who = f"`{group}`" if pod is None else f"`{group}` pod `{pod}`"
    sep = "" if short else ","  # the verdict's lines have always written plain numbers, the explanation's 1,000
    n, of, reached = f"{nodes:{sep}}", f"{total:{sep}}", f"{passed:{sep}}"
    if resource == "unschedulable":
        return f"{who}: {n} of {of} nodes {'is' if nodes == 1 else 'are'} cordoned"
    among = f"{n} of {of}" if passed == total else f"{n} of the {reached} nodes the earlier filters pass"
    if short:
        return f"{who}: {resource} rules out the most nodes ({among} lack room for one pod)"
    return f"{who}: {resource} leaves {among}{' nodes' if passed == total else ''} without room for one pod"


def _resource_lines(entries: list[dict[str, Any]]) -> list[str]:
    lines = []
    seen: set[tuple[str, str | None]] = set()
    for entry in entries:
        key = (entry["group"], entry["pod"])
        if key in seen or entry["resource"] == "unschedulable":  # said with the filters
            continue
        seen.add(key)
        lines.append(shortage_text(entry, short=True))
    return lines


def _claims(
    groups: list[GroupRequest], root_trace: GroupTrace, snap: Snapshot, kube: KubeScheduler
) -> list[dict[str, Any]]:
    """Per failing PodGroup's claim: too few free devices, no node to allocate it from, or devices that pin the pods.

    A claim allocated before the group was tried (another group's
    ``resourceClaimName``) needs no free devices; it can only pin. Pins are
    read at the failed candidate where the most of the group's pods fit.
    """
    failed = [trace for trace in every_trace(root_trace) if trace.chosen is None]
    unallocatable = {trace.group.name for trace in failed if CANNOT_ALLOCATE in trace.columns().notes}
    closest: dict[str, tuple[int, GroupTrace, Domain]] = {}  # per group: the most placed where devices were recorded
    for trace in failed:
        if not trace.claim_devices:  # no candidate's devices recorded: nothing can pin
            continue
        columns = trace.columns()
        recorded = np.flatnonzero(np.isin(columns.uids, list(trace.claim_devices)))
        if not len(recorded):
            continue
        k = int(recorded[np.argmax(columns.placed[recorded])])  # the first of the most placed
        known = closest.get(trace.group.name)
        if known is None or columns.placed[k] > known[0]:
            closest[trace.group.name] = (int(columns.placed[k]), trace, columns.domains[k])
    pinned = {
        (name, pin.claim): pin
        for name, (_, trace, domain) in closest.items()
        for pin in pins_at(trace, domain, snap, kube)
    }
    out = []
    for group in groups:
        for ref in group.claims:
            supply = class_devices_free(snap, ref.device.device_class)
            pinning = pinned.get((group.name, ref.name))
            if ref.identity not in snap.allocations and supply < ref.device.count:
                reason = f"only {supply} free `{ref.device.device_class}` devices in the cluster"
            elif group.name in unallocatable and ref.identity not in snap.allocations:
                reason = "no candidate node could allocate it for the first pod"
            elif pinning is not None:
                reason = f"it {pin_text(pinning, 'the group')}"
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
