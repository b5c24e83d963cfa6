"""The ``levels`` of an explanation: per group that failed somewhere, what was tried where, and what came of it.

Read from kube-scheduler's trace, failed attempts only. A CompositePodGroup's
entry is what the simulation saw in its closest candidate, child by child
(kube-scheduler stops once ``minGroupCount`` is out of reach, so the children
never tried are counted as such). A PodGroup's entry counts every domain of
its innermost topology key in the cluster, each on its own; when some would
hold its minimum alone, it says what was left of the best one tried once the
groups placed before it took their share, or that none was tried, and it
names the claims whose devices pinned its pods.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from workloadbuilder.placement.cluster.model import Cluster
from workloadbuilder.placement.cluster.topology import Domain
from workloadbuilder.placement.explain.exclusions import EXCLUSION_DOMAINS, exclusions
from workloadbuilder.placement.explain.wording import count_of, domains_of, names_of, pin_text, short_key
from workloadbuilder.placement.framework.claims import ClaimPin, pins
from workloadbuilder.placement.framework.outcome import CandidateTrace, GroupTrace
from workloadbuilder.placement.framework.snapshot import Snapshot
from workloadbuilder.placement.request.model import GroupRequest
from workloadbuilder.placement.strategies.kube_scheduler import KubeScheduler

__all__ = ["every_trace", "levels", "pins_at"]


def every_trace(trace: GroupTrace) -> Iterable[GroupTrace]:
    """``trace`` and every attempt below it (each candidate's children), parents first."""
    yield trace
    for candidate in trace.candidates:
        for child in candidate.children:
            yield from every_trace(child)


@dataclass
class _Tried:
    """Every failed attempt of one group: each trace, with the names of the groups placed before it in its cycle."""

    group: GroupRequest
    keys: tuple[str, ...]
    traces: list[tuple[GroupTrace, tuple[str, ...]]]


@dataclass(frozen=True)
class _Counts:
    """How many of a PodGroup's pods fit in each of its candidate domains: ``placed[k]`` in ``domains[k]``."""

    domains: list[Domain]
    placed: npt.NDArray[np.int64]

    def __len__(self) -> int:
        return len(self.domains)

    def fitting(self, need: int) -> int:
        """How many of the domains hold ``need`` pods."""
        return int(np.count_nonzero(self.placed >= need))

    def best(self) -> int:
        """The position of the domain where the most pods fit (the first of them, on a tie); there must be one."""
        return int(np.argmax(self.placed))

    def most_first(self, n: int) -> list[int]:
        """The positions of the ``n`` domains where the most pods fit, most first (ties in their order)."""
        order: list[int] = np.argsort(-self.placed, kind="stable")[:n].tolist()
        return order


@dataclass(frozen=True)
class _Seen:
    """What the simulation saw of a PodGroup in each domain it tried: the most pods that fit there, first tried first.

    Row ``k`` is one domain (``counts.domains[k]``, of uid ``uids[k]``)
    as the attempt that fit the most pods there saw it (the first such
    attempt, on a tie): ``counts.placed[k]`` pods, the note ``notes[k]``,
    and the attempt ``attempts[sources[k]]`` (its trace, and the groups
    placed before it).
    """

    counts: _Counts
    uids: npt.NDArray[np.int64]
    notes: list[str]
    sources: npt.NDArray[np.int64]
    attempts: list[tuple[GroupTrace, tuple[str, ...]]]

    def attempt(self, k: int) -> tuple[GroupTrace, tuple[str, ...]]:
        """The trace and the groups placed before it of the attempt row ``k`` comes from."""
        return self.attempts[int(self.sources[k])]

    def find(self, domain: Domain) -> int | None:
        """The row of ``domain`` (``None``: it was not tried)."""
        rows = np.flatnonzero(self.uids == domain.uid)
        return int(rows[0]) if len(rows) else None


def _seen(attempts: list[tuple[GroupTrace, tuple[str, ...]]]) -> _Seen:
    """Every domain a PodGroup's failed ``attempts`` tried, each once, as the attempt that fit the most pods saw it."""
    tables = [trace.columns() for trace, _ in attempts]
    chain = itertools.chain.from_iterable
    domains = list(chain(table.domains for table in tables))
    notes = list(chain(table.notes for table in tables))
    if not domains:
        empty = np.zeros(0, dtype=np.int64)
        return _Seen(_Counts(domains, empty), empty, notes, empty, attempts)
    placed = np.concatenate([table.placed for table in tables])
    uids = np.concatenate([table.uids for table in tables])
    sources = np.repeat(np.arange(len(tables)), [len(table) for table in tables])
    keep = _best_rows(uids, placed)
    if len(keep) < len(domains):  # some domain was tried more than once: its best row stands for it
        domains, notes = [domains[k] for k in keep.tolist()], [notes[k] for k in keep.tolist()]
        placed, uids, sources = placed[keep], uids[keep], sources[keep]
    return _Seen(_Counts(domains, placed), uids, notes, sources, attempts)


def _best_rows(uids: npt.NDArray[np.int64], placed: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """For each distinct uid, the first of its rows where the most fit; ordered by the uid's first row.

    With no uid repeated, that is every row in order.
    """
    order = np.lexsort((-placed, uids))  # by uid, then the most placed first; a stable sort keeps ties in row order
    ordered = uids[order]
    starts = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))  # where each uid's rows begin
    best = order[starts]  # each uid's row where the most fit
    first = np.minimum.reduceat(order, starts)  # each uid's first row
    return best[np.argsort(first)]


def levels(root_trace: GroupTrace, snap: Snapshot, kube: KubeScheduler) -> list[dict[str, Any]]:
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
            else _composite_level(group, entry.traces, kube)
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
    """The topology keys of ``group`` and its ancestors, outermost first, each once (a child may repeat its parent)."""
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
    cluster, need = snap.cluster, group.needed
    key = keys[-1] if keys else None
    seen = _seen(traces)  # what the simulation saw in each domain it tried
    if len(seen.counts) and (group.claims or group.simulated_only):
        # where the claims fit depends on the first pod's node, and one pod
        # shape changes the room left for the next: only the simulation knows
        fits = seen.counts
    else:
        domains = list(cluster.domains(key).values()) if key is not None else [cluster.root]
        fits = _Counts(domains, _fit_alone(group, domains, kube))
    fitting = fits.fitting(need)
    entry: dict[str, Any] = {
        "group": group.name,
        "kind": group.kind,
        "topologyKey": key,
        "need": need,
        "candidates": len(fits),
        "fitting": fitting,
        "best": None,
        "exclusions": [],
    }
    if not len(fits):
        entry["says"] = f"no node has the label `{key}`"
        return entry
    counted = f"; {fitting} of {domains_of(len(fits), key)} fit {need}" if key is not None else ""
    # the candidates tried that hold the minimum alone (parts of the counted domains where keys cross-cut)
    tried = seen.counts.domains if fitting else []
    alone = _Counts(tried, _fit_alone(group, tried, kube))
    if alone.fitting(need):
        k = alone.best()
        domain, placed, left = tried[k], int(alone.placed[k]), int(seen.counts.placed[k])
        _, before = seen.attempt(k)
        entry["best"] = {"domain": _leaf_where(domain, keys, cluster), "fits": left, "alone": placed}
        what = _leaf_domain(domain, keys, cluster)
        entry["says"] = f"{what} fits {need} of {need} pods on its own, {left} once {_took(before)}{counted}"
        return entry
    k = fits.best()
    domain, placed = fits.domains[k], int(fits.placed[k])
    what = _leaf_domain(domain, keys, cluster)
    entry["best"] = {"domain": _leaf_where(domain, keys, cluster), "fits": placed, "alone": None}
    if fitting:  # no candidate tried holds it alone: the domains that do were not (its parent's was not simulated)
        if len(seen.counts):
            k = seen.counts.best()
            domain, placed = seen.counts.domains[k], int(seen.counts.placed[k])
            what = _leaf_domain(domain, keys, cluster)
            entry["best"] = {"domain": _leaf_where(domain, keys, cluster), "fits": placed, "alone": None}
        entry["says"] = f"{what} fits {placed} of {need} pods{counted} {_not_tried(fits, need, seen.counts, keys)}"
        return entry
    text = f"{what} fits {placed} of {need} pods"
    row = seen.find(domain)
    if row is not None:
        note, (trace, _) = seen.notes[row], seen.attempt(row)
        reasons = [note] if note else []
        reasons += [f"claim `{pin.claim}` {pin_text(pin)}" for pin in pins_at(trace, domain, snap, kube)]
        if reasons:
            text += f" ({'; '.join(reasons)})"
    entry["says"] = text + counted
    if key is not None:  # the whole cluster's nodes are counted by the resources and FitError lines
        entry["exclusions"] = _exclusions(group, fits, keys, snap, kube)
    return entry


def _exclusions(
    group: GroupRequest, fits: _Counts, keys: tuple[str, ...], snap: Snapshot, kube: KubeScheduler
) -> list[dict[str, Any]]:
    """The best domains of a PodGroup that fits in none, node by node: what excludes each node, what the rest hold.

    A domain where no filter excludes a node is left out: its level's line already says how many pods it holds.
    """
    shape = kube.shape(group)
    out = []
    for domain in [fits.domains[k] for k in fits.most_first(EXCLUSION_DOMAINS)]:
        counted = exclusions(snap, shape, domain.node_array)
        if not counted.excluded:
            continue
        out.append(
            {
                "domain": _leaf_where(domain, keys, snap.cluster),
                "nodes": counted.nodes,
                "excluded": [{"reason": reason, "nodes": n} for reason, n in counted.excluded],
                "fit": [{"pods": pods, "nodes": n} for pods, n in counted.fit],
                "text": counted.text(_leaf_domain(domain, keys, snap.cluster)),
            }
        )
    return out


def _not_tried(fits: _Counts, need: int, seen: _Counts, keys: tuple[str, ...]) -> str:
    """Why the domains that hold a PodGroup alone did not: split by its parent's domains, or never tried."""
    fitting = {fits.domains[k].value for k in np.flatnonzero(fits.placed >= need).tolist()}
    one = len(fitting) == 1
    if len(keys) > 1 and fitting & {domain.value for domain in seen.domains}:
        return f"on {'its' if one else 'their'} own, but not within one {short_key(keys[-2])}"
    return "on its own, but it was not tried" if one else "on their own, but none of them was tried"


def pins_at(trace: GroupTrace, domain: Domain, snap: Snapshot, kube: KubeScheduler) -> tuple[ClaimPin, ...]:
    """The claims that pin a PodGroup's pods in one candidate domain of ``trace`` (none recorded: none)."""
    devices = trace.claim_devices.get(domain.uid)
    return () if devices is None else pins(snap, kube.shape(trace.group), domain.nodes, *devices)


def _took(before: tuple[str, ...]) -> str:
    """What the groups placed first did, for prose: "`a` took its share", "`a`, `b` took their share"."""
    if not before:
        return "the groups placed before it took their share"
    return f"{names_of(before)} took {'its' if len(before) == 1 else 'their'} share"


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


def _fit_alone(group: GroupRequest, domains: list[Domain], kube: KubeScheduler) -> npt.NDArray[np.int64]:
    """How many of the PodGroup's pods fit each of ``domains`` on its own, each pod shape on its own.

    kube-scheduler's capacity bound (an upper bound for mixed shapes), read
    for all the domains at once.
    """
    if not domains:
        return np.zeros(0, dtype=np.int64)
    return np.asarray(kube.bounds(group, domains, {})[1], dtype=np.int64)


def _composite_level(
    group: GroupRequest, traces: list[tuple[GroupTrace, tuple[str, ...]]], kube: KubeScheduler
) -> dict[str, Any]:
    """What the simulation saw in a CompositePodGroup's candidates: the one that came closest, child by child."""
    need = group.needed
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
        "exclusions": [],
    }
    if not candidates:
        scopes = {trace.scope.uid: trace.scope for trace, _ in traces}.values()
        where = " or ".join(_describe(scope, scope) for scope in scopes if scope.key is not None)
        entry["says"] = f"no node{f' of {where}' if where else ''} has the label `{group.topology_key}`"
        return entry
    domain, scope, best = max(candidates, key=lambda c: (not c[2].skipped, c[2].placed))
    entry["best"] = {"domain": _where(domain, scope), "fits": best.placed, "alone": None}
    entry["says"] = _candidate_text(group, _describe(domain, scope), best, need, kube)
    if group.topology_key is not None:
        entry["says"] += f"; {fitting} of {domains_of(len(candidates), group.topology_key)} fit {need}"
    return entry


def _closer(candidate: CandidateTrace, known: CandidateTrace) -> bool:
    """Whether ``candidate`` says more than ``known`` of the same domain: simulated beats bounded, then more fit."""
    return (not candidate.skipped, candidate.placed) > (not known.skipped, known.placed)


def _candidate_text(group: GroupRequest, where: str, candidate: CandidateTrace, need: int, kube: KubeScheduler) -> str:
    """One composite candidate in words: the children that fit and that did not, and those never tried.

    A candidate the capacity bound ruled out names the children that do not
    fit it even alone now (the cluster as the cycle left it has at least the
    room the bound saw, so each one named is short for certain).
    """
    total = len(group.children)
    if candidate.skipped:
        text = f"in {where}, at most {candidate.placed} of its {count_of(total, 'child group')} fit, each on its own"
        memo: dict[tuple[Any, ...], tuple[Any, Any]] = {}
        short = [child.name for child in group.children if not _fits_alone(kube, child, candidate.domain, memo)]
        return text + (f": {names_of(short)} {'does' if len(short) == 1 else 'do'} not" if short else "")
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


def _fits_alone(
    kube: KubeScheduler, child: GroupRequest, domain: Domain, memo: dict[tuple[Any, ...], tuple[Any, Any]]
) -> bool:
    """Whether kube-scheduler's capacity bound lets ``child`` into ``domain``, as it counts its parent's children."""
    able, _ = kube.bounds(child, [domain], memo)
    return bool(able[0] >= (child.needed if not child.is_leaf else 1))


def _child_groups(names: list[str]) -> str:
    """The children named for prose, after "child group" or "child groups"."""
    return f"{'child group' if len(names) == 1 else 'child groups'} {names_of(names)}"


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
