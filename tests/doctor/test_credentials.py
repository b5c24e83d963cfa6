"""Bounded reads of what a kubeconfig names (``doctor.credentials``): files, exec plugins, header values."""

from __future__ import annotations

import os
import socket
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from workloadbuilder.doctor.credentials import (
    MAX_CREDENTIAL_BYTES,
    MAX_PLUGIN_OUTPUT_BYTES,
    PluginFailure,
    UnreadableFile,
    header_problem,
    read_regular_file,
    run_plugin,
)
from workloadbuilder.errors import WorkloadBuilderError

ENV = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}


def test_the_bounds() -> None:
    assert MAX_CREDENTIAL_BYTES == 4 * 2**20
    assert MAX_PLUGIN_OUTPUT_BYTES == 2**20


def refused(path: str | Path, limit: int = MAX_CREDENTIAL_BYTES) -> str:
    with pytest.raises(UnreadableFile) as caught:
        read_regular_file(str(path), limit)
    assert isinstance(caught.value, WorkloadBuilderError)
    assert str(caught.value) == caught.value.reason
    return caught.value.reason


def test_a_regular_file_is_read_up_to_its_limit(tmp_path: Path) -> None:
    token = tmp_path / "token"
    token.write_bytes(b"x" * 10)
    assert read_regular_file(str(token), limit=10) == b"x" * 10
    assert refused(token, limit=9) == "is larger than 9 bytes"
    big = tmp_path / "big"
    big.write_bytes(b"\0" * (2 << 20))
    assert refused(big, limit=1 << 20) == "is larger than 1 MiB"
    assert read_regular_file(str(tmp_path / "big")) == b"\0" * (2 << 20)
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    assert read_regular_file(str(empty)) == b""


def test_what_is_not_a_regular_file_is_refused_without_blocking(tmp_path: Path) -> None:
    assert refused(tmp_path / "absent") == "no such file"
    assert refused(tmp_path) == "is a directory"
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # no writer: a blocking open would wait for ever
    assert refused(fifo) == "is not a regular file (a FIFO)"
    assert refused("/dev/null") == "is not a regular file (a character device)"
    sock = tmp_path / "s"
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(sock))
        assert refused(sock) == "cannot be read: No such device or address"
    finally:
        server.close()


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_an_unreadable_file_gives_the_systems_reason(tmp_path: Path) -> None:
    secret = tmp_path / "key"
    secret.write_bytes(b"k")
    secret.chmod(0)
    assert refused(secret) == "cannot be read: Permission denied"


def plugin(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def failure(argv: list[str], timeout: float = 10.0, **options: object) -> str:
    with pytest.raises(PluginFailure) as caught:
        run_plugin(argv, ENV, timeout, **options)  # type: ignore[arg-type]
    assert str(caught.value) == caught.value.problem
    return caught.value.problem


def test_a_plugins_stdout_is_returned() -> None:
    assert run_plugin(plugin('print(\'{"kind": "ExecCredential"}\')'), ENV, 10) == '{"kind": "ExecCredential"}\n'
    assert run_plugin(plugin("import sys; sys.stderr.write('noise')"), ENV, 10) == ""


def test_a_plugin_sees_only_the_given_environment_and_folder(tmp_path: Path) -> None:
    code = "import os; print(sorted(k for k in os.environ if k == 'ONLY' or k == 'HOME'), os.getcwd())"
    out = run_plugin(plugin(code), {**ENV, "ONLY": "1"}, 10, cwd=str(tmp_path))
    assert out == f"['ONLY'] {tmp_path.resolve()}\n"


def test_a_plugins_stdin_is_closed_when_not_interactive() -> None:
    assert run_plugin(plugin("import sys; print(repr(sys.stdin.read()))"), ENV, 10) == "''\n"


def test_plugin_failures() -> None:
    assert failure(["/nonexistent/plugin"]) == "cannot be run: no such file"
    assert failure(["/dev/null"]) == "cannot be run: permission denied"
    assert failure(plugin("raise SystemExit(3)")) == "exited with status 3"
    assert failure(plugin("import sys; sys.stdout.buffer.write(b'\\xff')")) == "printed something that is not UTF-8"
    assert failure(plugin("print('x' * 100)"), limit=50) == "printed more than 50 bytes: stopped"
    assert failure(plugin("import sys; sys.stdout.write('x' * (3 << 20))"), limit=1 << 20) == (
        "printed more than 1 MiB: stopped"
    )


def test_a_plugin_that_runs_too_long_is_killed_with_its_group(tmp_path: Path) -> None:
    marker = tmp_path / "child"
    child = tmp_path / "child.py"
    child.write_text(f"import time\ntime.sleep(3)\nopen({str(marker)!r}, 'w').close()\n")
    # The plugin starts a child in its own process group that would write the marker after 3 s, then sleeps.
    code = f"import subprocess, sys, time; subprocess.Popen([sys.executable, {str(child)!r}]); time.sleep(60)"
    assert failure(plugin(code), timeout=0.5) == "did not finish within 0.5 s: stopped"
    assert failure(plugin("import time; time.sleep(60)"), timeout=0.2, bound="3 s (--timeout)") == (
        "did not finish within 3 s (--timeout): stopped"
    )
    time.sleep(3.5)
    assert not marker.exists()


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("Bearer abc.def-ghi", None),
        ("caf\u00e9", None),
        ("a\tb", "has a tab (U+0009)"),
        ("a\nb", "has a line feed (U+000A)"),
        ("a\rb", "has a carriage return (U+000D)"),
        ("\x1b[31m", "has an escape (U+001B)"),
        ("\x00", "has a NUL (U+0000)"),
        ("\x7f", "has a control character (U+007F)"),
        ("\x85", "has a control character (U+0085)"),
        ("a\u2028b", "has a control character (U+2028)"),
        ("a\u2029b", "has a control character (U+2029)"),
        ("tok\u20acen", "has a character outside Latin-1 (U+20AC)"),
        ("\U0001f600", "has a character outside Latin-1 (U+1F600)"),
    ],
    ids=[
        "token",
        "latin-1",
        "tab",
        "line-feed",
        "carriage-return",
        "escape",
        "nul",
        "del",
        "c1",
        "line-separator",
        "paragraph-separator",
        "euro",
        "emoji",
    ],
)
def test_header_problem(value: str, problem: str | None) -> None:
    assert header_problem(value) == problem


@given(st.text(max_size=20))
def test_a_header_value_is_fit_exactly_when_it_is_printable_latin_1(value: str) -> None:
    """The reference: HTTP's field-value of visible Latin-1 characters and spaces (RFC 9110 field-vchar, obs-text)."""
    fit = all(0x20 <= ord(c) < 0x7F or 0xA0 <= ord(c) <= 0xFF for c in value)
    assert (header_problem(value) is None) == fit
