"""The LeaderWorkerSet adapter (``leaderworkerset.x-k8s.io/v1``), after LWS KEP-666 revision 03254992.

KEP-666 (kubernetes-sigs/lws ``keps/666-gang-scheduling-in-lws``, the
revision of 2026-09-15 that embeds the ``scheduling.k8s.io/v1alpha3``
building blocks at three levels, implemented by PR #982's
``phase_one.go``) gives ``spec.scheduling`` three levels:

* ``spec.scheduling``: the whole LWS (composite blocks);
* ``spec.scheduling.replica``: each group of one leader and ``size - 1``
  workers (composite blocks); the default, a gang of ``size`` pods;
* ``spec.scheduling.replica.leader`` / ``.worker``: leaves of 1 and
  ``size - 1`` pods (requires ``size >= 2``).

Without CompositePodGroups ("phase 1") exactly one level may be active and
is lowered to flat PodGroups. With them ("phase 2") the levels form one tree:
root ``lws`` -> ``replica`` per group (``minGroupCount`` 2, or 1 when
``size == 1``) -> ``leader`` and ``worker`` leaves, and a ``subGroupPolicy``
turns ``worker`` into a composite over one ``subgroup`` leaf per subgroup, a
fourth level. Pods are assigned by LWS's own labels (group and worker
index). docs/adapters/lws.md has the rules and what is lossy.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from workloadbuilder import ErrorList, FieldPath, Hierarchy, WorkloadItem
from workloadbuilder._internal.arguments import check_type
from workloadbuilder.adapters._shared.blocks import (
    is_gang,
    kueue_topology,
    kueue_warnings,
    lossy,
    plan_options,
    scheduler_warnings,
)
from workloadbuilder.adapters._shared.own_groups import Member, OwnGroups, bring_your_own, named_pod_group
from workloadbuilder.adapters._shared.pod_rules import pod_template_errors
from workloadbuilder.adapters._shared.reading import at, identity_of
from workloadbuilder.adapters._shared.strict import with_schema_errors
from workloadbuilder.adapters.base import Finding, Plan, PodAssignment, as_dict
from workloadbuilder.adapters.kit import OMIT_VALUE, forbidden, invalid
from workloadbuilder.adapters.lws.levels import SCHEDULING, SUBGROUP_SIZE, GroupLayout, Levels, read_layout
from workloadbuilder.adapters.lws.pods import render_pod_template

__all__ = [
    "DESIGN",
    "EXCLUSIVE_TOPOLOGY_ANNOTATION",
    "GROUP_INDEX_LABEL",
    "NAME_LABEL",
    "SUBGROUP_EXCLUSIVE_TOPOLOGY_ANNOTATION",
    "WORKER_INDEX_LABEL",
    "LeaderWorkerSetAdapter",
]

DESIGN = "LWS KEP-666 revision 03254992 (2026-09-15), as implemented by PR #982's phase_one.go"
"""The design revision this adapter follows."""

NAME_LABEL = "leaderworkerset.sigs.k8s.io/name"
GROUP_INDEX_LABEL = "leaderworkerset.sigs.k8s.io/group-index"
WORKER_INDEX_LABEL = "leaderworkerset.sigs.k8s.io/worker-index"
EXCLUSIVE_TOPOLOGY_ANNOTATION = "leaderworkerset.sigs.k8s.io/exclusive-topology"
SUBGROUP_EXCLUSIVE_TOPOLOGY_ANNOTATION = "leaderworkerset.sigs.k8s.io/subgroup-exclusive-topology"
EXCLUSIVE_GANG = "gang scheduling or workload topology constraints cannot be combined with exclusive topology in alpha"


class LeaderWorkerSetAdapter:
    """Plans ``leaderworkerset.x-k8s.io/v1`` LeaderWorkerSets; one is registered on import.

    Args:
        composite_pod_groups: whether the cluster serves CompositePodGroups
            (alpha in 1.37, off by default): KEP-666's phase 2 tree instead of
            phase 1's single flat level.
    """

    api_version = "leaderworkerset.x-k8s.io/v1"
    kind = "LeaderWorkerSet"

    def __init__(self, composite_pod_groups: bool = False) -> None:
        check_type("LeaderWorkerSetAdapter", "composite_pod_groups", composite_pod_groups, bool)
        self.composite_pod_groups = composite_pod_groups

    def plan(self, obj: Mapping[str, Any] | BaseModel, related: Sequence[Mapping[str, Any]] = ()) -> Plan:
        """Plan one LeaderWorkerSet; ``related`` holds the PodGroups its pod templates may name.

        A LeaderWorkerSet without ``spec.scheduling`` is planned as
        ``spec.scheduling: {}``: one gang of ``size`` pods per group; unless
        its pod templates name a PodGroup (bring your own,
        ``adapters._shared.own_groups``): then it makes no group, and its pods join
        the named one.
        """
        lws = as_dict(obj)
        errors, warnings = ErrorList(), ErrorList()
        ident = identity_of(lws, errors, warnings)
        shape = read_layout(lws, ident.name, errors)
        levels = Levels(lws, shape, errors)
        own = _own_groups(lws, shape, levels.configured, ident.namespace, related)
        roots: list[WorkloadItem]
        instances: dict[str, int]
        if own is not None:
            roots, instances = [], {}
            errors.extend(own.errors)
            warnings.extend(own.warnings)
        else:
            roots, instances = levels.composite() if self.composite_pod_groups else levels.phase_one()
        errors.extend(_templates(lws, shape, levels.configured, own is not None))
        errors.extend(levels.leader_ready())
        errors.extend(levels.claims(lws))
        warnings.extend(_exclusive_topology(lws, levels, errors))
        pod_templates = list(dict.fromkeys([shape.leader_template, shape.worker_template]))
        # Unconfigured phase 1 is one gang per group (leader and workers): Kueue's required topology is its constraint.
        default_gang = own is None and not levels.configured and not self.composite_pod_groups and len(roots) == 1
        mapped = kueue_topology(lws, pod_templates, roots[0]) if default_gang else []
        warnings.extend(kueue_warnings(lws, pod_templates, mapped))
        warnings.extend(scheduler_warnings(lws, pod_templates))
        if shape.leader_extra and self.composite_pod_groups:
            warnings.append(
                lossy(
                    SUBGROUP_SIZE,
                    shape.subgroup_size,
                    f"size - 1 is divisible by subGroupSize, so the leader is an extra member of subgroup 0: its "
                    f"PodGroup has {(shape.subgroup_size or 0) + 1} pods while the subgroup template's minCount is "
                    f"{shape.subgroup_size}",
                )
            )
        plan = Plan(
            source=lws,
            roots=roots,
            options=plan_options(ident),
            instances=instances,
            errors=[
                Finding(ident.ref, err)
                for err in with_schema_errors(lws, ErrorList([*errors, *pod_template_errors(lws)]))
            ],
            warnings=[Finding(ident.ref, err) for err in warnings],
            uses=own.uses if own is not None else [],
        )
        if own is not None:
            pods = own.pods
            plan.assign_pods = lambda _: list(pods)
        else:
            plan.assign_pods = lambda hierarchy: _assignments(lws, shape, hierarchy)
        return plan


def _own_groups(
    lws: Mapping[str, Any],
    shape: GroupLayout,
    configured: bool,
    namespace: str,
    related: Sequence[Mapping[str, Any] | BaseModel],
) -> OwnGroups | None:
    """Bring your own: without ``spec.scheduling``, pod templates that name a PodGroup join it (``None`` otherwise).

    A template that names none while the other does leaves its pods in no
    group, which is said as a warning.
    """
    templates = list(dict.fromkeys([shape.leader_template, shape.worker_template]))
    naming = [t for t in templates if named_pod_group(lws, t) is not None]
    if configured or not naming:
        return None
    separate = shape.leader_template != shape.worker_template
    counts = {shape.leader_template: shape.replicas} if separate else {}
    counts[shape.worker_template] = shape.replicas * (shape.size - 1 if separate else shape.size)
    members = [Member(t, {NAME_LABEL: shape.name}, counts[t]) for t in naming]
    own = bring_your_own(lws, members, namespace, related, "the LeaderWorkerSet controller")
    for template in templates:
        if template not in naming:
            own.warnings.append(
                lossy(
                    template.child("spec", "schedulingGroup"),
                    OMIT_VALUE,
                    "is not set while the other pod template names a PodGroup: these pods join no group",
                )
            )
    return own


def _templates(lws: Mapping[str, Any], shape: GroupLayout, configured: bool, own: bool) -> ErrorList:
    """The pod templates LWS manages: one priority class, and no PodGroup of their own unless brought (``own``)."""
    errors = ErrorList()
    leader, worker = shape.leader_template, shape.worker_template
    priorities = [at(lws, (*t.elements(), "spec", "priorityClassName")) or "" for t in (leader, worker)]
    if priorities[0] != priorities[1]:
        path = SCHEDULING if configured else leader.child("spec", "priorityClassName")
        errors.append(invalid(path, None, "all managed pod templates must use the same priorityClassName"))
    for template in [] if own else dict.fromkeys([leader, worker]):
        group = template.child("spec", "schedulingGroup")
        if at(lws, group.elements()) is not None:
            errors.append(
                forbidden(
                    SCHEDULING if configured else group, "managed pod templates must not set spec.schedulingGroup"
                )
            )
            break
    return errors


def _exclusive_topology(lws: Mapping[str, Any], levels: Levels, errors: ErrorList) -> ErrorList:
    """KEP-666 forbids an asked-for gang or topology with exclusive topology; otherwise exclusivity is only lost."""
    warnings = ErrorList()
    annotations = at(lws, ("metadata", "annotations"))
    if not isinstance(annotations, Mapping):
        return warnings
    exclusive = annotations.get(EXCLUSIVE_TOPOLOGY_ANNOTATION)
    if exclusive:
        if levels.configured and _asks_gang_or_topology(levels):
            errors.append(forbidden(SCHEDULING, EXCLUSIVE_GANG))
        else:
            warnings.append(
                lossy(
                    FieldPath("metadata", "annotations").key(EXCLUSIVE_TOPOLOGY_ANNOTATION),
                    exclusive,
                    "has no equivalent in the Workload API: WAS topology co-locates a group's pods but cannot keep a "
                    "domain to one group; LWS's own pod affinities still enforce it, the Workload does not carry it",
                )
            )
    sub = annotations.get(SUBGROUP_EXCLUSIVE_TOPOLOGY_ANNOTATION)
    if sub:
        warnings.append(
            lossy(
                FieldPath("metadata", "annotations").key(SUBGROUP_EXCLUSIVE_TOPOLOGY_ANNOTATION),
                sub,
                "has no equivalent in the Workload API: LWS's own pod affinities keep one subgroup per domain, "
                "the Workload does not carry it",
            )
        )
    return warnings


def _asks_gang_or_topology(levels: Levels) -> bool:
    """Whether ``spec.scheduling`` asks, at any level, for a gang (the replica level's default) or a topology."""
    blocks = [levels.top, levels.replica or {}, levels.leader or {}, levels.worker or {}]
    if any(
        isinstance(block.get("schedulingConstraints"), Mapping) and block["schedulingConstraints"].get("topology")
        for block in blocks
    ):
        return True
    return any(is_gang(item) for item, _ in levels.gangs) or any(
        isinstance(block.get("schedulingPolicy"), Mapping) and "gang" in block["schedulingPolicy"] for block in blocks
    )


def _assignments(lws: Mapping[str, Any], shape: GroupLayout, hierarchy: Hierarchy) -> list[PodAssignment]:
    """Each PodGroup's pods by LWS's labels: group index and worker index (leader = 0)."""
    out: list[PodAssignment] = []
    for group in hierarchy.pod_groups():
        template = group.template_name
        if template == "lws":
            for worker in range(shape.size):
                selector = {NAME_LABEL: shape.name, WORKER_INDEX_LABEL: str(worker)}
                out.append(_assignment(lws, group.name, template, selector, shape.replicas, shape, worker))
            continue
        replica = group.indices[0]
        for worker in _members(shape, template, group.indices):
            selector = {NAME_LABEL: shape.name, GROUP_INDEX_LABEL: str(replica), WORKER_INDEX_LABEL: str(worker)}
            out.append(_assignment(lws, group.name, template, selector, 1, shape, worker))
    return out


def _members(shape: GroupLayout, template: str, indices: tuple[int, ...]) -> list[int]:
    """The worker indices of one group's pods that a PodGroup of ``template`` holds."""
    if template == "replica":
        return list(range(shape.size))
    if template == "leader":
        return [0]
    if template == "worker":
        return list(range(1, shape.size))
    return [w for w in range(shape.size) if shape.subgroup_of(w) == indices[-1]]


def _assignment(
    lws: Mapping[str, Any],
    pod_group: str,
    template: str,
    selector: dict[str, str],
    count: int,
    shape: GroupLayout,
    worker: int,
) -> PodAssignment:
    """The LWS pod webhook stamps each pod made from the leader or the worker template.

    The pod's template is the one the LWS controller and webhooks render
    (``adapters.lws.pods``), for its group when the assignment is one group's.
    """
    source = shape.leader_template if worker == 0 else shape.worker_template
    group = selector.get(GROUP_INDEX_LABEL)
    rendered = render_pod_template(lws, worker, int(group) if group is not None else None)
    return PodAssignment(pod_group, selector, count, str(source), template, rendered)


ADAPTER = LeaderWorkerSetAdapter()
"""The instance the default registry holds (``base.BUNDLED``), loaded when its kind is first read."""
