"""The complete strategy's exact search: one root hierarchy as a CP-SAT model over classes of equal nodes.

The model decides, all at once, which children make up each
CompositePodGroup's ``minGroupCount``, each group's domain at its topology
key, how many of each PodGroup's ``minCount`` pods go to each class of
nodes, and which pools each new group claim takes its devices from. It is
exact: a solution is a placement of every gang's minimum, and "infeasible"
is a proof that none exists (pods beyond the minimum never help a gang).

Nodes are grouped into *classes* (``classes.node_classes``) that no
constraint can tell apart, so the model grows with the number of distinct
nodes, not with the cluster. A PodGroup of several pod sets (an LWS
leader and its workers) takes its ``minCount`` pods from any of them. Pods
of one shape on a class of ``m`` nodes
only need ``m`` times the pods one node holds; where pods of several shapes
may share a class, each of its nodes (as many as there are pods to place)
gets its own packing constraint, with the nodes ordered to break symmetry.

OR-tools is an optional dependency (the ``solver`` extra): it is imported
when the first search starts.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from workloadbuilder.errors import MissingDependencyError
from workloadbuilder.placement.cluster.records import DevicePool
from workloadbuilder.placement.cluster.topology import Domain
from workloadbuilder.placement.framework.claims import devices_free, pools_within
from workloadbuilder.placement.framework.snapshot import Shape, Snapshot
from workloadbuilder.placement.request.model import ClaimRef, GroupRequest
from workloadbuilder.placement.strategies.classes import NodeClass, node_classes
from workloadbuilder.placement.strategies.kube_scheduler import KubeScheduler

__all__ = ["INSTALL_HINT", "Solution", "solve"]

INSTALL_HINT = "pip install 'workloadbuilder[solver]'"
"""What to install for the complete strategy's exact search (OR-tools)."""


@dataclass
class Solution:
    """What the exact search found for one root.

    ``status`` is ``"found"``, ``"infeasible"`` (proved) or ``"timeout"``
    (the bound was hit first: nothing proved). When found: ``selected``
    names the groups that make up every gang's minimum, ``values`` each
    selected group's label value at its own topology key, ``pods`` each
    selected PodGroup's minimum as pods per node (one map per pod set), ``devices`` each new
    claim's ``(pool, count)`` pairs, in the cluster's pool order.
    """

    status: str
    selected: set[str] = field(default_factory=set)
    values: dict[str, str] = field(default_factory=dict)
    pods: dict[str, list[dict[int, int]]] = field(default_factory=dict)
    devices: dict[tuple[str, ...], tuple[tuple[str, int], ...]] = field(default_factory=dict)


def solve(snap: Snapshot, kube: KubeScheduler, root: GroupRequest, scope: Domain, deadline: float) -> Solution:
    """Place the minimum of every gang in ``root`` inside ``scope`` on what is free now, or prove it impossible.

    ``scope`` is one of the root's candidate domains (the whole cluster for
    a root without a topology key). ``deadline`` is a ``time.monotonic()``
    instant; the search stops there and reports ``"timeout"``. Nothing is
    assumed in the snapshot.

    Raises:
        MissingDependencyError: OR-tools is not installed.
    """
    try:
        from ortools.sat.python import cp_model
    except ImportError:
        raise MissingDependencyError(f"the complete strategy's exact search needs OR-tools: {INSTALL_HINT}") from None
    left = deadline - time.monotonic()
    if left <= 0:
        return Solution("timeout")
    model = _Model(cp_model, snap, kube, root, scope)
    if not model.build():
        return Solution("infeasible")
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = left
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = 0
    status = solver.Solve(model.model)
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return model.decode(solver)
    if status == cp_model.INFEASIBLE:
        return Solution("infeasible")
    if status == cp_model.UNKNOWN:
        return Solution("timeout")
    raise AssertionError(f"CP-SAT rejected the placement model: {solver.StatusName(status)}")


class _Model:
    """The CP-SAT model of one root, and how to read a solution back."""

    def __init__(self, cp_model: Any, snap: Snapshot, kube: KubeScheduler, root: GroupRequest, scope: Domain) -> None:
        self.scope = scope
        self.model = cp_model.CpModel()
        self.snap = snap
        self.cluster = snap.cluster
        self.kube = kube
        self.root = root
        self.groups = list(root.walk())
        self.leaves = [group for group in self.groups if group.is_leaf]
        self.parents = {group.name: group.parent for group in self.groups}
        self.by_name = {group.name: group for group in self.groups}
        self.sets: dict[str, list[tuple[Shape, int]]] = {leaf.name: kube.shapes(leaf) for leaf in self.leaves}
        self.selected: dict[str, Any] = {}
        self.domain_vars: dict[str, dict[str, Any]] = {}
        self.pods: dict[str, list[dict[int, Any]]] = {}
        self.copies: dict[int, dict[int, list[Any]]] = {}
        self.pool_vars: dict[tuple[str, ...], dict[str, Any]] = {}
        self.classes: list[NodeClass] = []
        self.reach: dict[tuple[str, ...], list[int]] | None = None

    # -- building --------------------------------------------------------------

    def build(self) -> bool:
        """Add every variable and constraint; ``False`` when the model is trivially infeasible."""
        claims = self._claims()
        classes = {ref.device.device_class for ref in claims.values()}
        pools = pools_within(self.cluster, classes, self.scope.nodes) if classes else []
        keys = sorted({group.topology_key for group in self.groups if group.topology_key is not None})
        demand = self._demand()
        pods = sum(leaf.needed for leaf in self.leaves)
        shapes = [shape for sets in self.sets.values() for shape, _ in sets]
        self.classes = node_classes(self.snap, self.scope.nodes, shapes, keys, pools, demand, pods)
        for group in self.groups:
            self.selected[group.name] = self.model.NewBoolVar(f"sel:{group.name}")
        self.model.Add(self.selected[self.root.name] == 1)
        for group in self.groups:
            if not self._group(group):
                return False
        for group in self.groups:
            if not group.is_leaf:
                self._interchangeable(group)
        self._capacity()
        for ref in claims.values():
            self._claim(ref, pools)
        for pool in pools:
            takes = [amounts[pool.name] for amounts in self.pool_vars.values() if pool.name in amounts]
            if len(takes) > 1:
                self.model.Add(sum(takes) <= devices_free(self.snap, pool))
        return True

    def _claims(self) -> dict[tuple[str, ...], ClaimRef]:
        out: dict[tuple[str, ...], ClaimRef] = {}
        for leaf in self.leaves:
            for ref in leaf.claims:
                out.setdefault(ref.identity, ref)
        return out

    def _demand(self) -> dict[int, int]:
        """The most of each resource the root's minimum can ask for, so larger free amounts never bind."""
        total: dict[int, int] = {}
        for leaf in self.leaves:
            for shape, count in self.sets[leaf.name]:
                for r, q in shape.terms:
                    total[r] = total.get(r, 0) + min(count, leaf.needed) * q
        return total

    def _keyed_chain(self, group: GroupRequest) -> list[GroupRequest]:
        """``group`` and its ancestors that have a topology key."""
        chain = []
        current: GroupRequest | None = group
        while current is not None:
            if current.topology_key is not None:
                chain.append(current)
            parent = self.parents[current.name]
            current = self.by_name[parent] if parent is not None else None
        return chain

    def _group(self, group: GroupRequest) -> bool:
        model, chosen = self.model, self.selected[group.name]
        if group.parent is not None:
            model.AddImplication(chosen, self.selected[group.parent])
        need = group.needed
        if group.topology_key is not None:
            key = group.topology_key
            values = sorted({value for node_class in self.classes if (value := node_class.value(key)) is not None})
            own = {value: model.NewBoolVar(f"dom:{group.name}={value}") for value in values}
            self.domain_vars[group.name] = own
            model.Add(sum(own.values()) == chosen)
            for above in self._keyed_chain(group)[1:]:
                if above.topology_key == group.topology_key:
                    for value, var in own.items():
                        model.AddImplication(var, self.domain_vars[above.name][value])
        if not group.is_leaf:
            if need > len(group.children):
                model.Add(chosen == 0)
            children = [self.selected[child.name] for child in group.children]
            model.Add(sum(children) >= need * chosen)
            return group is not self.root or need <= len(group.children)
        return self._leaf(group, need)

    def _interchangeable(self, group: GroupRequest) -> None:
        """Identical siblings are interchangeable: the earlier is selected first, in a domain no later in order."""
        model = self.model
        last: dict[object, GroupRequest] = {}
        for child in group.children:
            signature = self.kube.signature(child)
            before = last.get(signature)
            last[signature] = child
            if before is None:
                continue
            model.AddImplication(self.selected[child.name], self.selected[before.name])
            if child.topology_key is None:
                continue
            earlier, later = self._domain_index(before), self._domain_index(child)
            model.Add(earlier <= later).OnlyEnforceIf(self.selected[child.name])

    def _domain_index(self, group: GroupRequest) -> Any:
        """The position of the group's chosen value among its key's values (0 when it is not selected)."""
        return sum(k * var for k, var in enumerate(self.domain_vars[group.name].values()))

    def _leaf(self, leaf: GroupRequest, need: int) -> bool:
        """``minCount`` pods of the PodGroup, from any of its pod sets, on classes its domains and claims allow."""
        model, chosen = self.model, self.selected[leaf.name]
        chain = self._keyed_chain(leaf)
        fixed = [self.snap.allocations[ref.identity] for ref in leaf.claims if ref.identity in self.snap.allocations]
        fixed_pools = [self.cluster.pool(name) for allocation in fixed for name, _ in allocation.devices]
        usable = [
            c
            for c, node_class in enumerate(self.classes)
            if all(node_class.value(group.topology_key) is not None for group in chain)  # type: ignore[arg-type]
            and all(node_class.reaches(pool) for pool in fixed_pools)
        ]
        per_set: list[dict[int, Any]] = []
        for k, (shape, count) in enumerate(self.sets[leaf.name]):
            pods: dict[int, Any] = {}
            for c in usable:
                fits = self.classes[c].fits[shape.uid]
                if fits > 0:
                    top = min(need, count, fits * self.classes[c].size)
                    pods[c] = model.NewIntVar(0, top, f"x:{leaf.name}:{k}:{c}")
            if len(pods) > 1 and count < need:
                model.Add(sum(pods.values()) <= count)
            per_set.append(pods)
        self.pods[leaf.name] = per_set
        every = [var for pods in per_set for var in pods.values()]
        if leaf.count < need or not every:
            model.Add(chosen == 0)
            return leaf is not self.root
        model.Add(sum(every) == need * chosen)
        for group in chain:
            key = group.topology_key
            per_value: dict[str, list[Any]] = {}
            for pods in per_set:
                for c, var in pods.items():
                    per_value.setdefault(self.classes[c].value(key) or "", []).append(var)  # type: ignore[arg-type]
            for value, terms in per_value.items():
                model.Add(sum(terms) <= need * self.domain_vars[group.name][value])
        return True

    def _capacity(self) -> None:
        """Pods of every PodGroup on a class fit its nodes: counted per shape, packed per node where shapes mix."""
        model = self.model
        for c, node_class in enumerate(self.classes):
            by_shape: dict[int, list[Any]] = {}
            wanted: dict[int, int] = {}
            for leaf in self.leaves:
                for (shape, count), pods in zip(self.sets[leaf.name], self.pods[leaf.name], strict=True):
                    var = pods.get(c)
                    if var is not None:
                        by_shape.setdefault(shape.uid, []).append(var)
                        wanted[shape.uid] = wanted.get(shape.uid, 0) + min(count, leaf.needed)
            if not by_shape:
                continue
            if len(by_shape) == 1:
                ((uid, terms),) = by_shape.items()
                model.Add(sum(terms) <= node_class.fits[uid] * node_class.size)
                continue
            shapes = {shape.uid: shape for sets in self.sets.values() for shape, _ in sets}
            nodes = min(node_class.size, sum(wanted.values()))
            copies = {
                uid: [
                    model.NewIntVar(0, min(node_class.fits[uid], wanted[uid]), f"y:{c}:{uid}:{j}") for j in range(nodes)
                ]
                for uid in by_shape
            }
            self.copies[c] = copies
            for uid, terms in by_shape.items():
                model.Add(sum(terms) == sum(copies[uid]))
            resources = sorted({r for uid in by_shape for r, _ in shapes[uid].terms})
            for j in range(nodes):
                for r in resources:
                    load = [copies[uid][j] * q for uid in by_shape for rr, q in shapes[uid].terms if rr == r]
                    model.Add(sum(load) <= node_class.free[r])
            first = copies[min(by_shape)]
            for j in range(nodes - 1):
                model.Add(first[j] >= first[j + 1])

    def _claim(self, ref: ClaimRef, pools: list[DevicePool]) -> None:
        """A new claim takes its devices from pools every pod of every group sharing it can reach."""
        if ref.identity in self.snap.allocations:
            return
        model = self.model
        users = [leaf for leaf in self.leaves if any(own.identity == ref.identity for own in leaf.claims)]
        active = model.NewBoolVar(f"claim:{ref.name}")
        for leaf in users:
            model.AddImplication(self.selected[leaf.name], active)
        model.Add(active <= sum(self.selected[leaf.name] for leaf in users))
        count = ref.device.count
        amounts: dict[str, Any] = {}
        for pool in pools:
            free = devices_free(self.snap, pool)
            everywhere = pool.node is None and pool.domain is None
            reaching = [] if everywhere else self._reach_index().get(_reach_key(pool))
            # a pool that reaches no usable node here could only serve a group with no pods
            if pool.device_class != ref.device.device_class or free <= 0 or reaching is None:
                continue
            amount = amounts[pool.name] = model.NewIntVar(0, min(count, free), f"a:{ref.name}:{pool.name}")
            used = model.NewBoolVar(f"u:{ref.name}:{pool.name}")
            model.Add(amount <= count * used)
            if everywhere:
                continue
            for leaf in users:
                per_set = self.pods[leaf.name]
                reached = [pods[c] for pods in per_set for c in reaching if c in pods]
                every = [var for pods in per_set for var in pods.values()]
                model.Add(sum(reached) == sum(every)).OnlyEnforceIf(used)
        model.Add(sum(amounts.values()) == count * active)
        self.pool_vars[ref.identity] = amounts

    def _reach_index(self) -> dict[tuple[str, ...], list[int]]:
        """The classes each node or domain pool reaches, by ``_reach_key``, built once."""
        if self.reach is None:
            self.reach = {}
            for c, node_class in enumerate(self.classes):
                for key, value in node_class.labels.items():
                    self.reach.setdefault(("domain", key, value), []).append(c)
                if node_class.pool_node is not None:
                    self.reach.setdefault(("node", node_class.pool_node), []).append(c)
        return self.reach

    # -- reading the solution ------------------------------------------------------

    def decode(self, solver: Any) -> Solution:
        """The solution as groups, label values, pods per node and devices per claim."""
        out = Solution("found")
        for group in self.groups:
            if not solver.Value(self.selected[group.name]):
                continue
            out.selected.add(group.name)
            for value, var in self.domain_vars.get(group.name, {}).items():
                if solver.Value(var):
                    out.values[group.name] = value
        taken: dict[tuple[int, int], list[int]] = {}
        for leaf in self.leaves:
            if leaf.name not in out.selected:
                continue
            placed = []
            for (shape, _), pods in zip(self.sets[leaf.name], self.pods[leaf.name], strict=True):
                per_node: dict[int, int] = {}
                for c, var in pods.items():
                    amount = solver.Value(var)
                    if amount:
                        self._spread(solver, c, shape.uid, amount, per_node, taken)
                placed.append(per_node)
            out.pods[leaf.name] = placed
        order = {pool.name: n for n, pool in enumerate(self.cluster.pools)}
        for identity, amounts in self.pool_vars.items():
            devices = [(name, solver.Value(var)) for name, var in amounts.items() if solver.Value(var)]
            if devices:
                out.devices[identity] = tuple(sorted(devices, key=lambda pair: order[pair[0]]))
        return out

    def _spread(
        self,
        solver: Any,
        c: int,
        uid: int,
        amount: int,
        per_node: dict[int, int],
        taken: dict[tuple[int, int], list[int]],
    ) -> None:
        """Put ``amount`` pods of shape ``uid`` on the nodes of class ``c``, after what earlier groups took."""
        node_class = self.classes[c]
        room = taken.get((c, uid))
        if room is None:
            copies = self.copies.get(c)
            if copies is not None:
                room = [solver.Value(var) for var in copies[uid]] + [0] * (node_class.size - len(copies[uid]))
            else:
                room = [node_class.fits[uid]] * node_class.size
            taken[(c, uid)] = room
        for j, i in enumerate(node_class.nodes):
            if not amount:
                break
            put = min(room[j], amount)
            if put:
                room[j] -= put
                amount -= put
                per_node[i] = per_node.get(i, 0) + put
        assert amount == 0, "the solution places more pods on a class than its nodes hold"


def _reach_key(pool: DevicePool) -> tuple[str, ...]:
    """Who reaches a node or domain pool, as ``_Model._reach_index`` files classes."""
    if pool.node is not None:
        return ("node", pool.node)
    assert pool.domain is not None
    return ("domain", *pool.domain)
