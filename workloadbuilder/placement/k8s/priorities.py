"""Priorities as the apiserver's Priority admission plugin gives them.

A pod or group names a ``priorityClassName``; admission turns it into the
integer ``spec.priority`` (and the class's ``preemptionPolicy``). With no
name, the ``globalDefault`` class applies (the lowest value if several claim
it), else priority 0. The two system classes exist in every cluster. An
unknown name is rejected with admission's own message:

    podgroups.scheduling.k8s.io "workers" is forbidden: no PriorityClass with name high was found

(plugin/pkg/admission/priority/admission.go). ``framework.queue.resolve_request``
applies this to every group to place; the cluster readers apply it to running
pods and groups whose ``spec.priority`` is absent.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from workloadbuilder._internal.arguments import check_fields
from workloadbuilder._internal.gofmt import capped
from workloadbuilder.errors import WorkloadBuilderError
from workloadbuilder.field import (
    ErrorList,
    FieldPath,
    extend_path,
    forbidden,
    invalid,
    not_supported,
    required,
    type_invalid,
)
from workloadbuilder.manifests import to_dict

__all__ = [
    "HIGHEST_USER_DEFINABLE_PRIORITY",
    "PREEMPT_LOWER_PRIORITY",
    "PREEMPT_NEVER",
    "SYSTEM_CLASSES",
    "PriorityClass",
    "PriorityClasses",
    "PriorityError",
    "PrioritySpec",
    "read_priority_class",
    "read_priority_classes",
    "running_priority",
]

PREEMPT_LOWER_PRIORITY = "PreemptLowerPriority"
PREEMPT_NEVER = "Never"
_POLICIES = (PREEMPT_LOWER_PRIORITY, PREEMPT_NEVER)
HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000
"""The largest ``value`` a user's PriorityClass may have (``HighestUserDefinablePriority``)."""


@dataclass(frozen=True)
class PriorityClass:
    """A ``scheduling.k8s.io/v1`` PriorityClass: what its name resolves to."""

    name: str
    value: int
    global_default: bool = False
    preemption_policy: str = PREEMPT_LOWER_PRIORITY

    def __post_init__(self) -> None:
        check_fields(self)


SYSTEM_CLASSES = (
    PriorityClass("system-cluster-critical", 2_000_000_000),
    PriorityClass("system-node-critical", 2_000_001_000),
)
"""The classes every cluster has (``SystemCriticalPriority`` and ``SystemCriticalPriority + 1000``)."""


@dataclass(frozen=True)
class PrioritySpec:
    """An object's ``priorityClassName``, ``priority`` and ``preemptionPolicy`` as written, before admission."""

    class_name: str | None = None
    priority: int | None = None
    preemption_policy: str | None = None


class PriorityError(WorkloadBuilderError, ValueError):
    """A priority that admission would not give: an unknown class, or a priority that contradicts its class.

    ``obj`` names the object it is about.
    """

    def __init__(self, message: str, obj: str) -> None:
        super().__init__(message)
        self.obj = obj


class PriorityClasses(Mapping[str, PriorityClass]):
    """The PriorityClasses of a cluster by name, the system classes included.

    Examples:
        >>> classes = PriorityClasses([PriorityClass("batch", 100, global_default=True)])
        >>> classes.resolve(None, "pods", "p"), classes.resolve("system-node-critical", "pods", "p")[0]
        ((100, 'PreemptLowerPriority'), 2000001000)
    """

    def __init__(self, classes: Iterable[PriorityClass] = ()) -> None:
        self._by_name = {cls.name: cls for cls in (*SYSTEM_CLASSES, *classes)}

    def __getitem__(self, name: str) -> PriorityClass:
        return self._by_name[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_name)

    def __len__(self) -> int:
        return len(self._by_name)

    def with_classes(self, more: Iterable[PriorityClass]) -> PriorityClasses:
        """These classes and ``more`` (a class in ``more`` replaces one of the same name); these, when none."""
        added = list(more)
        return PriorityClasses([*self._by_name.values(), *added]) if added else self

    def default(self) -> PriorityClass | None:
        """The ``globalDefault`` class; the lowest value wins if several claim it, as in admission."""
        defaults = [cls for cls in self._by_name.values() if cls.global_default]
        return min(defaults, key=lambda cls: cls.value) if defaults else None

    def resolve(self, name: str | None, resource: str, obj: str) -> tuple[int, str]:
        """``(priority, preemptionPolicy)`` that admission gives an object of ``resource`` named ``obj``.

        Raises:
            PriorityError: ``name`` names no class (admission's Forbidden message).
        """
        if not name:
            default = self.default()
            return (default.value, default.preemption_policy) if default else (0, PREEMPT_LOWER_PRIORITY)
        cls = self._by_name.get(name)
        if cls is None:
            raise PriorityError(
                f'{resource} "{capped(obj)}" is forbidden: no PriorityClass with name {capped(name)} was found', obj
            )
        return cls.value, cls.preemption_policy

    def effective(self, spec: PrioritySpec, resource: str, obj: str) -> tuple[int, str]:
        """``(priority, preemptionPolicy)`` of an object already admitted: its ``priority`` if set, else its class's.

        An explicit ``preemptionPolicy`` wins over the class's.

        Raises:
            PriorityError: as ``resolve``, or a ``priority`` that contradicts the named class.
        """
        if spec.priority is not None and not spec.class_name:
            priority, policy = spec.priority, PREEMPT_LOWER_PRIORITY
        else:
            priority, policy = self.resolve(spec.class_name, resource, obj)
            if spec.priority is not None and spec.priority != priority:
                raise PriorityError(
                    f'{resource} "{obj}" is forbidden: the integer value of priority ({spec.priority}) must not be '
                    f"provided in pod spec; priority admission controller computed {priority} from the given "
                    "PriorityClass name",
                    obj,
                )
        return priority, spec.preemption_policy or policy


def running_priority(classes: PriorityClasses, spec: PrioritySpec, resource: str, obj: str) -> int:
    """The priority of an object already running: its ``priority``, else its class's value, else 0.

    Raises:
        PriorityError: as ``PriorityClasses.resolve``.
    """
    if spec.priority is not None:
        return spec.priority
    if spec.class_name:
        return classes.resolve(spec.class_name, resource, obj)[0]
    return 0


def read_priority_classes(items: Iterable[Any], section: str, errors: ErrorList) -> list[PriorityClass]:
    """The PriorityClass objects among ``items`` (dicts or client models); others are skipped.

    Problems are appended to ``errors`` at ``section[i]...`` paths: a
    missing or non-integer ``value``, a user class above
    ``HIGHEST_USER_DEFINABLE_PRIORITY``, a system name with another value, an
    unknown ``preemptionPolicy``.
    """
    out = []
    for i, item in enumerate(items):
        data = to_dict(item) if isinstance(item, BaseModel) else item
        if not isinstance(data, Mapping) or data.get("kind") != "PriorityClass":
            continue
        cls = read_priority_class(data, FieldPath(section).index(i), errors)
        if cls is not None:
            out.append(cls)
    return out


def read_priority_class(data: Mapping[str, Any], path: FieldPath | None, errors: ErrorList) -> PriorityClass | None:
    """One PriorityClass object, or ``None`` with its problems appended at ``path`` (``None``: the object's root)."""
    metadata = data.get("metadata")
    name = metadata.get("name") if isinstance(metadata, Mapping) else None
    if not isinstance(name, str) or not name:
        errors.append(required(extend_path(path, ["metadata", "name"])))
        return None
    value = data.get("value")
    if value is None:
        errors.append(required(extend_path(path, ["value"])))
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        errors.append(type_invalid(extend_path(path, ["value"]), value, "must be of type integer"))
        return None
    system = {cls.name: cls for cls in SYSTEM_CLASSES}.get(name)
    if system is not None and value != system.value:
        errors.append(
            forbidden(
                extend_path(path, ["metadata", "name"]),
                f"the name of the priority class is a reserved name for system use only: {name}",
            )
        )
        return None
    if system is None and value > HIGHEST_USER_DEFINABLE_PRIORITY:
        errors.append(
            forbidden(
                extend_path(path, ["value"]),
                f"maximum allowed value of a user defined priority is {HIGHEST_USER_DEFINABLE_PRIORITY}",
            )
        )
        return None
    policy = data.get("preemptionPolicy") or PREEMPT_LOWER_PRIORITY
    if policy not in _POLICIES:
        errors.append(not_supported(extend_path(path, ["preemptionPolicy"]), policy, _POLICIES))
        return None
    default = data.get("globalDefault") or False
    if not isinstance(default, bool):
        errors.append(invalid(extend_path(path, ["globalDefault"]), default, "must be of type boolean"))
        return None
    return PriorityClass(name, value, default, policy)
