"""Operators call the library from many threads: 16 threads on shared inputs give the single-threaded results.

Builder, validation, compile (through the adapters) and placement run on
the same input objects at once; nothing they share may change under them.
Two CRD mappings for one kind, each in its own CLI run, never see each
other's adapter.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import yaml

from workloadbuilder import Builder, manifests
from workloadbuilder.adapters import (
    JobSetAdapter,
    Registry,
    adapter_for,
    current_registry,
    plan_object,
    scoped_registry,
)
from workloadbuilder.adapters.crd import register_mapping
from workloadbuilder.adapters.documents import request_from_plan
from workloadbuilder.cli.app import main
from workloadbuilder.placement import Cluster, place
from workloadbuilder.testing.factories import make_item, make_options
from workloadbuilder.validation.objects import validate_workload

ROOT = Path(__file__).resolve().parents[2]
THREADS = 16
ROUNDS = 3
JOBSET = yaml.safe_load((ROOT / "tests" / "data" / "adapters" / "jobset" / "topology-constrained.yaml").read_text())
CLUSTER = Cluster.generate(64, hosts_per_rack=8, racks_per_block=4)
CRD = ROOT / "tests" / "data" / "adapters" / "crd"
PRIORITY_CLASS = (
    "---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: pool-high}\nvalue: 1000\n"
)
PLACE_ARGS = [
    "--generate",
    "zones=1,blocks=1,racks=2,hosts=4",
    "--claim",
    "fast-nics=nic.example.com:1",
    "--output",
    "json",
]


def _build() -> str:
    builder = Builder(make_item(name="job", gang=4), make_options())
    return str(builder.validate()) + manifests.to_yaml(builder.build_workload())


def _validate() -> str:
    workload = plan_object(JOBSET).compile().workload
    broken = manifests.to_dict(workload) | {"metadata": {"name": "Not_A_Name"}}
    return "\n".join(str(error) for error in validate_workload(broken))


def _compile() -> str:
    compiled = plan_object(JOBSET).compile()
    return manifests.to_yaml([*compiled.objects(), compiled.source])


def _place() -> str:
    return json.dumps(place(request_from_plan(plan_object(JOBSET)), CLUSTER).to_dict(), sort_keys=True)


WORK: dict[str, Callable[[], str]] = {"builder": _build, "validate": _validate, "compile": _compile, "place": _place}


@pytest.mark.parametrize("name", list(WORK), ids=list(WORK))
def test_sixteen_threads_give_the_single_threaded_result(name: str) -> None:
    work = WORK[name]
    alone = work()
    with ThreadPoolExecutor(THREADS) as pool:
        results = list(pool.map(lambda _: work(), range(THREADS * ROUNDS)))
    assert alone
    assert results == [alone] * (THREADS * ROUNDS)


def _mapping(tmp_path: Path, suffix: str) -> Path:
    text = (
        (CRD / "worker-pool.mapping.yaml")
        .read_text()
        .replace('"{$.metadata.name}-pool"', f'"{{$.metadata.name}}-{suffix}"')
    )
    path = tmp_path / f"{suffix}.yaml"
    path.write_text(text)
    return path


def test_two_mappings_for_one_kind_are_used_side_by_side_from_sixteen_threads(tmp_path: Path) -> None:
    mappings = [_mapping(tmp_path, "pool"), _mapping(tmp_path, "other")]
    source = tmp_path / "input.yaml"
    source.write_text((CRD / "worker-pool.in.yaml").read_text() + PRIORITY_CLASS)

    def run(i: int) -> tuple[str, str]:
        out, err = io.StringIO(), io.StringIO()
        argv = ["place", str(source), "--mapping", str(mappings[i % 2]), *PLACE_ARGS]
        code = main(argv, out, err)
        assert code in (0, 1), err.getvalue()
        return ("pool", "other")[i % 2], json.loads(out.getvalue())["groups"][0]["name"]

    with ThreadPoolExecutor(THREADS) as pool:
        results = list(pool.map(run, range(THREADS * ROUNDS)))
    assert [name.split("-")[1] for _, name in results] == [suffix for suffix, _ in results]
    assert adapter_for("compute.example.com/v1", "WorkerPool") is None  # no run's mapping outlives it


def test_a_scoped_registry_adds_adapters_without_changing_the_default(tmp_path: Path) -> None:
    before = [type(adapter).__name__ for adapter in current_registry().registered()]
    with scoped_registry() as mine:
        register_mapping(_mapping(tmp_path, "pool"))
        inside = adapter_for("compute.example.com/v1", "WorkerPool")
    assert (type(inside).__name__, mine.adapter_for("compute.example.com/v1", "WorkerPool") is inside) == (
        "CRDAdapter",
        True,
    )
    assert [type(adapter).__name__ for adapter in current_registry().registered()] == before


def test_a_registry_of_ones_own_holds_only_what_it_is_given() -> None:
    only: Any = Registry([JobSetAdapter()])
    with scoped_registry(only):
        found = [adapter_for("jobset.x-k8s.io/v1alpha2", "JobSet"), adapter_for("batch/v1", "Job")]
    assert [type(adapter).__name__ if adapter else None for adapter in found] == ["JobSetAdapter", None]
