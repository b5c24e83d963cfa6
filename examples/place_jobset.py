"""Will this JobSet be placed, where, and if not, why: the placement engine on a generated 1,000-node cluster.

The JobSet ``topo-training`` (``examples/manifests/jobset-topology-constrained.yaml``,
from the JobSet repository) runs a driver and two replicas of a two-pod
worker Job. Its scheduling section asks for a basic driver and a gang of
workers kept within one rack. Until the JobSet adapter exists, this script
translates it by hand, as the JobSet KEP does in alpha: one Workload with a
template per ReplicatedJob, and one runtime PodGroup each.

It then asks the engine, on a generated zone → block → rack → host cluster
of 1,000 nodes (20% of them partly used):

1. where kube-scheduler 1.37 puts the JobSet;
2. about a variant that asks for 20 whole 8-GPU nodes in one rack, which
   no rack has: both strategies say no, and the explanation says why
   (even preempting everything of lower priority would not help).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from workloadbuilder import (
    Builder,
    BuildOptions,
    ConstraintsInput,
    PolicyInput,
    WorkloadInput,
    WorkloadItem,
    build_forest,
)
from workloadbuilder.placement import Cluster, Placement, PlacementRequest, Pods, format_millis, place, verify

MANIFEST = Path(__file__).parent / "manifests" / "jobset-topology-constrained.yaml"
RACK_KEY = "topology.kubernetes.io/rack"  # the key the JobSet asks for


def scheduling_items(jobset: dict[str, Any]) -> list[WorkloadItem]:
    """One leaf per targeted ReplicatedJob, its blocks read from ``spec.scheduling.replicatedJobs[i]``."""
    items = []
    for i, entry in enumerate(jobset["spec"]["scheduling"]["replicatedJobs"]):
        (target,) = entry["targetReplicatedJobs"]
        items.append(
            WorkloadItem(
                name=target,
                path=f"spec.scheduling.replicatedJobs[{i}]",
                input=WorkloadInput(
                    policy=PolicyInput(
                        pod_group_data=entry.get("schedulingPolicy"), path_elements=["schedulingPolicy"]
                    ),
                    constraints=ConstraintsInput(
                        pod_group_data=entry.get("schedulingConstraints"), path_elements=["schedulingConstraints"]
                    ),
                ),
            )
        )
    return items


def runtime_groups(jobset: dict[str, Any]) -> list[Any]:
    """The Workload's runtime PodGroups, named ``<jobset>-<replicatedJob>`` as the JobSet KEP names them."""
    name = jobset["metadata"]["name"]
    options = BuildOptions(
        name=name,
        namespace=jobset["metadata"]["namespace"],
        owner={
            "apiVersion": jobset["apiVersion"],
            "kind": "JobSet",
            "name": name,
            "uid": "jobset-uid",
            "controller": True,
        },
        allowed_policies=["Basic", "Gang"],
        allowed_disruption_modes=["Single"],
    )
    forest = build_forest(scheduling_items(jobset), options)
    if forest.errors:
        raise SystemExit(f"rejected: {forest.errors.to_aggregate()}")
    builder = Builder.from_existing_workload(forest.workload, options)
    return [builder.new_pod_group(f"{name}-{item.name}", item.name) for item in scheduling_items(jobset)]


def pods_of(jobset: dict[str, Any]) -> dict[str, Pods]:
    """Each PodGroup's pods: replicas × parallelism of its ReplicatedJob, with its pod template."""
    name = jobset["metadata"]["name"]
    out = {}
    for rj in jobset["spec"]["replicatedJobs"]:
        job = rj["template"]["spec"]
        out[f"{name}-{rj['name']}"] = Pods(rj["replicas"] * job["parallelism"], template=job["template"])
    return out


def show(title: str, request: PlacementRequest, cluster: Cluster, answer: Placement) -> None:
    assert verify(request, cluster, answer) == []
    print(f"== {title}")
    print(answer.text)
    for group in answer.groups:
        if group.pods:
            where = ", ".join(f"{key.rsplit('/', 1)[-1]}={value}" for key, value in group.domains.items()) or "anywhere"
            nodes = " ".join(pod.node for pod in group.pods)
            print(f"   {group.name} [{where}]: {nodes}")


def main() -> None:
    jobset = yaml.safe_load(MANIFEST.read_text())
    cluster = Cluster.generate(1000, seed=7, keys={"rack": RACK_KEY})
    request = PlacementRequest.from_groups(runtime_groups(jobset), pods_of(jobset))
    for group in request.groups:
        policy = f"gang minCount={group.minimum}" if group.gang else "basic"
        requests = ", ".join(f"{name}={format_millis(name, amount)}" for name, amount in group.requests.items())
        print(f"{group.name}: {group.count} pod(s), {policy}, topology={group.topology_key}, each {requests}")
    print(f"cluster: {len(cluster)} nodes, {len(cluster.domains(RACK_KEY))} racks")
    show("kube-scheduler", request, cluster, place(request, cluster))

    # The variant: 20 workers, each a whole 8-GPU node, all 20 needed at once in
    # one rack, at a priority above everything running (preemption is considered).
    workers = runtime_groups(jobset)[1]
    workers.spec.scheduling_policy.gang.min_count = 20
    workers.spec.priority = 1000
    variant = PlacementRequest.from_groups(
        [workers], {workers.metadata.name: Pods(20, requests={"nvidia.com/gpu": "8"})}
    )
    for strategy in ("kube-scheduler", "complete"):
        show(f"variant, {strategy}", variant, cluster, place(variant, cluster, strategy=strategy))


if __name__ == "__main__":
    main()
