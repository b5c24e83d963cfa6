"""Where every pool is everyone's or a whole domain's, claims are read per domain: the answer first fit gives.

``claims.domain_supply`` lets the kube-scheduler strategy count a claim
group's pods and place its first pod without trying first fit node by
node, and the complete strategy rule out domains whose pools lack the
devices before searching them. The reference is the same engine with that
shortcut off (``domain_supply`` patched to decline), which tries first fit
at the best nodes one by one and sums the free devices pool by pool; the
answers, explanations included, must be the same. ``complete`` also checks
all of a gang's candidate domains in one pass; that check must be the one
made domain by domain.
"""

from __future__ import annotations

from typing import Any
from unittest import mock

from hypothesis import given
from hypothesis import strategies as st
from placement_helpers import COLUMNAR_SETTINGS, RACK, checked, cluster, node, pod_group, request

from workloadbuilder.placement import Cluster, PlacementRequest, place
from workloadbuilder.placement.cluster.topology import Domain
from workloadbuilder.placement.framework.claims import supplied_within
from workloadbuilder.placement.framework.snapshot import Snapshot
from workloadbuilder.placement.request.model import GroupRequest
from workloadbuilder.placement.strategies.complete import Complete


@st.composite
def instances(draw: st.DrawFn) -> tuple[Cluster, PlacementRequest]:
    """2-3 racks of 1-3 nodes, a NIC pool per rack (and maybe a node's), 1-3 gangs with private or shared claims.

    Some gangs have a leader of another shape (two pod sets), which is simulated pod by pod.
    """
    nodes, pools = [], []
    for r in range(draw(st.integers(2, 3))):
        for n in range(draw(st.integers(1, 3))):
            gpus = draw(st.integers(1, 4))
            used = {"nvidia.com/gpu": str(draw(st.integers(0, gpus)))} if draw(st.booleans()) else None
            nodes.append(node(f"r{r}-n{n}", gpus, used=used, rack=f"r{r}"))
        pools.append(
            {"name": f"r{r}-nics", "deviceClass": "rdma", "count": draw(st.integers(0, 4)), "domain": {RACK: f"r{r}"}}
        )
    if draw(st.integers(0, 3)) == 0:  # a node's own NICs: the shortcut then declines, both runs try node by node
        pools.append({"name": "own-nics", "deviceClass": "rdma", "count": draw(st.integers(0, 2)), "node": "r0-n0"})
    groups: list[dict[str, Any]] = []
    pods: dict[str, Any] = {}
    for k in range(draw(st.integers(1, 3))):
        source = draw(st.sampled_from(["resourceClaimTemplateName", "resourceClaimName"]))
        claims = [{"name": "nics", source: "pair" if source == "resourceClaimTemplateName" else "shared"}]
        count = draw(st.integers(1, 5))
        key = RACK if draw(st.integers(0, 3)) else None
        groups.append(pod_group(f"g{k}", draw(st.integers(1, count)), key=key, claims=claims))
        if count > 1 and draw(st.integers(0, 2)) == 0:  # a leader without a GPU, then the workers, as an LWS
            pods[f"g{k}"] = [(1, {"cpu": "1"}), (count - 1, {"nvidia.com/gpu": "1"})]
        else:
            pods[f"g{k}"] = (count, {"nvidia.com/gpu": "1"})
    templates = {
        "pair": {"deviceClass": "rdma", "count": draw(st.integers(1, 2))},
        "shared": {"deviceClass": "rdma", "count": draw(st.integers(1, 2))},
    }
    return cluster(*nodes, devicePools=pools), request(groups, pods, templates)


@COLUMNAR_SETTINGS
@given(instances())
def test_claims_read_per_domain_land_where_first_fit_node_by_node_puts_them(
    instance: tuple[Cluster, PlacementRequest],
) -> None:
    cl, req = instance
    fast = checked(req, cl, place(req, cl))
    with mock.patch("workloadbuilder.placement.strategies.kube_scheduler.domain_supply", return_value=None):
        slow = place(req, cl)
    assert fast.to_dict() == slow.to_dict()


@COLUMNAR_SETTINGS
@given(instances())
def test_complete_rules_out_domains_by_their_supply_as_pool_by_pool(instance: tuple[Cluster, PlacementRequest]) -> None:
    """``complete``'s check that a domain's pools hold the devices, read per domain or summed pool by pool."""
    cl, req = instance
    fast = checked(req, cl, place(req, cl, "complete"))
    with mock.patch("workloadbuilder.placement.strategies.complete.domain_supply", return_value=None):
        slow = place(req, cl, "complete")
    assert fast.to_dict() == slow.to_dict()


def _leaf_fits_alone(search: Complete, group: GroupRequest, domain: Domain) -> bool:
    """The necessary check of one domain, as the engine made it before it checked a key's domains at once."""
    snap, need = search.snap, group.needed
    room = sum(min(n, snap.fit(shape, domain)) for shape, n in search.kube.shapes(group))
    pending = [ref for ref in group.claims if ref.identity not in snap.allocations]
    supplied = not pending or group.count == 0 or supplied_within(snap, pending, domain)
    return group.count >= need and room >= need and supplied


@COLUMNAR_SETTINGS
@given(instances())
def test_complete_checks_a_gang_s_domains_at_once_as_one_at_a_time(instance: tuple[Cluster, PlacementRequest]) -> None:
    """``Complete._leaf_fits`` of every candidate domain, before and after earlier gangs are assumed."""
    cl, req = instance
    snap = Snapshot(cl)
    search = Complete(snap)
    for root in req.roots:
        domains = search.kube.candidates(root, cl.root)
        assert search._leaf_fits(root, domains) == [_leaf_fits_alone(search, root, d) for d in domains]
        search.kube.schedule(root)  # assumed when it fits: the next gang is checked against what is left
