"""A straightforward preemption, step by step as podgrouppreemption.go reads, to check the engine's indexed one.

It takes ``preemption.preempt``'s arguments and returns the same result,
doing the obvious thing at every step: every candidate's pods are removed
from the snapshot one by one, the root is placed once, and the candidates
are put back one at a time (budget violators first, each part from the most
important), each undone if a placed pod's node then runs short of a
resource the placed pods there request. It shares with the engine only the
snapshot, the unit order and the budget walk.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from workloadbuilder.placement.framework.outcome import Outcome
from workloadbuilder.placement.framework.preemption import Candidates, Unit, Victims
from workloadbuilder.placement.framework.snapshot import Shape, Snapshot
from workloadbuilder.placement.k8s.disruption import DisruptionBudget, split_violating
from workloadbuilder.placement.request.model import GroupRequest


def reference_preempt(
    snap: Snapshot,
    root: GroupRequest,
    candidates: Candidates,
    place: Callable[[], Outcome],
    shapes_of: Callable[[GroupRequest], list[tuple[Shape, int]]],
    budgets: Sequence[DisruptionBudget] = (),
    assume: bool = True,
) -> Victims | None:
    """What ``preemption.preempt`` answers and leaves in ``snap``, the slow and obvious way."""
    units = list(candidates.units)
    if not units:
        return None
    mark = snap.mark()
    for unit in units:
        _move(snap, unit, -1)
    outcome = place()
    if not outcome.success:
        snap.revert(mark)
        return None
    checked = _placed_resources(root, outcome, shapes_of)
    violating, other = split_violating(sorted(units, key=Unit.importance), budgets)
    victims = []
    for unit in [*violating, *other]:
        before = snap.mark()
        _move(snap, unit, 1)
        short = any(snap.free(i)[r] < 0 for i in unit.nodes for r in checked.get(i, ()))
        if short:
            snap.revert(before)
            victims.append(unit)
    victims.sort(key=Unit.importance)
    names = {unit.name for unit in victims}
    if not assume:
        snap.revert(mark)
    return Victims(outcome, victims, [unit for unit in violating if unit.name in names])


def _move(snap: Snapshot, unit: Unit, sign: int) -> None:
    """Put back (``sign=1``) or remove (``-1``) a unit's pods one by one; pods on cordoned nodes never move."""
    for pod in unit.pods:
        if snap.cluster.schedulable[pod.node]:
            snap.add(pod.node, pod.requests, sign)


def _placed_resources(
    root: GroupRequest, outcome: Outcome, shapes_of: Callable[[GroupRequest], list[tuple[Shape, int]]]
) -> dict[int, set[int]]:
    """Per node holding placed pods, every resource a pod placed there requests."""
    checked: dict[int, set[int]] = {}
    for group in root.walk():
        result = outcome.results.get(group.name)
        if result is None or not group.is_leaf:
            continue
        pods = [shape for shape, count in shapes_of(group) for _ in range(count)]
        if result.names is not None:
            order = list(group.pod_names)
            pods = [pods[order.index(name)] for name in result.names]
        for i, shape in zip(result.nodes, pods, strict=False):
            checked.setdefault(i, set()).update(r for r, _ in shape.terms)
    return checked
