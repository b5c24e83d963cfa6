"""A LeaderWorkerSet's pods as the LWS controller, its webhooks and its StatefulSets make them (``lws.pods``)."""

from __future__ import annotations

import hashlib

import pytest

from workloadbuilder.adapters.lws.pods import GROUP_KEY, render_pod_template, subgroup_index

LWS = {
    "apiVersion": "leaderworkerset.x-k8s.io/v1",
    "kind": "LeaderWorkerSet",
    "metadata": {"name": "l", "namespace": "d"},
    "spec": {"replicas": 2, "leaderWorkerTemplate": {"size": 3, "workerTemplate": {"spec": {"containers": [{}]}}}},
}
KEY = hashlib.sha1(b"d/l-1").hexdigest()  # the group key: SHA-1 of <namespace>/<leader pod>


def test_the_leader_of_group_1_is_worker_0_with_the_group_key() -> None:
    assert render_pod_template(LWS, 0, 1) == {
        "metadata": {
            "annotations": {"leaderworkerset.sigs.k8s.io/size": "3"},
            "labels": {
                "leaderworkerset.sigs.k8s.io/name": "l",
                "leaderworkerset.sigs.k8s.io/worker-index": "0",
                "leaderworkerset.sigs.k8s.io/group-index": "1",
                GROUP_KEY: KEY,
            },
        },
        "spec": {"containers": [{}], "subdomain": "l"},
    }


def test_a_worker_names_its_leader_and_carries_no_worker_index() -> None:
    assert render_pod_template(LWS, 2, 1) == {
        "metadata": {
            "annotations": {"leaderworkerset.sigs.k8s.io/size": "3", "leaderworkerset.sigs.k8s.io/leader-name": "l-1"},
            "labels": {
                "leaderworkerset.sigs.k8s.io/name": "l",
                "leaderworkerset.sigs.k8s.io/group-index": "1",
                GROUP_KEY: KEY,
            },
        },
        "spec": {"containers": [{}], "subdomain": "l"},
    }


@pytest.mark.parametrize(
    ("size", "expected"),
    [(4, [0, 0, 1, 1]), (5, [0, 0, 0, 1, 1])],
    ids=["size-a-multiple", "leader-joins-the-first"],
)
def test_subgroups_cut_the_pods_in_order(size: int, expected: list[int]) -> None:
    # getSubGroupIndex: when size - 1 is a multiple of the subgroup size, the leader joins subgroup 0
    assert [subgroup_index(size, 2, worker) for worker in range(size)] == expected
