"""Place a LeaderWorkerSet with a CPU leader and GPU workers on a tainted GPU cluster, as kube-scheduler would.

The cluster is a ``kubectl get nodes,pods -o json`` dump: GPU nodes carry
the ``nvidia.com/gpu`` taint, one is dedicated to inference, one is NotReady
and one cordoned. The leader tolerates nothing, so it lands on a CPU node;
the workers tolerate the GPU taint and ask 8 GPUs each through ``limits``
alone, so each takes a whole free GPU node.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from workloadbuilder.adapters import plan_object
from workloadbuilder.adapters.documents import request_from_plan
from workloadbuilder.placement import Cluster, place, verify

HERE = Path(__file__).resolve().parent / "gpu_cluster"

cluster = Cluster.from_kubectl((HERE / "nodes.json").read_text(), (HERE / "pods.json").read_text())
lws = yaml.safe_load((HERE / "lws-cpu-leader-gpu-workers.yaml").read_text())
request = request_from_plan(plan_object(lws))

for group in request.groups:
    shapes = ", ".join(f"{s.count} x {dict(s.requests)}" for s in group.pod_sets)
    print(f"{group.name}: minCount {group.minimum}, pods {shapes}")

answer = place(request, cluster)
assert verify(request, cluster, answer) == []
print("feasible:", answer.feasible)
for group in answer.groups:
    for pod in group.pods:
        print(f"  {pod.name} -> {pod.node}")

# Four GPU workers cannot fit: the same gang with size 5 is left pending, and says why.
lws["spec"]["leaderWorkerTemplate"]["size"] = 5
bigger = request_from_plan(plan_object(lws))
print(place(bigger, cluster).text)

# A worker asking 9 GPUs fits no node: kube-scheduler's FitError line comes first.
lws["spec"]["leaderWorkerTemplate"]["size"] = 2
worker = lws["spec"]["leaderWorkerTemplate"]["workerTemplate"]["spec"]["containers"][0]
worker["resources"]["limits"]["nvidia.com/gpu"] = "9"
print(place(request_from_plan(plan_object(lws)), cluster).text)
