"""What the JobSet, LeaderWorkerSet and Trainer adapters share: building blocks as inputs, gang sizes, warnings.

Each of these controllers embeds the Workload API's building blocks
(``schedulingPolicy``, ``schedulingConstraints``, ``disruptionMode``,
``resourceClaims``) somewhere in its own object and sizes gangs from its own
structure. This module turns such a block into a ``WorkloadInput`` whose
errors come back at the block's own path, makes the callbacks that fill in a
computed ``minCount`` / ``minGroupCount``, and reads, as warnings, what the
Workload API cannot carry (Kueue's topology annotations, other schedulers).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from kubernetes.client import V1beta1TopologyConstraint

from workloadbuilder import (
    BuildError,
    BuildOptions,
    ConstraintsInput,
    DisruptionModeInput,
    ErrorList,
    FieldError,
    FieldPath,
    PolicyInput,
    ResourceClaimsInput,
    SchedulingConfig,
    WorkloadInput,
    WorkloadItem,
)
from workloadbuilder.adapters._shared.reading import Identity, at
from workloadbuilder.adapters.kit import ErrorType, type_invalid, unknown_field
from workloadbuilder.resolve import fill_gang_count, resolve_config
from workloadbuilder.runtime.naming import template_name, workload_name
from workloadbuilder.types import (
    BasicSchedulingPolicy,
    DisruptionModeOption,
    GangSchedulingPolicy,
    SchedulingConstraints,
    SchedulingPolicy,
    SchedulingPolicyOption,
)

__all__ = [
    "ALLOWED_DISRUPTION_MODES",
    "ALLOWED_POLICIES",
    "BLOCKS",
    "CLAIMS",
    "KUEUE_PREFERRED_TOPOLOGY",
    "KUEUE_REQUIRED_TOPOLOGY",
    "KUEUE_TOPOLOGY_ANNOTATIONS",
    "basic_config",
    "block_input",
    "explicit_count",
    "fill_gang",
    "gang_config",
    "go_strings",
    "is_gang",
    "kueue_topology",
    "kueue_warnings",
    "lossy",
    "mapping_at",
    "plan_options",
    "safe_template_name",
    "scheduler_warnings",
    "unknown_keys",
    "without_count",
]

ALLOWED_POLICIES = [SchedulingPolicyOption.BASIC, SchedulingPolicyOption.GANG]
"""Every adapter here opts into both policies (KEP-969: "Policies are Basic or Gang")."""

ALLOWED_DISRUPTION_MODES = [DisruptionModeOption.SINGLE, DisruptionModeOption.ALL]
"""And both disruption modes ("disruption modes are Single or All")."""

BLOCKS = ("schedulingPolicy", "schedulingConstraints", "disruptionMode")
"""The building blocks every level may set, under these JSON names."""

CLAIMS = "resourceClaims"
"""The claims block, which only a leaf (a PodGroup) may hold."""

KUEUE_REQUIRED_TOPOLOGY = "kueue.x-k8s.io/podset-required-topology"
KUEUE_PREFERRED_TOPOLOGY = "kueue.x-k8s.io/podset-preferred-topology"

KUEUE_TOPOLOGY_ANNOTATIONS = (
    "kueue.x-k8s.io/podset-required-topology",
    "kueue.x-k8s.io/podset-preferred-topology",
    "kueue.x-k8s.io/podset-unconstrained-topology",
    "kueue.x-k8s.io/podset-slice-required-topology",
    "kueue.x-k8s.io/podset-group-name",
)
"""Kueue's topology-aware-scheduling annotations on pod templates; Kueue reads them, the Workload does not."""


def plan_options(
    ident: Identity,
    *,
    name: str | None = None,
    allowed_policies: Sequence[SchedulingPolicyOption] = ALLOWED_POLICIES,
    allowed_disruption_modes: Sequence[DisruptionModeOption] = ALLOWED_DISRUPTION_MODES,
) -> BuildOptions:
    """The Workload's identity for an object: ``<name>-<hash of uid>``, its namespace, owned by the object.

    ``name`` replaces the derived name (``""`` for an object that makes no
    Workload). The derived name is left empty when the object's name cannot
    start one (the identity check already reported it), so validation still
    runs. The allow-lists default to those every bundled controller uses.
    """
    if name is None:
        name = workload_name(ident.name, ident.uid) if ident.nameable else ""
    return BuildOptions(
        name=name,
        namespace=ident.namespace,
        owner=ident.controller_ref(),
        allowed_policies=list(allowed_policies),
        allowed_disruption_modes=list(allowed_disruption_modes),
    )


def mapping_at(obj: Any, path: FieldPath, errors: ErrorList) -> Mapping[str, Any] | None:
    """The object at ``path`` inside ``obj``; ``None`` when absent, and an error when it is not an object."""
    value = at(obj, path.elements())
    if value is None or isinstance(value, Mapping):
        return value
    errors.append(type_invalid(path, value, "must be of type object"))
    return None


def unknown_keys(block: Mapping[str, Any], path: FieldPath, allowed: Iterable[str]) -> ErrorList:
    """``<path>.<key>: unknown field`` for every key of ``block`` its schema does not declare, as strict decoding
    says.
    """
    known = set(allowed)
    return ErrorList(unknown_field(path.child(str(key))) for key in block if key not in known)


def block_input(block: Mapping[str, Any] | None, *, composite: bool = False, claims: bool = True) -> WorkloadInput:
    """The building blocks of one level as a ``WorkloadInput``, each at its JSON name below the item's path.

    Args:
        block: the object holding ``schedulingPolicy`` and the rest (``None``: nothing set).
        composite: give the blocks to a composite item (``minGroupCount``) rather than a leaf.
        claims: read ``resourceClaims`` too (leaves only).
    """
    block = block or {}
    key = "composite_pod_group_data" if composite else "pod_group_data"
    given = WorkloadInput(
        policy=PolicyInput(path_elements=["schedulingPolicy"], **{key: block.get("schedulingPolicy")}),
        constraints=ConstraintsInput(
            path_elements=["schedulingConstraints"], **{key: block.get("schedulingConstraints")}
        ),
        disruption_mode=DisruptionModeInput(path_elements=["disruptionMode"], **{key: block.get("disruptionMode")}),
    )
    if claims and not composite:
        given.resource_claims = ResourceClaimsInput(pod_group_data=block.get(CLAIMS), path_elements=[CLAIMS])
    return given


def explicit_count(block: Mapping[str, Any] | None, key: str = "minCount") -> Any:
    """The ``schedulingPolicy.gang.<key>`` the user wrote, as written (``None`` when absent)."""
    gang = at(block, ("schedulingPolicy", "gang")) if block else None
    return gang.get(key) if isinstance(gang, Mapping) else None


def without_count(
    block: Mapping[str, Any] | None, drop: Callable[[Any], bool], key: str = "minCount"
) -> dict[str, Any]:
    """A copy of ``block`` without ``schedulingPolicy.gang.<key>`` when ``drop(value)`` says so.

    JobSet (PR #1250) and Trainer (KEP-3015) embed the runtime policy type,
    whose ``minCount`` is a plain integer: ``0`` there means "the controller
    computes it". A count the adapter refuses is dropped too, so that only
    the adapter's error is reported.
    """
    out = dict(block or {})
    count = explicit_count(out, key)
    if count is not None and drop(count):
        out["schedulingPolicy"] = copy.deepcopy(out["schedulingPolicy"])
        del out["schedulingPolicy"]["gang"][key]
    return out


def gang_config(priority_class_name: str = "") -> SchedulingConfig:
    """A default gang, its count left for ``fill_gang``, with the pods' priority class."""
    return SchedulingConfig(
        policy=SchedulingPolicy(gang=GangSchedulingPolicy()), priority_class_name=priority_class_name
    )


def basic_config(priority_class_name: str = "") -> SchedulingConfig:
    """A default Basic policy with the pods' priority class."""
    return SchedulingConfig(
        policy=SchedulingPolicy(basic=BasicSchedulingPolicy()), priority_class_name=priority_class_name
    )


def fill_gang(count: int) -> Callable[[SchedulingConfig], None]:
    """A callback giving a gang without a count the computed one (at least 1: a template's count must be).

    A count of 0 (a ReplicatedJob scaled to zero) gets the placeholder 1;
    such a template has no runtime group, so the placeholder never waits.
    On a composite item the count is ``minGroupCount``.
    """

    return fill_gang_count(max(count, 1))


def is_gang(item: WorkloadItem) -> bool:
    """Whether the item resolves to a gang (a union with both members set maps to Basic, as the builder maps it)."""
    policy = resolve_config(item).policy
    return policy is not None and policy.gang is not None and policy.basic is None


def safe_template_name(base: str, suffix: str, path: FieldPath, errors: ErrorList) -> str:
    """``template_name(base, suffix)``, or ``base`` with an error at ``path`` when no valid name can be derived."""
    try:
        return template_name(base, suffix)
    except BuildError as err:
        errors.append(FieldError(ErrorType.INVALID, path, base, str(err)))
        return base


def lossy(path: FieldPath, value: Any, detail: str) -> FieldError:
    """A warning: something the adapter read and could not carry into the Workload API."""
    return FieldError(ErrorType.NOT_SUPPORTED, path, value, detail)


def _required_key(obj: Mapping[str, Any], template: FieldPath) -> str | None:
    key = at(obj, (*template.elements(), "metadata", "annotations", KUEUE_REQUIRED_TOPOLOGY))
    return key if isinstance(key, str) and key else None


def kueue_topology(obj: Mapping[str, Any], pod_templates: Sequence[FieldPath], item: WorkloadItem) -> list[FieldPath]:
    """Kueue's required topology as the group's ``schedulingConstraints``; the templates it was read from.

    When every one of the group's pod templates carries
    ``kueue.x-k8s.io/podset-required-topology`` with the same key, the item
    gets a callback that makes ``schedulingConstraints.topology`` that key
    (unless the user's own blocks set a topology): both mean "all the
    group's pods in one domain of this node label". Otherwise nothing is
    mapped and ``kueue_warnings`` says so.
    """
    keys = {_required_key(obj, template) for template in pod_templates}
    key = keys.pop() if len(keys) == 1 else None
    if key is None:
        return []

    def constrain(config: SchedulingConfig) -> None:
        if config.constraints is None or not config.constraints.topology:
            config.constraints = SchedulingConstraints(topology=[V1beta1TopologyConstraint(key=key)])

    item.callbacks = [*item.callbacks, constrain]
    return list(pod_templates)


_PREFERRED = (
    "is Kueue's preferred topology: Kueue falls back to wider domains when the pods do not fit in one, while a "
    "Workload's topology constraint is required (one domain or not at all), so it is not carried; use "
    "kueue.x-k8s.io/podset-required-topology to make it the group's schedulingConstraints"
)
_UNMAPPED = (
    "is Kueue's topology-aware scheduling: kube-scheduler does not read it and the Workload carries no topology from it"
)


def kueue_warnings(
    obj: Mapping[str, Any], pod_templates: Sequence[FieldPath], mapped: Sequence[FieldPath] = ()
) -> ErrorList:
    """A warning per Kueue topology annotation on the given pod templates that the Workload does not carry.

    A required topology on a template in ``mapped`` became its group's
    ``schedulingConstraints`` (``kueue_topology``) and is not a warning; a
    preferred one says how it differs from a native constraint.
    """
    warnings = ErrorList()
    for template in pod_templates:
        annotations = at(obj, (*template.elements(), "metadata", "annotations"))
        if not isinstance(annotations, Mapping):
            continue
        for key in KUEUE_TOPOLOGY_ANNOTATIONS:
            if key not in annotations or (key == KUEUE_REQUIRED_TOPOLOGY and template in mapped):
                continue
            path = template.child("metadata", "annotations").key(key)
            detail = _PREFERRED if key == KUEUE_PREFERRED_TOPOLOGY else _UNMAPPED
            warnings.append(lossy(path, annotations[key], detail))
    return warnings


def scheduler_warnings(obj: Mapping[str, Any], pod_templates: Sequence[FieldPath]) -> ErrorList:
    """A warning per pod template that names another scheduler: only kube-scheduler reads the Workload."""
    warnings = ErrorList()
    for template in pod_templates:
        path = template.child("spec", "schedulerName")
        name = at(obj, path.elements())
        if isinstance(name, str) and name not in ("", "default-scheduler"):
            warnings.append(
                lossy(
                    path,
                    name,
                    "the Workload and its groups are read by kube-scheduler; pods this scheduler places ignore them",
                )
            )
    return warnings


def go_strings(names: Iterable[str]) -> str:
    """Go's ``%v`` of a ``[]string``: ``[a b]``."""
    return "[" + " ".join(names) + "]"
