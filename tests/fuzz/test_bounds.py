"""The bounds that keep work proportional to the input: message values, quantity caches, nesting, aliases."""

from __future__ import annotations

import pytest

from workloadbuilder import manifests
from workloadbuilder._internal.gofmt import render_bad_value
from workloadbuilder.limits import MAX_ALIAS_NODES, MAX_MESSAGE_VALUE, MAX_NESTING
from workloadbuilder.placement.k8s import quantity

PG = (
    "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: p}\n"
    "spec: {schedulingPolicy: {basic: {}}}\n"
)


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("x" * 10, '"xxxxxxxxxx"'),
        ("x" * (MAX_MESSAGE_VALUE + 1), '"' + "x" * MAX_MESSAGE_VALUE + '"...'),
        (list(range(10**6)), ("[" + ",".join(str(i) for i in range(400)))[:MAX_MESSAGE_VALUE] + "..."),
        ({"b": [1], "a": "<"}, '{"a":"\\u003c","b":[1]}'),
        (10**5000, "<an integer of 16610 bits>"),
    ],
    ids=["short-string", "long-string", "million-element-list", "small-map", "huge-integer"],
)
def test_a_message_shows_at_most_the_cap_of_a_value(value: object, shown: str) -> None:
    assert render_bad_value(value) == shown


def test_the_quantity_caches_stay_bounded() -> None:
    quantity.clear_cache()
    for i in range(quantity.MAX_CACHED + 10):
        quantity.resource_millis("memory", f"{i}Ki")
    sizes = (len(quantity._NANOS), len(quantity._MILLIS))
    quantity.clear_cache()
    assert max(sizes) <= quantity.MAX_CACHED
    assert quantity.resource_millis("cpu", "1500m") == 1500


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            PG + "x: " + "[" * (MAX_NESTING + 1) + "]" * (MAX_NESTING + 1) + "\n",
            f"<string> (document 1): YAML nests deeper than {MAX_NESTING} levels (at line 5, column {MAX_NESTING + 3})",
        ),
        (
            "[" * (MAX_NESTING + 1) + "]" * (MAX_NESTING + 1),
            f"<string> (document 1): JSON nests deeper than {MAX_NESTING} levels",
        ),
        (
            PG
            + "a: &a [1,2,3,4,5,6,7,8,9,10]\n"
            + "".join(
                f"b{i}: &b{i} [" + ",".join([f"*{'a' if i == 0 else f'b{i - 1}'}"] * 10) + "]\n" for i in range(5)
            ),
            f"<string> (document 1): YAML aliases expand past {MAX_ALIAS_NODES} nodes (at line 9, column 38)",
        ),
        (PG + "x: &a [*a]\n", "<string> (document 1): YAML alias *a is inside its own anchor (at line 5, column 8)"),
        (
            PG + "---\n" + PG + "x: !!float abc\n",
            "<string> (document 2): invalid YAML at line 10, column 4: cannot read 'abc' as !!float",
        ),
        (PG + "x: *nope\n", "<string> (document 1): invalid YAML at line 5, column 4: found undefined alias 'nope'"),
    ],
    ids=[
        "yaml-too-deep",
        "json-too-deep",
        "alias-expansion",
        "recursive-alias",
        "bad-float-in-document-2",
        "undefined-alias",
    ],
)
def test_text_past_a_bound_is_refused_at_its_document_and_line(text: str, message: str) -> None:
    with pytest.raises(manifests.ManifestError) as refused:
        manifests.load(text)
    assert str(refused.value) == message


def test_libyaml_and_pyyaml_word_a_syntax_error_alike() -> None:
    with pytest.raises(manifests.ManifestError) as refused:
        manifests.load(PG + "x: [1, 2\n")
    assert str(refused.value) == (
        "<string> (document 1): invalid YAML at line 6, column 1: "
        "while parsing a flow sequence, expected ',' or ']', but got '<stream end>'"
    )
