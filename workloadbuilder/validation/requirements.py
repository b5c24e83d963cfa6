"""Which feature gates a set of manifests needs, and on which components.

Every gate of 1.37 that these objects touch is off by default, so a cluster
admin needs the list before the first apply: ``required_gates`` reads the
objects (Workloads, PodGroups, CompositePodGroups, and Jobs and Pods that
use them) and names each gate needed, why, and where to set it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from workloadbuilder._internal import kinds
from workloadbuilder._internal.decode import to_json_dict
from workloadbuilder._internal.kinds import KubeObject
from workloadbuilder._internal.walk import walk
from workloadbuilder.validation.gates import (
    COMPOSITE_POD_GROUP,
    DRA_WORKLOAD_RESOURCE_CLAIMS,
    GATES,
    GENERIC_WORKLOAD,
    POD_GROUP_PREEMPTION_POLICY,
    TOPOLOGY_AWARE_WORKLOAD_SCHEDULING,
    WORKLOAD_WITH_JOB,
)

__all__ = ["GateRequirement", "required_gates"]


@dataclass(frozen=True)
class GateRequirement:
    """A gate some of the objects need.

    Attributes:
        gate: its name.
        stage: ``alpha`` or ``beta``.
        default: whether 1.37 turns it on by itself (none of these does).
        components: where to enable it, e.g. ``kube-apiserver``.
        reasons: what needs it, ``<Kind> <name>: <field>`` each, in the order found.
    """

    gate: str
    stage: str
    default: bool
    components: tuple[str, ...]
    reasons: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.gate} ({self.stage}, {'on' if self.default else 'off'} by default): {', '.join(self.components)}"


def required_gates(objects: Iterable[KubeObject]) -> list[GateRequirement]:
    """The gates ``objects`` need, sorted by name, with the gates those depend on.

    Args:
        objects: client models or dicts. Workloads, PodGroups and
            CompositePodGroups need ``GenericWorkload`` and whatever their
            fields need (topology constraints, resource claims, composite
            templates, parents, preemption policies); a Job with
            ``spec.scheduling`` needs ``WorkloadWithJob``; a Pod (or a Job's
            pod template) with ``schedulingGroup`` needs ``GenericWorkload``.
            Anything else is ignored.
    """
    reasons: dict[str, list[str]] = {}
    for obj in objects:
        data = to_json_dict(obj) if isinstance(obj, BaseModel) else obj
        if not isinstance(data, Mapping):
            continue
        kind = kinds.kind_of(obj)
        for gate, field in _needs(kind, data):
            _add(reasons, gate, f"{kind} {_name(data)}: {field}")
    for gate in sorted(reasons):
        for dependency in _dependencies(gate):
            _add(reasons, dependency, f"{gate} depends on it")
    return [
        GateRequirement(name, GATES[name].stage, GATES[name].default, GATES[name].components, tuple(reasons[name]))
        for name in sorted(reasons)
    ]


def _add(reasons: dict[str, list[str]], gate: str, reason: str) -> None:
    found = reasons.setdefault(gate, [])
    if reason not in found:
        found.append(reason)


def _dependencies(gate: str) -> list[str]:
    """The gates ``gate`` builds on, directly or not."""
    out: list[str] = []
    for dependency in GATES[gate].depends_on:
        out += [dependency] + [d for d in _dependencies(dependency) if d not in out]
    return out


def _name(data: Mapping[str, Any]) -> str:
    meta = data.get("metadata")
    meta = meta if isinstance(meta, Mapping) else {}
    name = meta.get("name") or meta.get("generateName") or "<unnamed>"
    return f"{meta['namespace']}/{name}" if meta.get("namespace") else str(name)


def _get(data: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(data, Mapping):
            return None
        data = data.get(key)
    return data


def _needs(kind: str | None, data: Mapping[str, Any]) -> list[tuple[str, str]]:
    spec = data.get("spec")
    if kind == "Job":
        needs = [(WORKLOAD_WITH_JOB, "spec.scheduling")] if _get(spec, "scheduling") else []
        if _get(spec, "template", "spec", "schedulingGroup"):
            needs.append((GENERIC_WORKLOAD, "spec.template.spec.schedulingGroup"))
        return needs
    if kind == "Pod":
        return [(GENERIC_WORKLOAD, "spec.schedulingGroup")] if _get(spec, "schedulingGroup") else []
    if kind not in (kinds.WORKLOAD, kinds.POD_GROUP, kinds.COMPOSITE_POD_GROUP):
        return []
    needs = [(GENERIC_WORKLOAD, "the scheduling.k8s.io API")]
    if kind == kinds.COMPOSITE_POD_GROUP:
        needs.append((COMPOSITE_POD_GROUP, "the CompositePodGroup API"))
        needs.append((TOPOLOGY_AWARE_WORKLOAD_SCHEDULING, "kube-scheduler places CompositePodGroups by topology"))
    if kind == kinds.WORKLOAD:
        for record in walk(spec):
            path = str(record.path)
            if record.composite:
                needs.append((COMPOSITE_POD_GROUP, path))
            needs.extend(_group_fields(path, record.node))
    else:
        if _get(spec, "parentCompositePodGroupName") is not None:
            needs.append((COMPOSITE_POD_GROUP, "spec.parentCompositePodGroupName"))
        needs.extend(_group_fields("spec", spec))
    return needs


def _group_fields(path: str, group: Any) -> list[tuple[str, str]]:
    needs = []
    for field, gate in (
        ("schedulingConstraints", TOPOLOGY_AWARE_WORKLOAD_SCHEDULING),
        ("resourceClaims", DRA_WORKLOAD_RESOURCE_CLAIMS),
        ("preemptionPolicy", POD_GROUP_PREEMPTION_POLICY),
    ):
        if _get(group, field):
            needs.append((gate, f"{path}.{field}"))
    return needs
