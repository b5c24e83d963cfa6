"""Fixtures for placement tests: KEP-6012's worked example."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from placement_helpers import BLOCK, RACK, cluster, composite, node, pod_group, request

from workloadbuilder.placement import Cluster, Placement, PlacementRequest, engine, verify


@pytest.fixture
def kep_cluster() -> Cluster:
    """KEP-6012's worked example: block-A racks with 3 and 5 free slots, block-B racks with 5 and 5."""
    return cluster(
        node("a1", 3, block="block-A", rack="rack-A1"),
        node("a2", 5, block="block-A", rack="rack-A2"),
        node("b1", 5, block="block-B", rack="rack-B1"),
        node("b2", 5, block="block-B", rack="rack-B2"),
    )


@pytest.fixture
def kep_request() -> PlacementRequest:
    """CPG-root (block, minGroupCount 2) over PG-1 and PG-2 (rack, minCount 5), one GPU per pod."""
    return request(
        [
            composite("cpg-root", 2, key=BLOCK),
            pod_group("pg-1", 5, key=RACK, parent="cpg-root"),
            pod_group("pg-2", 5, key=RACK, parent="cpg-root"),
        ],
        {"pg-1": (5, {"nvidia.com/gpu": "1"}), "pg-2": (5, {"nvidia.com/gpu": "1"})},
    )


@pytest.fixture(autouse=True, scope="module")
def every_answer_verifies() -> Iterator[None]:
    """Runs ``verify`` on every answer ``place`` returns in these tests, so a wrong answer cannot pass silently.

    ``engine._answer`` is the one place every answer is built; module scope
    keeps hypothesis' function-scoped-fixture check quiet.
    """
    original = engine._answer

    def answer_and_verify(request: PlacementRequest, cluster: Cluster, *rest: Any) -> Placement:
        answer = original(request, cluster, *rest)
        assert [str(problem) for problem in verify(request, cluster, answer)] == []
        return answer

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(engine, "_answer", answer_and_verify)
        yield
