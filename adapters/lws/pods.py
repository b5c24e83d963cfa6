"""A LeaderWorkerSet's pods as the LWS controller, its webhooks and the StatefulSet controller make them.

Read from kubernetes-sigs/lws at commit ``060ab4da`` (2026-08-21), the
revision ``tests/data/upstream/lws`` holds, and its unit tests
(``TestConstructLeaderStatefulSetApplyConfiguration``,
``TestConstructWorkerStatefulSetApplyConfiguration``, the pod webhook's
``TestSetExclusiveAffinities`` and ``TestGetSubGroupIndex``):

* the leader StatefulSet (``constructLeaderStatefulSetApplyConfiguration``,
  ``pkg/controllers/leaderworkerset_controller.go``) is made from
  ``leaderTemplate``, or ``workerTemplate`` when there is none; its pods get
  the labels ``worker-index: 0`` and the set's name, the annotations
  ``size``, the exclusive topologies, the subgroup policy's type and size
  and, for ``UniquePerReplica``, the subdomain policy; the StatefulSet's
  service is the set's name, so the pod's ``subdomain`` is that;
* each group's worker StatefulSet (``constructWorkerStatefulSetApplyConfiguration``,
  ``pkg/controllers/pod_controller.go``) is made from ``workerTemplate``;
  its pods get the group index, the set's name and the leader's group key,
  the annotations ``size``, ``leader-name`` and the same exclusive and
  subgroup ones; their service (``subdomain``) is the set's name, or the
  leader pod's name for ``UniquePerReplica``; with exclusive placement the
  worker StatefulSet is given a node selector for the leader's domain;
* the pod webhook's ``Default`` (``pkg/webhooks/pod_webhook.go``): the
  leader gets its group index and group key (SHA-1 of
  ``<namespace>/<leader pod>``), its own ``subdomain`` for
  ``UniquePerReplica``, and with exclusive placement a required pod affinity
  to its group key and a required anti-affinity to every other group key
  over the topology key (``SetExclusiveAffinities``, not added twice); a
  worker gets its worker index; with a subgroup policy each pod gets its
  subgroup index (``getSubGroupIndex``: the leader is subgroup 0 unless
  ``LeaderExcluded``) and subgroup key (SHA-1 of ``<leader pod>/<index>``),
  with the subgroup's exclusive affinities when asked for.

Rendered differently (``docs/adapters/lws.md``): the workers' node
selector names the leader's domain, known only once the leader is bound,
so a worker carries the leader's exclusive affinities instead (the same
domain, the same exclusion); a worker's own index label, the template
revision hash, the ``LWS_*`` and TPU environment variables and each pod's
hostname are left out (nothing is placed by them, and the workers of a group
keep one template).
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Mapping
from typing import Any

from workloadbuilder.adapters._shared.defaults import defaulted
from workloadbuilder.adapters._shared.reading import at

__all__ = ["GROUP_KEY", "LWS_REVISION", "render_pod_template", "subgroup_index"]

LWS_REVISION = "060ab4da17eea1f0865fcbd3236bb1075e2cea32"
"""The kubernetes-sigs/lws commit whose rendering rules this module follows."""

_PREFIX = "leaderworkerset.sigs.k8s.io/"
EXCLUSIVE_KEY = _PREFIX + "exclusive-topology"
SUBGROUP_EXCLUSIVE_KEY = _PREFIX + "subgroup-exclusive-topology"
GROUP_KEY = _PREFIX + "group-key"
SUBGROUP_KEY = _PREFIX + "subgroup-key"


def _sha1(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()


def subgroup_index(size: int, subgroup_size: int, worker: int) -> int:
    """The subgroup of pod ``worker`` (``getSubGroupIndex``): the leader is an extra pod of subgroup 0 when
    ``size - 1`` divides evenly and ``size`` does not.

    Examples:
        >>> [subgroup_index(5, 2, w) for w in range(5)], [subgroup_index(4, 2, w) for w in range(4)]
        ([0, 0, 0, 1, 1], [0, 0, 1, 1])
    """
    if (size - 1) % subgroup_size == 0 and size % subgroup_size != 0:
        return max(worker - 1, 0) // subgroup_size
    return worker // subgroup_size


def _int(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _exclusive(pod_spec: dict[str, Any], key: str, label: str, topology: str) -> None:
    """``SetExclusiveAffinities``: with the pods of its own ``label`` value, apart from any other value's."""
    affinity = pod_spec.get("affinity")
    affinity = dict(affinity) if isinstance(affinity, Mapping) else {}
    applied = [
        any(
            isinstance(term, Mapping) and term.get("topologyKey") == topology
            for term in at(affinity, (kind, "requiredDuringSchedulingIgnoredDuringExecution")) or []
        )
        for kind in ("podAffinity", "podAntiAffinity")
    ]
    if all(applied):
        return
    together = {
        "labelSelector": {"matchExpressions": [{"key": label, "operator": "In", "values": [key]}]},
        "topologyKey": topology,
    }
    apart = {
        "labelSelector": {
            "matchExpressions": [
                {"key": label, "operator": "Exists"},
                {"key": label, "operator": "NotIn", "values": [key]},
            ]
        },
        "topologyKey": topology,
    }
    for kind, term in (("podAffinity", together), ("podAntiAffinity", apart)):
        block = affinity.get(kind)
        block = dict(block) if isinstance(block, Mapping) else {}
        terms = block.get("requiredDuringSchedulingIgnoredDuringExecution")
        block["requiredDuringSchedulingIgnoredDuringExecution"] = [*(terms if isinstance(terms, list) else []), term]
        affinity[kind] = block
    pod_spec["affinity"] = affinity


def _merge(metadata: dict[str, Any], key: str, added: Mapping[str, str]) -> None:
    current = metadata.get(key)
    metadata[key] = {**(current if isinstance(current, Mapping) else {}), **added}


def render_pod_template(lws: Mapping[str, Any], worker: int, group: int | None) -> Mapping[str, Any] | None:
    """The template of pod ``worker`` (``0`` is the leader) of group ``group`` (``None``: of any group).

    Without a group index, what differs from group to group (its index,
    group key, and the exclusive affinities made from it) is left out.
    ``None`` when the template the pod is made from is missing.
    """
    obj = defaulted(lws)
    spec = at(obj, ("spec", "leaderWorkerTemplate"))
    if not isinstance(spec, Mapping):
        return None
    source = spec.get("leaderTemplate") if worker == 0 else None
    template = source if isinstance(source, Mapping) else spec.get("workerTemplate")
    if not isinstance(template, Mapping):
        return None
    rendered = copy.deepcopy(dict(template))
    metadata = rendered.get("metadata")
    metadata = dict(metadata) if isinstance(metadata, Mapping) else {}
    rendered["metadata"] = metadata
    pod_spec = rendered.get("spec")
    if not isinstance(pod_spec, dict):
        return rendered
    name = str(at(obj, ("metadata", "name")) or "")
    namespace = str(at(obj, ("metadata", "namespace")) or "default")
    given = at(obj, ("metadata", "annotations"))
    owner_annotations = given if isinstance(given, Mapping) else {}
    size = _int(spec.get("size"), 1)
    labels = {_PREFIX + "name": name, **({_PREFIX + "worker-index": "0"} if worker == 0 else {})}
    annotations = {_PREFIX + "size": str(size)}
    exclusive = owner_annotations.get(EXCLUSIVE_KEY)
    if exclusive:
        annotations[EXCLUSIVE_KEY] = str(exclusive)
    policy = spec.get("subGroupPolicy")
    subgroup_size = _int(policy.get("subGroupSize"), 0) if isinstance(policy, Mapping) else 0
    policy_type = str(policy.get("type") or "LeaderWorker") if isinstance(policy, Mapping) else ""
    sub_exclusive = owner_annotations.get(SUBGROUP_EXCLUSIVE_KEY) if isinstance(policy, Mapping) else None
    if isinstance(policy, Mapping):
        annotations[_PREFIX + "subgroup-policy-type"] = policy_type
        annotations[_PREFIX + "subgroup-size"] = str(subgroup_size)
        if sub_exclusive:
            annotations[SUBGROUP_EXCLUSIVE_KEY] = str(sub_exclusive)
    unique = at(obj, ("spec", "networkConfig", "subdomainPolicy")) == "UniquePerReplica"
    leader = None if group is None else f"{name}-{group}"
    if worker == 0 and unique:
        annotations[_PREFIX + "subdomainPolicy"] = "UniquePerReplica"
    if worker != 0 and leader is not None:
        annotations[_PREFIX + "leader-name"] = leader
    pod_spec["subdomain"] = leader if unique and leader is not None else name
    if unique and leader is None:
        del pod_spec["subdomain"]
    if leader is not None:
        group_key = _sha1(f"{namespace}/{leader}")
        labels[_PREFIX + "group-index"] = str(group)
        labels[GROUP_KEY] = group_key
        if exclusive:
            _exclusive(pod_spec, group_key, GROUP_KEY, str(exclusive))
        if subgroup_size > 0 and not (worker == 0 and policy_type == "LeaderExcluded"):
            index = 0 if worker == 0 else subgroup_index(size, subgroup_size, worker)
            labels[_PREFIX + "subgroup-index"] = str(index)
            sub_key = _sha1(f"{leader}/{index}")
            labels[SUBGROUP_KEY] = sub_key
            if sub_exclusive:
                _exclusive(pod_spec, sub_key, SUBGROUP_KEY, str(sub_exclusive))
    _merge(metadata, "labels", labels)
    _merge(metadata, "annotations", annotations)
    return rendered
