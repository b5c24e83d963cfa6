"""A LeaderWorkerSet's whole runtime hierarchy: 3 replicas, each a leader and 4 workers.

The LWS ``vllm`` serves a model with groups of one leader pod and four worker
pods; a group is only useful whole, and the three groups are independent.
Its scheduling tree is one composite template ``replica`` (both of its
children or nothing, in one zone) over two gang leaves, ``leader`` (1 pod)
and ``worker`` (4 pods, sharing a group GPU claim, in one rack).

The controller:

1. validates the tree and compiles the Workload, named as the Job controller
   names its Workloads (``<owner>-<hash of the owner's UID>``);
2. materializes the runtime hierarchy with ``{"replica": 3}``: three
   ``replica`` CompositePodGroups, each with a ``leader`` and a ``worker``
   PodGroup linked to it, in creation order (roots first);
3. stamps each pod it creates with its PodGroup, and gives worker pods the
   pod claims that share the group's GPU claim.

It prints the tree, the creation and deletion orders, the pods' groups, then
every object as YAML.
"""

from kubernetes.client import V1OwnerReference

from workloadbuilder import (
    Builder,
    BuildOptions,
    ConstraintsInput,
    FieldPath,
    PolicyInput,
    ResourceClaimsInput,
    WorkloadInput,
    WorkloadItem,
    to_dict,
    to_yaml,
)
from workloadbuilder.runtime.delegation import pod_claims_for, stamp_pod_template
from workloadbuilder.runtime.hierarchy import Hierarchy, RuntimeGroup, materialize
from workloadbuilder.runtime.naming import workload_name
from workloadbuilder.types import DisruptionModeOption, SchedulingPolicyOption

REPLICA_PATH = FieldPath("spec", "scheduling", "replica")
REPLICAS = 3
WORKERS = 4


def leaf(name: str, min_count: int, claims: list[dict[str, str]] | None = None) -> WorkloadItem:
    """A gang leaf kept in one rack, its blocks at ``spec.scheduling.replica.<name>``."""
    return WorkloadItem(
        name=name,
        path=REPLICA_PATH.child(name),
        input=WorkloadInput(
            policy=PolicyInput(pod_group_data={"gang": {"minCount": min_count}}, path_elements=["schedulingPolicy"]),
            constraints=ConstraintsInput(
                pod_group_data={"topology": [{"key": "topology.example.com/rack"}]},
                path_elements=["schedulingConstraints"],
            ),
            resource_claims=ResourceClaimsInput(pod_group_data=claims or [], path_elements=["resourceClaims"]),
        ),
    )


def describe(group: RuntimeGroup) -> str:
    policy = to_dict(group.object.spec.scheduling_policy)
    size = ", ".join(f"{key}={value}" for key, value in policy.get("gang", {}).items()) or "basic"
    return f"{group.object.kind} {group.name} ({group.template_name}, {size})"


def print_tree(hierarchy: Hierarchy) -> None:
    for root in hierarchy.roots():
        print(describe(root))
        children = hierarchy.children_of(root.name)
        for i, child in enumerate(children):
            print(f"{'└──' if i == len(children) - 1 else '├──'} {describe(child)}")


def main() -> None:
    root = WorkloadItem(
        name="replica",
        path=REPLICA_PATH,
        input=WorkloadInput(
            policy=PolicyInput(
                composite_pod_group_data={"gang": {"minGroupCount": 2}}, path_elements=["schedulingPolicy"]
            ),
            constraints=ConstraintsInput(
                composite_pod_group_data={"topology": [{"key": "topology.kubernetes.io/zone"}]},
                path_elements=["schedulingConstraints"],
            ),
        ),
        children=[
            leaf("leader", 1),
            leaf("worker", WORKERS, [{"name": "gpus", "resourceClaimTemplateName": "a100-x8"}]),
        ],
    )
    owner = V1OwnerReference(
        api_version="leaderworkerset.x-k8s.io/v1",
        kind="LeaderWorkerSet",
        name="vllm",
        uid="0b6f4c1e-8d2a-4f5e-9c3b-7a1d2e4f6a80",
        controller=True,
        block_owner_deletion=True,
    )
    builder = Builder(
        root,
        BuildOptions(
            name=workload_name(owner.name, owner.uid),
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
    workload = builder.build_workload()
    hierarchy = materialize(workload, {"replica": REPLICAS})
    print(f"Workload {workload.metadata.namespace}/{workload.metadata.name}: {len(hierarchy)} runtime groups")
    print_tree(hierarchy)

    label = {group.name: "-".join([group.template_name, *map(str, group.indices)]) for group in hierarchy}
    print("create:", " ".join(label[group.name] for group in hierarchy))
    print("delete:", " ".join(label[obj.metadata.name] for obj in hierarchy.deletion_order()))

    # The pods of replica i, named as LWS names them: leader vllm-<i>, workers vllm-<i>-<w>.
    for replica in range(REPLICAS):
        roles = {"leader": [f"vllm-{replica}"], "worker": [f"vllm-{replica}-{w}" for w in range(1, WORKERS + 1)]}
        for role, pod_names in roles.items():
            group = hierarchy.find(role, replica)
            for pod_name in pod_names:
                pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": pod_name}, "spec": {"containers": []}}
                assert stamp_pod_template(pod, group.name) == []
                assert pod["spec"]["schedulingGroup"] == {"podGroupName": group.name}
            claims = ", ".join(f"{c.name}={c.resource_claim_template_name}" for c in pod_claims_for(group.object))
            print(f"pods {' '.join(pod_names)} -> {group.name}" + (f" with pod claims {claims}" if claims else ""))

    print("---")
    print(to_yaml([workload, *hierarchy.objects()]), end="")


if __name__ == "__main__":
    main()
