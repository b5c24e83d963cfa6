"""Reading a controller's own object safely: values at paths, integers, its identity and owner reference.

Adapters read user objects that may be incomplete or wrong; nothing here
raises for bad input. A missing value is ``None``; a value of the wrong type
becomes a field error at its path, in the words of the strict decoder
(``must be of type integer``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kubernetes.client import V1OwnerReference
from pydantic import BaseModel

from workloadbuilder import ErrorList, FieldPath
from workloadbuilder.adapters.base import GENERATED_NAME_SUFFIX, as_dict, planned_name
from workloadbuilder.adapters.kit import (
    duplicate,
    field_path_of,
    go_quote,
    invalid,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_int,
    long_name_errors,
    required,
    type_invalid,
)

__all__ = [
    "GENERATED_NAME_SUFFIX",
    "INT32_MAX",
    "Identity",
    "at",
    "identity_of",
    "member_name",
    "planned_name",
    "read_int",
    "workloads_in",
]

INT32_MAX = 2**31 - 1
"""The largest count a controller's API holds: replicas, parallelism, size and numNodes are all ``int32``."""

Element = str | int


def at(obj: Any, elements: Sequence[Element]) -> Any:
    """The value at ``elements`` inside a JSON-shaped ``obj``, or ``None`` when anything on the way is missing.

    Examples:
        >>> at({"spec": {"roles": [{"name": "a"}]}}, ("spec", "roles", 0, "name")), at({}, ("spec", "x"))
        ('a', None)
    """
    node = obj
    for element in elements:
        if isinstance(element, int):
            if not isinstance(node, list) or element >= len(node):
                return None
            node = node[element]
        elif isinstance(node, Mapping):
            node = node.get(element)
        else:
            return None
        if node is None:
            return None
    return node


def member_name(
    raw: Mapping[str, Any], path: FieldPath, seen: set[str], errors: ErrorList, why: str = ""
) -> str | None:
    """A list member's ``name`` (a ReplicatedJob's, a task's): a DNS label unique among ``seen``, which it joins.

    ``None``, with an error at ``path.name``, when the name is missing
    (``Required value``, with ``why``), not a string, not a DNS label, or
    already taken.
    """
    name = raw.get("name")
    name_path = path.child("name")
    if not isinstance(name, str) or not name:
        if name is None or name == "":
            errors.append(required(name_path, why))
        else:
            errors.append(type_invalid(name_path, name, "must be of type string"))
        return None
    problems = is_dns1123_label(name)
    if problems:
        errors.append(invalid(name_path, name, "; ".join(problems)))
        return None
    if name in seen:
        errors.append(duplicate(name_path, name))
        return None
    seen.add(name)
    return name


def read_int(obj: Any, elements: Sequence[Element], errors: ErrorList, minimum: int | None = None) -> int | None:
    """The integer at ``elements``, or ``None`` when absent or not an integer (then an error is appended).

    Args:
        obj: the object to read.
        elements: where the integer is.
        errors: receives ``must be of type integer`` for a wrong type and,
            with ``minimum``, Kubernetes' ``must be greater than or equal to``,
            and above ``INT32_MAX``, ``must be less than or equal to``.
        minimum: the smallest valid value, if any.
    """
    value = at(obj, elements)
    path = field_path_of(elements)
    if value is None:
        return None
    if not is_int(value):
        errors.append(type_invalid(path, value, "must be of type integer"))
        return None
    if minimum is not None and value < minimum:
        errors.append(invalid(path, value, f"must be greater than or equal to {minimum}"))
        return None
    if value > INT32_MAX:
        # Every count read here is an int32 in its API; a bigger one would
        # otherwise reach range() and materialize as an OverflowError.
        errors.append(invalid(path, value, f"must be less than or equal to {INT32_MAX}"))
        return None
    return value


@dataclass(frozen=True)
class Identity:
    """Who an object is: what names and owner references derive from.

    Attributes:
        api_version: the object's ``apiVersion``.
        kind: its ``kind``.
        name: ``metadata.name`` (``""`` when missing).
        namespace: ``metadata.namespace`` (``""`` when missing).
        uid: ``metadata.uid`` (``""`` when missing: a manifest not read back from a cluster).
    """

    api_version: str
    kind: str
    name: str
    namespace: str
    uid: str

    @property
    def nameable(self) -> bool:
        """Whether names can derive from ``name`` (it is a DNS subdomain; ``identity_of`` reported it otherwise)."""
        return bool(self.name) and not is_dns1123_subdomain(self.name)

    @property
    def ref(self) -> str:
        """``<Kind>/<name>``, as findings name the object."""
        return f"{self.kind}/{self.name}"

    def controller_ref(self) -> V1OwnerReference:
        """The controller owner reference to the object, as ``metav1.NewControllerRef`` makes it."""
        return V1OwnerReference(
            api_version=self.api_version,
            kind=self.kind,
            name=self.name,
            uid=self.uid,
            controller=True,
            block_owner_deletion=True,
        )


def identity_of(obj: Mapping[str, Any], errors: ErrorList, warnings: ErrorList) -> Identity:
    """The object's identity; a missing or invalid name is an error, a missing uid a warning.

    Every name an adapter derives (the Workload's, the groups') starts from
    ``metadata.name``, so without a valid one there is nothing to plan. An
    object with only ``metadata.generateName`` is planned with the
    placeholder name ``planned_name`` gives, and a warning that the real
    names follow the server-generated one. The uid only feeds the Workload
    name's hash and the owner references: a plan of a manifest that was
    never created carries an empty one, and says so.
    """
    raw = obj.get("metadata")
    metadata: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
    texts = {key: metadata.get(key) for key in ("name", "generateName", "namespace", "uid")}
    for key, value in texts.items():
        if value is not None and not isinstance(value, str):
            errors.append(type_invalid(FieldPath("metadata", key), value, "must be of type string"))
            texts[key] = None
    name, generated_from = planned_name(texts)
    name = name or ""
    if generated_from is not None:
        path = FieldPath("metadata", "generateName")
        errors.extend(long_name_errors(path, name))
        warnings.append(
            invalid(
                path,
                generated_from,
                f"planned as {go_quote(name)}: the apiserver appends a random suffix, so the real names of the "
                "object, its Workload and its groups follow the generated name; plan the object as read back from "
                "the cluster to get them",
            )
        )
    elif metadata.get("name") is None or metadata.get("name") == "":
        errors.append(required(FieldPath("metadata", "name"), "every derived name starts from it"))
    elif name:
        errors.extend(long_name_errors(FieldPath("metadata", "name"), name))
    if texts["uid"] is None and name and generated_from is None:
        warnings.append(
            required(
                FieldPath("metadata", "uid"),
                "planned with an empty uid: the Workload name hashes the uid, and owner references need it, "
                "so plan the object as read back from the cluster to get the controller's names",
            )
        )
    return Identity(
        api_version=str(obj.get("apiVersion") or ""),
        kind=str(obj.get("kind") or ""),
        name=name,
        namespace=texts["namespace"] or "",
        uid=texts["uid"] or "",
    )


def workloads_in(related: Iterable[Mapping[str, Any] | BaseModel]) -> list[dict[str, Any]]:
    """The ``scheduling.k8s.io`` Workloads among related objects, as JSON dicts, in order."""
    found = []
    for obj in related:
        data = as_dict(obj)
        if data.get("kind") == "Workload" and str(data.get("apiVersion", "")).startswith("scheduling.k8s.io/"):
            found.append(data)
    return found
