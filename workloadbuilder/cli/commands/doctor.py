"""``workloadbuilder doctor KIND/NAME``: parse the flags, read the live state, diagnose, print.

Exit codes: 0 healthy, 1 a problem found, 2 bad input (an unknown kind, an
object that does not exist, an unreadable kubeconfig; one line on stderr).
"""

from __future__ import annotations

import argparse
import json
from typing import Any, TextIO

from kubernetes.client.exceptions import ApiException
from kubernetes.config import ConfigException, list_kube_config_contexts, new_client_from_config

from workloadbuilder.cli.errors import UsageError
from workloadbuilder.doctor import diagnose, parse_target, read_live

__all__ = ["add_options", "doctor_command"]


def add_options(sub: argparse.ArgumentParser) -> None:
    """The ``doctor`` arguments and flags."""
    sub.add_argument(
        "target", metavar="KIND/NAME", help="a Job, JobSet, LeaderWorkerSet, TrainJob, Workload or PodGroup"
    )
    sub.add_argument("-n", "--namespace", default=None, help="the object's namespace (default: the context's)")
    sub.add_argument("--context", default=None, help="the kubeconfig context to use")
    sub.add_argument("--kubeconfig", default=None, help="the kubeconfig file (default: $KUBECONFIG or ~/.kube/config)")
    sub.add_argument("--output", choices=["text", "json"], default="text")


def doctor_command(args: Any, out: TextIO, err: TextIO) -> int:
    """Run ``doctor``; returns 0 when healthy and 1 when a problem was found."""
    kind, name = parse_target(args.target)
    try:
        api_client = new_client_from_config(  # type: ignore[no-untyped-call]
            config_file=args.kubeconfig, context=args.context
        )
    except (ConfigException, OSError, ValueError) as bad:
        raise UsageError(f"kubeconfig: {bad}") from None
    namespace = args.namespace or _context_namespace(args.kubeconfig, args.context)
    try:
        with api_client:
            state = read_live(api_client, kind, name, namespace)
    except ApiException as refused:
        raise UsageError(f"the apiserver refused a read: {refused.status} {refused.reason}") from None
    diagnosis = diagnose(state)
    if args.output == "json":
        out.write(json.dumps(diagnosis.to_dict(), indent=2) + "\n")
    else:
        out.write(diagnosis.text)
    return 0 if diagnosis.healthy else 1


def _context_namespace(kubeconfig: str | None, context: str | None) -> str:
    """The namespace of the kubeconfig's (current or named) context, ``default`` when it names none."""
    contexts, current = list_kube_config_contexts(config_file=kubeconfig)  # type: ignore[no-untyped-call]
    chosen = next((entry for entry in contexts if entry.get("name") == context), current) if context else current
    namespace = (chosen or {}).get("context", {}).get("namespace")
    return namespace if isinstance(namespace, str) and namespace else "default"
