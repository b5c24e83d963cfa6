"""Which nodes a pod may use: the pod-and-node filters decided per class of nodes, and the reasons they give.

The cordon and taint filters depend only on a node's taints and cordon, so
they are decided once per class of nodes with equal taints and cordon; node
selectors and required affinity once per distinct value of a label; and the
verdicts reach the nodes by indexing with each node's class or value code.
``Eligibility`` keeps each answer per kind of pod for the cluster's life.
``Cluster`` (``cluster.model``) owns one and answers ``allowed``,
``rejection`` and the rest through it; the filters themselves live in
``placement.filters``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt

from workloadbuilder.placement.cluster.records import RunningPod
from workloadbuilder.placement.cluster.topology import Topology
from workloadbuilder.placement.filters import (
    Rejection,
    interpodaffinity,
    nodeaffinity,
    nodeunschedulable,
    static_rejection,
    tainttoleration,
)
from workloadbuilder.placement.k8s.constraints import AffinityTerm, NodeSelectorTerm, PodConstraints, Taint

__all__ = ["Eligibility", "NodeTable"]


class NodeTable(Protocol):
    """What the filters read of a cluster: the nodes' names, labels, taints and cordons, and the running pods."""

    @property
    def names(self) -> list[str]:
        """Node names, in input order."""

    @property
    def labels(self) -> list[dict[str, str]]:
        """Each node's labels."""

    @property
    def taints(self) -> list[tuple[Taint, ...]]:
        """Each node's taints."""

    @property
    def schedulable(self) -> list[bool]:
        """``False`` for cordoned nodes."""

    @property
    def running_pods(self) -> Sequence[RunningPod]:
        """The pods running on the nodes (InterPodAffinity counts them)."""

    @property
    def node_index(self) -> dict[str, int]:
        """By node name, the node's index."""


class Eligibility:
    """The pod-and-node filters' verdicts on one cluster, kept per kind of pod."""

    def __init__(self, cluster: NodeTable, topology: Topology) -> None:
        # The cluster never changes; the caches below fill in as queries first ask and keep their answers.
        self._cluster = cluster  # the nodes judged
        self._topology = topology  # the cluster's topology index, whose keys lend their value codes
        self._restricted = any(cluster.taints) or not all(cluster.schedulable)  # some node may turn a pod away
        self._allowed: dict[PodConstraints, list[bool] | None] = {}  # pod -> the nodes its filters pass (None: all)
        self._allowed_masks: dict[PodConstraints, npt.NDArray[np.bool_] | None] = {}  # pod -> its filters' verdicts
        # each node's class of equal (taints, cordon) and the classes' (taints, cordoned), made on first use
        self._classes: tuple[npt.NDArray[np.int64], list[tuple[tuple[Taint, ...], bool]]] | None = None
        # label key -> each node's value code (-1: unlabelled), the values by code and the codes by value
        self._label_index: dict[str, tuple[npt.NDArray[np.int64], list[str], dict[str, int]]] = {}
        # (pod selecting no nodes, class of ``constraint_classes``) -> the rejection every node of the class gives
        self._rejections: dict[tuple[PodConstraints, int], Rejection | None] = {}
        # pod -> for each (anti-)affinity term, the topology values its matching running pods occupy
        self._affinity_domains: dict[PodConstraints, tuple[list[frozenset[str]], list[frozenset[str]]]] = {}

    def allowed(self, pod: PodConstraints) -> list[bool] | None:
        """Which nodes pass the pod-and-node filters for ``pod`` (``None``: every node does).

        ``allowed_mask(pod)`` as a list, made once per kind of pod.
        """
        if pod not in self._allowed:
            mask = self.allowed_mask(pod)
            self._allowed[pod] = None if mask is None else mask.tolist()
        return self._allowed[pod]

    def allowed_mask(self, pod: PodConstraints) -> npt.NDArray[np.bool_] | None:
        """Which nodes pass the pod-and-node filters for ``pod``, as a boolean array (``None``: every node does).

        Computed once per kind of pod, with no Python pass over the nodes:
        the cordon and taint filters are decided once per class of nodes
        with equal taints and cordon, each node selector pair and affinity
        requirement once per distinct value of its label, and the verdicts
        reach the nodes by indexing with each node's class or value code.
        The verdict is the conjunction of the filters, as ``rejection`` and
        ``pod_affinity_reason`` find them node by node.
        """
        if pod in self._allowed_masks:
            return self._allowed_masks[pod]
        mask: npt.NDArray[np.bool_] | None = None
        if self._restricted:
            codes, classes = self.constraint_classes()
            verdicts = np.fromiter(
                (
                    nodeunschedulable.check(cordoned, pod.tolerations) is None
                    and tainttoleration.check(taints, pod.tolerations) is None
                    for taints, cordoned in classes
                ),
                dtype=np.bool_,
                count=len(classes),
            )
            if not verdicts.all():
                mask = verdicts[codes]
        if pod.selects_nodes:
            selected = self._selected(pod)
            mask = selected if mask is None else mask & selected
        if mask is not None and mask.all():
            mask = None
        self._allowed_masks[pod] = mask
        return mask

    def constraint_classes(self) -> tuple[npt.NDArray[np.int64], list[tuple[tuple[Taint, ...], bool]]]:
        """Each node's class of equal taints and cordon, and each class's ``(taints, cordoned)``; made once.

        Readers share one tuple among nodes with equal taint lists, so the
        nodes are grouped by the tuple's identity (without a Python loop over
        them) and the distinct tuples then by value: equal lists that are
        distinct tuples land in one class.
        """
        if self._classes is None:
            identities = list(map(id, self._cluster.taints))
            by_value: dict[tuple[Taint, ...], int] = {}  # a taint list -> its code, in order of first use
            code_of = {
                identity: by_value.setdefault(taints, len(by_value))
                for identity, taints in dict(zip(identities, self._cluster.taints, strict=True)).items()
            }
            if len(by_value) == 1:  # one taint list on every node (often): no codes to look up
                codes = np.zeros(len(identities), dtype=np.int64)
            else:
                codes = np.fromiter(map(code_of.__getitem__, identities), dtype=np.int64, count=len(identities))
            lists = list(by_value)
            if all(self._cluster.schedulable):
                self._classes = (codes, [(taints, False) for taints in lists])
            else:
                keys = codes * 2 + ~np.asarray(self._cluster.schedulable, dtype=np.bool_)
                distinct, inverse = np.unique(keys, return_inverse=True)
                classes = [(lists[key // 2], bool(key % 2)) for key in distinct.tolist()]
                self._classes = (inverse.astype(np.int64).reshape(-1), classes)
        return self._classes

    def taint_classes(self) -> tuple[npt.NDArray[np.int64], list[tuple[Taint, ...]]]:
        """Each node's class of equal taints (and cordon), and each class's taints: inputs read once per class."""
        codes, classes = self.constraint_classes()
        return codes, [taints for taints, _ in classes]

    def term_mask(self, term: NodeSelectorTerm) -> npt.NDArray[np.bool_]:
        """The nodes a node selector term matches (decided once per distinct label value), as ``nodeaffinity`` does."""
        return self._term_mask(term)

    def _label_codes(self, key: str) -> tuple[npt.NDArray[np.int64], list[str], dict[str, int]]:
        """Each node's code for its value of label ``key`` (-1: no such label), the values by code, codes by value.

        A topology key already indexed lends its domains' positions; other
        keys are read once and kept.
        """
        known = self._label_index.get(key)
        if known is None:
            index = self._topology.indexed(key)
            if index is not None:
                values = list(index.domains)
                known = (index.family.codes, values, {value: code for code, value in enumerate(values)})
            else:
                code_of: dict[str, int] = {}
                codes = [
                    -1 if (value := labels.get(key)) is None else code_of.setdefault(value, len(code_of))
                    for labels in self._cluster.labels
                ]
                known = (np.asarray(codes, dtype=np.int64), list(code_of), code_of)
            self._label_index[key] = known
        return known

    def _value_mask(self, key: str, wanted: Iterable[str]) -> npt.NDArray[np.bool_]:
        """The nodes whose label ``key`` is one of ``wanted`` (nodes without the label are not)."""
        codes, values, code_of = self._label_codes(key)
        verdicts = np.zeros(len(values) + 1, dtype=np.bool_)  # the last entry is read by code -1
        for value in wanted:
            code = code_of.get(value)
            if code is not None:
                verdicts[code] = True
        return verdicts[codes]

    def _named(self, name: str) -> npt.NDArray[np.bool_]:
        """The nodes called ``name``."""
        if len(self._cluster.node_index) == len(self._cluster.names):
            mask = np.zeros(len(self._cluster.names), dtype=np.bool_)
            i = self._cluster.node_index.get(name)
            if i is not None:
                mask[i] = True
            return mask
        return np.asarray([node == name for node in self._cluster.names], dtype=np.bool_)

    def _selected(self, pod: PodConstraints) -> npt.NDArray[np.bool_]:
        """The nodes NodeName, NodeAffinity, InterPodAffinity and the spread keys let ``pod`` use."""
        mask = np.ones(len(self._cluster.names), dtype=np.bool_)
        if pod.node_name:
            mask &= self._named(pod.node_name)
        for key, value in pod.node_selector:
            mask &= self._value_mask(key, (value,))
        if pod.affinity is not None:
            matched = np.zeros(len(self._cluster.names), dtype=np.bool_)
            for term in pod.affinity:
                matched |= self._term_mask(term)
            mask &= matched
        if pod.pod_affinity or pod.pod_anti_affinity:
            affinity_domains, anti_domains = self._pod_affinity_domains(pod)
            if pod.pod_affinity:
                present = np.ones(len(self._cluster.names), dtype=np.bool_)
                for wanted, domains in zip(pod.pod_affinity, affinity_domains, strict=True):
                    mask &= self._label_codes(wanted.topology_key)[0] >= 0
                    present &= self._value_mask(wanted.topology_key, domains)
                if not interpodaffinity.first_of_series(pod, affinity_domains):
                    mask &= present
            for avoided, domains in zip(pod.pod_anti_affinity, anti_domains, strict=True):
                mask &= ~self._value_mask(avoided.topology_key, domains)
        for constraint in pod.spread:
            mask &= self._label_codes(constraint.topology_key)[0] >= 0
        return mask

    def _term_mask(self, term: NodeSelectorTerm) -> npt.NDArray[np.bool_]:
        """The nodes a required node affinity term matches, as ``nodeaffinity`` decides it for one node."""
        if not term.expressions and not term.fields:
            return np.zeros(len(self._cluster.names), dtype=np.bool_)
        mask = np.ones(len(self._cluster.names), dtype=np.bool_)
        for requirement in term.expressions:
            codes, values, _ = self._label_codes(requirement.key)
            mask &= np.asarray(nodeaffinity.value_verdicts(requirement, values), dtype=np.bool_)[codes]
        for requirement in term.fields:
            if requirement.key != "metadata.name" or requirement.operator not in ("In", "NotIn"):
                return np.zeros(len(self._cluster.names), dtype=np.bool_)
            if len(requirement.values) != 1:
                return np.zeros(len(self._cluster.names), dtype=np.bool_)
            named = self._named(requirement.values[0])
            mask &= named if requirement.operator == "In" else ~named
        return mask

    def _pod_affinity_domains(self, pod: PodConstraints) -> tuple[list[frozenset[str]], list[frozenset[str]]]:
        """Per (anti-)affinity term of ``pod``, the topology values its matching running pods occupy; kept."""
        domains = self._affinity_domains.get(pod)
        if domains is None:
            domains = self._affinity_domains[pod] = (
                [self._term_domains(term) for term in pod.pod_affinity],
                [self._term_domains(term) for term in pod.pod_anti_affinity],
            )
        return domains

    def pod_affinity_reason(self, pod: PodConstraints, i: int) -> str | None:
        """InterPodAffinity's reason to reject node ``i`` for ``pod``, counting running pods (``None``: it passes)."""
        if not pod.pod_affinity and not pod.pod_anti_affinity:
            return None
        domains = self._pod_affinity_domains(pod)
        return interpodaffinity.check(pod, self._cluster.labels[i], domains[0], domains[1])

    def _term_domains(self, term: AffinityTerm) -> frozenset[str]:
        """The values of the term's topology key where a running pod the term matches runs."""
        values = set()
        for running in self._cluster.running_pods:
            value = self._cluster.labels[running.node].get(term.topology_key)
            if value is not None and term.matches(running.namespace, running.labels):
                values.add(value)
        return frozenset(values)

    def rejection(self, pod: PodConstraints, i: int) -> Rejection | None:
        """The first pod-and-node filter that rejects node ``i`` for ``pod``, with its reasons.

        For a pod that selects no nodes by name or label, only the node's
        taints and cordon matter: the answer is kept per class of nodes.
        """
        if pod.selects_nodes:
            return static_rejection(
                pod,
                self._cluster.names[i],
                self._cluster.labels[i],
                self._cluster.taints[i],
                not self._cluster.schedulable[i],
            )
        key = (pod, int(self.constraint_classes()[0][i]))
        if key not in self._rejections:
            self._rejections[key] = static_rejection(
                pod, self._cluster.names[i], {}, self._cluster.taints[i], not self._cluster.schedulable[i]
            )
        return self._rejections[key]

    def class_rejections(
        self, pod: PodConstraints, nodes: npt.NDArray[np.int64]
    ) -> list[tuple[Rejection | None, npt.NDArray[np.int64]]]:
        """``nodes`` by the rejection each gives ``pod``, for a pod that selects no nodes by name or label.

        Such a pod is turned away by taints and cordons alone, so the nodes
        of one class of ``constraint_classes`` share one answer: each class
        among ``nodes`` is one entry, its rejection and its nodes (in order).
        """
        if pod.selects_nodes:
            raise ValueError("class_rejections: the pod selects nodes by name or label; ask rejection node by node")
        if len(nodes) == 0:
            return []
        codes = self.constraint_classes()[0][nodes]
        order = np.argsort(codes, kind="stable")
        starts = np.unique(codes[order], return_index=True)[1]
        return [(self.rejection(pod, int(group[0])), group) for group in np.split(nodes[order], starts[1:])]
