"""A child controller materializing its PodGroup from a Workload that its parent compiled.

When a parent controller (JobSet, say) has already compiled and persisted
the Workload, that object is the source of truth; the child (a Job) brings
no scheduling input of its own. ``Builder.from_existing_workload`` wraps the
persisted Workload and only materializes from it:

* ``validate()`` is refused with an internal error, as the Go code does
  (the Go example's comment calls it a no-op, but the Go code returns this
  error; see docs/differences.md);
* ``build_workload()`` raises ``BuildError``, so the parent's object is never
  recompiled over;
* ``new_pod_group()`` copies the template's scheduling fields (here the
  priority class and the gang ``minCount``) into a PodGroup owned by the
  child.

The last two lines are those of the Go library's
``ExampleDelegatedPodGroupFromExistingWorkload``.
"""

from kubernetes.client import (
    V1beta1GangSchedulingPolicy,
    V1beta1PodGroupSchedulingPolicy,
    V1beta1PodGroupTemplate,
    V1beta1Workload,
    V1beta1WorkloadSpec,
    V1ObjectMeta,
    V1OwnerReference,
)

from workloadbuilder import Builder, BuildError, BuildOptions


def main() -> None:
    # What the parent controller compiled and the API server persisted.
    parent_workload = V1beta1Workload(
        metadata=V1ObjectMeta(name="trainer-wl", namespace="ml", uid="wl-uid"),
        spec=V1beta1WorkloadSpec(
            pod_group_templates=[
                V1beta1PodGroupTemplate(
                    name="trainer-pgt-0",
                    priority_class_name="high-priority",
                    scheduling_policy=V1beta1PodGroupSchedulingPolicy(gang=V1beta1GangSchedulingPolicy(min_count=4)),
                )
            ]
        ),
    )

    # The child owns only its PodGroup, so the owner is the child Job.
    owner = V1OwnerReference(api_version="batch/v1", kind="Job", name="trainer-worker", uid="job-uid")
    builder = Builder.from_existing_workload(parent_workload, BuildOptions(owner=owner))

    # There is no tree to check: the persisted Workload already passed the API server.
    print(f"validate refused: {builder.validate().to_aggregate()}")

    try:
        builder.build_workload()
    except BuildError:
        print("BuildWorkload refused for existing Workload")

    pod_group = builder.new_pod_group("trainer-pg", "trainer-pgt-0")
    spec = pod_group.spec
    print(
        f"PodGroup {pod_group.metadata.namespace}/{pod_group.metadata.name} "
        f"-> workload={spec.workload_ref.workload_name} template={spec.workload_ref.template_name} "
        f"priorityClass={spec.priority_class_name} gang minCount={spec.scheduling_policy.gang.min_count} "
        f"ownedBy={pod_group.metadata.owner_references[0].name}"
    )


if __name__ == "__main__":
    main()
