"""A two-level tree: one CompositePodGroup over a leader group and a workers group.

A LeaderWorkerSet-like replica is a leader pod plus four workers that are only
useful together. It becomes a composite root ``replica`` with two leaves:

* ``leader``: a gang of 1 and ``workers``: a gang of 4, each kept within one
  rack (``topology.example.com/rack``);
* ``replica`` itself: a composite gang with ``minGroupCount: 2`` (both
  children or nothing), kept within one zone (``topology.kubernetes.io/zone``).

The controller runs the whole pipeline: ``validate()`` with declarative
validation on (an out-of-tree controller), ``build_workload()``, then one
runtime group per template. The library leaves the runtime hierarchy to the
caller, so the example links each PodGroup to its parent by setting
``spec.parentCompositePodGroupName``. Materializing a leaf that sits inside a
composite template works here; the Go library only finds top-level leaf
templates (see docs/differences.md).
"""

from kubernetes.client import (
    V1alpha3TopologyConstraint,
    V1alpha3WorkloadPodGroupGangSchedulingPolicy,
    V1alpha3WorkloadPodGroupSchedulingConstraints,
    V1alpha3WorkloadPodGroupSchedulingPolicy,
    V1OwnerReference,
)

from workloadbuilder import (
    Builder,
    BuildOptions,
    ConstraintsInput,
    FieldPath,
    PolicyInput,
    WorkloadInput,
    WorkloadItem,
    to_yaml,
)
from workloadbuilder.types import (
    DisruptionModeOption,
    SchedulingPolicyOption,
    WorkloadCompositePodGroupGangSchedulingPolicy,
    WorkloadCompositePodGroupSchedulingConstraints,
    WorkloadCompositePodGroupSchedulingPolicy,
)

ZONE_KEY = "topology.kubernetes.io/zone"
RACK_KEY = "topology.example.com/rack"
REPLICA_PATH = FieldPath("spec", "scheduling", "replica")


def leaf(name: str, min_count: int) -> WorkloadItem:
    """A gang leaf kept in one rack, whose blocks live at ``spec.scheduling.replica.<name>``."""
    return WorkloadItem(
        name=name,
        path=REPLICA_PATH.child(name),
        input=WorkloadInput(
            policy=PolicyInput(
                pod_group_data=V1alpha3WorkloadPodGroupSchedulingPolicy(
                    gang=V1alpha3WorkloadPodGroupGangSchedulingPolicy(min_count=min_count)
                ),
                path_elements=["schedulingPolicy"],
            ),
            constraints=ConstraintsInput(
                pod_group_data=V1alpha3WorkloadPodGroupSchedulingConstraints(
                    topology=[V1alpha3TopologyConstraint(key=RACK_KEY)]
                ),
                path_elements=["schedulingConstraints"],
            ),
        ),
    )


def main() -> None:
    # A node with children is a composite: it takes the composite building blocks.
    root = WorkloadItem(
        name="replica",
        path=REPLICA_PATH,
        input=WorkloadInput(
            policy=PolicyInput(
                composite_pod_group_data=WorkloadCompositePodGroupSchedulingPolicy(
                    gang=WorkloadCompositePodGroupGangSchedulingPolicy(min_group_count=2)
                ),
                path_elements=["schedulingPolicy"],
            ),
            constraints=ConstraintsInput(
                composite_pod_group_data=WorkloadCompositePodGroupSchedulingConstraints(
                    topology=[V1alpha3TopologyConstraint(key=ZONE_KEY)]
                ),
                path_elements=["schedulingConstraints"],
            ),
        ),
        children=[leaf("leader", 1), leaf("workers", 4)],
    )

    owner = V1OwnerReference(
        api_version="leaderworkerset.x-k8s.io/v1", kind="LeaderWorkerSet", name="vllm", uid="lws-uid", controller=True
    )
    builder = Builder(
        root,
        BuildOptions(
            name="vllm",
            namespace="serving",
            owner=owner,
            allowed_policies=[SchedulingPolicyOption.BASIC, SchedulingPolicyOption.GANG],
            allowed_disruption_modes=[DisruptionModeOption.SINGLE, DisruptionModeOption.ALL],
        ),
    )

    errors = builder.validate()
    if errors:
        print(f"rejected: {errors.to_aggregate()}")
        return
    print("validated: no errors")

    workload = builder.build_workload()

    # Replica 0 of the LeaderWorkerSet: one composite group and its two children.
    replica = builder.new_composite_pod_group("vllm-0", "replica")
    children = [builder.new_pod_group(f"vllm-0-{name}", name) for name in ("leader", "workers")]
    for child in children:
        child.spec.parent_composite_pod_group_name = replica.metadata.name

    print("---")
    print(to_yaml([workload, replica, *children]), end="")


if __name__ == "__main__":
    main()
