"""``-o yaml`` and ``-o json`` of an answer (``cli.answer_dump``): PyYAML's bytes for seeded hostile data, no raw
control character, the same data read back, and the ``--timeout`` bound while writing."""

from __future__ import annotations

import json
import math
import random
from typing import Any

import pytest
import yaml

from workloadbuilder._internal.gofmt import go_escaped
from workloadbuilder.cli.answer_dump import dumped
from workloadbuilder.cli.deadline import Deadline, TimeBoundReached

HOSTILE = ["\x1b[31m", "\x00", "\x85", "\u2028", "\u202e", "\ud800", "\t", "\n", "é", "漢", "\U0001f600", "\ufeff"]
SPECIAL = [" ", ":", "#", "'", '"', "!", "&", "*", "?", "{", "[", "%", "@", "`", "|", ">", ",", "-", "."]
WORDS = ["true", "no", "null", "~", "1e3", "0x1f", "2026-01-01", "12:30", ".inf", "=", "-", "on", "1_000", "<<", ""]


def _text(rng: random.Random) -> str:
    if rng.random() < 0.2:
        return rng.choice(WORDS)
    pool = "abcxyz0123_/" * 3 + "".join(SPECIAL)
    text = "".join(rng.choice(pool) for _ in range(rng.choice([1, 3, 8, 30, 90, 200])))
    if rng.random() < 0.3:
        at = rng.randrange(len(text) + 1)
        text = text[:at] + rng.choice(HOSTILE) + text[at:]
    return text


def _scalar(rng: random.Random) -> Any:
    return rng.choice(
        [
            _text(rng),
            rng.randint(-(10**12), 10**12),
            rng.choice([0.0, -0.0, 1e16, 1e-7, 1.5, math.inf, -math.inf, rng.random() * 10 ** rng.randint(-20, 20)]),
            rng.choice([True, False, None]),
            rng.choice([[], {}]),
        ]
    )


def _value(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth > 4 or roll < 0.5:
        return _scalar(rng)
    if roll < 0.75:
        keys = [_text(rng) if rng.random() < 0.3 else rng.choice(["name", "start", f"k{rng.randint(0, 99)}"])]
        return {keys[0] if i == 0 else f"k{i}": _value(rng, depth + 1) for i in range(rng.randint(1, 5))}
    return [_value(rng, depth + 1) for _ in range(rng.randint(1, 5))]


def _answer(seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    return {f"k{i}": _value(rng) for i in range(rng.randint(1, 6))}


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, dict):
        return isinstance(b, dict) and list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


SEEDS = range(0, 400)


@pytest.mark.parametrize("seed", [pytest.param(list(SEEDS[i::4]), id=f"quarter-{i}") for i in range(4)])
def test_yaml_reads_back_the_same_with_no_raw_control_character(seed):
    for one in seed:
        data = _answer(one)
        text = dumped(data, "yaml")
        assert go_escaped(text) == text, one
        assert _same(yaml.safe_load(text), data), one


def _printable_only(data: Any) -> bool:
    if isinstance(data, str):
        return go_escaped(data) == data
    if isinstance(data, dict):
        return all(_printable_only(k) and _printable_only(v) for k, v in data.items())
    if isinstance(data, list):
        return all(_printable_only(item) for item in data)
    return True


def test_yaml_is_pyyamls_own_bytes_where_every_string_is_printable():
    checked = 0
    for seed in SEEDS:
        data = _answer(seed)
        if _printable_only(data):
            want = yaml.safe_dump(data, sort_keys=False, default_flow_style=False, allow_unicode=True)
            assert dumped(data, "yaml") == want, seed
            checked += 1
    assert checked > 50


ESCAPED = {
    "escape": ("pod-\x1b[2J", '"pod-\\e[2J"'),
    "nul": ("a\x00b", '"a\\0b"'),
    "next-line": ("a\x85b", '"a\\Nb"'),
    "line-separator": ("a\u2028b", '"a\\Lb"'),
    "lone-surrogate": ("a\ud800b", '"a\\uD800b"'),
    "right-to-left": ("a\u202eb", '"a\\u202Eb"'),
}


@pytest.mark.parametrize(("name", "shown"), ESCAPED.values(), ids=ESCAPED.keys())
def test_a_hostile_name_is_written_escaped_in_double_quotes(name, shown):
    assert dumped({"workloads": [{"name": name}]}, "yaml") == f"workloads:\n- name: {shown}\n"


def test_a_list_met_twice_keeps_pyyamls_anchor():
    shared = [1, 2]
    data = {"a": shared, "b": shared}
    assert dumped(data, "yaml") == yaml.safe_dump(data, sort_keys=False, default_flow_style=False)


def test_json_is_jsons_own():
    data = {"workloads": [{"name": "s-1", "start": None, "wait": 1.5}], "seed": 0}
    assert dumped(data, "json") == json.dumps(data, indent=2) + "\n"


def _past_after(readings: int):
    """A clock inside the bound for ``readings`` readings, past it after."""
    calls = [0]

    def now() -> float:
        calls[0] += 1
        return 0.0 if calls[0] <= readings else 10.0

    return now


@pytest.mark.parametrize("output", ["yaml", "json"], ids=["yaml", "json"])
def test_writing_a_large_answer_stops_at_the_bound(output):
    data = {"workloads": [{"name": f"s-{i}", "start": None, "undecided": True} for i in range(20_000)]}
    bound = Deadline(3, clock=_past_after(2))
    with pytest.raises(TimeBoundReached) as caught:
        dumped(data, output, bound)
    assert str(caught.value) == f"did not finish within 3 s (--timeout): stopped while writing the answer (-o {output})"
