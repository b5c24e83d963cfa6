"""Quantities parse exactly as apimachinery's ParseQuantity does, and read as the scheduler reads them."""

from __future__ import annotations

import pytest

from workloadbuilder.placement.k8s.quantity import (
    ERR_FORMAT_WRONG,
    ERR_NUMERIC,
    ERR_SUFFIX,
    QuantityError,
    format_millis,
    parse_nanos,
    resource_millis,
)

GI = 2**30
NANO = 10**9

PARSED = [
    ("500m", 500 * 10**6),
    ("64Gi", 64 * GI * NANO),
    ("1e3", 1000 * NANO),
    ("1E3", 1000 * NANO),
    ("1.5", 1500 * 10**6),
    ("1.5Gi", 1536 * 2**20 * NANO),
    (".5", 500 * 10**6),
    ("5.", 5 * NANO),
    ("+1", NANO),
    ("-1", -NANO),
    ("0", 0),
    ("00", 0),
    ("1n", 1),
    ("0.1n", 1),  # rounded up to the smallest unit
    ("0.1m", 100_000),
    ("1e-3", 10**6),
    ("1e-20", 1),
    ("1k", 1000 * NANO),
    ("12Mi", 12 * 2**20 * NANO),
    ("1Ki", 1024 * NANO),
    ("2E", 2 * 10**18 * NANO),
    ("8Ei", (2**63 - 1) * NANO),  # binary SI is capped at 2^63-1
    ("-", 0),  # the scanner reads an empty number as zero
    (".", 0),
    ("Gi", 0),
    ("1" * 5000, (2**63 - 1) * NANO),  # more digits than int() converts at once: read, and capped
    ("1" * 5000 + "e-4990", 1111111111111111112),  # 1111111111.111... cores: exact, rounded up to a nano
    ("0." + "0" * 5000 + "1", 1),
    ("1e" + "0" * 5000 + "5", 10**5 * NANO),  # leading zeros in the exponent
]

REJECTED = [
    ("", ERR_FORMAT_WRONG),
    ("abc", ERR_FORMAT_WRONG),
    ("1.2.3", ERR_FORMAT_WRONG),
    ("1Kb", ERR_FORMAT_WRONG),
    ("1e1.5", ERR_FORMAT_WRONG),
    (" 1", ERR_FORMAT_WRONG),
    ("1 ", ERR_FORMAT_WRONG),
    ("1e", ERR_SUFFIX),
    ("1e+", ERR_SUFFIX),
    ("1ii", ERR_SUFFIX),
    ("1Mi5", ERR_SUFFIX),
    ("1e" + "1" * 5000, ERR_SUFFIX),  # an exponent beyond int64
    ("--1", ERR_SUFFIX),
    ("Ei", ERR_NUMERIC),
    ("-Ei", ERR_NUMERIC),
]


def _id(text: str) -> str:
    return text[:8] + f"...{text[-8:]} ({len(text)} chars)" if len(text) > 24 else text or "empty"


@pytest.mark.parametrize(("text", "nanos"), PARSED, ids=[_id(text) for text, _ in PARSED])
def test_parse(text: str, nanos: int) -> None:
    assert parse_nanos(text) == nanos


@pytest.mark.parametrize(("text", "message"), REJECTED, ids=[_id(text) for text, _ in REJECTED])
def test_rejected_with_apimachinery_message(text: str, message: str) -> None:
    with pytest.raises(QuantityError) as err:
        parse_nanos(text)
    assert str(err.value) == message


def test_format_wrong_message_is_apimachinerys() -> None:
    assert (
        ERR_FORMAT_WRONG
        == "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
    )


MILLIS = [
    ("cpu", "500m", 500),
    ("cpu", "2", 2000),
    ("cpu", "1n", 1),  # MilliValue rounds up
    ("cpu", "1.0001", 1001),
    ("memory", "64Gi", 64 * GI * 1000),
    ("memory", "1.5", 2000),  # Value rounds up to a whole byte
    ("memory", "1m", 1000),
    ("nvidia.com/gpu", "8", 8000),
    ("pods", "110", 110_000),
    ("cpu", "1e100", (2**63 - 1) * 1000),  # saturates where Go would overflow
]


@pytest.mark.parametrize(("resource", "text", "millis"), MILLIS, ids=[f"{r}={t}" for r, t, _ in MILLIS])
def test_resource_millis(resource: str, text: str, millis: int) -> None:
    assert resource_millis(resource, text) == millis


FORMATTED = [
    ("cpu", 1500, "1500m"),
    ("cpu", 64000, "64"),
    ("memory", 512 * GI * 1000, "512Gi"),
    ("memory", 1536 * 2**20 * 1000, "1536Mi"),
    ("memory", 1000 * 1000, "1000"),
    ("nvidia.com/gpu", 0, "0"),
    ("hugepages-2Mi", 4 * 2**20 * 1000, "4Mi"),
]


@pytest.mark.parametrize(("resource", "millis", "text"), FORMATTED, ids=[f"{r}-{t}" for r, _, t in FORMATTED])
def test_format(resource: str, millis: int, text: str) -> None:
    assert format_millis(resource, millis) == text
