"""A LeaderWorkerSet's shape and KEP-666's three levels of ``spec.scheduling`` as WorkloadItem trees.

``GroupLayout`` is what LWS makes: ``replicas`` groups of a leader and
``size - 1`` workers, optionally cut into subgroups. ``Levels`` reads
``spec.scheduling`` (the whole LWS, ``replica``, ``replica.leader`` /
``replica.worker``) and builds the trees: phase 1 lowers the one active
level to flat PodGroups, phase 2 builds the CompositePodGroup tree. Every
problem is an error at the LWS's own path; ``adapters.lws.adapter`` adds the
checks across levels and the pod assignments.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from workloadbuilder import ErrorList, FieldPath, WorkloadItem
from workloadbuilder.adapters._shared.blocks import (
    BLOCKS,
    CLAIMS,
    basic_config,
    block_input,
    explicit_count,
    fill_gang,
    gang_config,
    is_gang,
    mapping_at,
    unknown_keys,
)
from workloadbuilder.adapters._shared.reading import GROUPS_BOUND, PODS_BOUND, at, read_int
from workloadbuilder.adapters.kit import (
    MAX_PODS,
    MAX_RUNTIME_GROUPS,
    OMIT_VALUE,
    forbidden,
    invalid,
    is_int,
    read_field,
    unknown_field,
)
from workloadbuilder.resolve import resolve_config

__all__ = ["REPLICA", "SCHEDULING", "SUBGROUP_SIZE", "TEMPLATE", "GroupLayout", "Levels", "read_layout"]

SCHEDULING = FieldPath("spec", "scheduling")
REPLICA = SCHEDULING.child("replica")
TEMPLATE = FieldPath("spec", "leaderWorkerTemplate")
SUBGROUP_SIZE = TEMPLATE.child("subGroupPolicy", "subGroupSize")

LEADER_READY_GANG = "a gang containing the leader and workers is incompatible with startupPolicy LeaderReady"
PHASE_ONE_MIN_GROUP_COUNT = "minGroupCount requires CompositePodGroup support and is not available in phase 1"
COMPOSITE_CLAIMS = "only the leader and worker PodGroups hold resourceClaims when CompositePodGroups are used"


@dataclass(frozen=True)
class GroupLayout:
    """What a LeaderWorkerSet's pods look like, with LWS's defaults.

    Attributes:
        name: the LWS's name (``leaderworkerset.sigs.k8s.io/name`` on every pod).
        replicas: groups (default 1).
        size: pods per group, leader included (default 1).
        leader_template: where the leader pods' template is (the worker
            template when there is no ``leaderTemplate``).
        worker_template: where the worker pods' template is.
        subgroup_size: ``subGroupPolicy.subGroupSize``, if usable.
        leader_excluded: ``subGroupPolicyType: LeaderExcluded``.
        leader_ready: ``startupPolicy: LeaderReady`` (workers start after the leader is Ready).
        leader_priority: the leader pods' ``priorityClassName``.
        worker_priority: the worker pods' ``priorityClassName``.
    """

    name: str
    replicas: int
    size: int
    leader_template: FieldPath
    worker_template: FieldPath
    subgroup_size: int | None = None
    leader_excluded: bool = False
    leader_ready: bool = False
    leader_priority: str = ""
    worker_priority: str = ""

    @property
    def subgroups(self) -> int:
        """How many subgroups one group has (0 without a subgroup policy)."""
        if not self.subgroup_size:
            return 0
        workers = self.size - 1 if self.leader_excluded or self.leader_extra else self.size
        return workers // self.subgroup_size

    @property
    def leader_extra(self) -> bool:
        """LeaderWorker with ``size - 1`` (not ``size``) divisible: the leader is an extra member of subgroup 0."""
        s = self.subgroup_size
        return s is not None and s != 0 and not self.leader_excluded and (self.size - 1) % s == 0 and self.size % s != 0

    def subgroup_of(self, worker: int) -> int | None:
        """The subgroup of the pod with this worker index (LWS's ``getSubGroupIndex``); ``None`` for an excluded
        leader.
        """
        s = self.subgroup_size or 1
        if self.leader_excluded:
            return None if worker == 0 else (worker - 1) // s
        if self.leader_extra:
            return max(worker - 1, 0) // s  # Go's (0-1)/s truncates to 0: the leader joins subgroup 0
        return worker // s


def read_layout(lws: Mapping[str, Any], name: str, errors: ErrorList) -> GroupLayout:
    """The LeaderWorkerSet's shape; a count out of range or of the wrong type is an error (LWS's webhook words)."""
    replicas = read_int(lws, ("spec", "replicas"), errors, maximum=MAX_RUNTIME_GROUPS, why=GROUPS_BOUND)
    if replicas is not None and replicas < 0:
        errors.append(invalid(FieldPath("spec", "replicas"), replicas, "replicas must be equal or greater than 0"))
        replicas = 0
    size = read_int(lws, (*TEMPLATE.elements(), "size"), errors, maximum=MAX_PODS, why=PODS_BOUND)
    if size is not None and size < 1:
        errors.append(invalid(TEMPLATE.child("size"), size, "size must be equal or greater than 1"))
        size = 1
    if replicas is not None and size is not None and replicas * size > MAX_PODS:
        errors.append(invalid(TEMPLATE.child("size"), size, f"replicas × size must be at most {MAX_PODS}{PODS_BOUND}"))
        size = None
    size = 1 if size is None else size
    worker = TEMPLATE.child("workerTemplate")
    leader = TEMPLATE.child("leaderTemplate") if at(lws, (*TEMPLATE.elements(), "leaderTemplate")) else worker
    for template in (worker,) if leader == worker else (leader, worker):
        read_field(lws, (*template.elements(), "spec"), "object", errors)
    excluded = at(lws, (*TEMPLATE.elements(), "subGroupPolicy", "subGroupPolicyType")) == "LeaderExcluded"
    return GroupLayout(
        name=name,
        replicas=1 if replicas is None else replicas,
        size=size,
        leader_template=leader,
        worker_template=worker,
        subgroup_size=_subgroup_size(lws, size, excluded, errors),
        leader_excluded=excluded,
        leader_ready=at(lws, ("spec", "startupPolicy")) == "LeaderReady",
        leader_priority=_priority(lws, leader),
        worker_priority=_priority(lws, worker),
    )


def _priority(lws: Mapping[str, Any], template: FieldPath) -> str:
    value = at(lws, (*template.elements(), "spec", "priorityClassName"))
    return value if isinstance(value, str) else ""


def _subgroup_size(lws: Mapping[str, Any], size: int, excluded: bool, errors: ErrorList) -> int | None:
    """``subGroupSize`` checked as the LWS webhook checks it (at the path's right spelling, ``subGroupPolicy``)."""
    s = read_int(lws, SUBGROUP_SIZE.elements(), errors)
    if s is None:
        return None
    problem = None
    if s < 1:
        problem = "subGroupSize must be equal or greater than 1"
    elif s > size:
        problem = "subGroupSize cannot be larger than size"
    elif size % s != 0 and (size - 1) % s != 0:
        problem = "size or size - 1 must be divisible by subGroupSize"
    elif excluded and (size - 1) % s != 0:
        problem = "size-1 must be divisible by subGroupSize when using LeaderExcluded"
    if problem is not None:
        errors.append(invalid(SUBGROUP_SIZE, s, problem))
        return None
    return s


class Levels:
    """The three levels of ``spec.scheduling`` and the trees they make."""

    def __init__(self, lws: Mapping[str, Any], shape: GroupLayout, errors: ErrorList) -> None:
        self.shape = shape
        self.errors = errors
        self.configured = at(lws, SCHEDULING.elements()) is not None
        self.top = mapping_at(lws, SCHEDULING, errors) or {}
        self.replica = mapping_at(lws, REPLICA, errors)
        replica = self.replica or {}
        self.leader = mapping_at(lws, REPLICA.child("leader"), errors) if self.replica is not None else None
        self.worker = mapping_at(lws, REPLICA.child("worker"), errors) if self.replica is not None else None
        errors.extend(unknown_keys(self.top, SCHEDULING, (*BLOCKS, CLAIMS, "replica")))
        errors.extend(unknown_keys(replica, REPLICA, (*BLOCKS, CLAIMS, "leader", "worker")))
        for role, block in (("leader", self.leader), ("worker", self.worker)):
            errors.extend(unknown_keys(block or {}, REPLICA.child(role), (*BLOCKS, CLAIMS)))
        self.gangs: list[tuple[WorkloadItem, bool]] = []  # (item, whether its gang holds the leader and workers)
        self.claimed: list[tuple[FieldPath, Any, list[FieldPath]]] = []  # (claims path, claims, member templates)

    def active(self) -> list[str]:
        """The active levels, as ``SchedulingModeFor`` finds them: an empty replica object selects the replica level."""
        top = _sets_blocks(self.top)
        replica_fields = self.replica is not None and _sets_blocks(self.replica)
        roles = self.leader is not None or self.worker is not None
        active = ["lws"] if top else []
        if replica_fields or (self.replica is not None and not roles):
            active.append("replica")
        if roles:
            active.append("role")
        return active

    def phase_one(self) -> tuple[list[WorkloadItem], dict[str, int]]:
        """One active level, lowered to flat PodGroups."""
        active = self.active()
        if len(active) > 1:
            detail = f"phase 1 requires exactly one active scheduling level, got [{' '.join(active)}]"
            self.errors.append(invalid(SCHEDULING, OMIT_VALUE, detail))
            return [], {}
        shape = self.shape
        mode = active[0] if active else "replica"
        if not self.configured and shape.leader_ready and shape.size >= 2:
            # Planned without spec.scheduling: under LeaderReady the workers start after the leader is
            # Ready, so the derived default gangs the workers apart from their leader.
            leader = self._leaf("leader", None, basic_config, 1)
            worker = self._leaf("worker", None, gang_config, shape.size - 1)
            return [leader, worker], {"leader": shape.replicas, "worker": shape.replicas}
        if mode == "lws":
            item = self._flat("lws", SCHEDULING, self.top, basic_config, shape.replicas * shape.size)
            self.gangs.append((item, shape.size > 1))
            return [item], ({"lws": 0} if shape.replicas == 0 else {})
        if mode == "replica":
            item = self._flat("replica", REPLICA, self.replica or {}, gang_config, shape.size)
            self.gangs.append((item, shape.size > 1))
            return [item], {"replica": shape.replicas}
        if shape.size < 2:
            self.errors.append(
                invalid(TEMPLATE.child("size"), shape.size, "leader/worker scheduling requires size >= 2")
            )
            return [], {}
        leader = self._leaf("leader", self.leader, basic_config, 1)
        worker = self._leaf("worker", self.worker, basic_config, shape.size - 1)
        return [leader, worker], {"leader": shape.replicas, "worker": shape.replicas}

    def composite(self) -> tuple[list[WorkloadItem], dict[str, int]]:
        """Phase 2: root ``lws`` -> ``replica`` -> ``leader`` and ``worker`` (-> ``subgroup``)."""
        shape = self.shape
        instances = {"replica": shape.replicas}
        children = self._replica_children(instances)
        # Planned without spec.scheduling under LeaderReady, a replica is placed once its leader is.
        together = 1 if not self.configured and shape.leader_ready else len(children)
        replica = self._composite("replica", REPLICA, self.replica or {}, gang_config, together, children)
        self.gangs.append((replica, is_gang(replica) and _resolved_count(replica) >= 2))
        root = self._composite("lws", SCHEDULING, self.top, basic_config, shape.replicas, [replica])
        return [root], instances

    def _replica_children(self, instances: dict[str, int]) -> list[WorkloadItem]:
        shape = self.shape
        if not shape.subgroup_size:
            children = [self._leaf("leader", self.leader, gang_config, 1)]
            if shape.size >= 2:
                children.append(self._leaf("worker", self.worker, gang_config, shape.size - 1))
            elif self.worker is not None:
                self.errors.append(
                    invalid(TEMPLATE.child("size"), shape.size, "leader/worker scheduling requires size >= 2")
                )
            return children
        children = []
        if shape.leader_excluded:
            children.append(self._leaf("leader", self.leader, gang_config, 1))
        elif self.leader is not None:
            self.errors.append(
                forbidden(
                    REPLICA.child("leader"),
                    "cannot be set with subGroupPolicyType LeaderWorker: the leader is a member of subgroup 0",
                )
            )
        subgroup = self._leaf(
            "subgroup", self.worker, gang_config, shape.subgroup_size or 1, path=REPLICA.child("worker")
        )
        holds_leader = not shape.leader_excluded and (shape.leader_extra or (shape.subgroup_size or 1) > 1)
        self.gangs.append((subgroup, is_gang(subgroup) and holds_leader))
        instances["subgroup"] = shape.subgroups
        workers = WorkloadItem(
            name="worker",
            path=REPLICA.child("worker"),
            default_config=gang_config(shape.worker_priority),
            callbacks=[fill_gang(shape.subgroups)],
            children=[subgroup],
        )
        children.append(workers)
        return children

    def _flat(self, name: str, path: FieldPath, block: Mapping[str, Any], default: Any, count: int) -> WorkloadItem:
        """A composite level lowered to one leaf: its ``minGroupCount`` has nothing to count in phase 1."""
        self.claimed.append((path.child(CLAIMS), block.get(CLAIMS), self._templates("lws")))
        return WorkloadItem(
            name=name,
            path=path,
            default_config=default(self.shape.leader_priority),
            input=block_input(self._lowered(block, path)),
            callbacks=[fill_gang(count)],
        )

    def _lowered(self, block: Mapping[str, Any], path: FieldPath) -> dict[str, Any]:
        out = {key: block.get(key) for key in (*BLOCKS, CLAIMS)}
        policy = out.get("schedulingPolicy")
        gang = policy.get("gang") if isinstance(policy, Mapping) else None
        if isinstance(policy, Mapping) and isinstance(gang, Mapping):
            gang_path = path.child("schedulingPolicy", "gang")
            for key in gang:
                if key == "minGroupCount":
                    self.errors.append(forbidden(gang_path.child(key), PHASE_ONE_MIN_GROUP_COUNT))
                else:
                    self.errors.append(unknown_field(gang_path.child(str(key))))
            out["schedulingPolicy"] = {**policy, "gang": {}}
        return out

    def _composite(
        self,
        name: str,
        path: FieldPath,
        block: Mapping[str, Any],
        default: Any,
        count: int,
        children: list[WorkloadItem],
    ) -> WorkloadItem:
        if block.get(CLAIMS) is not None:
            self.errors.append(forbidden(path.child(CLAIMS), COMPOSITE_CLAIMS))
        given = explicit_count(block, "minGroupCount")
        if is_int(given) and given > count:
            what = "spec.replicas" if name == "lws" else "the number of groups in one replica"
            self.errors.append(
                invalid(
                    path.child("schedulingPolicy", "gang", "minGroupCount"), given, f"cannot exceed {what} ({count})"
                )
            )
        return WorkloadItem(
            name=name,
            path=path,
            default_config=default(self.shape.leader_priority),
            input=block_input(block, composite=True),
            callbacks=[fill_gang(count)],
            children=children,
        )

    def _leaf(
        self, name: str, block: Mapping[str, Any] | None, default: Any, members: int, path: FieldPath | None = None
    ) -> WorkloadItem:
        path = path or REPLICA.child(name)
        given = explicit_count(block)
        if is_int(given) and given != members:
            self.errors.append(
                invalid(
                    path.child("schedulingPolicy", "gang", "minCount"),
                    given,
                    f"must equal complete leaf membership {members}",
                )
            )
        templates = self._templates(name)
        self.claimed.append((path.child(CLAIMS), (block or {}).get(CLAIMS), templates))
        priority = self.shape.leader_priority if name == "leader" else self.shape.worker_priority
        return WorkloadItem(
            name=name,
            path=path,
            default_config=default(priority),
            input=block_input(block),
            callbacks=[fill_gang(members)],
        )

    def _templates(self, template: str) -> list[FieldPath]:
        """The pod templates whose pods a PodGroup of ``template`` holds."""
        shape = self.shape
        both = list(dict.fromkeys([shape.leader_template, shape.worker_template]))
        if template == "leader":
            return [shape.leader_template]
        if template == "worker" or (template == "subgroup" and shape.leader_excluded):
            return [shape.worker_template]
        return both

    def claims(self, lws: Mapping[str, Any]) -> ErrorList:
        """A group's claim is shared only by pods that declare the same claim (name and reference)."""
        errors = ErrorList()
        for path, claims, templates in self.claimed:
            for i, claim in enumerate(claims if isinstance(claims, list) else []):
                if isinstance(claim, Mapping) and not all(_declares(lws, template, claim) for template in templates):
                    detail = "must have a matching reference in every member pod template"
                    errors.append(invalid(path.index(i), claim.get("name"), detail))
        return errors

    def leader_ready(self) -> ErrorList:
        """Under ``LeaderReady`` the workers start after the leader is Ready: no gang may wait for both."""
        if self.shape.leader_ready and any(holds and is_gang(item) for item, holds in self.gangs):
            return ErrorList([forbidden(SCHEDULING, LEADER_READY_GANG)])
        return ErrorList()


def _declares(lws: Mapping[str, Any], template: FieldPath, claim: Mapping[str, Any]) -> bool:
    declared = at(lws, (*template.elements(), "spec", "resourceClaims"))
    keys = ("name", "resourceClaimName", "resourceClaimTemplateName")
    return any(
        isinstance(pod_claim, Mapping) and all(pod_claim.get(key) == claim.get(key) for key in keys)
        for pod_claim in (declared if isinstance(declared, list) else [])
    )


def _sets_blocks(block: Mapping[str, Any]) -> bool:
    return any(block.get(key) not in (None, []) for key in (*BLOCKS, CLAIMS))


def _resolved_count(item: WorkloadItem) -> int:
    policy = resolve_config(item).policy
    return policy.gang.min_count or 0 if policy is not None and policy.gang is not None else 0
