"""A TrainJob's ``resourcesPerNode`` reaches place and capacity: 4 nodes of 8 GPUs hold one copy of a 4 x 8 GPU job."""

from __future__ import annotations

import io
from pathlib import Path

from workloadbuilder.cli.app import main

TRAIN = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata: {name: torch-distributed}
spec:
  mlPolicy: {numNodes: 1, torch: {}}
  template:
    spec:
      replicatedJobs:
      - name: node
        template:
          metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}}
          spec: {template: {spec: {containers: [{name: node, image: pytorch/pytorch}]}}}
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: gpu-train}
spec:
  runtimeRef: {name: torch-distributed}
  trainer:
    numNodes: 4
    resourcesPerNode: {limits: {nvidia.com/gpu: 8}}
"""
CLUSTER = ["--generate", "zones=1,blocks=1,racks=1,hosts=4,gpus=8,used=0"]


def _run(tmp_path: Path, command: str) -> tuple[int, list[str]]:
    path = tmp_path / "train.yaml"
    path.write_text(TRAIN)
    out, err = io.StringIO(), io.StringIO()
    code = main([command, str(path), *CLUSTER], out, err)
    return code, [line.strip() for line in out.getvalue().splitlines()]


def test_place_puts_each_eight_gpu_pod_on_its_own_node(tmp_path: Path) -> None:
    code, lines = _run(tmp_path, "place")
    assert code == 0
    assert "placed 4 of 4 pods in the cluster, on 4 nodes: node-00000, node-00001, node-00002, node-00003" in lines
    assert lines[-1] == "verdict: placeable"


def test_capacity_fits_one_copy(tmp_path: Path) -> None:
    code, lines = _run(tmp_path, "capacity")
    assert code == 0
    assert lines[1] == "copies that fit: 1"
