"""The LeaderWorkerSet adapter (``leaderworkerset.x-k8s.io/v1``): KEP-666's levels of ``spec.scheduling``.

``adapter`` plans the LeaderWorkerSet, ``levels`` reads its shape and the
levels of ``spec.scheduling`` into WorkloadItem trees, and ``pods`` renders
the leader's and the workers' pods.
"""

from workloadbuilder.adapters.lws.adapter import (
    DESIGN,
    EXCLUSIVE_TOPOLOGY_ANNOTATION,
    GROUP_INDEX_LABEL,
    NAME_LABEL,
    SUBGROUP_EXCLUSIVE_TOPOLOGY_ANNOTATION,
    WORKER_INDEX_LABEL,
    LeaderWorkerSetAdapter,
)

__all__ = [
    "DESIGN",
    "EXCLUSIVE_TOPOLOGY_ANNOTATION",
    "GROUP_INDEX_LABEL",
    "NAME_LABEL",
    "SUBGROUP_EXCLUSIVE_TOPOLOGY_ANNOTATION",
    "WORKER_INDEX_LABEL",
    "LeaderWorkerSetAdapter",
]
