"""How ``doctor`` runs (cli/run_doctor.py): its flags checked before any read, and every string of an answer scrubbed.

The reads themselves, against a stand-in apiserver, are tested in tests/doctor/ and tests/cli/test_doctor.py.
"""

from __future__ import annotations

import argparse
import io
import re

import pytest

from workloadbuilder.cli import run_doctor
from workloadbuilder.cli.commands import doctor
from workloadbuilder.cli.errors import UsageError
from workloadbuilder.doctor.transport import Redactor
from workloadbuilder.errors import WorkloadBuilderError


def parsed(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    doctor.add_options(parser)
    return parser.parse_args(list(argv))


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["job/x", "--connect-timeout", "0"],
            "--connect-timeout: expected a number of seconds above 0 and up to 86400, got '0'",
        ),
        (
            ["job/x", "--request-timeout", "86401"],
            "--request-timeout: expected a number of seconds above 0 and up to 86400, got '86401'",
        ),
        (["job/x", "--timeout", "nan"], "--timeout: expected a number of seconds above 0 and up to 86400, got 'nan'"),
        (
            ["job/x", "--max-response-mib", "0"],
            "--max-response-mib: expected a whole number of MiB from 1 to 1048576, got '0'",
        ),
        (
            ["job/x", "--max-response-mib", "1.5"],
            "--max-response-mib: expected a whole number of MiB from 1 to 1048576, got '1.5'",
        ),
        (
            ["job/x", "--in-cluster", "--context", "c"],
            "--in-cluster and --context cannot be given together: the in-cluster configuration is no kubeconfig",
        ),
        (
            ["job/x", "--in-cluster", "--kubeconfig", "k"],
            "--in-cluster and --kubeconfig cannot be given together: the in-cluster configuration is no kubeconfig",
        ),
    ],
    ids=[
        "zero-seconds",
        "over-a-day",
        "not-a-number",
        "zero-mib",
        "fractional-mib",
        "in-cluster-with-context",
        "in-cluster-with-kubeconfig",
    ],
)
def test_a_bad_flag_is_a_usage_error_before_any_read(argv: list[str], message: str) -> None:
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(UsageError) as raised:
        run_doctor.doctor_command(parsed(*argv), out, err)
    assert (str(raised.value), out.getvalue(), err.getvalue()) == (message, "", "")


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("frob/x", "unknown kind 'frob': doctor reads Job, JobSet, LeaderWorkerSet, PodGroup, TrainJob, Workload"),
        ("job", "'job': expected KIND/NAME, e.g. jobset/llm-pretrain"),
    ],
    ids=["unknown-kind", "no-name"],
)
def test_a_bad_target_is_refused_before_any_read(target: str, message: str) -> None:
    with pytest.raises(WorkloadBuilderError, match=f"^{re.escape(message)}$"):
        run_doctor.doctor_command(parsed(target), io.StringIO(), io.StringIO())


def test_every_string_of_an_answer_is_scrubbed_keys_and_items_alike() -> None:
    redact = Redactor(["s3cr3t-token"])
    answer = {"reason": "bearer s3cr3t-token refused", "s3cr3t-token": [1, ("s3cr3t-token",)], "ok": True}
    assert run_doctor._scrubbed(answer, redact) == {
        "reason": "bearer <redacted> refused",
        "<redacted>": [1, ["<redacted>"]],
        "ok": True,
    }
