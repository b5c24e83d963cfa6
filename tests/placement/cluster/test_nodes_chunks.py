"""The kubectl node reader across its chunks and shortcuts reads what the plain reference reads.

Kept allocatable maps are split and parsed a few thousand nodes at a time,
a column of one string repeated is parsed once, a node's labels are
compared with the previous node's, and the names are gathered as nodes are
read. Real dumps cross a chunk only past thousands of nodes, so the chunk
is made two nodes here; the hypothesis inputs of ``test_nodes_reference``
then cross it at every place.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from workloadbuilder.field import AggregateError
from workloadbuilder.placement import Cluster
from workloadbuilder.placement.cluster import nodes

from .test_nodes_reference import _realistic, check_against_reference, node_items

CHUNKED = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)


@pytest.fixture
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(nodes, "_CHUNK", 2)


@CHUNKED
@given(node_items(bad=False))
def test_well_formed_nodes_across_chunks_read_as_the_reference(small_chunks: None, items: list[Any]) -> None:
    check_against_reference(items)


@CHUNKED
@given(node_items(bad=True))
def test_malformed_nodes_across_chunks_give_the_reference_errors(small_chunks: None, items: list[Any]) -> None:
    check_against_reference(items)


ONE_STRING = ["8", "lots", "-1", "1.5Gi", "1e3"]


@pytest.mark.parametrize("text", ONE_STRING, ids=ONE_STRING)
def test_one_string_on_every_node_reads_as_the_reference(small_chunks: None, text: str) -> None:
    items = _realistic(5)
    for item in items:
        item["status"]["allocatable"]["nvidia.com/gpu"] = text
    check_against_reference(items)


def test_a_bad_string_in_a_later_chunk_reads_as_the_reference(small_chunks: None) -> None:
    items = _realistic(7)
    items[5]["status"]["allocatable"]["memory"] = "lots"
    check_against_reference(items)
    with pytest.raises(AggregateError, match=r"nodes\[5\]\.status\.allocatable\[memory\]"):
        Cluster.from_kubectl(items)


def test_equal_label_values_are_the_previous_nodes_strings() -> None:
    items = _realistic(3)
    items[2]["metadata"]["labels"]["example.com/new"] = "x"  # a key the previous node lacks
    del items[2]["metadata"]["labels"]["nvidia.com/gpu.count"]  # and one it has
    cluster = Cluster.from_kubectl(copy.deepcopy(items))
    assert cluster.labels == [item["metadata"]["labels"] for item in items]
    first, second = cluster.labels[0], cluster.labels[1]
    assert all(second[key] is first[key] for key in first if first[key] == second[key])
    assert second["kubernetes.io/hostname"] != first["kubernetes.io/hostname"]


def test_a_name_given_twice_is_an_error_at_its_second_entry() -> None:
    items = _realistic(4)
    items[3]["metadata"]["name"] = items[1]["metadata"]["name"]
    check_against_reference(items)
    with pytest.raises(AggregateError, match=r"nodes\[3\]\.name"):
        Cluster.from_kubectl(items)
