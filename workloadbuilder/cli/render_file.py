"""The file ``--render FILE`` writes, for every command that draws: checked before any work, written safely.

An existing file is kept unless ``--force``; a symbolic link is never
followed (not even with ``--force``): the drawing goes to FILE itself. Only
a regular file or a new path is written: a FIFO, a device or a socket is
refused before any work, and again when the file is opened (without
waiting, so a FIFO with no reader cannot hold the command).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from workloadbuilder._internal.gofmt import capped
from workloadbuilder.cli.errors import UsageError

__all__ = ["check_render_target", "write_render"]


def check_render_target(path: str, suffixes: tuple[str, ...], force: bool) -> str:
    """Refuse a name without one of ``suffixes``, a missing directory, a link, or an existing file without ``force``.

    Returns the name's suffix, lowercased.
    """
    suffix = Path(path).suffix.lower()
    shown = capped(path)
    if suffix not in suffixes:
        endings = " or ".join(dict.fromkeys(s for s in suffixes if s != ".htm"))
        raise UsageError(f"--render: {shown}: the file name must end in {endings}")
    try:
        if not Path(path).parent.is_dir():
            raise UsageError(f"--render: {shown}: no such directory")
        _check_existing(path, force)
    except OSError as problem:  # a name too long for the file system: the checks above let it through
        raise UsageError(f"--render: cannot write {shown}: {problem.strerror or problem}") from None
    return suffix


def write_render(path: str, text: str, force: bool) -> None:
    """Write ``text`` to ``path``, never through a link and over an existing file only with ``force``."""
    flags = os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    flags |= 0 if force else os.O_EXCL
    try:
        descriptor = os.open(path, flags, 0o644)
    except OSError as problem:
        _check_existing(path, force)  # the path changed since the start: say what it is now
        raise UsageError(f"--render: cannot write {capped(path)}: {problem.strerror or problem}") from None
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        os.close(descriptor)
        raise UsageError(f"--render: {path} is not a regular file; give a file's name or a new path")
    os.set_blocking(descriptor, True)
    os.ftruncate(descriptor, 0)  # truncated only once known to be a regular file
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        file.write(text)


def _check_existing(path: str, force: bool) -> None:
    if Path(path).is_symlink():
        raise UsageError(f"--render: {path} is a symbolic link; it is not followed: give the file itself")
    if Path(path).exists() and not Path(path).is_file():
        raise UsageError(f"--render: {path} is not a regular file; give a file's name or a new path")
    if Path(path).exists() and not force:
        raise UsageError(f"--render: {path} exists; --force overwrites it")
