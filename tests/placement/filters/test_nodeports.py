"""NodePorts: a pod's host ports conflict with those in use on a node as ``HostPortInfo.CheckConflict`` says.

Same protocol and port conflict when either address is ``0.0.0.0`` or both
are equal; the cases are ``node_ports_test.go``'s ``TestNodePorts`` table.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workloadbuilder.placement.filters import nodeports
from workloadbuilder.placement.k8s.constraints import HostPort

REASON = "node(s) didn't have free ports for the requested pod ports"


def port(spec: str) -> HostPort:
    """``"UDP/127.0.0.1/8080"`` as a ``HostPort``."""
    protocol, ip, number = spec.split("/")
    return HostPort(int(number), protocol, ip)


CASES = [
    ("nothing running", [], [], None),
    ("the pod binds no host port", [], ["TCP/0.0.0.0/8080"], None),
    ("other port", ["UDP/127.0.0.1/8080"], ["UDP/127.0.0.1/9090"], None),
    ("same udp port", ["UDP/127.0.0.1/8080"], ["UDP/127.0.0.1/8080"], REASON),
    ("same tcp port", ["TCP/127.0.0.1/8080"], ["TCP/127.0.0.1/8080"], REASON),
    ("different host ip", ["TCP/127.0.0.1/8080"], ["TCP/127.0.0.2/8080"], None),
    ("one udp and one tcp", ["UDP/127.0.0.1/8080"], ["TCP/127.0.0.1/8080"], None),
    ("second udp port conflict", ["UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"], ["UDP/127.0.0.1/8080"], REASON),
    (
        "first tcp port conflict",
        ["TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"],
        ["TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081"],
        REASON,
    ),
    ("first tcp port conflict due to 0.0.0.0 hostIP", ["TCP/0.0.0.0/8001"], ["TCP/127.0.0.1/8001"], REASON),
    ("tcp conflict with a 0.0.0.0 port in use", ["TCP/10.0.10.10/8001"], ["TCP/0.0.0.0/8001"], REASON),
    (
        "second tcp port conflict to 0.0.0.0 hostIP",
        ["TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"],
        ["TCP/127.0.0.1/8001"],
        REASON,
    ),
    ("second different protocol", ["UDP/0.0.0.0/8001"], ["TCP/0.0.0.0/8001"], None),
    (
        "UDP hostPort conflict due to 0.0.0.0 hostIP",
        ["UDP/0.0.0.0/8001", "TCP/0.0.0.0/8001"],
        ["UDP/127.0.0.1/8001"],
        REASON,
    ),
    ("SCTP and TCP on one port", ["SCTP/0.0.0.0/9000"], ["TCP/0.0.0.0/9000"], None),
    ("same SCTP port", ["SCTP/10.0.0.1/9000"], ["SCTP/0.0.0.0/9000"], REASON),
]


@pytest.mark.parametrize(("wanted", "used", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_check(wanted: list[str], used: list[str], expected: str | None) -> None:
    assert nodeports.check([port(p) for p in wanted], (port(p) for p in used)) == expected


def test_used_may_be_a_one_shot_iterator() -> None:
    used = iter([port("TCP/127.0.0.1/1"), port("TCP/127.0.0.1/8080")])
    assert nodeports.check([port("TCP/127.0.0.1/2"), port("TCP/0.0.0.0/8080")], used) == REASON


def test_name_and_reason_are_upstreams() -> None:
    assert (nodeports.NAME, nodeports.REASON) == ("NodePorts", REASON)


ports = st.builds(
    HostPort, st.integers(1, 3), st.sampled_from(["TCP", "UDP"]), st.sampled_from(["0.0.0.0", "10.0.0.1", "10.0.0.2"])
)


@settings(max_examples=80, deadline=None)
@given(st.lists(ports, max_size=3), st.lists(ports, max_size=3))
def test_conflict_is_symmetric(wanted: list[HostPort], used: list[HostPort]) -> None:
    """Binding A then B conflicts exactly when binding B then A does (CheckConflict is symmetric)."""
    assert nodeports.check(wanted, used) == nodeports.check(used, wanted)
