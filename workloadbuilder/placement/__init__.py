"""The reference placement engine: will this gang be placed, where, and if not, why.

Model a cluster, describe the runtime groups to place, and ask:

    cluster = Cluster.from_kubectl(nodes_json, pods_json)      # or from_yaml / generate
    request = PlacementRequest.from_groups(groups, {"workers": Pods(8, requests={"nvidia.com/gpu": "1"})})
    answer = place(request, cluster, strategy="kube-scheduler")  # or "complete", preempt=True
    assert verify(request, cluster, answer) == []
    print(answer.text)                                           # answer.to_dict() for JSON

``kube-scheduler`` answers what kube-scheduler 1.37 will do; ``complete``
finds a placement whenever one exists and proves it when none does, within
a time bound (``timeout``, OR-tools from the ``solver`` extra). Both return
a ``Placement`` whose ``to_dict()`` shape is documented in ``answer``. The
engine reads compiled and runtime objects only, never the ``WorkloadItem``
tree; see docs/placement.md.
"""

from workloadbuilder.placement.answer import ClaimPlacement, GroupPlacement, Placement, PodList, PodPlacement, Victim
from workloadbuilder.placement.cluster.model import Cluster
from workloadbuilder.placement.cluster.records import DevicePool, RunningGroup, RunningPod
from workloadbuilder.placement.cluster.topology import Domain
from workloadbuilder.placement.engine import STRATEGIES, place
from workloadbuilder.placement.k8s.constraints import PodConstraints, Taint, Toleration
from workloadbuilder.placement.k8s.priorities import PriorityClass, PriorityError
from workloadbuilder.placement.k8s.quantity import QuantityError, format_millis, parse_nanos, resource_millis
from workloadbuilder.placement.request.model import (
    ClaimRef,
    DeviceRequest,
    GroupRequest,
    PlacementRequest,
    Pods,
    PodSet,
)
from workloadbuilder.placement.strategies.complete import DEFAULT_TIMEOUT
from workloadbuilder.placement.verdict import TIERS, Verdict, verdict
from workloadbuilder.placement.verify import verify

__all__ = [
    "DEFAULT_TIMEOUT",
    "STRATEGIES",
    "TIERS",
    "ClaimPlacement",
    "ClaimRef",
    "Cluster",
    "DevicePool",
    "DeviceRequest",
    "Domain",
    "GroupPlacement",
    "GroupRequest",
    "Placement",
    "PlacementRequest",
    "PodConstraints",
    "PodList",
    "PodPlacement",
    "PodSet",
    "Pods",
    "PriorityClass",
    "PriorityError",
    "QuantityError",
    "RunningGroup",
    "RunningPod",
    "Taint",
    "Toleration",
    "Verdict",
    "Victim",
    "format_millis",
    "parse_nanos",
    "place",
    "resource_millis",
    "verdict",
    "verify",
]
