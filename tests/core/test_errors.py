"""Every exception the library publishes derives from WorkloadBuilderError; records do not end in Error."""

import importlib
import inspect
import pkgutil

import pytest

import workloadbuilder
from workloadbuilder import BuildError, InvalidArgumentError, WorkloadBuilderError
from workloadbuilder.errors import NoAdapterError, ResizeError
from workloadbuilder.runtime.resizing import gang_resize_patch

# FieldError (and its strict-decoding subclass) keep the name of Go's field.Error, which they mirror.
_GO_NAMED_RECORDS = {"FieldError", "StrictDecodingError"}


def _public_classes():
    seen = {}
    import workloadbuilder.adapters  # lives in the repository's adapters/ folder, outside workloadbuilder/

    infos = [
        *pkgutil.walk_packages(workloadbuilder.__path__, "workloadbuilder."),
        *pkgutil.walk_packages(workloadbuilder.adapters.__path__, "workloadbuilder.adapters."),
    ]
    for info in infos:
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name in getattr(module, "__all__", ()):
            value = getattr(module, name)
            if inspect.isclass(value):
                seen.setdefault(f"{value.__module__}.{value.__qualname__}", value)
    return sorted(seen.items())


_CLASSES = _public_classes()


@pytest.mark.parametrize(
    ("name", "cls"),
    [(n, c) for n, c in _CLASSES if issubclass(c, BaseException)],
    ids=[n for n, c in _CLASSES if issubclass(c, BaseException)],
)
def test_every_public_exception_derives_from_the_base(name, cls):
    assert issubclass(cls, WorkloadBuilderError), name


@pytest.mark.parametrize(
    ("name", "cls"),
    [(n, c) for n, c in _CLASSES if c.__name__.endswith("Error") and c.__name__ not in _GO_NAMED_RECORDS],
    ids=[n for n, c in _CLASSES if c.__name__.endswith("Error") and c.__name__ not in _GO_NAMED_RECORDS],
)
def test_only_exceptions_end_in_error(name, cls):
    assert issubclass(cls, BaseException), name


def test_the_adapters_are_covered_too():
    names = [name for name, _ in _CLASSES]
    assert "workloadbuilder.adapters.base.PlanError" in names


@pytest.mark.parametrize(
    ("call", "raised"),
    [
        (lambda: gang_resize_patch({"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup"}, 0), ResizeError),
        (lambda: gang_resize_patch({"apiVersion": "v1", "kind": "ConfigMap"}, 2), InvalidArgumentError),
        (lambda: workloadbuilder.adapters.plan_object({"apiVersion": "v1", "kind": "ConfigMap"}), NoAdapterError),
        (lambda: workloadbuilder.FieldPath.parse("[0]"), InvalidArgumentError),
    ],
    ids=["resize-below-one", "resize-of-a-configmap", "no-adapter", "bad-field-path"],
)
def test_refusals_raise_library_errors(call, raised):
    with pytest.raises(raised) as caught:
        call()
    assert isinstance(caught.value, WorkloadBuilderError)


def test_resize_and_gang_resize_patch_raise_the_same_class():
    assert issubclass(ResizeError, BuildError)
    assert issubclass(ResizeError, ValueError)
