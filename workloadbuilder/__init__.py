"""workloadbuilder: compile a controller's own API into Kubernetes' gang-scheduling objects.

A Python port of ``k8s.io/component-helpers/scheduling/schedulingv1/workloadbuilder``
(Kubernetes 1.37). Describe your workload as a tree of ``WorkloadItem`` nodes
whose building blocks record where they live in your API, then:

    builder = Builder(root, BuildOptions(name=..., namespace=..., owner=...,
                                         allowed_policies=[...], allowed_disruption_modes=[...]))
    errors = builder.validate()          # field errors at your API's own paths
    workload = builder.build_workload()  # scheduling.k8s.io/v1beta1 Workload
    pod_group = builder.new_pod_group("my-pg", "my-template")

The core API (the names in ``__all__``: what a controller author calls) is
importable from this package; helpers live in their modules (names in
``workloadbuilder.runtime.naming``, the IR types in ``workloadbuilder.types``,
delegation in ``workloadbuilder.runtime.delegation``, ...). The adapters are
``workloadbuilder.adapters``, the placement engine
``workloadbuilder.placement`` and the testing kit ``workloadbuilder.testing``.

Names are imported on first use (PEP 562), so ``import workloadbuilder``
costs almost nothing and a command or program pays only for what it uses.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

from workloadbuilder._internal.kubernetes import defer_package_init

if TYPE_CHECKING:
    from workloadbuilder import manifests
    from workloadbuilder.builder import (
        Builder,
    )
    from workloadbuilder.errors import (
        BuildError,
        InvalidArgumentError,
        WorkloadBuilderError,
    )
    from workloadbuilder.field import (
        AggregateError,
        ErrorList,
        ErrorType,
        FieldError,
        FieldPath,
    )
    from workloadbuilder.forest import (
        Forest,
        build_forest,
    )
    from workloadbuilder.interop import (
        apply,
    )
    from workloadbuilder.manifests import (
        ManifestError,
        to_dict,
        to_yaml,
    )
    from workloadbuilder.migration.versions import (
        migrate,
    )
    from workloadbuilder.runtime.hierarchy import (
        Hierarchy,
        RuntimeGroup,
        materialize,
    )
    from workloadbuilder.runtime.resizing import (
        gang_resize_patch,
        resize,
    )
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
        WorkloadCompositePodGroupSchedulingConstraints,
        WorkloadCompositePodGroupSchedulingPolicy,
        WorkloadInput,
        WorkloadItem,
    )
    from workloadbuilder.validation.gates import (
        FeatureGates,
    )
    from workloadbuilder.validation.objects import (
        validate_composite_pod_group,
        validate_pod_group,
        validate_workload,
    )
    from workloadbuilder.validation.update import (
        check_update,
    )

defer_package_init()

_EXPORTS: dict[str, str] = {
    "AggregateError": "workloadbuilder.field",
    "AllDisruptionMode": "workloadbuilder.types",
    "apply": "workloadbuilder.interop",
    "BasicSchedulingPolicy": "workloadbuilder.types",
    "build_forest": "workloadbuilder.forest",
    "Builder": "workloadbuilder.builder",
    "BuildError": "workloadbuilder.errors",
    "BuildOptions": "workloadbuilder.types",
    "check_update": "workloadbuilder.validation.update",
    "ConstraintsInput": "workloadbuilder.types",
    "DisruptionMode": "workloadbuilder.types",
    "DisruptionModeInput": "workloadbuilder.types",
    "DisruptionModeOption": "workloadbuilder.types",
    "ErrorList": "workloadbuilder.field",
    "ErrorType": "workloadbuilder.field",
    "FeatureGates": "workloadbuilder.validation.gates",
    "FieldError": "workloadbuilder.field",
    "FieldPath": "workloadbuilder.field",
    "Forest": "workloadbuilder.forest",
    "gang_resize_patch": "workloadbuilder.runtime.resizing",
    "GangSchedulingPolicy": "workloadbuilder.types",
    "Hierarchy": "workloadbuilder.runtime.hierarchy",
    "InvalidArgumentError": "workloadbuilder.errors",
    "ManifestError": "workloadbuilder.manifests",
    "materialize": "workloadbuilder.runtime.hierarchy",
    "migrate": "workloadbuilder.migration.versions",
    "PolicyInput": "workloadbuilder.types",
    "resize": "workloadbuilder.runtime.resizing",
    "ResourceClaim": "workloadbuilder.types",
    "ResourceClaimsInput": "workloadbuilder.types",
    "RuntimeGroup": "workloadbuilder.runtime.hierarchy",
    "SchedulingConfig": "workloadbuilder.types",
    "SchedulingConfigFunc": "workloadbuilder.types",
    "SchedulingConstraints": "workloadbuilder.types",
    "SchedulingPolicy": "workloadbuilder.types",
    "SchedulingPolicyOption": "workloadbuilder.types",
    "SingleDisruptionMode": "workloadbuilder.types",
    "to_dict": "workloadbuilder.manifests",
    "to_yaml": "workloadbuilder.manifests",
    "validate_composite_pod_group": "workloadbuilder.validation.objects",
    "validate_pod_group": "workloadbuilder.validation.objects",
    "validate_workload": "workloadbuilder.validation.objects",
    "WorkloadBuilderError": "workloadbuilder.errors",
    "WorkloadCompositePodGroupDisruptionMode": "workloadbuilder.types",
    "WorkloadCompositePodGroupSchedulingConstraints": "workloadbuilder.types",
    "WorkloadCompositePodGroupSchedulingPolicy": "workloadbuilder.types",
    "WorkloadInput": "workloadbuilder.types",
    "WorkloadItem": "workloadbuilder.types",
}
"""Each public name and the module that defines it."""

_SUBMODULES = ("manifests",)
"""The public submodules, importable as names of this package."""

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
    "FeatureGates",
    "FieldError",
    "FieldPath",
    "Forest",
    "GangSchedulingPolicy",
    "Hierarchy",
    "InvalidArgumentError",
    "ManifestError",
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
    "WorkloadBuilderError",
    "WorkloadCompositePodGroupDisruptionMode",
    "WorkloadCompositePodGroupSchedulingConstraints",
    "WorkloadCompositePodGroupSchedulingPolicy",
    "WorkloadInput",
    "WorkloadItem",
    "apply",
    "build_forest",
    "check_update",
    "gang_resize_patch",
    "manifests",
    "materialize",
    "migrate",
    "resize",
    "to_dict",
    "to_yaml",
    "validate_composite_pod_group",
    "validate_pod_group",
    "validate_workload",
]


def __getattr__(name: str) -> object:
    """Import a public name on first use and keep it, as if it had been imported up front."""
    if name in _SUBMODULES:
        value: object = import_module(f"{__name__}.{name}")
    elif name in _EXPORTS:
        value = getattr(import_module(_EXPORTS[name]), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The module's attributes, the not yet imported public names included."""
    return sorted(globals().keys() | _EXPORTS.keys() | set(_SUBMODULES))
