"""``workloadbuilder place`` and ``explain``: inputs, clusters, outputs, exit codes, the drawing, progress, the docs.

The files the sessions of docs/cli.md read (``cluster.yaml``, ``train.yaml``,
...) are the fixtures here too: ``workdir`` writes them into a scratch
directory, links the repository's ``examples`` and ``tests`` beside them and
runs there, so every path in a table is what a reader types.
"""

from __future__ import annotations

import importlib
import io
import json
import os
import re
import shlex
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml

from workloadbuilder.cli import run_placement as place_module
from workloadbuilder.cli.app import main
from workloadbuilder.cli.deadline import Deadline
from workloadbuilder.cli.progress import Progress
from workloadbuilder.placement.cluster.generate import generate_kubectl

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "cli.md"
JOBSET = "examples/manifests/jobset-topology-constrained.yaml"
EIGHT = "tests/data/adapters/job/root-seed-8-workers.in.yaml"
GEN_1024 = "zones=2,racks=8,hosts=16,gpus=8"
GEN_SHORT = "zones=2,blocks=1,racks=1,hosts=4,gpus=1"


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def lines(*text: str) -> str:
    return "".join(line + "\n" for line in text)


# -- the docs page's sessions, and the scratch directory they run in ----------------------------------

_FILE = re.compile(r"^<!-- file: (\S+) -->$")


@dataclass
class Command:
    """One ``$`` line of a console block and what it printed."""

    line: str
    output: list[str] = field(default_factory=list)


@dataclass
class Page:
    """The files a page defines (``<!-- file: NAME -->`` before a block) and its console sessions."""

    files: dict[str, str]
    sessions: list[tuple[int, list[Command]]]  # (line of the first command, commands)


def read_page(text: str) -> Page:
    """The files and sessions of a page."""
    rows = text.splitlines()
    files: dict[str, str] = {}
    sessions: list[tuple[int, list[Command]]] = []
    i = 0
    while i < len(rows):
        match = _FILE.match(rows[i])
        if match:
            assert rows[i + 1].startswith("```"), f"line {i + 2}: a file block must follow its name"
            end = rows.index("```", i + 2)
            files[match.group(1)] = "\n".join(rows[i + 2 : end]) + "\n"
            i = end + 1
        elif rows[i] == "```console":
            end = rows.index("```", i + 1)
            commands: list[Command] = []
            for row in rows[i + 1 : end]:
                if row.startswith("$ "):
                    commands.append(Command(row[2:]))
                else:
                    assert commands, f"line {i + 2}: output before the first command"
                    commands[-1].output.append(row)
            sessions.append((i + 2, commands))
            i = end + 1
        else:
            i += 1
    return Page(files, sessions)


def prepare(directory: Path, page: Page) -> None:
    """Write the page's files into ``directory`` and link the repository's examples and tests beside them."""
    for name, text in page.files.items():
        (directory / name).write_text(text)
    for name in ("examples", "tests"):
        if not (directory / name).exists():
            os.symlink(ROOT / name, directory / name)


def run_line(line: str, last_status: int) -> tuple[int, list[str]]:
    """One session line: standard error then standard output, as a terminal shows them for these commands.

    Understands ``echo $?``, a trailing ``2>/dev/null`` and ``| head -n N``.
    """
    if line == "echo $?":
        return last_status, [str(last_status)]
    words = shlex.split(line)
    head = None
    if "|" in words:
        at = words.index("|")
        assert words[at + 1 : at + 3] == ["head", "-n"], f"only `| head -n N` is understood: {line}"
        head, words = int(words[at + 3]), words[:at]
    quiet = "2>/dev/null" in words
    words = [word for word in words if word != "2>/dev/null"]
    assert words[0] == "workloadbuilder", line
    status, out, err = run(*words[1:])
    printed = out.splitlines()[:head] if head is not None else out.splitlines()
    return status, ([] if quiet else err.splitlines()) + printed


def replay(commands: list[Command]) -> list[Command]:
    """The commands again, each with what it prints now."""
    status, out = 0, []
    for command in commands:
        status, printed = run_line(command.line, status)
        out.append(Command(command.line, printed))
    return out


DOCS = read_page(PAGE.read_text())


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    prepare(tmp_path, DOCS)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize(("line", "commands"), DOCS.sessions, ids=[f"line-{line}" for line, _ in DOCS.sessions])
def test_cli_page_sessions_print_what_they_show(workdir: Path, line: int, commands: list[Command]) -> None:
    assert replay(commands) == commands


# -- place ----------------------------------------------------------------------------------------------

JOBSET_PLACED = lines(
    "cluster: 1,024 nodes, generated (zones=2,blocks=4,racks=8,hosts=16,gpus=8,cpu=64,memory=512Gi,seed=0,used=0.2; "
    "rack label topology.kubernetes.io/rack)",
    "",
    f"JobSet default/topo-training ({JOBSET}, document 1): placed",
    "  PodGroup topo-training-69ddf977d7-driver-686b5f78f6 (template driver; basic)",
    "    placed 1 of 1 pod in the cluster, on 1 node: node-00000",
    "    capacity left in the cluster: cpu 60457.5, memory 473.5Ti, pods 112426",
    "  PodGroup topo-training-69ddf977d7-workers-5f46865b65 (template workers; gang, minCount 1; "
    "topology topology.kubernetes.io/rack)",
    "    placed 4 of 4 pods in rack rack-00-1-02, on 1 node: node-00162 x4",
    "    capacity left in rack rack-00-1-02: cpu 852.6, memory 6.4Ti, pods 1749",
    "",
    "feasible (kube-scheduler): 1 of 1 object placed",
    "verdict: placeable",
)

EIGHT_PG = "trainer-5d5cd87f58-trainer-pgt-0-9cc94c4c4"
EIGHT_SHORT = lines(
    "cluster: 8 nodes, generated (zones=2,blocks=1,racks=1,hosts=4,gpus=1,cpu=64,memory=512Gi,seed=0,used=0.2)",
    "",
    f"Job training/trainer ({EIGHT}, document 1): not placed",
    "  PodGroup trainer-5d5cd87f58-trainer-pgt-0-9cc94c4c4 (template trainer-pgt-0; gang, minCount 8; "
    "topology topology.kubernetes.io/zone)",
    "    not placed (8 of its 8 pods needed)",
    "  why:",
    "    `trainer-5d5cd87f58-trainer-pgt-0-9cc94c4c4` cannot be placed",
    # kube-scheduler's FailedScheduling messages, from its first placement (zone-00, 4 nodes)
    f"    `{EIGHT_PG}` pod `{EIGHT_PG}-4`: 0/4 nodes are available: 4 Insufficient nvidia.com/gpu.",
    f"    `{EIGHT_PG}` pod `{EIGHT_PG}-5`: pod group is unschedulable, 0/2 placements are available, "
    "first placement status: minCount (8) cannot be satisfied: 4 scheduled, 3 remaining",
    f"    `{EIGHT_PG}` pod `{EIGHT_PG}-0`: pod group is unschedulable, pod group is unschedulable, "
    "0/2 placements are available, first placement status: minCount (8) cannot be satisfied: 4 scheduled, "
    "3 remaining, pod group preemption: No preemption victims found for incoming preemptor",
    "    `trainer-5d5cd87f58-trainer-pgt-0-9cc94c4c4`: zone zone-00 fits 4 of 8 pods; 0 of 2 zones fit 8",
    "    preemption cannot help: nothing of lower priority runs",
    "",
    "not feasible (kube-scheduler): 0 of 1 object placed",
    "verdict: never: even with no pod running: `trainer-5d5cd87f58-trainer-pgt-0-9cc94c4c4`: zone zone-00 fits 4 of 8 "
    "pods; 0 of 2 zones fit 8",
)

TRAIN_HEAD = lines(
    "cluster: 2 nodes from cluster.yaml",
    "",
)

TRAIN_STOLEN = TRAIN_HEAD + lines(
    "CompositePodGroup train (train.yaml, document 1): not placed",
    "  CompositePodGroup train (gang, minGroupCount 2; topology topology.example.com/block)",
    "    not placed (2 of its 2 child groups needed)",
    "    PodGroup workers-0 (gang, minCount 2; topology topology.example.com/rack)",
    "      not placed (2 of its 3 pods needed)",
    "    PodGroup workers-1 (gang, minCount 3; topology topology.example.com/rack)",
    "      not placed (3 of its 3 pods needed)",
    "  why:",
    "    `train` cannot be placed",
    "    `train`: block block-A fits 1 of 2 child groups; 0 of 1 block fit 2",
    "    `workers-1`: rack rack-A2 in block block-A fits 3 of 3 pods on its own, 0 once `workers-0` took its share; "
    "1 of 2 racks fit 3",
    "    preemption cannot help: nothing of lower priority runs",
    "",
    "not feasible (kube-scheduler): 0 of 1 object placed",
    "verdict: unreachable: kube-scheduler will not place it as submitted, but an arrangement exists on this cluster "
    "(`train` in block block-A; `workers-0` in block block-A, rack rack-A1; `workers-1` in block block-A, rack "
    "rack-A2); kube-scheduler's greedy order misses it because `workers-0` takes rack `rack-A2` first; "
    "to reach it, change the order of the groups or loosen a topology key so that kube-scheduler's in-order choice "
    "leaves room for the rest (`--strategy complete` shows the whole arrangement)",
)

TRAIN_FOUND = TRAIN_HEAD + lines(
    "CompositePodGroup train (train.yaml, document 1): placed",
    "  CompositePodGroup train (gang, minGroupCount 2; topology topology.example.com/block)",
    "    placed in block block-A (2 PodGroups below)",
    "    capacity left in block block-A: pods 215, nvidia.com/gpu 0",
    "    PodGroup workers-0 (gang, minCount 2; topology topology.example.com/rack)",
    "      placed 2 of 3 pods in block block-A, rack rack-A1, on 1 node: a1 x2",
    "      capacity left in block block-A, rack rack-A1: pods 108, nvidia.com/gpu 0",
    "    PodGroup workers-1 (gang, minCount 3; topology topology.example.com/rack)",
    "      placed 3 of 3 pods in block block-A, rack rack-A2, on 1 node: a2 x3",
    "      capacity left in block block-A, rack rack-A2: pods 107, nvidia.com/gpu 0",
    "  notes:",
    "    a placement exists but kube-scheduler's greedy order will not find it, because `workers-0` takes rack "
    "`rack-A2` first",
    "",
    "feasible (complete): 1 of 1 object placed",
    "verdict: placeable",
)


@pytest.mark.parametrize(
    ("argv", "code", "out", "err"),
    [
        # No uid, and no warning: where the pods go does not depend on the names.
        (f"place {JOBSET} --generate {GEN_1024}", 0, JOBSET_PLACED, ""),
        (f"place {EIGHT} --generate {GEN_SHORT}", 1, EIGHT_SHORT, None),
        ("place train.yaml --cluster cluster.yaml", 1, TRAIN_STOLEN, ""),
        ("place train.yaml --cluster cluster.yaml --strategy complete", 0, TRAIN_FOUND, ""),
    ],
    ids=["jobset-on-1024-generated-nodes", "job-wider-than-a-zone", "runtime-groups-greedy", "runtime-groups-complete"],
)
def test_place_prints_where_each_group_lands_or_why_not(workdir, argv, code, out, err):
    got = run(*shlex.split(argv))
    assert got[:2] == (code, out)
    if err is not None:
        assert got[2] == err


EXPLAIN_STOLEN = TRAIN_HEAD + lines(
    "CompositePodGroup train (train.yaml, document 1): not placed (kube-scheduler)",
    "  `train` cannot be placed",
    "  quorum:",
    "    `train`: 2 groups for a minGroupCount of 2: met",
    "    `workers-0`: 3 pods for a minCount of 2: met",
    "    `workers-1`: 3 pods for a minCount of 3: met",
    "  levels, outermost first:",
    "    [block] `train`: block block-A fits 1 of 2 child groups; 0 of 1 block fit 2",
    "    [rack] `workers-1`: rack rack-A2 in block block-A fits 3 of 3 pods on its own, "
    "0 once `workers-0` took its share; 1 of 2 racks fit 3",
    "  preemption: preemption cannot help: nothing of lower priority runs",
    "",
    "not feasible (kube-scheduler): 0 of 1 object placed",
    "verdict: unreachable: kube-scheduler will not place it as submitted, but an arrangement exists on this cluster "
    "(`train` in block block-A; `workers-0` in block block-A, rack rack-A1; `workers-1` in block block-A, rack "
    "rack-A2); kube-scheduler's greedy order misses it because `workers-0` takes rack `rack-A2` first; "
    "to reach it, change the order of the groups or loosen a topology key so that kube-scheduler's in-order choice "
    "leaves room for the rest (`--strategy complete` shows the whole arrangement)",
)

EXPLAIN_FOUND = TRAIN_HEAD + lines(
    "CompositePodGroup train (train.yaml, document 1): placed (complete)",
    "  `train`: placed 5 pods of 3 groups in block block-A",
    "  a placement exists but kube-scheduler's greedy order will not find it, because `workers-0` takes rack "
    "`rack-A2` first",
    "  search: found by the complete search (exact)",
    "",
    "feasible (complete): 1 of 1 object placed",
    "verdict: placeable",
)

EXPLAIN_TOO_FEW = lines(
    "cluster: 2 nodes from cluster.yaml",
    "",
    "CompositePodGroup train (train.yaml, document 1): not placed (complete)",
    "  `train` cannot be placed",
    "  quorum:",
    "    `train`: 2 groups for a minGroupCount of 2: met",
    "    `workers-0`: 3 pods for a minCount of 2: met",
    "    `workers-1`: 3 pods for a minCount of 3: met",
    "  levels, outermost first:",
    "    [block] `train`: block block-A fits 1 of 2 child groups; 0 of 1 block fit 2",
    "    [rack] `workers-1`: rack rack-A1 in block block-A fits 2 of 3 pods; 0 of 2 racks fit 3",
    "  preemption: preemption cannot help: nothing of lower priority runs",
    "  search: no placement exists (proved by the complete search)",
    "",
    "not feasible (complete): 0 of 1 object placed",
    "verdict: never: even with no pod running: `train`: block block-A fits 1 of 2 child groups; 0 of 1 block fit 2; "
    "`workers-1`: rack rack-A1 in block block-A fits 2 of 3 pods; 0 of 2 racks fit 3; "
    "no placement exists (proved by the complete search)",
)


@pytest.mark.parametrize(
    ("argv", "code", "out"),
    [
        ("explain train.yaml --cluster cluster.yaml", 1, EXPLAIN_STOLEN),
        ("explain train.yaml --cluster cluster.yaml --strategy complete", 0, EXPLAIN_FOUND),
        ("explain train.yaml --cluster small.yaml --strategy complete", 1, EXPLAIN_TOO_FEW),
    ],
    ids=["greedy-misses-it", "complete-finds-it", "no-placement-exists"],
)
def test_explain_prints_only_the_explanation_level_by_level(workdir, argv, code, out):
    small = (workdir / "cluster.yaml").read_text().replace('nvidia.com/gpu: "3"', 'nvidia.com/gpu: "2"')
    (workdir / "small.yaml").write_text(small.replace("cluster.yaml", "small.yaml"))
    expected = out.replace("from cluster.yaml", "from small.yaml") if "small.yaml" in argv else out
    assert run(*shlex.split(argv)) == (code, expected, "")


CUT_SHORT = "the complete search reached its time bound (1e-06 s)"
CUT_SHORT_VERDICT = f"verdict: undecided: {CUT_SHORT} on this cluster"


def _answer_in(name: str) -> list[str]:
    """The lines of the text answer beside the drawing of an HTML page, markup removed."""
    page = Path(name).read_text()
    answer = re.search(r'<pre class="answer">(.*?)</pre>', page, re.S)
    assert answer is not None
    return re.sub(r"</?code>", "`", answer.group(1)).splitlines()


# id -> (extra argv, what the answer shows: text lines, JSON fields or the HTML page's answer)
SEARCH_CUT_SHORT = {
    "place-text": (
        [],
        lambda out: out.split("  why:\n", 1)[1].split("\n\n", 1)[0].splitlines(),
        [
            "    `train` is not placed",
            "    `train`: block block-A fits 1 of 2 child groups; 0 of 1 block fit 2",
            "    `workers-1`: rack rack-A2 in block block-A fits 3 of 3 pods on its own, "
            "0 once `workers-0` took its share; 1 of 2 racks fit 3",
            f"    {CUT_SHORT}: no placement found, none ruled out",
            "    preemption cannot help: nothing of lower priority runs",
        ],
    ),
    "place-json": (
        ["--output", "json"],
        lambda out: [json.loads(out)["explanation"]["roots"][0]["text"][0], json.loads(out)["verdict"]],
        [
            "`train` is not placed",
            {"tier": "undecided", "victims": [], "cause": f"{CUT_SHORT} on this cluster"},
        ],
    ),
    "place-html": (
        ["--render", "answer.html"],
        lambda out: _answer_in("answer.html")[-3:],
        ["", "not feasible (complete): 0 of 1 object placed", CUT_SHORT_VERDICT],
    ),
}


@pytest.mark.parametrize(("extra", "shown", "expected"), SEARCH_CUT_SHORT.values(), ids=SEARCH_CUT_SHORT.keys())
def test_a_search_cut_short_is_never_called_a_proof(workdir, monkeypatch, extra, shown, expected):
    monkeypatch.setattr(Deadline, "for_engine", lambda self: 1e-6)  # --timeout leaves the searches 1 microsecond
    code, out, err = run(
        "place", "train.yaml", "--cluster", "cluster.yaml", "--strategy", "complete", "--timeout", "60", *extra
    )
    assert (code, err) == (1, "")
    assert shown(out) == expected
    if not extra:
        assert out.splitlines()[-1] == CUT_SHORT_VERDICT


def _gang_yaml(name: str, pods: int) -> str:
    """A PodGroup ``name`` (gang of ``pods``) and its pods, one GPU each."""
    group = (
        f"apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {{name: {name}}}\n"
        f"spec: {{schedulingPolicy: {{gang: {{minCount: {pods}}}}}}}\n"
    )
    pod = (
        "---\n{apiVersion: v1, kind: Pod, metadata: {name: %s-%d}, spec: {schedulingGroup: {podGroupName: %s}, "
        'containers: [{name: main, image: x, resources: {requests: {nvidia.com/gpu: "1"}}}]}}\n'
    )
    return group + "".join(pod % (name, i, name) for i in range(pods))


TWO_NODES = """\
nodes:
- {name: n1, allocatable: {cpu: "64", memory: 256Gi, nvidia.com/gpu: "8", pods: "110"}}
- {name: n2, allocatable: {cpu: "64", memory: 256Gi, nvidia.com/gpu: "8", pods: "110"}}
"""


def test_explain_names_the_earlier_roots_and_qualifies_the_proof(workdir):
    (workdir / "two.yaml").write_text(TWO_NODES)
    (workdir / "roots.yaml").write_text("---\n".join([_gang_yaml("a", 6), _gang_yaml("c", 6), _gang_yaml("b", 12)]))
    code, out, err = run("explain", "roots.yaml", "--cluster", "two.yaml", "--strategy", "complete")
    assert (code, err) == (1, "")
    assert out.split("PodGroup b ", 1)[1].splitlines()[1:] == [
        "  `b` cannot be placed",
        "  kube-scheduler (FailedScheduling):",
        "    `b` pod `b-4`: 0/2 nodes are available: 2 Insufficient nvidia.com/gpu.",
        "    `b` pod `b-5`: pod group is unschedulable, 0/1 placements are available, "
        "first placement status: minCount (12) cannot be satisfied: 4 scheduled, 7 remaining",
        "    `b` pod `b-0`: pod group is unschedulable, pod group is unschedulable, 0/1 placements are available, "
        "first placement status: minCount (12) cannot be satisfied: 4 scheduled, 7 remaining, "
        "pod group preemption: No preemption victims found for incoming preemptor",
        "  quorum:",
        "    `b`: 12 pods for a minCount of 12: met",
        "  levels, outermost first:",
        "    [domain] `b`: the cluster fits 4 of 12 pods",
        "  resources:",
        "    `b`: nvidia.com/gpu leaves 1 of 2 nodes without room for one pod",
        "  earlier roots: `a`, `c` were placed first and took the room `b` needs: without them, `b` fits on the "
        "nodes where `a` placed 6 pods and `c` 6",
        "  preemption: preemption cannot help: nothing of lower priority runs",
        "  search: no placement exists beside what `a`, `c` placed (proved by the complete search)",
        "",
        "not feasible (complete): 2 of 3 objects placed",
        "verdict: never: even with no pod running: `b`: the cluster fits 4 of 12 pods; `b`: nvidia.com/gpu rules "
        "out the most nodes (1 of 2 lack room for one pod); `a`, `c` were placed first and took the room `b` needs: "
        "without them, `b` fits on the nodes where `a` placed 6 pods and `c` 6; no placement exists beside what "
        "`a`, `c` placed (proved by the complete search)",
    ]


def test_json_output_is_the_documented_answer_format(workdir):
    code, out, _ = run("place", "train.yaml", "--cluster", "cluster.yaml", "--strategy", "complete", "--output", "json")
    answer = json.loads(out)
    assert code == 0
    assert list(answer) == ["feasible", "strategy", "groups", "victims", "explanation", "text", "warnings", "verdict"]
    assert answer["verdict"] == {"tier": "placeable", "victims": [], "cause": None}
    assert [(g["name"], g["domains"], [p["node"] for p in g["pods"]], g["required"]) for g in answer["groups"]] == [
        ("train", {"topology.example.com/block": "block-A"}, [], 2),
        ("workers-0", {"topology.example.com/block": "block-A", "topology.example.com/rack": "rack-A1"}, ["a1"] * 2, 2),
        ("workers-1", {"topology.example.com/block": "block-A", "topology.example.com/rack": "rack-A2"}, ["a2"] * 3, 3),
    ]
    assert [pod["name"] for pod in answer["groups"][1]["pods"]] == ["w0-0", "w0-1"]
    _, explained, _ = run(
        "explain", "train.yaml", "--cluster", "cluster.yaml", "--strategy", "complete", "--output", "json"
    )
    assert json.loads(explained) == {**answer["explanation"], "verdict": answer["verdict"]}


# -- clusters -----------------------------------------------------------------------------------------


def write_kubectl(directory: Path, as_yaml: bool = False) -> None:
    nodes, pods, groups = generate_kubectl(
        32, seed=2, hosts_per_rack=4, racks_per_block=2, blocks_per_zone=2, running_groups=3
    )
    for name, data in (("nodes", nodes), ("pods", pods), ("groups", groups)):
        text = json.dumps(data)
        (directory / f"{name}.json").write_text(text)
        if as_yaml:  # kubectl -o yaml: the same List in block style
            (directory / f"{name}.yaml").write_text(yaml.safe_dump(data))


@pytest.mark.parametrize(
    ("options", "first_line", "code"),
    [
        ("--cluster cluster.yaml", "cluster: 2 nodes from cluster.yaml", 1),
        ("--cluster cluster.json", "cluster: 2 nodes from cluster.json", 1),
        ("--cluster nodes.json", "cluster: 32 nodes from nodes.json", 0),
        ("--cluster items.json", "cluster: 32 nodes from items.json", 0),
        ("--cluster node.json", "cluster: 1 node from node.json", 0),
        (
            "--cluster nodes.json --pods pods.json --groups groups.json",
            "cluster: 32 nodes, 4 running pods from nodes.json, pods.json, groups.json",
            0,
        ),
        ("--cluster nodes.yaml --pods pods.yaml", "cluster: 32 nodes, 4 running pods from nodes.yaml, pods.yaml", 0),
        (
            "--generate hosts=2,racks=2,blocks=1",
            "cluster: 4 nodes, generated (zones=1,blocks=1,racks=2,hosts=2,gpus=8,cpu=64,memory=512Gi,seed=0,used=0.2)",
            0,
        ),
    ],
    ids=[
        "compact-yaml",
        "compact-json",
        "kubectl-nodes",
        "kubectl-items-only",
        "kubectl-one-node",
        "kubectl-with-pods-and-groups",
        "kubectl-as-yaml",
        "generated",
    ],
)
def test_the_cluster_file_says_which_format_it_is(workdir, options, first_line, code):
    write_kubectl(workdir, as_yaml=True)
    items = json.loads((workdir / "nodes.json").read_text())["items"]
    (workdir / "items.json").write_text(json.dumps(items))
    (workdir / "node.json").write_text(json.dumps(items[0]))
    (workdir / "cluster.json").write_text(json.dumps(yaml.safe_load((workdir / "cluster.yaml").read_text())))
    got, out, err = run("place", "train.yaml", *shlex.split(options))
    assert (got, out.splitlines()[0], err) == (code, first_line, "")


PREEMPT_CLUSTER = """\
nodes:
- name: n1
  labels: {topology.example.com/rack: r1}
  allocatable: {cpu: "64", memory: 256Gi, nvidia.com/gpu: "4", pods: "110"}
- name: n2
  labels: {topology.example.com/rack: r1}
  allocatable: {cpu: "64", memory: 256Gi, nvidia.com/gpu: "4", pods: "110"}
running:
- name: batch
  priority: 10
  disruptionMode: all
  pods: [{name: batch-0, node: n1, requests: {nvidia.com/gpu: "4"}}]
- {name: notebook, kind: Pod, priority: 5, node: n2, requests: {nvidia.com/gpu: "2"}}
"""

URGENT = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: urgent}
spec:
  priority: 100
  schedulingPolicy: {gang: {minCount: 4}}
  schedulingConstraints: {topology: [{key: topology.example.com/rack}]}
"""


def urgent_pods(n: int) -> str:
    pod = (
        "---\n{apiVersion: v1, kind: Pod, metadata: {name: urgent-%d}, spec: {schedulingGroup: {podGroupName: urgent}, "
        'containers: [{name: main, image: x, resources: {requests: {nvidia.com/gpu: "1"}}}]}}\n'
    )
    return "".join(pod % i for i in range(n))


@pytest.mark.parametrize(
    ("preempt", "code", "tail"),
    [
        (
            [],
            1,
            lines(
                "  why:",
                "    `urgent` cannot be placed",
                "    `urgent` pod `urgent-2`: 0/2 nodes are available: 2 Insufficient nvidia.com/gpu.",
                "    `urgent` pod `urgent-3`: pod group is unschedulable, 0/1 placements are available, "
                "first placement status: minCount (4) cannot be satisfied: 2 scheduled, 1 remaining",
                "    `urgent`: rack r1 fits 2 of 4 pods; 0 of 1 rack fit 4",
                "    `urgent`: rack r1: 2 nodes; 1 Insufficient nvidia.com/gpu; 1 fits 2 pods",
                "    `urgent`: nvidia.com/gpu rules out the most nodes (1 of 2 lack room for one pod)",
                "    preemption would help: evicting 1 unit (1 pod, priority up to 10)",
                "",
                "not feasible (kube-scheduler): 0 of 1 object placed",
                "verdict: placeable-after-preemption (evicting batch)",
            ),
        ),
        (
            ["--preempt"],
            0,
            lines(
                "  notes:",
                "    evicts 1 unit (1 pod, priority up to 10): `batch`",
                "",
                "evicted:",
                "  PodGroup batch (priority 10): 1 pod on n1",
                "",
                "feasible (kube-scheduler): 1 of 1 object placed",
                "verdict: placeable-after-preemption (evicting batch)",
            ),
        ),
    ],
    ids=["says-preemption-would-help", "evicts-with-preempt"],
)
def test_preemption(workdir, preempt, code, tail):
    (workdir / "busy.yaml").write_text(PREEMPT_CLUSTER)
    (workdir / "urgent.yaml").write_text(URGENT + urgent_pods(4))
    got, out, err = run("place", "urgent.yaml", "--cluster", "busy.yaml", *preempt)
    assert (got, err) == (code, "")
    assert out.endswith(tail)


def test_a_job_bringing_its_own_podgroup_places_its_pods_in_it(workdir):
    (workdir / "own.yaml").write_text(
        "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: my-own-group, namespace: ml}\n"
        "spec: {schedulingPolicy: {gang: {minCount: 3}}}\n"
    )
    code, out, _ = run(
        "place", "tests/data/adapters/job/bring-your-own.in.yaml", "own.yaml", "--cluster", "cluster.yaml"
    )
    assert (code, out) == (
        0,
        lines(
            "cluster: 2 nodes from cluster.yaml",
            "",
            "PodGroup my-own-group (own.yaml, document 1): placed",
            "  PodGroup my-own-group (gang, minCount 3)",
            "    placed 3 of 3 pods in the cluster, on 1 node: a1 x3",
            "    capacity left in the cluster: pods 217",
            "",
            "feasible (kube-scheduler): 1 of 1 object placed",
            "verdict: placeable",
        ),
    )


def test_compile_output_places_as_the_object_does(workdir):
    _, compiled, _ = run("compile", JOBSET)
    (workdir / "compiled.yaml").write_text(compiled)
    code, out, _ = run("place", "compiled.yaml", "--generate", GEN_1024)
    assert (code, out) == (0, JOBSET_PLACED.replace(f"({JOBSET}, document 1)", "(compiled.yaml, document 4)"))


# -- bad input --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ("place train.yaml", "give one of --cluster FILE and --generate KEY=VALUE,..."),
        (
            "place train.yaml --cluster cluster.yaml --generate zones=1",
            "give one of --cluster FILE and --generate KEY=VALUE,...",
        ),
        (
            "place train.yaml --generate zones=2,rack=8",
            (
                "--generate: expected KEY=VALUE with KEY one of zones, blocks, "
                "racks, hosts, gpus, cpu, memory, storage, pods, os, arch, seed, used, got 'rack=8'"
            ),
        ),
        ("place train.yaml --generate zones=0", "--generate: zones must be an integer of at least 1, got '0'"),
        ("place train.yaml --generate used=1.5", "--generate: used must be a share between 0 and 1, got '1.5'"),
        (
            "place train.yaml --generate storage=1Mi",
            "--generate: storage must be whole gibibytes or tebibytes such as 1Ti, got '1Mi'",
        ),
        ("place train.yaml --generate os=-x", "--generate: os must be a label value such as linux, got '-x'"),
        ("place train.yaml --generate arch=", "--generate: arch must be a label value such as amd64, got ''"),
        ("place train.yaml --generate pods=0", "--generate: pods must be an integer of at least 1, got '0'"),
        (
            "place train.yaml --generate memory=1Ti",
            "--generate: memory must be whole gibibytes such as 512Gi, got '1Ti'",
        ),
        ("place train.yaml --generate zones=100,racks=100", "--generate: 640,000 nodes; at most 200,000"),
        (
            "place train.yaml --generate zones=1 --pods pods.json",
            "--pods and --groups go with a kubectl --cluster dump, not --generate",
        ),
        (
            "place train.yaml --cluster cluster.yaml --pods cluster.yaml",
            (
                "--pods and --groups go with a kubectl dump; "
                "cluster.yaml is the compact format, which lists what runs under `running`"
            ),
        ),
        ("place train.yaml --cluster missing.json", "missing.json: no such file"),
        (
            "place train.yaml --cluster train.yaml",
            "train.yaml: expected one document, found 9",
        ),
        (
            "place train.yaml --cluster old.yaml",
            (
                "old.yaml: neither `kubectl get nodes -o json` output (a List with items) "
                "nor the compact cluster format (a mapping with nodes)"
            ),
        ),
        (
            "place train.yaml --cluster bad-node.yaml",
            (
                'bad-node.yaml: nodes[0].allocatable[memory]: Invalid value: "64GB": '
                "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'; "
                "nodes[1].name: Required value"
            ),
        ),
        (
            "place train.yaml --generate zones=1 --strategy greedy",
            "--strategy: 'greedy' is not one of kube-scheduler, complete",
        ),
        (
            "place train.yaml --generate zones=1 --output xml",
            "argument -o/--output: invalid choice: 'xml' (choose from 'text', 'json', 'yaml') "
            "(see workloadbuilder place --help)",
        ),
        (
            "place train.yaml --generate zones=1 --timeout 0",
            "--timeout: must be a positive number of seconds up to 86400, got 0",
        ),
        (
            "place train.yaml --generate zones=1 --claim nics",
            "--claim: expected NAME=DEVICECLASS or NAME=DEVICECLASS:COUNT, got 'nics'",
        ),
        (
            "place train.yaml --generate zones=1 --render out.png",
            "--render: out.png: the file name must end in .svg or .html",
        ),
        (
            "place train.yaml --generate zones=1 --render nowhere/out.svg",
            "--render: nowhere/out.svg: no such directory",
        ),
        (
            "place old.yaml --generate zones=1",
            (
                "nothing to place: give a controller object (Job, JobSet, LeaderWorkerSet, "
                "TrainJob, Volcano Job, or one --mapping describes), or PodGroups with the Pods that name them"
            ),
        ),
        (
            "place examples/manifests/job-trainer.yaml --generate zones=1",
            (
                "examples/manifests/job-trainer.yaml (document 2): "
                "PodGroup 'trainer-pg': no Pod in the input names it in spec.schedulingGroup.podGroupName; give its "
                "Pods, or the controller object that makes it"
            ),
        ),
        (
            "place stray-pod.yaml --generate zones=1",
            "stray-pod.yaml (document 1): 'p' goes to PodGroup 'elsewhere', which is not in the input",
        ),
        (
            "place train.yaml train.yaml --generate zones=1",
            "train.yaml (document 1): CompositePodGroup 'train' is also in train.yaml (document 1)",
        ),
        (
            f"place {JOBSET} {JOBSET} --generate zones=1",
            (
                "group 'topo-training-69ddf977d7-driver-686b5f78f6' is in both JobSet default/topo-training "
                f"({JOBSET}, document 1) and JobSet default/topo-training ({JOBSET}, document 1)"
            ),
        ),
        (
            "place tests/data/adapters/jobset/low-priority-jobset.yaml --generate zones=1",
            (
                "tests/data/adapters/jobset/low-priority-jobset.yaml (document 1) Workload/lp-abc: The Workload "
                '"lp-abc" is invalid: apiVersion: Invalid value: "scheduling.k8s.io/v1alpha2": Workload '
                "scheduling.k8s.io/v1alpha2 is not served by Kubernetes 1.37: the workloadbuilder migrate command "
                "rewrites it to scheduling.k8s.io/v1beta1"
            ),
        ),
        (
            "place tests/data/adapters/job/root-gang-claims.in.yaml --generate zones=1",
            (
                "tests/data/adapters/job/root-gang-claims.in.yaml (document 1): claims[eight-gpus]: Not found: "
                '"eight-gpus" (size each group resource claim with --claim NAME=DEVICECLASS:COUNT)'
            ),
        ),
        (
            "place orphan.yaml --generate zones=1",
            (
                "orphan.yaml (document 1): PodGroup 'g': spec.schedulingPolicy.gang.minCount: Invalid value: 0: must "
                "be greater than or equal to 1; orphan.yaml (document 1): PodGroup 'g': "
                'spec.parentCompositePodGroupName: Not found: "nope"'
            ),
        ),
        ("explain train.yaml --generate zones=x", "--generate: zones must be an integer of at least 1, got 'x'"),
    ],
    ids=[
        "no-cluster",
        "two-clusters",
        "unknown-generate-key",
        "zero-zones",
        "used-above-1",
        "storage-not-gi",
        "os-not-a-label-value",
        "arch-empty",
        "zero-pods",
        "memory-not-gi",
        "too-many-nodes",
        "pods-with-generate",
        "pods-with-compact",
        "missing-cluster",
        "cluster-not-one-document",
        "cluster-of-unknown-shape",
        "cluster-with-bad-nodes",
        "unknown-strategy",
        "unknown-output",
        "zero-timeout",
        "malformed-claim",
        "render-png",
        "render-nowhere",
        "nothing-to-place",
        "podgroup-without-pods",
        "pod-of-a-missing-group",
        "the-same-runtime-group-twice",
        "the-same-object-twice",
        "invalid-pod-group-of-a-jobset",
        "claim-not-sized",
        "runtime-group-errors-say-where",
        "explain-too",
    ],
)
def test_bad_input_is_one_line_and_exit_2(workdir, argv, message):
    (workdir / "bad-node.yaml").write_text("nodes:\n- {name: a, allocatable: {memory: 64GB}}\n- {allocatable: {}}\n")
    (workdir / "stray-pod.yaml").write_text(
        "{apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {schedulingGroup: {podGroupName: elsewhere}}}\n"
    )
    (workdir / "orphan.yaml").write_text(
        "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: g}\n"
        "spec: {parentCompositePodGroupName: nope, schedulingPolicy: {gang: {minCount: 0}}}\n"
        "---\n{apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {schedulingGroup: {podGroupName: g}}}\n"
    )
    code, out, err = run(*shlex.split(argv))
    *warnings, last = err.splitlines()
    assert (code, out, last) == (2, "", f"error: {message}")
    assert all(warning.startswith("Warning: ") for warning in warnings)


def test_a_pod_group_of_two_pod_shapes_places_each_pod_by_its_own_spec(workdir):
    group = (
        "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: g}\nspec: "
        "{schedulingPolicy: {gang: {minCount: 2}}}\n"
    )
    pod = (
        "---\n{apiVersion: v1, kind: Pod, metadata: {name: %s}, spec: {schedulingGroup: {podGroupName: g}, "
        'containers: [{name: c, resources: {requests: {cpu: "%s"}}}]}}\n'
    )
    (workdir / "mixed.yaml").write_text(group + pod % ("a", "1") + pod % ("b", "63"))
    code, out, _ = run(
        "place", "mixed.yaml", "--generate", "zones=1,blocks=1,racks=1,hosts=2,used=0", "--output", "json"
    )
    answer = json.loads(out)
    assert code == 0
    assert [(pod["name"], pod["node"]) for pod in answer["groups"][0]["pods"]] == [
        ("a", "node-00000"),
        ("b", "node-00001"),
    ]


# -- the drawing --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["placement.svg", "placement.html"], ids=["svg", "html"])
def test_render_writes_the_drawing_and_prints_the_same_answer(workdir, name):
    argv = ["place", "train.yaml", "--cluster", "cluster.yaml", "--strategy", "complete"]
    assert run(*argv, "--render", name) == run(*argv)
    text = (workdir / name).read_text()
    svg = text if name.endswith(".svg") else text[text.index("<svg") : text.index("</svg>") + len("</svg>")]
    root = ET.fromstring(svg)
    targets = [(g.get("class"), g.get("data-target")) for g in root.iter() if g.get("class") in ("chosen", "shortfall")]
    assert targets == [("chosen", "block-A"), ("chosen", "rack-A1"), ("chosen", "rack-A2")]
    if name.endswith(".html"):
        assert text.startswith("<!DOCTYPE html>")
        assert '<pre class="answer">cluster: 2 nodes from cluster.yaml\n' in text
        assert "capacity left in block block-A, rack rack-A1: pods 108" in text
        assert "feasible (complete): 1 of 1 object placed\nverdict: placeable\n</pre>" in text


def test_render_of_an_infeasible_input_shows_the_shortfall(workdir):
    assert run("place", EIGHT, "--generate", GEN_SHORT, "--render", "short.svg")[0] == 1
    root = ET.fromstring((workdir / "short.svg").read_text())
    labels = [t.text for g in root.iter() if g.get("class") == "shortfall" for t in g.iter() if t.tag.endswith("text")]
    assert labels == ["best for trainer-pgt-0: 4 of 8 pods, 4 short"]


# -- --generate ---------------------------------------------------------------------------------------


def test_generate_without_gpus_has_no_gpu_resource(workdir):
    code, out, _ = run("place", "train.yaml", "--generate", "zones=1,blocks=1,racks=2,hosts=1,gpus=0")
    assert code == 1
    assert "`workers-0`: nvidia.com/gpu rules out the most nodes (2 of 2 lack room for one pod)" in out


# -- progress --------------------------------------------------------------------------------------------


def test_place_reports_each_long_step(workdir, monkeypatch):
    steps: list[str] = []

    class Recorder(Progress):
        def step(self, label):  # type: ignore[override]
            steps.append(label)
            return super().step(label)

    monkeypatch.setattr(place_module, "Progress", Recorder)
    run("place", "train.yaml", "--cluster", "cluster.yaml", "--strategy", "complete", "--render", "p.svg")
    run("explain", "train.yaml", "--generate", "hosts=2")
    assert steps == [
        "reading cluster.yaml",
        "placing on 2 nodes (complete)",
        "drawing p.svg",
        "generating 128 nodes",
        "placing on 128 nodes (kube-scheduler)",
    ]


def test_a_mixed_kubectl_list_is_one_cluster_file_and_explain_quotes_kube_scheduler(workdir):
    examples = Path(__file__).resolve().parents[2] / "examples" / "gpu_cluster"
    nodes = json.loads((examples / "nodes.json").read_text())["items"]
    pods = json.loads((examples / "pods.json").read_text())["items"]
    (workdir / "dump.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [*pods, *nodes]}))
    lws = yaml.safe_load((examples / "lws-cpu-leader-gpu-workers.yaml").read_text())
    lws["spec"]["leaderWorkerTemplate"]["workerTemplate"]["spec"]["containers"][0]["resources"]["limits"] = {
        "nvidia.com/gpu": "9"
    }
    (workdir / "lws.yaml").write_text(yaml.safe_dump(lws))
    code, out, _ = run("explain", "lws.yaml", "--cluster", "dump.json")
    assert code == 1
    assert (
        "    `vllm-66c7999b94-replica-0-77b5f8766c` pod `vllm-66c7999b94-replica-0-77b5f8766c-1`: 0/9 nodes are "
        "available: 1 node(s) were unschedulable, 2 node(s) had untolerated taint(s), 6 Insufficient nvidia.com/gpu."
    ) in out.splitlines()


def test_without_or_tools_a_greedy_miss_stays_never(workdir, monkeypatch):
    """The unreachable tier needs the complete search; where it cannot run, the verdict claims no arrangement."""
    from workloadbuilder.errors import MissingDependencyError

    verdict_module = importlib.import_module("workloadbuilder.placement.verdict")

    real_place = verdict_module.place

    def place_without_solver(request, cluster, strategy="kube-scheduler", **options):
        if strategy == "complete":
            raise MissingDependencyError("the complete strategy's exact search needs OR-tools")
        return real_place(request, cluster, strategy, **options)

    monkeypatch.setattr(verdict_module, "place", place_without_solver)
    code, out, _ = run("place", "train.yaml", "--cluster", "cluster.yaml")
    assert code == 1
    assert out.splitlines()[-1].startswith(
        "verdict: never: even with no pod running: `train`: block block-A fits 1 of 2"
    )
