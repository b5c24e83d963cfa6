"""``--generate`` (cli/clusters.py): its keys read into a ``GenerateSpec``; the nodes carry what a kubelet reports.

Every generated node is labelled ``kubernetes.io/hostname``, ``kubernetes.io/os=linux`` and
``kubernetes.io/arch=amd64`` and offers ephemeral-storage and 110 pods, so real manifests that ask for
them place; the keys ``storage``, ``pods``, ``os`` and ``arch`` change them, and the header names a
changed one.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from workloadbuilder.cli.app import main
from workloadbuilder.cli.clusters import GenerateSpec, parse_generate
from workloadbuilder.cli.errors import UsageError

ROOT = Path(__file__).resolve().parents[2]
PADDLE = "tests/data/cli/kubelet/paddlepaddle.yaml"
LINUX = "tests/data/cli/kubelet/linux-selector.yaml"
PADDLE_GROUP = "ctr-volcano-779d58498b-ctr-volcano-6458df789f"
LINUX_GROUP = "linux-only-77c8f5d5b9-linux-only-pgt-0-94c8979f5"
SMALL = "hosts=2,racks=1,blocks=1"
PADDLE_SHORT = (
    f"`{PADDLE_GROUP}` pod `{PADDLE_GROUP}-2`: ephemeral-storage rules out the most nodes (2 of 2 lack "
    "room for one pod)"
)


@pytest.fixture(autouse=True)
def at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run where the manifests' paths, as the tables give them, lead."""
    monkeypatch.chdir(ROOT)


def run(*argv: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue()


def header(extra: str = "") -> str:
    shape = "zones=1,blocks=1,racks=1,hosts=2,gpus=8,cpu=64,memory=512Gi"
    return f"cluster: 2 nodes, generated ({shape},{extra}seed=0,used=0.2)"


def selector_refused(extra: str, unmatched: str) -> list[str]:
    """What ``place`` says when no generated node carries the label ``unmatched`` (``key=value``) it selects."""
    pod = (
        f"`{LINUX_GROUP}` pod `{LINUX_GROUP}-0`: 0/2 nodes are available: "
        "2 node(s) didn't match Pod's node affinity/selector."
    )
    selector = (  # the selector pair the nodes fail, named beside kube-scheduler's line
        f"`{LINUX_GROUP}`: 2 of 2 nodes do not match its node selector or affinity: "
        f"nodeSelector {unmatched} not matched by 2 of 2 nodes"
    )
    return [
        header(extra),
        "",
        f"Job linux-only ({LINUX}, document 1): not placed",
        f"  PodGroup {LINUX_GROUP} (template linux-only-pgt-0; basic)",
        "    not placed (1 of its 2 pods needed)",
        "  why:",
        f"    `{LINUX_GROUP}` cannot be placed",
        f"    {pod}",
        f"    `{LINUX_GROUP}`: the cluster fits 0 of 1 pods",
        f"    {selector}",
        "    preemption cannot help: nothing of lower priority runs",
        "",
        "not feasible (kube-scheduler): 0 of 1 object placed",
        f"verdict: never: even with no pod running: {pod}; `{LINUX_GROUP}`: the cluster fits 0 of 1 pods; {selector}",
    ]


@pytest.mark.parametrize(
    ("manifest", "generate", "code", "expected"),
    [
        (
            PADDLE,
            SMALL,
            0,
            [
                header(),
                "",
                f"Job ctr-volcano ({PADDLE}, document 1): placed",
                f"  PodGroup {PADDLE_GROUP} (template ctr-volcano; gang, minCount 4)",
                "    placed 4 of 4 pods in the cluster, on 2 nodes: node-00000 x3, node-00001",
                "    capacity left in the cluster: cpu 124, memory 1023.6Gi, pods 216, ephemeral-storage 2Ti",
                "",
                "feasible (kube-scheduler): 1 of 1 object placed",
                "verdict: placeable",
            ],
        ),
        (
            PADDLE,
            SMALL + ",storage=5Gi",
            1,
            [
                header("storage=5Gi,"),
                "",
                f"Job ctr-volcano ({PADDLE}, document 1): not placed",
                f"  PodGroup {PADDLE_GROUP} (template ctr-volcano; gang, minCount 4)",
                "    not placed (4 of its 4 pods needed)",
                "  why:",
                f"    `{PADDLE_GROUP}` cannot be placed",
                f"    `{PADDLE_GROUP}` pod `{PADDLE_GROUP}-2`: 0/2 nodes are available: "
                "2 Insufficient ephemeral-storage.",
                f"    `{PADDLE_GROUP}`: the cluster fits 2 of 4 pods",
                # the pods come in two shapes: the shortfall is the one of the shape that fits nowhere
                f"    {PADDLE_SHORT}",
                "    preemption cannot help: nothing of lower priority runs",
                "",
                "not feasible (kube-scheduler): 0 of 1 object placed",
                f"verdict: never: even with no pod running: `{PADDLE_GROUP}` pod `{PADDLE_GROUP}-2`: 0/2 nodes are "
                f"available: 2 Insufficient ephemeral-storage.; `{PADDLE_GROUP}`: the cluster fits 2 of 4 pods; "
                f"{PADDLE_SHORT}",
            ],
        ),
        (
            LINUX,
            SMALL,
            0,
            [
                header(),
                "",
                f"Job linux-only ({LINUX}, document 1): placed",
                f"  PodGroup {LINUX_GROUP} (template linux-only-pgt-0; basic)",
                "    placed 2 of 2 pods in the cluster, on 2 nodes: node-00000, node-00001",
                "    capacity left in the cluster: cpu 126, pods 218",
                "",
                "feasible (kube-scheduler): 1 of 1 object placed",
                "verdict: placeable",
            ],
        ),
        (LINUX, SMALL + ",os=windows", 1, selector_refused("os=windows,", "kubernetes.io/os=linux")),
        (LINUX, SMALL + ",arch=arm64", 1, selector_refused("arch=arm64,", "kubernetes.io/arch=amd64")),
    ],
    ids=["paddle-places", "paddle-storage-5Gi", "linux-selector-places", "os-windows", "arch-arm64"],
)
def test_generated_nodes_are_what_a_kubelet_reports(
    manifest: str, generate: str, code: int, expected: list[str]
) -> None:
    assert run("place", manifest, "--generate", generate) == (code, "\n".join(expected) + "\n")


@pytest.mark.parametrize(
    ("text", "spec"),
    [
        ("storage=2Ti,pods=250,os=linux,arch=arm64", GenerateSpec(storage="2Ti", pods=250, arch="arm64")),
        ("os=windows", GenerateSpec(os="windows")),
    ],
    ids=["storage-pods-arch", "os"],
)
def test_parse_generate_reads_the_kubelet_keys(text: str, spec: GenerateSpec) -> None:
    assert parse_generate(text) == spec


@pytest.mark.parametrize(
    ("spec", "described"),
    [
        (GenerateSpec(), "zones=1,blocks=4,racks=16,hosts=16,gpus=8,cpu=64,memory=512Gi,seed=0,used=0.2"),
        (
            GenerateSpec(storage="2Ti", pods=250, os="linux", arch="arm64"),
            "zones=1,blocks=4,racks=16,hosts=16,gpus=8,cpu=64,memory=512Gi,storage=2Ti,pods=250,arch=arm64,seed=0,used=0.2",
        ),
    ],
    ids=["defaults-unnamed", "changed-named"],
)
def test_the_header_names_a_kubelet_key_only_when_changed(spec: GenerateSpec, described: str) -> None:
    assert spec.describe() == described


@pytest.mark.parametrize(
    ("text", "spec", "nodes"),
    [
        ("zones=2,racks=8,hosts=16,gpus=8", GenerateSpec(zones=2, racks=8, hosts=16, gpus=8), 1024),
        ("hosts=4", GenerateSpec(hosts=4), 256),
        (
            " zones=1 , blocks=2,racks=3,hosts=5,gpus=0,cpu=32,memory=128Gi,seed=9,used=0 ",
            GenerateSpec(1, 2, 3, 5, 0, 32, "128Gi", 9, 0.0),
            30,
        ),
    ],
    ids=["the-issue-example", "one-key", "every-key"],
)
def test_parse_generate(text, spec, nodes):
    assert (parse_generate(text), parse_generate(text).nodes) == (spec, nodes)


def test_parse_generate_raises_a_usage_error():
    with pytest.raises(UsageError, match=r"^--generate: hosts must be an integer of at least 1, got '-1'$"):
        parse_generate("hosts=-1")
