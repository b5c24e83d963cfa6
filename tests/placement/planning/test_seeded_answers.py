"""simulate() and capacity() answer 200 seeded queues and requests as they did before their incremental rewrite.

The golden answers in ``tests/data/placement`` were recorded by the
implementations that derived a new cluster per event (simulate) and placed
copies in batches through ``place`` (capacity); see ``tests/placement/seeded_queues.py``.
"""

from __future__ import annotations

import pytest
from seeded_queues import CAPACITY_GOLDEN, SEEDS, answer, capacity_answer, golden, reasons

_SIMULATED = golden()
_COUNTED = golden(CAPACITY_GOLDEN)


@pytest.mark.parametrize("seed", list(SEEDS), ids=[f"seed-{seed}" for seed in SEEDS])
def test_simulate_answers_as_recorded(seed):
    assert answer(seed) == _SIMULATED[str(seed)]


# Recorded before ``unusable`` was reported apart from ``stranded``; no node of the 200 clusters is out of
# reach of its request's pods, so each answer adds the empty entry and nothing else.
_NO_UNUSABLE_NODE = {"nodes": 0, "reasons": {}, "free": {}}


@pytest.mark.parametrize("seed", list(SEEDS), ids=[f"seed-{seed}" for seed in SEEDS])
def test_capacity_answers_as_recorded(seed):
    assert capacity_answer(seed) == {**_COUNTED[str(seed)], "unusable": _NO_UNUSABLE_NODE}


_TIERS_OF_A_COPY_NEVER_PLACED = ("waiting-for-capacity", "never")


@pytest.mark.parametrize("seed", list(SEEDS)[:40], ids=[f"seed-{seed}" for seed in list(SEEDS)[:40]])
def test_a_copy_that_never_runs_and_only_it_has_the_verdict_of_place(seed):
    for never, reason in reasons(seed):
        if never:
            assert reason is not None
            assert reason.startswith(_TIERS_OF_A_COPY_NEVER_PLACED), reason
        else:
            assert reason is None
