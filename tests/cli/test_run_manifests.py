"""``validate``, ``compile`` and ``diff`` (cli/run_manifests.py) as a CI job and a new user run them.

kubeconform's habits: a summary line, JUnit XML and TAP (each parsed back by
a reader of the format), ``--skip``, the Kubernetes version and feature gates
named; every message about an object names its file and document; ``diff``
with ``--mapping``, a TrainJob given with its runtime and the changed value.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import junitparser
import pytest
import yaml
from tap.parser import Parser

from workloadbuilder.cli.app import main

ROOT = Path(__file__).resolve().parents[2]
TYPOS = "examples/manifests/typos.yaml"
TRAINER = "examples/manifests/job-trainer.yaml"
TOPOLOGY = "examples/manifests/jobset-topology-constrained.yaml"
TRAINING_CLUSTER = ROOT / "examples" / "training_cluster"
TRAINJOB = ROOT / "tests" / "data" / "adapters" / "trainer" / "01-multi-node.yaml"
RUNTIME = ROOT / "tests" / "data" / "adapters" / "trainer" / "torch_distributed.yaml"

SETTINGS = "apiVersion: example.com/v1\nkind: Settings\nmetadata: {name: settings}\n"
NODE = "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"
COSCHEDULING = (
    "apiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\nmetadata: {name: nginx}\nspec: {minMember: 3}\n"
)

TYPOS_INVALID = (
    f'{TYPOS} (document 1) PodGroup/typo: The PodGroup "typo" is invalid: \n'
    "* spec.schedulingPolicy.gang.minCont: unknown field\n"
    '* spec.disruptionMode: Invalid value: "all": must be of type object\n'
)


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory with the repository's examples and tests beside small files, as docs/cli.md runs."""
    for name in ("examples", "tests"):
        (tmp_path / name).symlink_to(ROOT / name)
    (tmp_path / "settings.yaml").write_text(SETTINGS)
    (tmp_path / "node.yaml").write_text(NODE)
    (tmp_path / "cosched.yaml").write_text(COSCHEDULING)
    monkeypatch.chdir(tmp_path)
    return tmp_path


# -- validate: text, with the file of every invalid object and the summary ------------------------------------------


def test_an_invalid_objects_message_names_its_file_and_document(here: Path) -> None:
    assert run("validate", TYPOS, TRAINER) == (
        1,
        TYPOS_INVALID + 'Workload "trainer-wl" is valid\nPodGroup "trainer-pg" is valid\n',
        "",
    )


@pytest.mark.parametrize(
    ("options", "summary"),
    [
        ([], "3 objects: 2 valid, 1 invalid, 0 skipped (Kubernetes 1.37, feature gates: all)"),
        (["--gates", "all"], "3 objects: 2 valid, 1 invalid, 0 skipped (Kubernetes 1.37, feature gates: all)"),
        (
            ["--gates", "defaults"],
            "3 objects: 0 valid, 3 invalid, 0 skipped (Kubernetes 1.37, feature gates: defaults)",
        ),
        (
            ["--gates", "CompositePodGroup=false,WorkloadWithJob=false"],
            "3 objects: 2 valid, 1 invalid, 0 skipped "
            "(Kubernetes 1.37, feature gates: all but CompositePodGroup=false,WorkloadWithJob=false)",
        ),
    ],
    ids=["default", "all", "defaults", "two-off"],
)
def test_the_summary_counts_and_names_the_version_and_gates(here: Path, options: list[str], summary: str) -> None:
    code, out, _ = run("validate", "--summary", *options, TYPOS, TRAINER)
    assert (code, out.splitlines()[-1]) == (1, summary)


def test_the_summary_counts_skipped_objects_of_every_kind(here: Path) -> None:
    code, out, err = run(
        "validate",
        "--summary",
        "--allow-unknown",
        "--skip",
        "PodGroup",
        "-q",
        TYPOS,
        TRAINER,
        "settings.yaml",
        "node.yaml",
    )
    assert (code, out, err) == (
        0,
        'Workload "trainer-wl" is valid\n'
        "5 objects: 1 valid, 0 invalid, 4 skipped (Kubernetes 1.37, feature gates: all)\n",
        "",
    )


def test_one_object_is_one_object(here: Path) -> None:
    assert run("validate", "--summary", "-q", TOPOLOGY)[1].splitlines()[-1] == (
        "1 object: 1 valid, 0 invalid, 0 skipped (Kubernetes 1.37, feature gates: all)"
    )


def test_the_summary_is_a_notice_among_github_annotations(here: Path) -> None:
    code, out, _ = run("validate", "--summary", "-o", "github", TYPOS)
    assert (code, out.splitlines()[-1]) == (
        1,
        "::notice title=workloadbuilder validate::1 object: 0 valid, 1 invalid, 0 skipped "
        "(Kubernetes 1.37, feature gates: all)",
    )


def test_the_version_and_gates_are_named_in_help() -> None:
    code, out, _ = run("validate", "--help")
    assert code == 0
    assert "report errors as a Kubernetes 1.37 apiserver would, with the --gates named" in " ".join(out.split())
    assert "the Kubernetes 1.37 feature gates the checks run with: all (default)" in " ".join(out.split())


# -- validate --skip and built-in kinds ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "skip",
    [
        ["--skip", "Settings"],
        ["--skip", "example.com/v1/Settings"],
        ["--skip", "Job,Settings"],
        ["--skip", "X", "--skip", "Settings"],
    ],
    ids=["kind", "api-version-and-kind", "list", "repeated"],
)
def test_skip_leaves_a_kind_alone_with_a_note(here: Path, skip: list[str]) -> None:
    by = "example.com/v1/Settings" if "example.com/v1/Settings" in skip else "Settings"
    assert run("validate", *skip, TRAINER, "settings.yaml") == (
        0,
        'Workload "trainer-wl" is valid\nPodGroup "trainer-pg" is valid\n'
        f"Note: settings.yaml (document 1) Settings/settings: not checked (--skip {by})\n",
        "",
    )


def test_skip_of_another_version_does_not_skip(here: Path) -> None:
    code, _, err = run("validate", "-v", "--skip", "example.com/v2/Settings", "settings.yaml")
    assert code == 2
    assert err.startswith("Warning: settings.yaml (document 1) Settings/settings: no adapter")


@pytest.mark.parametrize("value", ["", "Job,", ",Job", "Job,,Pod"], ids=["empty", "trailing", "leading", "double"])
def test_an_empty_skip_entry_is_one_usage_line(here: Path, value: str) -> None:
    assert run("validate", "--skip", value, TRAINER) == (
        2,
        "",
        f"error: --skip: expected KIND[,KIND] (Kind or apiVersion/Kind), got {value!r}\n",
    )


def test_a_node_is_a_built_in_kind_skipped_with_a_note(here: Path) -> None:
    assert run("validate", "node.yaml") == (
        0,
        "Note: node.yaml (document 1) Node/n1: Node (v1) has no gang-scheduling content; skipped\n",
        "",
    )


def test_an_unknown_kind_names_the_flag_that_helps(here: Path) -> None:
    """The error is the one line (issue 37 item 8); -v prints the warning before it too."""
    error = (
        "error: settings.yaml: no object was checked: none is of a kind validate knows (Job, JobSet, LeaderWorkerSet, "
        "TrainJob, Volcano Job, a --mapping custom resource, Workload, PodGroup, CompositePodGroup)\n"
    )
    assert run("validate", "settings.yaml") == (2, "", error)
    assert run("validate", "-v", "settings.yaml") == (
        2,
        "",
        "Warning: settings.yaml (document 1) Settings/settings: no adapter for apiVersion 'example.com/v1' kind "
        "'Settings'; skipped (--mapping FILE describes a custom resource)\n" + error,
    )


# -- validate -o tap, junit, yaml -------------------------------------------------------------------------------------

TAP = """\
TAP version 13
1..5
not ok 1 - examples/manifests/typos.yaml (document 1) PodGroup/typo
  ---
  message: The PodGroup "typo" is invalid
  errors:
  - 'spec.schedulingPolicy.gang.minCont: unknown field'
  - 'spec.disruptionMode: Invalid value: "all": must be of type object'
  ...
ok 2 - examples/manifests/job-trainer.yaml (document 1) Workload/trainer-wl
ok 3 - examples/manifests/job-trainer.yaml (document 2) PodGroup/trainer-pg
ok 4 - settings.yaml (document 1) Settings/settings # SKIP not checked (--skip Settings)
ok 5 - node.yaml (document 1) Node/n1 # SKIP Node (v1) has no gang-scheduling content; skipped
# 5 objects: 2 valid, 1 invalid, 2 skipped (Kubernetes 1.37, feature gates: all)
"""


def test_tap_is_one_test_per_object(here: Path) -> None:
    assert run("validate", "-o", "tap", "--skip", "Settings", TYPOS, TRAINER, "settings.yaml", "node.yaml") == (
        1,
        TAP,
        "",
    )


def test_tap_reads_back_with_a_tap_parser(here: Path) -> None:
    _, out, _ = run("validate", "-o", "tap", "--skip", "Settings", TYPOS, TRAINER, "settings.yaml", "node.yaml")
    lines = list(Parser().parse_text(out))
    plans = [line for line in lines if line.category == "plan"]
    tests = [line for line in lines if line.category == "test"]
    assert [(plan.expected_tests, plan.directive.skip) for plan in plans] == [(5, False)]
    assert [(t.number, t.ok, t.skip, t.description) for t in tests] == [
        (1, False, False, "- examples/manifests/typos.yaml (document 1) PodGroup/typo"),
        (2, True, False, "- examples/manifests/job-trainer.yaml (document 1) Workload/trainer-wl"),
        (3, True, False, "- examples/manifests/job-trainer.yaml (document 2) PodGroup/trainer-pg"),
        (4, True, True, "- settings.yaml (document 1) Settings/settings"),
        (5, True, True, "- node.yaml (document 1) Node/n1"),
    ]
    assert tests[0].yaml_block == {
        "message": 'The PodGroup "typo" is invalid',
        "errors": [
            "spec.schedulingPolicy.gang.minCont: unknown field",
            'spec.disruptionMode: Invalid value: "all": must be of type object',
        ],
    }
    assert tests[3].directive.reason == "not checked (--skip Settings)"


def test_tap_carries_a_valid_objects_warnings_in_its_block(here: Path) -> None:
    _, out, _ = run("validate", "-o", "tap", TOPOLOGY)
    [test] = [line for line in Parser().parse_text(out) if line.category == "test"]
    assert test.ok
    assert [text.split(":")[0] for text in test.yaml_block["warnings"]] == ["Warning"]
    assert "no metadata.uid" in test.yaml_block["warnings"][0]


def test_junit_reads_back_with_a_junit_reader(here: Path) -> None:
    code, out, _ = run("validate", "-o", "junit", "--skip", "Settings", TYPOS, TRAINER, "settings.yaml")
    assert code == 1
    report = junitparser.JUnitXml.fromstring(out)
    assert (report.name, report.tests, report.failures, report.skipped, report.errors) == (
        "workloadbuilder validate (Kubernetes 1.37, feature gates: all)",
        4,
        1,
        1,
        0,
    )
    suites = list(report)
    assert [(suite.name, suite.tests, suite.failures, suite.skipped) for suite in suites] == [
        (TYPOS, 1, 1, 0),
        (TRAINER, 2, 0, 0),
        ("settings.yaml", 1, 0, 1),
    ]
    assert [(p.name, p.value) for p in suites[0].properties()] == [("kubernetes", "1.37"), ("feature-gates", "all")]
    cases = [case for suite in suites for case in suite]
    assert [(case.classname, case.name) for case in cases] == [
        (TYPOS, "PodGroup/typo (document 1)"),
        (TRAINER, "Workload/trainer-wl (document 1)"),
        (TRAINER, "PodGroup/trainer-pg (document 2)"),
        ("settings.yaml", "Settings/settings (document 1)"),
    ]
    [failure] = cases[0].result
    assert isinstance(failure, junitparser.Failure)
    assert (failure.message, failure.type, failure.text) == (
        'The PodGroup "typo" is invalid',
        "invalid",
        "spec.schedulingPolicy.gang.minCont: unknown field\n"
        'spec.disruptionMode: Invalid value: "all": must be of type object\n',
    )
    assert cases[1].is_passed
    assert cases[2].is_passed
    [skipped] = cases[3].result
    assert isinstance(skipped, junitparser.Skipped)
    assert skipped.message == "not checked (--skip Settings)"


def test_junit_puts_warnings_in_system_out(here: Path) -> None:
    _, out, _ = run("validate", "-o", "junit", TOPOLOGY)
    [case] = [case for suite in junitparser.JUnitXml.fromstring(out) for case in suite]
    assert case.is_passed
    assert case.system_out.startswith(f"Warning: {TOPOLOGY} (document 1) JobSet/topo-training: no metadata.uid")


def test_yaml_is_the_json_records(here: Path) -> None:
    argv = ["validate", "--allow-unknown", TYPOS, TRAINER, "settings.yaml"]
    as_json, as_yaml = run(*argv, "-o", "json"), run(*argv, "-o", "yaml")
    assert (as_yaml[0], as_yaml[2]) == (as_json[0], as_json[2]) == (1, "")
    assert yaml.safe_load(as_yaml[1]) == json.loads(as_json[1])


OUTPUTS = ["text", "json", "yaml", "github", "junit", "tap"]


@pytest.mark.parametrize("output", OUTPUTS, ids=OUTPUTS)
def test_every_output_exits_as_text_does(here: Path, output: str) -> None:
    assert run("validate", "-o", output, TYPOS)[0] == 1
    assert run("validate", "-o", output, TRAINER)[0] == 0


# -- compile: no object an adapter knows -----------------------------------------------------------------------------

NOTHING = "no object an adapter knows (Job, JobSet, LeaderWorkerSet, TrainJob, Volcano Job, or --mapping)"


@pytest.mark.parametrize(
    ("files", "said"),
    [
        (
            ["cosched.yaml"],
            "cosched.yaml (document 1) PodGroup/nginx (scheduling.x-k8s.io/v1alpha1): another scheduler's gang: "
            "workloadbuilder migrate turns it into a native Workload and PodGroup",
        ),
        (
            ["settings.yaml", "node.yaml"],
            "settings.yaml (document 1) Settings/settings (example.com/v1): a custom resource: --mapping FILE says "
            "where its gangs are",
        ),
        (
            [TYPOS],
            f"{TYPOS} (document 1) PodGroup/typo (scheduling.k8s.io/v1beta1): already a scheduling object: "
            "workloadbuilder validate checks it, place places it",
        ),
    ],
    ids=["coscheduling-podgroup", "custom-resource", "scheduling-object"],
)
def test_nothing_to_compile_names_each_file_and_what_helps(here: Path, files: list[str], said: str) -> None:
    warned = "".join(WARNED.get(name, "") for name in files)
    assert run("compile", *files) == (2, "", f"error: {NOTHING}: {said}\n")  # the one line (issue 37 item 8)
    assert run("compile", "-v", *files) == (2, "", f"{warned}error: {NOTHING}: {said}\n")


WARNED = {  # what every command says of an object of a kind no adapter knows, before compile's error
    "settings.yaml": "Warning: settings.yaml (document 1) Settings/settings: no adapter for apiVersion "
    "'example.com/v1' kind 'Settings'; skipped (--mapping FILE describes a custom resource)\n",
    "node.yaml": "Note: node.yaml (document 1) Node/n1: Node (v1) has no gang-scheduling content; skipped\n",
}


def test_nothing_to_compile_names_two_objects_and_counts_the_rest(here: Path) -> None:
    code, _, err = run("compile", "-v", "settings.yaml", "cosched.yaml", TYPOS)
    *warned, said = err.splitlines()
    assert warned == WARNED["settings.yaml"].splitlines()
    assert (code, said.count(" (document 1) "), said.endswith(" (and 1 more)")) == (2, 2, True)


# -- diff ------------------------------------------------------------------------------------------------------------


def test_a_changed_topology_key_is_shown_as_given(here: Path) -> None:
    Path("new.yaml").write_text(
        Path(TOPOLOGY).read_text().replace("topology.kubernetes.io/rack", "example.com/layer-2")
    )
    at = "spec.scheduling.replicatedJobs[1].schedulingConstraints.topology[0].key"
    assert run("diff", TOPOLOGY, "new.yaml") == (
        1,
        'new.yaml (document 1) JobSet/topo-training: The JobSet "topo-training" is invalid: \n'
        f'* {at}: Invalid value: "example.com/layer-2": field is immutable '
        "(the Workload topo-training-69ddf977d7 refuses the update at "
        "spec.podGroupTemplates[1].schedulingConstraints)\n"
        f'* {at}: Invalid value: "example.com/layer-2": field is immutable '
        "(the PodGroup topo-training-69ddf977d7-workers-5f46865b65 refuses the update at spec.schedulingConstraints)\n",
        "",
    )


def test_diff_reads_a_custom_resource_through_mapping(here: Path) -> None:
    llama = (TRAINING_CLUSTER / "llama.yaml").read_text()
    Path("rack.yaml").write_text(llama.replace("key: topology.kubernetes.io/zone", "key: topology.kubernetes.io/rack"))
    mapping = str(TRAINING_CLUSTER / "mapping.yaml")
    code, out, _ = run("diff", "--mapping", mapping, str(TRAINING_CLUSTER / "llama.yaml"), "rack.yaml")
    assert (code, out.splitlines()[:2]) == (
        1,
        [
            'rack.yaml (document 1) TrainingCluster/llama: The TrainingCluster "llama" is invalid: ',
            "* spec.roles[0].scheduling.schedulingConstraints.topology[0].key: Invalid value: "
            '"topology.kubernetes.io/rack": field is immutable (the Workload llama-7bbd6f4976 refuses the update at '
            "spec.compositePodGroupTemplates[0].podGroupTemplates[0].schedulingConstraints)",
        ],
    )
    assert run("diff", "rack.yaml", "rack.yaml") == (
        2,
        "",
        "error: rack.yaml (document 1) TrainingCluster/llama: no adapter for apiVersion 'training.example.com/v1' kind "
        "'TrainingCluster'; --mapping FILE describes a custom resource\n",
    )


def _trainjob_with_runtime(path: str, num_nodes: object = 1) -> str:
    trainjob = next(doc for doc in yaml.safe_load_all(TRAINJOB.read_text()) if doc)
    runtime = next(doc for doc in yaml.safe_load_all(RUNTIME.read_text()) if doc)
    runtime["spec"]["mlPolicy"]["numNodes"] = num_nodes
    Path(path).write_text(yaml.safe_dump_all([trainjob, runtime]))
    return path


def test_a_trainjob_is_compared_with_its_runtime(here: Path) -> None:
    old = _trainjob_with_runtime("old.yaml")
    assert run("diff", old, old) == (0, 'TrainJob "multi-node-example": the update would be accepted\n', "")
    new = _trainjob_with_runtime("new.yaml", "two")
    assert run("diff", old, new) == (
        1,
        "new.yaml (document 2) ClusterTrainingRuntime/torch-distributed: The ClusterTrainingRuntime "
        '"torch-distributed" is invalid: spec.mlPolicy.numNodes: Invalid value: "two": must be of type integer\n',
        "",
    )
    code, out, _ = run("diff", "-o", "yaml", old, new)
    records = yaml.safe_load(out)
    assert code == 1
    assert [(r["source"], r["document"], r["kind"], r["valid"]) for r in records] == [
        ("new.yaml", 1, "TrainJob", True),
        ("new.yaml", 2, "ClusterTrainingRuntime", False),
    ]


def test_diff_refuses_two_objects_it_could_compare(here: Path) -> None:
    Path("two.yaml").write_text(Path(TRAINER).read_text())
    assert run("diff", "two.yaml", "two.yaml") == (
        2,
        "",
        "error: two.yaml: diff compares one object (given with the objects it uses, a TrainJob's runtime, say), "
        "found 2: Workload/trainer-wl, PodGroup/trainer-pg\n",
    )


def test_diff_takes_the_namespace_as_kubectl_does(here: Path) -> None:
    Path("wl.yaml").write_text(
        "apiVersion: scheduling.k8s.io/v1beta1\nkind: Workload\nmetadata: {name: wl}\n"
        "spec:\n  podGroupTemplates:\n  - name: w\n    schedulingPolicy: {gang: {minCount: 2}}\n"
    )
    code, out, _ = run("diff", "-n", "ml", "-o", "json", "wl.yaml", "wl.yaml")
    assert (code, [record["valid"] for record in json.loads(out)]) == (0, [True])
