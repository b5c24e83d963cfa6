"""Readers that turn cluster descriptions into a ``Cluster``: kubectl JSON and the compact YAML format.

Both report every problem as a ``FieldError`` at its path and raise them
together as one ``AggregateError``; a bad node never surfaces as a traceback.
Node paths start at ``nodes[i]``, pod paths at ``pods[i]``, group paths at
``groups[i]`` (kubectl) or at the YAML section (``running[i]``).
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from workloadbuilder import manifests
from workloadbuilder._internal.collector import quiet_gc
from workloadbuilder._internal.fields_read import read_field, type_error
from workloadbuilder.field import (
    AggregateError,
    ErrorList,
    FieldPath,
    duplicate,
    forbidden,
    invalid,
    not_supported,
    required,
    type_invalid,
)
from workloadbuilder.placement.cluster import kubectl_text, objects
from workloadbuilder.placement.cluster.nodes import NOT_READY_TAINTS, read_nodes
from workloadbuilder.placement.cluster.records import ClusterParts, DevicePool, RunningGroup
from workloadbuilder.placement.k8s.constraints import HostPort, read_host_ports, read_pod_affinity, read_taints
from workloadbuilder.placement.k8s.disruption import DisruptionBudget, read_budgets
from workloadbuilder.placement.k8s.priorities import (
    PriorityClasses,
    PriorityError,
    PrioritySpec,
    read_priority_classes,
    running_priority,
)
from workloadbuilder.placement.k8s.resources import pod_requests_and_score, read_resource_list

__all__ = ["CLUSTER_KINDS", "NOT_READY_TAINTS", "read_kubectl", "read_yaml"]

CLUSTER_KINDS = (
    "Node",
    "Pod",
    "PodGroup",
    "CompositePodGroup",
    "PriorityClass",
    "PodDisruptionBudget",
    "ResourceSlice",
)
"""The kinds ``--cluster`` reads from one mixed ``List`` (what ``kubectl get nodes,pods,... -A -o json`` prints)."""

_DONE_PHASES = frozenset({"Succeeded", "Failed"})
_NODE_FIELDS = frozenset({"name", "labels", "allocatable", "used", "unschedulable", "taints"})
_POOL_FIELDS = frozenset({"name", "deviceClass", "count", "allocated", "node", "domain"})
_RUNNING_FIELDS = frozenset(
    {
        "name",
        "kind",
        "priority",
        "disruptionMode",
        "parent",
        "startTime",
        "pods",
        "node",
        "requests",
        "namespace",
        "labels",
        "hostPorts",
    }
)
_RUNNING_POD_FIELDS = frozenset({"name", "node", "requests", "namespace", "labels", "hostPorts", "startTime"})
_TOP_FIELDS = frozenset({"nodes", "devicePools", "running", "priorityClasses", "podDisruptionBudgets"})
_KINDS = ("PodGroup", "CompositePodGroup", "Pod")
_MODES = ("single", "all")


# -- kubectl -------------------------------------------------------------------


def read_kubectl(
    nodes_json: Any, pods_json: Any = None, groups_json: Any = None, policies_json: Any = None
) -> ClusterParts:
    """What ``Cluster.from_kubectl`` builds from: nodes, running pods, groups, priority classes and budgets.

    The nodes' and pods' JSON text is first decoded in C into only the
    fields read here (``kubectl_text``); text that decoder refuses, and any
    dump with a malformed entry, is read again the careful way, so that the
    errors are exactly the careful reader's.

    Raises:
        AggregateError: every malformed node or pod, each at its path.
    """
    with quiet_gc():
        typed = kubectl_text.decoded(nodes_json, pods_json)
        if typed is not None:
            try:
                return _from_kubectl(*typed, groups_json, policies_json)
            except AggregateError:
                pass
        return _from_kubectl(nodes_json, pods_json, groups_json, policies_json)


def _from_kubectl(nodes_json: Any, pods_json: Any, groups_json: Any, policies_json: Any) -> ClusterParts:
    errors = ErrorList()
    parts = ClusterParts()
    items = _items(nodes_json, "nodes")
    # Read as a node dump, unless an item says otherwise (a mixed List from kubectl ends with its other kinds)
    node_errors = ErrorList()
    last_kind = items[-1].get("kind") if items and _is_object(items[-1]) else None
    nodes = read_nodes(items, "nodes", node_errors, nodes_only=True) if last_kind in (None, "Node") else None
    mixed = nodes is None
    section = "items" if mixed else "nodes"
    by_kind = _by_kind(items, section, errors) if mixed else {}
    policies = _items(policies_json, "policies")
    listed = items if mixed else []  # the readers below skip the items of other kinds, so indexes stay the List's
    classes = PriorityClasses(
        [*read_priority_classes(policies, "policies", errors), *read_priority_classes(listed, section, errors)]
    )
    if nodes is None:
        entries = by_kind.get("Node", [])
        nodes = read_nodes([item for _, item in entries], section, errors, [i for i, _ in entries])
    else:
        errors.extend(node_errors)
    assert nodes is not None, "read_nodes gives its nodes unless nodes_only finds another kind"
    names = nodes.distinct
    if len(names) != len(nodes.columns.names):  # some name is given twice: say where
        names = _check_unique(nodes.names, section, errors)
    groups: dict[str, RunningGroup] = {}
    group_items = [
        *_indexed(groups_json, "groups"),
        *by_kind.get("PodGroup", []),
        *by_kind.get("CompositePodGroup", []),
    ]
    for i, item, where in _sections(group_items, groups_json, "groups", section):
        group = _kubectl_group(item, FieldPath(where).index(i), classes, errors)
        if group is not None:
            groups[group.name] = group
    pods = []
    for i, item, where in _sections(
        [*_indexed(pods_json, "pods"), *by_kind.get("Pod", [])], pods_json, "pods", section
    ):
        pod = _kubectl_pod(item, i, classes, errors, where)
        if pod is not None and pod["node"] in names:
            pods.append(pod)
            group = pod.get("group")
            if group is not None and group not in groups:
                groups[group] = RunningGroup(group, priority=pod["priority"])
    parts.priority_classes = list(classes.values())
    parts.disruption_budgets = [*_budgets(policies, "policies", pods, errors), *_budgets(listed, section, pods, errors)]
    for i, item in by_kind.get("ResourceSlice", []):
        parts.pools += objects.device_pools(item, FieldPath(section).index(i), names, errors)
    errors.raise_if_any()
    parts.warnings = nodes.warnings
    parts.nodes, parts.pods, parts.groups = nodes.columns, pods, list(groups.values())
    return parts


def _budgets(items: list[Any], section: str, pods: list[dict[str, Any]], errors: ErrorList) -> list[DisruptionBudget]:
    """The PodDisruptionBudgets among ``items``, counted against the running pods read so far."""
    return read_budgets(items, section, pods, errors)


def _indexed(data: Any, section: str) -> list[tuple[int, Any]]:
    return list(enumerate(_items(data, section)))


def _sections(
    entries: list[tuple[int, Any]], own: Any, own_section: str, list_section: str
) -> list[tuple[int, Any, str]]:
    """Each entry with the section its index counts in: its own file's, or the mixed List's."""
    mine = len(_items(own, own_section)) if own is not None else 0
    return [(i, item, own_section if n < mine else list_section) for n, (i, item) in enumerate(entries)]


def _by_kind(items: list[Any], section: str, errors: ErrorList) -> dict[str, list[tuple[int, Any]]]:
    """A ``kubectl get ... -o json`` List sorted by kind, each item with its index; an item without kind is a Node."""
    out: dict[str, list[tuple[int, Any]]] = {}
    for i, item in enumerate(items):
        kind = item.get("kind") if _is_object(item) else None
        kind = kind or "Node"
        if kind not in CLUSTER_KINDS:
            errors.append(not_supported(FieldPath(section).index(i).child("kind"), kind, CLUSTER_KINDS))
            continue
        out.setdefault(kind, []).append((i, item))
    return out


def _is_object(item: Any) -> bool:
    """Whether ``item`` is a JSON object (the common case, a plain dict, checked first)."""
    return type(item) is dict or isinstance(item, Mapping)


def _items(data: Any, section: str) -> list[Any]:
    """The objects of a ``kubectl get -o json`` list (or a plain list); anything else is an error at ``section``."""
    if data is None:
        return []
    if isinstance(data, (str, bytes)):
        data = _load_yaml(data)
    if isinstance(data, Mapping):
        data = data.get("items") or []
    if not isinstance(data, list):
        raise AggregateError([type_invalid(FieldPath(section), data, "must be a list or a List object")])
    return list(data)


def _get(obj: Any, *names: str) -> Any:
    for name in names:
        try:
            obj = obj.get(name)
        except (AttributeError, TypeError):
            return None
    return obj


def _kubectl_pod(
    item: Any, i: int, classes: PriorityClasses, errors: ErrorList, section: str = "pods"
) -> dict[str, Any] | None:
    """A running pod (bound to a node, not finished), or ``None`` for any other."""
    if not isinstance(item, dict) and not isinstance(item, Mapping):
        errors.append(type_invalid(FieldPath(section).index(i), item, "must be of type object"))
        return None
    path = FieldPath(section).index(i)
    spec = read_field(item, ("spec",), "object", errors, path)
    node = read_field(spec, ("nodeName",), "string", errors, path.child("spec")) if spec is not None else None
    if not node or read_field(item, ("status", "phase"), "string", errors, path) in _DONE_PHASES or spec is None:
        return None
    metadata = read_field(item, ("metadata",), "object", errors, path) or {}
    namespace = read_field(metadata, ("namespace",), "string", errors, path.child("metadata")) or "default"
    priority = _running_priority(spec, classes, "pods", metadata.get("name") or "", path, errors)
    group = read_field(spec, ("schedulingGroup", "podGroupName"), "string", errors, path.child("spec"))
    labels = metadata.get("labels")
    requests, scored = pod_requests_and_score(
        spec, lambda: FieldPath(section).index(i).child("spec"), errors, running=True
    )
    return {
        "name": f"{namespace}/{metadata.get('name') or ''}",
        "node": node,
        "requests": requests,
        "unset": (scored[0] - requests.get("cpu", 0), scored[1] - requests.get("memory", 0)),
        "priority": priority,
        "group": f"{namespace}/{group}" if group else None,
        "start": _get(item, "status", "startTime") or "",
        "namespace": namespace,
        "labels": dict(labels) if isinstance(labels, Mapping) else {},
        "host_ports": read_host_ports(spec, lambda: FieldPath(section).index(i).child("spec"), errors),
        # its pod (anti-)affinity terms only weigh in scores: a malformed one is left out, not reported
        "affinity": read_pod_affinity(spec, lambda: FieldPath(section).index(i).child("spec"), namespace, ErrorList()),
    }


def _running_priority(
    spec: Mapping[str, Any], classes: PriorityClasses, resource: str, name: str, path: FieldPath, errors: ErrorList
) -> int:
    """A running object's ``spec.priority``, or its class's value, or 0; a bad one is an error at ``path``."""
    priority = spec.get("priority")
    if priority is not None and (isinstance(priority, bool) or not isinstance(priority, int)):
        errors.append(type_invalid(path.child("spec", "priority"), priority, "must be of type integer"))
        return 0
    class_name = spec.get("priorityClassName")
    try:
        return running_priority(
            classes, PrioritySpec(class_name if isinstance(class_name, str) else None, priority), resource, name
        )
    except PriorityError as problem:
        errors.append(invalid(path.child("spec", "priorityClassName"), class_name, str(problem)))
        return 0


def _kubectl_group(item: Any, path: FieldPath, classes: PriorityClasses, errors: ErrorList) -> RunningGroup | None:
    if not isinstance(item, Mapping) or item.get("kind") not in ("PodGroup", "CompositePodGroup"):
        return None
    namespace = _get(item, "metadata", "namespace") or "default"
    name = _get(item, "metadata", "name")
    if not name:
        errors.append(required(path.child("metadata", "name")))
        return None
    spec = item.get("spec") or {}
    parent = _get(spec, "parentCompositePodGroupName")
    return RunningGroup(
        name=f"{namespace}/{name}",
        kind=item["kind"],
        priority=_running_priority(
            spec if isinstance(spec, Mapping) else {},
            classes,
            "podgroups.scheduling.k8s.io" if item["kind"] == "PodGroup" else "compositepodgroups.scheduling.k8s.io",
            name,
            path,
            errors,
        ),
        disruption_mode="all" if _get(spec, "disruptionMode", "all") is not None else "single",
        parent=f"{namespace}/{parent}" if parent else None,
        start=_get(item, "metadata", "creationTimestamp") or "",
    )


def _check_unique(names: list[str | None], section: str, errors: ErrorList) -> set[str]:
    """The names of the nodes read (``None``: an entry read as no node); a name given again is an error there."""
    given = [name for name in names if name is not None]
    seen = set(given)
    if len(seen) == len(given):
        return seen
    seen.clear()
    for i, name in enumerate(names):
        if name is None:
            continue
        if name in seen:
            errors.append(duplicate(FieldPath(section).index(i).child("name"), name))
        seen.add(name)
    return seen


# -- compact YAML ------------------------------------------------------------------


def read_yaml(source: Any) -> ClusterParts:
    """What ``Cluster.from_yaml`` builds from: the compact YAML description, parsed.

    Raises:
        AggregateError: every malformed entry, each at its path.
    """
    data = _load_yaml(source)
    with quiet_gc():
        return _from_yaml(data)


def _from_yaml(data: Any) -> ClusterParts:
    errors = ErrorList()
    if not isinstance(data, Mapping):
        errors.append(type_invalid(None, data, "a cluster description must be a mapping with `nodes`"))
        errors.raise_if_any()
    _unknown(data, _TOP_FIELDS, None, errors)
    nodes = [
        _yaml_node(entry, FieldPath("nodes").index(i), errors) for i, entry in enumerate(_seq(data, "nodes", errors))
    ]
    names = _check_unique([node.get("name") for node in nodes], "nodes", errors)
    pools = [
        _yaml_pool(entry, FieldPath("devicePools").index(i), names, errors)
        for i, entry in enumerate(_seq(data, "devicePools", errors))
    ]
    groups: list[RunningGroup] = []
    pods: list[dict[str, Any]] = []
    for i, entry in enumerate(_seq(data, "running", errors)):
        _yaml_running(entry, FieldPath("running").index(i), names, groups, pods, errors)
    classes = PriorityClasses(
        read_priority_classes(_objects(data, "priorityClasses", "PriorityClass", errors), "priorityClasses", errors)
    )
    budgets = _budgets(
        _objects(data, "podDisruptionBudgets", "PodDisruptionBudget", errors), "podDisruptionBudgets", pods, errors
    )
    errors.raise_if_any()
    return ClusterParts(
        [node for node in nodes if node],
        [pool for pool in pools if pool],
        pods,
        groups,
        list(classes.values()),
        budgets,
    )


def _objects(data: Mapping[str, Any], name: str, kind: str, errors: ErrorList) -> list[Any]:
    """A section of Kubernetes objects of one kind (``kind`` may be left out); another kind is an error."""
    out: list[Any] = []
    for i, item in enumerate(_seq(data, name, errors)):
        if isinstance(item, Mapping) and item.get("kind", kind) == kind:
            out.append({**item, "kind": kind})
        else:
            errors.append(type_invalid(FieldPath(name).index(i), item, f"must be a {kind}"))
            out.append(None)
    return out


def _load_yaml(source: Any) -> Any:
    """A path's, a text's or bytes' one document (bounded and checked as manifests are); data as it is."""
    if isinstance(source, Path) or (
        isinstance(source, str) and "\n" not in source and source.endswith((".yaml", ".yml"))
    ):
        return manifests.read_data(Path(source))
    if isinstance(source, (str, bytes)):
        return manifests.read_data(io.BytesIO(source) if isinstance(source, bytes) else source)
    return source


def _seq(data: Mapping[str, Any], name: str, errors: ErrorList) -> list[Any]:
    value = data.get(name)
    if value is None:
        if name == "nodes":
            errors.append(required(FieldPath("nodes")))
        return []
    if not isinstance(value, list):
        errors.append(type_invalid(FieldPath(name), value, "must be of type array"))
        return []
    return value


def _unknown(entry: Mapping[str, Any], allowed: frozenset[str], path: FieldPath | None, errors: ErrorList) -> None:
    for name in entry:
        if name not in allowed:
            where = FieldPath(str(name)) if path is None else path.child(str(name))
            errors.append(forbidden(where, "field not declared in schema"))


def _name(entry: Mapping[str, Any], path: FieldPath, errors: ErrorList) -> str | None:
    name = entry.get("name")
    if not isinstance(name, str) or not name:
        errors.append(
            required(path.child("name"))
            if name is None
            else type_invalid(path.child("name"), name, "must be a non-empty string")
        )
        return None
    return name


def _yaml_node(entry: Any, path: FieldPath, errors: ErrorList) -> dict[str, Any]:
    if not isinstance(entry, Mapping):
        errors.append(type_invalid(path, entry, "must be of type object"))
        return {}
    _unknown(entry, _NODE_FIELDS, path, errors)
    name = _name(entry, path, errors)
    labels = entry.get("labels") or {}
    if not isinstance(labels, Mapping) or not all(isinstance(v, str) for v in labels.values()):
        errors.append(type_invalid(path.child("labels"), labels, "must map label keys to strings"))
        labels = {}
    if entry.get("allocatable") is None:
        errors.append(required(path.child("allocatable")))
    allocatable = read_resource_list(entry.get("allocatable"), path.child("allocatable"), errors)
    used = read_resource_list(entry.get("used"), path.child("used"), errors)
    for resource, amount in used.items():
        if amount > allocatable.get(resource, 0):
            errors.append(invalid(path.child("used").key(resource), entry["used"][resource], "exceeds allocatable"))
    unschedulable = entry.get("unschedulable", False)
    if not isinstance(unschedulable, bool):
        errors.append(type_invalid(path.child("unschedulable"), unschedulable, "must be of type boolean"))
    taints = read_taints(entry.get("taints"), path.child("taints"), errors)
    if name is None:
        return {}
    return {
        "name": name,
        "labels": {str(k): v for k, v in labels.items()},
        "allocatable": allocatable,
        "used": used,
        "schedulable": unschedulable is not True,
        "taints": taints,
    }


def _yaml_pool(entry: Any, path: FieldPath, nodes: set[str], errors: ErrorList) -> DevicePool | None:
    if not isinstance(entry, Mapping):
        errors.append(type_invalid(path, entry, "must be of type object"))
        return None
    _unknown(entry, _POOL_FIELDS, path, errors)
    name = _name(entry, path, errors)
    device_class = entry.get("deviceClass")
    if not isinstance(device_class, str) or not device_class:
        errors.append(required(path.child("deviceClass")))
    count = _count(entry, "count", path, errors, required_field=True)
    allocated = _count(entry, "allocated", path, errors)
    if allocated > count:
        errors.append(invalid(path.child("allocated"), allocated, "must not exceed count"))
    node, domain = entry.get("node"), entry.get("domain")
    if (node is None) == (domain is None):
        errors.append(invalid(path, "", "must set exactly one of `node`, `domain`"))
    elif node is not None and not isinstance(node, str):
        errors.append(type_error(path.child("node"), node, "string"))
    elif node is not None and node not in nodes:
        errors.append(invalid(path.child("node"), node, "no such node"))
    elif domain is not None and (not isinstance(domain, Mapping) or len(domain) != 1):
        errors.append(invalid(path.child("domain"), domain, "must map one topology key to its value"))
    if name is None or not isinstance(device_class, str):
        return None
    where = next(iter(domain.items())) if isinstance(domain, Mapping) and len(domain) == 1 else None
    return DevicePool(
        name,
        device_class,
        count,
        allocated,
        node if isinstance(node, str) else None,
        (str(where[0]), str(where[1])) if where else None,
    )


def _count(
    entry: Mapping[str, Any], name: str, path: FieldPath, errors: ErrorList, required_field: bool = False
) -> int:
    value = entry.get(name)
    if value is None:
        if required_field:
            errors.append(required(path.child(name)))
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        errors.append(invalid(path.child(name), value, "must be a non-negative integer"))
        return 0
    return value


def _yaml_running(
    entry: Any,
    path: FieldPath,
    nodes: set[str],
    groups: list[RunningGroup],
    pods: list[dict[str, Any]],
    errors: ErrorList,
) -> None:
    if not isinstance(entry, Mapping):
        errors.append(type_invalid(path, entry, "must be of type object"))
        return
    _unknown(entry, _RUNNING_FIELDS, path, errors)
    name = _name(entry, path, errors)
    kind = entry.get("kind", "PodGroup")
    if kind not in _KINDS:
        errors.append(not_supported(path.child("kind"), kind, _KINDS))
    mode = entry.get("disruptionMode", "single")
    if mode not in _MODES:
        errors.append(not_supported(path.child("disruptionMode"), mode, _MODES))
    priority = entry.get("priority", 0)
    if isinstance(priority, bool) or not isinstance(priority, int):
        errors.append(type_invalid(path.child("priority"), priority, "must be of type integer"))
        priority = 0
    start = str(entry.get("startTime", ""))
    if name is None:
        return
    if kind == "Pod":
        pod = _yaml_pod(entry, path, nodes, priority, None, start, errors)
        if pod:
            pods.append(pod)
        return
    groups.append(RunningGroup(name, kind, priority, mode, entry.get("parent"), start))
    members = entry.get("pods") or []
    if kind == "CompositePodGroup" and members:
        errors.append(forbidden(path.child("pods"), "a CompositePodGroup owns groups, not pods"))
        return
    for j, member in enumerate(members if isinstance(members, list) else []):
        pod = _yaml_pod(member, path.child("pods").index(j), nodes, priority, name, start, errors)
        if pod:
            pods.append(pod)


def _yaml_pod(
    entry: Any, path: FieldPath, nodes: set[str], priority: int, group: str | None, start: str, errors: ErrorList
) -> dict[str, Any] | None:
    if not isinstance(entry, Mapping):
        errors.append(type_invalid(path, entry, "must be of type object"))
        return None
    if group is not None:
        _unknown(entry, _RUNNING_POD_FIELDS, path, errors)
        start = str(entry.get("startTime", start))  # a member's own start, else its group's
    name = _name(entry, path, errors)
    node = entry.get("node")
    if node is not None and not isinstance(node, str):
        errors.append(type_error(path.child("node"), node, "string"))
        return None
    if node not in nodes:
        errors.append(
            required(path.child("node")) if node is None else invalid(path.child("node"), node, "no such node")
        )
        return None
    requests = read_resource_list(entry.get("requests"), path.child("requests"), errors)
    namespace = entry.get("namespace", "default")
    if not isinstance(namespace, str) or not namespace:
        errors.append(type_invalid(path.child("namespace"), namespace, "must be a non-empty string"))
        namespace = "default"
    labels = entry.get("labels") or {}
    if not isinstance(labels, Mapping) or not all(isinstance(v, str) for v in labels.values()):
        errors.append(type_invalid(path.child("labels"), labels, "must map label keys to strings"))
        labels = {}
    ports = _yaml_ports(entry.get("hostPorts"), path.child("hostPorts"), errors)
    if name is None:
        return None
    return {
        "name": name,
        "node": node,
        "requests": requests,
        "priority": priority,
        "group": group,
        "start": start,
        "namespace": namespace,
        "labels": {str(k): v for k, v in labels.items()},
        "host_ports": ports,
    }


def _yaml_ports(raw: Any, path: FieldPath, errors: ErrorList) -> tuple[HostPort, ...]:
    """``hostPorts``: port numbers, or ``{hostPort, protocol, hostIP}`` objects as in a container's ``ports``."""
    if raw is None:
        return ()
    if not isinstance(raw, list):
        errors.append(type_invalid(path, raw, "must be of type array"))
        return ()
    entries = [
        {"hostPort": entry} if isinstance(entry, int) and not isinstance(entry, bool) else entry for entry in raw
    ]
    spec = {"containers": [{"ports": entries}]}
    found = ErrorList()
    ports = read_host_ports(spec, FieldPath("hostPorts"), found)
    for error in found:
        errors.append(invalid(path, raw, error.detail or "must list host ports"))
    return ports
