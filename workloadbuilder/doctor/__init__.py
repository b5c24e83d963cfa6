"""``doctor``: why a live gang is pending, read-only from a cluster.

``load_context`` loads a kubeconfig's context (checked, then through the
kubernetes client's loader), ``load_in_cluster`` a pod's service account (as
client-go's in-cluster config); ``read_live`` reads the object, its Workload,
groups, pods, events and the cluster with bounded GET requests
(``ApiReader``, ``ReadLimits``) into a ``LiveState`` of plain JSON;
``diagnose`` turns that into a ``Diagnosis`` (dominant reason, evidence,
next step, and the engine's replay). docs/doctor.md shows them.
"""

from workloadbuilder.doctor.diagnose import Diagnosis, GroupStatus, diagnose
from workloadbuilder.doctor.incluster import load_in_cluster
from workloadbuilder.doctor.kubeconfig import KubeconfigError, KubeContext, load_context
from workloadbuilder.doctor.live import KINDS, DoctorInputError, LiveState, ObjectKind, parse_target, read_live
from workloadbuilder.doctor.transport import ApiReader, ApiReadError, ReadLimits

__all__ = [
    "KINDS",
    "ApiReadError",
    "ApiReader",
    "Diagnosis",
    "DoctorInputError",
    "GroupStatus",
    "KubeContext",
    "KubeconfigError",
    "LiveState",
    "ObjectKind",
    "ReadLimits",
    "diagnose",
    "load_context",
    "load_in_cluster",
    "parse_target",
    "read_live",
]
