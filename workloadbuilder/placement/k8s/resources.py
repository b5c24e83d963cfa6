"""Resource lists as the scheduler reads them: quantities to millis, and a pod's effective requests.

Every reader (cluster ingest, placement requests) goes through
``read_resource_list`` so a malformed or negative quantity is one
``FieldError`` at its path, never a traceback.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from workloadbuilder._internal.fields_read import read_list
from workloadbuilder.field import ErrorList, FieldPath, Where, invalid, path_below, resolve_where, type_invalid
from workloadbuilder.placement.k8s.quantity import QuantityError, resource_millis

__all__ = [
    "NONZERO_DEFAULTS",
    "POD_MILLIS",
    "Where",
    "key_below",
    "pod_requests",
    "pod_requests_and_score",
    "pod_score_requests",
    "read_quantity",
    "read_resource_list",
    "valid_millis",
]

"""A path, or a function that makes it: readers of large inputs build paths only for errors."""

POD_MILLIS = 1000
"""One pod, in the millis unit of the ``pods`` resource."""

NONZERO_DEFAULTS = {"cpu": 100, "memory": 200 * 1024 * 1024 * 1000}
"""What kube-scheduler's resource scoring counts for a container that leaves CPU or memory unset (100m, 200Mi).

``schedutil.DefaultMilliCPURequest`` and ``DefaultMemoryRequest``; the
filters never count them.
"""


def read_quantity(resource: str, raw: Any, path: Where, errors: ErrorList) -> int | None:
    """One quantity in millis, or ``None`` with an error appended at ``path`` (built only then).

    Accepts a string (as in JSON) or a YAML number; rejects negative amounts,
    which the API server rejects for requests and which no node can offer.
    """
    if isinstance(raw, str):
        text = raw
    elif isinstance(raw, int) and not isinstance(raw, bool):
        text = str(raw)
    elif isinstance(raw, float):
        text = repr(raw)
    else:
        errors.append(type_invalid(resolve_where(path), raw, "must be a quantity string"))
        return None
    try:
        millis = resource_millis(resource, text)
    except QuantityError as err:
        errors.append(invalid(resolve_where(path), raw, str(err)))
        return None
    if millis < 0:
        errors.append(invalid(resolve_where(path), raw, "must be greater than or equal to 0"))
        return None
    return millis


def read_resource_list(raw: Any, path: Where, errors: ErrorList) -> dict[str, int]:
    """A ``{resource: quantity}`` map as ``{resource: millis}``; bad entries are reported and left out.

    Paths are built only for errors.
    """
    if raw is None:
        return {}
    if not isinstance(raw, dict) and not isinstance(raw, Mapping):
        errors.append(type_invalid(resolve_where(path), raw, "must be of type object"))
        return {}
    out: dict[str, int] = {}
    for name, quantity in raw.items():
        millis = valid_millis(name, quantity)
        if millis is None:
            millis = read_quantity(str(name), quantity, key_below(path, name), errors)
            if millis is None:
                continue
        out[str(name)] = millis
    return out


def valid_millis(resource: Any, raw: Any) -> int | None:
    """``resource_millis`` of a valid quantity string under a string name, else ``None``.

    The quick test readers of many lists make first; ``read_quantity``
    reads the rest (YAML numbers) and says what is wrong with the others.
    """
    if type(resource) is not str or type(raw) is not str:
        return None
    try:
        millis = resource_millis(resource, raw)
    except QuantityError:
        return None
    return millis if millis >= 0 else None


def key_below(where: Where, key: Any) -> Callable[[], FieldPath]:
    """The path of map entry ``key`` under ``where`` (``requests[cpu]``), built only when called."""
    return lambda: resolve_where(where).key(str(key))


def pod_requests(spec: Mapping[str, Any], path: Where, errors: ErrorList) -> dict[str, int]:
    """What a pod spec asks of a node, in millis, as ``k8s.io/component-helpers/resource.PodRequests`` computes it.

    Each container's requests are first defaulted as the API server does:
    a resource with a limit but no request requests its limit (per
    resource, not only when ``requests`` is absent). Regular containers add
    up; an init container needs its own requests plus the sidecars
    (``restartPolicy: Always``) started before it; the pod needs the larger
    of the two, plus ``overhead``. Pod-level ``resources`` (defaulted from
    their limits the same way) replace the container sum for CPU, memory and
    hugepages, the resources pod-level resources support.
    """
    return _PodResources(spec, path, errors).total(None)


def pod_score_requests(
    spec: Mapping[str, Any], path: Where, errors: ErrorList, *, running: bool = False
) -> tuple[int, int]:
    """The CPU and memory kube-scheduler's ``NodeResourcesFit`` score counts for a pod, in millis.

    ``pod_requests`` with every container (init containers and sidecars
    too) that leaves CPU or memory unset counted as requesting
    ``NONZERO_DEFAULTS`` (the ``NonMissingContainerRequests`` option of
    ``PodRequests``); a request given as 0 stays 0, and pod-level requests
    still replace the container sum. The filters and ``BalancedAllocation``
    count the pod's actual requests instead.

    A ``running`` pod is counted as the scheduler's node cache counts it
    (``PodInfo.CalculateResource``): when it sets pod-level requests, a
    default is added only for a resource the pod requests nowhere, once.
    The pod being scheduled always gets the per-container defaults, as
    ``calculatePodResourceRequest`` gives them. ``errors`` receives the
    same problems ``pod_requests`` reports (give a fresh list when it has
    run already).
    """
    return pod_requests_and_score(spec, path, errors, running=running)[1]


def pod_requests_and_score(
    spec: Mapping[str, Any], path: Where, errors: ErrorList, *, running: bool = False
) -> tuple[dict[str, int], tuple[int, int]]:
    """``pod_requests`` and ``pod_score_requests`` of one spec, its quantities read once."""
    resources = _PodResources(spec, path, errors)
    actual = resources.total(None)
    if running and any(_pod_level(name) for name in resources.pod_level):
        return actual, (actual.get("cpu", NONZERO_DEFAULTS["cpu"]), actual.get("memory", NONZERO_DEFAULTS["memory"]))
    scored = resources.total(NONZERO_DEFAULTS)
    return actual, (scored.get("cpu", 0), scored.get("memory", 0))


class _PodResources:
    """A pod spec's resource blocks, read once: each container's defaulted requests, pod-level and overhead."""

    __slots__ = ("containers", "inits", "overhead", "pod_level")

    def __init__(self, spec: Mapping[str, Any], path: Where, errors: ErrorList) -> None:
        containers = read_list(spec.get("containers"), path_below(path, "containers"), errors)
        # each regular container's requests, defaulted from its limits
        self.containers = [
            _container_requests(c, path_below(path, "containers", i), errors) for i, c in enumerate(containers)
        ]
        inits = read_list(spec.get("initContainers"), path_below(path, "initContainers"), errors)
        # each init container's requests, and whether it is a sidecar (``restartPolicy: Always``)
        self.inits = [
            (
                _container_requests(c, path_below(path, "initContainers", i), errors),
                isinstance(c, Mapping) and c.get("restartPolicy") == "Always",
            )
            for i, c in enumerate(inits)
        ]
        self.pod_level = _defaulted_requests(spec.get("resources"), path_below(path, "resources"), errors)
        overhead = spec.get("overhead")
        self.overhead = (
            read_resource_list(overhead, path_below(path, "overhead"), errors) if overhead is not None else {}
        )

    def total(self, defaults: Mapping[str, int] | None) -> dict[str, int]:
        """The pod's requests, each container's missing entries first filled from ``defaults`` (when given)."""

        def filled(requests: dict[str, int]) -> dict[str, int]:
            if defaults is None:
                return requests
            out = dict(requests)
            for name, amount in defaults.items():
                out.setdefault(name, amount)
            return out

        total: dict[str, int] = {}
        for requests in self.containers:
            _add(total, filled(requests))
        sidecars: dict[str, int] = {}
        init_peak: dict[str, int] = {}
        for requests, sidecar in self.inits:
            requests = filled(requests)
            if sidecar:
                _add(total, requests)
                _add(sidecars, requests)
                needed = dict(sidecars)
            else:
                needed = dict(requests)
                _add(needed, sidecars)
            for name, amount in needed.items():
                init_peak[name] = max(init_peak.get(name, 0), amount)
        for name, amount in init_peak.items():
            total[name] = max(total.get(name, 0), amount)
        total.update({name: amount for name, amount in self.pod_level.items() if _pod_level(name)})
        _add(total, self.overhead)
        return total


def _pod_level(resource: str) -> bool:
    return resource in ("cpu", "memory") or resource.startswith("hugepages-")


def _container_requests(container: Any, path: Where, errors: ErrorList) -> dict[str, int]:
    if not isinstance(container, Mapping):
        errors.append(type_invalid(resolve_where(path), container, "must be of type object"))
        return {}
    return _defaulted_requests(container.get("resources"), path_below(path, "resources"), errors)


def _defaulted_requests(resources: Any, path: Where, errors: ErrorList) -> dict[str, int]:
    """``requests`` of a ``resources`` block, each missing one defaulted to its limit as the API server does."""
    if resources is None:
        return {}
    if not isinstance(resources, Mapping):
        errors.append(type_invalid(resolve_where(path), resources, "must be of type object"))
        return {}
    requests = read_resource_list(resources.get("requests"), path_below(path, "requests"), errors)
    for name, amount in read_resource_list(resources.get("limits"), path_below(path, "limits"), errors).items():
        requests.setdefault(name, amount)
    return requests


def _add(into: dict[str, int], more: Mapping[str, int]) -> None:
    for name, amount in more.items():
        into[name] = into.get(name, 0) + amount
