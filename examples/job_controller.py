"""The whole flow of the built-in Job controller: validate, compile the Workload, materialize its PodGroup.

A Job with ``spec.scheduling`` asking for gang scheduling without a
``minCount``, pinned to one node (``kubernetes.io/hostname``), turns into:

1. a ``WorkloadItem`` holding the user's blocks and their paths, laid over the
   controller's default (Basic), with a callback that fills the missing
   ``minCount`` from the Job's parallelism (4);
2. a ``Builder`` carrying the Workload's name, namespace and owner (the Job,
   which becomes ``spec.controllerRef``) and the policies the Job supports;
3. ``validate()`` with declarative validation switched off, because the Job
   API server already ran the blocks' rules: only the controller-policy checks
   remain;
4. ``build_workload()``, the ``scheduling.k8s.io/v1beta1`` Workload, compiled
   once and cached;
5. ``new_pod_group()``, the runtime PodGroup made from the compiled template.

The first three lines are those of the Go library's ``ExampleJobControllerE2E``;
the two objects follow as YAML, ready for ``kubectl apply -f -``.
"""

import json

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
    SchedulingConfig,
    WorkloadInput,
    WorkloadItem,
    to_yaml,
)
from workloadbuilder.types import BasicSchedulingPolicy, DisruptionModeOption, SchedulingPolicy, SchedulingPolicyOption

PARALLELISM = 4


def default_min_count(config: SchedulingConfig) -> None:
    """Give a gang without a minCount the Job's parallelism; the user's input is never touched."""
    gang = config.policy.gang if config.policy is not None else None
    if gang is not None and gang.min_count is None:
        gang.min_count = PARALLELISM


def main() -> None:
    # 1. The user's spec.scheduling: gang with no minCount, one node per group.
    #    Disruption mode and resource claims are left out, so the defaults apply.
    user_input = WorkloadInput(
        policy=PolicyInput(
            pod_group_data=V1alpha3WorkloadPodGroupSchedulingPolicy(
                gang=V1alpha3WorkloadPodGroupGangSchedulingPolicy()
            ),
            path_elements=["schedulingPolicy"],
        ),
        constraints=ConstraintsInput(
            pod_group_data=V1alpha3WorkloadPodGroupSchedulingConstraints(
                topology=[V1alpha3TopologyConstraint(key="kubernetes.io/hostname")]
            ),
            path_elements=["schedulingConstraints"],
        ),
    )

    # 2. One leaf: the controller default, the user's input on top, then the callback.
    item = WorkloadItem(
        name="trainer-pgt-0",
        path=FieldPath("spec", "scheduling"),
        default_config=SchedulingConfig(policy=SchedulingPolicy(basic=BasicSchedulingPolicy())),
        input=user_input,
        callbacks=[default_min_count],
    )

    # 3. The Workload's identity, its owner and what the Job controller supports.
    owner = V1OwnerReference(api_version="batch/v1", kind="Job", name="trainer", uid="job-uid")
    builder = Builder(
        item,
        BuildOptions(
            name="trainer-wl",
            namespace="ml",
            owner=owner,
            allowed_policies=[SchedulingPolicyOption.BASIC, SchedulingPolicyOption.GANG],
            allowed_disruption_modes=[DisruptionModeOption.SINGLE, DisruptionModeOption.ALL],
            disable_declarative_validation=True,
        ),
    )

    # 4. Only the controller-policy checks run: the Job API server did the rest.
    errors = builder.validate()
    if errors:
        print(f"validation failed: {errors.to_aggregate()}")
        return

    # 5. Compile once; 6. materialize the PodGroup from the cached Workload.
    workload = builder.build_workload()
    pod_group = builder.new_pod_group("trainer-pg", item.name)

    template = workload.spec.pod_group_templates[0]
    ref = workload.spec.controller_ref
    print(
        f"Workload {workload.metadata.namespace}/{workload.metadata.name} "
        f"controllerRef={ref.api_group}/{ref.kind}/{ref.name}"
    )
    print(
        f"  template {json.dumps(template.name)}: gang minCount={template.scheduling_policy.gang.min_count}, "
        f"topology={template.scheduling_constraints.topology[0].key}"
    )
    print(
        f"PodGroup {pod_group.metadata.namespace}/{pod_group.metadata.name} "
        f"-> workload={pod_group.spec.workload_ref.workload_name} "
        f"template={pod_group.spec.workload_ref.template_name} "
        f"gang minCount={pod_group.spec.scheduling_policy.gang.min_count}"
    )
    print("---")
    print(to_yaml([workload, pod_group]), end="")


if __name__ == "__main__":
    main()
