"""The CLI's bad-input contract under mutated manifests, mappings, clusters and hostile text.

Every command, on any input: exit 0, 1 or 2; one ``error:`` line at most;
no traceback; the same output for the same input, run after run.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml
from fuzz_helpers import CASES, FUZZ, ROOT, assert_contract, dump_documents, hostile_texts, mutated_documents, run_cli
from hypothesis import given
from hypothesis import strategies as st

from workloadbuilder._internal.gofmt import go_escaped

GENERATE = "zones=1,blocks=1,racks=2,hosts=4"
CLUSTER = {
    "nodes": [
        {
            "name": f"n{i}",
            "labels": {"topology.kubernetes.io/zone": "z1", "kubernetes.io/hostname": f"n{i}"},
            "allocatable": {"cpu": "64", "memory": "256Gi", "nvidia.com/gpu": "8", "pods": "110"},
        }
        for i in range(4)
    ],
    "devicePools": [{"name": "p", "deviceClass": "gpu.example.com", "count": 4, "node": "n0"}],
}
MAPPING = ROOT / "tests" / "data" / "adapters" / "crd" / "worker-pool.mapping.yaml"
CUSTOM = ROOT / "tests" / "data" / "adapters" / "crd" / "worker-pool.in.yaml"

COMMANDS = [
    ("compile", ()),
    ("validate", ()),
    ("validate", ("--output", "json")),
    ("place", ("--generate", GENERATE)),
    ("explain", ("--generate", GENERATE)),
    ("migrate", ()),
]


def _contract(entry: str, *argv: str) -> None:
    CASES[entry] += 1
    first = run_cli(*argv)
    assert_contract(*first)
    assert run_cli(*argv) == first  # byte-identical on the same input


@pytest.mark.parametrize(("command", "extra"), COMMANDS, ids=[" ".join((c, *e)) for c, e in COMMANDS])
@FUZZ
@given(docs=mutated_documents())
def test_every_command_keeps_the_contract_on_mutated_manifests(
    tmp_path: Path, command: str, extra: tuple[str, ...], docs: list[dict[str, Any]]
) -> None:
    path = tmp_path / "input.yaml"
    path.write_text(dump_documents(docs), encoding="utf-8")
    _contract(f"cli {command}", command, str(path), *extra)


@FUZZ
@given(data=hostile_texts(), command=st.sampled_from(["validate", "compile", "migrate"]))
def test_hostile_text_is_one_line_never_a_traceback(tmp_path: Path, data: bytes, command: str) -> None:
    path = tmp_path / "input.yaml"
    path.write_bytes(data)
    _contract(f"cli {command} (hostile text)", command, str(path))


def _mutated_mapping() -> st.SearchStrategy[list[dict[str, Any]]]:
    return mutated_documents([[yaml.safe_load(MAPPING.read_text(encoding="utf-8"))]])


@FUZZ
@given(mapping=_mutated_mapping())
def test_a_mutated_mapping_is_one_line(tmp_path: Path, mapping: list[dict[str, Any]]) -> None:
    path = tmp_path / "mapping.yaml"
    path.write_text(dump_documents(mapping), encoding="utf-8")
    _contract("cli compile --mapping", "compile", str(CUSTOM), "--mapping", str(path))


@FUZZ
@given(cluster=mutated_documents([[CLUSTER]]))
def test_a_mutated_cluster_is_one_line(tmp_path: Path, cluster: list[dict[str, Any]]) -> None:
    path = tmp_path / "cluster.yaml"
    path.write_text(dump_documents(cluster), encoding="utf-8")
    job = ROOT / "tests" / "data" / "adapters" / "job" / "root-seed-8-workers.in.yaml"
    _contract("cli place --cluster", "place", str(job), "--cluster", str(path))


def test_the_cluster_seed_places(tmp_path: Path) -> None:
    """The cluster seed itself is good input, so its mutations probe the reader, not a broken seed."""
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump(copy.deepcopy(CLUSTER)), encoding="utf-8")
    job = ROOT / "tests" / "data" / "adapters" / "job" / "root-seed-8-workers.in.yaml"
    code, _, err = run_cli("place", str(job), "--cluster", str(path))
    assert (code, [line for line in err.splitlines() if line.startswith("error")]) == (0, [])


_TERMINAL_HOSTILE = st.text(
    alphabet=st.sampled_from(["\x1b", "\x00", "\x07", "\r", "\t", "\x7f", "\u0085", "\u2028", "\u202e", "\ud800"])
    | st.sampled_from(["a", "-", "[", "2", "J", "é", "日", "\n"]),
    min_size=1,
    max_size=12,
)
"""Text a server, a name or a file name may carry: control characters, bidi overrides, a lone surrogate, letters."""


@pytest.mark.parametrize(("command", "extra"), COMMANDS, ids=[" ".join((c, *e)) for c, e in COMMANDS])
@FUZZ
@given(docs=mutated_documents(), text=_TERMINAL_HOSTILE)
def test_no_command_prints_a_character_a_terminal_must_not_get(
    tmp_path: Path, command: str, extra: tuple[str, ...], docs: list[dict[str, Any]], text: str
) -> None:
    """Issue 38: with the text as an object's name and in the file's name, every line is already escaped."""
    metadata = docs[0].get("metadata") if isinstance(docs[0], dict) else None
    if isinstance(metadata, dict):
        metadata["name"] = text
    safe_name = "".join(ch for ch in text if ch not in "\x00\ud800/")
    path = tmp_path / f"in{safe_name}.yaml"
    path.write_text(dump_documents(docs), encoding="utf-8")
    CASES[f"cli {command} (terminal)"] += 1
    code, out, err = run_cli(command, str(path), *extra)
    assert_contract(code, out, err)
    assert go_escaped(out) == out, out
    assert go_escaped(err) == err, err
