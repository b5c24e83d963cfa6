"""``place`` and ``explain`` end with the verdict tier and exit by it: one tiny compact-YAML cluster per tier.

Every figure is checked by hand: one node with 8 GPUs; the gang is 4 pods of
one GPU each (``minCount`` 4) unless a case says otherwise. Text and JSON
answers name the input as given, so each test runs in its scratch directory.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from workloadbuilder.cli.app import main

NODE = """\
nodes:
- name: n1
  labels: {topology.example.com/rack: r1}
  allocatable: {cpu: "64", memory: 256Gi, nvidia.com/gpu: "8", pods: "110"}
"""

EMPTY = NODE

# 6 of the 8 GPUs taken by a priority-10 pod: the gang (priority 100) fits only by evicting it.
LOW_PRIORITY_BUSY = (
    NODE
    + """\
running:
- {name: batch, kind: Pod, priority: 10, node: n1, requests: {nvidia.com/gpu: "6"}}
"""
)

# 6 of the 8 GPUs taken at the gang's own priority: preemption cannot evict it, the gang waits for it to end.
EQUAL_PRIORITY_BUSY = (
    NODE
    + """\
running:
- {name: peer, kind: Pod, priority: 100, node: n1, requests: {nvidia.com/gpu: "6"}}
"""
)

# 6 of the 8 GPUs taken at a higher priority: it waits too (for all running work to end).
HIGHER_PRIORITY_BUSY = (
    NODE
    + """\
running:
- {name: serving, kind: Pod, priority: 1000, node: n1, requests: {nvidia.com/gpu: "6"}}
"""
)


def gang(gpus: int = 1, pods: int = 4, topology: str = "topology.example.com/rack") -> str:
    """A priority-100 PodGroup ``g`` of ``pods`` pods, each requesting ``gpus`` GPUs, in one ``topology`` domain."""
    group = (
        "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: g}\n"
        f"spec: {{priority: 100, schedulingPolicy: {{gang: {{minCount: {pods}}}}}, "
        f"schedulingConstraints: {{topology: [{{key: {topology}}}]}}}}\n"
    )
    pod = (
        "---\n{apiVersion: v1, kind: Pod, metadata: {name: g-%d}, spec: {schedulingGroup: {podGroupName: g}, "
        'containers: [{name: main, image: x, resources: {requests: {nvidia.com/gpu: "%d"}}}]}}\n'
    )
    return group + "".join(pod % (i, gpus) for i in range(pods))


# A Job the apiserver refuses: nothing is placed, the verdict is the whole answer.
INVALID_JOB = """\
apiVersion: batch/v1
kind: Job
metadata: {name: trainer, namespace: training, uid: 6f1c2a34-8b9d-4e5f-a1b2-c3d4e5f60718}
spec:
  parallelism: -1
  completions: 2
  scheduling: {schedulingPolicy: {gang: {}}}
  template:
    spec:
      restartPolicy: Never
      containers: [{name: trainer, image: trainer:1, resources: {requests: {nvidia.com/gpu: "1"}, limits: {nvidia.com/gpu: "1"}}}]
"""  # noqa: E501 - the cluster YAML a user writes, one container a line
INVALID_CAUSE = (
    'gang.yaml (document 1): The Job "trainer" is invalid: spec.parallelism: Invalid value: -1: '
    "must be greater than or equal to 0"
)


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


CASES = [
    (EMPTY, gang(), [], 0, "verdict: placeable", {"tier": "placeable", "victims": [], "cause": None}),
    (
        LOW_PRIORITY_BUSY,
        gang(),
        [],
        1,
        "verdict: placeable-after-preemption (evicting batch)",
        {"tier": "placeable-after-preemption", "victims": ["batch"], "cause": None},
    ),
    (
        LOW_PRIORITY_BUSY,
        gang(),
        ["--preempt"],
        0,  # the evictions asked for place it: the plan holds
        "verdict: placeable-after-preemption (evicting batch)",
        {"tier": "placeable-after-preemption", "victims": ["batch"], "cause": None},
    ),
    (
        EQUAL_PRIORITY_BUSY,
        gang(),
        [],
        1,
        "verdict: waiting-for-capacity",
        {"tier": "waiting-for-capacity", "victims": [], "cause": None},
    ),
    (
        HIGHER_PRIORITY_BUSY,
        gang(),
        [],
        1,
        "verdict: waiting-for-capacity",
        {"tier": "waiting-for-capacity", "victims": [], "cause": None},
    ),
    (
        EMPTY,
        gang(gpus=9, pods=1),
        [],
        1,
        "verdict: never: a pod of 'g' requests 9 nvidia.com/gpu; the largest node has 8",
        {"tier": "never", "victims": [], "cause": "a pod of 'g' requests 9 nvidia.com/gpu; the largest node has 8"},
    ),
    (
        EMPTY,
        gang(topology="topology.example.com/block"),
        [],
        1,
        "verdict: never: no node carries the topology key topology.example.com/block that 'g' requires",
        {
            "tier": "never",
            "victims": [],
            "cause": "no node carries the topology key topology.example.com/block that 'g' requires",
        },
    ),
    (
        EMPTY,
        gang(gpus=3, pods=3),
        [],
        1,
        "verdict: never: even with no pod running: `g`: rack r1 fits 2 of 3 pods; 0 of 1 rack fit 3",
        {
            "tier": "never",
            "victims": [],
            "cause": "even with no pod running: `g`: rack r1 fits 2 of 3 pods; 0 of 1 rack fit 3",
        },
    ),
    (
        EMPTY,
        INVALID_JOB,
        [],
        1,
        f"verdict: invalid: {INVALID_CAUSE}",
        {"tier": "invalid", "victims": [], "cause": INVALID_CAUSE},
    ),
]
IDS = [
    "placeable",
    "preemption-would-place-it",
    "preemption-places-it-with-preempt",
    "waiting-for-equal-priority-work",
    "waiting-for-higher-priority-work",
    "never-a-pod-larger-than-any-node",
    "never-a-topology-key-no-node-carries",
    "never-the-engines-reason",
    "invalid",
]


@pytest.fixture(params=["place", "explain"], ids=["place", "explain"])
def command(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.mark.parametrize(("cluster", "inputs", "options", "code", "line", "tier"), CASES, ids=IDS)
def test_the_last_text_line_is_the_verdict_and_the_exit_code_follows_it(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    command: str,
    cluster: str,
    inputs: str,
    options: list[str],
    code: int,
    line: str,
    tier: object,
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("cluster.yaml").write_text(cluster)
    Path("gang.yaml").write_text(inputs)
    got, out, err = run(command, "gang.yaml", "--cluster", "cluster.yaml", *options)
    assert (got, out.splitlines()[-1], err) == (code, line, "")


@pytest.mark.parametrize(("cluster", "inputs", "options", "code", "line", "tier"), CASES, ids=IDS)
def test_the_json_output_carries_the_verdict_key(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    command: str,
    cluster: str,
    inputs: str,
    options: list[str],
    code: int,
    line: str,
    tier: object,
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("cluster.yaml").write_text(cluster)
    Path("gang.yaml").write_text(inputs)
    got, out, err = run(command, "gang.yaml", "--cluster", "cluster.yaml", "--output", "json", *options)
    assert (got, json.loads(out)["verdict"], err) == (code, tier, "")
