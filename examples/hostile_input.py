"""Untrusted manifests in an operator: every bad input is one line, in bounded work, from any thread.

    python examples/hostile_input.py

An operator that plans user objects must survive whatever users write. This
reads a few hostile inputs (an alias bomb, a wrong YAML tag, a count past the
engine's bound, a field of the wrong type), prints the one line each becomes,
and then plans one custom resource with two different CRD mappings side by
side from 16 threads, each in a registry of its own.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from workloadbuilder import manifests
from workloadbuilder.adapters import plan_object, scoped_registry
from workloadbuilder.adapters.crd import register_mapping
from workloadbuilder.errors import WorkloadBuilderError

HERE = Path(__file__).resolve().parent
PG = "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: p}\nspec: {schedulingPolicy: {basic: {}}}\n"
BOMB = (
    PG
    + "x:\n  a: &a [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n"
    + "".join(f"  b{i}: &b{i} [{', '.join(['*' + ('a' if i == 0 else f'b{i - 1}')] * 10)}]\n" for i in range(6))
)
LWS = {
    "apiVersion": "leaderworkerset.x-k8s.io/v1",
    "kind": "LeaderWorkerSet",
    "metadata": {"name": "big", "uid": "u-1"},
    "spec": {
        "replicas": 1,
        "leaderWorkerTemplate": {
            "size": 1_000_000,
            "workerTemplate": {"spec": {"containers": [{"name": "c", "image": "i"}]}},
        },
    },
}
JOB = {
    "apiVersion": "batch/v1",
    "kind": "Job",
    "metadata": {
        "name": "trainer",
        "uid": "u-2",
        "annotations": {"scheduling.k8s.io/group-template-name": ["workers"]},
    },
    "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]}}},
}


def one_line(problem: WorkloadBuilderError) -> str:
    return str(problem).replace("\n", "; ")


for label, text in [("alias bomb", BOMB), ("bad tag", PG + "x: !!bool maybe\n")]:
    try:
        manifests.load(text)
    except manifests.ManifestError as refused:
        print(f"{label}: {one_line(refused)}")

for obj in (LWS, JOB):
    for finding in plan_object(obj).validate():
        print(f"{obj['kind']}: {finding}")

custom = manifests.read_documents(HERE / "training_cluster" / "llama.yaml")[0]
mapping = (HERE / "training_cluster" / "mapping.yaml").read_text()
mappings = [
    mapping,
    mapping.replace("kind: TrainingCluster", "kind: TrainingCluster\nworkloadName: '{$.metadata.name}-b'"),
]


def workload_name(i: int) -> str:
    with scoped_registry():  # this thread's adapters: the default ones and this mapping
        register_mapping(mappings[i % 2])
        compiled = plan_object(custom).compile()
    return compiled.workload.metadata.name


with ThreadPoolExecutor(16) as pool:
    names = list(pool.map(workload_name, range(32)))
print(f"16 threads, 2 mappings: {sorted(set(names))}, every run its own: {names == [names[0], names[1]] * 16}")
