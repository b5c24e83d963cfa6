"""``Cluster.allowed_mask`` decides per class of nodes and per label value what the filters decide per node.

The vectorized verdict (taints and cordons per class of equal taints and
cordon, selectors and affinity per distinct label value) is compared with
the node-by-node reference on random clusters and pods: the conjunction of
``rejection`` (NodeUnschedulable, NodeName, TaintToleration, NodeAffinity),
``pod_affinity_reason`` (InterPodAffinity) and the spread keys' presence.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workloadbuilder.placement.cluster.model import Cluster
from workloadbuilder.placement.filters import static_rejection
from workloadbuilder.placement.k8s.constraints import (
    AffinityTerm,
    LabelSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    PodConstraints,
    SpreadConstraint,
    Taint,
    Toleration,
)

KEYS = ("rack", "zone", "size", "absent")
VALUES = ("a", "b", "c", "7", "12", "-3", "x7")

taints = st.sampled_from(
    [
        (),
        (),
        (),
        (Taint("gpu", "present", "NoSchedule"),),
        (Taint("gpu", "present", "NoSchedule"), Taint("spot", "true", "NoExecute")),
        (Taint("spot", "true", "PreferNoSchedule"),),
        (Taint("level", "5", "NoSchedule"),),
    ]
)
tolerations = st.lists(
    st.sampled_from(
        [
            Toleration("gpu", "Exists"),
            Toleration("gpu", "Equal", "present", "NoSchedule"),
            Toleration("spot", "Exists", "", "NoExecute"),
            Toleration("level", "Lt", "9"),
            Toleration("node.kubernetes.io/unschedulable", "Exists"),
            Toleration("", "Exists"),
        ]
    ),
    max_size=3,
).map(tuple)
requirements = st.builds(
    NodeSelectorRequirement,
    st.sampled_from(KEYS),
    st.sampled_from(["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"]),
    st.lists(st.sampled_from(VALUES), max_size=2).map(tuple),
)
fields = st.builds(
    NodeSelectorRequirement,
    st.sampled_from(["metadata.name", "metadata.uid"]),
    st.sampled_from(["In", "NotIn", "Exists"]),
    st.lists(st.sampled_from(["n00", "n01", "n05", "zz"]), min_size=0, max_size=2).map(tuple),
)
terms = st.builds(
    NodeSelectorTerm,
    st.lists(requirements, max_size=2).map(tuple),
    st.one_of(st.just(()), st.just(()), st.lists(fields, max_size=1).map(tuple)),
)
affinity_terms = st.builds(
    AffinityTerm,
    st.sampled_from(KEYS),
    st.builds(LabelSelector, st.sampled_from([(), (("app", "web"),), (("app", "db"),)])),
    st.just(None),
)


def sometimes(strategy: Any, empty: Any = ()) -> Any:
    """``strategy`` one time in three, else ``empty``: a pod sets few constraints at once, so each one shows."""
    return st.one_of(st.just(empty), st.just(empty), strategy)


pods = st.builds(
    PodConstraints,
    tolerations=sometimes(tolerations),
    node_selector=sometimes(
        st.lists(st.tuples(st.sampled_from(KEYS), st.sampled_from(VALUES)), min_size=1, max_size=2).map(
            lambda pairs: tuple(sorted(dict(pairs).items()))
        )
    ),
    affinity=st.one_of(
        st.none(), st.lists(terms, max_size=1).map(tuple), st.lists(terms, min_size=2, max_size=2).map(tuple)
    ),
    node_name=st.sampled_from(["", "", "", "", "n01", "zz"]),
    labels=st.sampled_from([(), (("app", "web"),)]),
    pod_affinity=sometimes(st.lists(affinity_terms, min_size=1, max_size=2).map(tuple)),
    pod_anti_affinity=sometimes(st.lists(affinity_terms, min_size=1, max_size=2).map(tuple)),
    spread=sometimes(
        st.lists(
            st.builds(SpreadConstraint, st.just(1), st.sampled_from(KEYS), st.just(LabelSelector())), max_size=1
        ).map(tuple)
    ),
)


@st.composite
def clusters(draw: Any) -> Cluster:
    """1-24 nodes with random labels (some missing), taints, cordons, and running pods with app labels."""
    count = draw(st.integers(1, 24))
    nodes = []
    for i in range(count):
        labels = {key: draw(st.sampled_from(VALUES)) for key in KEYS[:3] if draw(st.integers(0, 3))}
        nodes.append(
            {
                "name": f"n{i:02d}",
                "labels": labels,
                "allocatable": {"cpu": 8000, "memory": 1000, "pods": 110_000},
                "used": {},
                "schedulable": draw(st.integers(0, 5)) > 0,
                "taints": draw(taints),
            }
        )
    running = [
        {"name": f"p{k}", "node": f"n{draw(st.integers(0, count - 1)):02d}", "requests": {}, "labels": {"app": app}}
        for k, app in enumerate(draw(st.lists(st.sampled_from(["web", "db"]), max_size=4)))
    ]
    return Cluster.build(nodes, running_pods=running) if running else Cluster.build(nodes)


def reference(cluster: Cluster, pod: PodConstraints) -> list[bool]:
    """The filters node by node, as ``rejection`` and ``pod_affinity_reason`` report them."""
    return [
        cluster.rejection(pod, i) is None
        and cluster.pod_affinity_reason(pod, i) is None
        and all(constraint.topology_key in cluster.labels[i] for constraint in pod.spread)
        for i in range(len(cluster))
    ]


@settings(max_examples=500, deadline=None)
@given(clusters(), pods)
def test_the_vectorized_verdict_is_the_per_node_verdict(cluster: Cluster, pod: PodConstraints) -> None:
    expected = reference(cluster, pod)
    mask = cluster.allowed_mask(pod)
    got = [True] * len(cluster) if mask is None else mask.tolist()
    assert got == expected
    allowed = cluster.allowed(pod)
    assert (None if all(expected) else expected) == allowed
    for i in range(len(cluster)):  # kept per class of nodes for a pod that selects none: the same answer
        node = (cluster.names[i], cluster.labels[i], cluster.taints[i], not cluster.schedulable[i])
        assert cluster.rejection(pod, i) == static_rejection(pod, *node)


def test_equal_taint_lists_that_are_distinct_tuples_share_a_class() -> None:
    nodes = [
        {"name": f"n{i}", "labels": {}, "allocatable": {"cpu": 1000}, "taints": (Taint("gpu", "1", "NoSchedule"),)}
        for i in range(3)
    ]
    nodes.append({"name": "n3", "labels": {}, "allocatable": {"cpu": 1000}, "schedulable": False})
    cluster = Cluster.build(nodes)
    codes, classes = cluster.eligibility.constraint_classes()
    assert codes.tolist() == [0, 0, 0, 1]
    assert classes == [((Taint("gpu", "1", "NoSchedule"),), False), ((), True)]


# --- Eligibility directly: what every node passes, the kept answers, the rejections per class ---

GPU_TAINT = Taint("gpu", "1", "NoSchedule")


def _plain(name: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "labels": {}, "allocatable": {"cpu": 1000}, **extra}


def test_an_unrestricted_cluster_allows_every_node_as_none() -> None:
    cluster = Cluster.build([_plain("n0"), _plain("n1")])
    assert cluster.eligibility.allowed(PodConstraints()) is None
    assert cluster.eligibility.allowed_mask(PodConstraints()) is None


def test_a_selector_that_every_node_matches_is_none_too() -> None:
    cluster = Cluster.build([_plain("n0", labels={"zone": "a"}), _plain("n1", labels={"zone": "a"})])
    assert cluster.eligibility.allowed(PodConstraints(node_selector=(("zone", "a"),))) is None
    assert cluster.eligibility.allowed(PodConstraints(node_selector=(("zone", "b"),))) == [False, False]


def test_allowed_is_made_once_per_kind_of_pod() -> None:
    cluster = Cluster.build([_plain("n0", taints=(GPU_TAINT,)), _plain("n1")])
    eligibility = cluster.eligibility
    pod = PodConstraints()
    first = eligibility.allowed(pod)
    assert first == [False, True]
    assert eligibility.allowed(PodConstraints()) is first
    mask = eligibility.allowed_mask(pod)
    assert mask is not None
    assert eligibility.allowed_mask(pod) is mask
    tolerating = PodConstraints(tolerations=(Toleration("gpu", "Exists"),))
    assert eligibility.allowed(tolerating) is None


def test_rejections_name_the_plugin_and_its_reason() -> None:
    cluster = Cluster.build([_plain("n0", taints=(GPU_TAINT,)), _plain("n1", schedulable=False), _plain("n2")])
    eligibility = cluster.eligibility
    pod = PodConstraints()
    taint, cordon, fine = (eligibility.rejection(pod, i) for i in range(3))
    assert taint is not None
    assert cordon is not None
    assert (taint.plugin, taint.reasons, taint.resolvable) == (
        "TaintToleration",
        ("node(s) had untolerated taint(s)",),
        False,
    )
    assert (cordon.plugin, cordon.reasons) == ("NodeUnschedulable", ("node(s) were unschedulable",))
    assert fine is None
    grouped = eligibility.class_rejections(pod, np.asarray([2, 0, 1, 0]))
    assert [(None if r is None else r.plugin, nodes.tolist()) for r, nodes in grouped] == [
        ("TaintToleration", [0, 0]),
        (None, [2]),
        ("NodeUnschedulable", [1]),
    ]  # in the order of the classes: by taint list, then uncordoned before cordoned
    assert eligibility.class_rejections(pod, np.asarray([], dtype=np.int64)) == []


def test_class_rejections_refuse_a_pod_that_selects_nodes() -> None:
    cluster = Cluster.build([_plain("n0")])
    with pytest.raises(ValueError, match=r"^class_rejections: the pod selects nodes by name or label"):
        cluster.eligibility.class_rejections(PodConstraints(node_name="n0"), np.asarray([0]))


def test_taint_classes_are_the_constraint_classes_taints() -> None:
    cluster = Cluster.build([_plain("n0", taints=(GPU_TAINT,)), _plain("n1"), _plain("n2", taints=(GPU_TAINT,))])
    codes, taints = cluster.eligibility.taint_classes()
    assert (codes.tolist(), taints) == ([0, 1, 0], [(GPU_TAINT,), ()])
