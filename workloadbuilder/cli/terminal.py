"""The command's stdout and stderr as a terminal may get them: every character ``strconv.IsPrint`` refuses escaped.

Server messages, object names, file names and migrate notes reach the
output as they were given; one of them holding ESC, NUL, U+0085, U+2028, a
lone surrogate or U+202E would move the cursor, recolour, end a line or
reorder the text on a person's terminal (or fail to encode). ``app.main``
wraps both streams in an :class:`EscapedStream`, so one rule holds for every
line any command prints: such a character is written as Go's
``strconv.Quote`` writes it (``\\x1b``, ``\\x00``, ``\\u0085``, ``\\u2028``,
``\\ufffd``, ``\\u202e``), the line feed and every printable character (é,
日本) as they are. The machine-readable outputs (``-o json``, ``-o yaml``,
junit, tap, github) already escape such characters in their own syntax, so
the rule leaves them byte for byte as they are (it changes only what it
refuses, and its own output holds nothing it refuses).

The progress spinner's own control sequences go to :attr:`EscapedStream.raw`.
"""

from __future__ import annotations

from typing import Any, TextIO

from workloadbuilder._internal.gofmt import go_escaped

__all__ = ["EscapedStream", "raw_stream"]


class EscapedStream:
    """A text stream whose ``write`` escapes what a terminal must not get raw (``gofmt.go_escaped``).

    Args:
        raw: the stream written to (``sys.stdout``, a test's ``StringIO``).

    Example:
        >>> import io
        >>> stream = EscapedStream(io.StringIO())
        >>> _ = stream.write("pod \\x1b[2Jé\\u202e\\n")
        >>> print(stream.raw.getvalue(), end="")
        pod \\x1b[2Jé\\u202e
    """

    def __init__(self, raw: TextIO) -> None:
        self.raw = raw

    def write(self, text: str) -> int:
        """Write ``text`` escaped; returns the length of ``text`` (as ``TextIO.write`` counts what it was given)."""
        self.raw.write(go_escaped(text))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        self.raw.flush()

    def isatty(self) -> bool:
        try:
            return bool(self.raw.isatty())
        except (AttributeError, ValueError):  # no isatty, or a closed stream
            return False

    def __getattr__(self, name: str) -> Any:  # encoding, fileno, closed, getvalue ...: the raw stream's
        return getattr(self.raw, name)


def raw_stream(stream: TextIO) -> TextIO:
    """The stream under an :class:`EscapedStream` (for control sequences of our own), or ``stream`` itself."""
    return stream.raw if isinstance(stream, EscapedStream) else stream
