"""What a pod spec asks that the model does not check: one warning per field, named at its path.

Claimed volumes (PVC, ephemeral, CSI), per-pod DRA claims, topology spread
across groups, another scheduler, required pod affinity among the pods
being placed (more than one pod), and self-matching anti-affinity over
another key than ``kubernetes.io/hostname`` are each reported; what the
model does check gives no warning.
"""

from __future__ import annotations

from typing import Any

import pytest

from workloadbuilder.field import ErrorList, FieldPath
from workloadbuilder.placement.k8s.constraints import read_constraints
from workloadbuilder.placement.request.model import PodSet
from workloadbuilder.placement.request.unmodelled import DEFAULT_SCHEDULER, _namespace_selectors, unmodelled

LABELS = {"app": "w"}
SELF = {"labelSelector": {"matchLabels": LABELS}}
VOLUMES = "volumes, their binding and topology are not modelled (VolumeBinding, VolumeZone, NodeVolumeLimits)"


def warnings(spec: dict[str, Any], count: int = 4) -> list[str]:
    errors = ErrorList()
    constraints = read_constraints(spec, FieldPath("spec"), errors, {"labels": LABELS})
    assert list(errors) == []
    return unmodelled(PodSet(count, {}, constraints), spec)


CASES = [
    ("a plain spec", {"containers": [{"name": "c"}]}, 4, []),
    (
        "emptyDir and configMap volumes are fine",
        {"volumes": [{"name": "a", "emptyDir": {}}, {"name": "b", "configMap": {}}]},
        4,
        [],
    ),
    (
        "claimed volumes, each at its index",
        {
            "volumes": [
                {"name": "scratch", "emptyDir": {}},
                {"name": "data", "persistentVolumeClaim": {"claimName": "d"}},
                {"name": "eph", "ephemeral": {}},
                {"name": "csi", "csi": {"driver": "x"}},
            ]
        },
        4,
        [
            f"spec.volumes[1].persistentVolumeClaim: {VOLUMES}",
            f"spec.volumes[2].ephemeral: {VOLUMES}",
            f"spec.volumes[3].csi: {VOLUMES}",
        ],
    ),
    ("volumes that are no list", {"volumes": "oops"}, 4, []),
    (
        "per-pod resource claims",
        {"resourceClaims": [{"name": "gpu", "resourceClaimName": "g"}]},
        4,
        ["spec.resourceClaims: per-pod DRA claims are not modelled (only the PodGroup's group claims are)"],
    ),
    (
        "a DoNotSchedule spread constraint",
        {"topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone", **SELF}]},
        4,
        [
            "spec.topologySpreadConstraints: spread counts running pods and this PodGroup's own pods, "
            "not the pods of other groups placed in the same cycle"
        ],
    ),
    (
        "a ScheduleAnyway spread constraint only scores",
        {"topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway"}]},
        4,
        [],
    ),
    (
        "another scheduler",
        {"schedulerName": "volcano"},
        4,
        ["spec.schedulerName: 'volcano' is not kube-scheduler's default profile, which this model follows"],
    ),
    ("the default scheduler named", {"schedulerName": DEFAULT_SCHEDULER}, 4, []),
    (
        "self-matching pod affinity among several pods",
        {
            "affinity": {
                "podAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [
                        {"topologyKey": "zone", "labelSelector": {"matchLabels": {"app": "other"}}},
                        {"topologyKey": "zone", **SELF},
                    ]
                }
            }
        },
        4,
        [
            "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[1]: affinity among the pods "
            "being placed is checked against running pods only (the first pod's domain is not kept)"
        ],
    ),
    (
        "self-matching pod affinity of one pod",
        {
            "affinity": {
                "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": "zone", **SELF}]}
            }
        },
        1,
        [],
    ),
    (
        "self-matching anti-affinity over a zone",
        {
            "affinity": {
                "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": "zone", **SELF}]}
            }
        },
        4,
        [
            "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]: anti-affinity among "
            "the pods being placed over zone is not checked (only over kubernetes.io/hostname)"
        ],
    ),
    (
        "self-matching anti-affinity per host is modelled",
        {
            "affinity": {
                "podAntiAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [
                        {"topologyKey": "kubernetes.io/hostname", **SELF}
                    ]
                }
            }
        },
        4,
        [],
    ),
    (
        "anti-affinity to other pods is modelled",
        {
            "affinity": {
                "podAntiAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [
                        {"topologyKey": "zone", "labelSelector": {"matchLabels": {"app": "db"}}}
                    ]
                }
            }
        },
        4,
        [],
    ),
]


@pytest.mark.parametrize(("spec", "count", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_unmodelled(spec: dict[str, Any], count: int, expected: list[str]) -> None:
    assert warnings(spec, count) == expected


def test_warnings_come_in_field_order() -> None:
    spec = {
        "schedulerName": "x",
        "resourceClaims": [{"name": "a"}],
        "volumes": [{"name": "v", "csi": {}}],
    }
    assert [w.split(":")[0] for w in warnings(spec)] == [
        "spec.volumes[0].csi",
        "spec.resourceClaims",
        "spec.schedulerName",
    ]


@pytest.mark.parametrize(
    ("term", "warned"),
    [
        ({"topologyKey": "zone", "labelSelector": {}, "namespaceSelector": {"matchLabels": {"team": "x"}}}, True),
        ({"topologyKey": "zone", "labelSelector": {}, "namespaceSelector": {}}, False),
        ({"topologyKey": "zone", "labelSelector": {}, "namespaces": ["a"]}, False),
    ],
    ids=["label-selector-warned", "empty-selector-is-every-namespace", "listed-namespaces-only"],
)
def test_a_namespace_selector_by_label_is_named(term: dict[str, Any], warned: bool) -> None:
    spec = {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}}
    expected = (
        [
            "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].namespaceSelector: "
            "namespaces are selected by their labels, which the model does not know; it counts the pods of the "
            "listed namespaces (the pod's own when none is listed)"
        ]
        if warned
        else []
    )
    assert _namespace_selectors(spec) == expected
