"""What a kubeconfig points at, read with bounds: its files, its exec credential plugin, its header values.

A kubeconfig can name any path and any program. ``doctor`` reads each file it
names (the kubeconfig itself, ``tokenFile``, ``certificate-authority``,
``client-certificate``, ``client-key``) only when it is a regular file, and at
most ``MAX_CREDENTIAL_BYTES`` of it: a FIFO, a device (``/dev/zero``) or a
directory is refused without blocking on it (the file is opened
non-blocking, then checked with ``fstat`` on the open descriptor). An exec
credential plugin runs in its own process group, with stdin closed when the
terminal is not interactive, and is killed with its whole group when it
outlives the time bound or prints more than ``MAX_PLUGIN_OUTPUT_BYTES``. A
value that is to become an HTTP header is refused when it holds a control
character, before any request is sent.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import stat
import subprocess
import time
import unicodedata
from collections.abc import Mapping, Sequence

from workloadbuilder.errors import WorkloadBuilderError

__all__ = [
    "MAX_CREDENTIAL_BYTES",
    "MAX_PLUGIN_OUTPUT_BYTES",
    "PluginFailure",
    "UnreadableFile",
    "header_problem",
    "read_regular_file",
    "run_plugin",
]

MAX_CREDENTIAL_BYTES = 4 << 20
"""Bytes a file a kubeconfig names may have (a token, a CA bundle, a certificate, a key)."""

MAX_PLUGIN_OUTPUT_BYTES = 1 << 20
"""Bytes an exec credential plugin may print (an ExecCredential with a certificate and a key is about 10 kB)."""

_KINDS = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class UnreadableFile(WorkloadBuilderError):
    """A file ``read_regular_file`` refused; ``reason`` says why in words a message can end with."""

    def __init__(self, reason: str) -> None:
        self.reason = reason  # e.g. "is not a regular file (a FIFO)"
        super().__init__(reason)


def read_regular_file(path: str, limit: int = MAX_CREDENTIAL_BYTES) -> bytes:
    """The bytes of ``path`` when it is a regular file of at most ``limit`` bytes.

    Raises:
        UnreadableFile: no such file, a directory, not a regular file (a FIFO, a device, a socket),
            larger than ``limit``, or unreadable (its reason is the system's, e.g. ``Permission denied``).
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        descriptor = os.open(path, flags)
    except FileNotFoundError:
        raise UnreadableFile("no such file") from None
    except IsADirectoryError:
        raise UnreadableFile("is a directory") from None
    except OSError as err:
        raise UnreadableFile(f"cannot be read: {err.strerror or type(err).__name__}") from None
    try:
        mode = os.fstat(descriptor).st_mode
        if stat.S_ISDIR(mode):
            raise UnreadableFile("is a directory")
        if not stat.S_ISREG(mode):
            kind = next((name for test, name in _KINDS if test(mode)), "not a file")
            raise UnreadableFile(f"is not a regular file ({kind})")
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(descriptor, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise UnreadableFile(f"is larger than {_size(limit)}")
        return b"".join(chunks)
    except OSError as err:
        raise UnreadableFile(f"cannot be read: {err.strerror or type(err).__name__}") from None
    finally:
        os.close(descriptor)


def _size(limit: int) -> str:
    return f"{limit >> 20} MiB" if limit >= 1 << 20 and not limit % (1 << 20) else f"{limit} bytes"


class PluginFailure(WorkloadBuilderError):
    """An exec credential plugin that did not give its output; ``problem`` says why (never its output)."""

    def __init__(self, problem: str) -> None:
        self.problem = problem  # e.g. "did not finish within 3 s (--timeout): stopped"
        super().__init__(problem)


def run_plugin(
    argv: Sequence[str],
    env: Mapping[str, str],
    timeout: float,
    limit: int = MAX_PLUGIN_OUTPUT_BYTES,
    interactive: bool = False,
    cwd: str | None = None,
    bound: str | None = None,
) -> str:
    """Run an exec credential plugin and return what it printed on stdout (UTF-8).

    The plugin runs in a new session (its own process group). Its stderr is
    discarded (inherited when ``interactive``, as its stdin is then; stdin is
    closed otherwise). When it runs past ``timeout`` seconds or prints more
    than ``limit`` bytes, its whole process group is killed. ``bound`` is how
    a message names the time bound (``"3 s (--timeout)"``; the seconds by default).

    Raises:
        PluginFailure: it cannot be started, ran too long, printed too much, exited non-zero,
            or printed what is not UTF-8.
    """
    try:
        process = subprocess.Popen(
            list(argv),
            stdin=None if interactive else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=None if interactive else subprocess.DEVNULL,
            env=dict(env),
            cwd=cwd,
            start_new_session=True,
        )
    except FileNotFoundError:
        raise PluginFailure("cannot be run: no such file") from None
    except PermissionError:
        raise PluginFailure("cannot be run: permission denied") from None
    except OSError as err:
        raise PluginFailure(f"cannot be run: {(err.strerror or type(err).__name__).lower()}") from None
    assert process.stdout is not None
    deadline = time.monotonic() + timeout
    late = f"did not finish within {bound or f'{timeout:g} s'}: stopped"
    output = bytearray()
    problem: str | None = None
    try:
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout, selectors.EVENT_READ)
            while problem is None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    problem = late
                    break
                if not selector.select(remaining):
                    continue
                chunk = os.read(process.stdout.fileno(), 1 << 16)
                if not chunk:
                    break
                output += chunk
                if len(output) > limit:
                    problem = f"printed more than {_size(limit)}: stopped"
            while problem is None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    problem = late
                    break
                try:
                    process.wait(remaining)
                    break
                except subprocess.TimeoutExpired:
                    continue
    finally:
        if problem is not None or process.poll() is None:
            _kill_group(process)
        process.stdout.close()
    if problem is not None:
        raise PluginFailure(problem)
    if process.returncode != 0:
        raise PluginFailure(f"exited with status {process.returncode}")
    try:
        return output.decode("utf-8")
    except UnicodeDecodeError:
        raise PluginFailure("printed something that is not UTF-8") from None


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """Kill the plugin's whole process group, then reap the plugin itself."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        process.kill()
    process.wait()


_NAMES = {"\t": "a tab", "\n": "a line feed", "\r": "a carriage return", "\x1b": "an escape", "\x00": "a NUL"}


def header_problem(value: str) -> str | None:
    """What makes ``value`` unfit for an HTTP header, without showing it; ``None`` when it is fit.

    A control character (C0, DEL, C1, a line or paragraph separator) is refused, named by its code
    point, and so is a character outside Latin-1 (HTTP header values are bytes).
    """
    for character in value:
        code = ord(character)
        if code < 0x20 or 0x7F <= code < 0xA0 or unicodedata.category(character) in ("Zl", "Zp", "Cc"):
            name = _NAMES.get(character, "a control character")
            return f"has {name} (U+{code:04X})"
        if code > 0xFF:
            return f"has a character outside Latin-1 (U+{code:04X})"
    return None
