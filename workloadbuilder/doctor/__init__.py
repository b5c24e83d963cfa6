"""``doctor``: why a live gang is pending, read-only from a cluster.

``read_live`` reads the object, its Workload, groups, pods, events and the
cluster through the official kubernetes client into a ``LiveState`` of plain
JSON; ``diagnose`` turns that into a ``Diagnosis`` (dominant reason,
evidence, next step, and the engine's replay). docs/doctor.md shows both.
"""

from workloadbuilder.doctor.diagnose import Diagnosis, GroupStatus, diagnose
from workloadbuilder.doctor.live import KINDS, DoctorInputError, LiveState, ObjectKind, parse_target, read_live

__all__ = [
    "KINDS",
    "Diagnosis",
    "DoctorInputError",
    "GroupStatus",
    "LiveState",
    "ObjectKind",
    "diagnose",
    "parse_target",
    "read_live",
]
