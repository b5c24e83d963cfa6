"""Interplay: which earlier placed roots took the room a failing root needs, and the sentence that says so.

``interplay`` places the failing root alone on the cluster as given; when it
fits there, it names the earlier placed roots holding pods on the nodes it
would have used (and those holding group claims), or all of them when none
does, and says where the root fits without them. ``None`` when no earlier
root was placed or the root does not fit even alone.
"""

from __future__ import annotations

from placement_helpers import RACK, cluster, node, pod_group, request

from workloadbuilder.placement.cluster.model import Cluster
from workloadbuilder.placement.explain.interplay import interplay
from workloadbuilder.placement.framework.outcome import GroupResult, Outcome
from workloadbuilder.placement.framework.snapshot import Allocation
from workloadbuilder.placement.request.model import GroupRequest

GPU = {"nvidia.com/gpu": "1"}


def setup(key: str | None = RACK, pods: int = 2) -> tuple[Cluster, GroupRequest, list[GroupRequest]]:
    """n1 in rack r1 with 4 GPUs, n2 in rack r2 with none; root ``b`` wants ``pods`` GPU pods; ``a1``-``a3`` first."""
    cl = cluster(node("n1", 4, rack="r1"), node("n2", 0, rack="r2"))
    req = request(
        [pod_group("a1", 1), pod_group("a2", 1), pod_group("a3", 1), pod_group("b", pods, key=key)],
        {"a1": (1, GPU), "a2": (1, GPU), "a3": (1, GPU), "b": (pods, GPU)},
    )
    return cl, req.group("b"), [req.group(name) for name in ("a1", "a2", "a3")]


def on(cl: Cluster, group: str, *nodes: int, claims: bool = False) -> Outcome:
    result = GroupResult({}, cl.root, list(nodes))
    if claims:
        result.claims["nic"] = Allocation(("claim", "nic"), (("pool", 1),))
    return Outcome(True, len(nodes), {group: result})


def test_nothing_placed_before() -> None:
    cl, b, (a1, _, _) = setup()
    assert interplay(b, [], cl) is None
    assert interplay(b, [(a1, Outcome(False))], cl) is None


def test_a_root_that_does_not_fit_even_alone() -> None:
    cl, b, (a1, _, _) = setup(pods=5)
    assert interplay(b, [(a1, on(cl, "a1", 0))], cl) is None


def test_one_holder_in_the_roots_domain() -> None:
    cl, b, (a1, a2, _) = setup()
    found = interplay(b, [(a1, on(cl, "a1", 0, 0, 0)), (a2, on(cl, "a2", 1))], cl)
    assert found == {
        "roots": ["a1"],
        "text": "`a1` was placed first and took the room `b` needs: without it, `b` fits in rack r1, "
        "where `a1` placed 3 pods",
    }


def test_several_holders_without_topology_key() -> None:
    cl, b, (a1, a2, a3) = setup(key=None)
    found = interplay(b, [(a1, on(cl, "a1", 0)), (a2, on(cl, "a2", 0, 0)), (a3, on(cl, "a3", 1))], cl)
    assert found == {
        "roots": ["a1", "a2"],
        "text": "`a1`, `a2` were placed first and took the room `b` needs: without them, `b` fits "
        "on the nodes where `a1` placed 1 pod and `a2` 2",
    }


def test_a_claim_holder_is_named_without_pods_there() -> None:
    cl, b, (a1, a2, _) = setup()
    found = interplay(b, [(a1, on(cl, "a1", 1, claims=True)), (a2, on(cl, "a2", 0))], cl)
    assert found is not None
    assert found["roots"] == ["a1", "a2"]
    assert found["text"].endswith("without them, `b` fits in rack r1, where `a2` placed 1 pod")


def test_nobody_on_those_nodes_names_every_placed_root() -> None:
    cl, b, (a1, a2, a3) = setup()
    found = interplay(b, [(a1, on(cl, "a1", 1)), (a2, Outcome(False)), (a3, on(cl, "a3", 1))], cl)
    assert found == {
        "roots": ["a1", "a3"],
        "text": "`a1`, `a3` were placed first and took the room `b` needs: without them, `b` fits in rack r1",
    }
