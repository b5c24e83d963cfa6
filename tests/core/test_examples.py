"""The example scripts print exactly what their golden files hold.

Each script under ``examples/`` runs as a user would run it
(``python examples/<name>.py``) and its stdout is compared byte for byte with
``tests/data/examples/<name>.out``. The three ports of the Go examples must
also print the Go ``// Output:`` lines unchanged.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
GOLDEN = Path(__file__).resolve().parents[1] / "data" / "examples"

NAMES = sorted(path.stem for path in EXAMPLES.glob("*.py"))

# The `// Output:` blocks of the Go library's examples/example.go (plus, for
# the delegated example, the Validate refusal the Go code really returns).
GO_OUTPUT = {
    "out_of_tree_validation": (
        'rejected: spec.scheduling.disruptionMode: Invalid value: "": '
        "the disruptionMode `all` is not supported with the Basic scheduling policy\n"
    ),
    "job_controller": (
        "Workload ml/trainer-wl controllerRef=batch/Job/trainer\n"
        '  template "trainer-pgt-0": gang minCount=4, topology=kubernetes.io/hostname\n'
        "PodGroup ml/trainer-pg -> workload=trainer-wl template=trainer-pgt-0 gang minCount=4\n"
    ),
    "delegated_pod_group": (
        "validate refused: <nil>: Internal error: cannot validate a builder constructed from an existing workload\n"
        "BuildWorkload refused for existing Workload\n"
        "PodGroup ml/trainer-pg -> workload=trainer-wl template=trainer-pgt-0 priorityClass=high-priority "
        "gang minCount=4 ownedBy=trainer-worker\n"
    ),
}


def run_example(name: str) -> bytes:
    result = subprocess.run(
        [sys.executable, str(EXAMPLES / f"{name}.py")],
        cwd=ROOT,
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr.decode()
    assert result.stderr == b"", result.stderr.decode()
    return result.stdout


def test_every_example_has_a_golden_file():
    assert NAMES, "no example found"
    assert sorted(path.stem for path in GOLDEN.glob("*.out")) == NAMES


@pytest.mark.parametrize("name", NAMES, ids=NAMES)
def test_example_output_matches_golden(name: str):
    assert run_example(name) == (GOLDEN / f"{name}.out").read_bytes()


@pytest.mark.parametrize("name", sorted(GO_OUTPUT), ids=sorted(GO_OUTPUT))
def test_golden_starts_with_the_go_output(name: str):
    assert (GOLDEN / f"{name}.out").read_text().startswith(GO_OUTPUT[name])


def test_job_controller_yaml_follows_a_separator():
    text = (GOLDEN / "job_controller.out").read_text()
    assert text[len(GO_OUTPUT["job_controller"]) :].startswith(
        "---\napiVersion: scheduling.k8s.io/v1beta1\nkind: Workload\n"
    )
