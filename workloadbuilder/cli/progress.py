"""A one-line activity indicator for long work, shown only to a person watching a terminal.

``Progress(stderr)`` draws ``| reading nodes.json (2.1s)`` on the stream
while a ``step`` runs, redrawn by a background thread, and erases it when
the step ends. It draws nothing when the stream is not a terminal (a pipe, a
file, a test's ``StringIO``), nor for a step shorter than ``delay``, so
scripts and quick runs see byte-identical output. Its own control sequences
(``\\r``, ``ESC [K``) go to the stream under the command's escaping
(``terminal.raw_stream``); the label (a file name) is escaped as every other
line is.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO

from workloadbuilder._internal.gofmt import go_escaped
from workloadbuilder.cli.terminal import raw_stream

__all__ = ["Progress"]

_FRAMES = "|/-\\"
_ERASE = "\r\x1b[K"


class Progress:
    """Steps of long work, each shown as a spinner with its elapsed time on a terminal.

    Args:
        stream: where to draw (the command's stderr).
        delay: seconds a step runs before its first frame is drawn.
        interval: seconds between frames.
        clock: the time source (``time.monotonic``; tests pass their own).

    Example:
        >>> import io
        >>> progress = Progress(io.StringIO())  # not a terminal: silent
        >>> with progress.step("reading cluster.json"):
        ...     progress.tick()
        >>> progress.stream.getvalue()
        ''
    """

    def __init__(
        self,
        stream: TextIO,
        *,
        delay: float = 0.5,
        interval: float = 0.1,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream = stream
        self.delay = delay
        self.interval = interval
        self.clock = clock
        self.enabled = _is_terminal(stream)
        self._lock = threading.Lock()
        self._label: str | None = None
        self._started = 0.0
        self._frame = 0
        self._drawn = False

    @contextmanager
    def step(self, label: str) -> Iterator[None]:
        """Show ``label`` while the block runs (on a terminal), and erase it afterwards."""
        if not self.enabled:
            yield
            return
        with self._lock:
            self._label, self._started, self._frame, self._drawn = label, self.clock(), 0, False
        stop = threading.Event()
        ticker = threading.Thread(target=self._run, args=(stop,), name="workloadbuilder-progress", daemon=True)
        ticker.start()
        try:
            yield
        finally:
            stop.set()
            ticker.join()
            with self._lock:
                if self._drawn:
                    raw_stream(self.stream).write(_ERASE)
                    raw_stream(self.stream).flush()
                self._label = None

    def tick(self) -> None:
        """Draw the current step's next frame (the background thread calls this; so may tests)."""
        with self._lock:
            if self._label is None:
                return
            elapsed = self.clock() - self._started
            spinner = _FRAMES[self._frame % len(_FRAMES)]
            self._frame += 1
            label = go_escaped(self._label).replace("\n", "\\n")  # a file name, on the spinner's one line
            raw_stream(self.stream).write(f"\r{spinner} {label} ({elapsed:.1f}s)\x1b[K")
            raw_stream(self.stream).flush()
            self._drawn = True

    def _run(self, stop: threading.Event) -> None:
        if stop.wait(self.delay):
            return
        while True:
            self.tick()
            if stop.wait(self.interval):
                return


def _is_terminal(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False
