"""The library's exceptions: every one of them is a ``WorkloadBuilderError``.

Catch ``WorkloadBuilderError`` to tell input the library refuses from a bug
(anything else). The hierarchy:

    WorkloadBuilderError
    ├── BuildError            build or materialization failed (the Go message)
    │   └── ResizeError       a resize the Workload API would refuse (also a ValueError)
    ├── InvalidArgumentError  an argument value the library cannot use (also a ValueError)
    ├── NoAdapterError        no adapter for an object's apiVersion and kind (also a LookupError)
    ├── MissingDependencyError  an optional dependency is not installed (also an ImportError)
    ├── AggregateError        field errors raised together (field.py; also a ValueError)
    │   └── PlanError         a plan that cannot compile (adapters.base)
    ├── ManifestError         documents that could not be loaded (manifests.py; also a ValueError)
    └── QuantityError         a string that is not a Kubernetes quantity (placement.quantity; also a ValueError)

The exceptions that carry their own data live beside that data; this module
holds the base and those that carry only a message. Records that describe a
problem without being raised (``DocumentProblem``, ``HierarchyProblem``,
``ApiStatus``) do not end in ``Error``; ``FieldError`` keeps the name of Go's
``field.Error``, which it mirrors.
"""

__all__ = [
    "BuildError",
    "InternalError",
    "InvalidArgumentError",
    "MissingDependencyError",
    "NoAdapterError",
    "ResizeError",
    "WorkloadBuilderError",
]


class WorkloadBuilderError(Exception):
    """The base of every exception this library raises on input it refuses."""


class BuildError(WorkloadBuilderError):
    """A build or materialization failure; the message is the Go library's."""


class ResizeError(BuildError, ValueError):
    """A resize that the Workload API would refuse (a template that is not a gang, a bad ``minCount``...)."""


class InvalidArgumentError(WorkloadBuilderError, ValueError):
    """An argument whose value the library cannot use (an unknown strategy or feature gate, a bad JSONPath...)."""


class NoAdapterError(WorkloadBuilderError, LookupError):
    """No registered adapter handles the object's ``apiVersion`` and ``kind``."""


class InternalError(WorkloadBuilderError, RuntimeError):
    """A broken invariant of the library itself: a bug to report, not bad input.

    For example an adapter's plan whose pod assignment points where it has no pod template.
    """


class MissingDependencyError(WorkloadBuilderError, ImportError):
    """An optional dependency a feature needs is not installed; the message says what to install."""
