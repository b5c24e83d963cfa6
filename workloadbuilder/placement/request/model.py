"""What to place: the runtime group hierarchy, each PodGroup's pods and per-pod requests, and claim sizes.

A ``PlacementRequest`` is read from the compiled runtime objects a
controller creates (``V1alpha3CompositePodGroup`` and ``V1beta1PodGroup``, as
client models or Kubernetes JSON dicts), never from the ``WorkloadItem``
tree. What those objects do not say is given alongside: per PodGroup, how
many pods exist and what each requests (directly, or as a pod template), and
per group resource claim, how many devices of which class it needs.

``PlacementRequest.from_groups(groups, pods, claims)`` reads objects and
counts; ``workloadbuilder.adapters.documents.request_from_plan(plan)`` reads an
adapter's plan (its runtime hierarchy and pod assignments) in one call.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from workloadbuilder._internal.arguments import check_fields
from workloadbuilder.field import (
    ErrorList,
    FieldPath,
    invalid,
    not_found,
    not_supported,
    required,
    too_many,
    type_invalid,
)
from workloadbuilder.manifests import to_dict
from workloadbuilder.placement.k8s.constraints import NO_CONSTRAINTS, HostPort, PodConstraints, read_constraints
from workloadbuilder.placement.k8s.priorities import PREEMPT_LOWER_PRIORITY, PREEMPT_NEVER, PrioritySpec
from workloadbuilder.placement.k8s.resources import pod_requests_and_score, read_resource_list
from workloadbuilder.placement.request.unmodelled import unmodelled

__all__ = ["ClaimRef", "DeviceRequest", "GroupRequest", "PlacementRequest", "PodSet", "Pods"]

_PREEMPTION_POLICIES = (PREEMPT_LOWER_PRIORITY, PREEMPT_NEVER)

MAX_DEPTH = 4
"""kube-scheduler leaves deeper runtime hierarchies unscheduled (``WorkloadMaxTreeDepth``)."""


@dataclass(frozen=True)
class DeviceRequest:
    """What one group resource claim needs: ``count`` devices of ``device_class``."""

    device_class: str
    count: int = 1

    def __post_init__(self) -> None:
        check_fields(self)


@dataclass(frozen=True)
class Pods:
    """A PodGroup's pods: how many exist and what each requests.

    Give ``requests`` (``{"cpu": "8", "nvidia.com/gpu": "1"}``) or
    ``template`` (a pod template or pod spec, as a dict or client model, whose
    containers' requests are added up as the scheduler does). ``names``
    default to ``<group>-0``, ``<group>-1``, ...
    """

    count: int
    requests: Mapping[str, Any] | None = None
    template: Any = None
    names: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        check_fields(self)


@dataclass(frozen=True)
class PodSet:
    """Pods of one PodGroup that share one shape: how many, what each requests, which nodes may take them.

    A PodGroup has one set per pod template feeding it (an LWS leader and
    its workers are two), in pod creation order.
    """

    count: int
    requests: Mapping[str, int]
    constraints: PodConstraints = NO_CONSTRAINTS
    names: tuple[str, ...] = ()
    priority: PrioritySpec | None = None
    """The template's ``priorityClassName``/``priority``, when the pods come from a template."""
    score_requests: tuple[int, int] | None = None
    """The CPU and memory ``NodeResourcesFit`` scores a pod by (``pod_score_requests``: per-container defaults
    for what a container leaves unset), when the pods come from a template; ``None``: ``requests`` with the
    defaults for the pod as a whole."""

    def __post_init__(self) -> None:
        check_fields(self)


@dataclass(frozen=True)
class ClaimRef:
    """One group resource claim: its name in the group, who shares it, and what it needs.

    ``identity`` is shared by every group naming the same ``resourceClaimName``
    and private to the group for a ``resourceClaimTemplateName`` (each group
    gets its own claim from the template).
    """

    name: str
    identity: tuple[str, ...]
    source: str
    device: DeviceRequest

    def __post_init__(self) -> None:
        check_fields(self)


@dataclass
class GroupRequest:
    """One runtime group to place, with its place in the hierarchy.

    Attributes:
        kind: ``"PodGroup"`` or ``"CompositePodGroup"``.
        gang: whether the policy is gang (``False``: basic).
        minimum: pods (``minCount``) or child groups (``minGroupCount``) that
            must be placed together; 1 for a basic policy.
        count: pods of a PodGroup that exist; 0 for a CompositePodGroup.
        requests: the first pod set's requests in millis (PodGroups only).
        pod_names: the pods' names, ``count`` of them, set by set.
        pod_sets: the pods by shape, in creation order (PodGroups only).
        children: child groups in creation order.
        priority_spec: what the object says of its priority (``priorityClassName``,
            ``priority``, ``preemptionPolicy``); ``pod_priority`` what its pod
            template says. ``place`` resolves them into ``priority`` and, on
            roots, ``preemption_policy`` (see ``framework.queue.resolve_request``).
    """

    name: str
    kind: str
    template: str | None
    parent: str | None
    gang: bool
    minimum: int
    topology_key: str | None
    priority: int
    disruption_mode: str
    count: int = 0
    requests: dict[str, int] = field(default_factory=dict)
    pod_names: tuple[str, ...] = ()
    claims: tuple[ClaimRef, ...] = ()
    children: list[GroupRequest] = field(default_factory=list)
    order: tuple[str, int] = ("", 0)
    priority_spec: PrioritySpec = field(default_factory=PrioritySpec)
    pod_priority: PrioritySpec | None = None
    preemption_policy: str = PREEMPT_LOWER_PRIORITY
    pod_sets: tuple[PodSet, ...] = ()

    @property
    def needed(self) -> int:
        """What ``PlacementFeasible`` needs: ``minCount`` / ``minGroupCount`` for a gang, 1 for a basic policy."""
        return self.minimum if self.gang else 1

    @property
    def mixed(self) -> bool:
        """Whether the PodGroup's pods come in more than one shape."""
        return len(self.pod_sets) > 1

    @property
    def simulated_only(self) -> bool:
        """Whether where its pods fit depends on their order (several shapes, or spread constraints)."""
        return self.mixed or any(pod_set.constraints.spread for pod_set in self.pod_sets)

    def set_of(self, k: int) -> PodSet:
        """The pod set of the group's ``k``-th pod."""
        for pod_set in self.pod_sets:
            if k < pod_set.count:
                return pod_set
            k -= pod_set.count
        raise IndexError(k)

    @property
    def is_leaf(self) -> bool:
        """PodGroups own pods; CompositePodGroups own groups."""
        return self.kind == "PodGroup"

    def walk(self) -> Iterable[GroupRequest]:
        """This group and every group below it, parents first, children in creation order."""
        yield self
        for child in self.children:
            yield from child.walk()

    def __post_init__(self) -> None:
        check_fields(self)


@dataclass
class PlacementRequest:
    """The groups to place: one or more root hierarchies, each a separate scheduling cycle, in creation order."""

    roots: list[GroupRequest]
    warnings: list[str] = field(default_factory=list)
    """What the request asks that the model does not check (named where it was found)."""

    @property
    def groups(self) -> list[GroupRequest]:
        """Every group, root by root, parents before children."""
        return [group for root in self.roots for group in root.walk()]

    def host_ports(self) -> list[HostPort]:
        """Every host port a pod to place binds."""
        return [port for group in self.groups for pod_set in group.pod_sets for port in pod_set.constraints.host_ports]

    def pod_constraints(self) -> list[PodConstraints]:
        """The filter inputs of every pod set, group by group (``place`` makes room for their one-slot rules)."""
        return [pod_set.constraints for group in self.groups for pod_set in group.pod_sets]

    def group(self, name: str) -> GroupRequest:
        """The group of that name."""
        for group in self.groups:
            if group.name == name:
                return group
        raise KeyError(name)

    @classmethod
    def from_groups(
        cls,
        groups: Iterable[BaseModel | Mapping[str, Any]],
        pods: Mapping[
            str, Pods | Mapping[str, Any] | tuple[int, Mapping[str, Any]] | Sequence[Pods | Mapping[str, Any]]
        ],
        claims: Mapping[str, DeviceRequest | Mapping[str, Any]] | None = None,
    ) -> PlacementRequest:
        """A request from runtime groups, each PodGroup's pods, and the size of each claim.

        Args:
            groups: runtime ``CompositePodGroup`` and ``PodGroup`` objects
                (client models or Kubernetes JSON dicts with ``kind``), linked
                by ``spec.parentCompositePodGroupName``.
            pods: per PodGroup name, ``Pods(count, requests=...)`` (or
                ``template=`` a pod template, whose tolerations, selectors,
                affinity and host ports the filters read), a dict with the
                same keys, a ``(count, requests)`` pair, or a list of these
                when the group's pods come in several shapes.
            claims: per ``resourceClaimName`` or ``resourceClaimTemplateName``
                a group claim refers to, ``DeviceRequest(device_class, count)``
                or ``{"deviceClass": ..., "count": ...}``.

        Raises:
            AggregateError: every problem at its path: ``groups[i].spec...`` for
                the objects, ``pods[name]...`` and ``claims[name]`` for the rest.

        Examples:
            >>> pg = {"kind": "PodGroup", "metadata": {"name": "workers"},
            ...       "spec": {"schedulingPolicy": {"gang": {"minCount": 4}}}}
            >>> request = PlacementRequest.from_groups([pg], {"workers": (4, {"cpu": "2"})})
            >>> [(g.name, g.minimum, g.count, g.requests["cpu"]) for g in request.groups]
            [('workers', 4, 4, 2000)]
        """
        return _GroupTreeReader(claims or {}).read(groups, pods)

    def __post_init__(self) -> None:
        check_fields(self)


def _priority_spec(spec: Mapping[str, Any], path: FieldPath, errors: ErrorList) -> PrioritySpec:
    """``priorityClassName``, ``priority`` and ``preemptionPolicy`` of a group or pod spec, as written."""
    name = spec.get("priorityClassName") or None
    if name is not None and not isinstance(name, str):
        errors.append(type_invalid(path.child("priorityClassName"), name, "must be of type string"))
        name = None
    priority = spec.get("priority")
    if priority is not None and (isinstance(priority, bool) or not isinstance(priority, int)):
        priority = None  # reported where the priority itself is read
    policy = spec.get("preemptionPolicy") or None
    if policy is not None and policy not in _PREEMPTION_POLICIES:
        errors.append(not_supported(path.child("preemptionPolicy"), policy, _PREEMPTION_POLICIES))
        policy = None
    return PrioritySpec(name, priority, policy)


class _GroupTreeReader:
    """Turns runtime objects into ``GroupRequest`` trees, collecting every problem."""

    def __init__(self, claims: Mapping[str, Any]) -> None:
        self.errors = ErrorList()
        self.warnings: list[str] = []
        self.namespaces: dict[str, str] = {}
        self.claims = self._read_claims(claims)

    def read(self, groups: Iterable[Any], pods: Mapping[str, Any]) -> PlacementRequest:
        nodes: list[GroupRequest] = []
        paths: dict[str, FieldPath] = {}
        for i, obj in enumerate(groups):
            path = FieldPath("groups").index(i)
            group = self._group(obj, path, i)
            if group is None:
                continue
            if group.name in paths:
                self.errors.append(invalid(path.child("metadata", "name"), group.name, "duplicate group name"))
                continue
            paths[group.name] = path
            nodes.append(group)
        by_name = {group.name: group for group in nodes}
        for name in pods:
            if name not in by_name or not by_name[name].is_leaf:
                self.errors.append(not_found(FieldPath("pods").key(name), name))
        for group in nodes:
            if group.is_leaf:
                self._pods(group, pods.get(group.name), FieldPath("pods").key(group.name))
        roots = self._link(nodes, by_name, paths)
        self.errors.raise_if_any()
        return PlacementRequest(roots, self.warnings)

    # -- one object ----------------------------------------------------------------

    def _group(self, obj: Any, path: FieldPath, position: int) -> GroupRequest | None:
        data = to_dict(obj) if isinstance(obj, BaseModel) else obj
        if not isinstance(data, Mapping):
            self.errors.append(type_invalid(path, data, "must be a PodGroup or CompositePodGroup"))
            return None
        kind = data.get("kind")
        if kind not in ("PodGroup", "CompositePodGroup"):
            self.errors.append(invalid(path.child("kind"), kind, "must be PodGroup or CompositePodGroup"))
            return None
        metadata = self._mapping(data.get("metadata"), path.child("metadata"))
        namespace = metadata.get("namespace")
        name = metadata.get("name")
        if not name:
            self.errors.append(required(path.child("metadata", "name")))
            return None
        if not isinstance(name, str):
            self.errors.append(type_invalid(path.child("metadata", "name"), name, "must be of type string"))
            return None
        spec_path = path.child("spec")
        spec = self._mapping(data.get("spec"), spec_path)
        gang, minimum = self._policy(kind, spec.get("schedulingPolicy"), spec_path.child("schedulingPolicy"))
        priority = spec.get("priority") or 0
        if isinstance(priority, bool) or not isinstance(priority, int):
            self.errors.append(type_invalid(spec_path.child("priority"), priority, "must be of type integer"))
            priority = 0
        disruption = self._mapping(spec.get("disruptionMode"), spec_path.child("disruptionMode"))
        group = GroupRequest(
            name=name,
            kind=kind,
            template=self._mapping(spec.get("workloadRef"), spec_path.child("workloadRef")).get("templateName"),
            parent=spec.get("parentCompositePodGroupName") or None,
            gang=gang,
            minimum=minimum,
            topology_key=self._topology(spec.get("schedulingConstraints"), spec_path.child("schedulingConstraints")),
            priority=priority,
            disruption_mode="all" if disruption.get("all") is not None else "single",
            order=(str(metadata.get("creationTimestamp") or ""), position),
            priority_spec=_priority_spec(spec, spec_path, self.errors),
        )
        if isinstance(namespace, str) and namespace:
            self.namespaces[name] = namespace
        if kind == "PodGroup":
            group.claims = self._group_claims(name, spec.get("resourceClaims") or [], spec_path.child("resourceClaims"))
        return group

    def _mapping(self, value: Any, path: FieldPath) -> Mapping[str, Any]:
        """``value`` when it is an object, else ``{}``: absent reads as empty, any other type is an error at ``path``.

        The reader keeps going past a malformed section so that one pass
        reports every problem, rather than stopping at the first ``.get``.
        """
        if value is None or isinstance(value, Mapping):
            return value or {}
        self.errors.append(type_invalid(path, value, "must be of type object"))
        return {}

    def _policy(self, kind: str, policy: Any, path: FieldPath) -> tuple[bool, int]:
        """(gang, minimum); a missing composite ``minGroupCount`` (``-1``) means every child."""
        if not isinstance(policy, Mapping) or policy.get("gang") is None:
            return False, 1
        field_name = "minCount" if kind == "PodGroup" else "minGroupCount"
        value = policy["gang"].get(field_name) if isinstance(policy["gang"], Mapping) else None
        if value is None:
            if kind == "PodGroup":
                self.errors.append(required(path.child("gang", field_name)))
            return True, -1
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            self.errors.append(invalid(path.child("gang", field_name), value, "must be greater than or equal to 1"))
            return True, 1
        return True, value

    def _topology(self, constraints: Any, path: FieldPath) -> str | None:
        topology = constraints.get("topology") if isinstance(constraints, Mapping) else None
        if not topology:
            return None
        if not isinstance(topology, list):
            self.errors.append(type_invalid(path.child("topology"), topology, "must be of type array"))
            return None
        if len(topology) > 1:
            self.errors.append(too_many(path.child("topology"), len(topology), 1))
        key = topology[0].get("key") if isinstance(topology[0], Mapping) else None
        if not key:
            self.errors.append(required(path.child("topology").index(0).child("key")))
            return None
        return str(key)

    def _group_claims(self, group: str, entries: Any, path: FieldPath) -> tuple[ClaimRef, ...]:
        out = []
        for j, entry in enumerate(entries):
            entry_path = path.index(j)
            if not isinstance(entry, Mapping) or not entry.get("name"):
                self.errors.append(required(entry_path.child("name")))
                continue
            shared, template = entry.get("resourceClaimName"), entry.get("resourceClaimTemplateName")
            source = shared or template
            if not source:
                self.errors.append(
                    required(entry_path, "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`")
                )
                continue
            device = self.claims.get(source)
            if device is None:
                self.errors.append(not_found(FieldPath("claims").key(source), source))
                continue
            identity = ("claim", shared) if shared else ("template", group, entry["name"])
            out.append(ClaimRef(entry["name"], identity, source, device))
        return tuple(out)

    def _read_claims(self, claims: Mapping[str, Any]) -> dict[str, DeviceRequest]:
        out: dict[str, DeviceRequest] = {}
        for name, spec in claims.items():
            path = FieldPath("claims").key(name)
            if isinstance(spec, DeviceRequest):
                out[name] = spec
            elif isinstance(spec, Mapping) and isinstance(spec.get("deviceClass"), str):
                count = spec.get("count", 1)
                if isinstance(count, bool) or not isinstance(count, int) or count < 1:
                    self.errors.append(invalid(path.child("count"), count, "must be greater than or equal to 1"))
                    continue
                out[name] = DeviceRequest(spec["deviceClass"], count)
            else:
                self.errors.append(required(path.child("deviceClass")))
        return out

    def _pods(self, group: GroupRequest, spec: Any, path: FieldPath) -> None:
        if spec is None:
            self.errors.append(required(path, f"how many pods PodGroup {group.name!r} has and what each requests"))
            return
        entries = list(spec) if isinstance(spec, list) else [spec]
        sets: list[PodSet] = []
        for j, entry in enumerate(entries):
            entry_path = path.index(j) if isinstance(spec, list) else path
            pod_set = self._pod_set(entry, entry_path, self.namespaces.get(group.name, "default"))
            if pod_set is not None:
                self.warnings += [f"PodGroup {group.name}: {w}" for w in unmodelled(pod_set, self._spec_of(entry))]
            if pod_set is None:
                return
            sets.append(pod_set)
        count = sum(pod_set.count for pod_set in sets)
        names: list[str] = []
        for pod_set in sets:
            names += pod_set.names or [f"{group.name}-{k}" for k in range(len(names), len(names) + pod_set.count)]
        group.count = count
        group.pod_names = tuple(names)
        group.requests = dict(sets[0].requests) if sets else {}
        group.pod_sets = tuple(sets)
        group.pod_priority = sets[0].priority if sets else None

    @staticmethod
    def _spec_of(entry: Any) -> Mapping[str, Any]:
        template = (
            entry.template if isinstance(entry, Pods) else entry.get("template") if isinstance(entry, Mapping) else None
        )
        template = to_dict(template) if isinstance(template, BaseModel) else template
        spec = template.get("spec", template) if isinstance(template, Mapping) else None
        return spec if isinstance(spec, Mapping) else {}

    def _pod_set(self, spec: Any, path: FieldPath, namespace: str) -> PodSet | None:
        if isinstance(spec, tuple) and len(spec) == 2:
            spec = Pods(spec[0], requests=spec[1])
        elif isinstance(spec, Mapping):
            spec = Pods(spec.get("count", 0), spec.get("requests"), spec.get("template"), spec.get("names"))
        elif not isinstance(spec, Pods):
            self.errors.append(type_invalid(path, spec, "must be Pods, a (count, requests) pair or an object"))
            return None
        if isinstance(spec.count, bool) or not isinstance(spec.count, int) or spec.count < 0:
            self.errors.append(invalid(path.child("count"), spec.count, "must be a non-negative integer"))
            return None
        constraints = NO_CONSTRAINTS
        priority = None
        score_requests = None
        if spec.template is not None:
            template = to_dict(spec.template) if isinstance(spec.template, BaseModel) else spec.template
            pod_spec = template.get("spec", template) if isinstance(template, Mapping) else None
            if not isinstance(pod_spec, Mapping):
                self.errors.append(type_invalid(path.child("template"), template, "must be a pod template or pod spec"))
                return None
            requests, score_requests = pod_requests_and_score(pod_spec, path.child("template", "spec"), self.errors)
            priority = _priority_spec(pod_spec, path.child("template", "spec"), self.errors)
            metadata = template.get("metadata") if "spec" in template else None
            metadata = dict(metadata) if isinstance(metadata, Mapping) else {}
            metadata.setdefault("namespace", namespace)
            constraints = read_constraints(pod_spec, path.child("template", "spec"), self.errors, metadata)
        else:
            requests = read_resource_list(spec.requests, path.child("requests"), self.errors)
        names = tuple(spec.names) if spec.names is not None else ()
        if spec.names is not None and len(names) != spec.count:
            self.errors.append(invalid(path.child("names"), len(names), f"must name all {spec.count} pods"))
        return PodSet(spec.count, requests, constraints, names, priority, score_requests)

    # -- the hierarchy ---------------------------------------------------------------

    def _link(
        self, nodes: list[GroupRequest], by_name: dict[str, GroupRequest], paths: dict[str, FieldPath]
    ) -> list[GroupRequest]:
        roots = []
        linked = []
        for group in nodes:
            if group.parent is None:
                roots.append(group)
                continue
            parent = by_name.get(group.parent)
            parent_path = paths[group.name].child("spec", "parentCompositePodGroupName")
            if parent is None:
                self.errors.append(not_found(parent_path, group.parent))
            elif parent.is_leaf:
                self.errors.append(invalid(parent_path, group.parent, "must name a CompositePodGroup"))
            else:
                parent.children.append(group)
                linked.append(group)
        for group in nodes:
            group.children.sort(key=lambda child: child.order)
        reached = {member.name for root in roots for member in root.walk()}
        for group in linked:
            if group.name not in reached:
                self.errors.append(
                    invalid(
                        paths[group.name].child("spec", "parentCompositePodGroupName"),
                        group.parent,
                        "the hierarchy has a cycle",
                    )
                )
        for root in roots:
            self._check_tree(root, paths, 1)
        roots.sort(key=lambda root: root.order)
        return roots

    def _check_tree(self, group: GroupRequest, paths: dict[str, FieldPath], depth: int) -> None:
        if depth > MAX_DEPTH:
            self.errors.append(
                invalid(paths[group.name], group.name, f"the hierarchy is deeper than {MAX_DEPTH} levels")
            )
            return
        if not group.is_leaf and group.minimum == -1:
            group.minimum = len(group.children)
        for child in group.children:
            if child.priority != group.priority:
                self.errors.append(
                    invalid(
                        paths[child.name].child("spec", "priority"),
                        child.priority,
                        f"must match the priority of its parent {group.name!r} ({group.priority})",
                    )
                )
            self._check_tree(child, paths, depth + 1)
