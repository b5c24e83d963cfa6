"""Time validate + build + materialize against building the same objects by hand with the kubernetes client.

Prints, for (a) one leaf and (b) a composite root with three leaves, the
median time of one full builder pass (new Builder, validate, build_workload,
every runtime group materialized) and of constructing the identical output
objects directly with the kubernetes client, and their ratio. (c) is (b)
with the WorkloadItem tree built inside the timed pass from building blocks
given as dicts in Kubernetes JSON, as an operator does on every reconcile
(the blocks come from the controller's object); it is the case the core's
budget is set on: at most 2x building the objects by hand. Run:

    python benchmarks/bench_core.py [--repeat N]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

from kubernetes.client import (
    V1alpha3CompositeGangSchedulingPolicy,
    V1alpha3CompositePodGroup,
    V1alpha3CompositePodGroupSchedulingConstraints,
    V1alpha3CompositePodGroupSchedulingPolicy,
    V1alpha3CompositePodGroupSpec,
    V1alpha3TopologyConstraint,
    V1alpha3WorkloadPodGroupDisruptionMode,
    V1alpha3WorkloadPodGroupGangSchedulingPolicy,
    V1alpha3WorkloadPodGroupSchedulingConstraints,
    V1alpha3WorkloadPodGroupSchedulingPolicy,
    V1alpha3WorkloadReference,
    V1beta1CompositeGangSchedulingPolicy,
    V1beta1CompositePodGroupSchedulingConstraints,
    V1beta1CompositePodGroupSchedulingPolicy,
    V1beta1CompositePodGroupTemplate,
    V1beta1DisruptionMode,
    V1beta1GangSchedulingPolicy,
    V1beta1PodGroup,
    V1beta1PodGroupSchedulingConstraints,
    V1beta1PodGroupSchedulingPolicy,
    V1beta1PodGroupSpec,
    V1beta1PodGroupTemplate,
    V1beta1TopologyConstraint,
    V1beta1TypedLocalObjectReference,
    V1beta1Workload,
    V1beta1WorkloadReference,
    V1beta1WorkloadSpec,
    V1ObjectMeta,
    V1OwnerReference,
)

from workloadbuilder import (
    Builder,
    BuildOptions,
    ConstraintsInput,
    DisruptionModeInput,
    FieldPath,
    PolicyInput,
    WorkloadInput,
    WorkloadItem,
    to_dict,
)
from workloadbuilder.types import (
    DisruptionModeOption,
    SchedulingPolicyOption,
    WorkloadCompositePodGroupGangSchedulingPolicy,
    WorkloadCompositePodGroupSchedulingConstraints,
    WorkloadCompositePodGroupSchedulingPolicy,
)

ZONE = "topology.kubernetes.io/zone"
RACK = "topology.example.com/rack"
LEAVES = ("leader", "workers", "ps")


def owner() -> V1OwnerReference:
    return V1OwnerReference(api_version="batch/v1", kind="Job", name="trainer", uid="uid-1")


def options() -> BuildOptions:
    return BuildOptions(
        name="trainer-wl",
        namespace="ml",
        owner=owner(),
        allowed_policies=[SchedulingPolicyOption.BASIC, SchedulingPolicyOption.GANG],
        allowed_disruption_modes=[DisruptionModeOption.SINGLE, DisruptionModeOption.ALL],
    )


def leaf_item(name: str, path: FieldPath) -> WorkloadItem:
    return WorkloadItem(
        name=name,
        path=path,
        input=WorkloadInput(
            policy=PolicyInput(
                pod_group_data=V1alpha3WorkloadPodGroupSchedulingPolicy(
                    gang=V1alpha3WorkloadPodGroupGangSchedulingPolicy(min_count=4)
                ),
                path_elements=["schedulingPolicy"],
            ),
            constraints=ConstraintsInput(
                pod_group_data=V1alpha3WorkloadPodGroupSchedulingConstraints(
                    topology=[V1alpha3TopologyConstraint(key=RACK)]
                ),
                path_elements=["schedulingConstraints"],
            ),
            disruption_mode=DisruptionModeInput(
                pod_group_data=V1alpha3WorkloadPodGroupDisruptionMode(all={}), path_elements=["disruptionMode"]
            ),
        ),
    )


def composite_item() -> WorkloadItem:
    base = FieldPath("spec", "scheduling")
    return WorkloadItem(
        name="replica",
        path=base,
        input=WorkloadInput(
            policy=PolicyInput(
                composite_pod_group_data=WorkloadCompositePodGroupSchedulingPolicy(
                    gang=WorkloadCompositePodGroupGangSchedulingPolicy(min_group_count=3)
                ),
                path_elements=["schedulingPolicy"],
            ),
            constraints=ConstraintsInput(
                composite_pod_group_data=WorkloadCompositePodGroupSchedulingConstraints(
                    topology=[V1alpha3TopologyConstraint(key=ZONE)]
                ),
                path_elements=["schedulingConstraints"],
            ),
        ),
        children=[leaf_item(name, base.child("groups").index(i)) for i, name in enumerate(LEAVES)],
    )


def dict_leaf_item(name: str, path: FieldPath) -> WorkloadItem:
    return WorkloadItem(
        name=name,
        path=path,
        input=WorkloadInput(
            policy=PolicyInput(pod_group_data={"gang": {"minCount": 4}}, path_elements=["schedulingPolicy"]),
            constraints=ConstraintsInput(
                pod_group_data={"topology": [{"key": RACK}]}, path_elements=["schedulingConstraints"]
            ),
            disruption_mode=DisruptionModeInput(pod_group_data={"all": {}}, path_elements=["disruptionMode"]),
        ),
    )


def dict_composite_item() -> WorkloadItem:
    """The tree of ``composite_item``, from dict building blocks."""
    base = FieldPath("spec", "scheduling")
    return WorkloadItem(
        name="replica",
        path=base,
        input=WorkloadInput(
            policy=PolicyInput(
                composite_pod_group_data={"gang": {"minGroupCount": 3}}, path_elements=["schedulingPolicy"]
            ),
            constraints=ConstraintsInput(
                composite_pod_group_data={"topology": [{"key": ZONE}]}, path_elements=["schedulingConstraints"]
            ),
        ),
        children=[dict_leaf_item(name, base.child("groups").index(i)) for i, name in enumerate(LEAVES)],
    )


def via_builder_leaf(item: WorkloadItem) -> list[Any]:
    builder = Builder(item, options())
    errors = builder.validate()
    assert not errors, errors
    return [builder.build_workload(), builder.new_pod_group("trainer-pg", item.name)]


def via_builder_composite(item: WorkloadItem) -> list[Any]:
    builder = Builder(item, options())
    errors = builder.validate()
    assert not errors, errors
    objects: list[Any] = [builder.build_workload(), builder.new_composite_pod_group("replica-0", "replica")]
    objects += [builder.new_pod_group(f"replica-0-{name}", name) for name in LEAVES]
    return objects


def leaf_template(name: str) -> V1beta1PodGroupTemplate:
    return V1beta1PodGroupTemplate(
        name=name,
        scheduling_policy=V1beta1PodGroupSchedulingPolicy(gang=V1beta1GangSchedulingPolicy(min_count=4)),
        scheduling_constraints=V1beta1PodGroupSchedulingConstraints(topology=[V1beta1TopologyConstraint(key=RACK)]),
        disruption_mode=V1beta1DisruptionMode(all={}),
    )


def workload(spec: V1beta1WorkloadSpec) -> V1beta1Workload:
    spec.controller_ref = V1beta1TypedLocalObjectReference(api_group="batch", kind="Job", name="trainer")
    return V1beta1Workload(
        api_version="scheduling.k8s.io/v1beta1",
        kind="Workload",
        metadata=V1ObjectMeta(name="trainer-wl", namespace="ml", owner_references=[owner()]),
        spec=spec,
    )


def pod_group(name: str, template: str) -> V1beta1PodGroup:
    return V1beta1PodGroup(
        api_version="scheduling.k8s.io/v1beta1",
        kind="PodGroup",
        metadata=V1ObjectMeta(name=name, namespace="ml", owner_references=[owner()]),
        spec=V1beta1PodGroupSpec(
            workload_ref=V1beta1WorkloadReference(workload_name="trainer-wl", template_name=template),
            scheduling_policy=V1beta1PodGroupSchedulingPolicy(gang=V1beta1GangSchedulingPolicy(min_count=4)),
            scheduling_constraints=V1beta1PodGroupSchedulingConstraints(topology=[V1beta1TopologyConstraint(key=RACK)]),
            disruption_mode=V1beta1DisruptionMode(all={}),
        ),
    )


def by_hand_leaf() -> list[Any]:
    return [workload(V1beta1WorkloadSpec(pod_group_templates=[leaf_template("trainer")])), pod_group("trainer-pg", "trainer")]


def by_hand_composite() -> list[Any]:
    template = V1beta1CompositePodGroupTemplate(
        name="replica",
        scheduling_policy=V1beta1CompositePodGroupSchedulingPolicy(gang=V1beta1CompositeGangSchedulingPolicy(min_group_count=3)),
        scheduling_constraints=V1beta1CompositePodGroupSchedulingConstraints(topology=[V1beta1TopologyConstraint(key=ZONE)]),
        pod_group_templates=[leaf_template(name) for name in LEAVES],
    )
    composite = V1alpha3CompositePodGroup(
        api_version="scheduling.k8s.io/v1alpha3",
        kind="CompositePodGroup",
        metadata=V1ObjectMeta(name="replica-0", namespace="ml", owner_references=[owner()]),
        spec=V1alpha3CompositePodGroupSpec(
            workload_ref=V1alpha3WorkloadReference(workload_name="trainer-wl", template_name="replica"),
            scheduling_policy=V1alpha3CompositePodGroupSchedulingPolicy(gang=V1alpha3CompositeGangSchedulingPolicy(min_group_count=3)),
            scheduling_constraints=V1alpha3CompositePodGroupSchedulingConstraints(topology=[V1alpha3TopologyConstraint(key=ZONE)]),
        ),
    )
    objects: list[Any] = [workload(V1beta1WorkloadSpec(composite_pod_group_templates=[template])), composite]
    return objects + [pod_group(f"replica-0-{name}", name) for name in LEAVES]


def median_us(ours: Callable[[], Any], theirs: Callable[[], Any], repeat: int) -> tuple[float, float]:
    """The median CPU time of each, in microseconds, sampled in turns so that a busy machine slows both alike.

    CPU time, not wall time: the machine is shared, and another process's
    work between two samples is then not counted in either.
    """
    for _ in range(max(10, repeat // 10)):
        ours()
        theirs()
    samples: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeat):
        for fn, times in ((ours, samples[0]), (theirs, samples[1])):
            start = time.process_time()
            fn()
            times.append(time.process_time() - start)
    return statistics.median(samples[0]) * 1e6, statistics.median(samples[1]) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2000)
    args = parser.parse_args()
    leaf, composite = leaf_item("trainer", FieldPath("spec", "scheduling")), composite_item()
    # Same output either way, or the comparison means nothing.
    assert [to_dict(o) for o in via_builder_leaf(leaf)] == [to_dict(o) for o in by_hand_leaf()]
    assert [to_dict(o) for o in via_builder_composite(composite)] == [to_dict(o) for o in by_hand_composite()]
    from_dicts = [to_dict(o) for o in via_builder_composite(dict_composite_item())]
    assert from_dicts == [to_dict(o) for o in by_hand_composite()]
    print(f"{'case':<32}{'builder (us)':>14}{'by hand (us)':>14}{'ratio':>8}")
    for label, via_builder, by_hand in (
        ("(a) single leaf", lambda: via_builder_leaf(leaf), by_hand_leaf),
        ("(b) composite + 3 leaves", lambda: via_builder_composite(composite), by_hand_composite),
        ("(c) (b) with tree from dicts", lambda: via_builder_composite(dict_composite_item()), by_hand_composite),
    ):
        ours, theirs = median_us(via_builder, by_hand, args.repeat)
        print(f"{label:<32}{ours:>14.1f}{theirs:>14.1f}{ours / theirs:>8.2f}")


if __name__ == "__main__":
    main()
