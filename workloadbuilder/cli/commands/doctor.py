"""``workloadbuilder doctor KIND/NAME``: why a live gang is pending: reason, evidence, next step."""

from __future__ import annotations

import argparse
from typing import TextIO

from workloadbuilder.cli.flags import add_namespace, add_output

__all__ = ["HELP", "add_options", "run"]

HELP = "why a live gang is pending: reason, evidence, next step"
"""The command's one-line help, in ``workloadbuilder --help`` and atop its own."""


def add_options(parser: argparse.ArgumentParser) -> None:
    """The target, ``-n``, the kubeconfig options or ``--in-cluster``, ``-o`` and the bounds of the reads."""
    from workloadbuilder.doctor.transport import (
        DEFAULT_CONNECT_TIMEOUT,
        DEFAULT_MAX_RESPONSE_MIB,
        DEFAULT_REQUEST_TIMEOUT,
        DEFAULT_TOTAL_TIMEOUT,
    )

    parser.add_argument(
        "target", metavar="KIND/NAME", help="a Job, JobSet, LeaderWorkerSet, TrainJob, Workload or PodGroup"
    )
    add_namespace(parser, "the object's namespace (default: the context's)")
    parser.add_argument("--context", default=None, help="the kubeconfig context to use")
    parser.add_argument(
        "--kubeconfig", default=None, help="the kubeconfig file (default: $KUBECONFIG or ~/.kube/config)"
    )
    parser.add_argument(
        "--in-cluster",
        action="store_true",
        help="use the pod's service account instead of a kubeconfig, as client-go's in-cluster config: "
        "$KUBERNETES_SERVICE_HOST and $KUBERNETES_SERVICE_PORT, the token, ca.crt and namespace of "
        "/var/run/secrets/kubernetes.io/serviceaccount ($WORKLOADBUILDER_SERVICE_ACCOUNT_DIR names another "
        "folder); not with --kubeconfig or --context",
    )
    add_output(parser, ("text", "json", "yaml"))
    bounds = parser.add_argument_group("bounds of the reads (docs/robustness.md)")
    bounds.add_argument(
        "--connect-timeout",
        metavar="SECONDS",
        default=str(DEFAULT_CONNECT_TIMEOUT),
        help=f"seconds to connect to the apiserver (default {DEFAULT_CONNECT_TIMEOUT:g})",
    )
    bounds.add_argument(
        "--request-timeout",
        metavar="SECONDS",
        default=str(DEFAULT_REQUEST_TIMEOUT),
        help=f"seconds one request may take, to its answer's last byte (default {DEFAULT_REQUEST_TIMEOUT:g})",
    )
    bounds.add_argument(
        "--timeout",
        metavar="SECONDS",
        default=str(DEFAULT_TOTAL_TIMEOUT),
        help=f"seconds all the reads may take together (default {DEFAULT_TOTAL_TIMEOUT:g})",
    )
    bounds.add_argument(
        "--max-response-mib",
        metavar="MIB",
        default=str(DEFAULT_MAX_RESPONSE_MIB),
        help=f"MiB one answer may have; a larger one is refused (default {DEFAULT_MAX_RESPONSE_MIB})",
    )


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Diagnose the live object; returns 0 when healthy and 1 when a problem was found."""
    from workloadbuilder.cli.run_doctor import doctor_command

    return doctor_command(args, out, err)
