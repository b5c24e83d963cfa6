"""What a pod spec asks that changes placement and the model does not check: named, so no answer is silently wrong.

Each rule returns a warning naming the field; ``PlacementRequest`` puts
them in ``warnings``, and every answer for the request carries them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from workloadbuilder.placement.filters.interpodaffinity import self_matching

__all__ = ["DEFAULT_SCHEDULER", "unmodelled"]

DEFAULT_SCHEDULER = "default-scheduler"
_CLAIMED_VOLUMES = ("persistentVolumeClaim", "ephemeral", "csi")


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def unmodelled(pod_set: Any, spec: Mapping[str, Any]) -> list[str]:
    """The warnings for one pod set, from its pod spec and its parsed constraints."""
    out = []
    volumes = _list(spec.get("volumes"))
    for i, volume in enumerate(volumes):
        kind = next((k for k in _CLAIMED_VOLUMES if isinstance(volume, Mapping) and k in volume), None)
        if kind is not None:
            out.append(
                f"spec.volumes[{i}].{kind}: volumes, their binding and topology are not modelled "
                "(VolumeBinding, VolumeZone, NodeVolumeLimits)"
            )
    if spec.get("resourceClaims"):
        out.append("spec.resourceClaims: per-pod DRA claims are not modelled (only the PodGroup's group claims are)")
    if pod_set.constraints.spread:
        out.append(
            "spec.topologySpreadConstraints: spread counts running pods and this PodGroup's own pods, "
            "not the pods of other groups placed in the same cycle"
        )
    scheduler = spec.get("schedulerName")
    if isinstance(scheduler, str) and scheduler not in ("", DEFAULT_SCHEDULER):
        out.append(
            f"spec.schedulerName: {scheduler!r} is not kube-scheduler's default profile, which this model follows"
        )
    out += _namespace_selectors(spec)
    pod = pod_set.constraints
    for k, term in enumerate(pod.pod_affinity):
        if self_matching(term, pod) and pod_set.count > 1:
            out.append(
                f"spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[{k}]: affinity among "
                "the pods being placed is checked against running pods only (the first pod's domain is not kept)"
            )
    for k, term in enumerate(pod.pod_anti_affinity):
        if self_matching(term, pod) and term.topology_key != "kubernetes.io/hostname":
            out.append(
                f"spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[{k}]: anti-affinity "
                f"among the pods being placed over {term.topology_key} is not checked "
                "(only over kubernetes.io/hostname)"
            )
    return out


def _namespace_selectors(spec: Mapping[str, Any]) -> list[str]:
    """A required pod (anti-)affinity term whose ``namespaceSelector`` selects by label: namespaces' labels are unknown.

    kube-scheduler matches the pods of the listed namespaces and of every
    namespace the selector selects; the model knows no namespace's labels,
    so it counts the listed namespaces (the pod's own when none is listed).
    """
    affinity = spec.get("affinity")
    if not isinstance(affinity, Mapping):
        return []
    out = []
    for kind in ("podAffinity", "podAntiAffinity"):
        section = affinity.get(kind)
        terms = section.get("requiredDuringSchedulingIgnoredDuringExecution") if isinstance(section, Mapping) else None
        for k, term in enumerate(_list(terms)):
            selector = term.get("namespaceSelector") if isinstance(term, Mapping) else None
            if isinstance(selector, Mapping) and selector:
                out.append(
                    f"spec.affinity.{kind}.requiredDuringSchedulingIgnoredDuringExecution[{k}].namespaceSelector: "
                    "namespaces are selected by their labels, which the model does not know; it counts the pods "
                    "of the listed namespaces (the pod's own when none is listed)"
                )
    return out
