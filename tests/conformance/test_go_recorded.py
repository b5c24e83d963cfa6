"""Every case recorded from the real Go workloadbuilder gives the same errors, strings and objects here."""

from __future__ import annotations

import json
import pathlib
from typing import Any

import pytest
from go_recorded import differences, normalize, replay

DATA = pathlib.Path(__file__).resolve().parent.parent / "data" / "go-recorded"


def _load(name: str) -> list[dict[str, Any]]:
    with open(DATA / name, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


AGREED = _load("agreed.jsonl")
REPRODUCERS = _load("reproducers.jsonl")


@pytest.mark.parametrize("vector", AGREED, ids=[v["case"]["id"] for v in AGREED])
def test_agreed_case_matches_go(vector: dict[str, Any]) -> None:
    assert differences(vector["go"], replay(vector["case"])) == []


@pytest.mark.parametrize("vector", REPRODUCERS, ids=[v["case"]["id"] for v in REPRODUCERS])
def test_reproducer_matches_go(vector: dict[str, Any]) -> None:
    assert differences(vector["go"], replay(vector["case"])) == []


def test_case_files_hold_every_recorded_case() -> None:
    assert (len(AGREED), len(REPRODUCERS)) == (450, 10)


NORMALIZATIONS = [
    ("null-lists-dropped", {"spec": {"resourceClaims": None}}, {"spec": {}}, ({"spec": {}}, {"spec": {}})),
    ("our-type-meta-dropped", {"spec": {}}, {"apiVersion": "v", "kind": "K", "spec": {}}, ({"spec": {}}, {"spec": {}})),
    ("go-empty-status-dropped", {"status": {}}, {}, ({}, {})),
    ("go-non-empty-status-kept", {"status": {"x": 1}}, {}, ({"status": {"x": 1}}, {})),
    ("type-meta-kept-when-go-has-it", {"kind": "K"}, {"kind": "K"}, ({"kind": "K"}, {"kind": "K"})),
]


@pytest.mark.parametrize(("go", "port", "want"), [n[1:] for n in NORMALIZATIONS], ids=[n[0] for n in NORMALIZATIONS])
def test_normalize_drops_only_serialization_differences(go: Any, port: Any, want: Any) -> None:
    assert normalize(go, port) == want
