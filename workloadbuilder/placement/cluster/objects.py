"""Readers of the objects a kubectl dump may hold besides nodes, pods, groups and policies.

A ``ResourceSlice`` (``resource.k8s.io/v1``) becomes a device pool; each
malformed field is one ``FieldError`` at its path. (PriorityClasses and
PodDisruptionBudgets are read by ``priorities`` and ``disruption``.)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from workloadbuilder.field import ErrorList, FieldPath, invalid, required, type_invalid
from workloadbuilder.placement.cluster.records import DevicePool

__all__ = ["device_pools"]


def _name(item: Any, path: FieldPath, errors: ErrorList) -> tuple[str, str] | None:
    """(namespace, name) of an object, or ``None`` with an error when it has no name."""
    metadata = item.get("metadata") if isinstance(item, Mapping) else None
    name = metadata.get("name") if isinstance(metadata, Mapping) else None
    if not isinstance(name, str) or not name:
        errors.append(required(path.child("metadata", "name")))
        return None
    namespace = metadata.get("namespace") if isinstance(metadata, Mapping) else None
    return (namespace if isinstance(namespace, str) and namespace else "default", name)


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
