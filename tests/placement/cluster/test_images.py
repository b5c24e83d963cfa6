"""The image index ImageLocality reads: built per distinct image, carried by ``restrict`` and ``nodes_like``.

Seeded node image lists are indexed by ``ImageCollector`` (through
``index_of``) and checked against the index written out name by name; the
index of a restricted or extended cluster equals the index of its nodes'
lists built afresh.
"""

from __future__ import annotations

import random

import pytest

from workloadbuilder.placement.cluster.images import ImageIndex, extended, index_of, restricted

NAMES = [f"registry.example.com/app-{k}:v{k % 3}" for k in range(12)]


def _lists(seed: int) -> list[list[tuple[str, int]]]:
    rng = random.Random(seed)
    return [
        [(name, 1000 * (NAMES.index(name) + 1)) for name in rng.sample(NAMES, rng.randint(0, 6))]
        for _ in range(rng.randint(1, 30))
    ]


def _written_out(lists: list[list[tuple[str, int]]]) -> dict[str, tuple[list[int], list[int]]]:
    out: dict[str, tuple[list[int], list[int]]] = {}
    for node, pairs in enumerate(lists):
        for name, size in pairs:
            nodes, sizes = out.setdefault(name, ([], []))
            if nodes and nodes[-1] == node:
                sizes[-1] = size
            else:
                nodes.append(node)
                sizes.append(size)
    return out


def _plain(index: ImageIndex) -> dict[str, tuple[list[int], list[int]]]:
    return {name: (nodes.tolist(), sizes.tolist()) for name, (nodes, sizes) in index.items()}


SEEDS = range(40)


@pytest.mark.parametrize("seed", SEEDS, ids=[f"seed-{seed}" for seed in SEEDS])
def test_the_index_lists_each_name_s_nodes_and_sizes(seed: int) -> None:
    lists = _lists(seed)
    assert _plain(index_of(lists)) == _written_out(lists)


@pytest.mark.parametrize("seed", SEEDS, ids=[f"seed-{seed}" for seed in SEEDS])
def test_a_restricted_index_is_the_index_of_the_kept_nodes(seed: int) -> None:
    lists = _lists(seed)
    keep = sorted(random.Random(seed + 1000).sample(range(len(lists)), random.Random(seed).randint(0, len(lists))))
    assert restricted(index_of(lists), keep) == index_of([lists[i] for i in keep])


@pytest.mark.parametrize("seed", SEEDS, ids=[f"seed-{seed}" for seed in SEEDS])
def test_an_extended_index_adds_copies_of_one_node(seed: int) -> None:
    lists = _lists(seed)
    node, count = seed % len(lists), seed % 4
    assert extended(index_of(lists), node, len(lists), count) == index_of([*lists, *([lists[node]] * count)])


def test_indexes_compare_by_content() -> None:
    assert index_of([[("a", 1)]]) == index_of([[("a", 1)]])
    assert index_of([[("a", 1)]]) != index_of([[("a", 2)]])
    assert index_of([]) == ImageIndex()
    assert not ImageIndex()
    assert repr(index_of([[("a", 1), ("b", 2)]])) == "ImageIndex(2 names)"
