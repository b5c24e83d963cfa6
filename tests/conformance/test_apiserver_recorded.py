"""Every create and update recorded from Go apiserver validation gives Go's error list here, item for item."""

from __future__ import annotations

from typing import Any

import pytest
from apiserver_recorded import load, recorded_triples, refused_before_validation, replay, triples

AGREED = load("agreed.jsonl")
REPRODUCERS = load("reproducers.jsonl")


def _validated(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [case for case in cases if not refused_before_validation(case)]


@pytest.mark.parametrize("case", _validated(AGREED), ids=[c["id"] for c in _validated(AGREED)])
def test_agreed_case_gives_gos_errors(case: dict[str, Any]) -> None:
    assert triples(replay(case)) == recorded_triples(case)


@pytest.mark.parametrize("case", _validated(REPRODUCERS), ids=[c["id"] for c in _validated(REPRODUCERS)])
def test_reproducer_gives_gos_errors(case: dict[str, Any]) -> None:
    assert triples(replay(case)) == recorded_triples(case)


REFUSED = [case for case in AGREED + REPRODUCERS if refused_before_validation(case)]


@pytest.mark.parametrize("case", REFUSED, ids=[c["id"] for c in REFUSED])
def test_refused_before_validation_is_validated_offline_without_raising(case: dict[str, Any]) -> None:
    """Offline there is no stored resourceVersion nor URL to refuse on: the request is simply validated."""
    assert triples(replay(case)) == []


def test_case_files_hold_every_recorded_case() -> None:
    counts = (len(AGREED), len(REPRODUCERS), len(REFUSED))
    assert counts == (400, 33, 1)


def test_every_family_of_the_issue_is_covered() -> None:
    families = {case["family"] for case in AGREED + REPRODUCERS}
    wanted = {
        "meta.ownerReferences",
        "meta.finalizers",
        "upd.meta.finalizers",
        "meta.generateName",
        "upd.meta.namespace",
        "upd.meta.generation",
        "ratchet.meta.name",
        "ratchet.meta.generation",
        "status",
        "wl.depth",
        "tmpl.comp.children",
        "grp.workloadRef",
        "double",
        "upd.meta.resourceVersion",
    }
    assert wanted <= families
