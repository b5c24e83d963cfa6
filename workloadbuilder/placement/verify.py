"""An independent check of a placement: capacity, topology, quorum, claims and victims.

``verify`` shares nothing with the strategies but the request and the
cluster's raw arrays: it recomputes every node's usage from scratch, walks
the group tree itself and re-counts devices, so a bug in the engine's
bookkeeping cannot hide a bad answer. Every test of the engine runs it.
Problems come back as field errors at paths into ``Placement.to_dict()``
(``groups[2].pods[0].node``).
"""

from __future__ import annotations

from workloadbuilder._internal.arguments import check_type
from workloadbuilder.field import ErrorList, FieldPath, invalid, not_found, required
from workloadbuilder.placement.answer import Placement
from workloadbuilder.placement.cluster.model import HOST_PORT_PREFIX, Cluster
from workloadbuilder.placement.cluster.records import RunningPod
from workloadbuilder.placement.filters import nodeports, podtopologyspread
from workloadbuilder.placement.framework.snapshot import slots_of
from workloadbuilder.placement.framework.spread import domain_counts
from workloadbuilder.placement.k8s.constraints import HostPort, PodConstraints
from workloadbuilder.placement.request.model import GroupRequest, PlacementRequest, PodSet

__all__ = ["verify"]


def verify(request: PlacementRequest, cluster: Cluster, placement: Placement) -> ErrorList:
    """Every way ``placement`` breaks the rules for ``request`` on ``cluster`` (empty when it is sound).

    Raises:
        TypeError: an argument of the wrong type (named).
    """
    check_type("verify", "request", request, PlacementRequest)
    check_type("verify", "cluster", cluster, Cluster)
    check_type("verify", "placement", placement, Placement)
    return _Checker(request, cluster, placement).run()


class _Checker:
    def __init__(self, request: PlacementRequest, cluster: Cluster, placement: Placement) -> None:
        self.request = request
        self.cluster = cluster
        self.placement = placement
        self.errors = ErrorList()
        self.index = {group.name: i for i, group in enumerate(placement.groups)}
        self.nodes = {name: i for i, name in enumerate(cluster.names)}
        self.ports: dict[int, list[HostPort]] = {}
        self.slots: dict[int, set[str]] = {}

    def path(self, group: str) -> FieldPath:
        return FieldPath("groups").index(self.index[group])

    def run(self) -> ErrorList:
        requested = [group.name for group in self.request.groups]
        if requested != [group.name for group in self.placement.groups]:
            self.errors.append(
                invalid(
                    FieldPath("groups"),
                    [g.name for g in self.placement.groups],
                    f"must list every requested group in order: {requested}",
                )
            )
            return self.errors
        self._pods()
        self._spread()
        self._capacity()
        self._topology()
        satisfied = [self._quorum(root) for root in self.request.roots]
        if self.placement.feasible != all(satisfied):
            self.errors.append(
                invalid(
                    FieldPath("feasible"),
                    self.placement.feasible,
                    f"roots satisfied: {dict(zip([r.name for r in self.request.roots], satisfied, strict=True))}",
                )
            )
        self._claims()
        return self.errors

    def _pods(self) -> None:
        for group in self.request.groups:
            placed = self.placement.groups[self.index[group.name]]
            allowed = set(group.pod_names)
            seen: set[str] = set()
            for j, pod in enumerate(placed.pods):
                path = self.path(group.name).child("pods").index(j)
                if pod.name not in allowed or pod.name in seen:
                    self.errors.append(
                        invalid(path.child("name"), pod.name, "not a pod of this group, or placed twice")
                    )
                seen.add(pod.name)
                i = self.nodes.get(pod.node)
                if i is None:
                    self.errors.append(not_found(path.child("node"), pod.node))
                elif pod.name in allowed:
                    constraints = _pod_set(group, pod.name).constraints
                    rejection = self.cluster.rejection(constraints, i)
                    reason = self.cluster.pod_affinity_reason(constraints, i)
                    if rejection is not None:
                        self.errors.append(invalid(path.child("node"), pod.node, "; ".join(rejection.reasons)))
                    elif reason is not None:
                        self.errors.append(invalid(path.child("node"), pod.node, reason))
                    self._ports(i, constraints.host_ports, path.child("node"))
                    self._slots(i, constraints, path.child("node"))
            if not group.is_leaf and placed.pods:
                self.errors.append(
                    invalid(self.path(group.name).child("pods"), len(placed.pods), "a CompositePodGroup owns no pods")
                )

    def _ports(self, i: int, ports: tuple[HostPort, ...], path: FieldPath) -> None:
        """Host ports of pods placed on node ``i`` must not conflict with each other or with running pods."""
        if not ports:
            return
        held = self.ports.setdefault(
            i, [port for pod in self.cluster.running_pods if pod.node == i for port in pod.host_ports]
        )
        reason = nodeports.check(ports, held)
        if reason is not None:
            self.errors.append(invalid(path, self.cluster.names[i], reason))
        held.extend(ports)

    def _spread(self) -> None:
        """Where placed pods with spread constraints landed, no domain is more than ``maxSkew`` above the emptiest.

        Each pod passed the constraint when it was placed and minimums only
        grow, so the final counts of the domains the pods landed in obey it too.
        """
        placed: list[tuple[int, PodConstraints, FieldPath]] = []
        for group in self.request.groups:
            for j, where in enumerate(self.placement.groups[self.index[group.name]].pods):
                i = self.nodes.get(where.node)
                if i is not None and where.name in group.pod_names:
                    path = self.path(group.name).child("pods").index(j).child("node")
                    placed.append((i, _pod_set(group, where.name).constraints, path))
        for i, pod, path in placed:
            for constraint in pod.spread:
                counts = domain_counts(self.cluster, pod, constraint)
                for j, other, _ in placed:
                    value = self.cluster.labels[j].get(constraint.topology_key)
                    if (
                        value in counts
                        and other.namespace == pod.namespace
                        and constraint.selector.matches(other.label_map)
                    ):
                        counts[value] += 1
                value = self.cluster.labels[i].get(constraint.topology_key)
                lowest = min(counts.values(), default=0) if len(counts) >= constraint.min_domains else 0
                if value is None or counts.get(value, 0) - lowest > constraint.max_skew:
                    self.errors.append(invalid(path, self.cluster.names[i], podtopologyspread.REASON))

    def _slots(self, i: int, constraints: PodConstraints, path: FieldPath) -> None:
        """Pods holding one per-node anti-affinity slot must not share a node."""
        for slot in slots_of(constraints):
            if slot.startswith(HOST_PORT_PREFIX):
                continue
            held = self.slots.setdefault(i, set())
            if slot in held:
                self.errors.append(invalid(path, self.cluster.names[i], "node(s) didn't match pod anti-affinity rules"))
            held.add(slot)

    def _capacity(self) -> None:
        """Every node that receives pods has room, per resource they request, after the victims leave.

        Free capacity is signed: a node already over its allocatable stays in
        debt, and evicting a victim frees only what the victim held.
        """
        cluster = self.cluster
        width = len(cluster.resources)
        placed: dict[int, list[int]] = {}
        evicted: dict[int, list[int]] = {}
        for victim in self._victim_pods():
            row = evicted.setdefault(victim.node, [0] * width)
            for r, amount in enumerate(victim.requests):
                row[r] += amount
        for group in self.request.groups:
            if not group.is_leaf:
                continue
            for j, pod in enumerate(self.placement.groups[self.index[group.name]].pods):
                i = self.nodes.get(pod.node)
                if i is None:
                    continue
                row = placed.setdefault(i, [0] * width)
                requests = _pod_set(group, pod.name).requests if pod.name in group.pod_names else group.requests
                for resource, amount in {**requests, "pods": requests.get("pods", 0) + 1000}.items():
                    index = cluster.resource_index.get(resource)
                    if index is not None:
                        row[index] += amount
                    elif amount > 0:
                        self.errors.append(
                            invalid(
                                self.path(group.name).child("pods").index(j).child("node"),
                                pod.node,
                                f"no node has {resource}",
                            )
                        )
        for i, row in sorted(placed.items()):
            freed = evicted.get(i, [0] * width)
            for r, extra in enumerate(row):
                total = cluster.used[r][i] - freed[r] + extra
                if extra > 0 and total > cluster.allocatable[r][i]:
                    self.errors.append(
                        invalid(
                            FieldPath("nodes").key(cluster.names[i]).key(cluster.resources[r]),
                            total,
                            f"over allocatable {cluster.allocatable[r][i]}",
                        )
                    )

    def _victim_pods(self) -> list[RunningPod]:
        """The running pods the victims evict, each once; every victim checked against the cluster."""
        cluster = self.cluster
        running = {pod.name: pod for pod in cluster.running_pods}
        placed_roots = [root.priority for root in self.request.roots if self._has_pods(root)]
        top = max(placed_roots, default=None)
        out: dict[str, RunningPod] = {}
        for v, victim in enumerate(self.placement.victims):
            path = FieldPath("victims").index(v)
            members = self._unit_members(victim.name, victim.kind)
            if members is None:
                self.errors.append(not_found(path.child("name"), victim.name))
            else:
                unit_priority = self._unit_priority(victim.name, victim.kind, members)
                if victim.priority != unit_priority:
                    self.errors.append(
                        invalid(path.child("priority"), victim.priority, f"the unit's priority is {unit_priority}")
                    )
                listed = sorted(pod.name for pod in victim.pods)
                if listed != sorted(pod.name for pod in members):
                    self.errors.append(invalid(path.child("pods"), listed, "must list every pod of the unit"))
            if top is None or victim.priority >= top:
                self.errors.append(
                    invalid(path.child("priority"), victim.priority, f"must be below the preemptor's priority {top}")
                )
            for k, pod in enumerate(victim.pods):
                found = running.get(pod.name)
                if found is None or cluster.names[found.node] != pod.node:
                    self.errors.append(not_found(path.child("pods").index(k), pod.name))
                    continue
                out[found.name] = found
        return list(out.values())

    def _has_pods(self, root: GroupRequest) -> bool:
        return any(self.placement.groups[self.index[member.name]].pods for member in root.walk())

    def _unit_members(self, name: str, kind: str) -> list[RunningPod] | None:
        """The running pods a unit of that name and kind holds: one pod, or everything under a group."""
        cluster = self.cluster
        if kind == "Pod":
            return [pod for pod in cluster.running_pods if pod.name == name] or None
        group = cluster.running_groups.get(name)
        if group is None or group.kind != kind:
            return None
        members = []
        for pod in cluster.running_pods:
            chain, seen = pod.group, set()
            while chain is not None and chain not in seen and chain != name:
                seen.add(chain)
                above = cluster.running_groups.get(chain)
                chain = above.parent if above is not None else None
            if chain == name:
                members.append(pod)
        return members

    def _unit_priority(self, name: str, kind: str, members: list[RunningPod]) -> int:
        """A group unit's priority is its group's; a lone pod's is its group's, else its own."""
        groups = self.cluster.running_groups
        if kind != "Pod":
            return groups[name].priority
        pod = members[0]
        group = groups.get(pod.group) if pod.group else None
        return group.priority if group is not None else pod.priority

    def _subtree_pods(self, group: GroupRequest) -> list[tuple[str, int, str]]:
        out = []
        for member in group.walk():
            for j, pod in enumerate(self.placement.groups[self.index[member.name]].pods):
                out.append((member.name, j, pod.node))
        return out

    def _topology(self) -> None:
        """Each group's own key holds for every pod below it; inherited domains match the parent's."""
        keys: dict[str, tuple[str, ...]] = {}
        for group in self.request.groups:
            inherited = keys.get(group.parent or "", ())
            keys[group.name] = (*inherited, group.topology_key) if group.topology_key else inherited
            placed = self.placement.groups[self.index[group.name]]
            pods = self._subtree_pods(group)
            if not pods:
                continue
            path = self.path(group.name).child("domains")
            for label in placed.domains:
                if label not in keys[group.name]:
                    self.errors.append(
                        invalid(
                            path.key(label), placed.domains[label], "not a topology key of this group or its parents"
                        )
                    )
            parent = self.placement.groups[self.index[group.parent]] if group.parent else None
            if parent is not None:
                for label, value in parent.domains.items():
                    if placed.domains.get(label) != value:
                        self.errors.append(
                            invalid(path.key(label), placed.domains.get(label), f"must be its parent's {value!r}")
                        )
            key = group.topology_key
            if key is None:
                continue
            if key not in placed.domains:
                self.errors.append(required(path.key(key)))
                continue
            value = placed.domains[key]
            for member, j, node in pods:
                i = self.nodes.get(node)
                if i is not None and self.cluster.labels[i].get(key) != value:
                    self.errors.append(
                        invalid(
                            self.path(member).child("pods").index(j).child("node"),
                            node,
                            f"outside {key}={value} of `{group.name}`",
                        )
                    )

    def _quorum(self, group: GroupRequest) -> bool:
        """Whether ``group``'s gang is satisfied; a partial gang is an error."""
        placed = self.placement.groups[self.index[group.name]]
        need = group.minimum if group.gang else 1
        if group.is_leaf:
            count = len(placed.pods)
            if 0 < count < need:
                self.errors.append(
                    invalid(self.path(group.name).child("pods"), count, f"a gang places at least {need} pods or none")
                )
            return count >= need
        satisfied = sum(self._quorum(child) for child in group.children)
        if not satisfied >= need and self._subtree_pods(group):
            self.errors.append(
                invalid(
                    self.path(group.name),
                    satisfied,
                    f"places pods with {satisfied} of the {need} child groups it needs",
                )
            )
        return satisfied >= need

    def _claims(self) -> None:
        cluster = self.cluster
        pools = {pool.name: pool for pool in cluster.pools}
        allocations: dict[tuple[str, ...], tuple[tuple[str, int], ...]] = {}
        for group in self.request.groups:
            placed = self.placement.groups[self.index[group.name]]
            own = {ref.name for ref in group.claims}
            for k, claim in enumerate(placed.claims):
                if claim.name not in own or not placed.pods:
                    self.errors.append(
                        invalid(
                            self.path(group.name).child("claims").index(k),
                            claim.name,
                            "not a claim of this group, or the group places no pods",
                        )
                    )
            if not placed.pods:
                continue
            by_name = {claim.name: claim for claim in placed.claims}
            for ref in group.claims:
                path = self.path(group.name).child("claims")
                found = by_name.get(ref.name)
                if found is None:
                    self.errors.append(required(path.key(ref.name)))
                    continue
                claim = found
                previous = allocations.setdefault(ref.identity, claim.devices)
                if previous != claim.devices:
                    self.errors.append(invalid(path.key(ref.name), claim.devices, "a shared claim has one allocation"))
                if sum(n for _, n in claim.devices) != ref.device.count:
                    self.errors.append(
                        invalid(path.key(ref.name), claim.devices, f"must hold {ref.device.count} devices")
                    )
                for pool_name, _ in claim.devices:
                    pool = pools.get(pool_name)
                    if pool is None or pool.device_class != ref.device.device_class:
                        self.errors.append(
                            invalid(path.key(ref.name), pool_name, f"not a pool of {ref.device.device_class}")
                        )
                        continue
                    for j, pod in enumerate(placed.pods):
                        i = self.nodes.get(pod.node)
                        if i is not None and not cluster.reaches(pool, i):
                            self.errors.append(
                                invalid(
                                    self.path(group.name).child("pods").index(j).child("node"),
                                    pod.node,
                                    f"cannot reach pool {pool_name}",
                                )
                            )
        taken: dict[str, int] = {}
        for devices in allocations.values():
            for pool_name, n in devices:
                taken[pool_name] = taken.get(pool_name, 0) + n
        for pool_name, n in sorted(taken.items()):
            pool = pools.get(pool_name)
            if pool is not None and pool.allocated + n > pool.count:
                self.errors.append(
                    invalid(
                        FieldPath("devicePools").key(pool_name), pool.allocated + n, f"over its {pool.count} devices"
                    )
                )


def _pod_set(group: GroupRequest, pod: str) -> PodSet:
    """The pod set a pod of ``group`` belongs to (one made of ``group.requests`` for a hand-built group)."""
    if not group.pod_sets:
        return PodSet(group.count, group.requests)
    return group.set_of(group.pod_names.index(pod))
