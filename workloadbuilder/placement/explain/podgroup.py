"""What kube-scheduler 1.37 writes in the FailedScheduling events of a gang PodGroup that fits in no placement.

With ``TopologyAwareWorkloadScheduling`` a PodGroup's cycle
(``podGroupSchedulingPlacementAlgorithm`` in kubernetes/kubernetes
``pkg/scheduler/schedule_one_podgroup.go``) tries it in every placement: one
per value of its topology key (the nodes carrying that value), or the whole
cluster when it has no key. In each placement its pods are tried one by one;
after each, ``GangScheduling.PlacementFeasible`` stops the attempt once
``minCount`` is out of reach (``minCount (M) cannot be satisfied: S
scheduled, R remaining``). When no placement succeeds, the events come from
the *first* placement's attempt, and each pod gets one of three messages:

* a pod that did not fit there: its own FitError, counting the placement's
  nodes and seeing the pods placed before it in that placement;
* a pod that was never tried (the attempt stopped first): ``pod group is
  unschedulable, 0/P placements are available, first placement status:
  ...``;
* a pod that fit there: the same with ``pod group is unschedulable, ``
  written once more in front (the group's message is wrapped again) and,
  after it, what the pod-group preemption (``PodGroupPostFilter``) said.

Which placement is first is the order Go's map iteration gives, at random;
this module takes the first candidate domain in label-value order (the
order the ``kube-scheduler`` strategy tries them in). The preemption suffix
is modelled for a group that may not preempt (``preemptionPolicy: Never``),
one with nothing of lower priority to evict, and one that does not fit even
with every lower-priority pod gone; a group that would fit by preempting is
given no message of a fitting pod.
"""

from __future__ import annotations

from dataclasses import dataclass

from workloadbuilder.placement.explain.fiterror import fit_error
from workloadbuilder.placement.framework.assign import assign_pods
from workloadbuilder.placement.framework.preemption import candidates_below
from workloadbuilder.placement.framework.snapshot import Snapshot
from workloadbuilder.placement.k8s.priorities import PREEMPT_NEVER
from workloadbuilder.placement.request.model import GroupRequest
from workloadbuilder.placement.strategies.kube_scheduler import KubeScheduler

__all__ = ["UNSCHEDULABLE", "failed_scheduling", "modelled"]

UNSCHEDULABLE = "pod group is unschedulable"
"""``errPodGroupUnschedulable``: the error every pod-group message starts with."""

NO_PLACEMENTS = "no feasible placements found"
"""What ``RunPlacementGeneratePlugins`` says when no node carries the group's topology key."""

PREEMPTION = "pod group preemption: "
NOT_ELIGIBLE = "not eligible due to preemptionPolicy=Never."
NO_VICTIMS = "No preemption victims found for incoming preemptor"


@dataclass(frozen=True)
class _Attempt:
    """One placement's attempt: how many placements there are, how many pods fit the first, the FitError after them."""

    placements: int
    fitted: int
    fit_error: str | None

    def status(self, group: GroupRequest) -> str:
        """``GangScheduling.PlacementFeasible``'s verdict where the attempt stopped."""
        need, fitted = group.needed, self.fitted
        return f"minCount ({need}) cannot be satisfied: {fitted} scheduled, {max(need - fitted - 1, 0)} remaining"

    def message(self, group: GroupRequest) -> str:
        """The pod group's status: what a pod that was never tried is told."""
        return (
            f"{UNSCHEDULABLE}, 0/{self.placements} placements are available, "
            f"first placement status: {self.status(group)}"
        )


def modelled(group: GroupRequest) -> bool:
    """Whether the messages are modelled: a gang PodGroup root of one pod shape, without spread or claims."""
    return group.is_leaf and group.gang and group.parent is None and not group.simulated_only and not group.claims


def _attempt(group: GroupRequest, snap: Snapshot, kube: KubeScheduler) -> _Attempt | None:
    """The first placement's attempt on the snapshot as it is (left as it was); ``None``: no placement at all."""
    candidates = kube.candidates(group, snap.cluster.root)
    if not candidates:
        return None
    first, shape = candidates[0], kube.shape(group)
    mark = snap.mark()
    try:
        fitted = len(assign_pods(snap, shape, first.node_array, group.count))
        nodes = None if first.key is None else first.node_array
        line = fit_error(snap, shape, nodes) if fitted < group.count else None
    finally:
        snap.revert(mark)
    return _Attempt(len(candidates), fitted, line)


def _preemption(group: GroupRequest, snap: Snapshot, kube: KubeScheduler) -> str | None:
    """What ``PodGroupPostFilter`` says of a group that fits nowhere; ``None`` where it would preempt (not modelled)."""
    if group.preemption_policy == PREEMPT_NEVER:
        return PREEMPTION + NOT_ELIGIBLE
    below = candidates_below(snap.cluster, group.priority)
    if not below.units:
        return PREEMPTION + NO_VICTIMS
    before = snap.checkpoint()
    try:
        snap.add_block(below.evictions)
        attempt = _attempt(group, snap, kube)
        if attempt is None or attempt.fitted >= group.needed:
            return None
        return PREEMPTION + attempt.message(group)
    finally:
        snap.restore(before)


def failed_scheduling(group: GroupRequest, snap: Snapshot, kube: KubeScheduler) -> list[tuple[str, str]]:
    """``(first pod, message)`` for each FailedScheduling message the group's pods get, FitErrors first.

    Empty when the group is not ``modelled`` or its first placement would
    take ``minCount`` pods (the group did not fail there).
    """
    if not modelled(group) or not group.count:
        return []
    names = group.pod_names
    attempt = _attempt(group, snap, kube)
    if attempt is None:
        return [(names[0], NO_PLACEMENTS)]
    need, fitted = group.needed, attempt.fitted
    if fitted >= need:
        return []
    failing = group.count - need + 1  # pods that do not fit before PlacementFeasible stops the attempt
    found = []
    if attempt.fit_error is not None:
        found.append((names[fitted], attempt.fit_error))
    if fitted + failing < group.count:
        found.append((names[fitted + failing], attempt.message(group)))
    if fitted:
        suffix = _preemption(group, snap, kube)
        if suffix is not None:
            found.append((names[0], f"{UNSCHEDULABLE}, {attempt.message(group)}, {suffix}"))
    return found
