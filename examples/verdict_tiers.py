"""Verdict tiers: will it run now, after preemption, once capacity frees, or never.

One 8-GPU node runs an 8-GPU pod of priority 0. Four requests meet it: a
high-priority gang that preemption can seat, an equal-priority gang that has
to wait, a 9-GPU pod that no node of this cluster can ever hold, and a gang
asking for a topology key no node carries.

Run: ``python examples/verdict_tiers.py``.
"""

from __future__ import annotations

from typing import Any

from workloadbuilder.placement import Cluster, PlacementRequest, PriorityClass, place, verdict

cluster = Cluster.build(
    [{"name": "gpu-1", "allocatable": {"cpu": 64000, "pods": 110000, "nvidia.com/gpu": 8000}}],
    running_pods=[{"name": "batch/job-0", "node": "gpu-1", "requests": {"nvidia.com/gpu": 8000}, "priority": 0}],
    priority_classes=[PriorityClass("training", 1000)],
)


def gang(count: int, gpus: int, **spec: Any) -> PlacementRequest:
    group = {
        "kind": "PodGroup",
        "metadata": {"name": "train"},
        "spec": {"schedulingPolicy": {"gang": {"minCount": count}}, **spec},
    }
    return PlacementRequest.from_groups([group], {"train": (count, {"nvidia.com/gpu": str(gpus)})})


requests = {
    "high priority, 2 x 4 GPUs": gang(2, 4, priorityClassName="training"),
    "priority 0, 2 x 4 GPUs": gang(2, 4),
    "one 9-GPU pod": gang(1, 9),
    "by rack": gang(2, 1, schedulingConstraints={"topology": [{"key": "topology.kubernetes.io/rack"}]}),
}
for label, request in requests.items():
    tier = verdict(request, cluster, place(request, cluster))
    print(f"{label}: {tier.text} (exit {tier.exit_code})")
