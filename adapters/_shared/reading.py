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

from kubernetes.client import V1beta1Workload, V1OwnerReference
from pydantic import BaseModel

from workloadbuilder import ErrorList, FieldPath
from workloadbuilder.adapters.base import GENERATED_NAME_SUFFIX, Finding, as_dict, planned_name
from workloadbuilder.adapters.kit import (
    INT32_MAX,
    MAX_PODS,
    MAX_RUNTIME_GROUPS,
    decode,
    duplicate,
    errors_at,
    go_quote,
    invalid,
    is_dns1123_label,
    is_dns1123_subdomain,
    long_name_errors,
    read_count,
    read_field,
    required,
    type_invalid,
)

__all__ = [
    "GENERATED_NAME_SUFFIX",
    "GROUPS_BOUND",
    "INT32_MAX",
    "PODS_BOUND",
    "Identity",
    "at",
    "identity_of",
    "member_name",
    "planned_name",
    "read_int",
    "workloads_in",
]

Element = str | int


def at(obj: Any, elements: Sequence[Element]) -> Any:
    """The value at ``elements`` inside a JSON-shaped ``obj``, or ``None`` when anything on the way is missing.

    Examples:
        >>> at({"spec": {"roles": [{"name": "a"}]}}, ("spec", "roles", 0, "name")), at({}, ("spec", "x"))
        ('a', None)
        >>> at({"roles": ["a", "b"]}, ("roles", -1)), at({"roles": ["a"]}, ("roles", -99999999999999999999))
        ('b', None)
    """
    node = obj
    for element in elements:
        if isinstance(element, int):
            if not isinstance(node, list) or not -len(node) <= element < len(node):
                return None  # past either end (a negative index counts from the end, as JSONPath's does)
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


PODS_BOUND = f" (workloadbuilder plans at most {MAX_PODS} pods per object)"
"""What a count above ``MAX_PODS`` is told."""
GROUPS_BOUND = f" (workloadbuilder plans at most {MAX_RUNTIME_GROUPS} runtime groups per object)"
"""What a count above ``MAX_RUNTIME_GROUPS`` is told."""


def read_int(
    obj: Any,
    elements: Sequence[Element],
    errors: ErrorList,
    minimum: int | None = None,
    maximum: int = INT32_MAX,
    why: str = "",
) -> int | None:
    """The integer at ``elements``, or ``None`` when absent or not a valid one (then an error is appended).

    Args:
        obj: the object to read.
        elements: where the integer is.
        errors: receives ``must be of type integer`` for a wrong type (of the
            value or of an object on the way to it) and, with ``minimum``,
            Kubernetes' ``must be greater than or equal to``, and above
            ``INT32_MAX``, ``must be less than or equal to``.
        minimum: the smallest valid value, if any.
        maximum: the largest (``INT32_MAX``, or an engine bound such as
            ``MAX_PODS`` with ``why`` saying so).
        why: appended to the maximum's message.
    """
    return read_count(obj, elements, errors, minimum=minimum, maximum=maximum, why=why)


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
    metadata: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}  # the schema reports another type
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


def workloads_in(related: Iterable[Mapping[str, Any] | BaseModel], findings: list[Finding]) -> list[dict[str, Any]]:
    """The ``scheduling.k8s.io`` Workloads among related objects that a plan can read, as JSON dicts, in order.

    Only Workloads are copied (a Job planned among a thousand others copies
    none of them). A Workload with a malformed ``metadata``, no name, or (in
    ``v1beta1``) a field that does not decode strictly is left out, and each
    of its problems goes to ``findings``, tagged ``Workload/<name>``.
    """
    found = []
    for obj in related:
        kind = obj.get("kind") if type(obj) is dict else _type_of(obj)[1]  # the common case first: a parsed manifest
        if kind != "Workload":
            continue
        version = _type_of(obj)[0]
        if not isinstance(version, str) or not version.startswith("scheduling.k8s.io/"):
            continue
        data = as_dict(obj)
        errors = ErrorList()
        name = read_field(data, ("metadata", "name"), "string", errors)
        for key in ("namespace", "uid"):
            read_field(data, ("metadata", key), "string", errors)
        if name is None and not errors:
            errors.append(required(FieldPath("metadata", "name"), "a related Workload is found by its name"))
        if not errors and version == "scheduling.k8s.io/v1beta1":
            errors.extend(errors_at(None, decode(V1beta1Workload, data)[1]))
        if errors:
            findings.extend(Finding(f"Workload/{name or ''}", err) for err in errors)
        else:
            found.append(data)
    return found


def _type_of(obj: Mapping[str, Any] | BaseModel) -> tuple[Any, Any]:
    if isinstance(obj, Mapping):
        return obj.get("apiVersion"), obj.get("kind")
    return getattr(obj, "api_version", None), getattr(obj, "kind", None)
