"""Pod topology spread in one scheduling cycle: what each ``DoNotSchedule`` constraint counts, as pods are assumed.

A ``SpreadTracker`` starts from the running pods (read once per kind of
pod from the cluster) and adds every pod assumed through it, so the gang's
own pods spread as kube-scheduler's cycle spreads them, one by one.
"""

from __future__ import annotations

from workloadbuilder.placement.cluster.model import Cluster
from workloadbuilder.placement.filters import nodeaffinity, podtopologyspread, tainttoleration
from workloadbuilder.placement.k8s.constraints import PodConstraints, SpreadConstraint

__all__ = ["SpreadTracker", "domain_counts"]


def domain_counts(cluster: Cluster, pod: PodConstraints, constraint: SpreadConstraint) -> dict[str, int]:
    """Every domain the constraint counts for ``pod``, with its running pods that match (0 for none)."""
    counts: dict[str, int] = {}
    eligible: list[bool] = []
    for i, labels in enumerate(cluster.labels):
        ok = constraint.topology_key in labels
        if ok and constraint.honor_affinity:
            ok = nodeaffinity.matches(pod, labels, cluster.names[i])
        if ok and constraint.honor_taints:
            ok = tainttoleration.check(cluster.taints[i], pod.tolerations) is None
        eligible.append(ok)
        if ok:
            counts.setdefault(labels[constraint.topology_key], 0)
    for running in cluster.running_pods:
        if (
            eligible[running.node]
            and running.namespace == pod.namespace
            and constraint.selector.matches(running.labels)
        ):
            counts[cluster.labels[running.node][constraint.topology_key]] += 1
    return counts


class SpreadTracker:
    """The spread counts of one cycle: running pods, plus the pods assumed through ``add``."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.placed: list[tuple[int, PodConstraints]] = []
        self._base: dict[tuple[PodConstraints, int], dict[str, int]] = {}

    def reason(self, pod: PodConstraints, i: int) -> str | None:
        """PodTopologySpread's reason to reject node ``i`` for ``pod`` now (``None``: it passes)."""
        labels = self.cluster.labels[i]
        for k, constraint in enumerate(pod.spread):
            counts = dict(self._counts(pod, k))
            for j, other in self.placed:
                value = self.cluster.labels[j].get(constraint.topology_key)
                if (
                    value in counts
                    and other.namespace == pod.namespace
                    and constraint.selector.matches(other.label_map)
                ):
                    counts[value] += 1
            value = labels.get(constraint.topology_key)
            if value is not None and value not in counts:
                counts[value] = 0
            reason = podtopologyspread.check(constraint, value, counts, constraint.selector.matches(pod.label_map))
            if reason is not None:
                return reason
        return None

    def add(self, i: int, pod: PodConstraints) -> None:
        """Count a pod assumed on node ``i``."""
        self.placed.append((i, pod))

    def _counts(self, pod: PodConstraints, k: int) -> dict[str, int]:
        base = self._base.get((pod, k))
        if base is None:
            base = self._base[(pod, k)] = domain_counts(self.cluster, pod, pod.spread[k])
        return base
