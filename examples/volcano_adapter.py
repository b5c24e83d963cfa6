"""Plan Volcano's own MPI example as native gang scheduling, then migrate a Volcano and a Kueue pod group.

1. ``tests/data/upstream/volcano/gang-mpi-example.yaml`` (Volcano's MPI gang
   example: one ``mpimaster`` and three ``mpiworker`` pods, ``minAvailable: 4``)
   becomes one Workload whose PodGroup is a gang of 4; what Volcano says and
   the Workload cannot (``schedulerName: volcano``) comes back as a warning;
2. with CompositePodGroups, each task is a gang of its own under a root that
   waits for both;
3. a hand-made Volcano PodGroup and Kueue's plain-Pod group sample become
   native Workloads and PodGroups, with what has no native equivalent listed.

Run it from the repository's root: ``python examples/volcano_adapter.py``.
"""

from __future__ import annotations

from pathlib import Path

from workloadbuilder.adapters import VolcanoJobAdapter, plan_object
from workloadbuilder.manifests import read_documents
from workloadbuilder.migration.gangs import migrate_kueue_pods, migrate_pod_group

UPSTREAM = Path(__file__).resolve().parent.parent / "tests" / "data" / "upstream"


def main() -> None:
    mpi = next(doc for doc in read_documents(UPSTREAM / "volcano" / "gang-mpi-example.yaml") if doc)
    compiled = plan_object(mpi).compile()
    print("one gang over every task:")
    for group in compiled.hierarchy.objects():
        print(f"  {group.kind} {group.metadata.name}: gang minCount {group.spec.scheduling_policy.gang.min_count}")
    for pods in compiled.pods:
        print(f"  {pods.count} pods of {pods.stamp_path} -> {pods.pod_group}")
    for warning in compiled.warnings:
        print(f"  warning: {warning.error.field}")

    per_task = VolcanoJobAdapter(composite_pod_groups=True).plan(mpi).compile()
    print("one gang per task (CompositePodGroups):")
    for group in per_task.hierarchy.objects():
        gang = group.spec.scheduling_policy.gang
        count = getattr(gang, "min_group_count", None) or getattr(gang, "min_count", None)
        print(f"  {group.kind} {group.metadata.name}: gang of {count}")

    volcano_group = {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": "lm-mpi-job", "namespace": "default"},
        "spec": {"minMember": 4, "queue": "default", "minResources": {"cpu": "3500m"}},
    }
    print("a Volcano PodGroup migrated:")
    migrated = migrate_pod_group(volcano_group)
    for obj in migrated.objects:
        print(f"  {obj['kind']} {obj['metadata']['name']}: {obj['spec'].get('schedulingPolicy') or 'one template'}")
    for note in migrated.dropped:
        print(f"  dropped {note}")

    pods = [doc for doc in read_documents(UPSTREAM / "kueue" / "kueue-pod-group.yaml") if doc]
    print("Kueue's pod group migrated:")
    for obj in migrate_kueue_pods(pods).objects:
        name = obj["metadata"].get("name") or obj["metadata"].get("generateName")
        joins = (obj.get("spec") or {}).get("schedulingGroup")
        print(f"  {obj['kind']} {name}" + (f" joins {joins['podGroupName']}" if joins else ""))


if __name__ == "__main__":
    main()
