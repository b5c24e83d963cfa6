"""Why is my gang pending: ``diagnose`` on a live state, without a cluster.

A JobSet's gang of 3 workers, 8 GPUs each, on a rack of two 8-GPU nodes: two
workers are bound, the third waits, and kube-scheduler's FailedScheduling
event says why. ``read_live`` would read this state from a cluster through
the kubernetes client; here it is written out as the apiserver returns it.

Run: ``python examples/doctor.py``.
"""

from __future__ import annotations

from typing import Any

from workloadbuilder.doctor import LiveState, diagnose

GROUP = "llm-7f8c9d9b6b-workers-6f89d4c954"


def node(name: str) -> dict[str, Any]:
    labels = {"kubernetes.io/hostname": name, "topology.kubernetes.io/rack": "r1"}
    allocatable = {"cpu": "64", "memory": "512Gi", "pods": "110", "nvidia.com/gpu": "8"}
    return {"kind": "Node", "metadata": {"name": name, "labels": labels}, "status": {"allocatable": allocatable}}


def worker(index: int, node_name: str | None) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "schedulingGroup": {"podGroupName": GROUP},
        "containers": [{"name": "trainer", "resources": {"requests": {"nvidia.com/gpu": "8"}}}],
    }
    if node_name:
        spec["nodeName"] = node_name
    phase = "Running" if node_name else "Pending"
    return {
        "kind": "Pod",
        "metadata": {"name": f"llm-workers-0-{index}", "namespace": "ml"},
        "spec": spec,
        "status": {"phase": phase},
    }


state = LiveState(
    target={"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "llm", "namespace": "ml"}},
    workloads=[
        {
            "kind": "Workload",
            "metadata": {"name": "llm-7f8c9d9b6b", "namespace": "ml"},
            "spec": {"controllerRef": {"apiGroup": "jobset.x-k8s.io", "kind": "JobSet", "name": "llm"}},
        }
    ],
    pod_groups=[
        {
            "kind": "PodGroup",
            "metadata": {"name": GROUP, "namespace": "ml"},
            "spec": {
                "schedulingPolicy": {"gang": {"minCount": 3}},
                "schedulingConstraints": {"topology": [{"key": "topology.kubernetes.io/rack"}]},
                "workloadRef": {"workloadName": "llm-7f8c9d9b6b", "templateName": "workers"},
            },
        }
    ],
    composite_pod_groups=[],
    pods=[worker(0, "gpu-1"), worker(1, "gpu-2"), worker(2, None)],
    events=[
        {
            "kind": "Event",
            "involvedObject": {"kind": "Pod", "name": "llm-workers-0-2", "namespace": "ml"},
            "reason": "FailedScheduling",
            "message": "0/2 nodes are available: 2 Insufficient nvidia.com/gpu. "
            "preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.",
            "lastTimestamp": "2026-12-01T10:00:00Z",
        }
    ],
    nodes=[node("gpu-1"), node("gpu-2")],
    priority_classes=[],
    disruption_budgets=[],
    resource_slices=[],
)

diagnosis = diagnose(state)
print(diagnosis.text, end="")
print("problem:", diagnosis.problem, "healthy:", diagnosis.healthy)
