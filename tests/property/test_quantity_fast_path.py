"""The short path for common quantity forms gives exactly what the full apimachinery scanner gives.

``resource_millis`` reads ``"110"``, ``"191450m"`` and ``"2001321736Ki"``
without the scanner; on every string it accepts, its answer must equal the
full parser's (rounded as kube-scheduler rounds), and every string it
declines must go to the full parser.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workloadbuilder.placement.k8s import quantity
from workloadbuilder.placement.k8s.quantity import QuantityError
from workloadbuilder.placement.k8s.resources import valid_millis

SUFFIXES = ["", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "n", "u", "e3", "E-2", "i", "mi"]
DIGITS = st.text(alphabet="0123456789", min_size=0, max_size=22)
QUANTITY = st.builds(
    lambda sign, digits, point, suffix: f"{sign}{digits}{point}{suffix}",
    st.sampled_from(["", "", "", "+", "-"]),
    DIGITS,
    st.sampled_from(["", "", "", ".", ".5"]),
    st.sampled_from(SUFFIXES),
) | st.text(alphabet="0123456789mkKMGTEi.+-e٣ ", max_size=12)


def _full(is_cpu: bool, text: str) -> int | None:
    """What the full scanner makes of ``text``, in millis (``None`` where it rejects it)."""
    try:
        nanos = quantity._parse(text)
    except QuantityError:
        return None
    return quantity._millis(is_cpu, nanos)


@settings(max_examples=500)
@given(QUANTITY, st.booleans())
def test_short_path_agrees_with_the_full_parser(text: str, is_cpu: bool) -> None:
    short = quantity._common_millis(is_cpu, text)
    if short is not None:
        assert short == _full(is_cpu, text)


COMMON = [
    ("110", False, 110_000),
    ("0", True, 0),
    ("000", False, 0),
    ("191450m", True, 191_450),
    ("1m", False, 1000),  # a thousandth of a byte rounds up to one
    ("1001m", False, 2000),
    ("2001321736Ki", False, 2001321736 * 1024 * 1000),
    ("64Gi", True, 64 * 2**30 * 1000),
    ("3k", False, 3_000_000),
    ("999999999999999999Ti", False, (2**63 - 1) * 1000),  # capped as the full parser caps it
    ("999999999999999999", True, 999999999999999999 * 1000),
]


@pytest.mark.parametrize(
    ("text", "is_cpu", "millis"), COMMON, ids=[f"{t}-{'cpu' if c else 'bytes'}" for t, c, _ in COMMON]
)
def test_common_forms(text: str, is_cpu: bool, millis: int) -> None:
    assert quantity._common_millis(is_cpu, text) == millis
    assert _full(is_cpu, text) == millis


DECLINED = [
    "",
    "1.5",
    "+1",
    "-1",
    "1e3",
    "1Pi",
    "1Ei",
    "1P",
    "1n",
    "1u",
    "1mi",
    "Ki",
    "m",
    "٣",
    "1 ",
    "1_000",
    "1" * 19,
]


@pytest.mark.parametrize("text", DECLINED, ids=[repr(t) for t in DECLINED])
def test_other_forms_go_to_the_full_parser(text: str) -> None:
    assert quantity._common_millis(False, text) is None


# -- whole columns ---------------------------------------------------------------


def _one_by_one(resource: str, texts: list[object]) -> list[int] | None:
    """``column_millis`` as the node-by-node reader reads a column: ``valid_millis`` of each (``None`` if one is)."""
    amounts = [valid_millis(resource, text) for text in texts]
    return None if None in amounts else [amount for amount in amounts if amount is not None]


RESOURCES = st.sampled_from(["cpu", "memory", "nvidia.com/gpu"])
ODD: list[object] = ["1.5Gi", "7", "7m", "1" * 19, "٣", "", "Ki", "-1", "+1", "1e3", "x", 5, None]


@st.composite
def one_form_columns(draw: st.DrawFn) -> list[object]:
    """Distinct-looking strings of one common form (digits, then one suffix), sometimes with one odd entry."""
    suffix = draw(st.sampled_from(["", "m", "k", "Ki", "Mi", "Gi", "Ti", "T", "i", "P"]))
    numbers = draw(st.lists(st.text(alphabet="0123456789", min_size=1, max_size=19), min_size=1, max_size=80))
    column: list[object] = [digits + suffix for digits in numbers]
    if draw(st.booleans()):
        column.insert(draw(st.integers(0, len(column))), draw(st.sampled_from(ODD)))
    return column


@settings(max_examples=400)
@given(RESOURCES, one_form_columns())
def test_a_column_of_one_form_reads_as_each_string_alone(resource: str, column: list[object]) -> None:
    assert quantity.column_millis(resource, column) == _one_by_one(resource, column)


@settings(max_examples=300)
@given(RESOURCES, st.lists(QUANTITY | st.sampled_from(ODD), max_size=40))
def test_a_column_of_any_strings_reads_as_each_string_alone(resource: str, column: list[object]) -> None:
    assert quantity.column_millis(resource, column) == _one_by_one(resource, column)


@settings(max_examples=200)
@given(RESOURCES, st.lists(st.sampled_from(["110", "8", "0", "191450m", "64Gi", "1.5", "-1", "x"]), max_size=300))
def test_a_column_of_few_repeated_strings_reads_as_each_string_alone(resource: str, column: list[object]) -> None:
    assert quantity.column_millis(resource, column) == _one_by_one(resource, column)


COLUMNS = [
    ("cpu", ["96", "7910m"], [96_000, 7_910]),
    ("memory", ["1m", "1001m"], [1000, 2000]),
    ("cpu", ["999999999999999999Ti", "1Ti"], [(2**63 - 1) * 1000, 2**40 * 1000]),
    ("memory", ["535315479Ki"] * 3 + ["1Ki"], [535315479 * 1024 * 1000] * 3 + [1024 * 1000]),
    ("memory", [], []),
    ("memory", ["1Ki", "1 Ki"], None),
    ("cpu", ["110", 110], None),
]


@pytest.mark.parametrize(
    ("resource", "column", "millis"),
    COLUMNS,
    ids=["mixed-suffixes", "milli-bytes", "capped", "repeated", "empty", "space", "number"],
)
def test_columns(resource: str, column: list[object], millis: list[int] | None) -> None:
    assert quantity.column_millis(resource, column) == millis
    assert _one_by_one(resource, column) == millis
