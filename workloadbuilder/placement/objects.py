"""Readers of the cluster-scoped objects a kubectl dump may hold besides nodes and pods.

``PriorityClass`` (``scheduling.k8s.io/v1``), ``PodDisruptionBudget``
(``policy/v1``) and ``ResourceSlice`` (``resource.k8s.io/v1``) become the
plain records of ``records``; each malformed field is one ``FieldError``
at its path.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from workloadbuilder.field import ErrorList, FieldPath, invalid, not_supported, required, type_invalid
from workloadbuilder.placement.records import DevicePool, DisruptionBudget, PriorityClass

__all__ = ["PREEMPTION_POLICIES", "device_pools", "disruption_budget", "priority_class"]

PREEMPTION_POLICIES = ("PreemptLowerPriority", "Never")


def _name(item: Any, path: FieldPath, errors: ErrorList) -> tuple[str, str] | None:
    """(namespace, name) of an object, or ``None`` with an error when it has no name."""
    metadata = item.get("metadata") if isinstance(item, Mapping) else None
    name = metadata.get("name") if isinstance(metadata, Mapping) else None
    if not isinstance(name, str) or not name:
        errors.append(required(path.child("metadata", "name")))
        return None
    namespace = metadata.get("namespace") if isinstance(metadata, Mapping) else None
    return (namespace if isinstance(namespace, str) and namespace else "default", name)


def _int(value: Any, path: FieldPath, errors: ErrorList, default: int | None = None) -> int | None:
    if value is None:
        if default is None:
            errors.append(required(path))
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        errors.append(type_invalid(path, value, "must be of type integer"))
        return None
    return value


def priority_class(item: Any, path: FieldPath, errors: ErrorList) -> PriorityClass | None:
    """A PriorityClass: ``value``, ``globalDefault`` and ``preemptionPolicy`` (default ``PreemptLowerPriority``)."""
    ident = _name(item, path, errors)
    value = _int(item.get("value") if isinstance(item, Mapping) else None, path.child("value"), errors)
    policy = item.get("preemptionPolicy") or "PreemptLowerPriority" if isinstance(item, Mapping) else ""
    if policy not in PREEMPTION_POLICIES:
        errors.append(not_supported(path.child("preemptionPolicy"), policy, PREEMPTION_POLICIES))
        return None
    default = item.get("globalDefault", False) if isinstance(item, Mapping) else False
    if not isinstance(default, bool):
        errors.append(type_invalid(path.child("globalDefault"), default, "must be of type boolean"))
        return None
    if ident is None or value is None:
        return None
    return PriorityClass(ident[1], value, default, policy)


def disruption_budget(item: Any, path: FieldPath, errors: ErrorList) -> DisruptionBudget | None:
    """A PodDisruptionBudget: its selector and what the disruption controller last allowed."""
    ident = _name(item, path, errors)
    spec = item.get("spec") if isinstance(item, Mapping) else None
    status = item.get("status") if isinstance(item, Mapping) else None
    spec = spec if isinstance(spec, Mapping) else {}
    status = status if isinstance(status, Mapping) else {}
    selector = spec.get("selector")
    if selector is not None and not isinstance(selector, Mapping):
        errors.append(type_invalid(path.child("spec", "selector"), selector, "must be of type object"))
        return None
    allowed = _int(status.get("disruptionsAllowed"), path.child("status", "disruptionsAllowed"), errors, 0)
    disrupted = status.get("disruptedPods") or {}
    if not isinstance(disrupted, Mapping):
        errors.append(type_invalid(path.child("status", "disruptedPods"), disrupted, "must be of type object"))
        return None
    if ident is None or allowed is None:
        return None
    return DisruptionBudget(ident[1], ident[0], dict(selector or {}), allowed, tuple(sorted(map(str, disrupted))))


def device_pools(item: Any, path: FieldPath, nodes: set[str], errors: ErrorList) -> list[DevicePool]:
    """A ResourceSlice's devices as one pool: its class is the driver's name, its reach the slice's node or domain.

    ``spec.nodeName`` makes the devices local to that node; ``allNodes``
    lets every node reach them; a ``nodeSelector`` with one term and one
    ``In`` expression of one value makes them shared by that topology
    domain. Allocations live in ResourceClaims, which are not read: every
    device counts as free.
    """
    ident = _name(item, path, errors)
    spec = item.get("spec") if isinstance(item, Mapping) else None
    if not isinstance(spec, Mapping):
        errors.append(required(path.child("spec")))
        return []
    driver = spec.get("driver")
    if not isinstance(driver, str) or not driver:
        errors.append(required(path.child("spec", "driver")))
        return []
    devices = spec.get("devices") or []
    if not isinstance(devices, list):
        errors.append(type_invalid(path.child("spec", "devices"), devices, "must be of type array"))
        return []
    node = spec.get("nodeName")
    domain = None
    if node is not None and node not in nodes:
        errors.append(invalid(path.child("spec", "nodeName"), node, "no such node"))
        return []
    if node is None and not spec.get("allNodes"):
        domain = _domain(spec.get("nodeSelector"), path.child("spec", "nodeSelector"), errors)
        if domain is None:
            return []
    found = spec.get("pool")
    pool: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
    if ident is None or not devices:
        return []
    name = f"{driver}/{pool.get('name') or ident[1]}/{ident[1]}"
    return [DevicePool(name, driver, len(devices), 0, node, domain)]


def _domain(selector: Any, path: FieldPath, errors: ErrorList) -> tuple[str, str] | None:
    terms = selector.get("nodeSelectorTerms") if isinstance(selector, Mapping) else None
    if isinstance(terms, list) and len(terms) == 1 and isinstance(terms[0], Mapping):
        expressions = terms[0].get("matchExpressions") or []
        if len(expressions) == 1 and isinstance(expressions[0], Mapping):
            expression = expressions[0]
            values = expression.get("values") or []
            if expression.get("operator") == "In" and len(values) == 1:
                return (str(expression.get("key")), str(values[0]))
    errors.append(
        invalid(path, "object", "must name one node, all nodes, or one topology domain (one `In` of one value)")
    )
    return None
