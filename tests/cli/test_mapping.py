"""``--mapping FILE`` (cli/mapping.py): a CRD mapping registered for the run, or one line naming what is wrong."""

from __future__ import annotations

from pathlib import Path

import pytest

from workloadbuilder.adapters import scoped_registry
from workloadbuilder.adapters.base import adapter_for
from workloadbuilder.cli.errors import UsageError
from workloadbuilder.cli.mapping import register_mapping_file
from workloadbuilder.errors import WorkloadBuilderError

ROOT = Path(__file__).resolve().parents[2]
WORKER_POOL = ROOT / "tests" / "data" / "adapters" / "crd" / "worker-pool.mapping.yaml"  # compute.example.com/v1


def test_a_mapping_gives_its_custom_resource_an_adapter_in_the_scope_alone() -> None:
    with scoped_registry():
        assert adapter_for("compute.example.com/v1", "WorkerPool") is None
        register_mapping_file(str(WORKER_POOL))
        assert adapter_for("compute.example.com/v1", "WorkerPool") is not None
    assert adapter_for("compute.example.com/v1", "WorkerPool") is None


@pytest.mark.parametrize(
    ("text", "problems"),
    [
        ("- 1\n", "(the mapping): Input should be a valid dictionary or instance of CRDMapping"),
        ("{}\n", "apiVersion: Field required; kind: Field required; groups: Field required"),
        ("apiVersion: x\n", "kind: Field required; groups: Field required"),
    ],
    ids=["a-list", "empty", "fields-missing"],
)
def test_an_invalid_mapping_is_one_line_naming_each_problem_by_its_place(
    tmp_path: Path, text: str, problems: str
) -> None:
    path = tmp_path / "mapping.yaml"
    path.write_text(text)
    with scoped_registry(), pytest.raises(UsageError) as raised:
        register_mapping_file(str(path))
    assert str(raised.value) == f"{path}: not a valid CRD mapping: {problems}"


def test_a_missing_file_is_named() -> None:
    with pytest.raises(UsageError) as raised:
        register_mapping_file("no/such/mapping.yaml")
    assert str(raised.value) == "no/such/mapping.yaml: no such file"


def test_a_file_that_is_not_yaml_is_the_readers_one_line(tmp_path: Path) -> None:
    path = tmp_path / "mapping.yaml"
    path.write_text("a: [\n")
    with scoped_registry(), pytest.raises(WorkloadBuilderError) as raised:
        register_mapping_file(str(path))
    assert str(raised.value) == (
        f"{path} (document 1): invalid YAML at line 2, column 1: while parsing a flow node, expected the node "
        "content, but found '<stream end>'"
    )
