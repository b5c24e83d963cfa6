"""How input cost grows: the bounded reader against PyYAML's loaders, and compile time per document count.

Prints, from one run, (a) reading a ~5 MB manifest with ``textread`` (the
bounded reader every manifest, cluster and mapping goes through) against
PyYAML's pure ``SafeLoader`` and libyaml's ``CSafeLoader``, as ratios; and
(b) ``compile`` of N root Jobs in one file for N = 250, 1000, 2000, as the
time per Job relative to N = 250 (1.0 everywhere means linear); then the
targets of issue 28 point 6 as ratios of CPU time (the least of three runs
of each): (c) ``validate`` of 4,000
Jobs against 1,000 (linear in documents: at most 4.8) and (d) ``migrate`` of a
Workload with a 4 MB string against 1 MB (linear in bytes: at most 4.8). Run:

    python benchmarks/bench_input.py
"""

from __future__ import annotations

import io
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import yaml

from workloadbuilder._internal import textread
from workloadbuilder.cli.app import main

JOB = """apiVersion: batch/v1
kind: Job
metadata: {{name: trainer{i}, namespace: training, uid: 6f1c2a34-8b9d-4e5f-a1b2-c3d4e5f6{i:04d}}}
spec:
  parallelism: 8
  completions: 8
  completionMode: Indexed
  scheduling:
    schedulingPolicy: {{gang: {{}}}}
    schedulingConstraints: {{topology: [{{key: topology.kubernetes.io/zone}}]}}
  template:
    spec:
      restartPolicy: Never
      containers: [{{name: trainer, image: training-image:latest, resources: {{requests: {{cpu: "4"}}}}}}]
"""


def _seconds(work: Callable[[], object]) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def _big_manifest() -> str:
    lines = ["apiVersion: scheduling.k8s.io/v1beta1", "kind: Workload", "metadata:", "  name: big", "  annotations:"]
    lines += [f'    example.com/key-{i}: "value number {i} with some padding to make it longer"' for i in range(60_000)]
    lines += ["spec:", "  podGroupTemplates:", "  - {name: a, schedulingPolicy: {gang: {minCount: 2}}}"]
    return "\n".join(lines) + "\n"


def _compile(count: int, folder: Path) -> float:
    path = folder / f"jobs-{count}.yaml"
    path.write_text("---\n".join(JOB.format(i=i) for i in range(count)), encoding="utf-8")
    return _seconds(lambda: main(["compile", str(path)], io.StringIO(), io.StringIO()))


LONG = """apiVersion: scheduling.k8s.io/v1alpha1
kind: Workload
metadata:
  name: long
  annotations: {{note: "{text}"}}
spec:
  podGroups:
  - {{name: a, policy: {{gang: {{minCount: 2}}}}}}
"""


def _cpu(work: Callable[[], object]) -> float:
    start = time.process_time()
    work()
    return time.process_time() - start


def _command(args: list[str], path: Path, runs: int = 3) -> float:
    """The least CPU time of ``runs`` runs of the command: on a shared machine the others carry its neighbours' noise."""
    return min(_cpu(lambda: main([*args, str(path)], io.StringIO(), io.StringIO())) for _ in range(runs))


def _linear(folder: Path) -> None:
    jobs = {}
    for count in (1000, 4000):
        path = folder / f"validate-{count}.yaml"
        path.write_text("---\n".join(JOB.format(i=i) for i in range(count)), encoding="utf-8")
        jobs[count] = _command(["validate"], path)
    print(
        f"(c) validate: 1,000 Jobs {jobs[1000]:.2f} s, 4,000 Jobs {jobs[4000]:.2f} s:"
        f" ratio {jobs[4000] / jobs[1000]:.2f} (target <= 4.8)"
    )
    sizes = {}
    for mb in (1, 4):
        path = folder / f"migrate-{mb}mb.yaml"
        path.write_text(LONG.format(text="x" * (mb * 1_000_000)), encoding="utf-8")
        sizes[mb] = _command(["migrate"], path)
    print(
        f"(d) migrate: 1 MB string {sizes[1]:.2f} s, 4 MB {sizes[4]:.2f} s:"
        f" ratio {sizes[4] / sizes[1]:.2f} (target <= 4.8)"
    )


def main_() -> None:
    text = _big_manifest()
    ours = _seconds(lambda: [textread.construct(text, n, node) for n, node in textread.documents(text) if node])
    pure = _seconds(lambda: yaml.load(text, Loader=yaml.SafeLoader))
    print(f"(a) {len(text) / 1e6:.1f} MB manifest: pure SafeLoader / textread = {pure / ours:.1f}x", end="")
    if getattr(yaml, "__with_libyaml__", False):
        libyaml = _seconds(lambda: yaml.load(text, Loader=yaml.CSafeLoader))
        print(f", textread / CSafeLoader = {ours / libyaml:.2f}x")
    else:
        print(" (libyaml not installed)")
    with tempfile.TemporaryDirectory() as folder:
        base = _compile(250, Path(folder)) / 250
        ratios = {n: _compile(n, Path(folder)) / n / base for n in (1000, 2000)}
    print("(b) compile, time per Job relative to 250 Jobs: " + ", ".join(f"{n}: {r:.2f}" for n, r in ratios.items()))
    with tempfile.TemporaryDirectory() as folder:
        _linear(Path(folder))


if __name__ == "__main__":
    main_()
