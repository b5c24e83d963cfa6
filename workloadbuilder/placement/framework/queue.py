"""kube-scheduler's queue: the priority each root takes at admission, the order roots are tried in, and queue admission.

``resolve_request`` gives every group to place the priority and preemption
policy the apiserver's Priority admission would (``k8s.priorities``);
``queue_order`` sorts roots as the ``PrioritySort`` queue does; ``admissible``
is the gang's queue admission (enough pods, enough admissible children).
"""

from __future__ import annotations

from collections.abc import Iterable

from workloadbuilder.placement.k8s.priorities import (
    PREEMPT_LOWER_PRIORITY,
    PREEMPT_NEVER,
    PriorityClasses,
    PriorityError,
)
from workloadbuilder.placement.request.model import GroupRequest, PlacementRequest

__all__ = ["admissible", "queue_order", "resolve_request"]

_GROUP_RESOURCES = {  # the resource admission names in its messages, by group kind
    "PodGroup": "podgroups.scheduling.k8s.io",
    "CompositePodGroup": "compositepodgroups.scheduling.k8s.io",
}


def resolve_request(request: PlacementRequest, classes: PriorityClasses) -> None:
    """Give every group of ``request`` the priority and preemption policy admission would.

    A group that names no class and sets no priority takes its pods'
    (``pod_priority``), as the controller's pod template would give the
    PodGroup; a root hierarchy has one priority (KEP-5710), and its policy
    is ``Never`` when any group or pod template in it says so (upstream's
    ``resolvePreemptionPolicy``).

    Raises:
        PriorityError: an unknown class, a priority contradicting its class,
            or a child group whose priority differs from its root's.
    """
    for root in request.roots:
        policies = []
        for group in root.walk():
            priority, policy = _group_priority(group, classes)
            if group is not root and priority != root.priority:
                raise PriorityError(
                    f'{_GROUP_RESOURCES[group.kind]} "{group.name}": priority {priority} must match the '
                    f"priority of its root {root.name!r} ({root.priority})",
                    group.name,
                )
            group.priority = priority
            policies.append(policy)
        root.preemption_policy = PREEMPT_NEVER if PREEMPT_NEVER in policies else PREEMPT_LOWER_PRIORITY


def _group_priority(group: GroupRequest, classes: PriorityClasses) -> tuple[int, str]:
    spec = group.priority_spec
    resource = _GROUP_RESOURCES[group.kind]
    pods = group.pod_priority
    if spec.class_name is None and spec.priority is None and pods is not None:
        pod = group.pod_names[0] if group.pod_names else group.name
        try:
            priority, policy = classes.effective(pods, "pods", pod)
        except PriorityError as problem:
            raise PriorityError(str(problem), group.name) from None
        return priority, spec.preemption_policy or policy
    priority, policy = classes.effective(spec, resource, group.name)
    if pods is not None and pods.preemption_policy == PREEMPT_NEVER:
        policy = PREEMPT_NEVER
    return priority, policy


def queue_order(roots: Iterable[GroupRequest]) -> list[GroupRequest]:
    """Roots in kube-scheduler's queue order: higher priority first, then earlier creation (``PrioritySort``)."""
    return sorted(roots, key=lambda root: (-root.priority, root.order))


def admissible(group: GroupRequest) -> bool:
    """Whether the group passes kube-scheduler's queue admission (enough pods, enough admissible children)."""
    if group.is_leaf:
        return group.count >= group.needed
    return sum(admissible(child) for child in group.children) >= group.needed
