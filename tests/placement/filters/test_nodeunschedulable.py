"""NodeUnschedulable: a cordoned node rejects a pod unless it tolerates ``node.kubernetes.io/unschedulable:NoSchedule``.

Cases follow ``node_unschedulable_test.go`` and the toleration rules of
``TolerationsTolerateTaint`` for that one taint (key
``node.kubernetes.io/unschedulable``, no value, effect ``NoSchedule``).
"""

from __future__ import annotations

import pytest

from workloadbuilder.placement.filters import nodeunschedulable
from workloadbuilder.placement.k8s.constraints import Taint, Toleration

KEY = "node.kubernetes.io/unschedulable"
REASON = "node(s) were unschedulable"

CASES = [
    ("schedulable node, no tolerations", False, (), None),
    ("cordoned node, no tolerations", True, (), REASON),
    (
        "cordoned node, toleration of the key with NoSchedule",
        True,
        (Toleration(KEY, "Exists", "", "NoSchedule"),),
        None,
    ),
    ("cordoned node, Equal with the empty value", True, (Toleration(KEY, "Equal", "", "NoSchedule"),), None),
    ("cordoned node, no operator means Equal", True, (Toleration(KEY, "", "", "NoSchedule"),), None),
    ("cordoned node, toleration without effect", True, (Toleration(KEY, "Exists"),), None),
    ("cordoned node, tolerate-everything toleration", True, (Toleration("", "Exists"),), None),
    ("cordoned node, toleration with NoExecute only", True, (Toleration(KEY, "Exists", "", "NoExecute"),), REASON),
    ("cordoned node, Equal with a value", True, (Toleration(KEY, "Equal", "true", "NoSchedule"),), REASON),
    ("cordoned node, toleration of another key", True, (Toleration("other", "Exists", "", "NoSchedule"),), REASON),
    (
        "cordoned node, one matching toleration among others",
        True,
        (Toleration("other", "Exists"), Toleration(KEY, "Exists", "", "NoSchedule")),
        None,
    ),
    ("schedulable node ignores tolerations", False, (Toleration("other", "Exists"),), None),
]


@pytest.mark.parametrize(
    ("unschedulable", "tolerations", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_check(unschedulable: bool, tolerations: tuple[Toleration, ...], expected: str | None) -> None:
    assert nodeunschedulable.check(unschedulable, tolerations) == expected


def test_name_reason_and_taint_are_upstreams() -> None:
    assert nodeunschedulable.NAME == "NodeUnschedulable"
    assert nodeunschedulable.REASON == REASON
    assert Taint(KEY, "", "NoSchedule") == nodeunschedulable.UNSCHEDULABLE_TAINT
