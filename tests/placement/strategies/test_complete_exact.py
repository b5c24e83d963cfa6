"""`complete` agrees with an exact reference (CP-SAT on the raw per-node model) on random instances.

Instances: up to 10 nodes under zone → block → rack labels (racks sometimes
cut across blocks), tight capacities of three resources, pods of up to
three shapes, node, rack and block device pools, one to three
roots, each a PodGroup or a CompositePodGroup tree of depth up to three,
with private (template) and shared (``resourceClaimName``, also across
roots) group claims, and PodGroups of two pod sets. Each root is checked in the state its own scheduling
cycle saw: the cluster minus what the answer placed for the roots before it.
With preemption (one root, running work of priorities below and above
it), a placement must exist exactly when one exists once every running pod
of lower priority is gone.

``WB_EXACT_EXAMPLES`` sets how many instances run (a few hundred by
default, so CI spends seconds; thousands for a thorough run).
"""

from __future__ import annotations

import os
import re
from typing import Any

from exact_reference import exists, initial, replay, without_lower
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from placement_helpers import BLOCK, RACK, ZONE, cluster, composite, node, pod_group, request

from workloadbuilder.placement import Cluster, PlacementRequest, place

EXAMPLES = int(os.environ.get("WB_EXACT_EXAMPLES", "300"))
KEYS = [None, None, ZONE, BLOCK, RACK]


@st.composite
def instances(draw: st.DrawFn, running: bool = False) -> tuple[Cluster, PlacementRequest]:
    """A small tight cluster and a request of several roots with claims.

    With ``running``: one root of priority 5, and running groups of
    priorities 0-6 on the nodes (now and then a node over-committed by a
    little), for preemption.
    """
    nodes = []
    blocks = draw(st.integers(1, 3))
    crossing = draw(st.booleans())
    for i in range(draw(st.integers(1, 10))):
        block = draw(st.integers(0, blocks - 1))
        rack = draw(st.integers(0, 3)) if crossing else block * 2 + draw(st.integers(0, 1))
        entry = node(
            f"n{i}",
            draw(st.integers(0, 8)),
            cpu=str(draw(st.integers(1, 12))),
            memory=f"{draw(st.integers(1, 12))}Gi",
            zone=f"z{block % 2}",
            block=f"b{block}",
            rack=f"r{rack}",
        )
        if draw(st.integers(0, 9)) == 0:
            entry["unschedulable"] = True
        nodes.append(entry)
    pools = []
    for p in range(draw(st.integers(0, 4))):
        reach = draw(st.sampled_from(["node", "rack", "block"]))
        entry = {"name": f"pool-{p}", "deviceClass": draw(st.sampled_from(["nic", "fabric"]))}
        entry["count"] = draw(st.integers(1, 3))
        if reach == "node":
            entry["node"] = draw(st.sampled_from(nodes))["name"]
        else:
            key = RACK if reach == "rack" else BLOCK
            entry["domain"] = {key: draw(st.sampled_from(nodes))["labels"][key]}
        pools.append(entry)
    shapes = [
        {
            "nvidia.com/gpu": str(draw(st.integers(0, 2))),
            "cpu": str(draw(st.integers(0, 3))),
            "memory": f"{draw(st.integers(0, 3))}Gi",
        }
        for _ in range(draw(st.integers(1, 3)))
    ]
    groups: list[dict[str, Any]] = []
    pods: dict[str, Any] = {}
    counter = [0]

    def tree(parent: str | None, depth: int) -> None:
        name = f"g{counter[0]}"
        counter[0] += 1
        key = draw(st.sampled_from(KEYS))
        if depth >= 3 or draw(st.integers(0, 2)) == 0:
            minimum = draw(st.integers(1, 3)) if draw(st.integers(0, 4)) else None
            count = (minimum or 1) + draw(st.integers(0, 3))
            claims = None
            if pools and draw(st.integers(0, 2)) == 0:
                shared = draw(st.booleans())
                source = "resourceClaimName" if shared else "resourceClaimTemplateName"
                claims = [{"name": "dev", source: draw(st.sampled_from(["nic", "fabric"]))}]
            groups.append(pod_group(name, minimum, key=key, parent=parent, claims=claims, priority=priority))
            # several pod sets, as an LWS leader and workers
            if len(shapes) > 1 and draw(st.integers(0, 3)) == 0:
                first = draw(st.integers(1, count))
                pods[name] = [(first, shapes[0]), (count - first + 1, shapes[1])]
            else:
                pods[name] = (count, draw(st.sampled_from(shapes)))
            return
        children = draw(st.integers(1, 3))
        need = draw(st.integers(1, children)) if draw(st.integers(0, 4)) else None
        groups.append(composite(name, need, key=key, parent=parent, priority=priority))
        for _ in range(children):
            tree(name, depth + 1)

    priority = 5 if running else None
    for _ in range(1 if running else draw(st.integers(1, 3))):
        tree(None, 1 if draw(st.booleans()) else 2)
    claims = {
        "nic": {"deviceClass": "nic", "count": draw(st.integers(1, 2))},
        "fabric": {"deviceClass": "fabric", "count": draw(st.integers(1, 2))},
    }
    work = []
    if running:
        # running pods share out what each node has, at most one CPU and one GPU more (a debt eviction cannot pay)
        left = {
            entry["name"]: [int(entry["allocatable"]["cpu"]), int(entry["allocatable"]["nvidia.com/gpu"])]
            for entry in nodes
        }
        for g in range(draw(st.integers(1, 4))):
            members = []
            for j, entry in enumerate(draw(st.lists(st.sampled_from(nodes), min_size=1, max_size=4, unique_by=id))):
                room = left[entry["name"]]
                cpu, gpu = draw(st.integers(0, room[0] + 1)), draw(st.integers(0, room[1] + 1))
                room[0] -= cpu
                room[1] -= gpu
                share = {"cpu": str(cpu), "nvidia.com/gpu": str(gpu)}
                members.append({"name": f"run-{g}-{j}", "node": entry["name"], "requests": share})
            mode = draw(st.sampled_from(["all", "single"]))
            work.append(
                {"name": f"run-{g}", "priority": draw(st.integers(0, 6)), "disruptionMode": mode, "pods": members}
            )
    return cluster(*nodes, devicePools=pools, running=work), request(groups, pods, claims)


@settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True, database=None
)
@given(instances())
def test_complete_agrees_with_the_exact_reference_root_by_root(instance: tuple[Cluster, PlacementRequest]) -> None:
    cl, req = instance
    answer = place(req, cl, strategy="complete")
    state = initial(cl)
    for root, entry in zip(req.roots, answer.explanation["roots"], strict=True):
        assert entry["search"] is None or entry["search"]["timedOut"] is False
        assert entry["feasible"] == exists(cl, state, root), root.name
        replay(cl, state, root, answer)


@settings(
    max_examples=EXAMPLES // 3,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
    database=None,
)
@given(instances(running=True))
def test_complete_with_preemption_agrees_with_the_exact_reference(instance: tuple[Cluster, PlacementRequest]) -> None:
    cl, req = instance
    (root,) = req.roots
    answer = place(req, cl, strategy="complete", preempt=True)
    # preemption may evict every running pod of lower priority: a placement exists iff one does without them
    state = without_lower(cl, initial(cl), root.priority)
    (entry,) = answer.explanation["roots"]
    assert entry["search"] is None or entry["search"]["timedOut"] is False
    assert answer.feasible == exists(cl, state, root)


_COUNT = re.compile(r"fits (\d+) of (\d+) (?:pods|child group)")
_REPEATED_LEVEL = re.compile(r"\b(\w+) \S+ in \1 ")


@settings(
    max_examples=EXAMPLES // 3,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
    database=None,
)
@given(instances())
def test_explanations_state_only_true_causes(instance: tuple[Cluster, PlacementRequest]) -> None:
    """No count above what is needed, no level named inside itself, and no line that contradicts the answer."""
    cl, req = instance
    for strategy in ("kube-scheduler", "complete"):
        answer = place(req, cl, strategy=strategy)
        for entry in answer.explanation["roots"]:
            for line in entry["text"]:
                assert all(int(fit) <= int(need) for fit, need in _COUNT.findall(line)), line
                assert _REPEATED_LEVEL.search(line) is None, line
            cut_short = entry["search"] is not None and entry["search"]["timedOut"]
            if entry["feasible"] or cut_short:
                assert not any("cannot be placed" in line or "no placement exists" in line for line in entry["text"])
