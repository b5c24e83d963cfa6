"""A LeaderWorkerSet's shape and KEP-666's levels of ``spec.scheduling`` (``adapters.lws.levels``)."""

from __future__ import annotations

from typing import Any

from workloadbuilder import ErrorList
from workloadbuilder.adapters import plan_object
from workloadbuilder.adapters.lws.levels import read_layout


def lws(scheduling: dict[str, Any] | None = None, **template: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "replicas": 2,
        "leaderWorkerTemplate": {"size": 4, "workerTemplate": {"spec": {"containers": [{"name": "c", "image": "i"}]}}},
    }
    spec["leaderWorkerTemplate"].update(template)
    if scheduling is not None:
        spec["scheduling"] = scheduling
    return {
        "apiVersion": "leaderworkerset.x-k8s.io/v1",
        "kind": "LeaderWorkerSet",
        "metadata": {"name": "l"},
        "spec": spec,
    }


def test_the_shape_is_replicas_groups_of_size_pods_and_the_leader_uses_the_worker_template() -> None:
    errors = ErrorList()
    shape = read_layout(lws(), "l", errors)
    assert (shape.replicas, shape.size, shape.subgroup_size, shape.leader_excluded) == (2, 4, None, False)
    assert str(shape.leader_template) == str(shape.worker_template) == "spec.leaderWorkerTemplate.workerTemplate"
    assert errors == []


def test_a_replica_gang_is_one_pod_group_per_group_of_size_pods() -> None:
    made = [
        (o.metadata.name.split("-")[2:4], o.spec.scheduling_policy.gang.min_count)
        for o in plan_object(lws({"replica": {"schedulingPolicy": {"gang": {}}}})).compile().objects()
        if type(o).__name__ == "V1beta1PodGroup"
    ]
    assert made == [(["replica", "0"], 4), (["replica", "1"], 4)]


def test_min_group_count_is_refused_in_phase_1() -> None:
    obj = lws({"replica": {"schedulingPolicy": {"gang": {"minGroupCount": 1}}}})
    assert [str(f.error) for f in plan_object(obj).validate()] == [
        "spec.scheduling.replica.schedulingPolicy.gang.minGroupCount: Forbidden: minGroupCount requires "
        "CompositePodGroup support and is not available in phase 1"
    ]
