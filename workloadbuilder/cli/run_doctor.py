"""How ``workloadbuilder doctor KIND/NAME`` runs: check the flags, read the live state, diagnose, print.

Exit codes: 0 healthy, 1 a problem found, 2 bad input: an unknown kind, an
object that does not exist, an unusable kubeconfig or in-cluster configuration
(``--in-cluster``, with ``--kubeconfig`` or ``--context`` a usage error), or a read that failed (a
server that cannot be reached, is silent past a timeout, refuses, redirects,
sends too much or sends what is not JSON of the expected shape); one line on
stderr that names the file or the server and path, never a credential.
"""

from __future__ import annotations

import argparse
import math
import time
from typing import Any, TextIO

from workloadbuilder._internal.gofmt import capped
from workloadbuilder.cli.errors import UsageError
from workloadbuilder.cli.options import dump_answer
from workloadbuilder.doctor.diagnose import diagnose
from workloadbuilder.doctor.incluster import load_in_cluster
from workloadbuilder.doctor.kubeconfig import load_context
from workloadbuilder.doctor.live import parse_target, read_live
from workloadbuilder.doctor.transport import ApiReader, ReadLimits, Redactor
from workloadbuilder.errors import WorkloadBuilderError

__all__ = ["doctor_command"]

_MAX_SECONDS = 86_400.0
_MAX_MIB = 1 << 20
_UNTRUSTED = "TLS failed: the server's certificate is not trusted"


def _seconds(text: str, flag: str) -> float:
    """A flag's positive, finite number of seconds, up to a day."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and 0 < value <= _MAX_SECONDS):
        raise UsageError(
            f"{flag}: expected a number of seconds above 0 and up to {_MAX_SECONDS:g}, got {capped(repr(text))}"
        )
    return value


def _mib(text: str, flag: str) -> int:
    """A flag's positive whole number of MiB."""
    if not (len(text) <= 8 and text.isascii() and text.isdigit() and 0 < int(text) <= _MAX_MIB):
        raise UsageError(f"{flag}: expected a whole number of MiB from 1 to {_MAX_MIB}, got {capped(repr(text))}")
    return int(text)


def doctor_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run ``doctor``; returns 0 when healthy and 1 when a problem was found."""
    kind, name = parse_target(args.target)
    limits = ReadLimits(
        connect_timeout=_seconds(args.connect_timeout, "--connect-timeout"),
        request_timeout=_seconds(args.request_timeout, "--request-timeout"),
        total_timeout=_seconds(args.timeout, "--timeout"),
        max_response_bytes=_mib(args.max_response_mib, "--max-response-mib") << 20,
    )
    started = time.monotonic()  # --timeout counts from here: an exec credential plugin's run is part of it
    if args.in_cluster:
        if args.kubeconfig is not None or args.context is not None:
            given = "--kubeconfig" if args.kubeconfig is not None else "--context"
            raise UsageError(
                f"--in-cluster and {given} cannot be given together: the in-cluster configuration is no kubeconfig"
            )
        context = load_in_cluster()
    else:
        context = load_context(args.kubeconfig, args.context, timeout=limits.total_timeout)
    redact = context.redact
    namespace = args.namespace or context.namespace
    try:
        with ApiReader(context.configuration, limits, redact, started=started) as reader:
            state = read_live(reader, kind, name, namespace)
        diagnosis = diagnose(state)
    except WorkloadBuilderError as problem:  # every message is redacted where it is made; this is a last net
        message = redact.scrub(str(problem))
        if context.ca_problem and _UNTRUSTED in message:
            message += f" (the system's roots were trusted: {context.ca_problem})"
        problem.args = (message,)
        raise
    if args.output != "text":
        out.write(dump_answer(_scrubbed(diagnosis.to_dict(), redact), args.output))
    else:
        out.write(redact.scrub(diagnosis.text))
    return 0 if diagnosis.healthy else 1


def _scrubbed(value: Any, redact: Redactor) -> Any:
    """Every string of a JSON value with the credentials replaced (the server may echo one in a message)."""
    if isinstance(value, str):
        return redact.scrub(value)
    if isinstance(value, dict):
        return {redact.scrub(str(key)): _scrubbed(item, redact) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_scrubbed(item, redact) for item in value]
    return value
