"""Go's %q: which characters print raw follows Go's strconv.IsPrint over Unicode 15.0.0, not the host Python."""

import pytest

from workloadbuilder import FieldError, FieldPath
from workloadbuilder._internal.gofmt import go_is_print, go_quote
from workloadbuilder.field import ErrorType

# (id, text, what Go 1.21-1.26 strconv.Quote gives)
QUOTES = [
    ("wireless-u1f6dc-new-in-15.0", "\U0001f6dc", '"\U0001f6dc"'),
    ("shaking-face-u1fae8-new-in-15.0", "\U0001fae8", '"\U0001fae8"'),
    ("kannada-u0cf3-new-in-15.0", "\u0cf3", '"\u0cf3"'),
    ("cjk-ext-h-u31350-new-in-15.0", "\U00031350", '"\U00031350"'),
    ("cjk-ext-i-u2ebf0-new-in-15.1-escaped", "\U0002ebf0", '"\\U0002ebf0"'),
    ("u1fae9-new-in-16.0-escaped", "\U0001fae9", '"\\U0001fae9"'),
    ("unassigned-u0378", "\u0378", '"\\u0378"'),
    ("private-use-ue000", "\ue000", '"\\ue000"'),
    ("soft-hyphen-u00ad", "\u00ad", '"\\u00ad"'),
    ("no-break-space-u00a0", "\u00a0", '"\\u00a0"'),
    ("inverted-exclamation-u00a1", "\u00a1", '"\u00a1"'),
    ("ideographic-space-u3000", "\u3000", '"\\u3000"'),
    ("combining-acute-u0301-mark", "e\u0301", '"e\u0301"'),
    ("lone-surrogate-is-replacement", "\ud800", '"\\ufffd"'),
    ("del", "\x7f", '"\\x7f"'),
    ("tab-named-escape", "\t", '"\\t"'),
    ("space", " ", '" "'),
    ("max-rune-unassigned", "\U0010ffff", '"\\U0010ffff"'),
]


@pytest.mark.parametrize(("text", "want"), [q[1:] for q in QUOTES], ids=[q[0] for q in QUOTES])
def test_go_quote_follows_go_unicode_15_tables(text: str, want: str) -> None:
    assert go_quote(text) == want


def test_field_error_renders_new_character_raw() -> None:
    error = FieldError(ErrorType.INVALID, FieldPath("name"), "\U0001f6dc", "bad")
    assert str(error) == 'name: Invalid value: "\U0001f6dc": bad'


def test_latin1_matches_go_fast_path() -> None:
    # strconv.IsPrint hard-codes Latin-1: U+0020..U+007E and U+00A1..U+00FF except the soft hyphen.
    go = [0x20 <= c <= 0x7E or (0xA1 <= c <= 0xFF and c != 0xAD) for c in range(0x100)]
    assert [go_is_print(c) for c in range(0x100)] == go
