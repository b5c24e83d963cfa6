"""The generated table of the code points Go's ``strconv.IsPrint`` accepts, checked against Unicode itself."""

import bisect
import itertools
import unicodedata

import pytest

from workloadbuilder._internal.isprint import BOUNDS, UNICODE_VERSION


def _printable(code: int) -> bool:
    return bisect.bisect_right(BOUNDS, code) % 2 == 1


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def test_table_is_for_unicode_15() -> None:
    assert UNICODE_VERSION == "15.0.0"


def test_table_bounds_are_sorted_and_disjoint() -> None:
    assert len(BOUNDS) % 2 == 0
    assert all(a < b for a, b in itertools.pairwise(BOUNDS))


def test_the_ranges_start_at_the_space_and_end_inside_unicode() -> None:
    assert BOUNDS[:2] == (0x20, 0x7F)
    assert BOUNDS[-1] <= 0x110000


@pytest.mark.parametrize(
    ("code", "printable"),
    [
        (0x1F, False),
        (0x20, True),
        (0x7E, True),
        (0x7F, False),
        (0xA0, False),
        (0xA1, True),
        (0xAD, False),
        (0x3000, False),
        (0xE000, False),
        (0xD800, False),
        (0x1F6DC, True),
        (0x2EBF0, False),
        (0x10FFFF, False),
    ],
    ids=[
        "unit-separator",
        "space",
        "tilde",
        "del",
        "no-break-space",
        "inverted-exclamation",
        "soft-hyphen",
        "ideographic-space",
        "private-use",
        "surrogate",
        "wireless-new-in-15.0",
        "cjk-ext-i-new-in-15.1",
        "max-rune",
    ],
)
def test_a_code_point_is_printable_exactly_when_go_says_so(code: int, printable: bool) -> None:
    assert _printable(code) is printable


@pytest.mark.skipif(
    _version(unicodedata.unidata_version) > _version(UNICODE_VERSION),
    reason=f"the host's Unicode {unicodedata.unidata_version} assigns characters Go's {UNICODE_VERSION} tables lack",
)
def test_every_character_the_host_assigns_is_printable_exactly_when_it_is_a_graphic_or_the_space() -> None:
    # strconv.IsPrint: categories L, M, N, P, S and U+0020. Characters the host's older Unicode does not
    # assign (category Cn) are left out: 15.0 assigned some of them.
    wrong = [
        f"U+{code:04X}"
        for code in range(0x110000)
        if (category := unicodedata.category(chr(code))) != "Cn"
        and _printable(code) != (category[0] in "LMNPS" or code == 0x20)
    ]
    assert wrong == []
