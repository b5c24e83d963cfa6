"""``workloadbuilder capacity`` and ``simulate``: outputs, exit codes and one-line errors for bad queue files."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

from workloadbuilder.cli.app import main

ROOT = Path(__file__).resolve().parents[2]
JOBSET = str(ROOT / "examples" / "jobset-training.yaml")
QUEUE = str(ROOT / "examples" / "planning" / "queue.yaml")
GEN = "zones=1,racks=2,hosts=8,gpus=8"

CLUSTER = {
    "nodes": [
        {"name": "a1", "labels": {"rack": "rack-a"}, "allocatable": {"cpu": "8", "nvidia.com/gpu": "8", "pods": "110"}},
        {"name": "b1", "labels": {"rack": "rack-b"}, "allocatable": {"cpu": "8", "nvidia.com/gpu": "4", "pods": "110"}},
    ]
}
GANG = """
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: workers, namespace: ml}
spec:
  schedulingPolicy: {gang: {minCount: 2}}
  schedulingConstraints: {topology: [{key: rack}]}
---
apiVersion: v1
kind: Pod
metadata: {name: w-0, namespace: ml}
spec:
  schedulingGroup: {podGroupName: workers}
  containers: [{name: c, image: x, resources: {requests: {cpu: "1", nvidia.com/gpu: "2"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: w-1, namespace: ml}
spec:
  schedulingGroup: {podGroupName: workers}
  containers: [{name: c, image: x, resources: {requests: {cpu: "1", nvidia.com/gpu: "2"}}}]
"""


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def files(tmp_path):
    (tmp_path / "cluster.yaml").write_text(yaml.safe_dump(CLUSTER))
    (tmp_path / "gang.yaml").write_text(GANG)
    return tmp_path


def test_capacity_json(files):
    code, out, _ = run(
        "capacity", str(files / "gang.yaml"), "--cluster", str(files / "cluster.yaml"),
        "--add-nodes-like", "b1", "--target", "4", "--output", "json",
    )  # fmt: skip
    # rack-a: 8 GPUs, two copies of 2x2; rack-b: 4 GPUs, one copy; a fourth copy needs one more b1 (4 GPUs).
    assert (code, json.loads(out)) == (
        0,
        {
            "copies": 3,
            "undecided": False,
            "perDomain": {"rack": {"rack-a": 2, "rack-b": 1}},
            "stranded": {"cpu": "10", "nvidia.com/gpu": "0", "pods": "214"},
            "unusable": {"nodes": 0, "reasons": {}, "free": {}},
            "toAdd": {"like": "b1", "count": 1, "target": 4, "undecided": False},
        },
    )


def test_capacity_of_the_bundled_example_on_a_generated_cluster():
    code, out, _ = run("capacity", JOBSET, "--generate", GEN)
    assert code == 0
    assert out.splitlines()[1].startswith("copies that fit: ")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--add-nodes-like", "nope"], "error: --add-nodes-like: no node named 'nope' in the cluster\n"),
        (["--target", "3"], "error: --target goes with --add-nodes-like NODE\n"),
        (["--add-nodes-like", "a1", "--target", "0"], "error: --target: must be from 1 to 100000 copies, got 0\n"),
        (
            ["--output", "xml"],
            "error: argument -o/--output: invalid choice: 'xml' (choose from 'text', 'json', 'yaml') "
            "(see workloadbuilder capacity --help)\n",
        ),
    ],
    ids=["unknown-node", "target-alone", "target-zero", "bad-output"],
)
def test_capacity_usage_errors(files, argv, message):
    code, _, err = run("capacity", str(files / "gang.yaml"), "--cluster", str(files / "cluster.yaml"), *argv)
    assert (code, err) == (2, message)


def test_simulate_the_bundled_queue_json():
    code, out, _ = run("simulate", QUEUE, "--generate", GEN, "--output", "json")
    data = json.loads(out)
    assert code == 0
    assert [run["name"] for run in data["workloads"]] == [
        "llm-pretrain-0-1", "llm-pretrain-0-2", "llm-pretrain-0-3", "llm-pretrain-1", "eval",
    ]  # fmt: skip
    assert set(data) == {"workloads", "makespan", "undecided", "stopped", "utilization", "evictions", "seed"}
    assert (data["undecided"], data["stopped"]) == (False, None)
    assert data["makespan"] == max(run["end"] for run in data["workloads"])
    assert all(run["wait"] == run["start"] - run["arrival"] for run in data["workloads"])


def test_simulate_is_deterministic_for_a_seed():
    first = run("simulate", QUEUE, "--generate", GEN, "--seed", "3", "--output", "json")
    assert first == run("simulate", QUEUE, "--generate", GEN, "--seed", "3", "--output", "json")


@pytest.mark.parametrize(
    ("queue", "message"),
    [
        ({"jobs": []}, "a queue file is one mapping with one key, workloads (a list)"),
        ({"workloads": []}, "workloads: a non-empty list of entries"),
        (
            {"workloads": [{"file": "gang.yaml", "arrival": 0, "duration": 1, "cout": 2}]},
            "workloads[0].cout: unknown field",
        ),
        ({"workloads": [{"arrival": 0, "duration": 1}]}, "workloads[0]: give one of file and object"),
        ({"workloads": [{"file": "gang.yaml", "duration": 1}]}, "workloads[0].arrival: Required value"),
        (
            {"workloads": [{"file": "gang.yaml", "arrival": -1, "duration": 1}]},
            "workloads[0].arrival: must be from 0 to 1000000000, got -1",
        ),
        (
            {"workloads": [{"file": "gang.yaml", "arrival": 0, "duration": 1, "count": 1.5}]},
            "workloads[0].count: must be an integer",
        ),
        (
            {"workloads": [{"file": "gang.yaml", "arrival": 0, "duration": 1, "priorityClassName": "high"}]},
            'workloads[0] (workers): podgroups.scheduling.k8s.io "workers" is forbidden: '
            "no PriorityClass with name high was found",
        ),
    ],
    ids=[
        "no-workloads-key",
        "empty",
        "unknown-field",
        "neither-file-nor-object",
        "no-arrival",
        "negative-arrival",
        "fractional-count",
        "unknown-priority-class",
    ],
)
def test_simulate_bad_queue_files(files, queue, message):
    (files / "queue.yaml").write_text(yaml.safe_dump(queue))
    code, _, err = run("simulate", str(files / "queue.yaml"), "--cluster", str(files / "cluster.yaml"))
    assert (code, err) == (2, f"error: {files / 'queue.yaml'}: {message}\n")


def test_render_charts(files):
    chart = files / "copies.svg"
    code, _, _ = run(
        "capacity", str(files / "gang.yaml"), "--cluster", str(files / "cluster.yaml"), "--render", str(chart)
    )
    root = ET.fromstring(chart.read_text())
    assert code == 0
    assert root.get("viewBox") == "0 0 800 144"
    assert [t.text for t in root.iter("{http://www.w3.org/2000/svg}title")] == [
        "3 copies fit in all", "rack=rack-a: 2 copies", "rack=rack-b: 1 copy",
    ]  # fmt: skip
    # An existing file is kept unless --force, and a symlink is never followed, as with place --render.
    code, _, err = run(
        "capacity", str(files / "gang.yaml"), "--cluster", str(files / "cluster.yaml"), "--render", str(chart)
    )
    assert (code, err) == (2, f"error: --render: {chart} exists; --force overwrites it\n")
    target = files / "elsewhere.txt"
    target.write_text("keep")
    link = files / "link.svg"
    link.symlink_to(target)
    code, _, err = run(
        "simulate", QUEUE, "--generate", GEN, "--render", str(link), "--force",
    )  # fmt: skip
    assert (code, err) == (2, f"error: --render: {link} is a symbolic link; it is not followed: give the file itself\n")
    assert target.read_text() == "keep"
    drawing = files / "utilization.svg"
    code, _, _ = run("simulate", QUEUE, "--generate", GEN, "--render", str(drawing))
    assert code == 0
    assert ET.fromstring(drawing.read_text()).get("aria-label") == "utilization over time"


HUGE_POD = """
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: huge, namespace: ml}
spec:
  schedulingPolicy: {gang: {minCount: 1}}
---
apiVersion: v1
kind: Pod
metadata: {name: huge-0, namespace: ml}
spec:
  schedulingGroup: {podGroupName: huge}
  containers: [{name: c, image: x, resources: {requests: {nvidia.com/gpu: "9"}}}]
"""


def test_simulate_exits_1_with_the_reason_when_a_copy_never_runs(files):
    (files / "huge.yaml").write_text(HUGE_POD)
    (files / "queue.yaml").write_text(
        "workloads:\n- {file: gang.yaml, arrival: 0, duration: 10}\n- {file: huge.yaml, arrival: 0, duration: 10}\n"
    )
    argv = ("simulate", str(files / "queue.yaml"), "--cluster", str(files / "cluster.yaml"))
    code, out, err = run(*argv)
    assert (code, err) == (1, "")
    assert out.splitlines()[2:] == [
        "workers: arrived 0s, started 0s, ended 10s (waited 0s)",
        "huge: arrived 0s, never placed (never: a pod of 'huge' requests 9 nvidia.com/gpu; the largest node has 8)",
        "makespan: never (some copies never ran)",
    ]
    code, out, _ = run(*argv, "--exit-zero", "-o", "json")
    assert code == 0
    assert [run["reason"] for run in json.loads(out)["workloads"]] == [
        None,
        "never: a pod of 'huge' requests 9 nvidia.com/gpu; the largest node has 8",
    ]
