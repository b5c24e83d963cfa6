"""Preference scores computed once per class of nodes give what the per-node rules give.

``scoring.preference_array`` decides TaintToleration's ``PreferNoSchedule``
count once per class of equal taints and each preferred NodeAffinity term
once per distinct label value, then spreads both over the nodes with numpy.
Here it is compared, on seeded random clusters, with the plugins' per-node
rules (``tainttoleration.intolerable_preferences``,
``nodeaffinity.preferred_score``) normalized as upstream does, node by node.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from workloadbuilder.placement import Cluster
from workloadbuilder.placement.filters.nodeaffinity import preferred_score
from workloadbuilder.placement.filters.tainttoleration import intolerable_preferences
from workloadbuilder.placement.framework.scoring import preference_array, preference_scores, raw_preferences
from workloadbuilder.placement.framework.snapshot import Snapshot
from workloadbuilder.placement.k8s.constraints import (
    NodeSelectorRequirement,
    NodeSelectorTerm,
    PodConstraints,
    Taint,
    Toleration,
)

EFFECTS = ("PreferNoSchedule", "NoSchedule", "NoExecute")
KEYS = ("spot", "maintenance", "nvidia.com/gpu", "zone")
VALUES = ("", "true", "1", "7", "12", "-3", "x")
OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Bogus")


def _taints(rng: random.Random) -> tuple[Taint, ...]:
    """0-3 taints, PreferNoSchedule the most common, sometimes repeated."""
    return tuple(
        Taint(rng.choice(KEYS), rng.choice(VALUES), rng.choice((*EFFECTS, "PreferNoSchedule")))
        for _ in range(rng.choice((0, 0, 1, 1, 2, 3)))
    )


def _toleration(rng: random.Random) -> Toleration:
    operator = rng.choice(("", "Equal", "Exists", "Exists", "Lt", "Gt"))
    key = "" if operator == "Exists" and rng.random() < 0.2 else rng.choice(KEYS)
    return Toleration(key, operator, rng.choice(VALUES), rng.choice(("", *EFFECTS)))


def _requirement(rng: random.Random) -> NodeSelectorRequirement:
    operator = rng.choice(OPERATORS)
    count = 1 if operator in ("Gt", "Lt") and rng.random() < 0.8 else rng.randint(0, 3)
    return NodeSelectorRequirement(rng.choice(KEYS), operator, tuple(rng.choice(VALUES) for _ in range(count)))


def _field(rng: random.Random, names: list[str]) -> NodeSelectorRequirement:
    operator = rng.choice(("In", "NotIn", "Exists"))
    count = 1 if rng.random() < 0.8 else 2
    key = "metadata.name" if rng.random() < 0.9 else "metadata.uid"
    return NodeSelectorRequirement(key, operator, tuple(rng.choice(names) for _ in range(count)))


def _term(rng: random.Random, names: list[str]) -> NodeSelectorTerm:
    expressions = tuple(_requirement(rng) for _ in range(rng.choice((0, 1, 1, 2))))
    fields = tuple(_field(rng, names) for _ in range(rng.choice((0, 0, 0, 1))))
    return NodeSelectorTerm(expressions, fields)


def _cluster(rng: random.Random) -> Cluster:
    """1-60 nodes with random labels, cordons and taints; equal taint lists are sometimes distinct tuples."""
    shared = [_taints(rng) for _ in range(4)]
    nodes: list[dict[str, Any]] = []
    for i in range(rng.randint(1, 60)):
        taints = rng.choice(shared) if rng.random() < 0.6 else _taints(rng)
        if rng.random() < 0.3:
            taints = tuple(taints)  # an equal list in another tuple
        labels = {key: rng.choice(VALUES) for key in KEYS if rng.random() < 0.6}
        nodes.append(
            {
                "name": f"n{i:02d}",
                "labels": labels,
                "allocatable": {"cpu": 4000, "memory": 8 * 1024**3 * 1000, "pods": 110_000},
                "used": {},
                "schedulable": rng.random() > 0.1,
                "taints": taints,
            }
        )
    return Cluster.build(nodes)


def _pod(rng: random.Random, names: list[str]) -> PodConstraints:
    tolerations = tuple(_toleration(rng) for _ in range(rng.choice((0, 1, 1, 2, 3))))
    preferred = tuple((rng.choice((1, 2, 5, 10, 50, 100)), _term(rng, names)) for _ in range(rng.choice((0, 1, 2, 3))))
    return PodConstraints(tolerations=tolerations, preferred=preferred)


def per_node_scores(cluster: Cluster, pod: PodConstraints, nodes: list[int]) -> dict[int, int]:
    """The rule node by node: each plugin's raw score per node, normalized over ``nodes`` and weighted 3 and 2."""
    taints = {i: intolerable_preferences(cluster.taints[i], pod.tolerations) for i in nodes}
    affinity = {i: preferred_score(pod, cluster.labels[i], cluster.names[i]) for i in nodes} if pod.preferred else {}
    most_taints = max(taints.values(), default=0)
    most_affinity = max(affinity.values(), default=0)
    out = {}
    for i in nodes:
        taint = 100 - taints[i] * 100 // most_taints if most_taints else 100
        preferred = affinity[i] * 100 // most_affinity if most_affinity else 0
        out[i] = 3 * taint + 2 * preferred
    return out


@pytest.mark.parametrize("seed", range(400), ids=lambda seed: f"seed-{seed}")
def test_per_class_preferences_equal_the_per_node_rule(seed: int) -> None:
    rng = random.Random(seed)
    cluster = _cluster(rng)
    pod = _pod(rng, [*cluster.names, "elsewhere"])
    snap = Snapshot(cluster)
    shape = snap.shape({"cpu": 100}, pod)
    everyone = list(range(len(cluster)))
    subset = sorted(rng.sample(everyone, rng.randint(0, len(everyone))))
    for nodes in (everyone, subset, subset[::-1]):
        order = np.asarray(nodes, dtype=np.int64)
        counts, affinity = raw_preferences(cluster, pod, order)
        assert counts.tolist() == [intolerable_preferences(cluster.taints[i], pod.tolerations) for i in nodes]
        if pod.preferred:
            assert affinity is not None
            assert affinity.tolist() == [preferred_score(pod, cluster.labels[i], cluster.names[i]) for i in nodes]
        else:
            assert affinity is None
        expected = per_node_scores(cluster, pod, nodes)
        assert preference_array(snap, shape, order).tolist() == [expected[i] for i in nodes]
        assert preference_scores(snap, shape, nodes) == expected
