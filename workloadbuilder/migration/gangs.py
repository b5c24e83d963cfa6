"""Migration from other gang schedulers to the native Workload and PodGroup: Volcano, coscheduling and Kueue.

Users of Volcano (``scheduling.volcano.sh/v1beta1`` PodGroup), of the
scheduler-plugins coscheduling plugin (``scheduling.x-k8s.io/v1alpha1``
PodGroup) and of Kueue's plain-Pod groups (Pods labelled
``kueue.x-k8s.io/pod-group-name`` with a ``pod-group-total-count``) describe a
gang with their scheduler's own objects. Each becomes a
``scheduling.k8s.io/v1beta1`` Workload with one gang template and a PodGroup
of that template, named as the old group was; the pods then join it through
``spec.schedulingGroup.podGroupName``. Every field with no native
equivalent (``minResources``, ``queue``, ``scheduleTimeoutSeconds``,
``minTaskMember``, ...) is reported, at its path, as dropped.

What the apiserver would refuse in the result is refused here, at the old
object's path (``InvalidArgumentError``): a count beyond ``int32``, a
total count that is not plain ASCII digits, and a name that is empty or not
a DNS subdomain; the output never holds an object ``kubectl apply`` rejects
for them.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from workloadbuilder._internal import kinds
from workloadbuilder._internal.gofmt import capped, go_quote, render_bad_value
from workloadbuilder._internal.textread import check_nesting
from workloadbuilder.errors import InvalidArgumentError
from workloadbuilder.field import FieldPath
from workloadbuilder.limits import INT32_MAX
from workloadbuilder.validation.formats import is_dns1123_subdomain

__all__ = [
    "COSCHEDULING_GROUP",
    "COSCHEDULING_LABELS",
    "KUEUE_POD_GROUP_NAME",
    "KUEUE_POD_GROUP_TOTAL_COUNT",
    "VOLCANO_GROUP",
    "VOLCANO_GROUP_ANNOTATION",
    "GangMigration",
    "GroupMember",
    "check_kueue_pod",
    "is_foreign_pod_group",
    "is_kueue_pod",
    "member_keys",
    "migrate_kueue_pods",
    "migrate_pod_group",
    "pod_group_members",
]

VOLCANO_GROUP = "scheduling.volcano.sh"
COSCHEDULING_GROUP = "scheduling.x-k8s.io"
KUEUE_POD_GROUP_NAME = "kueue.x-k8s.io/pod-group-name"
KUEUE_POD_GROUP_TOTAL_COUNT = "kueue.x-k8s.io/pod-group-total-count"
COSCHEDULING_LABELS = ("scheduling.x-k8s.io/pod-group", "pod-group.scheduling.sigs.k8s.io")
"""The pod labels that put a pod in a coscheduling PodGroup (today's, and the older ``sigs.k8s.io`` one)."""
VOLCANO_GROUP_ANNOTATION = "scheduling.k8s.io/group-name"
"""The pod annotation that puts a pod in a Volcano PodGroup."""

_POD_TEMPLATES: dict[tuple[str, str], tuple[str, ...]] = {
    ("v1", "Pod"): (),
    ("v1", "ReplicationController"): ("spec", "template"),
    ("apps/v1", "Deployment"): ("spec", "template"),
    ("apps/v1", "ReplicaSet"): ("spec", "template"),
    ("apps/v1", "StatefulSet"): ("spec", "template"),
    ("apps/v1", "DaemonSet"): ("spec", "template"),
    ("batch/v1", "Job"): ("spec", "template"),
    ("batch/v1", "CronJob"): ("spec", "jobTemplate", "spec", "template"),
}
"""Where the pod template of each built-in kind that makes pods sits (``()``: the Pod itself)."""

_NO_EQUIVALENT = {
    "minResources": "kube-scheduler's gang waits for pods, not for an amount of resources",
    "queue": "queueing and quota are Kueue's: a LocalQueue and the kueue.x-k8s.io/queue-name label",
    "scheduleTimeoutSeconds": "a native gang waits until its pods fit; kube-scheduler has no gang timeout",
    "minTaskMember": "per-task minimums need one PodGroup per task (a CompositePodGroup over them)",
    "networkTopology": "a native topology constraint names a node label key (schedulingConstraints.topology), "
    "not HyperNode tiers",
    "subGroupPolicy": "subgroups are native CompositePodGroups over PodGroups, made by the workload's controller",
}


@dataclass
class GangMigration:
    """The native objects a foreign gang becomes, and what happened on the way.

    Attributes:
        objects: the new Workload and PodGroup (and, for Kueue pod groups,
            the Pods rewritten to join it), ready for ``kubectl apply``.
        rewrites: each field carried over, at its path in the old object.
        dropped: each field with no native equivalent, left out, at its path.
    """

    objects: list[dict[str, Any]] = field(default_factory=list)
    rewrites: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _group_of(obj: Mapping[str, Any]) -> str:
    return str(obj.get("apiVersion") or "").partition("/")[0]


def is_foreign_pod_group(obj: Any) -> bool:
    """Whether ``obj`` is a Volcano or coscheduling PodGroup.

    Examples:
        >>> is_foreign_pod_group({"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup"})
        True
    """
    return (
        isinstance(obj, Mapping)
        and obj.get("kind") == "PodGroup"
        and _group_of(obj)
        in (
            VOLCANO_GROUP,
            COSCHEDULING_GROUP,
        )
    )


def is_kueue_pod(obj: Any) -> bool:
    """Whether ``obj`` is a ``v1`` Pod of a Kueue pod group (it has the ``pod-group-name`` label)."""
    if not isinstance(obj, Mapping) or (obj.get("apiVersion"), obj.get("kind")) != ("v1", "Pod"):
        return False
    labels = (obj.get("metadata") or {}).get("labels") if isinstance(obj.get("metadata"), Mapping) else None
    return isinstance(labels, Mapping) and isinstance(labels.get(KUEUE_POD_GROUP_NAME), str)


def _native(name: str, namespace: str | None, gang: Mapping[str, Any], priority: Any) -> list[dict[str, Any]]:
    """A Workload with one template, and its PodGroup, both called ``name``."""
    metadata: dict[str, Any] = {"name": name, **({"namespace": namespace} if namespace else {})}
    template: dict[str, Any] = {"name": name, "schedulingPolicy": copy.deepcopy(dict(gang))}
    spec: dict[str, Any] = {"schedulingPolicy": copy.deepcopy(dict(gang))}
    if isinstance(priority, str) and priority:
        template["priorityClassName"] = priority
        spec["priorityClassName"] = priority
    workload = {
        "apiVersion": kinds.PREFERRED_VERSION[kinds.WORKLOAD],
        "kind": kinds.WORKLOAD,
        "metadata": copy.deepcopy(metadata),
        "spec": {"podGroupTemplates": [template]},
    }
    pod_group = {
        "apiVersion": kinds.PREFERRED_VERSION[kinds.POD_GROUP],
        "kind": kinds.POD_GROUP,
        "metadata": copy.deepcopy(metadata),
        "spec": {"workloadRef": {"workloadName": name, "templateName": name}, **spec},
    }
    return [workload, pod_group]


_DIGITS = re.compile(r"[0-9]+")


def _checked_name(name: str, path: str, what: str) -> str:
    """``name`` when the native objects may carry it (a DNS subdomain).

    Raises:
        InvalidArgumentError: an empty name, or one the apiserver refuses, at ``path``.
    """
    if not name:
        raise InvalidArgumentError(f"{path}: Required value: {what}")
    problems = is_dns1123_subdomain(name)
    if problems:
        raise InvalidArgumentError(f"{path}: Invalid value: {render_bad_value(name)}: {problems[0]}")
    return name


def _int32(count: Any, path: str) -> Any:
    """``count`` unless it is an integer beyond ``int32``, which no native count field holds.

    Raises:
        InvalidArgumentError: the count is larger than 2147483647, at ``path``.
    """
    if isinstance(count, int) and not isinstance(count, bool) and count > INT32_MAX:
        raise InvalidArgumentError(
            f"{path}: Invalid value: {render_bad_value(count)}: must be less than or equal to {INT32_MAX}"
        )
    return count


def _gang(count: Any) -> dict[str, Any]:
    """A gang of ``count`` pods; a minimum of 0 or 1 (no gang at all) is Basic."""
    if isinstance(count, int) and not isinstance(count, bool) and count > 1:
        return {"gang": {"minCount": count}}
    return {"basic": {}}


def migrate_pod_group(obj: Mapping[str, Any]) -> GangMigration:
    """A Volcano or coscheduling PodGroup as a native Workload and PodGroup of the same name.

    ``spec.minMember`` becomes the gang's ``minCount`` (a minimum of 1 or
    less, no gang at all, is Basic); Volcano's ``spec.priorityClassName``
    the groups' priority class. The rest has no native equivalent and is
    reported as dropped, each at its path; ``status`` is the old
    scheduler's and is left out.

    Raises:
        TypeError: ``obj`` is not a Volcano or coscheduling PodGroup.
        InvalidArgumentError: what the apiserver would refuse in the result:
            no name (or one that is not a DNS subdomain), or a ``minMember``
            beyond ``int32``.

    Examples:
        >>> result = migrate_pod_group({"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup",
        ...     "metadata": {"name": "nginx"}, "spec": {"minMember": 3, "scheduleTimeoutSeconds": 10}})
        >>> [obj["kind"] for obj in result.objects], result.objects[1]["spec"]["schedulingPolicy"]
        (['Workload', 'PodGroup'], {'gang': {'minCount': 3}})
        >>> print(*(note[:59] for note in result.dropped), sep="\\n")
        spec.scheduleTimeoutSeconds: no native equivalent: a native
    """
    if not is_foreign_pod_group(obj):
        raise TypeError("migrate_pod_group reads a Volcano or coscheduling PodGroup")
    check_nesting(obj, "the PodGroup to migrate")
    result = GangMigration()
    metadata = _mapping(obj.get("metadata"))
    raw_name = metadata.get("name") or metadata.get("generateName") or ""
    name = _checked_name(
        raw_name if isinstance(raw_name, str) else "",
        "metadata.name",
        "the native Workload and PodGroup are named as the PodGroup",
    )
    spec = _mapping(obj.get("spec"))
    path = FieldPath("spec")
    gang = _gang(_int32(spec.get("minMember"), "spec.minMember"))
    where = f"the native Workload and PodGroup {go_quote(name)}"
    if "minMember" in spec:
        detail = f"gang.minCount {spec['minMember']}" if "gang" in gang else "Basic (no gang below 2 pods)"
        result.rewrites.append(f"{path.child('minMember')}: now {detail} of {where}")
    priority = spec.get("priorityClassName")
    if priority is not None:
        result.rewrites.append(f"{path.child('priorityClassName')}: now the priorityClassName of {where}")
    for key in spec:
        if key in ("minMember", "priorityClassName"):
            continue
        reason = _NO_EQUIVALENT.get(key, "the native PodGroup has no such field")
        result.dropped.append(f"{path.child(key)}: no native equivalent: {reason}")
    result.objects = _native(name, metadata.get("namespace"), gang, priority)
    result.rewrites.append(
        f"pods join it by spec.schedulingGroup.podGroupName: {go_quote(name)} (the "
        + (
            "scheduling.k8s.io/group-name annotation"
            if _group_of(obj) == VOLCANO_GROUP
            else "scheduling.x-k8s.io/pod-group label"
        )
        + " no longer does)"
    )
    return result


@dataclass(frozen=True)
class GroupMember:
    """An object of the input whose pods a Volcano or coscheduling PodGroup gathers by label (or annotation).

    Attributes:
        index: the object's position in the objects given.
        object: the object with its pod template rewritten to set
            ``spec.schedulingGroup.podGroupName`` (a copy), or the object as
            given when it was not rewritten.
        rewritten: whether the pod template was rewritten.
        left: whether the pods still need a change migrate did not make (a
            kind whose templates it does not rewrite, or a template that
            names another group).
        note: what was done, or why it was not, at the path it is about.
    """

    index: int
    object: Mapping[str, Any]
    rewritten: bool
    left: bool
    note: str


def member_keys(pod_group: Mapping[str, Any]) -> tuple[str, tuple[str, ...]]:
    """Where a pod names a foreign PodGroup: ``labels`` or ``annotations``, and the keys (the current one first).

    Examples:
        >>> member_keys({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup"})
        ('annotations', ('scheduling.k8s.io/group-name',))
    """
    if _group_of(pod_group) == VOLCANO_GROUP:
        return "annotations", (VOLCANO_GROUP_ANNOTATION,)
    return "labels", COSCHEDULING_LABELS


def _names_group(metadata: Any, where: str, keys: Sequence[str], name: str) -> str | None:
    """The key of ``metadata.<where>`` that puts the pods in PodGroup ``name``, if one does."""
    values = _mapping(_mapping(metadata).get(where))
    return next((key for key in keys if values.get(key) == name), None)


def _same_namespace(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Whether two objects may be in one namespace (an object without one takes the namespace it is applied to)."""
    first, second = _mapping(a.get("metadata")).get("namespace"), _mapping(b.get("metadata")).get("namespace")
    return not first or not second or first == second


def _labelled_at(obj: Mapping[str, Any], where: str, keys: Sequence[str], name: str) -> str | None:
    """The path of the first ``metadata`` in ``obj`` that names PodGroup ``name`` (in a custom resource's templates)."""
    stack: list[tuple[FieldPath | None, Any]] = [(None, obj)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, Mapping):
            if path is not None and len(path.elements()) > 1 and path.elements()[-1:] == ("metadata",):
                key = _names_group(node, where, keys, name)
                if key is not None:
                    return f"{path.child(where)}[{key}]"
            children = [(FieldPath(str(k)) if path is None else path.child(str(k)), v) for k, v in node.items()]
            stack.extend(reversed(children))
        elif isinstance(node, list) and path is not None:
            stack.extend(reversed([(path.index(i), v) for i, v in enumerate(node)]))
    return None


def pod_group_members(pod_group: Mapping[str, Any], objects: Sequence[Any]) -> list[GroupMember]:
    """The objects whose pods a Volcano or coscheduling PodGroup gathers, each rewritten to join its native PodGroup.

    The coscheduling plugin puts in a PodGroup the pods labelled
    ``scheduling.x-k8s.io/pod-group: <name>`` (or the older
    ``pod-group.scheduling.sigs.k8s.io``), Volcano the pods annotated
    ``scheduling.k8s.io/group-name: <name>``; a native PodGroup takes the pods
    that set ``spec.schedulingGroup.podGroupName``. For every object of
    ``objects`` (in the PodGroup's namespace) whose pod template names the
    group, the template is rewritten to set it: a Pod, and the pod templates
    of Deployments, ReplicaSets, StatefulSets, DaemonSets,
    ReplicationControllers, Jobs and CronJobs. The label (or annotation) is
    kept: a selector may match it. Another kind that names the group
    somewhere in it (a JobSet's pod templates, say), or a template that
    already names another group, is returned as it is, with a note saying
    what to set.

    Raises:
        TypeError: ``pod_group`` is not a Volcano or coscheduling PodGroup.

    Examples:
        >>> group = {"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup", "metadata": {"name": "nginx"}}
        >>> rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "web"}, "spec": {"template": {
        ...     "metadata": {"labels": {"scheduling.x-k8s.io/pod-group": "nginx"}}, "spec": {"containers": []}}}}
        >>> [member] = pod_group_members(group, [group, rs])
        >>> member.object["spec"]["template"]["spec"]["schedulingGroup"], member.note[:52]
        ({'podGroupName': 'nginx'}, 'spec.template.spec.schedulingGroup.podGroupName: now')
    """
    if not is_foreign_pod_group(pod_group):
        raise TypeError("pod_group_members reads a Volcano or coscheduling PodGroup")
    raw = _mapping(pod_group.get("metadata")).get("name")
    name = raw if isinstance(raw, str) else ""
    where, keys = member_keys(pod_group)
    members = []
    for index, obj in enumerate(objects):
        if not isinstance(obj, Mapping) or obj is pod_group or not name or not _same_namespace(obj, pod_group):
            continue
        if is_foreign_pod_group(obj) or _group_of(obj) == kinds.GROUP or is_kueue_pod(obj):
            continue
        at = _POD_TEMPLATES.get((str(obj.get("apiVersion") or ""), str(obj.get("kind") or "")))
        member = _rewritten(index, obj, at, where, keys, name) if at is not None else None
        if member is None and at is None:
            labelled = _labelled_at(obj, where, keys, name)
            if labelled is not None:
                note = (
                    f"{labelled}: {go_quote(name)}: these pods are in PodGroup {go_quote(name)}: set "
                    f"spec.schedulingGroup.podGroupName: {go_quote(name)} in their pod template (migrate rewrites "
                    "the pod templates of built-in kinds only)"
                )
                member = GroupMember(index, obj, False, True, note)
        if member is not None:
            members.append(member)
    return members


def _rewritten(
    index: int, obj: Mapping[str, Any], at: tuple[str, ...], where: str, keys: Sequence[str], name: str
) -> GroupMember | None:
    """The member with its pod template (at ``at``) set to join PodGroup ``name``; ``None`` if the pods are not its."""
    template: Any = obj
    for step in at:
        template = _mapping(template).get(step)
    key = _names_group(_mapping(template).get("metadata"), where, keys, name)
    if key is None:
        return None
    target = FieldPath(*at, "spec", "schedulingGroup", "podGroupName")
    spec = _mapping(template).get("spec")
    current = _mapping(_mapping(spec).get("schedulingGroup")).get("podGroupName")
    if current == name:
        return GroupMember(index, obj, False, False, f"{target}: already {go_quote(name)}")
    if current is not None or (spec is not None and not isinstance(spec, Mapping)):
        shown = render_bad_value(current) if current is not None else "a spec that is not an object"
        note = (
            f"{target}: {shown}, but its pods carry PodGroup {go_quote(name)}'s {where[:-1]} {key}: left as it is; "
            f"set it to {go_quote(name)} for the pods to join the native PodGroup"
        )
        return GroupMember(index, obj, False, True, note)
    rewritten = copy.deepcopy(dict(obj))
    node: Any = rewritten
    for step in (*at, "spec"):
        node = node.setdefault(step, {})
    node["schedulingGroup"] = {"podGroupName": name}
    note = (
        f"{target}: now {go_quote(name)}: its pods join the native PodGroup {go_quote(name)} (the {key} "
        f"{where[:-1]} no longer gangs them; it is kept for selectors)"
    )
    scheduler = node.get("schedulerName")
    if scheduler is not None and scheduler != DEFAULT_SCHEDULER:
        # The native PodGroup is read by kube-scheduler's gang plugins: another scheduler would ignore it.
        del node["schedulerName"]
        note += (
            f"; {FieldPath(*at, 'spec', 'schedulerName')}: {render_bad_value(scheduler)} removed: the pods go to "
            f"{DEFAULT_SCHEDULER}, whose gang scheduling reads the native PodGroup"
            " (the other scheduler would ignore it)"
        )
    return GroupMember(index, rewritten, True, False, note)


DEFAULT_SCHEDULER = "default-scheduler"
"""kube-scheduler's profile name: the scheduler of a pod that names none, and the one that reads native PodGroups."""


def migrate_kueue_pods(pods: Sequence[Mapping[str, Any]]) -> GangMigration:
    """Kueue pod groups (plain Pods with the pod-group labels) as native Workloads and PodGroups, and their Pods.

    Each ``kueue.x-k8s.io/pod-group-name`` becomes a Workload and a PodGroup
    of that name, a gang of ``kueue.x-k8s.io/pod-group-total-count`` pods
    (read from the annotation Kueue documents, or a label); each Pod gets
    ``spec.schedulingGroup.podGroupName``. The Kueue labels stay: Kueue
    still admits the Pods. A group whose Pods disagree on the count, or give
    none, is reported and sized by the number of its Pods in the input.

    Raises:
        InvalidArgumentError: what the apiserver would refuse, naming the Pod:
            a group name that is empty or not a DNS subdomain, or a total count
            that is not plain ASCII digits or is beyond ``int32``.
    """
    if isinstance(pods, Mapping | str | bytes) or not isinstance(pods, Sequence):
        raise TypeError(f"migrate_kueue_pods reads a sequence of Pods, not {type(pods).__name__}")
    result = GangMigration()
    groups: dict[tuple[str, str], list[tuple[int, dict[str, Any]]]] = {}
    for i, pod in enumerate(pods):
        if not is_kueue_pod(pod):
            raise TypeError(f"migrate_kueue_pods: pods[{i}] is not a Pod of a Kueue pod group")
        check_nesting(pod, f"pods[{i}]")
        metadata = _mapping(pod.get("metadata"))
        label = str((metadata.get("labels") or {})[KUEUE_POD_GROUP_NAME])
        try:
            check_kueue_pod(pod)
        except InvalidArgumentError as problem:
            name = capped(str(metadata.get("name") or metadata.get("generateName") or ""))
            raise InvalidArgumentError(f"pods[{i}] (Pod {go_quote(name)}): {problem}") from None
        key = (str(metadata.get("namespace") or ""), label)
        groups.setdefault(key, []).append((i, copy.deepcopy(dict(pod))))
    for (namespace, name), members in groups.items():
        counts = {_total_count(pod) for _, pod in members}
        counts.discard(None)
        if len(counts) == 1:
            count = counts.pop()
            result.rewrites.append(
                f"pod group {go_quote(name)}: {KUEUE_POD_GROUP_TOTAL_COUNT} {count} is now gang.minCount"
            )
        else:
            count = len(members)
            why = "disagree on" if counts else "do not give"
            result.dropped.append(
                f"pod group {go_quote(name)}: its Pods {why} {KUEUE_POD_GROUP_TOTAL_COUNT}: sized by its {count} Pods "
                "in the input"
            )
        result.objects.extend(_native(name, namespace or None, _gang(count), None))
        for _, pod in members:
            spec = pod.setdefault("spec", {})
            if isinstance(spec, dict):
                spec["schedulingGroup"] = {"podGroupName": name}
            result.objects.append(pod)
        result.rewrites.append(
            f"pod group {go_quote(name)}: its {len(members)} Pods now set spec.schedulingGroup.podGroupName"
        )
    return result


def check_kueue_pod(pod: Mapping[str, Any]) -> None:
    """Refuse a Kueue pod group's Pod whose group the native objects cannot carry, as ``migrate_kueue_pods`` would.

    Raises:
        InvalidArgumentError: a ``pod-group-name`` that is empty or not a DNS
            subdomain, or a ``pod-group-total-count`` that is not plain ASCII
            digits or is beyond ``int32``; at its path in the Pod.
    """
    labels = _mapping(_mapping(pod.get("metadata")).get("labels"))
    label = labels.get(KUEUE_POD_GROUP_NAME)
    path = f"metadata.labels[{KUEUE_POD_GROUP_NAME}]"
    _checked_name(label if isinstance(label, str) else "", path, "the native PodGroup's name")
    _total_count(pod)


def _total_count(pod: Mapping[str, Any]) -> int | None:
    """The Pod's total count (annotation first, then label), ``None`` when it gives none.

    Raises:
        InvalidArgumentError: a count that is not plain ASCII digits (``²``, ``-1``, ``3.0``), or one beyond ``int32``.
    """
    metadata = _mapping(pod.get("metadata"))
    for where in ("annotations", "labels"):
        values = metadata.get(where)
        raw = values.get(KUEUE_POD_GROUP_TOTAL_COUNT) if isinstance(values, Mapping) else None
        if raw is None:
            continue
        path = f"metadata.{where}[{KUEUE_POD_GROUP_TOTAL_COUNT}]"
        if not isinstance(raw, str) or not _DIGITS.fullmatch(raw) or len(raw) > 20:
            raise InvalidArgumentError(f"{path}: Invalid value: {render_bad_value(raw)}: must be a number of pods")
        return int(_int32(int(raw), path))
    return None
