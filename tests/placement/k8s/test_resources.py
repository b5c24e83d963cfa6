"""Resource lists in millis, and a pod's effective requests as ``component-helpers/resource.PodRequests`` computes them.

``read_quantity`` takes quantity strings and YAML numbers, refuses negative
amounts and non-quantities with one error at the path; ``pod_requests``
defaults each container's missing request to its limit, adds regular
containers and restartable init containers (sidecars), takes the larger of
that and each init container's need (its own plus the sidecars started
before it), lets pod-level requests replace CPU, memory and hugepages, and
adds ``overhead``.

``pod_score_requests`` (what kube-scheduler's NodeResourcesFit score counts)
equals ``pod_requests`` of the same spec with every container's missing CPU
and memory request written in as 100m and 200Mi (``NonMissingContainerRequests``),
on seeded pod specs; a request given as 0 stays 0; a running pod with pod-level
requests gets a default only for a resource it requests nowhere.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workloadbuilder.field import ErrorList, FieldPath
from workloadbuilder.placement.k8s.resources import (
    NONZERO_DEFAULTS,
    POD_MILLIS,
    key_below,
    pod_requests,
    pod_score_requests,
    read_quantity,
    read_resource_list,
    valid_millis,
)

GI = 1 << 30

QUANTITIES = [
    ("CPU millicores", "cpu", "500m", 500),
    ("whole CPUs", "cpu", "2", 2000),
    ("a YAML integer", "cpu", 3, 3000),
    ("a YAML float", "cpu", 2.5, 2500),
    ("memory in binary units", "memory", "1Gi", GI * 1000),
    ("memory rounds up to whole bytes", "memory", "1.5", 2000),
    ("an extended resource", "nvidia.com/gpu", "8", 8000),
    ("zero", "cpu", "0", 0),
]


@pytest.mark.parametrize(("resource", "raw", "millis"), [c[1:] for c in QUANTITIES], ids=[c[0] for c in QUANTITIES])
def test_read_quantity(resource: str, raw: Any, millis: int) -> None:
    errors = ErrorList()
    assert read_quantity(resource, raw, FieldPath("r"), errors) == millis
    assert list(errors) == []


BAD = [
    ("negative string", "-1", 'r: Invalid value: "-1": must be greater than or equal to 0'),
    ("negative number", -1, "r: Invalid value: -1: must be greater than or equal to 0"),
    ("a boolean", True, "r: Invalid value: true: must be a quantity string"),
    ("null", None, "r: Invalid value: null: must be a quantity string"),
    ("a list", [1], "r: Invalid value: [1]: must be a quantity string"),
    (
        "not a quantity",
        "abc",
        'r: Invalid value: "abc": quantities must match the regular expression '
        "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    ),
]


@pytest.mark.parametrize(("raw", "error"), [c[1:] for c in BAD], ids=[c[0] for c in BAD])
def test_read_quantity_reports_one_error(raw: Any, error: str) -> None:
    errors = ErrorList()
    assert read_quantity("cpu", raw, FieldPath("r"), errors) is None
    assert [str(e) for e in errors] == [error]


def test_the_path_is_built_only_for_an_error() -> None:
    built: list[str] = []

    def where() -> FieldPath:
        built.append("built")
        return FieldPath("r")

    errors = ErrorList()
    assert read_quantity("cpu", "1", where, errors) == 1000
    assert built == []
    assert read_quantity("cpu", "x1", where, errors) is None
    assert built == ["built"]


def test_read_resource_list_keeps_good_entries_and_reports_bad_ones() -> None:
    errors = ErrorList()
    raw = {"cpu": "2", "memory": 1024, "nvidia.com/gpu": "-1", "pods": "110"}
    assert read_resource_list(raw, FieldPath("allocatable"), errors) == {
        "cpu": 2000,
        "memory": 1024 * 1000,
        "pods": 110_000,
    }
    assert [str(e) for e in errors] == [
        'allocatable[nvidia.com/gpu]: Invalid value: "-1": must be greater than or equal to 0'
    ]


def test_read_resource_list_of_none_and_of_a_non_mapping() -> None:
    errors = ErrorList()
    assert read_resource_list(None, FieldPath("x"), errors) == {}
    assert read_resource_list(["cpu"], FieldPath("x"), errors) == {}
    assert [str(e) for e in errors] == ['x: Invalid value: ["cpu"]: must be of type object']


VALID = [
    ("a quantity string", "cpu", "250m", 250),
    ("a YAML number is for read_quantity", "cpu", 1, None),
    ("a name that is no string", 1, "1", None),
    ("a negative amount", "cpu", "-1", None),
    ("not a quantity", "cpu", "lots", None),
]


@pytest.mark.parametrize(("resource", "raw", "expected"), [c[1:] for c in VALID], ids=[c[0] for c in VALID])
def test_valid_millis(resource: Any, raw: Any, expected: int | None) -> None:
    assert valid_millis(resource, raw) == expected


def test_key_below_names_the_map_entry() -> None:
    assert str(key_below(FieldPath("spec", "overhead"), "cpu")()) == "spec.overhead[cpu]"
    assert POD_MILLIS == 1000


def container(
    requests: dict[str, str] | None = None, limits: dict[str, str] | None = None, **extra: Any
) -> dict[str, Any]:
    resources: dict[str, Any] = {}
    if requests is not None:
        resources["requests"] = requests
    if limits is not None:
        resources["limits"] = limits
    return {"name": "c", "resources": resources, **extra}


SIDECAR = {"restartPolicy": "Always"}

POD_REQUESTS = [
    ("no containers", {}, {}),
    (
        "containers add up",
        {"containers": [container({"cpu": "1"}), container({"cpu": "500m", "memory": "1Gi"})]},
        {"cpu": 1500, "memory": GI * 1000},
    ),
    ("a limit without request requests its limit", {"containers": [container(limits={"cpu": "2"})]}, {"cpu": 2000}),
    (
        "defaulting is per resource",
        {"containers": [container({"cpu": "1"}, {"cpu": "4", "nvidia.com/gpu": "1"})]},
        {"cpu": 1000, "nvidia.com/gpu": 1000},
    ),
    (
        "an init container larger than the containers",
        {"initContainers": [container({"cpu": "4"})], "containers": [container({"cpu": "1", "memory": "1Gi"})]},
        {"cpu": 4000, "memory": GI * 1000},
    ),
    (
        "init containers take the largest, not the sum",
        {"initContainers": [container({"cpu": "2"}), container({"cpu": "3"})], "containers": [container({"cpu": "1"})]},
        {"cpu": 3000},
    ),
    (
        "a sidecar adds to the containers",
        {"initContainers": [container({"cpu": "1"}, **SIDECAR)], "containers": [container({"cpu": "2"})]},
        {"cpu": 3000},
    ),
    (
        "an init container after a sidecar needs both",
        {
            "initContainers": [container({"cpu": "1"}, **SIDECAR), container({"cpu": "3"})],
            "containers": [container({"cpu": "1"})],
        },
        {"cpu": 4000},
    ),
    (
        "an init container before a sidecar needs only itself",
        {
            "initContainers": [container({"cpu": "3"}), container({"cpu": "1"}, **SIDECAR)],
            "containers": [container({"cpu": "1"})],
        },
        {"cpu": 3000},
    ),
    (
        "pod-level requests replace CPU and memory, not extended resources",
        {
            "resources": {"requests": {"cpu": "8"}, "limits": {"memory": "2Gi"}},
            "containers": [container({"cpu": "1", "memory": "1Gi", "nvidia.com/gpu": "2"})],
        },
        {"cpu": 8000, "memory": 2 * GI * 1000, "nvidia.com/gpu": 2000},
    ),
    (
        "pod-level resources cover hugepages",
        {
            "resources": {"requests": {"hugepages-2Mi": "4Mi", "ephemeral-storage": "1Gi"}},
            "containers": [container({"hugepages-2Mi": "2Mi"})],
        },
        {"hugepages-2Mi": (4 << 20) * 1000},
    ),
    (
        "overhead is added last",
        {"overhead": {"cpu": "250m"}, "resources": {"requests": {"cpu": "1"}}, "containers": [container({"cpu": "2"})]},
        {"cpu": 1250},
    ),
]


@pytest.mark.parametrize(("spec", "expected"), [c[1:] for c in POD_REQUESTS], ids=[c[0] for c in POD_REQUESTS])
def test_pod_requests(spec: dict[str, Any], expected: dict[str, int]) -> None:
    errors = ErrorList()
    assert pod_requests(spec, FieldPath("spec"), errors) == expected
    assert list(errors) == []


def test_pod_requests_reports_bad_fields_at_their_paths() -> None:
    errors = ErrorList()
    spec = {"containers": ["nginx", container({"cpu": "1", "memory": "x"}), {"resources": 3}]}
    assert pod_requests(spec, FieldPath("spec"), errors) == {"cpu": 1000}
    assert [str(e).split(": Invalid")[0] for e in errors] == [
        "spec.containers[0]",
        "spec.containers[1].resources.requests[memory]",
        "spec.containers[2].resources",
    ]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**9))
def test_whole_amounts_round_trip_to_millis(n: int) -> None:
    """``n`` as a YAML integer, as a string, and as ``<n*1000>m`` is ``n * 1000`` millis."""
    errors = ErrorList()
    assert read_quantity("cpu", n, FieldPath("r"), errors) == n * 1000
    assert read_quantity("cpu", str(n), FieldPath("r"), errors) == n * 1000
    assert valid_millis("cpu", f"{n * 1000}m") == n * 1000
    assert list(errors) == []


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 64), max_size=4), st.lists(st.integers(0, 64), max_size=3))
def test_without_sidecars_a_pod_needs_the_larger_of_sum_and_largest_init(regular: list[int], init: list[int]) -> None:
    spec = {
        "containers": [container({"cpu": str(n)}) for n in regular],
        "initContainers": [container({"cpu": str(n)}) for n in init],
    }
    expected = max(sum(regular), max(init, default=0)) * 1000
    got = pod_requests(spec, FieldPath("spec"), ErrorList()).get("cpu", 0)
    assert got == expected


# -- the score requests ------------------------------------------------------------

MI = 2**20 * 1000  # one MiB in the millis unit of memory
SPEC = FieldPath("spec")


def _requests(spec: dict[str, Any]) -> dict[str, int]:
    return pod_requests(spec, SPEC, ErrorList())


def _filled(spec: dict[str, Any]) -> dict[str, Any]:
    """``spec`` with every container's missing CPU and memory request written in as the defaults."""
    spec = copy.deepcopy(spec)
    for section in ("containers", "initContainers"):
        for container in spec.get(section, []):
            resources = container.setdefault("resources", {})
            requests = resources.setdefault("requests", {})
            limits = resources.get("limits", {})
            for name, text in (("cpu", "100m"), ("memory", "200Mi")):
                if name not in requests and name not in limits:
                    requests[name] = text
    return spec


def _container(rng: random.Random, name: str) -> dict[str, Any]:
    container: dict[str, Any] = {"name": name, "image": "busybox"}
    requests = {}
    if rng.random() < 0.6:
        requests["cpu"] = rng.choice(["0", "50m", "250m", "1", "3"])
    if rng.random() < 0.6:
        requests["memory"] = rng.choice(["0", "64Mi", "1Gi", "300M"])
    limits = {"cpu": "2"} if rng.random() < 0.2 else {}
    if requests or limits:
        container["resources"] = {"requests": requests, **({"limits": limits} if limits else {})}
    return container


def _spec(rng: random.Random) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [_container(rng, f"c{k}") for k in range(rng.randint(1, 4))]}
    inits = []
    for k in range(rng.randint(0, 3)):
        init = _container(rng, f"i{k}")
        if rng.random() < 0.4:
            init["restartPolicy"] = "Always"
        inits.append(init)
    if inits:
        spec["initContainers"] = inits
    if rng.random() < 0.2:
        spec["overhead"] = {"cpu": "10m", "memory": "8Mi"}
    return spec


@pytest.mark.parametrize("seed", range(200), ids=[f"seed-{seed}" for seed in range(200)])
def test_score_requests_are_the_requests_with_each_container_defaulted(seed: int) -> None:
    spec = _spec(random.Random(seed))
    filled = _requests(_filled(spec))
    expected = (filled.get("cpu", 0), filled.get("memory", 0))
    assert pod_score_requests(spec, SPEC, ErrorList()) == expected
    assert pod_score_requests(spec, SPEC, ErrorList(), running=True) == expected  # no pod-level requests


CASES = [
    ("no containers", {"containers": []}, (0, 0), (0, 0)),
    ("one container, nothing set", {"containers": [{"name": "a"}]}, (100, 200 * MI), (100, 200 * MI)),
    (
        "two containers, nothing set",
        {"containers": [{"name": "a"}, {"name": "b"}]},
        (200, 400 * MI),
        (200, 400 * MI),
    ),
    (
        "a request of 0 stays 0",
        {"containers": [{"name": "a", "resources": {"requests": {"cpu": "0", "memory": "0"}}}]},
        (0, 0),
        (0, 0),
    ),
    (
        "a limit is the request",
        {"containers": [{"name": "a", "resources": {"limits": {"cpu": "2"}}}]},
        (2000, 200 * MI),
        (2000, 200 * MI),
    ),
    (
        "pod-level CPU: memory defaults per container, or once for a running pod",
        {
            "resources": {"requests": {"cpu": "4"}},
            "containers": [{"name": "a"}, {"name": "b"}],
        },
        (4000, 400 * MI),
        (4000, 200 * MI),
    ),
    (
        "pod-level CPU, a container's memory: no memory default for a running pod",
        {
            "resources": {"requests": {"cpu": "4"}},
            "containers": [{"name": "a"}, {"name": "b", "resources": {"requests": {"memory": "1Gi"}}}],
        },
        (4000, 1224 * MI),
        (4000, 1024 * MI),
    ),
]


@pytest.mark.parametrize(("spec", "to_place", "running"), [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_score_requests_of_a_pod_to_place_and_of_a_running_pod(
    spec: dict[str, Any], to_place: tuple[int, int], running: tuple[int, int]
) -> None:
    assert pod_score_requests(spec, SPEC, ErrorList()) == to_place
    assert pod_score_requests(spec, SPEC, ErrorList(), running=True) == running


def test_the_defaults_are_kube_scheduler_s() -> None:
    assert NONZERO_DEFAULTS == {"cpu": 100, "memory": 200 * MI}


def test_a_bad_quantity_is_reported_at_its_path() -> None:
    errors = ErrorList()
    spec = {"containers": [{"name": "a", "resources": {"requests": {"cpu": "lots"}}}]}
    assert pod_score_requests(spec, SPEC, errors) == (100, 200 * MI)
    assert [error.field for error in errors] == ["spec.containers[0].resources.requests[cpu]"]
