"""Preemption as kube-scheduler picks its victims: priority classes, disruption modes and a PodDisruptionBudget.

Two 8-GPU nodes are full: an ``all`` PodGroup of batch work on gpu-1, a
``single`` PodGroup of notebooks and a lone critical daemon on gpu-2. A
training gang of 8 one-GPU pods, of PriorityClass ``training``, asks for
room (10 GPUs). We ask first whether preemption would help (and why each victim
goes), then let it evict, and last try a class that never preempts.

Run: ``python examples/preemption.py``.
"""

from __future__ import annotations

from workloadbuilder.placement import Cluster, PlacementRequest, Pods, place


def gpu_node(name: str) -> dict[str, object]:
    return {"name": name, "allocatable": {"cpu": "64", "memory": "512Gi", "nvidia.com/gpu": "8", "pods": "110"}}


def pod(name: str, node: str, gpus: int, app: str) -> dict[str, object]:
    return {"name": name, "node": node, "requests": {"nvidia.com/gpu": str(gpus)}, "labels": {"app": app}}


def priority_class(name: str, value: int, **extra: object) -> dict[str, object]:
    return {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name},
        "value": value,
        **extra,
    }


cluster = Cluster.from_yaml(
    {
        "nodes": [gpu_node("gpu-1"), gpu_node("gpu-2")],
        "priorityClasses": [
            priority_class("batch", 100, globalDefault=True),
            priority_class("training", 1000),
            priority_class("training-polite", 1000, preemptionPolicy="Never"),
        ],
        "running": [
            {
                "name": "nightly-etl",
                "priority": 100,
                "disruptionMode": "all",
                "startTime": "2026-11-30T22:00:00Z",
                "pods": [pod(f"etl-{i}", "gpu-1", 2, "etl") for i in range(4)],
            },
            {
                "name": "notebooks",
                "priority": 100,
                "startTime": "2026-12-01T08:00:00Z",
                "pods": [pod(f"nb-{i}", "gpu-2", 2, "notebook") for i in range(3)],
            },
            {
                "name": "dcgm-exporter",
                "kind": "Pod",
                "priority": 2000001000,
                "node": "gpu-2",
                "requests": {"nvidia.com/gpu": "2"},
            },
        ],
        "podDisruptionBudgets": [
            {
                "metadata": {"name": "notebooks", "namespace": "default"},
                "spec": {"selector": {"matchLabels": {"app": "notebook"}}, "maxUnavailable": 1},
            }
        ],
    }
)


def training(name: str, class_name: str, count: int) -> PlacementRequest:
    group = {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": name},
        "spec": {"schedulingPolicy": {"gang": {"minCount": count}}, "priorityClassName": class_name},
    }
    return PlacementRequest.from_groups([group], {name: Pods(count, requests={"nvidia.com/gpu": "1"})})


# 1. Would preemption help? The dry run names each victim and why.
dry = place(training("train", "training", 10), cluster)
preemption = dry.explanation["roots"][0]["preemption"]
print(preemption["text"])
for reason in preemption["reasons"]:
    print(" -", reason["text"])

# 2. Evict. The whole `nightly-etl` group goes, as its disruptionMode says. With every candidate
#    removed, the gang's pods alternate between the nodes (LeastAllocated counts each pod's 100m CPU
#    and 200Mi non-zero defaults), so 5 land on gpu-2, where the daemon leaves 6 GPUs: two notebooks
#    must go. kube-scheduler's reprieve keeps that placement, and the budget allows one disruption:
#    the second notebook's eviction violates it (no reprieve could keep the budget).
answer = place(training("train", "training", 10), cluster, preempt=True)
print("feasible:", answer.feasible)
for victim in answer.victims:
    print(f"evicts {victim.kind} {victim.name} (priority {victim.priority}): {[p.name for p in victim.pods]}")
print("placed on:", sorted({p.node for p in answer.group("train").pods}))
print("budget violations:", answer.explanation["roots"][0]["preemption"]["violations"])

# 3. A class with preemptionPolicy: Never waits instead.
polite = place(training("train", "training-polite", 10), cluster, preempt=True)
print(polite.explanation["roots"][0]["preemption"]["status"])
