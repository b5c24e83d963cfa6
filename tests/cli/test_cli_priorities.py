"""``place``/``explain`` with PriorityClasses in the input files and PriorityClasses and budgets in the
kubectl dumps."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from workloadbuilder.cli.app import main


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def _group(class_name: str) -> list[dict[str, Any]]:
    """A gang of two one-GPU pods whose PodGroup names ``class_name``."""
    group = {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": "train"},
        "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}, "priorityClassName": class_name},
    }
    pods = [
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": f"train-{i}"},
            "spec": {
                "schedulingGroup": {"podGroupName": "train"},
                "containers": [{"name": "c", "resources": {"requests": {"nvidia.com/gpu": "1"}}}],
            },
        }
        for i in range(2)
    ]
    return [group, *pods]


PRIORITY_CLASS = {
    "apiVersion": "scheduling.k8s.io/v1",
    "kind": "PriorityClass",
    "metadata": {"name": "training"},
    "value": 1000,
}


def _running(name: str, app: str, start: str) -> dict[str, Any]:
    return {
        "metadata": {"name": name, "namespace": "default", "labels": {"app": app}},
        "spec": {
            "nodeName": "gpu-1",
            "priorityClassName": "batch",
            "containers": [{"name": "c", "resources": {"requests": {"nvidia.com/gpu": "1"}}}],
        },
        "status": {"phase": "Running", "startTime": start},
    }


@pytest.fixture
def files(tmp_path: Path) -> Path:
    """A two-GPU node running two batch pods, one protected by a budget; the dumps hold the policies."""
    nodes = {
        "apiVersion": "v1",
        "kind": "List",
        "items": [
            {
                "kind": "Node",
                "metadata": {"name": "gpu-1"},
                "status": {"allocatable": {"cpu": "8", "memory": "8Gi", "nvidia.com/gpu": "2", "pods": "110"}},
            },
            {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "batch"}, "value": 10},
        ],
    }
    pods = {
        "apiVersion": "v1",
        "kind": "List",
        "items": [
            _running("old", "keep", "2026-01-01T00:00:00Z"),
            _running("new", "free", "2026-01-02T00:00:00Z"),
            {
                "apiVersion": "policy/v1",
                "kind": "PodDisruptionBudget",
                "metadata": {"name": "keep", "namespace": "default"},
                "spec": {"selector": {"matchLabels": {"app": "keep"}}, "minAvailable": 1},
            },
        ],
    }
    (tmp_path / "nodes.json").write_text(json.dumps(nodes))
    (tmp_path / "pods.json").write_text(json.dumps(pods))
    (tmp_path / "train.yaml").write_text(yaml.safe_dump_all([PRIORITY_CLASS, *_group("training")]))
    (tmp_path / "unknown.yaml").write_text(yaml.safe_dump_all(_group("gold")))
    return tmp_path


def test_classes_and_budgets_reach_preemption(files: Path) -> None:
    code, out, err = run(
        "place", str(files / "train.yaml"), "--cluster", str(files / "nodes.json"), "--pods", str(files / "pods.json"),
        "--preempt", "--output", "json",
    )  # fmt: skip
    answer = json.loads(out)
    # the gang needs both GPUs: both batch pods (priority 10 < 1000) go, the budget protecting `old` is violated
    assert (code, err, [(v["name"], v["priority"]) for v in answer["victims"]], answer["verdict"]) == (
        0,
        "",
        [("default/old", 10), ("default/new", 10)],
        {"tier": "placeable-after-preemption", "victims": ["default/old", "default/new"], "cause": None},
    )
    assert answer["explanation"]["roots"][0]["preemption"]["violations"] == 1


def test_an_unknown_class_is_one_line_naming_the_input(files: Path) -> None:
    code, out, err = run("place", str(files / "unknown.yaml"), "--cluster", str(files / "nodes.json"))
    assert (code, out, err) == (
        2,
        "",
        (
            f'error: PodGroup train ({files / "unknown.yaml"}, document 1): podgroups.scheduling.k8s.io "train" is '
            "forbidden: no PriorityClass with name gold was found\n"
        ),
    )


def test_a_malformed_input_class_names_its_document(files: Path) -> None:
    bad = {**PRIORITY_CLASS, "value": "high"}
    (files / "bad.yaml").write_text(yaml.safe_dump_all([bad, *_group("training")]))
    code, _, err = run("place", str(files / "bad.yaml"), "--cluster", str(files / "nodes.json"))
    assert (code, err) == (
        2,
        (
            f"error: {files / 'bad.yaml'} (document 1): PriorityClass 'training': "
            'value: Invalid value: "high": must be of type integer\n'
        ),
    )


def test_explain_names_each_victim_and_why(files: Path) -> None:
    code, out, _ = run(
        "explain", str(files / "train.yaml"), "--cluster", str(files / "nodes.json"), "--pods", str(files / "pods.json")
    )
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("  preemption: "))
    assert (code, lines[start : start + 3]) == (
        1,
        [
            (
                "  preemption: preemption would help: evicting 2 units (2 pods, priority up to 10), "
                "1 PodDisruptionBudget violation"
            ),
            (
                "    `default/old` (Pod, priority 10 < 1000): 1 pod on gpu-1; with it back, a placed pod would not fit "
                "there; evicting it violates a PodDisruptionBudget (no reprieve kept the budget)"
            ),
            (
                "    `default/new` (Pod, priority 10 < 1000): 1 pod on gpu-1; with it back, a placed pod would not fit "
                "there"
            ),
        ],
    )
