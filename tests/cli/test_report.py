"""Validation reports (cli/report.py): JUnit XML and TAP stay readable whatever the names, files and messages hold."""

from __future__ import annotations

import random

import junitparser
import pytest
from tap.parser import Parser

from workloadbuilder.adapters.document_reports import ObjectReport
from workloadbuilder.adapters.sourced import Notice
from workloadbuilder.cli.report import render, summary_line
from workloadbuilder.field import ErrorList, ErrorType, FieldError, FieldPath

PROFILE = "Kubernetes 1.37, feature gates: all"

ALPHABET = "ab-./#\\ <>&\"'\n\r\t\x00\x1b\x7f\u0085\u2028é漢\U0001f600\ud800:,%"
"""Characters a file name, an object's name or a bad value may hold that the formats must not be broken by."""


def hostile(rng: random.Random) -> str:
    return "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 12)))


def verdicts(seed: int) -> list[ObjectReport]:
    """A seeded mix of valid, invalid, skipped and warned-about objects with hostile names and values."""
    rng = random.Random(seed)
    made = []
    for number in range(1, rng.randint(2, 9)):
        source, name = hostile(rng), hostile(rng)
        state = rng.choice(["valid", "invalid", "skipped", "warned"])
        errors = ErrorList()
        notices: list[Notice] = []
        if state == "invalid":
            for _ in range(rng.randint(1, 3)):
                errors.append(FieldError(ErrorType.INVALID, FieldPath("metadata", "name"), hostile(rng), hostile(rng)))
        if state in ("skipped", "warned"):
            notices.append(Notice("skipped" if state == "skipped" else "lossy", f"{source}: {hostile(rng)}"))
        made.append(ObjectReport(source, number, "PodGroup", name, errors, notices, checked=state != "skipped"))
    return made


SEEDS = [0, 1, 2, 3, 4, 5, 6, 7]


@pytest.mark.parametrize("seed", SEEDS, ids=[f"seed-{seed}" for seed in SEEDS])
def test_junit_parses_back_to_one_case_per_object(seed: int) -> None:
    made = verdicts(seed)
    report = junitparser.JUnitXml.fromstring(render(made, "junit", profile=PROFILE))
    cases = [case for suite in report for case in suite]
    assert len(cases) == report.tests == len(made)
    assert report.failures == sum(1 for v in made if v.errors)
    assert report.skipped == sum(1 for v in made if not v.checked)
    assert sorted(case.is_passed for case in cases) == sorted(v.checked and not v.errors for v in made)


@pytest.mark.parametrize("seed", SEEDS, ids=[f"seed-{seed}" for seed in SEEDS])
def test_tap_parses_back_to_one_test_per_object(seed: int) -> None:
    made = verdicts(seed)
    text = render(made, "tap", profile=PROFILE)
    lines = list(Parser().parse_text(text))
    tests = [line for line in lines if line.category == "test"]
    assert [line.category for line in lines if line.category not in ("test", "diagnostic")] == ["version", "plan"]
    assert [(t.number, t.ok, t.skip) for t in tests] == [
        (i, not v.errors, not v.checked) for i, v in enumerate(made, start=1)
    ]
    assert text.endswith(f"# {summary_line(made, PROFILE)}\n")
    for test, verdict in zip(tests, made, strict=True):
        if verdict.errors:
            assert test.yaml_block["errors"] == list(dict.fromkeys(str(error) for error in verdict.errors))


def test_the_summary_says_one_object_and_many_objects() -> None:
    one = [ObjectReport("a.yaml", 1, "Job", "j")]
    assert summary_line(one, PROFILE) == "1 object: 1 valid, 0 invalid, 0 skipped (Kubernetes 1.37, feature gates: all)"
    assert summary_line([], "") == "0 objects: 0 valid, 0 invalid, 0 skipped"


def test_a_tap_description_has_no_hash_nor_line_break() -> None:
    verdict = ObjectReport("a#b\\.yaml", 1, "Job", "j\nk\u2028", checked=False, notices=[Notice("skipped", "x # y")])
    line = render([verdict], "tap").splitlines()[2]
    assert line == r"ok 1 - a\x23b\\.yaml (document 1) Job/j\nk\u2028 # SKIP x \x23 y"
    [test] = [parsed for parsed in Parser().parse_text(line) if parsed.category == "test"]
    assert (test.skip, test.directive.reason) == (True, r"x \x23 y")
