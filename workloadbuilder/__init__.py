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

from workloadbuilder.builder import Builder
from workloadbuilder.field import (
    AggregateError,
    ErrorList,
    ErrorType,
    FieldError,
    FieldPath,
)
from workloadbuilder.manifests import to_dict, to_yaml
from workloadbuilder.resolve import resolve_config
from workloadbuilder.types import (
    AllDisruptionMode,
    BasicSchedulingPolicy,
    BuildError,
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

__all__ = [
    "AggregateError",
    "AllDisruptionMode",
    "BasicSchedulingPolicy",
    "BuildError",
    "BuildOptions",
    "Builder",
    "ConstraintsInput",
    "DisruptionMode",
    "DisruptionModeInput",
    "DisruptionModeOption",
    "ErrorList",
    "ErrorType",
    "FieldError",
    "FieldPath",
    "GangSchedulingPolicy",
    "PolicyInput",
    "ResourceClaim",
    "ResourceClaimsInput",
    "SchedulingConfig",
    "SchedulingConfigFunc",
    "SchedulingConstraints",
    "SchedulingPolicy",
    "SchedulingPolicyOption",
    "SingleDisruptionMode",
    "WorkloadCompositePodGroupDisruptionMode",
    "WorkloadCompositePodGroupGangSchedulingPolicy",
    "WorkloadCompositePodGroupSchedulingConstraints",
    "WorkloadCompositePodGroupSchedulingPolicy",
    "WorkloadInput",
    "WorkloadItem",
    "resolve_config",
    "to_dict",
    "to_yaml",
]
