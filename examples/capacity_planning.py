"""Capacity planning and a queue simulation for the bundled GPU JobSet, on a generated cluster.

How many copies of examples/jobset-training.yaml (a driver and 8 GPU
workers in one rack) fit on 4 racks of 8 eight-GPU hosts, how many hosts a
rack must gain for two more, and how a small queue of such jobs plays out.
"""

from pathlib import Path

from workloadbuilder import manifests
from workloadbuilder.adapters import plan_object
from workloadbuilder.adapters.documents import request_from_plan
from workloadbuilder.placement import Cluster
from workloadbuilder.placement.planning.capacity import capacity
from workloadbuilder.placement.planning.simulate import QueueEntry, simulate

here = Path(__file__).parent
(jobset,) = manifests.read_documents(here / "jobset-training.yaml")
request = request_from_plan(plan_object(jobset))
cluster = Cluster.generate(
    32,
    hosts_per_rack=8,
    racks_per_block=4,
    blocks_per_zone=1,
    used_fraction=0.0,
    keys={"rack": "topology.kubernetes.io/rack"},
)

answer = capacity(request, cluster, add_nodes_like=cluster.names[0], target=6)
print(answer.text)
print()
queue = [
    QueueEntry("pretrain", request, arrival=0, duration=3600, count=5),
    QueueEntry("hotfix", request, arrival=600, duration=600, priority=1000),
]
print(simulate(queue, cluster).text)
