"""``workloadbuilder doctor`` (cli/commands/doctor.py): its one-line help, the options it declares, and ``run``."""

from __future__ import annotations

import io
import re
from pathlib import Path

from workloadbuilder.cli.app import main
from workloadbuilder.cli.commands import doctor

ROOT = Path(__file__).resolve().parents[3]


def test_the_help_is_one_line_atop_the_commands_own() -> None:
    assert doctor.HELP == "why a live gang is pending: reason, evidence, next step"
    out = io.StringIO()
    assert main(["doctor", "--help"], stdout=out) == 0
    assert " ".join(out.getvalue().split("\n\n")[1].split()) == doctor.HELP


def test_add_options_declares_these_flags(options) -> None:
    assert options(doctor) == [
        ["-n", "--namespace"],
        ["--context"],
        ["--kubeconfig"],
        ["--in-cluster"],
        ["-o", "--output"],
        ["--connect-timeout"],
        ["--request-timeout"],
        ["--timeout"],
        ["--max-response-mib"],
    ]


def test_run_ends_a_bad_bound_in_one_line_exit_2_before_any_read() -> None:
    out, err = io.StringIO(), io.StringIO()
    assert main(["doctor", "job/trainer", "--timeout", "0"], stdout=out, stderr=err) == 2
    assert (out.getvalue(), err.getvalue()) == (
        "",
        "error: --timeout: expected a number of seconds above 0 and up to 86400, got '0'\n",
    )


def test_the_bounds_are_the_ones_docs_doctor_md_tabulates(options) -> None:
    table = (ROOT / "docs" / "doctor.md").read_text().split("\n| `--connect-timeout`", 1)[1].split("\n\n", 1)[0]
    tabulated = ["--connect-timeout", *re.findall(r"^\| `(--[\w-]+)`", table, re.MULTILINE)]
    assert tabulated == [strings[0] for strings in options(doctor)[-4:]]
