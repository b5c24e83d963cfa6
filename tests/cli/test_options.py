"""The options every placing command shares (cli/options.py): the cluster, ``--claim``, ``--strategy``, ``-o``."""

from __future__ import annotations

import argparse

import pytest

from workloadbuilder.cli.errors import UsageError
from workloadbuilder.cli.options import (
    ANSWER_OUTPUTS,
    add_placing_options,
    add_planning_options,
    check_output,
    dump_answer,
    parse_claims,
)
from workloadbuilder.placement.request.model import DeviceRequest


def flags(add: object, *args: object) -> tuple[list[str], argparse.Namespace]:
    parser = argparse.ArgumentParser()
    add(parser, *args)  # type: ignore[operator]
    names = [action.option_strings[-1] for action in parser._actions if action.dest != "help"]
    return names, parser.parse_args([])


CLUSTER = ["--cluster", "--pods", "--groups", "--generate", "--claim"]


def test_place_has_render_and_explain_has_not() -> None:
    placing = [*CLUSTER, "--strategy", "--preempt", "--timeout", "--output"]
    assert flags(add_placing_options, True)[0] == [*placing, "--render", "--force"]
    names, defaults = flags(add_placing_options, False)
    assert names == placing
    assert (defaults.strategy, defaults.timeout, defaults.output, defaults.preempt) == (
        "kube-scheduler",
        None,
        "text",
        False,
    )


def test_planning_options_take_the_commands_own_timeout() -> None:
    names, defaults = flags(add_planning_options, 60.0)
    assert names == ["--timeout", "--render", "--force", "--strategy", "--output"]
    assert (defaults.timeout, defaults.strategy, defaults.output) == (60.0, "kube-scheduler", "text")


def test_parse_claims_reads_a_count_or_one() -> None:
    assert parse_claims(["pair=rdma.example.com:2", "gpu=gpu.nvidia.com", "gpu=gpu.example.com:8"]) == {
        "pair": DeviceRequest("rdma.example.com", 2),
        "gpu": DeviceRequest("gpu.example.com", 8),
    }


@pytest.mark.parametrize(
    "spec",
    ["gpu", "=gpu.nvidia.com", "gpu=", "gpu=c:0", "gpu=c:-1", "gpu=c:x", "gpu=c:\u0663", "gpu=c:1234567890"],
    ids=["no-class", "no-name", "empty-class", "zero", "negative", "not-a-number", "non-ascii-digit", "ten-digits"],
)
def test_a_malformed_claim_is_one_usage_line(spec: str) -> None:
    with pytest.raises(UsageError) as raised:
        parse_claims([spec])
    assert str(raised.value) == f"--claim: expected NAME=DEVICECLASS or NAME=DEVICECLASS:COUNT, got {spec!r}"


def test_check_output_takes_the_answer_outputs_only() -> None:
    assert ANSWER_OUTPUTS == ("text", "json", "yaml")
    for output in ANSWER_OUTPUTS:
        check_output(output)
    with pytest.raises(UsageError) as raised:
        check_output("name")
    assert str(raised.value) == "--output: 'name' is not one of text, json, yaml"


@pytest.mark.parametrize(
    ("output", "text"),
    [("json", '{\n  "b": 1,\n  "a": [\n    1,\n    "x"\n  ]\n}\n'), ("yaml", "b: 1\na:\n- 1\n- x\n")],
    ids=["json", "yaml"],
)
def test_dump_answer_keeps_the_keys_order(output: str, text: str) -> None:
    assert dump_answer({"b": 1, "a": [1, "x"]}, output) == text
