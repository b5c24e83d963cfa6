"""What an explanation says, and why each line holds: four small clusters, four causes.

- a CompositePodGroup whose children cannot all fit one rack: kube-scheduler
  stops once ``minGroupCount`` is out of reach, and the line names what it
  tried and what it never did;
- a group claim whose first-fit devices pin a gang to one node;
- a root that fits alone but not after the roots placed before it;
- the complete strategy cut short by its time bound: "is not placed", never
  "cannot be placed", and the verdict tier is ``undecided``.

Run: ``python examples/explain_causes.py``.
"""

from __future__ import annotations

from typing import Any

from workloadbuilder.placement import Cluster, DeviceRequest, PlacementRequest, Pods, place, verdict

RACK = "topology.example.com/rack"
GPU = {"nvidia.com/gpu": "1"}


def node(name: str, gpus: int, rack: str = "r1") -> dict[str, Any]:
    return {
        "name": name,
        "labels": {RACK: rack},
        "allocatable": {"cpu": "64", "nvidia.com/gpu": str(gpus), "pods": "110"},
    }


def group(
    kind: str, name: str, policy: dict[str, int], key: str | None = None, parent: str | None = None
) -> dict[str, Any]:
    spec: dict[str, Any] = {"schedulingPolicy": {"gang": policy}}
    if key:
        spec["schedulingConstraints"] = {"topology": [{"key": key}]}
    if parent:
        spec["parentCompositePodGroupName"] = parent
    return {"kind": kind, "metadata": {"name": name}, "spec": spec}


def show(title: str, request: PlacementRequest, cluster: Cluster, **options: Any) -> None:
    answer = place(request, cluster, **options)
    print(f"== {title}")
    print(answer.text)
    print(verdict(request, cluster, answer, timeout=options.get("timeout", 5.0)).text)
    print()


one_rack = Cluster.from_yaml({"nodes": [node("n1", 8)]})
seven = [group("CompositePodGroup", "c", {"minGroupCount": 7}, RACK)]
seven += [group("PodGroup", f"g{i}", {"minCount": 3}, parent="c") for i in range(7)]
show(
    "seven children of 3 pods on one 8-GPU rack",
    PlacementRequest.from_groups(seven, {f"g{i}": Pods(3, requests=GPU) for i in range(7)}),
    one_rack,
)

nics = Cluster.from_yaml(
    {
        "nodes": [node("n1", 2), node("n2", 2)],
        "devicePools": [
            {"name": "n1-nics", "deviceClass": "rdma", "count": 2, "node": "n1"},
            {"name": "r1-nics", "deviceClass": "rdma", "count": 2, "domain": {RACK: "r1"}},
        ],
    }
)
gang = group("PodGroup", "w", {"minCount": 4}, RACK)
gang["spec"]["resourceClaims"] = [{"name": "nics", "resourceClaimTemplateName": "rdma-pair"}]
show(
    "a claim that pins the gang to one node",
    PlacementRequest.from_groups([gang], {"w": Pods(4, requests=GPU)}, {"rdma-pair": DeviceRequest("rdma", 2)}),
    nics,
)

two_racks = Cluster.from_yaml({"nodes": [node("n1", 8, "r1"), node("n2", 8, "r2")]})
roots = [group("PodGroup", name, {"minCount": 6}, RACK) for name in ("a", "c", "b")]
show(
    "three roots of 6 pods on two 8-GPU racks",
    PlacementRequest.from_groups(roots, {name: Pods(6, requests=GPU) for name in ("a", "c", "b")}),
    two_racks,
)

stealing = [
    group("CompositePodGroup", "root", {"minGroupCount": 2}),
    group("PodGroup", "w0", {"minCount": 5}, RACK, "root"),
    group("PodGroup", "w1", {"minCount": 7}, RACK, "root"),
]
racks_5_7 = Cluster.from_yaml({"nodes": [node("a1", 5, "rack-A1"), node("a2", 7, "rack-A2")]})
show(
    "the complete search cut short",
    PlacementRequest.from_groups(stealing, {"w0": Pods(7, requests=GPU), "w1": Pods(7, requests=GPU)}),
    racks_5_7,
    strategy="complete",
    timeout=1e-6,
)
