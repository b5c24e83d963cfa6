"""The Job adapter on the seed's 8-worker training Job: what the 1.37 Job controller makes of it.

The Job asks for 8 workers scheduled all or nothing (``gang`` without a
``minCount``, so the controller sizes it from ``parallelism``), in one zone,
and disrupted together. The adapter:

1. reads the Job's management mode (a root Job: no controller owner);
2. validates ``spec.scheduling`` as the Job API does, at the Job's own paths;
3. compiles the Workload ``<job>-<hash>`` and its PodGroup
   ``<workload>-<template>-<hash>``, owned by the Job, and says which pods
   join it;
4. once the Workload exists (given back as a related object, with its uid),
   adds the PodGroup's second owner reference, to the Workload;
5. shows the Job API refusing a gang larger than ``parallelism`` and, on
   update, a switch from gang to basic.

The objects follow as YAML, ready for ``kubectl apply -f -``.
"""

import copy

import yaml
from workloadbuilder.adapters.job import JobAdapter, management_mode

from workloadbuilder import to_yaml

SEED_JOB = """
apiVersion: batch/v1
kind: Job
metadata:
  name: trainer
  namespace: training
  uid: 6f1c2a34-8b9d-4e5f-a1b2-c3d4e5f60718
spec:
  parallelism: 8
  completions: 8
  completionMode: Indexed
  scheduling:
    schedulingPolicy:
      gang: {}
    schedulingConstraints:
      topology:
      - key: topology.kubernetes.io/zone
    disruptionMode:
      all: {}
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: trainer
        image: training-image:latest
"""


def main() -> None:
    adapter = JobAdapter()
    job = yaml.safe_load(SEED_JOB)

    # 1-2. The mode, then the Job API's validation (nothing wrong here).
    plan = adapter.plan(job)
    print(f"mode: {management_mode(job).value}, errors: {plan.validate()}")

    # 3. The Workload and its PodGroup, before the Workload exists.
    compiled = plan.compile()
    template = compiled.workload.spec.pod_group_templates[0]
    print(
        f"Workload {compiled.workload.metadata.namespace}/{compiled.workload.metadata.name}: "
        f"template {template.name} gang minCount={template.scheduling_policy.gang.min_count} "
        f"topology={template.scheduling_constraints.topology[0].key} "
        f"disruptionMode={'all' if template.disruption_mode.all is not None else 'single'}"
    )
    for pods in compiled.pods:
        print(f"{pods.count} pods {pods.selector} -> PodGroup {pods.pod_group}")
    for warning in compiled.warnings:
        print(f"warning: {warning}")

    # 4. Once created, the Workload has a uid: the PodGroup now refers to it too.
    live = {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "Workload",
        "metadata": {"name": plan.options.name, "namespace": "training", "uid": "3b2f9c1d-7e6a-4d5b-9c8e-1f2a3b4c5d6e"},
    }
    linked = adapter.plan(job, [live]).compile()
    pod_group = linked.hierarchy.pod_groups()[0].object
    owners = ", ".join(
        f"{ref.kind}/{ref.name}{' (controller)' if ref.controller else ''}"
        for ref in pod_group.metadata.owner_references
    )
    print(f"PodGroup {pod_group.metadata.name} owned by {owners}")

    # 5. What the Job API refuses, at the Job's own paths.
    too_big = copy.deepcopy(job)
    too_big["spec"]["scheduling"]["schedulingPolicy"] = {"gang": {"minCount": 9}}
    for finding in adapter.plan(too_big).validate():
        print(f"rejected: {finding}")
    to_basic = copy.deepcopy(job)
    to_basic["spec"]["scheduling"]["schedulingPolicy"] = {"basic": {}}
    to_basic["spec"]["scheduling"].pop("disruptionMode")
    for finding in adapter.validate_update(job, to_basic):
        print(f"update rejected: {finding}")

    print("---")
    print(to_yaml(linked.objects()), end="")


if __name__ == "__main__":
    main()
