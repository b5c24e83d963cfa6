"""The object kinds workloadbuilder reads and checks, and the client model of each.

It also holds the API versions the builder emits and the limits the API
server enforces on these objects, so every module uses the same numbers.

One table answers, for manifests, validation, update checks and migration:
which ``apiVersion``/``kind`` pairs exist in Kubernetes 1.37 and which
kubernetes client model holds each. Workload and PodGroup are served as
``scheduling.k8s.io/v1beta1`` (the version the builder emits) and still as
``v1alpha3``; CompositePodGroup only as ``v1alpha3``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from kubernetes.client import (
    V1alpha3CompositePodGroup,
    V1alpha3PodGroup,
    V1alpha3Workload,
    V1beta1PodGroup,
    V1beta1Workload,
)
from pydantic import BaseModel

from workloadbuilder._internal.decode import to_json_dict
from workloadbuilder.field import ErrorList, FieldPath, invalid, not_supported, required, type_invalid

__all__ = [
    "COMPOSITE_POD_GROUP",
    "COMPOSITE_POD_GROUP_API_VERSION",
    "GROUP",
    "KINDS",
    "MAX_DEPTH",
    "MAX_PRIORITY",
    "MAX_RESOURCE_CLAIMS",
    "MAX_TEMPLATES",
    "MAX_TOPOLOGY",
    "POD_GROUP",
    "POD_GROUP_API_VERSION",
    "PREFERRED_VERSION",
    "REMOVED_VERSIONS",
    "WORKLOAD",
    "WORKLOAD_API_VERSION",
    "KubeObject",
    "as_manifest",
    "kind_of",
    "model_for",
    "versions_of",
]

KubeObject = BaseModel | Mapping[str, Any]
"""A raw Kubernetes object as the library takes it: a kubernetes client model, or its JSON form as a mapping."""

GROUP = "scheduling.k8s.io"
WORKLOAD = "Workload"
POD_GROUP = "PodGroup"
COMPOSITE_POD_GROUP = "CompositePodGroup"

WORKLOAD_API_VERSION = f"{GROUP}/v1beta1"
"""The version of the Workloads the builder emits."""
POD_GROUP_API_VERSION = f"{GROUP}/v1beta1"
"""The version of the PodGroups the builder emits."""
COMPOSITE_POD_GROUP_API_VERSION = f"{GROUP}/v1alpha3"
"""The version of the CompositePodGroups the builder emits (the only one that serves them)."""

MAX_TEMPLATES = 8
"""WorkloadMaxPodGroupTemplates: at most this many templates in each template list, at every level."""
MAX_DEPTH = 4
"""WorkloadMaxTreeDepth: the template tree (and the runtime hierarchy) is at most this many levels; the top is 1."""
MAX_TOPOLOGY = 1
"""At most this many topology constraints in one ``schedulingConstraints``."""
MAX_RESOURCE_CLAIMS = 4
"""At most this many resource claims on one template or group."""
MAX_PRIORITY = 1_000_000_000
"""HighestUserDefinablePriority: the largest ``priority`` a group may ask for."""

KINDS: Mapping[tuple[str, str], type[BaseModel]] = {
    (f"{GROUP}/v1beta1", WORKLOAD): V1beta1Workload,
    (f"{GROUP}/v1alpha3", WORKLOAD): V1alpha3Workload,
    (f"{GROUP}/v1beta1", POD_GROUP): V1beta1PodGroup,
    (f"{GROUP}/v1alpha3", POD_GROUP): V1alpha3PodGroup,
    (f"{GROUP}/v1alpha3", COMPOSITE_POD_GROUP): V1alpha3CompositePodGroup,
}
"""``(apiVersion, kind)`` to the client model that holds it."""

PREFERRED_VERSION: Mapping[str, str] = {
    WORKLOAD: WORKLOAD_API_VERSION,
    POD_GROUP: POD_GROUP_API_VERSION,
    COMPOSITE_POD_GROUP: COMPOSITE_POD_GROUP_API_VERSION,
}
"""The version each kind is written in when none is given, and the one ``migrate`` targets."""

REMOVED_VERSIONS = frozenset({f"{GROUP}/v1alpha1", f"{GROUP}/v1alpha2"})
"""Versions earlier releases served and 1.37 no longer does (``migrate`` rewrites them)."""

_CLIENT_MODEL_NAME = re.compile(r"V\d+(?:(?:alpha|beta)\d+)?([A-Z]\w*)")
_MODEL_TYPES = {model: (version, kind) for (version, kind), model in KINDS.items()}


def as_manifest(obj: BaseModel) -> dict[str, Any]:
    """A client model as Kubernetes JSON, with the ``apiVersion`` and ``kind`` its class implies when it has none."""
    data = to_json_dict(obj)
    known = _MODEL_TYPES.get(type(obj))
    if known is not None:
        data.setdefault("apiVersion", known[0])
        data.setdefault("kind", known[1])
    return data


def versions_of(kind: str) -> list[str]:
    """The ``apiVersion``s that serve ``kind``, sorted."""
    return sorted(version for version, k in KINDS if k == kind)


def kind_of(obj: object) -> str | None:
    """The kind of a client model (its ``kind``, else its class name) or of a dict (its ``kind``); ``None`` if
    unknown.
    """
    if isinstance(obj, BaseModel):
        known = _MODEL_TYPES.get(type(obj))
        if known is not None:
            return known[1]
        kind = getattr(obj, "kind", None)
        if isinstance(kind, str) and kind:
            return kind
        # The client names a model after its version and kind: V1Job, V1alpha3CompositePodGroup.
        match = _CLIENT_MODEL_NAME.fullmatch(type(obj).__name__)
        return match.group(1) if match else None
    if isinstance(obj, Mapping):
        kind = obj.get("kind")
        return kind if isinstance(kind, str) else None
    return None


def model_for(
    data: Mapping[str, Any], expected: str | None = None, require_type: bool = False
) -> tuple[type[BaseModel] | None, ErrorList]:
    """The client model for a manifest's ``apiVersion`` and ``kind``, or the errors that say why there is none.

    Args:
        data: the manifest, as Kubernetes JSON.
        expected: the kind the caller wants; another kind is ``Unsupported``.
        require_type: whether ``apiVersion`` and ``kind`` must be given (as in
            a manifest file); otherwise a missing one means ``expected`` in
            its preferred version.

    Returns:
        The model class, or ``None`` with errors at ``apiVersion`` / ``kind``:
        ``Required`` when missing, ``Unsupported`` for an unknown kind or a
        version that does not serve it, ``Invalid`` (pointing at ``migrate``)
        for a version Kubernetes removed.
    """
    errs = ErrorList()
    version, kind = data.get("apiVersion"), data.get("kind")
    for name, value in (("apiVersion", version), ("kind", kind)):
        if value is not None and not isinstance(value, str):
            errs.append(type_invalid(FieldPath(name), value, "must be of type string"))
        elif not value and require_type:
            errs.append(required(FieldPath(name), ""))
    if errs:
        return None, errs
    known = sorted({k for _, k in KINDS})
    kind = kind or expected
    if kind is None:
        return None, errs
    if (expected is not None and kind != expected) or kind not in known:
        return None, ErrorList([not_supported(FieldPath("kind"), kind, [expected] if expected else known)])
    version = version or PREFERRED_VERSION[kind]
    if (version, kind) in KINDS:
        return KINDS[(version, kind)], errs
    if version in REMOVED_VERSIONS:
        detail = (
            f"{kind} {version} is not served by Kubernetes 1.37: "
            f"the workloadbuilder migrate command rewrites it to {PREFERRED_VERSION[kind]}"
        )
        return None, ErrorList([invalid(FieldPath("apiVersion"), version, detail)])
    return None, ErrorList([not_supported(FieldPath("apiVersion"), version, versions_of(kind))])
