"""``adapters.documents.request_from_documents``: what ``place`` does with manifest documents, as one library call."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from workloadbuilder.adapters.documents import DocumentError, request_from_documents
from workloadbuilder.placement import Cluster, place

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "gpu_cluster"
TRAINER = Path(__file__).resolve().parents[1] / "data" / "adapters" / "trainer" / "04-volcano-integration.yaml"


def test_an_lws_document_is_one_root_with_two_pod_sets() -> None:
    lws = yaml.safe_load((EXAMPLES / "lws-cpu-leader-gpu-workers.yaml").read_text())
    request = request_from_documents([lws])
    (group,) = request.groups
    assert [(s.count, sorted(s.requests)) for s in group.pod_sets] == [
        (1, ["cpu", "memory"]),
        (3, ["cpu", "nvidia.com/gpu"]),
    ]


def test_a_train_job_with_its_runtime_is_placed() -> None:
    docs = list(yaml.safe_load_all(TRAINER.read_text()))
    request = request_from_documents(docs)
    answer = place(request, Cluster.generate(8, seed=1, hosts_per_rack=4, racks_per_block=2, blocks_per_zone=1))
    assert answer.feasible
    assert [group.required for group in answer.groups] == [4]


def pod(name: str, group: str, cpu: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {
            "schedulingGroup": {"podGroupName": group},
            "containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}],
        },
    }


GROUP = {
    "apiVersion": "scheduling.k8s.io/v1beta1",
    "kind": "PodGroup",
    "metadata": {"name": "g"},
    "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}},
}
BAD = [
    (
        "nothing at all",
        [],
        (
            "nothing to place: give a controller object (Job, JobSet, LeaderWorkerSet, TrainJob, Volcano Job, "
            "or one --mapping "
            "describes), or PodGroups with the Pods that name them"
        ),
    ),
    (
        "a group without pods",
        [GROUP],
        (
            "document 1: PodGroup 'g': no Pod in the input names it in spec.schedulingGroup.podGroupName; "
            "give its Pods, or the controller object that makes it"
        ),
    ),
    (
        "a pod of a group not given",
        [pod("p", "elsewhere", "1")],
        "document 1: 'p' goes to PodGroup 'elsewhere', which is not in the input",
    ),
]


POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}
BAD += [
    (
        "a pod spec that is not an object",
        [{**POD, "spec": True}],
        "document 1: Pod 'p': spec: Invalid value: true: must be of type object",
    ),
    (
        "a scheduling group that is a string",
        [{**POD, "spec": {"schedulingGroup": "g"}}],
        "document 1: Pod 'p': spec.schedulingGroup: Invalid value: \"g\": must be of type object",
    ),
    (
        "a group name that is a map",
        [{**POD, "spec": {"schedulingGroup": {"podGroupName": {"a": "b"}}}}],
        'document 1: Pod \'p\': spec.schedulingGroup.podGroupName: Invalid value: {"a":"b"}: must be of type string',
    ),
]


@pytest.mark.parametrize(("docs", "message"), [c[1:] for c in BAD], ids=[c[0] for c in BAD])
def test_documents_that_cannot_be_placed_say_which(docs: list[dict[str, Any]], message: str) -> None:
    with pytest.raises(DocumentError) as caught:
        request_from_documents(docs)
    assert str(caught.value) == message


def test_pods_of_a_ready_made_group_keep_their_own_shapes() -> None:
    request = request_from_documents([GROUP, pod("a", "g", "1"), pod("b", "g", "2"), pod("c", "g", "2")])
    (group,) = request.groups
    assert [(s.count, s.requests["cpu"], s.names) for s in group.pod_sets] == [(1, 1000, ("a",)), (2, 2000, ("b", "c"))]
