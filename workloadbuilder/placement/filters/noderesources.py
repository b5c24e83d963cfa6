"""NodeResourcesFit: a pod fits where every resource it requests is still free, and a pod slot is left.

Follows kubernetes/kubernetes ``pkg/scheduler/framework/plugins/noderesources/fit.go``
(``fitsRequest``): ``Too many pods`` when the node's pod count is reached,
then ``Insufficient <resource>`` for CPU, memory, ephemeral-storage and
each requested scalar resource (extended resources, hugepages) whose free
amount (allocatable minus what running pods request, possibly negative) is
below the request. Every failing resource is a reason of its own.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["NAME", "TOO_MANY_PODS", "check", "is_scalar", "is_scheduled_resource", "shortfalls"]

NAME = "NodeResourcesFit"
TOO_MANY_PODS = "Too many pods"
_NATIVE = ("cpu", "memory", "ephemeral-storage")


def is_scalar(resource: str) -> bool:
    """Whether the scheduler tracks ``resource`` as a scalar: extended, hugepages, attachable volumes, native prefixed.

    As ``IsScalarResourceName``: a name with a domain that is not
    ``kubernetes.io`` (``nvidia.com/gpu``), ``hugepages-*``,
    ``attachable-volumes-*`` or a ``kubernetes.io/`` native name.
    """
    if resource.startswith(("hugepages-", "attachable-volumes-")):
        return True
    if "/" not in resource:
        return False
    return not resource.startswith("requests.")


def is_scheduled_resource(resource: str) -> bool:
    """Whether NodeResourcesFit checks a request for ``resource`` at all (others are ignored by the scheduler)."""
    return resource in _NATIVE or resource == "pods" or is_scalar(resource)


def check(requests: Mapping[str, int], free: Mapping[str, int]) -> list[str]:
    """Every reason the node rejects the pod, in the plugin's order (empty when it fits).

    Args:
        requests: the pod's requests in millis, without the pod slot.
        free: the node's free amount per resource in millis (``pods`` in
            millis of a pod); a resource the node lacks has nothing free.
    """
    return [reason for reason, resource, amount in shortfalls(requests) if free.get(resource, 0) < amount]


def shortfalls(requests: Mapping[str, int]) -> list[tuple[str, str, int]]:
    """The plugin's checks for a pod, in its order: ``(reason, resource, amount)``, failing where less is free.

    ``Too many pods`` where less than one pod slot is free, then
    ``Insufficient <resource>`` for each requested CPU, memory,
    ephemeral-storage and scalar resource (sorted) above what is free.
    """
    checks = [(TOO_MANY_PODS, "pods", 1000)]
    for resource in _NATIVE:
        amount = requests.get(resource, 0)
        if amount > 0:
            checks.append((f"Insufficient {resource}", resource, amount))
    for resource in sorted(requests):
        amount = requests[resource]
        if resource in _NATIVE or resource == "pods" or amount <= 0 or not is_scalar(resource):
            continue
        checks.append((f"Insufficient {resource}", resource, amount))
    return checks
