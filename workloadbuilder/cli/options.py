"""The options every placing command shares: which cluster to place on, ``--claim``, ``--strategy`` and ``-o``."""

from __future__ import annotations

import argparse
import re
from collections.abc import Sequence
from typing import Any

from workloadbuilder.cli.answer_dump import dumped
from workloadbuilder.cli.deadline import Deadline
from workloadbuilder.cli.errors import UsageError
from workloadbuilder.cli.flags import add_output
from workloadbuilder.placement import DEFAULT_TIMEOUT, STRATEGIES
from workloadbuilder.placement.request.model import DeviceRequest

__all__ = [
    "ANSWER_OUTPUTS",
    "add_cluster_options",
    "add_output_option",
    "add_placing_options",
    "add_planning_options",
    "add_strategy_option",
    "check_output",
    "dump_answer",
    "parse_claims",
]

ANSWER_OUTPUTS = ("text", "json", "yaml")
"""What ``-o/--output`` of place, explain, capacity and simulate takes."""


def add_output_option(sub: argparse.ArgumentParser) -> None:
    """``-o/--output text|json|yaml`` (``ANSWER_OUTPUTS``), as every command declares it (``flags.add_output``)."""
    add_output(sub, ANSWER_OUTPUTS)


def add_strategy_option(sub: argparse.ArgumentParser) -> None:
    """``--strategy``: one of the placement strategies (``kube-scheduler``, the default, or ``complete``)."""
    sub.add_argument(
        "--strategy", default="kube-scheduler", help=" or ".join(STRATEGIES) + " (default: kube-scheduler)"
    )


def add_placing_options(sub: argparse.ArgumentParser, render: bool) -> None:
    """The cluster, strategy and output options of ``place`` and ``explain`` (``--render`` for place)."""
    add_cluster_options(sub)
    add_strategy_option(sub)
    sub.add_argument("--preempt", action="store_true", help="evict lower-priority work when that is what it takes")
    sub.add_argument(
        "--timeout",
        type=float,
        metavar="SECONDS",
        help="wall-clock bound of the whole command, reading and writing included (default: none, and"
        f" {DEFAULT_TIMEOUT:g} s for the complete strategy's searches); what the searches leave open is undecided",
    )
    add_output_option(sub)
    if render:
        sub.add_argument(
            "--render", metavar="FILE", help="draw the placement: FILE.svg, or FILE.html with the SVG inline"
        )
        sub.add_argument("--force", action="store_true", help="let --render overwrite an existing file")


def add_planning_options(sub: argparse.ArgumentParser, timeout: float) -> None:
    """What ``capacity`` and ``simulate`` share after their own options: ``--timeout`` (default ``timeout``
    seconds), ``--render FILE.svg``, ``--force``, ``--strategy`` and ``-o``."""
    sub.add_argument(
        "--timeout",
        type=float,
        default=timeout,
        metavar="SECONDS",
        help=f"wall-clock bound of the whole command, the complete strategy's searches included (default: {timeout:g});"
        " what it leaves open is reported as undecided",
    )
    sub.add_argument("--render", metavar="FILE.svg", help="draw the answer as an SVG chart")
    sub.add_argument("--force", action="store_true", help="let --render replace an existing file")
    add_strategy_option(sub)
    add_output_option(sub)


def check_output(output: str) -> None:
    """Refuse an ``--output`` the answer commands do not write.

    Raises:
        UsageError: not one of ``ANSWER_OUTPUTS``.
    """
    if output not in ANSWER_OUTPUTS:
        raise UsageError(f"--output: {output!r} is not one of {', '.join(ANSWER_OUTPUTS)}")


def dump_answer(data: Any, output: str, deadline: Deadline | None = None) -> str:
    """An answer's data as ``-o json`` (indented by 2) or ``-o yaml`` (the same keys, in the same order), made
    within ``deadline`` (``answer_dump.dumped``)."""
    return dumped(data, output, deadline)


def add_cluster_options(sub: argparse.ArgumentParser) -> None:
    """The options that say which cluster to place on (``--cluster``/``--pods``/``--groups`` or ``--generate``)
    and ``--claim``, shared by every command that places."""
    cluster = sub.add_argument_group("cluster (one of --cluster and --generate)")
    cluster.add_argument(
        "--cluster",
        metavar="FILE",
        help="`kubectl get nodes -o json` output (or one mixed List of nodes, pods, priority classes, budgets, "
        "groups and resource slices), or the compact YAML cluster format",
    )
    cluster.add_argument(
        "--pods", metavar="FILE", help="`kubectl get pods -A -o json` output (with a kubectl --cluster)"
    )
    cluster.add_argument(
        "--groups", metavar="FILE", help="`kubectl get podgroups,compositepodgroups -A -o json` output, for preemption"
    )
    cluster.add_argument(
        "--generate",
        metavar="KEY=VALUE,...",
        help="a generated cluster: zones, blocks (per zone), racks (per block), hosts (per rack), "
        "gpus, cpu, memory, storage (ephemeral-storage), pods (per node), os, arch (node labels), seed, "
        "used (share of nodes partly used)",
    )
    sub.add_argument(
        "--claim",
        action="append",
        metavar="NAME=DEVICECLASS[:COUNT]",
        help="what a group resource claim (or claim template) NAME needs; repeatable",
    )


def parse_claims(specs: Sequence[str]) -> dict[str, DeviceRequest]:
    """``--claim NAME=DEVICECLASS[:COUNT]`` options: what each named claim (or claim template) needs.

    Raises:
        UsageError: a malformed option.

    Example:
        >>> claims = parse_claims(["rdma-pair=rdma.example.com:2", "gpu=gpu.nvidia.com"])
        >>> claims["rdma-pair"], claims["gpu"].count
        (DeviceRequest(device_class='rdma.example.com', count=2), 1)
    """
    claims: dict[str, DeviceRequest] = {}
    for spec in specs:
        name, sep, rest = spec.partition("=")
        device_class, _, count = rest.partition(":")
        bad_count = bool(count) and (not re.fullmatch(r"[0-9]{1,9}", count) or int(count) < 1)  # ASCII digits only
        if not sep or not name or not device_class or bad_count:
            raise UsageError(f"--claim: expected NAME=DEVICECLASS or NAME=DEVICECLASS:COUNT, got {spec!r}")
        claims[name] = DeviceRequest(device_class, int(count) if count else 1)
    return claims
