"""The adapter contract: a controller's object in, a plan of WorkloadItem roots and runtime groups out.

Every adapter reads one kind of object (a Job, a JobSet, a LeaderWorkerSet,
a TrainJob, a custom resource) and says, in a ``Plan``: which WorkloadItem
trees describe its scheduling (each node knowing where its blocks live in
the object, so errors come back at the user's own paths), with which
``BuildOptions``, how many runtime groups each template has, which pods go
to which PodGroup and where their stamp is written, and what it could not
map (errors) or mapped with loss (warnings). ``Plan.compile()`` then gives
the Workload and every runtime object through the core library.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from importlib import import_module
from typing import Any, Protocol

from kubernetes.client import V1alpha3CompositePodGroup, V1beta1PodGroup, V1beta1Workload
from pydantic import BaseModel

from workloadbuilder import (
    AggregateError,
    Builder,
    BuildError,
    BuildOptions,
    ErrorList,
    FieldError,
    Forest,
    Hierarchy,
    WorkloadItem,
    build_forest,
)
from workloadbuilder._internal.arguments import check_fields
from workloadbuilder._internal.textread import check_nesting
from workloadbuilder.adapters.kit import read_count, to_json_dict, type_error
from workloadbuilder.errors import NoAdapterError
from workloadbuilder.runtime.hierarchy import materialize

__all__ = [
    "GENERATED_NAME_SUFFIX",
    "Adapter",
    "Compiled",
    "Finding",
    "Plan",
    "PlanError",
    "PodAssignment",
    "Registry",
    "adapter_for",
    "as_dict",
    "current_registry",
    "job_pod_count",
    "plan_object",
    "planned_name",
    "register",
    "registered",
    "scoped_registry",
]


GENERATED_NAME_SUFFIX = "xxxxx"
"""What stands for the apiserver's random suffix when an object only has ``metadata.generateName``.

The apiserver appends five random characters (from ``bcdfghjklmnpqrstvwxz2456789``,
which holds ``x``) to ``generateName``, cut to 58 characters so the name
fits 63: a plan uses this fixed suffix, so its output is deterministic.
"""

_MAX_GENERATE_NAME = 58


def planned_name(metadata: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """The name to plan with and, for a ``generateName``-only object, the ``generateName`` it came from.

    ``metadata.name`` wins; without it, ``generateName`` (cut to 58
    characters, as the apiserver cuts it) plus ``GENERATED_NAME_SUFFIX``.

    Examples:
        >>> planned_name({"name": "a", "generateName": "b-"}), planned_name({"generateName": "sample-job-"})
        (('a', None), ('sample-job-xxxxx', 'sample-job-'))
    """
    name, generate = metadata.get("name"), metadata.get("generateName")
    if (name is None or name == "") and isinstance(generate, str) and generate:
        return generate[:_MAX_GENERATE_NAME] + GENERATED_NAME_SUFFIX, generate
    return (name if isinstance(name, str) else None), None


@dataclass(frozen=True)
class Finding:
    """An error or warning of an adapter, tagged with the object it is about.

    ``object`` is ``"<Kind>/<name>"``: a TrainJob's plan reads two objects
    (the TrainJob and its runtime), and the user must know which one to fix.
    """

    object: str
    error: FieldError

    def __str__(self) -> str:
        return f"{self.object}: {self.error}"

    def __post_init__(self) -> None:
        check_fields(self)


@dataclass(frozen=True)
class PodAssignment:
    """Which pods go to which PodGroup, and where the stamp that says so is written.

    Args:
        pod_group: the runtime PodGroup's name (as in the compiled hierarchy).
        selector: the controller's own labels that pick these pods.
        count: how many pods the controller creates for this group.
        stamp_path: where ``spec.schedulingGroup.podGroupName`` is written
            in the planned object (a pod template's path), or ``None`` when a
            child controller stamps (delegation).
        template: the PodGroup's template name.
        pod_template: the pod template the pods are made from, when it is
            not at ``stamp_path`` in the planned object (a TrainJob's pods
            come from its runtime's JobSet template); ``None`` otherwise.
    """

    pod_group: str
    selector: Mapping[str, str]
    count: int
    stamp_path: str | None
    template: str
    pod_template: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        check_fields(self)


@dataclass
class Plan:
    """What an adapter made of one object; ``compile()`` turns it into Kubernetes objects.

    Args:
        source: the planned object as a Kubernetes JSON dict (never mutated).
        roots: the WorkloadItem trees (several roots are merged into one Workload).
        options: the Workload's identity, owner and the controller's allow-lists.
        instances: template name to its count of runtime groups per parent
            instance, as ``workloadbuilder.materialize`` reads it.
        errors: what the adapter could not map, at the object's own paths.
        warnings: what it mapped with loss (an exclusive-topology annotation, say).
        assign_pods: the adapter's rule from the runtime hierarchy to pod assignments.
        mutate_source: the adapter's changes to the object itself
            (stamps, delegation annotations), applied to a copy.
        make_groups: the adapter's own way to the runtime groups, given the
            compiled Workload (``None`` for a plan without roots): a delegated
            child's one PodGroup from its parent's Workload, or groups that
            also link the live Workload. By default
            ``materialize(workload, instances, owner=options.owner)``, and no
            group at all for a plan without roots.
        uses: ``<Kind>/<name>`` of each related object the plan read (a
            TrainJob's runtime, a PodGroup the pods bring): those objects
            are checked through this plan.

    A plan without roots makes no Workload of its own: a Job whose parent
    owns the Workload, or one that brings its own PodGroup.
    """

    source: dict[str, Any]
    roots: list[WorkloadItem]
    options: BuildOptions
    instances: dict[str, int] = field(default_factory=dict)
    errors: list[Finding] = field(default_factory=list)
    warnings: list[Finding] = field(default_factory=list)
    assign_pods: Callable[[Hierarchy], list[PodAssignment]] | None = None
    mutate_source: Callable[[dict[str, Any], Hierarchy], ErrorList] | None = None
    make_groups: Callable[[V1beta1Workload | None], Hierarchy] | None = None
    uses: list[str] = field(default_factory=list)

    @property
    def object_ref(self) -> str:
        """``<Kind>/<name>`` of the planned object, as its findings name it (``planned_name``; empty when
        malformed).
        """
        metadata = self.source.get("metadata")
        name = planned_name(metadata)[0] if isinstance(metadata, Mapping) else None
        return f"{self.source.get('kind') or ''}/{name or ''}"

    def validate(self, old: Plan | None = None) -> list[Finding]:
        """The adapter's errors, then every root's validation at its own paths.

        Args:
            old: the plan of the previous version of the object, for update checks.
        """
        return self._checked(old)[0]

    def _checked(self, old: Plan | None = None) -> tuple[list[Finding], Builder | Forest | None]:
        """``validate``'s findings, and what checked the roots: a ``Builder`` (one root) or the ``Forest``.

        ``compile`` builds with that same object, so the trees are read once:
        the builder reuses its validation (``Builder.validate``), the forest
        has already compiled (``None`` when it could not, or without roots).
        """
        findings = list(self.errors)
        if not self.roots:
            return findings, None
        checker: Builder | Forest | None
        if len(self.roots) == 1:
            old_root = old.roots[0] if old is not None and len(old.roots) == 1 else None
            checker = Builder(self.roots[0], self.options)
            errs = checker.validate(old_root)
        else:
            try:
                checker = build_forest(self.roots, self.options, old_roots=old.roots if old is not None else None)
                errs = checker.errors
            except BuildError:  # valid trees that cannot compile: compile() raises it, validation has no error
                checker, errs = None, ErrorList()
        findings.extend(Finding(self.trees_object, err) for err in errs)
        return findings, checker

    @property
    def trees_object(self) -> str:
        """``<Kind>/<name>`` of the object the trees' findings name: the planned object (a TrainJob: its runtime)."""
        return self.object_ref

    def compile(self) -> Compiled:
        """The Workload, every runtime group, the pod assignments and the stamped object.

        Raises:
            PlanError: the plan or its trees are invalid; every finding is listed.
        """
        findings, checker = self._checked()
        if findings:
            raise PlanError(findings)
        workload: V1beta1Workload | None = None
        if isinstance(checker, Builder):
            workload = checker.build_workload()
        elif isinstance(checker, Forest):
            workload = checker.workload
        elif self.roots:  # a forest that could not compile: its BuildError
            workload = build_forest(self.roots, self.options).workload
        if self.make_groups is not None:
            hierarchy = self.make_groups(workload)
        elif workload is not None:
            hierarchy = materialize(workload, self.instances, owner=self.options.owner)
        else:
            hierarchy = Hierarchy([])
        source = copy.deepcopy(self.source)
        if self.mutate_source is not None:
            errs = self.mutate_source(source, hierarchy)
            if errs:
                raise PlanError([Finding(self.object_ref, err) for err in errs])
        pods = self.assign_pods(hierarchy) if self.assign_pods is not None else []
        return Compiled(workload=workload, hierarchy=hierarchy, pods=pods, source=source, warnings=self.warnings)

    def __post_init__(self) -> None:
        check_fields(self)


@dataclass
class Compiled:
    """The result of a plan: ready for ``kubectl apply`` in ``objects()`` order.

    ``workload`` is ``None`` when the plan makes no Workload of its own (its
    roots are empty: a delegated child, or a Job bringing its own PodGroup).
    """

    workload: V1beta1Workload | None
    hierarchy: Hierarchy
    pods: list[PodAssignment]
    source: dict[str, Any]
    warnings: list[Finding]

    def objects(self) -> list[V1beta1Workload | V1alpha3CompositePodGroup | V1beta1PodGroup]:
        """The Workload (if the plan makes one), then every runtime group root to leaves: the creation order."""
        return [*([self.workload] if self.workload is not None else []), *self.hierarchy.objects()]

    def __post_init__(self) -> None:
        check_fields(self)


class PlanError(AggregateError):
    """A plan that cannot compile; ``findings`` says which object each error is about."""

    def __init__(self, findings: Sequence[Finding]) -> None:
        if isinstance(findings, str | bytes) or not isinstance(findings, Sequence):
            raise TypeError(f"PlanError(): findings must be a sequence of Finding, not {type(findings).__name__}")
        for i, finding in enumerate(findings):
            if not isinstance(finding, Finding):
                raise TypeError(f"PlanError(): findings[{i}] must be a Finding, not {type(finding).__name__}")
        self.findings = list(findings)  # each error with the object it is about
        super().__init__([finding.error for finding in findings])


class Adapter(Protocol):
    """What every adapter implements; ``api_version``/``kind`` pick it for a manifest."""

    api_version: str
    kind: str

    def plan(self, obj: Mapping[str, Any] | BaseModel, related: Sequence[Mapping[str, Any]] = ()) -> Plan:
        """Plan one object; ``related`` holds objects it refers to (a TrainJob's runtime, say)."""
        ...


class Registry:
    """Adapters by ``apiVersion`` and ``kind``: which adapter plans which manifest.

    One registry is current in each thread (and asyncio task): the default
    one, which holds the bundled adapters, unless ``scoped_registry`` made
    another current. Two CRD mappings for one kind are used side by side,
    from any threads, each in a registry of its own.

    A bundled adapter's module is imported the first time its kind is asked
    for (``adapter_for``) or every adapter is listed (``registered``), so
    reading one Job loads the Job adapter only.
    """

    def __init__(self, adapters: Iterable[Adapter] = (), bundled: Mapping[tuple[str, str], str] | None = None) -> None:
        # by (apiVersion, kind): the adapter, or None for a bundled one whose module (``_modules``) is not loaded
        # yet; registration order is the dict's, a bundled entry keeping its place once loaded. Replaced whole,
        # never changed in place, so a reader never sees it half-updated.
        self._adapters: dict[tuple[str, str], Adapter | None] = dict.fromkeys(bundled or {})
        self._modules: dict[tuple[str, str], str] = dict(bundled or {})  # the module defining each bundled one
        self._lock = threading.Lock()
        for adapter in adapters:
            self.register(adapter)

    def register(self, adapter: Adapter) -> Adapter:
        """Make ``adapter`` the one for its ``apiVersion``/``kind`` here; returns it.

        Raises:
            TypeError: ``adapter`` has no string ``api_version`` and ``kind`` or no ``plan`` method.
        """
        _check_adapter("register()", adapter)
        with self._lock:
            self._adapters = {**self._adapters, (adapter.api_version, adapter.kind): adapter}
        return adapter

    def registered(self) -> list[Adapter]:
        """Every adapter of this registry, in registration order (the bundled ones first)."""
        return [self._loaded(key, adapter) for key, adapter in list(self._adapters.items())]

    def adapter_for(self, api_version: str, kind: str) -> Adapter | None:
        """The adapter for a manifest's ``apiVersion`` and ``kind``, or ``None``."""
        key = (api_version, kind)
        adapters = self._adapters
        if key not in adapters:
            return None
        return self._loaded(key, adapters[key])

    def copy(self) -> Registry:
        """A registry with the same adapters, to add to without changing this one."""
        twin = Registry()
        with self._lock:
            twin._adapters, twin._modules = dict(self._adapters), dict(self._modules)
        return twin

    def _loaded(self, key: tuple[str, str], adapter: Adapter | None) -> Adapter:
        """``adapter``, or the bundled adapter of ``key`` from its module, imported now (once per registry)."""
        if adapter is not None:
            return adapter
        loaded: Adapter = import_module(self._modules[key]).ADAPTER
        with self._lock:
            if self._adapters.get(key) is None:  # unless another thread (or a register) came first
                self._adapters = {**self._adapters, key: loaded}
            found = self._adapters[key]
        assert found is not None
        return found


BUNDLED: dict[tuple[str, str], str] = {
    ("batch/v1", "Job"): "workloadbuilder.adapters.job.adapter",
    ("jobset.x-k8s.io/v1alpha2", "JobSet"): "workloadbuilder.adapters.jobset.adapter",
    ("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet"): "workloadbuilder.adapters.lws.adapter",
    ("trainer.kubeflow.org/v1alpha1", "TrainJob"): "workloadbuilder.adapters.trainer.adapter",
    ("batch.volcano.sh/v1alpha1", "Job"): "workloadbuilder.adapters.volcano.adapter",
}
"""The adapters that come with the library, by ``apiVersion`` and ``kind``: the module whose ``ADAPTER`` it is."""


_DEFAULT = Registry(bundled=BUNDLED)
_CURRENT: ContextVar[Registry] = ContextVar("workloadbuilder_adapters", default=_DEFAULT)


def current_registry() -> Registry:
    """The registry ``register``, ``adapter_for`` and ``plan_object`` use in this thread or task."""
    return _CURRENT.get()


@contextmanager
def scoped_registry(registry: Registry | None = None) -> Iterator[Registry]:
    """Make ``registry`` (by default a copy of the current one) current inside the block, in this thread only.

    Examples:
        >>> with scoped_registry() as mine:
        ...     current_registry() is mine
        True
    """
    token = _CURRENT.set(registry if registry is not None else current_registry().copy())
    try:
        yield _CURRENT.get()
    finally:
        _CURRENT.reset(token)


def register(adapter: Adapter) -> Adapter:
    """Make ``adapter`` the one for its ``apiVersion``/``kind`` in the current registry; returns it.

    Raises:
        TypeError: ``adapter`` has no string ``api_version`` and ``kind`` or no ``plan`` method.
    """
    return current_registry().register(adapter)


def _check_adapter(caller: str, adapter: object) -> None:
    """Raise a ``TypeError`` naming ``caller`` unless ``adapter`` has the ``Adapter`` contract's attributes."""
    api_version, kind = getattr(adapter, "api_version", None), getattr(adapter, "kind", None)
    if not isinstance(api_version, str) or not isinstance(kind, str) or not callable(getattr(adapter, "plan", None)):
        raise TypeError(
            f"{caller}: adapter must be an Adapter (string api_version and kind, and a plan method), "
            f"not {type(adapter).__name__}"
        )


def registered() -> list[Adapter]:
    """Every adapter of the current registry, in registration order."""
    return current_registry().registered()


def adapter_for(api_version: str, kind: str) -> Adapter | None:
    """The current registry's adapter for a manifest's ``apiVersion`` and ``kind``, or ``None``."""
    return current_registry().adapter_for(api_version, kind)


def plan_object(obj: Mapping[str, Any] | BaseModel, related: Iterable[Mapping[str, Any]] = ()) -> Plan:
    """Plan any object whose kind has a registered adapter.

    Raises:
        NoAdapterError: no adapter is registered for the object's apiVersion and kind.
    """
    data = as_dict(obj)
    adapter = adapter_for(str(data.get("apiVersion", "")), str(data.get("kind", "")))
    if adapter is None:
        raise NoAdapterError(f"no adapter for apiVersion {data.get('apiVersion')!r} kind {data.get('kind')!r}")
    return adapter.plan(data, list(related))


def as_dict(obj: Mapping[str, Any] | BaseModel) -> dict[str, Any]:
    """A parsed manifest or a typed object as a Kubernetes JSON dict (a copy).

    Raises:
        TypeError: ``obj`` is neither a mapping nor a pydantic model (a YAML
            list or scalar): a caller's contract violation, said in words
            rather than as ``dict()``'s own complaint.
        InvalidArgumentError: ``obj`` nests deeper than ``limits.MAX_NESTING`` levels.
    """
    if isinstance(obj, BaseModel):
        return to_json_dict(obj)
    if not isinstance(obj, Mapping):
        raise TypeError(f"an object to plan is a mapping or a pydantic model, not {type(obj).__name__}")
    check_nesting(obj, "an object to plan")
    return copy.deepcopy(dict(obj))


def job_pod_count(job_spec: Mapping[str, Any]) -> int:
    """How many pods a Job runs at once: ``min(parallelism, completions)`` with Kubernetes' defaults.

    ``parallelism`` defaults to 1; unset ``completions`` (a work queue) means
    ``parallelism`` pods. Never a framework's per-node process count.

    Raises:
        AggregateError: a count that is not a non-negative ``int32``, or a
            spec that is not a mapping, at its path inside the spec.

    Examples:
        >>> job_pod_count({"parallelism": 8, "completions": 4}), job_pod_count({"parallelism": 3}), job_pod_count({})
        (4, 3, 1)
    """
    errors = ErrorList()
    if not isinstance(job_spec, Mapping):
        errors.append(type_error(None, job_spec, "object"))
    counts = {key: read_count(job_spec, (key,), errors, minimum=0) for key in ("parallelism", "completions")}
    errors.raise_if_any()
    parallelism = 1 if counts["parallelism"] is None else counts["parallelism"]
    completions = counts["completions"]
    return parallelism if completions is None else min(parallelism, completions)
