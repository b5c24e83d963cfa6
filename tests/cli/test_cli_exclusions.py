"""Per-domain exclusion counts and the model's own warnings in the text output (issue 26 point 6).

When a gang fits no domain, ``explain`` and ``place`` count the nodes of its best domains one by one:
each under the first filter that excludes it, the rest by how many pods they hold. The JSON output has
the same counts under each level's ``exclusions``. What the model does not check (per-pod DRA claims)
is said in the text output, not only in the JSON's ``warnings``.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from workloadbuilder.cli.app import main

ROOT = Path(__file__).resolve().parents[2]
DATA = "tests/data/cli/exclusions"
RACKS = f"{DATA}/racks.yaml"
GANG = f"{DATA}/gang.yaml"
LINUX = f"{DATA}/gang-linux.yaml"
R1 = "rack r1: 8 nodes; 1 not ready, 1 untolerated taint, 1 Insufficient nvidia.com/gpu; 5 fit 1 pod each"
R2 = "rack r2: 8 nodes; 4 cordoned, 4 Insufficient nvidia.com/gpu; none takes a pod"
# Beside kube-scheduler's counts, the taints and the selector pair that turned the nodes away, with their counts.
TAINTS = (
    "`train`: 2 of 16 nodes have a taint its pods do not tolerate: "
    "dedicated=inference:NoSchedule on 1 node, node.kubernetes.io/not-ready:NoExecute on 1 node"
)
UNMATCHED = (
    "`lin`: 4 of 4 nodes do not match its node selector or affinity: "
    "nodeSelector kubernetes.io/os=linux not matched by 4 of 4 nodes"
)
DRA = "spec.resourceClaims: per-pod DRA claims are not modelled (only the PodGroup's group claims are)"
WINDOWS = "zones=1,blocks=1,racks=2,hosts=2,gpus=8,cpu=64,memory=512Gi,os=windows,seed=0,used=0.0"
SMALL = "cluster: 2 nodes, generated (zones=1,blocks=1,racks=1,hosts=2,gpus=8,cpu=64,memory=512Gi,seed=0,used=0.2)"
FOUR = "cluster: 4 nodes, generated (zones=1,blocks=1,racks=2,hosts=2,gpus=8,cpu=64,memory=512Gi,seed=0,used=0.0)"
SELECTOR = "`lin` pod `lin-0`: 0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector."
TRAIN_EVENTS = [  # kube-scheduler's FailedScheduling messages: its first placement, rack r1, took 5 of the 8 pods
    "`train` pod `train-5`: 0/8 nodes are available: "
    "2 node(s) had untolerated taint(s), 6 Insufficient nvidia.com/gpu.",
    "`train` pod `train-6`: pod group is unschedulable, 0/2 placements are available, "
    "first placement status: minCount (8) cannot be satisfied: 5 scheduled, 2 remaining",
    "`train` pod `train-0`: pod group is unschedulable, pod group is unschedulable, 0/2 placements are available, "
    "first placement status: minCount (8) cannot be satisfied: 5 scheduled, 2 remaining, "
    "pod group preemption: No preemption victims found for incoming preemptor",
]


@pytest.fixture(autouse=True)
def at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run where the tables' paths lead."""
    monkeypatch.chdir(ROOT)


def run(*argv: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue()


@pytest.mark.parametrize(
    ("argv", "code", "expected"),
    [
        (
            ["explain", GANG, "--cluster", RACKS],
            1,
            [
                f"cluster: 16 nodes from {RACKS}",
                "",
                f"PodGroup train ({GANG}, document 1): not placed (kube-scheduler)",
                "  `train` cannot be placed",
                "  kube-scheduler (FailedScheduling):",
                *[f"    {line}" for line in TRAIN_EVENTS],
                "  quorum:",
                "    `train`: 8 pods for a minCount of 8: met",
                "  levels, outermost first:",
                "    [rack] `train`: rack r1 fits 5 of 8 pods; 0 of 2 racks fit 8",
                f"      {R1}",
                f"      {R2}",
                "  filters, in kube-scheduler's order:",
                "    `train`: 4 of 16 nodes are cordoned",
                f"    {TAINTS}",
                "  resources:",
                "    `train`: nvidia.com/gpu leaves 5 of the 10 nodes the earlier filters pass "
                "without room for one pod",
                "  preemption: preemption cannot help: nothing of lower priority runs",
                "",
                "not feasible (kube-scheduler): 0 of 1 object placed",
                "verdict: waiting-for-capacity",
            ],
        ),
        (
            ["place", GANG, "--cluster", RACKS],
            1,
            [
                f"cluster: 16 nodes from {RACKS}",
                "",
                f"PodGroup train ({GANG}, document 1): not placed",
                "  PodGroup train (gang, minCount 8; topology topology.example.com/rack)",
                "    not placed (8 of its 8 pods needed)",
                "  why:",
                "    `train` cannot be placed",
                *[f"    {line}" for line in TRAIN_EVENTS],
                "    `train`: rack r1 fits 5 of 8 pods; 0 of 2 racks fit 8",
                f"    `train`: {R1}",
                f"    `train`: {R2}",
                "    `train`: 4 of 16 nodes are cordoned",
                f"    {TAINTS}",
                "    `train`: nvidia.com/gpu rules out the most nodes "
                "(5 of the 10 nodes the earlier filters pass lack room for one pod)",
                "    preemption cannot help: nothing of lower priority runs",
                "",
                "not feasible (kube-scheduler): 0 of 1 object placed",
                "verdict: waiting-for-capacity",
            ],
        ),
        (
            ["explain", LINUX, "--generate", "hosts=2,racks=2,blocks=1,used=0,os=windows"],
            1,
            [
                f"cluster: 4 nodes, generated ({WINDOWS})",
                "",
                f"PodGroup lin ({LINUX}, document 1): not placed (kube-scheduler)",
                "  `lin` cannot be placed",
                "  kube-scheduler (FailedScheduling):",
                f"    {SELECTOR}",
                "    `lin` pod `lin-1`: pod group is unschedulable, 0/2 placements are available, "
                "first placement status: minCount (3) cannot be satisfied: 0 scheduled, 2 remaining",
                "  quorum:",
                "    `lin`: 3 pods for a minCount of 3: met",
                "  levels, outermost first:",
                "    [rack] `lin`: rack rack-00-0-00 fits 0 of 3 pods; 0 of 2 racks fit 3",
                "      rack rack-00-0-00: 2 nodes; 2 node affinity/selector mismatches; none takes a pod",
                "      rack rack-00-0-01: 2 nodes; 2 node affinity/selector mismatches; none takes a pod",
                "  filters, in kube-scheduler's order:",
                f"    {UNMATCHED}",
                "  preemption: preemption cannot help: nothing of lower priority runs",
                "",
                "not feasible (kube-scheduler): 0 of 1 object placed",
                f"verdict: never: even with no pod running: {SELECTOR}; "
                f"`lin`: rack rack-00-0-00 fits 0 of 3 pods; 0 of 2 racks fit 3; {UNMATCHED}",
            ],
        ),
        (
            ["explain", LINUX, "--generate", "hosts=2,racks=2,blocks=1,used=0"],
            1,
            [
                FOUR,
                "",
                f"PodGroup lin ({LINUX}, document 1): not placed (kube-scheduler)",
                "  `lin` cannot be placed",
                "  kube-scheduler (FailedScheduling):",
                "    `lin` pod `lin-2`: 0/2 nodes are available: 2 Insufficient cpu.",
                "    `lin` pod `lin-0`: pod group is unschedulable, pod group is unschedulable, 0/2 placements are "
                "available, first placement status: minCount (3) cannot be satisfied: 2 scheduled, 0 remaining, "
                "pod group preemption: No preemption victims found for incoming preemptor",
                "  quorum:",
                "    `lin`: 3 pods for a minCount of 3: met",
                "  levels, outermost first:",
                "    [rack] `lin`: rack rack-00-0-00 fits 2 of 3 pods; 0 of 2 racks fit 3",
                "  preemption: preemption cannot help: nothing of lower priority runs",
                "",
                "not feasible (kube-scheduler): 0 of 1 object placed",
                "verdict: never: even with no pod running: "
                "`lin`: rack rack-00-0-00 fits 2 of 3 pods; 0 of 2 racks fit 3",
            ],
        ),
        (
            ["place", f"{DATA}/dra-pods.yaml", "--generate", "hosts=2,racks=1,blocks=1"],
            0,
            [
                SMALL,
                "",
                f"PodGroup infer ({DATA}/dra-pods.yaml, document 1): placed",
                f"  warning: PodGroup infer: {DRA}",
                "  PodGroup infer (gang, minCount 2)",
                "    placed 2 of 2 pods in the cluster, on 1 node: node-00000 x2",
                "    capacity left in the cluster: pods 218",
                "",
                "feasible (kube-scheduler): 1 of 1 object placed",
                "verdict: placeable",
            ],
        ),
        (
            ["explain", f"{DATA}/dra-job.yaml", "--generate", "hosts=2,racks=1,blocks=1"],
            0,
            [
                SMALL,
                "",
                f"Job infer ({DATA}/dra-job.yaml, document 1): placed (kube-scheduler)",
                f"  warning: PodGroup infer-77f5bf9cd8-infer-pgt-0-cdff49b5b: {DRA}",
                "  `infer-77f5bf9cd8-infer-pgt-0-cdff49b5b`: placed 2 pods of 1 group",
                "",
                "feasible (kube-scheduler): 1 of 1 object placed",
                "verdict: placeable",
            ],
        ),
    ],
    ids=[
        "explain-names-not-ready-taint-and-gpu",
        "place-why-has-the-counts",
        "selector-excludes-every-node",
        "no-node-excluded-no-counts",
        "per-pod-claims-of-bare-pods-warned",
        "per-pod-claims-of-a-job-warned",
    ],
)
def test_text_output(argv: list[str], code: int, expected: list[str]) -> None:
    assert run(*argv) == (code, "\n".join(expected) + "\n")


def test_json_levels_carry_the_exclusions() -> None:
    code, out = run("explain", GANG, "--cluster", RACKS, "--output", "json")
    (level,) = json.loads(out)["roots"][0]["levels"]
    assert (code, level["text"], level["exclusions"]) == (
        1,
        "`train`: rack r1 fits 5 of 8 pods; 0 of 2 racks fit 8",
        [
            {
                "domain": {"topology.example.com/rack": "r1"},
                "nodes": 8,
                "excluded": [
                    {"reason": "not ready", "nodes": 1},
                    {"reason": "untolerated taint", "nodes": 1},
                    {"reason": "Insufficient nvidia.com/gpu", "nodes": 1},
                ],
                "fit": [{"pods": 1, "nodes": 5}],
                "text": R1,
            },
            {
                "domain": {"topology.example.com/rack": "r2"},
                "nodes": 8,
                "excluded": [{"reason": "cordoned", "nodes": 4}, {"reason": "Insufficient nvidia.com/gpu", "nodes": 4}],
                "fit": [],
                "text": R2,
            },
        ],
    )
