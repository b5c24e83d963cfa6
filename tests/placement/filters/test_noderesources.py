"""NodeResourcesFit: ``fitsRequest``'s reasons in its order, and which resource names the scheduler checks at all.

Reasons follow ``fit.go``: ``Too many pods`` when no pod slot is left, then
``Insufficient cpu``, ``memory``, ``ephemeral-storage`` and each requested
scalar resource whose free amount (possibly negative) is below a request
above 0, each failing resource a reason of its own. Scalar names follow
``IsScalarResourceName``. Amounts are millis (``pods`` in millis of a pod).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workloadbuilder.placement.filters import noderesources

SLOT = {"pods": 1000}
ROOMY = {"pods": 110_000, "cpu": 8000, "memory": 16 << 30, "ephemeral-storage": 10 << 30, "nvidia.com/gpu": 8000}

FIT_CASES = [
    ("nothing requested, a slot left", {}, SLOT, []),
    ("nothing requested, no slot left", {}, {"pods": 0}, ["Too many pods"]),
    ("no pods entry: no slot", {"cpu": 1000}, {"cpu": 2000}, ["Too many pods"]),
    ("fits exactly", {"cpu": 8000, "memory": 16 << 30}, ROOMY | {"pods": 1000}, []),
    ("one milli-CPU over", {"cpu": 8001}, ROOMY, ["Insufficient cpu"]),
    ("memory short", {"cpu": 1000, "memory": (16 << 30) + 1000}, ROOMY, ["Insufficient memory"]),
    ("ephemeral storage short", {"ephemeral-storage": 11 << 30}, ROOMY, ["Insufficient ephemeral-storage"]),
    ("extended resource short", {"nvidia.com/gpu": 9000}, ROOMY, ["Insufficient nvidia.com/gpu"]),
    ("extended resource the node lacks", {"example.com/foo": 1000}, ROOMY, ["Insufficient example.com/foo"]),
    ("hugepages short", {"hugepages-2Mi": 1000}, ROOMY, ["Insufficient hugepages-2Mi"]),
    (
        "every failing resource, in the plugin's order",
        {"nvidia.com/gpu": 9000, "memory": 32 << 30, "cpu": 9000, "ephemeral-storage": 11 << 30, "a.io/x": 1},
        ROOMY | {"pods": 0},
        [
            "Too many pods",
            "Insufficient cpu",
            "Insufficient memory",
            "Insufficient ephemeral-storage",
            "Insufficient a.io/x",
            "Insufficient nvidia.com/gpu",
        ],
    ),
    ("a zero request never fails, even overcommitted", {"cpu": 0, "nvidia.com/gpu": 0}, SLOT | {"cpu": -500}, []),
    ("overcommitted node: negative free fails any request", {"cpu": 1}, SLOT | {"cpu": -500}, ["Insufficient cpu"]),
    ("a resource the scheduler ignores", {"foo": 5000}, SLOT, []),
    ("a pods request is not a resource check of its own", {"pods": 5000}, SLOT, []),
]


@pytest.mark.parametrize(("requests", "free", "expected"), [c[1:] for c in FIT_CASES], ids=[c[0] for c in FIT_CASES])
def test_check(requests: dict[str, int], free: dict[str, int], expected: list[str]) -> None:
    assert noderesources.check(requests, free) == expected


def test_shortfalls_lists_every_check_in_order() -> None:
    requests = {"nvidia.com/gpu": 2000, "memory": 1 << 30, "cpu": 500, "foo": 7, "hugepages-1Gi": 0}
    assert noderesources.shortfalls(requests) == [
        ("Too many pods", "pods", 1000),
        ("Insufficient cpu", "cpu", 500),
        ("Insufficient memory", "memory", 1 << 30),
        ("Insufficient nvidia.com/gpu", "nvidia.com/gpu", 2000),
    ]


SCALAR_CASES = [
    ("extended resource", "nvidia.com/gpu", True, True),
    ("hugepages", "hugepages-2Mi", True, True),
    ("attachable volumes", "attachable-volumes-aws-ebs", True, True),
    ("prefixed native", "kubernetes.io/batch-slot", True, True),
    ("cpu is native, not scalar", "cpu", False, True),
    ("memory is native, not scalar", "memory", False, True),
    ("ephemeral-storage is native, not scalar", "ephemeral-storage", False, True),
    ("pods", "pods", False, True),
    ("quota's requests. prefix is no extended resource", "requests.example.com/foo", False, False),
    ("an unprefixed unknown name", "foo", False, False),
    ("storage is not scheduled", "storage", False, False),
]


@pytest.mark.parametrize(
    ("resource", "scalar", "scheduled"), [c[1:] for c in SCALAR_CASES], ids=[c[0] for c in SCALAR_CASES]
)
def test_is_scalar_and_is_scheduled_resource(resource: str, scalar: bool, scheduled: bool) -> None:
    assert (noderesources.is_scalar(resource), noderesources.is_scheduled_resource(resource)) == (scalar, scheduled)


def test_name_and_pod_reason_are_upstreams() -> None:
    assert (noderesources.NAME, noderesources.TOO_MANY_PODS) == ("NodeResourcesFit", "Too many pods")


RESOURCES = ["cpu", "memory", "nvidia.com/gpu", "foo"]


@settings(max_examples=80, deadline=None)
@given(
    st.dictionaries(st.sampled_from(RESOURCES), st.integers(0, 10)),
    st.dictionaries(st.sampled_from([*RESOURCES, "pods"]), st.integers(-5, 10)),
)
def test_fits_exactly_when_every_scheduled_request_is_free(requests: dict[str, int], free: dict[str, int]) -> None:
    """No reason iff a slot is free and each scheduled resource requested above 0 has at least that much free."""
    fits = free.get("pods", 0) >= 1000 and all(
        amount <= 0 or free.get(name, 0) >= amount for name, amount in requests.items() if name != "foo"
    )
    assert (noderesources.check(requests, free) == []) == fits
