"""An exact reference for placement: CP-SAT on the raw model, one variable per PodGroup and node.

It shares nothing with the engine but the request and the cluster's raw
arrays: no node classes, no capping, no greedy first. ``residual`` replays
the earlier roots of an answer (pods, devices, shared claims) onto the
cluster's free capacity, so each root can be checked in the state its own
scheduling cycle saw.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ortools.sat.python import cp_model

from workloadbuilder.placement import Cluster, DevicePool, Placement
from workloadbuilder.placement.request.model import GroupRequest, PodSet

POD = 1000


@dataclass
class State:
    """Free capacity per node and resource, free devices per pool, and claims allocated so far."""

    free: list[list[int]]
    pools: dict[str, int]
    allocated: dict[tuple[str, ...], list[str]] = field(default_factory=dict)


def initial(cl: Cluster) -> State:
    """The cluster as it stands: signed free capacity."""
    free = [[cl.allocatable[r][i] - cl.used[r][i] for r in range(len(cl.resources))] for i in range(len(cl))]
    return State(free, {pool.name: pool.count - pool.allocated for pool in cl.pools})


def without_lower(cl: Cluster, state: State, priority: int) -> State:
    """``state`` with every running pod of lower priority than ``priority`` gone (its room given back)."""
    free = [list(row) for row in state.free]
    for pod in cl.running_pods:
        if pod.priority < priority:
            for r, q in enumerate(pod.requests):
                free[pod.node][r] += q
    return State(free, dict(state.pools), dict(state.allocated))


def replay(cl: Cluster, state: State, root: GroupRequest, answer: Placement) -> None:
    """Take what ``answer`` placed for ``root`` (every pod, every new claim) out of ``state``."""
    nodes = {name: i for i, name in enumerate(cl.names)}
    for group in root.walk():
        placed = answer.group(group.name)
        for pod in placed.pods:
            row = state.free[nodes[pod.node]]
            for r, q in enumerate(_vector(cl, _sets(group)[_set_index(group, pod.name)])):
                row[r] -= q
        refs = {ref.name: ref for ref in group.claims}
        for claim in placed.claims:
            identity = refs[claim.name].identity
            if identity in state.allocated:
                continue
            state.allocated[identity] = [pool for pool, _ in claim.devices]
            for pool, n in claim.devices:
                state.pools[pool] -= n


def _need(group: GroupRequest) -> int:
    return group.minimum if group.gang else 1


def _sets(group: GroupRequest) -> tuple[PodSet, ...]:
    return group.pod_sets or (PodSet(group.count, group.requests),)


def _set_index(group: GroupRequest, pod: str) -> int:
    k = group.pod_names.index(pod)
    for s, pod_set in enumerate(_sets(group)):
        if k < pod_set.count:
            return s
        k -= pod_set.count
    raise IndexError(pod)


def _vector(cl: Cluster, pod_set: PodSet) -> list[int]:
    requests = {**pod_set.requests, "pods": pod_set.requests.get("pods", 0) + POD}
    return [requests.get(resource, 0) for resource in cl.resources]


def _reaches(cl: Cluster, pool: DevicePool, i: int) -> bool:
    if pool.node is not None:
        return cl.names[i] == pool.node
    if pool.domain is not None:
        return cl.labels[i].get(pool.domain[0]) == pool.domain[1]
    return True


def exists(cl: Cluster, state: State, root: GroupRequest) -> bool:
    """Whether every gang in ``root`` can get its minimum in ``state`` (solved to a proof)."""
    model = cp_model.CpModel()
    groups = list(root.walk())
    by_name = {group.name: group for group in groups}
    chosen = {group.name: model.NewBoolVar(group.name) for group in groups}
    model.Add(chosen[root.name] == 1)
    domain: dict[str, dict[str, cp_model.IntVar]] = {}
    for group in groups:
        if group.parent in chosen:
            model.AddImplication(chosen[group.name], chosen[group.parent])
        if group.topology_key is not None:
            values = sorted({labels[group.topology_key] for labels in cl.labels if group.topology_key in labels})
            domain[group.name] = {value: model.NewBoolVar(f"{group.name}={value}") for value in values}
            model.Add(sum(domain[group.name].values()) == chosen[group.name])
        if not group.is_leaf:
            model.Add(sum(chosen[child.name] for child in group.children) >= _need(group) * chosen[group.name])
    pods: dict[str, list[cp_model.IntVar]] = {}
    loads: dict[int, dict[int, list[tuple[cp_model.IntVar, int]]]] = {}
    for leaf in (group for group in groups if group.is_leaf):
        need = _need(leaf)
        if leaf.count < need:
            model.Add(chosen[leaf.name] == 0)
        keyed = []
        current: GroupRequest | None = leaf
        while current is not None:
            if current.topology_key is not None:
                keyed.append(current)
            current = by_name.get(current.parent) if current.parent else None
        row = []
        every = []
        for s, pod_set in enumerate(_sets(leaf)):
            vector = _vector(cl, pod_set)
            missing = any(q > 0 and r not in cl.resource_index for r, q in pod_set.requests.items())
            in_set = []
            for i in range(len(cl)):
                x = model.NewIntVar(0, need, f"{leaf.name}/{s}@{i}")
                in_set.append(x)
                if missing or cl.rejection(pod_set.constraints, i) is not None:
                    model.Add(x == 0)
                for group in keyed:
                    value = cl.labels[i].get(group.topology_key)  # type: ignore[arg-type]
                    if value is None:
                        model.Add(x == 0)
                    else:
                        model.Add(x <= need * domain[group.name][value])
                for r, q in enumerate(vector):
                    if q > 0:
                        loads.setdefault(i, {}).setdefault(r, []).append((x, q))
            model.Add(sum(in_set) <= pod_set.count)
            every += in_set
            row = in_set if not row else [a + b for a, b in zip(row, in_set, strict=True)]
        model.Add(sum(every) == need * chosen[leaf.name])
        pods[leaf.name] = row
    for i, per_resource in loads.items():
        for r, terms in per_resource.items():
            model.Add(sum(x * q for x, q in terms) <= max(state.free[i][r], 0))
    _claims(model, cl, state, groups, chosen, pods)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = 60
    status = solver.Solve(model)
    assert status in (cp_model.OPTIMAL, cp_model.FEASIBLE, cp_model.INFEASIBLE), solver.StatusName(status)
    return status != cp_model.INFEASIBLE


def _claims(
    model: cp_model.CpModel,
    cl: Cluster,
    state: State,
    groups: list[GroupRequest],
    chosen: dict[str, cp_model.IntVar],
    pods: dict[str, list[cp_model.IntVar]],
) -> None:
    users: dict[tuple[str, ...], list[GroupRequest]] = {}
    refs = {}
    for group in groups:
        for ref in group.claims:
            users.setdefault(ref.identity, []).append(group)
            refs[ref.identity] = ref
    takes: dict[str, list[cp_model.IntVar]] = {}
    for identity, members in users.items():
        if identity in state.allocated:
            for pool_name in state.allocated[identity]:
                pool = cl.pool(pool_name)
                for group in members:
                    for i, x in enumerate(pods[group.name]):
                        if not _reaches(cl, pool, i):
                            model.Add(x == 0)
            continue
        ref = refs[identity]
        active = model.NewBoolVar(f"active{identity}")
        for group in members:
            model.AddImplication(chosen[group.name], active)
        model.Add(active <= sum(chosen[group.name] for group in members))
        amounts = []
        for pool in cl.pools:
            if pool.device_class != ref.device.device_class:
                continue
            amount = model.NewIntVar(0, max(state.pools[pool.name], 0), f"{identity}:{pool.name}")
            used = model.NewBoolVar(f"{identity}:{pool.name}:used")
            model.Add(amount <= ref.device.count * used)
            for group in members:
                for i, x in enumerate(pods[group.name]):
                    if not _reaches(cl, pool, i):
                        model.Add(x <= _need(group) * (1 - used))
            amounts.append(amount)
            takes.setdefault(pool.name, []).append(amount)
        model.Add(sum(amounts) == ref.device.count * active)
    for pool_name, amounts in takes.items():
        model.Add(sum(amounts) <= max(state.pools[pool_name], 0))
