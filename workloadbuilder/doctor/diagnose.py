"""Why a live gang is (or is not) running: one dominant reason, the evidence, the next step, a replay.

``diagnose(state)`` looks only at a ``LiveState`` (plain Kubernetes JSON), so
it needs no server. It finds the target's Workload (by ``spec.controllerRef``,
or the target itself), its PodGroups (``spec.workloadRef.workloadName``) and
their CompositePodGroup ancestors, the pods that name each PodGroup
(``spec.schedulingGroup.podGroupName``), and the events of all of them. The
dominant reason is the first that holds of:

1. an invalid hierarchy: a PodGroup or CompositePodGroup whose parent
   CompositePodGroup does not exist (the scheduler waits for it forever);
2. no Workload or no PodGroup for the target;
3. a gang waiting for quorum: fewer pods exist than its ``minCount``;
4. pods the scheduler could not place: the latest ``FailedScheduling``
   event's FitError message, per group;
5. otherwise every gang has reached quorum and every pod is bound: healthy.

The replay places the pending pods of every unfinished PodGroup with the
engine (``workloadbuilder.placement.place``, kube-scheduler strategy) on the
cluster built from the live nodes, pods, groups, PriorityClasses and PDBs;
a gang with ``s`` pods already bound is replayed with ``minCount - s``, and
a gang short of pods is replayed whole (the missing ones as copies of a
pending pod), to say whether it will fit once its pods exist.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from workloadbuilder._internal.gofmt import capped
from workloadbuilder.doctor.live import LiveState
from workloadbuilder.errors import WorkloadBuilderError
from workloadbuilder.field import AggregateError
from workloadbuilder.limits import MAX_NODES, MAX_PODS, MAX_RUNTIME_GROUPS
from workloadbuilder.placement import Cluster, PlacementRequest, Pods, place

__all__ = ["Diagnosis", "GroupStatus", "diagnose"]

_DONE = frozenset({"Succeeded", "Failed"})


@dataclass(frozen=True)
class GroupStatus:
    """One PodGroup or CompositePodGroup as the doctor sees it.

    Attributes:
        kind / name: the group.
        parent: ``spec.parentCompositePodGroupName`` (``None`` for a root).
        min_count: the gang's ``minCount`` (``minGroupCount`` for a CompositePodGroup); 0 for ``basic``.
        pods: how many live pods name the PodGroup (0 for a CompositePodGroup).
        scheduled: how many of them are bound to a node.
        conditions: ``status.conditions`` as ``Type=Status (Reason): message``.
    """

    kind: str
    name: str
    parent: str | None
    min_count: int
    pods: int
    scheduled: int
    conditions: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape: ``kind``, ``name``, ``parent``, ``minCount``, ``pods``, ``scheduled``, ``conditions``."""
        return {
            "kind": self.kind,
            "name": self.name,
            "parent": self.parent,
            "minCount": self.min_count,
            "pods": self.pods,
            "scheduled": self.scheduled,
            "conditions": list(self.conditions),
        }


@dataclass(frozen=True)
class Diagnosis:
    """The doctor's answer about one object.

    Attributes:
        target: ``Kind namespace/name``.
        healthy: every gang reached quorum and every pod is bound.
        problem: the dominant reason's class: ``healthy``, ``invalid-hierarchy``,
            ``no-workload``, ``no-pod-groups``, ``waiting-for-quorum`` or ``unschedulable``.
        reason: the dominant reason, one line.
        evidence: conditions, FitError lines and quorum counts, one per line.
        next_step: what to do about it, one line.
        replay: the engine's replay of the scheduling cycle on the live state (its text), or why there is none.
        groups: every group of the target's Workload, parents before children.
    """

    target: str
    healthy: bool
    problem: str
    reason: str
    evidence: tuple[str, ...]
    next_step: str
    replay: str
    groups: tuple[GroupStatus, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape ``doctor --output json`` prints."""
        return {
            "target": self.target,
            "healthy": self.healthy,
            "problem": self.problem,
            "reason": self.reason,
            "evidence": list(self.evidence),
            "nextStep": self.next_step,
            "replay": self.replay,
            "groups": [group.to_dict() for group in self.groups],
        }

    @property
    def text(self) -> str:
        """The human report: the reason, the evidence, the next step, the replay."""
        lines = [f"{self.target}: {self.reason}", "evidence:"]
        lines += [f"  - {line}" for line in self.evidence] or ["  (none)"]
        lines.append(f"next step: {self.next_step}")
        lines.append("replay on the live state:")
        lines += [f"  {line}" for line in self.replay.splitlines()]
        return "\n".join(lines) + "\n"


def _get(obj: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(obj, Mapping):
            return None
        obj = obj.get(key)
    return obj


def _name(obj: Mapping[str, Any]) -> str:
    """``metadata.name`` as text (capped: the live state comes from a server that may send anything)."""
    name = _get(obj, "metadata", "name")
    return _shown(name) if name else ""


def _shown(value: Any) -> str:
    """A value from the live state as a message shows it: on one line, at most ``limits.MAX_MESSAGE_VALUE`` long."""
    return capped(" ".join(str(value).split()))


def _conditions(obj: Mapping[str, Any]) -> tuple[str, ...]:
    found = []
    listed = _get(obj, "status", "conditions")
    for condition in listed if isinstance(listed, list) else ():
        if not isinstance(condition, Mapping):
            continue
        text = f"{_shown(condition.get('type'))}={_shown(condition.get('status'))}"
        if condition.get("reason"):
            text += f" ({_shown(condition['reason'])})"
        if condition.get("message"):
            text += f": {_shown(condition['message'])}"
        found.append(text)
    return tuple(found)


def _min_count(group: Mapping[str, Any]) -> int:
    policy = _get(group, "spec", "schedulingPolicy") or {}
    gang = policy.get("gang") if isinstance(policy, Mapping) else None
    if not isinstance(gang, Mapping):
        return 0
    value = gang.get("minCount", gang.get("minGroupCount", 0))
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


@dataclass
class _Scope:
    """The target's scheduling objects and pods, found in the state."""

    workload: dict[str, Any] | None
    groups: list[dict[str, Any]]  # CompositePodGroups then PodGroups, as found
    pods: dict[str, list[dict[str, Any]]]  # PodGroup name -> its live pods
    missing_parents: list[tuple[dict[str, Any], str]]


def _scope(state: LiveState) -> _Scope:
    target = state.target
    namespace = _get(target, "metadata", "namespace")
    kind = target.get("kind")
    composites = {_name(group): group for group in state.composite_pod_groups}
    if kind == "PodGroup":
        workload_name = _get(target, "spec", "workloadRef", "workloadName")
        pod_groups = [target]
    else:
        if kind == "Workload":
            workload_name = _name(target)
        else:
            api_group = str(target.get("apiVersion", "")).rpartition("/")[0]
            workload_name = next(
                (
                    _name(wl)
                    for wl in state.workloads
                    if _get(wl, "spec", "controllerRef", "kind") == kind
                    and _get(wl, "spec", "controllerRef", "name") == _name(target)
                    and (_get(wl, "spec", "controllerRef", "apiGroup") or "") == api_group
                ),
                None,
            )
        pod_groups = [pg for pg in state.pod_groups if _get(pg, "spec", "workloadRef", "workloadName") == workload_name]
    workload = next((wl for wl in state.workloads if workload_name and _name(wl) == workload_name), None)
    if kind == "Workload":
        workload = target
    groups: list[dict[str, Any]] = []
    missing: list[tuple[dict[str, Any], str]] = []
    seen: set[str] = set()
    for group in [*[cpg for cpg in state.composite_pod_groups if kind != "PodGroup"], *pod_groups]:
        if (
            kind != "PodGroup"
            and group.get("kind") == "CompositePodGroup"
            and _get(group, "spec", "workloadRef", "workloadName") != workload_name
        ):
            continue
        chain = [group]
        parent = _parent(group)
        while parent and parent in composites and parent not in seen:
            chain.append(composites[parent])
            parent = _parent(composites[parent])
        if parent and parent not in composites:
            missing.append((chain[-1], parent))
        for member in reversed(chain):
            key = f"{member.get('kind')}/{_name(member)}"
            if key not in seen:
                seen.add(key)
                groups.append(member)
    names = {_name(pg) for pg in groups if pg.get("kind") == "PodGroup"}
    pods: dict[str, list[dict[str, Any]]] = {name: [] for name in names}
    for pod in state.pods:
        group_name = _get(pod, "spec", "schedulingGroup", "podGroupName")
        if isinstance(group_name, str) and group_name in names and _get(pod, "metadata", "namespace") == namespace:
            pods[group_name].append(pod)
    return _Scope(workload, groups, pods, missing)


def _parent(group: Mapping[str, Any]) -> str | None:
    """``spec.parentCompositePodGroupName`` when it is a name (anything else is no parent)."""
    parent = _get(group, "spec", "parentCompositePodGroupName")
    return _shown(parent) if isinstance(parent, str) and parent else None


def _events(state: LiveState, kind: str, name: str) -> list[dict[str, Any]]:
    return [
        event
        for event in state.events
        if _get(event, "involvedObject", "kind") == kind and _get(event, "involvedObject", "name") == name
    ]


def _latest_fit_error(state: LiveState, pods: Sequence[Mapping[str, Any]]) -> str | None:
    """The message of the most recent ``FailedScheduling`` event of any of these pods."""
    found = [
        event
        for pod in pods
        for event in _events(state, "Pod", _name(pod))
        if event.get("reason") == "FailedScheduling" and isinstance(event.get("message"), str) and event["message"]
    ]
    if not found:
        return None
    latest = max(found, key=lambda e: str(e.get("lastTimestamp") or e.get("eventTime") or ""))
    return capped(str(latest["message"]).strip())


def _label(group: Mapping[str, Any]) -> str:
    """How a group is called in the reason: its template name (``workers``), else its name."""
    return str(_get(group, "spec", "workloadRef", "templateName") or _name(group))


def _next_step_for_fit_error(message: str) -> str:
    if "untolerated taint" in message:
        return "add a toleration for the taint to the pod template, or remove the taint from the nodes meant for it"
    if "Insufficient" in message:
        return "free or add the resource the message names (the replay says whether preemption would help)"
    if "didn't match" in message or "node affinity" in message:
        return "fix the pod's nodeSelector/affinity or label the nodes it should land on"
    return "read the FitError lines above: each names why a set of nodes was filtered out"


def diagnose(state: LiveState) -> Diagnosis:
    """The dominant reason the target's gangs are (not) running, with evidence, next step and replay.

    Never raises for a state the apiserver could hold: a replay the engine
    cannot build (e.g. malformed live pods), or one past the engine's limits
    (``limits.MAX_PODS`` pods, ``limits.MAX_RUNTIME_GROUPS`` groups,
    ``limits.MAX_NODES`` nodes), is reported in ``replay``. Every value from
    the live state is shown capped at ``limits.MAX_MESSAGE_VALUE`` characters.

    Raises:
        TypeError: ``state`` is not a ``LiveState``, or its target is not a JSON object.
    """
    if not isinstance(state, LiveState):
        raise TypeError(f"diagnose(): state must be a LiveState, not {type(state).__name__}")
    if not isinstance(state.target, Mapping):
        raise TypeError(f"diagnose(): state.target must be a JSON object (dict), not {type(state.target).__name__}")
    target = state.target
    title = f"{_shown(target.get('kind'))} {_shown(_get(target, 'metadata', 'namespace'))}/{_name(target)}"
    scope = _scope(state)
    statuses = tuple(_status(group, scope) for group in scope.groups)
    evidence: list[str] = []
    if scope.workload is not None:
        evidence += [f"Workload {_name(scope.workload)}: {c}" for c in _conditions(scope.workload)]
    for status in statuses:
        evidence += [f"{status.kind} {status.name}: {c}" for c in status.conditions]
        if status.kind == "PodGroup":
            evidence.append(
                f"PodGroup {status.name}: quorum minCount={status.min_count}, "
                f"{status.pods} pods exist, {status.scheduled} scheduled"
            )
    for group in scope.groups:
        for event in _events(state, str(group.get("kind")), _name(group)):
            said = f"{_shown(event.get('reason'))}: {_shown(event.get('message'))}"
            evidence.append(f"event {group.get('kind')} {_name(group)}: {said}")

    def answer(problem: str, reason: str, next_step: str, replay: str | None = None) -> Diagnosis:
        return Diagnosis(
            title,
            problem == "healthy",
            problem,
            reason,
            tuple(evidence),
            next_step,
            replay if replay is not None else _replay(state, scope),
            statuses,
        )

    if scope.missing_parents:
        child, parent = scope.missing_parents[0]
        evidence.insert(0, f"{child.get('kind')} {_name(child)}: spec.parentCompositePodGroupName={parent}: not found")
        return answer(
            "invalid-hierarchy",
            f"{child.get('kind')} {_name(child)} names parent CompositePodGroup {parent}, which does not exist: "
            "the scheduler will not schedule it",
            f"create CompositePodGroup {parent} or correct spec.parentCompositePodGroupName "
            f"(the controller that owns {_name(child)} should recreate it)",
            "not replayed: the hierarchy is incomplete",
        )
    if scope.workload is None and target.get("kind") != "PodGroup":
        return answer(
            "no-workload",
            f"no Workload names {title} in spec.controllerRef: its pods are not gang-scheduled",
            "check that the controller runs with Workload support (the GenericWorkload feature) and read its events",
            "not replayed: no Workload",
        )
    if not any(status.kind == "PodGroup" for status in statuses):
        return answer(
            "no-pod-groups",
            f"Workload {_name(scope.workload or {})} has no PodGroup yet: no pod can be scheduled",
            "check the controller that creates the PodGroups from the Workload's podGroupTemplates",
            "not replayed: no PodGroup",
        )
    by_name = {_name(group): group for group in scope.groups if group.get("kind") == "PodGroup"}
    for status in statuses:
        if status.kind == "PodGroup" and status.pods < status.min_count:
            missing = status.min_count - status.pods
            return answer(
                "waiting-for-quorum",
                f"{status.pods} of {status.min_count} pods of {_label(by_name[status.name])} exist; the gang waits for "
                f"quorum (minCount {status.min_count}): {missing} more pod{'' if missing == 1 else 's'} to create",
                f"find why the controller of {title} has not created the other pods "
                "(its events, a ResourceQuota, an admission webhook)",
            )
    for status in statuses:
        if status.kind == "PodGroup" and status.scheduled < status.pods:
            group = by_name[status.name]
            pending = [pod for pod in scope.pods[status.name] if not _get(pod, "spec", "nodeName")]
            fit_error = _latest_fit_error(state, pending)
            head = f"{status.scheduled} of {status.pods} pods of {_label(group)} scheduled"
            if fit_error is None:
                return answer(
                    "unschedulable",
                    f"{head}; the scheduler has not reported on the pending pods yet",
                    "wait for the next scheduling attempt, then run doctor again",
                )
            evidence += [f"FitError: {line.strip()}" for line in fit_error.splitlines() if line.strip()]
            replay = _replay(state, scope)
            if replay.startswith("feasible"):
                evidence.append(
                    "the replay places the pending pods: the cause is a filter the engine does not model "
                    "(see the placement docs' differences from kube-scheduler)"
                )
            filtering = fit_error.split(" preemption:", 1)[0].strip()
            return answer("unschedulable", f"{head}; {filtering}", _next_step_for_fit_error(fit_error), replay)
    total = sum(status.pods for status in statuses)
    return answer(
        "healthy",
        f"all {total} pods scheduled; every gang reached its quorum",
        "nothing to do",
        "not replayed: nothing is pending",
    )


def _status(group: Mapping[str, Any], scope: _Scope) -> GroupStatus:
    pods = scope.pods.get(_name(group), []) if group.get("kind") == "PodGroup" else []
    live = [pod for pod in pods if _get(pod, "status", "phase") not in _DONE]
    return GroupStatus(
        kind=str(group.get("kind")),
        name=_name(group),
        parent=_parent(group),
        min_count=_min_count(group),
        pods=len(live),
        scheduled=sum(1 for pod in live if _get(pod, "spec", "nodeName")),
        conditions=_conditions(group),
    )


def _replay(state: LiveState, scope: _Scope) -> str:
    """The engine's scheduling cycle for the pending pods, on the cluster the live objects describe.

    The sizes are checked against the engine's limits before anything is made: a live PodGroup may ask
    for up to 2,147,483,647 pods (the apiserver accepts any int32), far past what the engine models.
    """
    wanted: list[tuple[dict[str, Any], list[dict[str, Any]], int, int]] = []  # group, pending, count, needed
    for group in scope.groups:
        if group.get("kind") != "PodGroup":
            continue
        live = [pod for pod in scope.pods[_name(group)] if _get(pod, "status", "phase") not in _DONE]
        pending = [pod for pod in live if not _get(pod, "spec", "nodeName")]
        if not pending:
            continue
        # The pods still missing for quorum are replayed as copies of a pending one.
        needed = _min_count(group) - (len(live) - len(pending))
        count = max(len(pending), needed)
        if count > MAX_PODS:
            return (
                f"not replayed: PodGroup {_name(group)} would replay {count} pods (minCount {_min_count(group)}); "
                f"the engine models at most {MAX_PODS} pods per replay"
            )
        wanted.append((group, pending, count, needed))
    if not wanted:
        return "not replayed: nothing is pending"
    total = sum(count for _, _, count, _ in wanted)
    if total > MAX_PODS:
        return f"not replayed: the pending gangs would replay {total} pods; the engine models at most {MAX_PODS}"
    if len(wanted) > MAX_RUNTIME_GROUPS:
        return f"not replayed: {len(wanted)} PodGroups are pending; the engine replays at most {MAX_RUNTIME_GROUPS}"
    if len(state.nodes) > MAX_NODES:
        return f"not replayed: the cluster has {len(state.nodes)} nodes; the engine models at most {MAX_NODES}"
    groups: list[dict[str, Any]] = []
    pods: dict[str, Pods] = {}
    for group, pending, count, needed in wanted:
        names = [_name(pod) for pod in pending]
        names += [f"{_name(group)}-not-created-{i}" for i in range(count - len(pending))]
        replayed = copy.deepcopy(group)
        gang = _get(replayed, "spec", "schedulingPolicy", "gang")
        if isinstance(gang, dict):
            gang["minCount"] = max(1, min(count, needed))
        if isinstance(replayed.get("spec"), dict):
            replayed["spec"].pop("parentCompositePodGroupName", None)
        groups.append(replayed)
        pods[_name(group)] = Pods(count, template=pending[0], names=tuple(names))
    try:
        cluster = Cluster.from_kubectl(
            state.nodes,
            state.pods,
            [*state.pod_groups, *state.composite_pod_groups],
            [*state.priority_classes, *state.disruption_budgets],
        )
        answer = place(PlacementRequest.from_groups(groups, pods), cluster)
    except (AggregateError, WorkloadBuilderError) as problem:
        return f"not replayed: {capped(' '.join(str(problem).split()))}"
    return answer.text.rstrip("\n")
