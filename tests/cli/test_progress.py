"""The activity indicator (cli/progress.py): drawn on a terminal only, redrawn from the background, then erased."""

from __future__ import annotations

import io
import threading

import pytest

from workloadbuilder.cli.progress import Progress


class Terminal(io.StringIO):
    """A stream that says it is a terminal, and tells when something was written."""

    def __init__(self) -> None:
        super().__init__()
        self.written = threading.Event()

    def isatty(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.written.set()
        return super().write(text)


class Clock:
    def __init__(self, *times: float) -> None:
        self.times = list(times)

    def __call__(self) -> float:
        return self.times.pop(0)


@pytest.mark.parametrize(
    ("stream", "ticks", "expected"),
    [
        (io.StringIO(), 2, ""),
        (Terminal(), 0, ""),
        (Terminal(), 1, "\r| reading nodes.json (0.0s)\x1b[K\r\x1b[K"),
        (Terminal(), 2, "\r| reading nodes.json (0.0s)\x1b[K\r/ reading nodes.json (1.5s)\x1b[K\r\x1b[K"),
    ],
    ids=["piped-stays-quiet", "quick-step-draws-nothing", "one-frame-then-erased", "frames-count-the-time"],
)
def test_progress_draws_on_a_terminal_only(stream, ticks, expected):
    progress = Progress(stream, delay=3600, clock=Clock(10.0, 10.0, 11.5))
    with progress.step("reading nodes.json"):
        for _ in range(ticks):
            progress.tick()
    progress.tick()  # no step running: nothing to draw
    assert stream.getvalue() == expected


def test_progress_redraws_from_the_background_while_a_step_runs():
    stream = Terminal()
    progress = Progress(stream, delay=0, interval=0.01)
    with progress.step("placing (complete)"):
        assert stream.written.wait(10)
    assert stream.getvalue().startswith("\r| placing (complete) (")
    assert stream.getvalue().endswith("\x1b[K\r\x1b[K")


def test_a_closed_stream_is_not_a_terminal():
    stream = io.StringIO()
    stream.close()
    assert Progress(stream).enabled is False
