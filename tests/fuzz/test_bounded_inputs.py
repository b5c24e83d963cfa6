"""Hostile inputs outside ``doctor`` are refused before the work, each with one readable line, as a table.

Each row is a reproducer of a finding of the second hostile-input round (issue
27, ``../shared/fuzz/round2``) written out small: the files, the command, the
exit code and the one line the user reads. All run in this process and each
bound is checked before the work, so the whole table takes about a second;
``check_round2.py`` runs the same inputs in capped child processes.
"""

from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from fuzz_helpers import assert_contract, run_cli

from workloadbuilder import Builder, manifests
from workloadbuilder._internal import textread
from workloadbuilder.adapters import plan_object
from workloadbuilder.adapters.documents import request_from_plan
from workloadbuilder.errors import InvalidArgumentError
from workloadbuilder.migration.gangs import migrate_kueue_pods
from workloadbuilder.migration.versions import migrate
from workloadbuilder.placement.cluster.model import Cluster
from workloadbuilder.placement.engine import place
from workloadbuilder.placement.planning import capacity as capacity_module
from workloadbuilder.placement.planning import simulate as simulate_module
from workloadbuilder.placement.planning.capacity import capacity
from workloadbuilder.placement.planning.simulate import QueueEntry, simulate
from workloadbuilder.placement.request.model import PlacementRequest

JOB = """apiVersion: batch/v1
kind: Job
metadata: {name: s, namespace: ml, uid: 11111111-2222-3333-4444-555555555555}
spec:
  parallelism: 1
  completions: 1
  scheduling: {schedulingPolicy: {gang: {}}}
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: i, resources: {requests: {cpu: "1"}}}]
"""
GENERATE = ["--generate", "zones=1,blocks=1,racks=1,hosts=2"]
CLUSTER = "nodes:\n- {name: a1, allocatable: {cpu: '64', pods: '110'}}\n"


def _queue(*entries: str) -> str:
    return "workloads:\n" + "".join(f"- {{file: job.yaml, {entry}}}\n" for entry in entries)


def _kueue_pod(count: str) -> str:
    labels = {"kueue.x-k8s.io/pod-group-name": "g"}
    metadata = {"name": "p1", "namespace": "ml", "labels": labels}
    metadata["annotations"] = {"kueue.x-k8s.io/pod-group-total-count": count}
    return json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": {"containers": []}})


def _volcano(metadata: Any, min_member: int) -> str:
    return json.dumps(
        {
            "apiVersion": "scheduling.volcano.sh/v1beta1",
            "kind": "PodGroup",
            "metadata": metadata,
            "spec": {"minMember": min_member},
        }
    )


def _training_cluster(roles: int) -> str:
    role = "  - {name: r%d, replicas: 1, template: {spec: {containers: [{name: c, image: i}]}}}\n"
    head = "apiVersion: training.example.com/v1\nkind: TrainingCluster\nmetadata: {name: t, namespace: ml, uid: u-1}\n"
    return head + "spec:\n  roles:\n" + "".join(role % i for i in range(roles))


LITERAL_COUNT = """apiVersion: training.example.com/v1
kind: TrainingCluster
groups:
- forEach: $.spec.roles[*]
  name: "{name}"
  pods: {count: 99999999999999999999, template: template}
"""
CARTESIAN = """apiVersion: training.example.com/v1
kind: TrainingCluster
groups:
- forEach: $.spec.roles[*]
  name: "a{name}"
  groups:
  - forEach: $.spec.roles[*]
    name: "b{name}"
    groups:
    - forEach: $.spec.roles[*]
      name: "c{name}"
      pods: {count: replicas, template: template}
"""
LONG = "x" * 100_000

FINDINGS = [
    pytest.param(
        {"job.yaml": JOB, "q.yaml": _queue("arrival: .nan, duration: 10")},
        ["simulate", "q.yaml", *GENERATE],
        2,
        "error: q.yaml: workloads[0].arrival: must be a finite number, got nan",
        id="F1-simulate-arrival-nan",
    ),
    pytest.param(
        {"job.yaml": JOB, "q.yaml": _queue("arrival: 0, duration: 1, count: 1000000")},
        ["simulate", "q.yaml", *GENERATE],
        2,
        "error: q.yaml: workloads[0].count: must be from 1 to 100000, got 1000000",
        id="F2-simulate-count-1e6",
    ),
    pytest.param(
        {"job.yaml": JOB, "q.yaml": _queue("arrival: 0, duration: 1, count: 100000", "arrival: 0, duration: 1")},
        ["simulate", "q.yaml", *GENERATE],
        2,
        "error: q.yaml: workloads[1] (s-1): the queue makes more than 100000 copies (workloadbuilder simulates at most"
        " 100000)",
        id="F2-simulate-copies-over-the-queue",
    ),
    pytest.param(
        {"job.yaml": JOB, "q.yaml": _queue("arrival: 0, duration: .inf", "arrival: .inf, duration: 1")},
        ["simulate", "q.yaml", *GENERATE, "--output", "json"],
        2,
        "error: q.yaml: workloads[0].duration: must be a finite number, got inf",
        id="F3-simulate-inf",
    ),
    pytest.param(
        {"job.yaml": JOB, "q.yaml": _queue("arrival: 1.0e+300, duration: 1")},
        ["simulate", "q.yaml", *GENERATE],
        2,
        "error: q.yaml: workloads[0].arrival: must be from 0 to 1000000000, got 1e+300",
        id="F3-simulate-time-past-max-seconds",
    ),
    pytest.param(
        {"job.yaml": JOB, "q.yaml": _queue(f"arrival: 0, duration: 1, priorityClassName: {LONG}")},
        ["simulate", "q.yaml", *GENERATE],
        2,
        'error: q.yaml: workloads[0] (s): podgroups.scheduling.k8s.io "s-68d7549f75-s-pgt-0-679f8dd666" is forbidden:'
        f" no PriorityClass with name {'x' * 1000}... was found",
        id="F4-simulate-100k-class-name",
    ),
    pytest.param(
        {"job.yaml": JOB},
        ["capacity", "job.yaml", *GENERATE, "--add-nodes-like", "node-00000", "--target", "1000000000"],
        2,
        "error: --target: must be from 1 to 100000 copies, got 1000000000",
        id="F5-capacity-target-1e9",
    ),
    pytest.param(
        {"job.yaml": JOB},
        ["simulate", "job.yaml", *GENERATE, "--timeout", "inf"],
        2,
        "error: --timeout: must be a positive number of seconds up to 86400, got inf",
        id="point4-simulate-timeout-inf",
    ),
    pytest.param(
        {"job.yaml": JOB, "c.yaml": CLUSTER},
        ["place", "job.yaml", "--cluster", "c.yaml", "--timeout", "1e400"],
        2,
        "error: --timeout: must be a positive number of seconds up to 86400, got inf",
        id="point4-place-timeout-1e400",
    ),
    pytest.param(
        {"p.yaml": _kueue_pod("\u00b2")},
        ["migrate", "p.yaml"],
        2,
        "error: p.yaml (document 1) Pod/p1: metadata.annotations[kueue.x-k8s.io/pod-group-total-count]: Invalid value:"
        ' "²": must be a number of pods',
        id="F11-migrate-kueue-superscript",
    ),
    pytest.param(
        {"pg.yaml": _volcano({"name": "pg", "namespace": "ml"}, 10**30)},
        ["migrate", "pg.yaml"],
        2,
        "error: pg.yaml (document 1) PodGroup/pg: spec.minMember: Invalid value: 1000000000000000000000000000000: must"
        " be less than or equal to 2147483647",
        id="F12a-migrate-min-member-1e30",
    ),
    pytest.param(
        {"p.yaml": _kueue_pod("2147483648")},
        ["migrate", "p.yaml"],
        2,
        "error: p.yaml (document 1) Pod/p1: metadata.annotations[kueue.x-k8s.io/pod-group-total-count]: Invalid value:"
        " 2147483648: must be less than or equal to 2147483647",
        id="F12b-migrate-kueue-2-31",
    ),
    pytest.param(
        {"pg.yaml": _volcano("oops", 2)},
        ["migrate", "pg.yaml"],
        2,
        "error: pg.yaml (document 1) PodGroup: metadata.name: Required value: the native Workload and PodGroup are"
        " named as the PodGroup",
        id="F12c-migrate-empty-name",
    ),
    pytest.param(
        {"t.yaml": _training_cluster(2), "map.yaml": LITERAL_COUNT},
        ["compile", "t.yaml", "--mapping", "map.yaml"],
        2,
        "error: map.yaml: not a valid CRD mapping: groups.0.pods.count.constrained-int: Input should be less than or"
        " equal to 100000; groups.0.pods.count.str: Input should be a valid string",
        id="F13-mapping-literal-count-1e20",
    ),
    pytest.param(
        {"t.yaml": _training_cluster(200), "map.yaml": CARTESIAN},
        ["compile", "t.yaml", "--mapping", "map.yaml"],
        2,
        "error: t.yaml (document 1) TrainingCluster/t: spec.roles: Forbidden: the mapping makes more than 10000 groups"
        " of this object (at most 10000)",
        id="F14-mapping-of-8M-groups",
    ),
]


@pytest.mark.parametrize(("files", "argv", "code", "line"), FINDINGS)
def test_each_hostile_input_is_one_readable_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str], argv: list[str], code: int, line: str
) -> None:
    for name, content in files.items():
        (tmp_path / name).write_text(content, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    got, out, err = run_cli(*argv)
    assert_contract(got, out, err)
    assert (got, [text for text in err.splitlines() if text.startswith("error:")]) == (code, [line])


def test_F7_render_to_a_fifo_is_refused_before_the_work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "job.yaml").write_text(JOB, encoding="utf-8")
    (tmp_path / "c.yaml").write_text(CLUSTER, encoding="utf-8")
    os.mkfifo(tmp_path / "fifo.svg")
    monkeypatch.chdir(tmp_path)
    got, out, err = run_cli("place", "job.yaml", "--cluster", "c.yaml", "--render", "fifo.svg", "--force")
    assert (got, out, err) == (
        2,
        "",
        "error: --render: fifo.svg is not a regular file; give a file's name or a new path\n",
    )


def test_F8_a_symlink_loop_is_read_once(tmp_path: Path) -> None:
    loop = tmp_path / "rloop"
    (loop / "sub").mkdir(parents=True)
    (loop / "a.yaml").write_text(JOB, encoding="utf-8")
    (loop / "sub" / "up").symlink_to("..")
    (loop / "self").symlink_to("../rloop")
    got, out, err = run_cli("validate", "-R", str(loop))
    assert (got, out.splitlines(), err) == (0, ['Job "s" is valid'], "")


class _Zeros(io.RawIOBase):
    """Standard input that never ends, as ``/dev/zero``."""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        buffer[:] = bytes(len(buffer))
        return len(buffer)


def test_F9_stdin_with_no_end_is_refused_past_the_input_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(textread, "MAX_INPUT_BYTES", 1 << 20)  # the cap is read when the input is
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(_Zeros())))
    got, out, err = run_cli("validate", "-")
    assert (got, out, err) == (
        2,
        "",
        "error: <stdin>: the input is larger than 1048576 bytes, the most workloadbuilder reads\n",
    )


def test_F9_a_file_past_the_cap_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(textread, "MAX_INPUT_BYTES", 100)
    (tmp_path / "big.yaml").write_text(JOB, encoding="utf-8")
    got, _out, err = run_cli("validate", str(tmp_path / "big.yaml"))
    assert (got, err.replace(str(tmp_path), "T")) == (
        2,
        "error: T/big.yaml: the input is larger than 100 bytes, the most workloadbuilder reads\n",
    )


def _deep(levels: int = 5000) -> dict[str, Any]:
    top: dict[str, Any] = {}
    here = top
    for _ in range(levels):
        here["a"] = {}
        here = here["a"]
    return top


def _gang(pods: int = 1) -> PlacementRequest:
    group = {"kind": "PodGroup", "metadata": {"name": "w"}, "spec": {"schedulingPolicy": {"gang": {"minCount": pods}}}}
    return PlacementRequest.from_groups([group], {"w": (pods, {"cpu": "1"})})


def _one_node() -> Cluster:
    return Cluster.from_yaml({"nodes": [{"name": "n1", "allocatable": {"cpu": "1", "pods": "110"}}]})


API = [
    pytest.param(
        lambda: request_from_plan({}),
        TypeError,
        "request_from_plan(): plan must be a Plan or its Compiled, not dict",
        id="request-from-plan-dict",
    ),
    pytest.param(
        lambda: simulate("str", _one_node()),
        TypeError,
        "simulate(): workloads must be a sequence of QueueEntry, not str",
        id="simulate-str",
    ),
    pytest.param(
        lambda: simulate([QueueEntry("w", _gang(), float("nan"), 1)], _one_node()),
        InvalidArgumentError,
        "workloads[0] (w): arrival must be a finite number of seconds from 0 to 1000000000, got NaN",
        id="simulate-nan",
    ),
    pytest.param(
        lambda: simulate([QueueEntry("w", _gang(), 0, 1, count=10**6)], _one_node()),
        InvalidArgumentError,
        "workloads[0] (w): the queue makes more than 100000 copies (workloadbuilder simulates at most 100000)",
        id="simulate-count-1e6",
    ),
    pytest.param(
        lambda: Builder(None, options={"x": 1}),
        InvalidArgumentError,
        "options: x: Extra inputs are not permitted",
        id="builder-options-unknown",
    ),
    pytest.param(
        lambda: Builder(None, options=5),
        TypeError,
        "options must be BuildOptions or a mapping of its fields, not int",
        id="builder-options-int",
    ),
    pytest.param(
        lambda: place(_gang(), _one_node(), timeout=10**400),
        InvalidArgumentError,
        "timeout must be a positive number of seconds up to 86400, got 1" + "0" * 400,
        id="place-timeout-10-400",
    ),
    pytest.param(
        lambda: place({}, _one_node()),
        TypeError,
        "place(): request must be a PlacementRequest, not dict",
        id="place-request-dict",
    ),
    pytest.param(
        lambda: capacity(_gang(), _one_node(), target=10**9),
        InvalidArgumentError,
        "the target must be from 1 to 100000 copies, not 1000000000",
        id="capacity-target-1e9",
    ),
    pytest.param(
        lambda: migrate({"kind": "Workload", "spec": _deep()}),
        InvalidArgumentError,
        "the manifest to migrate nests deeper than 100 levels",
        id="migrate-deep",
    ),
    pytest.param(
        lambda: manifests.to_yaml(_deep()),
        InvalidArgumentError,
        "the object to write nests deeper than 100 levels",
        id="to-yaml-deep",
    ),
    pytest.param(
        lambda: plan_object({"apiVersion": "batch/v1", "kind": "Job", "spec": _deep()}),
        InvalidArgumentError,
        "an object to plan nests deeper than 100 levels",
        id="plan-object-deep",
    ),
    pytest.param(
        lambda: migrate_kueue_pods("pods"),
        TypeError,
        "migrate_kueue_pods reads a sequence of Pods, not str",
        id="kueue-pods-str",
    ),
]


@pytest.mark.parametrize(("call", "kind", "message"), API)
def test_the_python_api_refuses_at_its_entry(call: Any, kind: type[Exception], message: str) -> None:
    with pytest.raises(kind) as refused:
        call()
    assert (type(refused.value), str(refused.value)) == (kind, message)


class _Clock:
    """A monotonic clock that moves one second at every reading: any time bound is reached at once."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        self.now += 1.0
        return self.now


def test_a_simulation_the_time_bound_stops_is_undecided(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(simulate_module, "time", _Clock())
    result = simulate([QueueEntry("w", _gang(), 0, 10, count=2)], _one_node(), timeout=1.5)
    assert (result.text.splitlines(), result.to_dict()["undecided"], result.makespan) == (
        [
            "w-1: arrived 0s, undecided (a time bound was reached)",
            "w-2: arrived 0s, undecided (a time bound was reached)",
            "stopped at 0s: the time bound (1.5 s) was reached",
            "makespan: undecided (a time bound was reached)",
        ],
        True,
        None,
    )


def test_a_count_the_time_bound_cuts_short_is_a_lower_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(capacity_module, "time", _Clock())
    answer = capacity(_gang(), _one_node(), add_nodes_like="n1", target=3, timeout=1.5)
    assert (answer.text.splitlines(), answer.to_dict()["toAdd"]) == (
        [
            "copies that fit: at least 1 (undecided past that: the time bound was reached)",
            "stranded after those copies:",
            "  cpu   0",
            "  pods  109",
            "undecided: the time bound was reached before finding how many nodes like n1 make 3 copies fit",
        ],
        {"like": "n1", "count": None, "target": 3, "undecided": True},
    )
