"""``objpath.elements_of``: a JSONPath string is parsed once per thread's parser, with the same answer every time."""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor

import pytest

from workloadbuilder._internal.objpath import elements_of
from workloadbuilder.errors import BuildError


def _paths(seed: int, n: int) -> list[tuple[str, tuple[str | int, ...]]]:
    """``n`` seeded JSONPaths of field names and indexes, each with the elements it names."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        elements: list[str | int] = []
        text = "$"
        for _ in range(rng.randint(1, 6)):
            if elements and rng.random() < 0.3:
                index = rng.randint(0, 10**6)
                elements.append(index)
                text += f"[{index}]"
            else:
                name = "".join(rng.choice("abcdefgxyzXYZ") for _ in range(rng.randint(1, 8)))
                elements.append(name)
                text += f".{name}"
        out.append((text, tuple(elements)))
    return out


def test_a_path_named_again_and_again_gives_the_same_elements():
    paths = _paths(38, 50)
    for text, expected in paths * 3:  # the second and third rounds are answered from the cache
        assert elements_of(text) == expected


def test_the_parser_kept_after_a_syntax_error_still_parses():
    with pytest.raises(BuildError) as caught:
        elements_of("$.a[")
    assert str(caught.value) == 'invalid JSONPath "$.a[": Parse error near the end of string!'
    assert elements_of("$.x[2].y") == ("x", 2, "y")


def test_threads_parsing_at_once_each_get_their_own_answer():
    paths = _paths(380, 200)
    with ThreadPoolExecutor(max_workers=8) as pool:
        got = list(pool.map(lambda entry: elements_of(entry[0]), paths))
    assert got == [expected for _, expected in paths]


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("$.spec[-1]", 'JSONPath "$.spec[-1]" must name one place: use field names and non-negative indexes only'),
        ("$[*]", 'JSONPath "$[*]" must name one place: use field names and non-negative indexes only'),
    ],
    ids=["negative-index", "wildcard"],
)
def test_a_path_that_names_no_one_place_is_refused_each_time(path, message):
    for _ in range(2):  # a refusal is not cached as an answer
        with pytest.raises(BuildError) as caught:
            elements_of(path)
        assert str(caught.value) == message
