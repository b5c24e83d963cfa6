"""Materialization: runtime PodGroups and CompositePodGroups from a Workload's templates.

The compiled Workload only holds templates; the scheduler acts on runtime
groups. Each runtime group is a deep copy of its template's scheduling fields
plus a ``workloadRef`` back to the template, so a caller may change the group
without touching the (cached) Workload.
"""

from __future__ import annotations

from collections.abc import Iterator

from kubernetes.client import (
    V1alpha3CompositeDisruptionMode,
    V1alpha3CompositeGangSchedulingPolicy,
    V1alpha3CompositePodGroup,
    V1alpha3CompositePodGroupSchedulingConstraints,
    V1alpha3CompositePodGroupSchedulingPolicy,
    V1alpha3CompositePodGroupSpec,
    V1alpha3TopologyConstraint,
    V1alpha3WorkloadReference,
    V1beta1CompositePodGroupTemplate,
    V1beta1PodGroup,
    V1beta1PodGroupSpec,
    V1beta1PodGroupTemplate,
    V1beta1Workload,
    V1beta1WorkloadReference,
    V1ObjectMeta,
    V1OwnerReference,
)

from workloadbuilder.field import go_quote
from workloadbuilder.types import BuildError

__all__ = [
    "COMPOSITE_POD_GROUP_API_VERSION",
    "POD_GROUP_API_VERSION",
    "TemplateIndex",
    "new_composite_pod_group",
    "new_pod_group",
]

POD_GROUP_API_VERSION = "scheduling.k8s.io/v1beta1"
COMPOSITE_POD_GROUP_API_VERSION = "scheduling.k8s.io/v1alpha3"


def new_pod_group(
    workload: V1beta1Workload, template: V1beta1PodGroupTemplate, name: str, owners: list[V1OwnerReference]
) -> V1beta1PodGroup:
    """A PodGroup made from ``template`` of ``workload``, in the Workload's namespace.

    ``priority`` and ``preemptionPolicy`` are copied along with every other
    scheduling field (upstream drops ``preemptionPolicy``; see docs/differences.md).
    """
    copy = template.model_copy(deep=True)
    return V1beta1PodGroup(
        api_version=POD_GROUP_API_VERSION,
        kind="PodGroup",
        metadata=_metadata(workload, name, owners),
        spec=V1beta1PodGroupSpec(
            workload_ref=V1beta1WorkloadReference(workload_name=_workload_name(workload), template_name=template.name),
            scheduling_policy=copy.scheduling_policy,
            scheduling_constraints=copy.scheduling_constraints,
            disruption_mode=copy.disruption_mode,
            resource_claims=copy.resource_claims or None,
            priority_class_name=copy.priority_class_name or None,
            priority=copy.priority,
            preemption_policy=copy.preemption_policy,
        ),
    )


def new_composite_pod_group(
    workload: V1beta1Workload, template: V1beta1CompositePodGroupTemplate, name: str, owners: list[V1OwnerReference]
) -> V1alpha3CompositePodGroup:
    """A CompositePodGroup (v1alpha3) made from ``template``; the parent link is left to the caller."""
    policy = template.scheduling_policy
    gang = policy.gang
    constraints = template.scheduling_constraints
    mode = template.disruption_mode
    return V1alpha3CompositePodGroup(
        api_version=COMPOSITE_POD_GROUP_API_VERSION,
        kind="CompositePodGroup",
        metadata=_metadata(workload, name, owners),
        spec=V1alpha3CompositePodGroupSpec(
            workload_ref=V1alpha3WorkloadReference(workload_name=_workload_name(workload), template_name=template.name),
            scheduling_policy=V1alpha3CompositePodGroupSchedulingPolicy(
                basic=dict(policy.basic) if policy.basic is not None else None,
                gang=V1alpha3CompositeGangSchedulingPolicy(min_group_count=gang.min_group_count) if gang else None,
            ),
            scheduling_constraints=(
                V1alpha3CompositePodGroupSchedulingConstraints(
                    topology=[V1alpha3TopologyConstraint(key=t.key) for t in constraints.topology]
                    if constraints.topology is not None
                    else None
                )
                if constraints is not None
                else None
            ),
            disruption_mode=(
                V1alpha3CompositeDisruptionMode(
                    single=dict(mode.single) if mode.single is not None else None,
                    all=dict(mode.all) if mode.all is not None else None,
                )
                if mode is not None
                else None
            ),
            priority_class_name=template.priority_class_name or None,
            priority=template.priority,
            preemption_policy=template.preemption_policy,
        ),
    )


def _workload_name(workload: V1beta1Workload) -> str:
    return workload.metadata.name if workload.metadata is not None and workload.metadata.name else ""


def _metadata(workload: V1beta1Workload, name: str, owners: list[V1OwnerReference]) -> V1ObjectMeta:
    namespace = workload.metadata.namespace if workload.metadata is not None else None
    return V1ObjectMeta(
        name=name or None,
        namespace=namespace or None,
        owner_references=[owner.model_copy(deep=True) for owner in owners] or None,
    )


class TemplateIndex:
    """Every template of a Workload by name, built once and reused for each lookup.

    Leaf templates are found at any depth, top level first, then inside each
    composite template in pre-order (upstream indexes only the top level).
    """

    def __init__(self, workload: V1beta1Workload) -> None:
        self.workload = workload
        self.leaves: dict[str, V1beta1PodGroupTemplate] = {}
        self.composites: dict[str, V1beta1CompositePodGroupTemplate] = {}
        spec = workload.spec
        for leaf in spec.pod_group_templates or []:
            self.leaves[leaf.name] = leaf
        for composite in _walk(spec.composite_pod_group_templates or []):
            self.composites[composite.name] = composite
            for leaf in composite.pod_group_templates or []:
                self.leaves[leaf.name] = leaf

    def leaf(self, template_name: str) -> V1beta1PodGroupTemplate:
        """The leaf template of that name.

        Raises:
            BuildError: with the Go library's message listing the available names.
        """
        template = self.leaves.get(template_name)
        if template is None:
            raise BuildError(
                f"podGroupTemplate {go_quote(template_name)} not found in workload "
                f"{go_quote(_workload_name(self.workload))} (have [{' '.join(self.leaves)}])"
            )
        return template

    def composite(self, template_name: str) -> V1beta1CompositePodGroupTemplate:
        """The composite template of that name, at any depth.

        Raises:
            BuildError: with the Go library's message listing the available names.
        """
        template = self.composites.get(template_name)
        if template is None:
            raise BuildError(
                f"compositePodGroupTemplate {go_quote(template_name)} not found in workload "
                f"{go_quote(_workload_name(self.workload))} (have [{' '.join(self.composites)}])"
            )
        return template


def _walk(templates: list[V1beta1CompositePodGroupTemplate]) -> Iterator[V1beta1CompositePodGroupTemplate]:
    for template in templates:
        yield template
        yield from _walk(template.composite_pod_group_templates or [])
