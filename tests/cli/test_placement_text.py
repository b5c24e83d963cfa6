"""The text of ``place`` and ``explain`` (cli/placement_text.py): the cluster line, each input, then the summary.

One Job of 8 one-GPU pods (``minCount`` 8, one zone) on one node: placed when the node has 8 GPUs, not with 2.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from workloadbuilder.cli.inputs import read_inputs
from workloadbuilder.cli.placement_inputs import PlacementInput, merge_requests, placement_inputs
from workloadbuilder.cli.placement_text import explain_text, place_text
from workloadbuilder.placement import Cluster, Placement, place

ROOT = Path(__file__).resolve().parents[2]
JOB = "tests/data/adapters/job/root-seed-8-workers.in.yaml"
GROUP = "trainer-5d5cd87f58-trainer-pgt-0-9cc94c4c4"
LABEL = f"Job training/trainer ({JOB}, document 1)"
NODE = """\
nodes:
- name: n1
  labels: {topology.kubernetes.io/zone: z1}
  allocatable: {cpu: "8", memory: 16Gi, pods: "110", nvidia.com/gpu: "%d"}
"""


@pytest.fixture(autouse=True)
def at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run where JOB, as the labels name it, leads."""
    monkeypatch.chdir(ROOT)


def placed_on(gpus: int) -> tuple[list[PlacementInput], Placement]:
    inputs = placement_inputs(read_inputs([JOB]), {}, io.StringIO()).inputs
    return inputs, place(merge_requests(inputs), Cluster.from_yaml(NODE % gpus), "kube-scheduler")


def test_place_shows_each_groups_domain_nodes_and_the_capacity_left() -> None:
    assert place_text(*placed_on(8), "cluster: one node") == (
        "cluster: one node\n"
        "\n"
        f"{LABEL}: placed\n"
        f"  PodGroup {GROUP} (template trainer-pgt-0; gang, minCount 8; topology topology.kubernetes.io/zone)\n"
        "    placed 8 of 8 pods in zone z1, on 1 node: n1 x8\n"
        "    capacity left in zone z1: pods 102, nvidia.com/gpu 0\n"
        "\n"
        "feasible (kube-scheduler): 1 of 1 object placed\n"
    )


def test_explain_shows_only_where_each_root_went() -> None:
    assert explain_text(*placed_on(8), "cluster: one node") == (
        "cluster: one node\n"
        "\n"
        f"{LABEL}: placed (kube-scheduler)\n"
        f"  `{GROUP}`: placed 8 pods of 1 group in zone z1\n"
        "\n"
        "feasible (kube-scheduler): 1 of 1 object placed\n"
    )


def test_place_says_why_a_group_is_not_placed() -> None:
    lines = place_text(*placed_on(2), "cluster: one node").splitlines()
    assert lines[:6] == [
        "cluster: one node",
        "",
        f"{LABEL}: not placed",
        f"  PodGroup {GROUP} (template trainer-pgt-0; gang, minCount 8; topology topology.kubernetes.io/zone)",
        "    not placed (8 of its 8 pods needed)",
        "  why:",
    ]
    assert f"    `{GROUP}`: zone z1 fits 2 of 8 pods; 0 of 1 zone fit 8" in lines
    assert lines[-2:] == ["", "not feasible (kube-scheduler): 0 of 1 object placed"]


def test_explain_gives_the_quorum_and_each_level_outermost_first() -> None:
    lines = explain_text(*placed_on(2), "cluster: one node").splitlines()
    assert lines[2:4] == [f"{LABEL}: not placed (kube-scheduler)", f"  `{GROUP}` cannot be placed"]
    quorum = lines.index("  quorum:")
    assert lines[quorum : quorum + 4] == [
        "  quorum:",
        f"    `{GROUP}`: 8 pods for a minCount of 8: met",
        "  levels, outermost first:",
        f"    [zone] `{GROUP}`: zone z1 fits 2 of 8 pods; 0 of 1 zone fit 8",
    ]
    assert lines[-2:] == ["", "not feasible (kube-scheduler): 0 of 1 object placed"]
