"""``--timeout`` of ``place``, ``explain``, ``capacity`` and ``simulate``: one wall-clock bound for the whole command.

The bound starts when the command does. Reading the inputs, the engine's
work and writing the answer all count: the engine gets what is left of it,
less a share kept for writing the answer (``ANSWER_SHARE``), and reports what
that left open as undecided; a step the bound stops that has no undecided
answer to give (reading the inputs, kube-scheduler's cycles over thousands
of roots, writing a large answer) ends the command with one line, exit 2:

    error: did not finish within 3 s (--timeout): stopped while writing the answer (-o yaml)

The steps look at the clock between their pieces (``check``); ``enforced``
also stops whatever runs when the bound passes (a ``SIGALRM`` timer, in the
main thread of a system that has one), so that no step can outlast it.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

from workloadbuilder.cli.errors import UsageError

__all__ = ["ANSWER_SHARE", "Deadline", "TimeBoundReached"]

ANSWER_SHARE = 0.2
"""The share of ``--timeout`` the engine leaves for writing the answer (a large answer takes a while)."""


class TimeBoundReached(UsageError):
    """``--timeout`` passed in a step that has no undecided answer to give: one line, exit 2."""


class Deadline:
    """The ``--timeout`` of one command, counted from when it was made; ``None``: no bound (the engine's searches
    then get ``engine_default`` seconds each call).

    Examples:
        >>> now = iter([0.0, 0.5, 4.0]).__next__
        >>> bound = Deadline(3, clock=now)
        >>> bound.check("reading the inputs")  # at 0.5 s: in time
        >>> bound.check("writing")
        Traceback (most recent call last):
        ...
        workloadbuilder.cli.deadline.TimeBoundReached: did not finish within 3 s (--timeout): stopped while writing
    """

    def __init__(
        self, timeout: float | None, clock: Callable[[], float] = time.monotonic, engine_default: float = 60.0
    ) -> None:
        self.timeout = timeout
        self.engine_default = engine_default
        self.clock = clock
        self.started = clock()
        self.doing = "starting"
        self._armed = False

    def for_engine(self) -> float:
        """Seconds the engine may take: what is left, less ``ANSWER_SHARE`` of the bound kept for the answer (a
        millisecond at least, so that a search started now ends at once)."""
        if self.timeout is None:
            return self.engine_default
        return max(self.timeout * (1 - ANSWER_SHARE) - (self.clock() - self.started), 0.001)

    def check(self, doing: str) -> None:
        """Go on if there is time left; else stop the command, saying what it was ``doing``.

        Raises:
            TimeBoundReached: the bound has passed.
        """
        self.doing = doing
        if self.timeout is not None and self.clock() - self.started >= self.timeout:
            raise self._reached()

    def _reached(self) -> TimeBoundReached:
        bound = f"{self.timeout:g}" if self.timeout is not None else "-"
        return TimeBoundReached(f"did not finish within {bound} s (--timeout): stopped while {self.doing}")

    @contextmanager
    def enforced(self, doing: str) -> Iterator[None]:
        """Run the block, stopped where it is once the bound passes; the block's first step is ``doing``, and
        each ``check`` names the next, so that the message names the step the bound stopped.

        Where there is no ``SIGALRM`` timer to use (another thread than the
        main one, a system without one, or a handler someone else set), the
        block's own ``check`` calls are the bound.

        Raises:
            TimeBoundReached: the bound passed while the block ran.
        """
        self.check(doing)
        if self.timeout is None or not self._can_alarm():
            yield
            return
        previous = signal.signal(signal.SIGALRM, self._alarm)
        self._armed = True
        signal.setitimer(signal.ITIMER_REAL, max(self.timeout - (self.clock() - self.started), 0.001))
        try:
            yield
        except _Alarm as alarm:  # chained, so that --debug shows where the bound stopped the command
            raise self._reached() from alarm
        finally:
            self._armed = False
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)

    def _alarm(self, signum: int, frame: FrameType | None) -> None:
        if self._armed:  # once: the next check() stops code that caught and dropped it
            self._armed = False
            raise _Alarm

    @staticmethod
    def _can_alarm() -> bool:
        return (
            hasattr(signal, "setitimer")
            and threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGALRM) in (signal.SIG_DFL, None)
            and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
        )


class _Alarm(BaseException):
    """The bound passed: raised where the command is, past any ``except Exception``, and turned into
    ``TimeBoundReached`` by ``Deadline.enforced``."""
