"""Plan a LeaderWorkerSet with the LWS adapter: KEP-666 phase 1 and phase 2, pods by LWS labels, a refused gang.

The LeaderWorkerSet is LWS's own topology-aware-scheduling example (``vllm``:
one group of a leader and one worker, saved under
``tests/data/adapters/lws/tas.yaml``), read as if back from a cluster:

1. without CompositePodGroups (KEP-666 phase 1): one gang of ``size`` pods
   per group, the default when ``spec.scheduling`` is left out; its Kueue
   required topology becomes the group's ``schedulingConstraints``, the
   other Kueue annotations come back as warnings (Kueue reads them, the
   Workload does not);
2. with CompositePodGroups (phase 2): the group becomes a ``replica``
   CompositePodGroup over a ``leader`` and a ``worker`` PodGroup, under the
   ``lws`` root; each pod joins its group by group index and worker index;
3. asking for a gang of the whole group while the workers start only after
   the leader is Ready (``startupPolicy: LeaderReady``) is refused.

It prints each plan's groups and pod assignments, then the phase-2 objects
as YAML, in creation order.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from workloadbuilder.adapters import Compiled, Plan
from workloadbuilder.adapters.lws import LeaderWorkerSetAdapter

from workloadbuilder import to_dict, to_yaml
from workloadbuilder.manifests import read_documents

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "adapters" / "lws"


def leader_worker_set() -> dict[str, Any]:
    """LWS's TAS example, with the uid the API server would have given it."""
    lws = next(doc for doc in read_documents(DATA / "tas.yaml") if doc.get("kind") == "LeaderWorkerSet")
    lws["metadata"]["uid"] = "0b6f4c1e-8d2a-4f5e-9c3b-7a1d2e4f6a80"
    return lws


def show(plan: Plan, compiled: Compiled) -> None:
    print(f"{plan.object_ref} -> Workload {compiled.workload.metadata.name}")
    for group in compiled.hierarchy:
        policy = to_dict(group.object.spec.scheduling_policy)
        size = ", ".join(f"{key}={value}" for key, value in policy.get("gang", {}).items()) or "basic"
        print(f"{'  ' * group.depth}{group.object.kind} {group.name} ({size})")
    for pods in compiled.pods:
        labels = ",".join(f"{key.rsplit('/', 1)[-1]}={value}" for key, value in pods.selector.items())
        print(f"  pods {labels} x{pods.count} -> {pods.pod_group} (stamped from {pods.stamp_path})")
    for warning in compiled.warnings:
        print(f"  warning: {warning}")


def main() -> None:
    phase_one = LeaderWorkerSetAdapter().plan(leader_worker_set())
    show(phase_one, phase_one.compile())

    phase_two = LeaderWorkerSetAdapter(composite_pod_groups=True).plan(leader_worker_set())
    compiled = phase_two.compile()
    show(phase_two, compiled)

    leader_ready = leader_worker_set()
    leader_ready["spec"]["startupPolicy"] = "LeaderReady"
    leader_ready["spec"]["scheduling"] = {"replica": {"schedulingPolicy": {"gang": {}}}}
    for finding in LeaderWorkerSetAdapter().plan(leader_ready).validate():
        print(f"rejected: {finding}")

    print("---")
    print(to_yaml(compiled.objects()), end="")


if __name__ == "__main__":
    main()
