"""Plan JobSets with the JobSet adapter: KEP-969's levels, the derived gang of gangs, errors at the JobSet's own paths.

The JobSets are JobSet's own examples (saved under
``tests/data/adapters/jobset/``), read as if back from a cluster (with a uid):

1. ``per-rj-grouped``: ``spec.scheduling.replicatedJobs[0]`` puts the
   launcher (1 pod) and the two 2-pod worker Jobs in one gang of 5;
2. ``v6e-multislice``, with no ``spec.scheduling``, on a cluster serving
   CompositePodGroups: the derived gang of gangs, one gang per TPU slice
   (child Job); its exclusive-topology annotation has no Workload equivalent
   and comes back as a warning;
3. ``per-rj-grouped`` asking for a gang of 6: the error names the JobSet's
   own field, at an indexed path.

It prints each plan's groups and pod assignments, then the first plan's
objects as YAML, in creation order.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from workloadbuilder.adapters import Compiled, Plan
from workloadbuilder.adapters.jobset import JobSetAdapter

from workloadbuilder import to_dict, to_yaml
from workloadbuilder.manifests import read_documents

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "adapters" / "jobset"


def jobset(file: str) -> dict[str, Any]:
    """The JobSet of a saved example, with the uid the API server would have given it."""
    found = next(doc for doc in read_documents(DATA / file) if doc.get("kind") == "JobSet")
    found["metadata"]["uid"] = "5f1c4d9e-0a3b-4c2d-8e7f-6a5b4c3d2e1f"
    return found


def show(plan: Plan, compiled: Compiled) -> None:
    print(f"{plan.object_ref} -> Workload {compiled.workload.metadata.name}")
    for group in compiled.hierarchy:
        policy = to_dict(group.object.spec.scheduling_policy)
        size = ", ".join(f"{key}={value}" for key, value in policy.get("gang", {}).items()) or "basic"
        print(f"{'  ' * group.depth}{group.object.kind} {group.name} ({size})")
    for pods in compiled.pods:
        labels = ",".join(f"{key.rsplit('/', 1)[-1]}={value}" for key, value in pods.selector.items())
        print(f"  pods {labels} x{pods.count} -> {pods.pod_group}")
    for warning in compiled.warnings:
        print(f"  warning: {warning}")


def main() -> None:
    grouped = JobSetAdapter().plan(jobset("per-rj-grouped.yaml"))
    first = grouped.compile()
    show(grouped, first)

    slices = JobSetAdapter(composite_pod_groups=True).plan(jobset("v6e-jax-workload.yaml"))
    compiled = slices.compile()
    show(slices, compiled)
    annotations = compiled.source["spec"]["replicatedJobs"][0]["template"]["metadata"]["annotations"]
    print(f"  child Jobs carry {annotations}")

    too_big = jobset("per-rj-grouped.yaml")
    too_big["spec"]["scheduling"]["replicatedJobs"][0]["schedulingPolicy"]["gang"]["minCount"] = 6
    for finding in JobSetAdapter().plan(too_big).validate():
        print(f"rejected: {finding}")

    print("---")
    print(to_yaml(first.objects()), end="")


if __name__ == "__main__":
    main()
