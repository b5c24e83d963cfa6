"""Which filter turns each node away from one pod shape, in kube-scheduler's order, and what in it did.

kube-scheduler runs its filter plugins in the framework's order and stops
at the first that rejects a node (``FitError``'s ``Diagnosis`` counts the
node under that plugin alone). ``stages`` counts a shape's nodes the same
way, for the explanation's sections that go beyond the FitError line:

* NodeAffinity's PreFilter, then the pod-and-node filters (NodeUnschedulable,
  NodeName, TaintToleration, NodeAffinity), each with the nodes it rejects
  first and, for TaintToleration and NodeAffinity, what did it: the first
  untolerated taint of each node (``nvidia.com/gpu=present:NoSchedule``) and
  the ``nodeSelector`` pairs or required affinity terms a node fails;
* ``reached``: the nodes that pass all of those and NodePorts, the only
  nodes NodeResourcesFit may be blamed for.

``usable_mask`` is the same cut for free capacity: the nodes a pod of a
shape could use whatever runs, which ``capacity left`` and ``stranded`` add
up (the rest are reported apart, with ``unusable_reasons``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from workloadbuilder.placement.cluster.model import HOST_PORT_PREFIX, Cluster
from workloadbuilder.placement.filters import nodeaffinity, nodename, nodeunschedulable, tainttoleration
from workloadbuilder.placement.framework.snapshot import Shape, Snapshot
from workloadbuilder.placement.k8s.constraints import NodeSelectorRequirement, NodeSelectorTerm, PodConstraints, Taint

__all__ = [
    "FILTER_ORDER",
    "FilterCount",
    "Stages",
    "requirement_text",
    "stages",
    "taint_text",
    "term_text",
    "unusable_reasons",
    "usable_mask",
]

PREFILTER = "NodeAffinity (PreFilter)"
FILTER_ORDER = (PREFILTER, nodeunschedulable.NAME, nodename.NAME, tainttoleration.NAME, nodeaffinity.NAME)
"""The filters counted before NodePorts and NodeResourcesFit, in the framework's order."""

NOT_READY = "node.kubernetes.io/not-ready"
UNREACHABLE = "node.kubernetes.io/unreachable"


@dataclass(frozen=True)
class FilterCount:
    """The nodes one filter rejects first for a shape, and what in the filter rejects them (``causes``, most first)."""

    filter: str
    nodes: int
    causes: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class Stages:
    """One shape's nodes by the first filter that rejects them; ``reached`` marks those left for NodeResourcesFit."""

    total: int
    filters: tuple[FilterCount, ...]
    reached: npt.NDArray[np.bool_]

    def count(self, name: str) -> int:
        """How many nodes the filter ``name`` rejects first (0 when it rejects none)."""
        return sum(entry.nodes for entry in self.filters if entry.filter == name)


def taint_text(taint: Taint) -> str:
    """A taint as ``kubectl taint`` writes it: ``key=value:Effect``, or ``key:Effect`` without a value."""
    return f"{taint.key}={taint.value}:{taint.effect}" if taint.value else f"{taint.key}:{taint.effect}"


def requirement_text(requirement: NodeSelectorRequirement) -> str:
    """``accelerator In (h100, a100)``, ``gpu Exists``."""
    if requirement.operator in ("Exists", "DoesNotExist"):
        return f"{requirement.key} {requirement.operator}"
    return f"{requirement.key} {requirement.operator} ({', '.join(requirement.values)})"


def term_text(term: NodeSelectorTerm) -> str:
    """One required node affinity term, its requirements joined by ``and`` (fields as ``metadata.name ...``)."""
    parts = [requirement_text(r) for r in term.expressions] + [requirement_text(r) for r in term.fields]
    return " and ".join(parts) if parts else "(empty term)"


def stages(snap: Snapshot, shape: Shape) -> Stages:
    """Count the snapshot's nodes for one pod of ``shape``, each under the first filter that rejects it."""
    cluster = snap.cluster
    total = len(cluster)
    nodes = cluster.root.node_array
    inside = np.ones(total, dtype=np.bool_)
    counts: dict[str, int] = {}
    causes: dict[str, Counter[str]] = {tainttoleration.NAME: Counter(), nodeaffinity.NAME: Counter()}
    kept = nodeaffinity.prefilter(shape.constraints)
    if kept is not None:
        inside = np.array([name in kept for name in cluster.names], dtype=np.bool_)
        counts[PREFILTER] = int((~inside).sum())
    passed = inside.copy()
    if shape.allowed_mask is not None:
        rejected = nodes[inside & ~shape.allowed_mask]
        for plugin, group in _rejections(cluster, shape, rejected):
            if plugin is None:  # turned away later (spread or pod affinity labels): reaches NodeResourcesFit
                continue
            passed[group] = False
            counts[plugin] = counts.get(plugin, 0) + len(group)
            if plugin == tainttoleration.NAME:
                _count_taints(cluster, shape, group, causes[plugin])
            elif plugin == nodeaffinity.NAME:
                _count_terms(cluster, shape, group, causes[plugin])
    for resource, amount in shape.requests.items():  # NodePorts comes before NodeResourcesFit
        if resource.startswith(HOST_PORT_PREFIX):
            passed &= snap.free_at(resource, nodes) >= amount
    filters = tuple(
        FilterCount(name, counts[name], tuple(sorted(causes.get(name, Counter()).items(), key=_most_first)))
        for name in FILTER_ORDER
        if counts.get(name, 0) > 0
    )
    return Stages(total, filters, passed)


def _most_first(item: tuple[str, int]) -> tuple[int, str]:
    return -item[1], item[0]


def _rejections(
    cluster: Cluster, shape: Shape, rejected: npt.NDArray[np.int64]
) -> Iterable[tuple[str | None, npt.NDArray[np.int64]]]:
    """``rejected`` by the plugin that rejects them first (``None``: no pod-and-node filter does)."""
    if not shape.constraints.selects_nodes:
        for rejection, group in cluster.class_rejections(shape.constraints, rejected):
            yield (None if rejection is None else rejection.plugin), group
        return
    by_plugin: dict[str | None, list[int]] = {}
    for i in rejected.tolist():
        rejection = cluster.rejection(shape.constraints, i)
        by_plugin.setdefault(None if rejection is None else rejection.plugin, []).append(i)
    for plugin, indexes in by_plugin.items():
        yield plugin, np.asarray(indexes, dtype=np.int64)


def _count_taints(cluster: Cluster, shape: Shape, group: npt.NDArray[np.int64], out: Counter[str]) -> None:
    """Each node's first untolerated taint, as TaintToleration finds it (the node's taints in order)."""
    tolerations = shape.constraints.tolerations
    seen: dict[int, str] = {}  # taint lists are shared among nodes: one look per list
    for i in group.tolist():
        taints = cluster.taints[i]
        text = seen.get(id(taints))
        if text is None:
            taint = tainttoleration.untolerated(taints, tolerations)
            text = seen[id(taints)] = "" if taint is None else taint_text(taint)
        if text:
            out[text] += 1


def _count_terms(cluster: Cluster, shape: Shape, group: npt.NDArray[np.int64], out: Counter[str]) -> None:
    """The ``nodeSelector`` pairs each node fails, or, when it passes them, every required term (none matched)."""
    pod = shape.constraints
    for i in group.tolist():
        labels, name = cluster.labels[i], cluster.names[i]
        failed = [f"nodeSelector {key}={value}" for key, value in pod.node_selector if labels.get(key) != value]
        if failed:
            out.update(failed)
        elif pod.affinity is not None:  # the terms are ORed: a rejected node fails every one of them
            for term in pod.affinity:
                if not nodeaffinity.matches(replace(pod, node_selector=(), affinity=(term,)), labels, name):
                    out[f"node affinity term {term_text(term)}"] += 1


def usable_mask(
    cluster: Cluster, pods: Iterable[PodConstraints], nodes: npt.NDArray[np.int64]
) -> npt.NDArray[np.bool_]:
    """Which of ``nodes`` some pod with one of the constraints ``pods`` may use whatever runs.

    A node is usable when the pod-and-node filters pass there:
    NodeUnschedulable, NodeName, TaintToleration (readiness included: the
    not-ready and unreachable taints) and NodeAffinity; what depends on the
    pods placed (ports, room, spread, pod affinity) is not part of the cut.
    """
    usable = np.zeros(len(nodes), dtype=np.bool_)
    for pod in pods:
        mask = cluster.allowed_mask(pod)
        if mask is None:
            return np.ones(len(nodes), dtype=np.bool_)
        allowed = mask[nodes]
        usable |= allowed
        if not pod.pod_affinity and not pod.pod_anti_affinity and not pod.spread:
            continue  # the mask is the pod-and-node filters alone
        for position in np.flatnonzero(~usable).tolist():  # the mask's later checks do not make a node unusable
            if cluster.rejection(pod, int(nodes[position])) is None:
                usable[position] = True
    return usable


def unusable_reasons(cluster: Cluster, pod: PodConstraints, nodes: npt.NDArray[np.int64]) -> dict[str, int]:
    """Why each of ``nodes`` is out of reach of a pod with constraints ``pod``, the short way, with counts.

    ``cordoned``, ``another nodeName``, ``not ready``, ``unreachable``,
    ``untolerated taint <taint>``, ``node affinity/selector mismatch``.
    """
    counts: Counter[str] = Counter()
    for i in nodes.tolist():
        rejection = cluster.rejection(pod, i)
        if rejection is None:
            continue
        if rejection.plugin == nodeunschedulable.NAME:
            counts["cordoned"] += 1
        elif rejection.plugin == nodename.NAME:
            counts["another nodeName"] += 1
        elif rejection.plugin == tainttoleration.NAME:
            taint = tainttoleration.untolerated(cluster.taints[i], pod.tolerations)
            key = "" if taint is None else taint.key
            if key == NOT_READY:
                counts["not ready"] += 1
            elif key == UNREACHABLE:
                counts["unreachable"] += 1
            else:
                counts[f"untolerated taint {'' if taint is None else taint_text(taint)}".strip()] += 1
        else:
            counts["node affinity/selector mismatch"] += 1
    return dict(counts)
