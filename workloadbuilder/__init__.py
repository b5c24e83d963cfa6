"""workloadbuilder: compile a controller's own API into Kubernetes' gang-scheduling objects.

A Python port of ``k8s.io/component-helpers/scheduling/schedulingv1/workloadbuilder``
(Kubernetes 1.37). Describe your workload as a tree of ``WorkloadItem`` nodes
whose building blocks record where they live in your API, then:

    builder = Builder(root, BuildOptions(name=..., namespace=..., owner=...,
                                         allowed_policies=[...], allowed_disruption_modes=[...]))
    errors = builder.validate()          # field errors at your API's own paths
    workload = builder.build_workload()  # scheduling.k8s.io/v1beta1 Workload
    pod_group = builder.new_pod_group("my-pg", "my-template")

The core API (the names in ``__all__``) is importable from this package;
the adapters are ``workloadbuilder.adapters``, the placement engine
``workloadbuilder.placement`` and the testing kit ``workloadbuilder.testing``.

Names are imported on first use (PEP 562), so ``import workloadbuilder``
costs almost nothing and a command or program pays only for what it uses.
"""

from __future__ import annotations

import sys
from importlib import import_module
from types import ModuleType
from typing import TYPE_CHECKING

from workloadbuilder._kubernetes import defer_package_init

if TYPE_CHECKING:
    from workloadbuilder import manifests
    from workloadbuilder.builder import (
        Builder,
    )
    from workloadbuilder.decode import (
        StrictDecodingError,
    )
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
    from workloadbuilder.forest import (
        Forest,
        build_forest,
    )
    from workloadbuilder.interop import (
        ApiStatus,
        ApplyResult,
        apply,
    )
    from workloadbuilder.kinds import (
        KubeObject,
    )
    from workloadbuilder.manifests import (
        DocumentProblem,
        ManifestError,
        to_dict,
        to_yaml,
    )
    from workloadbuilder.materialize import (
        Hierarchy,
        Namer,
        RuntimeGroup,
        materialize,
    )
    from workloadbuilder.migrate import (
        Migration,
        MigrationNote,
        migrate,
    )
    from workloadbuilder.naming import (
        fnv32a,
        job_template_name,
        pod_group_name,
        runtime_group_name,
        safe_encode_string,
        template_name,
        workload_name,
    )
    from workloadbuilder.resize import (
        Patch,
        gang_resize_patch,
        resize,
    )
    from workloadbuilder.resolve import (
        fill_gang_count,
        resolve_config,
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
        WorkloadCompositePodGroupGangSchedulingPolicy,
        WorkloadCompositePodGroupSchedulingConstraints,
        WorkloadCompositePodGroupSchedulingPolicy,
        WorkloadInput,
        WorkloadItem,
    )
    from workloadbuilder.validation.gates import (
        FeatureGates,
    )
    from workloadbuilder.validation.hierarchy import (
        HierarchyProblem,
        validate_hierarchy,
    )
    from workloadbuilder.validation.objects import (
        validate_composite_pod_group,
        validate_pod_group,
        validate_workload,
        workload_warnings,
    )
    from workloadbuilder.validation.requirements import (
        GateRequirement,
        required_gates,
    )
    from workloadbuilder.validation.update import (
        check_update,
    )

defer_package_init()

_EXPORTS: dict[str, str] = {
    "AggregateError": "workloadbuilder.field",
    "AllDisruptionMode": "workloadbuilder.types",
    "ApiStatus": "workloadbuilder.interop",
    "apply": "workloadbuilder.interop",
    "ApplyResult": "workloadbuilder.interop",
    "BasicSchedulingPolicy": "workloadbuilder.types",
    "build_forest": "workloadbuilder.forest",
    "Builder": "workloadbuilder.builder",
    "BuildError": "workloadbuilder.errors",
    "BuildOptions": "workloadbuilder.types",
    "check_update": "workloadbuilder.validation.update",
    "ConstraintsInput": "workloadbuilder.types",
    "delegate": "workloadbuilder.delegation",
    "delegated_pod_group": "workloadbuilder.delegation",
    "Delegation": "workloadbuilder.delegation",
    "delegation_of": "workloadbuilder.delegation",
    "DisruptionMode": "workloadbuilder.types",
    "DisruptionModeInput": "workloadbuilder.types",
    "DisruptionModeOption": "workloadbuilder.types",
    "DocumentProblem": "workloadbuilder.manifests",
    "ErrorList": "workloadbuilder.field",
    "ErrorType": "workloadbuilder.field",
    "FeatureGates": "workloadbuilder.validation.gates",
    "FieldError": "workloadbuilder.field",
    "FieldPath": "workloadbuilder.field",
    "fill_gang_count": "workloadbuilder.resolve",
    "fnv32a": "workloadbuilder.naming",
    "Forest": "workloadbuilder.forest",
    "gang_resize_patch": "workloadbuilder.resize",
    "GangSchedulingPolicy": "workloadbuilder.types",
    "GateRequirement": "workloadbuilder.validation.requirements",
    "GROUP_TEMPLATE_NAME_ANNOTATION": "workloadbuilder.delegation",
    "Hierarchy": "workloadbuilder.materialize",
    "HierarchyProblem": "workloadbuilder.validation.hierarchy",
    "InvalidArgumentError": "workloadbuilder.errors",
    "MissingDependencyError": "workloadbuilder.errors",
    "job_template_name": "workloadbuilder.naming",
    "KubeObject": "workloadbuilder.kinds",
    "ManifestError": "workloadbuilder.manifests",
    "materialize": "workloadbuilder.materialize",
    "migrate": "workloadbuilder.migrate",
    "Migration": "workloadbuilder.migrate",
    "MigrationNote": "workloadbuilder.migrate",
    "Namer": "workloadbuilder.materialize",
    "NoAdapterError": "workloadbuilder.errors",
    "PARENT_COMPOSITE_POD_GROUP_ANNOTATION": "workloadbuilder.delegation",
    "PARENT_COMPOSITE_POD_GROUP_ANNOTATION_ALIASES": "workloadbuilder.delegation",
    "Patch": "workloadbuilder.resize",
    "pod_claims_for": "workloadbuilder.delegation",
    "pod_group_name": "workloadbuilder.naming",
    "PolicyInput": "workloadbuilder.types",
    "required_gates": "workloadbuilder.validation.requirements",
    "resize": "workloadbuilder.resize",
    "ResizeError": "workloadbuilder.errors",
    "resolve_config": "workloadbuilder.resolve",
    "ResourceClaim": "workloadbuilder.types",
    "ResourceClaimsInput": "workloadbuilder.types",
    "runtime_group_name": "workloadbuilder.naming",
    "RuntimeGroup": "workloadbuilder.materialize",
    "safe_encode_string": "workloadbuilder.naming",
    "SchedulingConfig": "workloadbuilder.types",
    "SchedulingConfigFunc": "workloadbuilder.types",
    "SchedulingConstraints": "workloadbuilder.types",
    "SchedulingPolicy": "workloadbuilder.types",
    "SchedulingPolicyOption": "workloadbuilder.types",
    "SingleDisruptionMode": "workloadbuilder.types",
    "stamp_pod_template": "workloadbuilder.delegation",
    "StrictDecodingError": "workloadbuilder.decode",
    "template_name": "workloadbuilder.naming",
    "to_dict": "workloadbuilder.manifests",
    "to_yaml": "workloadbuilder.manifests",
    "validate_composite_pod_group": "workloadbuilder.validation.objects",
    "validate_hierarchy": "workloadbuilder.validation.hierarchy",
    "validate_pod_group": "workloadbuilder.validation.objects",
    "validate_workload": "workloadbuilder.validation.objects",
    "workload_name": "workloadbuilder.naming",
    "workload_warnings": "workloadbuilder.validation.objects",
    "WorkloadBuilderError": "workloadbuilder.errors",
    "WorkloadCompositePodGroupDisruptionMode": "workloadbuilder.types",
    "WorkloadCompositePodGroupGangSchedulingPolicy": "workloadbuilder.types",
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
    "ApiStatus",
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
    "InvalidArgumentError",
    "MissingDependencyError",
    "KubeObject",
    "ManifestError",
    "Migration",
    "MigrationNote",
    "Namer",
    "NoAdapterError",
    "PARENT_COMPOSITE_POD_GROUP_ANNOTATION",
    "PARENT_COMPOSITE_POD_GROUP_ANNOTATION_ALIASES",
    "Patch",
    "PolicyInput",
    "ResizeError",
    "ResourceClaim",
    "ResourceClaimsInput",
    "RuntimeGroup",
    "SchedulingConfig",
    "SchedulingConfigFunc",
    "SchedulingConstraints",
    "SchedulingPolicy",
    "SchedulingPolicyOption",
    "SingleDisruptionMode",
    "StrictDecodingError",
    "WorkloadBuilderError",
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


class _Package(ModuleType):
    """This package, where a function keeps its name over the submodule of the same name (``resize``, ``migrate``).

    Importing a submodule sets it as an attribute of its package; eagerly
    imported, ``from workloadbuilder.resize import resize`` then replaced the
    module by the function. Lazily, the function may be asked for after the
    module was imported, so the module is kept out of the way instead.
    """

    def __setattr__(self, name: str, value: object) -> None:
        if isinstance(value, ModuleType) and name in _EXPORTS:
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
