"""The exact search: one root as a CP-SAT model over node classes, solved within a scope before a deadline.

A solution places every gang's minimum (no more), each group in one domain
of its key nested in its parent's, identical siblings in domain order, and
each new group claim's devices in pools every pod of it reaches;
``infeasible`` is a proof that none exists in the scope, ``timeout`` that
the deadline came first. Without OR-tools the search says what to install.
"""

from __future__ import annotations

import sys
import time

import pytest
from placement_helpers import BLOCK, RACK, cluster, composite, node, pod_group, request

from workloadbuilder.errors import MissingDependencyError
from workloadbuilder.placement.cluster.model import Cluster
from workloadbuilder.placement.cluster.topology import Domain
from workloadbuilder.placement.framework.snapshot import Snapshot
from workloadbuilder.placement.request.model import PlacementRequest
from workloadbuilder.placement.strategies.kube_scheduler import KubeScheduler
from workloadbuilder.placement.strategies.solver import INSTALL_HINT, Solution, solve

pytest.importorskip("ortools.sat.python")

G = {"nvidia.com/gpu": "1"}


def search(cl: Cluster, req: PlacementRequest, scope: Domain | None = None, seconds: float = 20.0) -> Solution:
    snap = Snapshot(cl)
    return solve(snap, KubeScheduler(snap), req.roots[0], scope or cl.root, time.monotonic() + seconds)


def kep(b2: int = 5) -> Cluster:
    return cluster(
        node("a1", 3, block="block-A", rack="rack-A1"),
        node("a2", 5, block="block-A", rack="rack-A2"),
        node("b1", 5, block="block-B", rack="rack-B1"),
        node("b2", b2, block="block-B", rack="rack-B2"),
    )


def kep_request() -> PlacementRequest:
    return request(
        [
            composite("cpg", 2, key=BLOCK),
            pod_group("pg-1", 5, key=RACK, parent="cpg"),
            pod_group("pg-2", 5, key=RACK, parent="cpg"),
        ],
        {"pg-1": (5, G), "pg-2": (5, G)},
    )


def test_kep_6012_is_block_b_the_earlier_sibling_in_the_earlier_rack() -> None:
    assert search(kep(), kep_request()) == Solution(
        "found",
        selected={"cpg", "pg-1", "pg-2"},
        values={"cpg": "block-B", "pg-1": "rack-B1", "pg-2": "rack-B2"},
        pods={"pg-1": [{2: 5}], "pg-2": [{3: 5}]},
    )


def test_a_scope_that_cannot_hold_the_root_is_proved_infeasible() -> None:
    cl = kep()
    assert search(cl, kep_request(), cl.domains(BLOCK)["block-A"]).status == "infeasible"
    assert search(kep(b2=4), kep_request()).status == "infeasible"


def test_only_the_minimum_is_placed_within_each_nodes_room() -> None:
    cl = kep()
    found = search(cl, request([pod_group("pg", 4)], {"pg": (6, G)}))
    assert (found.status, found.selected, found.values) == ("found", {"pg"}, {})
    (per_node,) = found.pods["pg"]
    room = [3, 5, 5, 5]
    assert sum(per_node.values()) == 4
    assert all(0 < n <= room[i] for i, n in per_node.items())


INFEASIBLE = [
    ("more pods than the cluster holds", [pod_group("pg", 19)], {"pg": (19, G)}),
    ("fewer pods than minCount", [pod_group("pg", 3)], {"pg": (2, G)}),
    (
        "minGroupCount above the children",
        [composite("c", 3), pod_group("x", 1, parent="c"), pod_group("y", 1, parent="c")],
        {"x": (1, G), "y": (1, G)},
    ),
    ("a rack too small for the gang", [pod_group("pg", 6, key=RACK)], {"pg": (6, G)}),
]


@pytest.mark.parametrize(("groups", "pods"), [c[1:] for c in INFEASIBLE], ids=[c[0] for c in INFEASIBLE])
def test_infeasible(groups: list[dict[str, object]], pods: dict[str, object]) -> None:
    assert search(kep(), request(groups, pods)) == Solution("infeasible")


def claimed(count: int) -> PlacementRequest:
    return request(
        [pod_group("pg", 2, claims=[{"name": "nic", "resourceClaimTemplateName": "t"}])],
        {"pg": (2, G)},
        {"t": {"deviceClass": "nic", "count": count}},
    )


def nic_cluster() -> Cluster:
    return cluster(
        node("n1", 8), node("n2", 8), devicePools=[{"name": "n2-nics", "deviceClass": "nic", "count": 2, "node": "n2"}]
    )


def test_a_claim_pins_the_pods_to_the_nodes_reaching_its_pool() -> None:
    assert search(nic_cluster(), claimed(2)) == Solution(
        "found", selected={"pg"}, pods={"pg": [{1: 2}]}, devices={("template", "pg", "nic"): (("n2-nics", 2),)}
    )


def test_a_claim_larger_than_any_pool_is_infeasible() -> None:
    assert search(nic_cluster(), claimed(3)).status == "infeasible"


def test_a_deadline_already_past_is_a_timeout() -> None:
    assert search(kep(), kep_request(), seconds=-1.0) == Solution("timeout")


def test_without_or_tools_it_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ortools.sat.python", None)
    with pytest.raises(MissingDependencyError) as raised:
        search(kep(), kep_request())
    assert str(raised.value) == f"the complete strategy's exact search needs OR-tools: {INSTALL_HINT}"
    assert INSTALL_HINT == "pip install 'workloadbuilder[solver]'"
