"""workloadbuilder: compile a controller's own API into Kubernetes' gang-scheduling objects.

A Python port of ``k8s.io/component-helpers/scheduling/schedulingv1/workloadbuilder``
(Kubernetes 1.37). Describe your workload as a tree of ``WorkloadItem`` nodes
whose building blocks record where they live in your API, then::

    builder = Builder(root, BuildOptions(name=..., namespace=..., owner=...,
                                         allowed_policies=[...], allowed_disruption_modes=[...]))
    errors = builder.validate()          # field errors at your API's own paths
    workload = builder.build_workload()  # scheduling.k8s.io/v1beta1 Workload
    pod_group = builder.new_pod_group("my-pg", "my-template")

Everything public is importable from this package.
"""

from workloadbuilder import manifests
from workloadbuilder.builder import Builder
from workloadbuilder.decode import StrictDecodingError
from workloadbuilder.delegation import (
    GROUP_TEMPLATE_NAME_ANNOTATION,
    PARENT_COMPOSITE_POD_GROUP_ANNOTATION,
    PARENT_COMPOSITE_POD_GROUP_ANNOTATION_ALIASES,
    Delegation,
    delegate,
    delegated_pod_group,
    delegation_of,
    pod_claims_for,
    stamp_pod_template,
)
from workloadbuilder.errors import (
    BuildError,
    InvalidArgumentError,
    MissingDependencyError,
    NoAdapterError,
    ResizeError,
    WorkloadBuilderError,
)
from workloadbuilder.field import (
    AggregateError,
    ErrorList,
    ErrorType,
    FieldError,
    FieldPath,
)
from workloadbuilder.forest import Forest, build_forest
from workloadbuilder.interop import ApiStatus, ApplyResult, apply
from workloadbuilder.kinds import KubeObject
from workloadbuilder.manifests import DocumentProblem, ManifestError, to_dict, to_yaml
from workloadbuilder.materialize import Hierarchy, Namer, RuntimeGroup, materialize
from workloadbuilder.migrate import Migration, MigrationNote, migrate
from workloadbuilder.naming import (
    fnv32a,
    job_template_name,
    pod_group_name,
    runtime_group_name,
    safe_encode_string,
    template_name,
    workload_name,
)
from workloadbuilder.resize import Patch, gang_resize_patch, resize
from workloadbuilder.resolve import fill_gang_count, resolve_config
from workloadbuilder.types import (
    AllDisruptionMode,
    BasicSchedulingPolicy,
    BuildOptions,
    ConstraintsInput,
    DisruptionMode,
    DisruptionModeInput,
    DisruptionModeOption,
    GangSchedulingPolicy,
    PolicyInput,
    ResourceClaim,
    ResourceClaimsInput,
    SchedulingConfig,
    SchedulingConfigFunc,
    SchedulingConstraints,
    SchedulingPolicy,
    SchedulingPolicyOption,
    SingleDisruptionMode,
    WorkloadCompositePodGroupDisruptionMode,
    WorkloadCompositePodGroupGangSchedulingPolicy,
    WorkloadCompositePodGroupSchedulingConstraints,
    WorkloadCompositePodGroupSchedulingPolicy,
    WorkloadInput,
    WorkloadItem,
)
from workloadbuilder.validation.gates import FeatureGates
from workloadbuilder.validation.hierarchy import HierarchyProblem, validate_hierarchy
from workloadbuilder.validation.objects import (
    validate_composite_pod_group,
    validate_pod_group,
    validate_workload,
    workload_warnings,
)
from workloadbuilder.validation.requirements import GateRequirement, required_gates
from workloadbuilder.validation.update import check_update

__all__ = [
    "InvalidArgumentError",
    "KubeObject",
    "MissingDependencyError",
    "NoAdapterError",
    "ResizeError",
    "WorkloadBuilderError",
    "AggregateError",
    "AllDisruptionMode",
    "ApplyResult",
    "BasicSchedulingPolicy",
    "BuildError",
    "BuildOptions",
    "Builder",
    "ConstraintsInput",
    "Delegation",
    "DisruptionMode",
    "DisruptionModeInput",
    "DisruptionModeOption",
    "DocumentProblem",
    "ErrorList",
    "ErrorType",
    "FeatureGates",
    "FieldError",
    "FieldPath",
    "Forest",
    "GROUP_TEMPLATE_NAME_ANNOTATION",
    "GangSchedulingPolicy",
    "GateRequirement",
    "Hierarchy",
    "HierarchyProblem",
    "ManifestError",
    "Migration",
    "MigrationNote",
    "Namer",
    "PARENT_COMPOSITE_POD_GROUP_ANNOTATION",
    "PARENT_COMPOSITE_POD_GROUP_ANNOTATION_ALIASES",
    "Patch",
    "PolicyInput",
    "ResourceClaim",
    "ResourceClaimsInput",
    "RuntimeGroup",
    "SchedulingConfig",
    "SchedulingConfigFunc",
    "SchedulingConstraints",
    "SchedulingPolicy",
    "SchedulingPolicyOption",
    "SingleDisruptionMode",
    "ApiStatus",
    "StrictDecodingError",
    "WorkloadCompositePodGroupDisruptionMode",
    "WorkloadCompositePodGroupGangSchedulingPolicy",
    "WorkloadCompositePodGroupSchedulingConstraints",
    "WorkloadCompositePodGroupSchedulingPolicy",
    "WorkloadInput",
    "WorkloadItem",
    "apply",
    "build_forest",
    "check_update",
    "delegate",
    "delegated_pod_group",
    "delegation_of",
    "fill_gang_count",
    "fnv32a",
    "gang_resize_patch",
    "job_template_name",
    "manifests",
    "materialize",
    "migrate",
    "pod_claims_for",
    "pod_group_name",
    "required_gates",
    "resize",
    "resolve_config",
    "runtime_group_name",
    "safe_encode_string",
    "stamp_pod_template",
    "template_name",
    "to_dict",
    "to_yaml",
    "validate_composite_pod_group",
    "validate_hierarchy",
    "validate_pod_group",
    "validate_workload",
    "workload_name",
    "workload_warnings",
]
