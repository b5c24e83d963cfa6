"""Plan TrainJobs with the Trainer adapter: groups sized from the runtime, KEP-3015's levels, findings per object.

The runtimes are Kubeflow Trainer's own (saved under
``tests/data/adapters/trainer/``); a TrainJob is planned with its runtime
passed alongside:

1. a DeepSpeed TrainJob of 4 nodes on the ``deepspeed-distributed`` runtime,
   which has no ``spec.scheduling``: MPI runs the launcher as one of the 4
   nodes, so the ``node`` ReplicatedJob holds 3 pods in one gang, and the
   launcher, which starts only after its nodes are Ready, gets a gang of its
   own (a gang of both could never fill);
2. the ``torchtune-llama3.2-1b`` runtime given KEP-3015's ``spec.scheduling``
   (the KEP's story 3): the initializers share a Basic group, the trainer
   node a gang;
3. a TrainJob of 0 nodes under that gang: the error names the TrainJob, and
   a ``gang.minCount`` in the runtime is refused in the runtime's name.

It prints each plan's groups and pod assignments, then the second plan's
objects as YAML, in creation order.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from workloadbuilder.adapters import Compiled, Plan
from workloadbuilder.adapters.trainer import TrainJobAdapter

from workloadbuilder import to_dict, to_yaml
from workloadbuilder.manifests import read_documents

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "adapters" / "trainer"


def document(file: str, kind: str, name: str) -> dict[str, Any]:
    return next(
        doc for doc in read_documents(DATA / file) if doc.get("kind") == kind and doc["metadata"]["name"] == name
    )


def train_job(name: str) -> dict[str, Any]:
    """One of the saved TrainJobs, with the uid the API server would have given it."""
    job = document("trainjobs.yaml", "TrainJob", name)
    job["metadata"]["uid"] = "7e3a9c1d-2b4f-4e6a-8d0c-1f2e3d4c5b6a"
    return job


def show(plan: Plan, compiled: Compiled) -> None:
    print(f"{plan.object_ref} -> Workload {compiled.workload.metadata.name}")
    for group in compiled.hierarchy:
        policy = to_dict(group.object.spec.scheduling_policy)
        size = ", ".join(f"{key}={value}" for key, value in policy.get("gang", {}).items()) or "basic"
        print(f"{'  ' * group.depth}{group.object.kind} {group.name} ({size})")
    for pods in compiled.pods:
        labels = ",".join(f"{key.rsplit('/', 1)[-1]}={value}" for key, value in pods.selector.items())
        print(f"  pods {labels} x{pods.count} -> {pods.pod_group}")


def main() -> None:
    adapter = TrainJobAdapter()
    deepspeed = document("deepspeed_distributed.yaml", "ClusterTrainingRuntime", "deepspeed-distributed")
    plan = adapter.plan(train_job("deepspeed-t5"), [deepspeed])
    show(plan, plan.compile())

    torchtune = document("llama3_2_1B.yaml", "ClusterTrainingRuntime", "torchtune-llama3.2-1b")
    torchtune["spec"]["scheduling"] = {
        "replicatedJobs": [
            {"targetReplicatedJobs": ["dataset-initializer", "model-initializer"], "schedulingPolicy": {"basic": {}}},
            {"targetReplicatedJobs": ["node"], "schedulingPolicy": {"gang": {}}},
        ]
    }
    llama = adapter.plan(train_job("llama-alpaca"), [torchtune])
    compiled = llama.compile()
    show(llama, compiled)

    no_nodes = train_job("llama-alpaca")
    no_nodes["spec"]["trainer"] = {"numNodes": 0}
    torchtune["spec"]["scheduling"]["replicatedJobs"][1]["schedulingPolicy"]["gang"]["minCount"] = 4
    for finding in adapter.plan(no_nodes, [torchtune]).validate():
        print(f"rejected: {finding}")

    print("---")
    print(to_yaml(compiled.objects()), end="")


if __name__ == "__main__":
    main()
