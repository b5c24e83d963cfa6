"""Our own types: the composite building blocks, the SchedulingConfig IR, the WorkloadItem tree.

Leaf building blocks are the kubernetes client's ``V1alpha3WorkloadPodGroup*``
models. The client has no ``WorkloadCompositePodGroup*`` building blocks (and
its runtime ``V1alpha3CompositeGangSchedulingPolicy`` requires
``minGroupCount``, which the building block leaves optional), so those are
defined here with the same JSON spelling.

Every input wrapper also takes a plain dict in Kubernetes JSON spelling. A
dict that does not decode (unknown field, wrong type) is kept as given and
reported by ``Builder.validate`` as field errors at its full path, so bad user
input never surfaces as a traceback.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from typing import Annotated, Any

from kubernetes.client import (
    V1alpha3TopologyConstraint,
    V1alpha3WorkloadPodGroupDisruptionMode,
    V1alpha3WorkloadPodGroupResourceClaim,
    V1alpha3WorkloadPodGroupSchedulingConstraints,
    V1alpha3WorkloadPodGroupSchedulingPolicy,
    V1beta1TopologyConstraint,
    V1OwnerReference,
)
from pydantic import AliasChoices, BaseModel, ConfigDict, Field, PlainValidator, StrictInt, StrictStr, field_validator

from workloadbuilder._internal.decode import decode
from workloadbuilder.field import FieldPath

__all__ = [
    "BasicSchedulingPolicy",
    "BuildOptions",
    "ConstraintsInput",
    "DisruptionMode",
    "DisruptionModeInput",
    "DisruptionModeOption",
    "GangSchedulingPolicy",
    "PolicyInput",
    "ResourceClaim",
    "ResourceClaimsInput",
    "SchedulingConfig",
    "SchedulingConfigFunc",
    "SchedulingConstraints",
    "SchedulingPolicy",
    "SchedulingPolicyOption",
    "WorkloadCompositePodGroupDisruptionMode",
    "WorkloadCompositePodGroupGangSchedulingPolicy",
    "WorkloadCompositePodGroupSchedulingConstraints",
    "WorkloadCompositePodGroupSchedulingPolicy",
    "WorkloadInput",
    "WorkloadItem",
]


# --- composite building blocks (scheduling.k8s.io/v1alpha3, missing from the client) ---


class _Block(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_by_name=True, validate_by_alias=True, validate_assignment=True)

    def to_dict(self) -> dict[str, Any]:
        """The block in Kubernetes JSON spelling, unset fields left out."""
        return self.model_dump(by_alias=True, exclude_none=True)


class WorkloadCompositePodGroupGangSchedulingPolicy(_Block):
    """Gang policy of a composite group: at least ``minGroupCount`` child groups together."""

    min_group_count: StrictInt | None = Field(
        default=None,
        validation_alias=AliasChoices("minGroupCount", "min_group_count"),
        serialization_alias="minGroupCount",
    )


class WorkloadCompositePodGroupSchedulingPolicy(_Block):
    """Scheduling policy of a composite group; exactly one of ``basic`` and ``gang``."""

    basic: dict[str, Any] | None = None
    gang: WorkloadCompositePodGroupGangSchedulingPolicy | None = None


class WorkloadCompositePodGroupSchedulingConstraints(_Block):
    """Topology constraints of a composite group (at most one)."""

    topology: list[V1alpha3TopologyConstraint] | None = None


class WorkloadCompositePodGroupDisruptionMode(_Block):
    """Disruption mode of a composite group; exactly one of ``single`` and ``all``."""

    single: dict[str, Any] | None = None
    all: dict[str, Any] | None = None


# --- the IR ---


class _IR(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True, arbitrary_types_allowed=True)


class BasicSchedulingPolicy(_IR):
    """Standard pod-by-pod scheduling."""


class GangSchedulingPolicy(_IR):
    """All-or-nothing scheduling.

    ``min_count`` may stay ``None`` until a callback defaults it (a Job defaults
    it to its parallelism); it must be set before the Workload is built. On a
    composite node it carries the composite ``minGroupCount``.
    """

    min_count: StrictInt | None = None


class SchedulingPolicy(_IR):
    """The scheduling mode; exactly one of ``basic`` and ``gang`` should be set."""

    basic: BasicSchedulingPolicy | None = None
    gang: GangSchedulingPolicy | None = None


class SchedulingConstraints(_IR):
    """Placement constraints of a group."""

    topology: list[V1beta1TopologyConstraint] = Field(default_factory=list)


class SingleDisruptionMode(_IR):
    """Pods of the group may be disrupted one by one."""


class AllDisruptionMode(_IR):
    """Pods of the group are disrupted together."""


class DisruptionMode(_IR):
    """How the group's pods are disrupted; exactly one of ``single`` and ``all`` should be set."""

    single: SingleDisruptionMode | None = None
    all: AllDisruptionMode | None = None


class ResourceClaim(_IR):
    """A DRA claim shared by the group: one of the two sources should be set."""

    name: StrictStr = ""
    resource_claim_name: StrictStr | None = None
    resource_claim_template_name: StrictStr | None = None


class SchedulingConfig(_IR):
    """What one group resolves to, independent of the leaf/composite API split.

    ``priority`` and ``preemption_policy`` are not in the Go IR; here they flow
    into the compiled templates and runtime groups when a default or callback
    sets them (see docs/differences.md).
    """

    policy: SchedulingPolicy | None = None
    constraints: SchedulingConstraints | None = None
    disruption_mode: DisruptionMode | None = None
    resource_claims: list[ResourceClaim] = Field(default_factory=list)
    priority_class_name: StrictStr = ""
    priority: StrictInt | None = None
    preemption_policy: StrictStr | None = None


SchedulingConfigFunc = Callable[[SchedulingConfig], None]
"""A callback: reads and mutates the resolved config of one item in place."""


# --- inputs: building blocks paired with where they live in the controller's API ---


def _block_validator(model: type[BaseModel]) -> PlainValidator:
    """Decode a dict or foreign model into ``model``; keep undecodable input for validate to report."""

    def convert(value: Any) -> Any:
        if value is None or (type(value) is not dict and isinstance(value, model)):
            return value
        decoded, problems = decode(model, value)
        return value if problems else decoded

    return PlainValidator(convert)


def _claims_validator(value: Any) -> Any:
    if value is None:
        return []
    if not isinstance(value, list):
        return value
    out: list[Any] = []
    for claim in value:
        if isinstance(claim, V1alpha3WorkloadPodGroupResourceClaim):
            out.append(claim)
            continue
        decoded, problems = decode(V1alpha3WorkloadPodGroupResourceClaim, claim)
        out.append(claim if problems else decoded)
    return out


class _Input(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True, arbitrary_types_allowed=True)

    path_elements: list[str] = Field(default_factory=list)
    """Where the block sits below the item's path; empty reports at the item's path."""


class PolicyInput(_Input):
    """The scheduling-policy building block of one item and its path elements.

    Set ``pod_group_data`` on a leaf and ``composite_pod_group_data`` on a
    composite, never both.
    """

    pod_group_data: Annotated[
        V1alpha3WorkloadPodGroupSchedulingPolicy | dict[str, Any] | None,
        _block_validator(V1alpha3WorkloadPodGroupSchedulingPolicy),
    ] = None
    composite_pod_group_data: Annotated[
        WorkloadCompositePodGroupSchedulingPolicy | dict[str, Any] | None,
        _block_validator(WorkloadCompositePodGroupSchedulingPolicy),
    ] = None


class ConstraintsInput(_Input):
    """The scheduling-constraints building block of one item and its path elements."""

    pod_group_data: Annotated[
        V1alpha3WorkloadPodGroupSchedulingConstraints | dict[str, Any] | None,
        _block_validator(V1alpha3WorkloadPodGroupSchedulingConstraints),
    ] = None
    composite_pod_group_data: Annotated[
        WorkloadCompositePodGroupSchedulingConstraints | dict[str, Any] | None,
        _block_validator(WorkloadCompositePodGroupSchedulingConstraints),
    ] = None


class DisruptionModeInput(_Input):
    """The disruption-mode building block of one item and its path elements."""

    pod_group_data: Annotated[
        V1alpha3WorkloadPodGroupDisruptionMode | dict[str, Any] | None,
        _block_validator(V1alpha3WorkloadPodGroupDisruptionMode),
    ] = None
    composite_pod_group_data: Annotated[
        WorkloadCompositePodGroupDisruptionMode | dict[str, Any] | None,
        _block_validator(WorkloadCompositePodGroupDisruptionMode),
    ] = None


class ResourceClaimsInput(_Input):
    """The group resource claims of a leaf and their path elements (claims never apply to composites)."""

    pod_group_data: Annotated[
        list[V1alpha3WorkloadPodGroupResourceClaim | dict[str, Any]] | Any,
        PlainValidator(_claims_validator),
    ] = Field(default_factory=list)


class WorkloadInput(_IR):
    """The user's intent for one item: the four building blocks, each with its path."""

    policy: PolicyInput = Field(default_factory=PolicyInput)
    constraints: ConstraintsInput = Field(default_factory=ConstraintsInput)
    disruption_mode: DisruptionModeInput = Field(default_factory=DisruptionModeInput)
    resource_claims: ResourceClaimsInput = Field(default_factory=ResourceClaimsInput)


class WorkloadItem(_IR):
    """One node of a controller's logical workload.

    A node with children is a composite (compiled into a
    CompositePodGroupTemplate); a node without is a leaf (compiled into a
    PodGroupTemplate). As an old root for ``Builder.validate`` only ``name``,
    ``input`` data and ``children`` are read.

    Attributes:
        name: the template name; unique across the whole tree.
        path: where this item's scheduling blocks live in the controller's
            API, such as ``spec.scheduling``; a string is parsed.
        default_config: the controller's default for every field the user left unset.
        input: the user's building blocks and their path elements.
        callbacks: run in order on the resolved config.
        children: sub-groups; ``None`` entries are rejected by the tree check.
    """

    name: StrictStr = ""
    path: FieldPath | None = None
    default_config: SchedulingConfig | None = None
    input: WorkloadInput = Field(default_factory=WorkloadInput)
    callbacks: Sequence[Callable[[SchedulingConfig], None] | None] = Field(default_factory=list)
    children: Sequence[WorkloadItem | None] = Field(default_factory=list)

    @field_validator("path", mode="before")
    @classmethod
    def _parse_path(cls, value: Any) -> Any:
        if isinstance(value, str):
            return FieldPath.parse(value)
        return value

    @field_validator("callbacks", "children", mode="after")
    @classmethod
    def _as_list(cls, value: Sequence[Any]) -> list[Any]:
        # Any sequence is accepted; a list is kept, so the item reads the same whichever was given.
        return list(value)

    @property
    def is_composite(self) -> bool:
        """Whether this node groups other groups rather than owning pods."""
        return len(self.children) > 0


class SchedulingPolicyOption(str, enum.Enum):
    """A scheduling policy a controller opts into."""

    BASIC = "Basic"
    GANG = "Gang"


class DisruptionModeOption(str, enum.Enum):
    """A disruption mode a controller opts into."""

    SINGLE = "Single"
    ALL = "All"


def _owner_validator(value: Any) -> Any:
    if value is None or isinstance(value, V1OwnerReference):
        return value
    decoded, problems = decode(V1OwnerReference, value)
    if problems:
        raise ValueError("; ".join(str(problem.at(FieldPath("owner"))) for problem in problems))
    return decoded


class BuildOptions(_IR):
    """The identity of the Workload to build and the controller's allow-lists.

    Empty allow-lists allow nothing: a policy or mode a controller has not
    opted into is denied, so new API members stay off until it opts in.
    ``disable_declarative_validation`` suits in-tree controllers whose
    apiserver already ran the building blocks' rules.
    """

    name: StrictStr = ""
    namespace: StrictStr = ""
    owner: Annotated[V1OwnerReference | None, PlainValidator(_owner_validator)] = None
    allowed_policies: list[SchedulingPolicyOption] = Field(default_factory=list)
    allowed_disruption_modes: list[DisruptionModeOption] = Field(default_factory=list)
    disable_declarative_validation: bool = False
