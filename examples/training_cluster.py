"""Any CRD through a declarative mapping: the made-up in-house ``TrainingCluster``.

``examples/training_cluster/mapping.yaml`` says, in JSONPath, where a
TrainingCluster keeps its scheduling blocks and counts: the cluster is one
composite group (``spec.scheduling``), and each element of ``spec.roles`` a
group of pods, whose gang defaults to the role's ``replicas`` and whose pods
are made from the role's ``template``. With that mapping, the adapter:

1. registers for ``training.example.com/v1`` ``TrainingCluster``, so
   ``plan_object`` picks it for the manifest;
2. builds the tree, each node at its own path in the resource;
3. compiles the Workload, the CompositePodGroup and one PodGroup per role,
   stamps each role's pod template with its PodGroup's name, and says which
   pods join which group;
4. reports a broken variant's errors at the resource's own paths.

``examples/training_cluster/test_training_cluster.py`` shows how to unit-test
such a mapping with pytest.
"""

import copy
from pathlib import Path

import yaml
from workloadbuilder.adapters import plan_object
from workloadbuilder.adapters.crd import register_mapping

from workloadbuilder import to_yaml

HERE = Path(__file__).resolve().parent / "training_cluster"


def main() -> None:
    register_mapping(HERE / "mapping.yaml")
    cluster = yaml.safe_load((HERE / "llama.yaml").read_text())

    plan = plan_object(cluster)
    for root in plan.roots:
        print(f"{root.name} at {root.path}: " + ", ".join(f"{child.name} at {child.path}" for child in root.children))

    compiled = plan.compile()
    for group in compiled.hierarchy:
        policy = group.object.spec.scheduling_policy
        size = (
            f"gang of {policy.gang.min_group_count} groups"
            if group.is_composite
            else (f"gang of {policy.gang.min_count}" if policy.gang is not None else "basic")
        )
        print(f"{group.object.kind} {group.name}: {size}")
    for pods in compiled.pods:
        print(f"{pods.count} pods {pods.selector} -> {pods.pod_group}, stamped at {pods.stamp_path}")

    broken = copy.deepcopy(cluster)
    broken["spec"]["roles"][1]["scheduling"] = {"schedulingPolicy": {"gang": {"minCount": 0}}}
    broken["spec"]["roles"][0]["scheduling"]["schedulingPolicy"] = {"gang": {"minCount": 9}}
    for finding in plan_object(broken).validate():
        print(f"rejected: {finding}")

    print("---")
    print(to_yaml(compiled.objects()), end="")


if __name__ == "__main__":
    main()
