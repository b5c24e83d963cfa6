"""The adapter registry: bundled adapters are loaded when their kind is first read; explicit registration wins."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from workloadbuilder.adapters import Registry, current_registry, scoped_registry
from workloadbuilder.adapters.base import BUNDLED


class _Fake:
    api_version = "batch/v1"
    kind = "Job"

    def plan(self, obj: Any, related: Any = ()) -> Any:
        raise NotImplementedError


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("pass", "[]"),
        ("adapters.adapter_for('batch/v1', 'Job')", "['job']"),
        ("adapters.adapter_for('jobset.x-k8s.io/v1alpha2', 'JobSet')", "['jobset']"),
        ("adapters.registered()", "['job', 'jobset', 'lws', 'trainer', 'volcano']"),
    ],
    ids=["import-loads-none", "a-job-loads-the-job-adapter", "a-jobset-loads-the-jobset-adapter", "listing-loads-all"],
)
def test_an_adapter_module_is_loaded_when_its_kind_is_first_read(code: str, expected: str) -> None:
    script = (
        "import sys, workloadbuilder.adapters as adapters\n"
        f"{code}\n"
        "names = ['job', 'jobset', 'lws', 'trainer', 'volcano']\n"
        "print([n for n in names if f'workloadbuilder.adapters.{n}' in sys.modules])\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout == expected + "\n"


def test_the_bundled_adapters_are_listed_in_order_and_each_is_its_modules() -> None:
    kinds = [(adapter.api_version, adapter.kind) for adapter in Registry(bundled=BUNDLED).registered()]
    assert kinds == list(BUNDLED)


def test_a_registered_adapter_wins_over_the_bundled_one_and_keeps_its_place() -> None:
    with scoped_registry() as mine:
        fake = mine.register(_Fake())
        assert mine.adapter_for("batch/v1", "Job") is fake
        assert [type(adapter).__name__ for adapter in mine.registered()][:2] == ["_Fake", "JobSetAdapter"]
    assert type(current_registry().adapter_for("batch/v1", "Job")).__name__ == "JobAdapter"


def test_a_copy_loads_on_its_own_and_an_unknown_kind_is_none() -> None:
    copy = Registry(bundled=BUNDLED).copy()
    assert type(copy.adapter_for("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet")).__name__ == "LeaderWorkerSetAdapter"
    assert copy.adapter_for("v1", "ConfigMap") is None
