"""``-o/--output json|yaml`` on the answer commands, the warnings and the names they say, and what cli.md says.

``-o yaml`` is the same data as ``-o json``, for place, explain, capacity and simulate alike; an
unknown output is one usage line. ``validate --strict`` names the warning that failed it; a
``generateName`` object is named by its planned name; the uid warning is said once per object, by
the commands whose output is names; ``migrate`` joins a foreign PodGroup's pods to the native one;
``diff`` says a changed topology key at the key's path.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
import yaml

from workloadbuilder.cli.app import main

ROOT = Path(__file__).resolve().parents[2]
LINUX = "tests/data/cli/kubelet/linux-selector.yaml"
SMALL = "hosts=2,racks=1,blocks=1"
QUEUE = "tests/data/cli/simulate/urgent.yaml"
NODE = "tests/data/cli/simulate/one-node.yaml"


@pytest.fixture(autouse=True)
def at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run where the tables' paths lead."""
    monkeypatch.chdir(ROOT)


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


COMMANDS = [
    ["place", LINUX, "--generate", SMALL],
    ["explain", LINUX, "--generate", SMALL],
    ["capacity", LINUX, "--generate", SMALL],
    ["simulate", QUEUE, "--cluster", NODE],
]
IDS = ["place", "explain", "capacity", "simulate"]


@pytest.mark.parametrize("argv", COMMANDS, ids=IDS)
@pytest.mark.parametrize("flag", ["-o", "--output"], ids=["short", "long"])
def test_yaml_output_is_the_json_output(argv: list[str], flag: str) -> None:
    code, as_json, _ = run(*argv, flag, "json")
    assert run(*argv, flag, "yaml")[0] == code
    assert yaml.safe_load(run(*argv, flag, "yaml")[1]) == json.loads(as_json)


@pytest.mark.parametrize("argv", COMMANDS, ids=IDS)
def test_an_unknown_output_is_one_usage_line(argv: list[str]) -> None:
    assert run(*argv, "-o", "xml") == (
        2,
        "",
        "error: argument -o/--output: invalid choice: 'xml' (choose from 'text', 'json', 'yaml') "
        f"(see workloadbuilder {argv[0]} --help)\n",
    )


def test_cli_page_says_which_command_talks_to_a_cluster() -> None:
    page = (ROOT / "docs" / "cli.md").read_text()
    assert "never talks to a cluster" not in page
    assert "One\ncommand talks to a cluster: [`doctor`](doctor.md) reads a live gang through\nyour kubeconfig" in page


# -- validate --strict names the warning that failed it ------------------------------------------------

NO_UID = "tests/data/cli/names/no-uid.yaml"
NO_UID_QUEUE = "tests/data/cli/names/no-uid-queue.yaml"
GENERATED = "tests/data/cli/names/generate-name.yaml"
SETTINGS = "tests/data/cli/names/settings.yaml"
UID_WARNING = (
    f"Warning: {NO_UID} (document 1) Job/trainer: no metadata.uid (the object was never created), so the Workload "
    "and group names are not the ones the controller will use; for those, run on the object as the cluster returns "
    "it (kubectl get job trainer -o yaml); -W no-uid hides this warning\n"
)


@pytest.mark.parametrize(
    ("argv", "err"),
    [
        (
            ["--strict", NO_UID],
            f"error: {NO_UID} (document 1) Job/trainer: --strict: its uid warning fails the run; -W no-uid hides it\n",
        ),
        (
            ["-W", "error", NO_UID],
            f"error: {NO_UID} (document 1) Job/trainer: --strict: its uid warning fails the run; -W no-uid hides it\n",
        ),
        (
            ["--strict", "--allow-unknown", NO_UID, SETTINGS],
            f"error: {NO_UID} (document 1) Job/trainer: --strict: its uid warning fails the run (and 1 more "
            "warning: unknown-kind); -W no-uid hides it\n",
        ),
        (
            ["--strict", "--allow-unknown", "-W", "no-uid", NO_UID, SETTINGS],
            f"error: {SETTINGS} (document 1) Settings/settings: --strict: its unknown-kind warning fails the run; "
            "-W no-unknown-kind hides it\n",
        ),
        (["--strict", "-W", "no-uid", NO_UID], ""),
    ],
    ids=["strict", "W-error", "two-kinds", "unknown-kind", "silenced-passes"],
)
def test_strict_says_which_warning_failed_it(argv: list[str], err: str) -> None:
    code, out, stderr = run("validate", *argv)
    assert (code, stderr) == (1 if err else 0, err)
    assert 'Job "trainer" is valid\n' in out  # the report is printed as without --strict


# -- a generateName object is named by its planned name ------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (
            ["compile", GENERATED, "-o", "name"],
            [
                "workload.scheduling.k8s.io/sample-xxxxx-69ddf977d7",
                "podgroup.scheduling.k8s.io/sample-xxxxx-69ddf977d7-sample-xxxxx-pgt-0-565f8b7698",
                "job.batch/sample-xxxxx",
            ],
        ),
        (
            ["place", GENERATED, "--generate", SMALL],
            [f"Job sample-xxxxx ({GENERATED}, document 1): placed"],
        ),
        (
            ["explain", GENERATED, "--generate", SMALL],
            [f"Job sample-xxxxx ({GENERATED}, document 1): placed (kube-scheduler)"],
        ),
        (
            ["validate", "-q", GENERATED],
            ['Job "sample-xxxxx" is valid'],
        ),
    ],
    ids=["compile-o-name", "place-header", "explain-header", "validate-verdict"],
)
def test_a_generate_name_object_shows_its_planned_name(argv: list[str], expected: list[str]) -> None:
    code, out, _ = run(*argv)
    shown = out.splitlines() if argv[0] in ("compile", "validate") else [out.splitlines()[2]]
    assert (code, shown) == (0, expected)


# -- the uid warning: once per object, and only where names matter ---------------------------------------


@pytest.mark.parametrize(
    ("argv", "err"),
    [
        (["compile", NO_UID, "-o", "name"], UID_WARNING),
        (["compile", NO_UID, NO_UID.replace("no-uid", "no-uid-copy"), "-o", "name"], None),
        (["validate", NO_UID], ""),
        (["place", NO_UID, "--generate", SMALL], ""),
        (["explain", NO_UID, "--generate", SMALL], ""),
        (["capacity", NO_UID, "--generate", SMALL], ""),
        (["simulate", NO_UID_QUEUE, "--cluster", NODE], ""),
    ],
    ids=["compile", "compile-two-objects", "validate", "place", "explain", "capacity", "simulate"],
)
def test_the_uid_warning_is_said_once_and_only_where_names_matter(argv: list[str], err: str | None) -> None:
    code, out, stderr = run(*argv)
    if err is None:  # two objects without a uid: one warning each
        copy = NO_UID.replace("no-uid", "no-uid-copy")
        assert stderr == UID_WARNING + UID_WARNING.replace(NO_UID, copy).replace("trainer", "helper")
    else:
        assert stderr == err
    assert code == 0
    if argv[0] == "validate":  # validate's warning is part of its report, on stdout
        assert out == UID_WARNING + 'Job "trainer" is valid\n'


# -- migrate: the pods of a coscheduling PodGroup join the native one -----------------------------------

MIGRATE = "tests/data/cli/migrate"


def _pod_group_notes(path: str, name: str, count: int) -> str:
    return (
        f"{path} (document 1) PodGroup/{name}: spec.minMember: now gang.minCount {count} of the native Workload and "
        f'PodGroup "{name}"\n'
        f'{path} (document 1) PodGroup/{name}: pods join it by spec.schedulingGroup.podGroupName: "{name}" (the '
        "scheduling.x-k8s.io/pod-group label no longer does)\n"
    )


REPLICASET = f"{MIGRATE}/coscheduling-replicaset.yaml"
ALONE = f"{MIGRATE}/coscheduling-alone.yaml"
JOBSET_MEMBERS = f"{MIGRATE}/coscheduling-jobset.yaml"


@pytest.mark.parametrize(
    ("path", "code", "err", "joined"),
    [
        (
            REPLICASET,
            0,
            _pod_group_notes(REPLICASET, "nginx", 3)
            + f"{REPLICASET} (document 1) PodGroup/nginx: dropped: spec.scheduleTimeoutSeconds: no native equivalent: "
            "a native gang waits until its pods fit; kube-scheduler has no gang timeout\n"
            f"{REPLICASET} (document 2) ReplicaSet/nginx: spec.template.spec.schedulingGroup.podGroupName: "
            'now "nginx": its pods join the native PodGroup "nginx" (the scheduling.x-k8s.io/pod-group label no '
            "longer gangs them; it is kept for selectors)\n",
            {"ReplicaSet/nginx": {"podGroupName": "nginx"}},
        ),
        (
            ALONE,
            0,
            _pod_group_notes(ALONE, "nginx", 3)
            + f"Warning: {ALONE} (document 1) PodGroup/nginx: no object in the input makes its pods (the label "
            'scheduling.x-k8s.io/pod-group: nginx): set spec.schedulingGroup.podGroupName: "nginx" in the pod '
            "template of the ReplicaSet, Deployment or Job that does\n",
            {},
        ),
        (
            JOBSET_MEMBERS,
            1,
            _pod_group_notes(JOBSET_MEMBERS, "trainers", 4)
            + f"{JOBSET_MEMBERS} (document 2) JobSet/trainers: not translated: spec.replicatedJobs[0].template.spec."
            'template.metadata.labels[pod-group.scheduling.sigs.k8s.io]: "trainers": these pods are in PodGroup '
            '"trainers": set spec.schedulingGroup.podGroupName: "trainers" in their pod template (migrate rewrites '
            "the pod templates of built-in kinds only)\n",
            {"JobSet/trainers": None, "Deployment/web": None},
        ),
    ],
    ids=["replicaset-rewritten", "no-member-in-the-input", "jobset-left-and-deployment-not-a-member"],
)
def test_migrate_joins_a_coscheduling_groups_pods(path: str, code: int, err: str, joined: dict) -> None:
    status, out, stderr = run("migrate", path)
    assert (status, stderr) == (code, err)
    objects = {f"{doc['kind']}/{doc['metadata']['name']}": doc for doc in yaml.safe_load_all(out)}
    for ref, group in joined.items():
        template = objects[ref]["spec"].get("template", {}).get("spec", {})
        assert template.get("schedulingGroup") == group
    group = "trainers" if path == JOBSET_MEMBERS else "nginx"
    assert [ref for ref in objects if ref.startswith(("Workload/", "PodGroup/"))] == [
        f"Workload/{group}",
        f"PodGroup/{group}",
    ]


# -- diff: a changed topology key, at the key's path -----------------------------------------------------

DIFF = "tests/data/cli/diff"
JOBSET_RACK = "examples/manifests/jobset-topology-constrained.yaml"


@pytest.mark.parametrize(
    ("old", "new", "out"),
    [
        (
            f"{DIFF}/workload-rack.yaml",
            f"{DIFF}/workload-zone.yaml",
            f"{DIFF}/workload-zone.yaml (document 1) Workload/topo-training-69ddf977d7: "
            'The Workload "topo-training-69ddf977d7" is invalid: spec.podGroupTemplates[1].schedulingConstraints: '
            "Invalid value: null: field is immutable\n",
        ),
        (
            JOBSET_RACK,
            f"{DIFF}/jobset-zone.yaml",
            f"{DIFF}/jobset-zone.yaml (document 1) JobSet/topo-training: "
            'The JobSet "topo-training" is invalid: \n'
            "* spec.scheduling.replicatedJobs[1].schedulingConstraints.topology[0].key: Invalid value: "
            '"topology.kubernetes.io/zone": field is '
            "immutable (the Workload topo-training-69ddf977d7 refuses the update at "
            "spec.podGroupTemplates[1].schedulingConstraints)\n"
            "* spec.scheduling.replicatedJobs[1].schedulingConstraints.topology[0].key: Invalid value: "
            '"topology.kubernetes.io/zone": field is '
            "immutable (the PodGroup topo-training-69ddf977d7-workers-5f46865b65 refuses the update at "
            "spec.schedulingConstraints)\n",
        ),
        (JOBSET_RACK, JOBSET_RACK, 'JobSet "topo-training": the update would be accepted\n'),
    ],
    ids=["workload-as-the-apiserver-says", "jobset-at-the-key", "jobset-unchanged-without-a-uid"],
)
def test_diff_says_a_changed_topology_key_at_its_path(old: str, new: str, out: str) -> None:
    assert run("diff", old, new) == (0 if "accepted" in out else 1, out, "")
