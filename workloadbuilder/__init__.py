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
``workloadbuilder.naming``, the IR types in ``workloadbuilder.types``,
delegation in ``workloadbuilder.delegation``, ...). The adapters are
``workloadbuilder.adapters``, the placement engine
``workloadbuilder.placement`` and the testing kit ``workloadbuilder.testing``.

Names are imported on first use (PEP 562), so ``import workloadbuilder``
costs almost nothing and a command or program pays only for what it uses.
"""

from __future__ import annotations

import sys
import warnings
from importlib import import_module
from types import ModuleType
from typing import TYPE_CHECKING

from workloadbuilder._kubernetes import defer_package_init

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
        to_dict,
        to_yaml,
    )
    from workloadbuilder.materialize import (
        Hierarchy,
        RuntimeGroup,
        materialize,
    )
    from workloadbuilder.migrate import (
        migrate,
    )
    from workloadbuilder.resize import (
        resize,
    )
    from workloadbuilder.types import (
        BuildOptions,
        ConstraintsInput,
        DisruptionModeInput,
        PolicyInput,
        ResourceClaimsInput,
        SchedulingConfig,
        SchedulingConfigFunc,
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
    "apply": "workloadbuilder.interop",
    "build_forest": "workloadbuilder.forest",
    "Builder": "workloadbuilder.builder",
    "BuildError": "workloadbuilder.errors",
    "BuildOptions": "workloadbuilder.types",
    "check_update": "workloadbuilder.validation.update",
    "ConstraintsInput": "workloadbuilder.types",
    "DisruptionModeInput": "workloadbuilder.types",
    "ErrorList": "workloadbuilder.field",
    "ErrorType": "workloadbuilder.field",
    "FeatureGates": "workloadbuilder.validation.gates",
    "FieldError": "workloadbuilder.field",
    "FieldPath": "workloadbuilder.field",
    "Forest": "workloadbuilder.forest",
    "Hierarchy": "workloadbuilder.materialize",
    "InvalidArgumentError": "workloadbuilder.errors",
    "materialize": "workloadbuilder.materialize",
    "migrate": "workloadbuilder.migrate",
    "PolicyInput": "workloadbuilder.types",
    "resize": "workloadbuilder.resize",
    "ResourceClaimsInput": "workloadbuilder.types",
    "RuntimeGroup": "workloadbuilder.materialize",
    "SchedulingConfig": "workloadbuilder.types",
    "SchedulingConfigFunc": "workloadbuilder.types",
    "to_dict": "workloadbuilder.manifests",
    "to_yaml": "workloadbuilder.manifests",
    "validate_composite_pod_group": "workloadbuilder.validation.objects",
    "validate_pod_group": "workloadbuilder.validation.objects",
    "validate_workload": "workloadbuilder.validation.objects",
    "WorkloadBuilderError": "workloadbuilder.errors",
    "WorkloadInput": "workloadbuilder.types",
    "WorkloadItem": "workloadbuilder.types",
}
"""Each public name and the module that defines it."""

_MOVED: dict[str, str] = {
    "AllDisruptionMode": "workloadbuilder.types",
    "ApiStatus": "workloadbuilder.interop",
    "ApplyResult": "workloadbuilder.interop",
    "BasicSchedulingPolicy": "workloadbuilder.types",
    "delegate": "workloadbuilder.delegation",
    "delegated_pod_group": "workloadbuilder.delegation",
    "Delegation": "workloadbuilder.delegation",
    "delegation_of": "workloadbuilder.delegation",
    "DisruptionMode": "workloadbuilder.types",
    "DisruptionModeOption": "workloadbuilder.types",
    "DocumentProblem": "workloadbuilder.manifests",
    "fill_gang_count": "workloadbuilder.resolve",
    "fnv32a": "workloadbuilder.naming",
    "gang_resize_patch": "workloadbuilder.resize",
    "GangSchedulingPolicy": "workloadbuilder.types",
    "GateRequirement": "workloadbuilder.validation.requirements",
    "GROUP_TEMPLATE_NAME_ANNOTATION": "workloadbuilder.delegation",
    "HierarchyProblem": "workloadbuilder.validation.hierarchy",
    "job_template_name": "workloadbuilder.naming",
    "KubeObject": "workloadbuilder.kinds",
    "ManifestError": "workloadbuilder.manifests",
    "Migration": "workloadbuilder.migrate",
    "MigrationNote": "workloadbuilder.migrate",
    "MissingDependencyError": "workloadbuilder.errors",
    "Namer": "workloadbuilder.materialize",
    "NoAdapterError": "workloadbuilder.errors",
    "PARENT_COMPOSITE_POD_GROUP_ANNOTATION": "workloadbuilder.delegation",
    "PARENT_COMPOSITE_POD_GROUP_ANNOTATION_ALIASES": "workloadbuilder.delegation",
    "Patch": "workloadbuilder.resize",
    "pod_claims_for": "workloadbuilder.delegation",
    "pod_group_name": "workloadbuilder.naming",
    "required_gates": "workloadbuilder.validation.requirements",
    "ResizeError": "workloadbuilder.errors",
    "resolve_config": "workloadbuilder.resolve",
    "ResourceClaim": "workloadbuilder.types",
    "runtime_group_name": "workloadbuilder.naming",
    "safe_encode_string": "workloadbuilder.naming",
    "SchedulingConstraints": "workloadbuilder.types",
    "SchedulingPolicy": "workloadbuilder.types",
    "SchedulingPolicyOption": "workloadbuilder.types",
    "SingleDisruptionMode": "workloadbuilder.types",
    "stamp_pod_template": "workloadbuilder.delegation",
    "StrictDecodingError": "workloadbuilder.decode",
    "template_name": "workloadbuilder.naming",
    "validate_hierarchy": "workloadbuilder.validation.hierarchy",
    "workload_name": "workloadbuilder.naming",
    "workload_warnings": "workloadbuilder.validation.objects",
    "WorkloadCompositePodGroupDisruptionMode": "workloadbuilder.types",
    "WorkloadCompositePodGroupGangSchedulingPolicy": "workloadbuilder.types",
    "WorkloadCompositePodGroupSchedulingConstraints": "workloadbuilder.types",
    "WorkloadCompositePodGroupSchedulingPolicy": "workloadbuilder.types",
}
"""Names this package exported before 0.2, each with the module that defines it: still served, with a
``DeprecationWarning``, for one release. Import them from that module."""

_SUBMODULES = ("manifests",)
"""The public submodules, importable as names of this package."""

__all__ = [
    "AggregateError",
    "BuildError",
    "BuildOptions",
    "Builder",
    "ConstraintsInput",
    "DisruptionModeInput",
    "ErrorList",
    "ErrorType",
    "FeatureGates",
    "FieldError",
    "FieldPath",
    "Forest",
    "Hierarchy",
    "InvalidArgumentError",
    "PolicyInput",
    "ResourceClaimsInput",
    "RuntimeGroup",
    "SchedulingConfig",
    "SchedulingConfigFunc",
    "WorkloadBuilderError",
    "WorkloadInput",
    "WorkloadItem",
    "apply",
    "build_forest",
    "check_update",
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
    elif name in _MOVED:
        warnings.warn(
            f"workloadbuilder.{name} is deprecated: import it from {_MOVED[name]}",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(import_module(_MOVED[name]), name)  # not cached: every use warns
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
        if isinstance(value, ModuleType) and (name in _EXPORTS or name in _MOVED):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
