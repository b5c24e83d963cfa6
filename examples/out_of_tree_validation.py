"""Admission-time validation for a controller whose API server does not run the building blocks' rules.

An out-of-tree controller (a CRD with a webhook) embeds the scheduling
building blocks in its own API, so nothing else checks them. It records each
block with the field path where it lives, leaves declarative validation on,
and one ``Builder.validate()`` call reports both the blocks' own rules and the
controller-policy checks, at the CRD's paths.

Here the user asks for the Basic policy together with the ``all`` disruption
mode: each block is valid on its own, but the pair is not (a group scheduled
pod by pod cannot be disrupted all at once), so the object is rejected at
``spec.scheduling.disruptionMode``.

This is the Python version of the Go library's
``ExampleOutOfTreeControllerValidation`` and prints the same line.
"""

from kubernetes.client import (
    V1alpha3WorkloadPodGroupDisruptionMode,
    V1alpha3WorkloadPodGroupSchedulingPolicy,
    V1OwnerReference,
)

from workloadbuilder import (
    Builder,
    BuildOptions,
    DisruptionModeInput,
    FieldPath,
    PolicyInput,
    SchedulingConfig,
    WorkloadInput,
    WorkloadItem,
)
from workloadbuilder.types import BasicSchedulingPolicy, DisruptionModeOption, SchedulingPolicy, SchedulingPolicyOption


def main() -> None:
    scheduling_path = FieldPath("spec", "scheduling")

    # The blocks as the user wrote them: `schedulingPolicy: {basic: {}}` and
    # `disruptionMode: {all: {}}`.
    policy = V1alpha3WorkloadPodGroupSchedulingPolicy(basic={})
    mode = V1alpha3WorkloadPodGroupDisruptionMode(all={})

    item = WorkloadItem(
        name="worker",
        path=scheduling_path,
        default_config=SchedulingConfig(policy=SchedulingPolicy(basic=BasicSchedulingPolicy())),
        input=WorkloadInput(
            policy=PolicyInput(pod_group_data=policy, path_elements=["schedulingPolicy"]),
            disruption_mode=DisruptionModeInput(pod_group_data=mode, path_elements=["disruptionMode"]),
        ),
    )
    builder = Builder(
        item,
        BuildOptions(
            owner=V1OwnerReference(api_version="batch/v1", kind="Job", name="worker", uid="job-uid"),
            allowed_policies=[SchedulingPolicyOption.BASIC, SchedulingPolicyOption.GANG],
            allowed_disruption_modes=[DisruptionModeOption.SINGLE, DisruptionModeOption.ALL],
        ),
    )

    # No old_root: this is a create. On an update, pass the persisted tree as
    # builder.validate(old_root=old_item) so changed blocks are re-checked.
    errors = builder.validate()
    if errors:
        print(f"rejected: {errors.to_aggregate()}")
        return
    print("accepted")


if __name__ == "__main__":
    main()
