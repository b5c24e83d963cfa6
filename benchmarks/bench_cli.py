"""Time the command's start: ``--help`` against a bare Python start, and ``validate`` of one Job.

Each command runs ``--repeat`` times as a fresh process (the console
script's own entry, ``python -m workloadbuilder``); the fastest run of each
is kept, as wall time and as CPU time (user + system: what the command
costs, whatever else the machine is doing). Printed: the times, ``--help``
as a multiple of ``python -c pass`` (the target is at most 3x), and
``validate`` of one Job as a share of its 0.5 s budget and as a multiple of
``python -c pass`` (the target is at most 6x). Two floors are printed beside
it: a process that imports pydantic and builds one model, and one that
builds the client's Workload model, which is what any command that reads
or writes a Workload pays before doing anything. Run from the
repository's root:

    python benchmarks/bench_cli.py [--repeat N]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
JOB = ROOT / "tests" / "data" / "adapters" / "job" / "root-seed-8-workers.in.yaml"

# The least any command that builds one pydantic model pays: pydantic's import and its first model class.
ONE_MODEL = "from pydantic import BaseModel\nclass Block(BaseModel):\n    key: str = ''\nBlock(key='rack')"
# The least a command that reads or writes one Workload pays: the client's Workload model (pydantic included).
CLIENT_MODEL = (
    "from workloadbuilder._internal.kubernetes import defer_package_init\ndefer_package_init()\n"
    "from kubernetes.client import V1beta1Workload\nV1beta1Workload.model_validate({'spec': {}})"
)

COMMANDS = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "pydantic, one model": [sys.executable, "-c", ONE_MODEL],
    "the client's Workload model": [sys.executable, "-c", CLIENT_MODEL],
    "import workloadbuilder": [sys.executable, "-c", "import workloadbuilder"],
    "workloadbuilder --help": [sys.executable, "-m", "workloadbuilder", "--help"],
    "workloadbuilder validate JOB": [sys.executable, "-m", "workloadbuilder", "validate", str(JOB)],
}


def fastest(argv: list[str], repeat: int) -> tuple[float, float]:
    """The fastest of ``repeat`` runs: (wall seconds, CPU seconds)."""
    best_wall, best_cpu = float("inf"), float("inf")
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        best_wall, best_cpu = min(best_wall, wall), min(best_cpu, cpu)
    return best_wall, best_cpu


def main() -> None:
    """Run every command, print the table and the two ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    times = {name: fastest(argv, args.repeat) for name, argv in COMMANDS.items()}
    print(f"fastest of {args.repeat} runs; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    for name, (wall, cpu) in times.items():
        print(f"  {name:30} wall {wall * 1000:7.1f} ms   cpu {cpu * 1000:7.1f} ms")
    bare_wall, bare_cpu = times["python -c pass"]
    help_wall, help_cpu = times["workloadbuilder --help"]
    job_wall, job_cpu = times["workloadbuilder validate JOB"]
    print(
        f"--help / bare start: wall {help_wall / bare_wall:.2f}x, cpu {help_cpu / max(bare_cpu, 1e-3):.2f}x (target <= 3x)"
    )
    print(f"validate one Job / 0.5 s budget: wall {job_wall / 0.5:.2f}, cpu {job_cpu / 0.5:.2f} (target <= 1)")
    print(
        f"validate one Job / bare start: wall {job_wall / bare_wall:.2f}x, cpu {job_cpu / max(bare_cpu, 1e-3):.2f}x "
        "(target <= 6x)"
    )
    for name in ("pydantic, one model", "the client's Workload model"):
        wall, cpu = times[name]
        print(f"  floor, {name} / bare start: wall {wall / bare_wall:.2f}x, cpu {cpu / max(bare_cpu, 1e-3):.2f}x")


if __name__ == "__main__":
    main()
