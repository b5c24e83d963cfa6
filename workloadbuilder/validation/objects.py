"""The apiserver's verdict on a Workload, PodGroup or CompositePodGroup, offline.

``validate_workload``, ``validate_pod_group`` and ``validate_composite_pod_group``
take an object as a kubernetes client model or a dict in Kubernetes JSON
spelling (as in a manifest) and return the errors a Kubernetes 1.37
apiserver would return for creating it, or, given ``old``, for updating
``old`` to it: the same types, paths and messages. In order: decoding
(unknown fields, wrong types), the feature gate that serves the kind,
the hand-written rules (``metadata``, a Workload's template tree, a
PodGroup status's claim names), then every ``+k8s:`` rule of
``scheduling.k8s.io/v1beta1`` (Workload, PodGroup) or ``v1alpha3``
(CompositePodGroup) with the apiserver's create/update ratcheting, as
``rest.ValidateDeclarativelyWithMigrationChecks`` appends them.

As the apiserver does, a missing ``spec.disruptionMode`` of a runtime group is
defaulted to ``single`` first, and ``status`` is ignored on the main
resource (pass ``subresource="status"`` to validate a status update).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal

from pydantic import BaseModel

from workloadbuilder._internal import kinds
from workloadbuilder._internal.decode import decode, errors_at
from workloadbuilder._internal.kinds import KubeObject
from workloadbuilder.errors import InvalidArgumentError
from workloadbuilder.field import ErrorList, FieldPath, forbidden, invalid
from workloadbuilder.validation.conditions import conditions_errors
from workloadbuilder.validation.dv import Op, Struct
from workloadbuilder.validation.gates import (
    COMPOSITE_POD_GROUP,
    GENERIC_WORKLOAD,
    FeatureGates,
    gate_disabled_detail,
)
from workloadbuilder.validation.gotypes import canonical
from workloadbuilder.validation.groupspecs import composite_pod_group_spec, pod_group_spec, pod_group_status
from workloadbuilder.validation.metadata import metadata_errors
from workloadbuilder.validation.templates import workload_spec
from workloadbuilder.validation.workload_rules import tree_errors, tree_warnings

__all__ = [
    "read_object",
    "validate_composite_pod_group",
    "validate_pod_group",
    "validate_workload",
    "workload_warnings",
]

Subresource = Literal["status"] | None
_SPEC, _STATUS = FieldPath("spec"), FieldPath("status")
_DEFAULT_DISRUPTION_MODE: dict[str, dict[str, Any] | None] = {"single": {}, "all": None}


def validate_workload(obj: KubeObject, old: KubeObject | None = None, gates: FeatureGates | None = None) -> ErrorList:
    """The errors a 1.37 apiserver returns for creating the Workload ``obj`` (or updating ``old`` to it).

    Args:
        obj: a ``V1beta1Workload`` (or ``V1alpha3Workload``) or a dict in
            Kubernetes JSON spelling; ``apiVersion`` and ``kind`` may be left out.
        old: the stored object, for an update: templates may then be neither
            added nor removed, only a gang's ``minCount`` may change.
        gates: the feature gates in force; ``None`` turns every gate on.

    Returns:
        The errors, empty when the apiserver would accept the request.

    Raises:
        AggregateError: ``old`` is not a Workload that decodes.
        TypeError: ``obj`` is neither a client model nor a mapping.

    Examples:
        >>> errs = validate_workload({"metadata": {"name": "w"}, "spec": {"podGroupTemplates": [{"name": "Worker"}]}})
        >>> print(errs[0])
        spec.podGroupTemplates[0].name: Invalid value: "Worker": a lowercase RFC 1123 label must consist of lower case \
alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', \
regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')
        >>> print(errs[1])
        spec.podGroupTemplates[0].schedulingPolicy: Invalid value: "": must specify one of: `basic`, `gang`
    """
    return _validate(kinds.WORKLOAD, obj, old, gates, None, _workload_errors)


def validate_pod_group(
    obj: KubeObject, old: KubeObject | None = None, gates: FeatureGates | None = None, subresource: Subresource = None
) -> ErrorList:
    """The errors a 1.37 apiserver returns for creating the PodGroup ``obj`` (or updating ``old`` to it).

    Args:
        obj: a ``V1beta1PodGroup`` (or ``V1alpha3PodGroup``) or a dict.
        old: the stored object, for an update: everything but
            ``schedulingPolicy.gang.minCount`` is then immutable.
        gates: the feature gates in force; ``None`` turns every gate on.
        subresource: ``"status"`` validates an update of the status
            subresource (``spec`` is taken from ``old``, as the apiserver does).

    Raises:
        AggregateError: ``old`` is not a PodGroup that decodes.
        TypeError: ``obj`` is neither a client model nor a mapping.
        ValueError: ``subresource="status"`` without ``old``.
    """
    return _validate(kinds.POD_GROUP, obj, old, gates, subresource, _pod_group_errors)


def validate_composite_pod_group(
    obj: KubeObject, old: KubeObject | None = None, gates: FeatureGates | None = None, subresource: Subresource = None
) -> ErrorList:
    """The errors a 1.37 apiserver returns for creating the CompositePodGroup ``obj`` (or updating ``old`` to it).

    Args:
        obj: a ``V1alpha3CompositePodGroup`` or a dict.
        old: the stored object, for an update: the whole spec is then
            immutable (``minGroupCount`` included).
        gates: the feature gates in force; ``None`` turns every gate on (the
            kind itself needs ``CompositePodGroup``).
        subresource: ``"status"`` validates an update of the status subresource.

    Raises:
        AggregateError: ``old`` is not a CompositePodGroup that decodes.
        TypeError: ``obj`` is neither a client model nor a mapping.
        ValueError: ``subresource="status"`` without ``old``.
    """
    return _validate(kinds.COMPOSITE_POD_GROUP, obj, old, gates, subresource, _composite_pod_group_errors)


def workload_warnings(obj: KubeObject) -> list[str]:
    """Warnings the apiserver would send with an accepted Workload: problems that are not errors.

    A composite template whose gang ``minGroupCount`` is larger than its
    number of child templates is accepted (several groups may be made from
    one template) but, with one group per template, can never be admitted.
    A Workload that does not decode has no warnings; ``validate_workload``
    reports it.
    """
    data, errs = read_object(obj, kinds.WORKLOAD)
    if errs:
        return []
    return tree_warnings(_SPEC, canonical("WorkloadSpec", data.get("spec")))


def read_object(obj: Any, kind: str) -> tuple[dict[str, Any], ErrorList]:
    """``obj`` as Kubernetes JSON, with the errors the apiserver's strict decoding would give it.

    A dict (or a client model, taken as its JSON) must name ``kind`` (if at
    all) and a served ``apiVersion`` of it, and decode without unknown fields
    or wrong types.

    Raises:
        TypeError: ``obj`` is neither a client model nor a mapping.
    """
    if isinstance(obj, BaseModel):
        data = kinds.as_manifest(obj)
    elif isinstance(obj, Mapping):
        data = dict(obj)
    else:
        raise TypeError(f"expected a {kind} as a kubernetes client model or a dict, got {type(obj).__name__}")
    model, errs = kinds.model_for(data, kind)
    if model is None:
        return data, errs
    return data, errors_at(None, decode(model, data)[1])


_Validator = Callable[[Op, dict[str, Any], "dict[str, Any] | None", Subresource], ErrorList]


def _validate(
    kind: str, obj: Any, old: Any, gates: FeatureGates | None, subresource: Subresource, validator: _Validator
) -> ErrorList:
    data, errs = read_object(obj, kind)
    if errs:
        return errs
    old_data = None
    if old is not None:
        old_data, old_errs = read_object(old, kind)
        old_errs.raise_if_any()
    elif subresource == "status":
        raise InvalidArgumentError("a status update needs the old object")
    op = Op(update=old is not None, gates=gates if gates is not None else FeatureGates.all())
    errs = _served(kind, op.gates)
    if errs:
        return errs
    errs = metadata_errors(data.get("metadata") or {}, None if old_data is None else old_data.get("metadata") or {})
    errs += validator(op, data, old_data, subresource)
    return errs


def _served(kind: str, gates: FeatureGates) -> ErrorList:
    """A kind whose API is off is not served at all: one ``Forbidden`` at ``kind``."""
    for gate in (GENERIC_WORKLOAD, COMPOSITE_POD_GROUP) if kind == kinds.COMPOSITE_POD_GROUP else (GENERIC_WORKLOAD,):
        if not gates.is_enabled(gate):
            return ErrorList([forbidden(FieldPath("kind"), gate_disabled_detail(gate))])
    return ErrorList()


def _changed(op: Op, new: Struct, old: Struct | None) -> bool:
    return not (op.update and new == old)


def _workload_errors(op: Op, data: dict[str, Any], old: dict[str, Any] | None, _: Subresource) -> ErrorList:
    spec = canonical("WorkloadSpec", data.get("spec"))
    old_spec = None if old is None else canonical("WorkloadSpec", old.get("spec"))
    # The hand-written rules run on create and on every update; the declarative ones follow them, ratcheted.
    errs = tree_errors(_SPEC, spec, data.get("spec"))
    if _changed(op, spec, old_spec):
        errs += workload_spec(op, _SPEC, spec, old_spec)
    return errs


def _group_errors(
    spec_type: str,
    spec_rules: Callable[[Op, FieldPath, Struct, Struct | None], ErrorList],
    op: Op,
    data: dict[str, Any],
    old: dict[str, Any] | None,
    subresource: Subresource,
) -> ErrorList:
    """A runtime group: the spec rules on the main resource, the status rules on ``/status``."""
    if subresource == "status":
        assert old is not None
        status = canonical("PodGroupStatus", data.get("status"))
        old_status = canonical("PodGroupStatus", old.get("status"))
        # The status subresource keeps the stored spec, so the claims named are the old object's.
        errs = conditions_errors(_STATUS.child("conditions"), (data.get("status") or {}).get("conditions"))
        errs += _claim_status_names(status, canonical(spec_type, old.get("spec")))
        if _changed(op, status, old_status):
            errs += pod_group_status(op, _STATUS, status, old_status)
        return errs
    spec = _defaulted(canonical(spec_type, data.get("spec")))
    old_spec = None if old is None else _defaulted(canonical(spec_type, old.get("spec")))
    return spec_rules(op, _SPEC, spec, old_spec) if _changed(op, spec, old_spec) else ErrorList()


def _claim_status_names(status: Struct, spec: Struct) -> ErrorList:
    """Hand-written: each ``status.resourceClaimStatuses[i].name`` names an entry of ``spec.resourceClaims``."""
    claims = {claim["name"] for claim in spec.get("resourceClaims") or []}
    path = _STATUS.child("resourceClaimStatuses")
    return ErrorList(
        invalid(path.index(i).child("name"), entry["name"], "must match the name of an entry in `spec.resourceClaims`")
        for i, entry in enumerate(status["resourceClaimStatuses"] or [])
        if entry["name"] not in claims
    )


def _defaulted(spec: Struct) -> Struct:
    """``spec.disruptionMode`` defaults to ``single`` (``+default={"single": {}}``) before validation."""
    if spec["disruptionMode"] is None:
        spec["disruptionMode"] = dict(_DEFAULT_DISRUPTION_MODE)
    return spec


def _pod_group_errors(op: Op, data: dict[str, Any], old: dict[str, Any] | None, subresource: Subresource) -> ErrorList:
    return _group_errors("PodGroupSpec", pod_group_spec, op, data, old, subresource)


def _composite_pod_group_errors(
    op: Op, data: dict[str, Any], old: dict[str, Any] | None, subresource: Subresource
) -> ErrorList:
    # A CompositePodGroup's status has only alpha declarative rules, which the apiserver does not enforce.
    if subresource == "status":
        return conditions_errors(_STATUS.child("conditions"), (data.get("status") or {}).get("conditions"))
    return _group_errors("CompositePodGroupSpec", composite_pod_group_spec, op, data, old, subresource)
