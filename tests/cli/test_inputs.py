"""Reading the command's inputs (cli/inputs.py): kubectl's ``-f`` paths, documents that know their file, ``-n``,
``--gates`` and the words naming what the checks are for."""

from __future__ import annotations

from pathlib import Path

import pytest

from workloadbuilder.cli.errors import UsageError
from workloadbuilder.cli.inputs import about, checks_for, expand_paths, parse_gates, read_inputs, skip_notices
from workloadbuilder.errors import WorkloadBuilderError
from workloadbuilder.validation.gates import FeatureGates

JOB = "apiVersion: batch/v1\nkind: Job\nmetadata: {name: %s}\nspec: {template: {spec: {containers: []}}}\n"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """b.yaml, a.json, notes.txt and sub/c.yml under tmp_path."""
    (tmp_path / "b.yaml").write_text(JOB % "b")
    (tmp_path / "a.json").write_text('{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}')
    (tmp_path / "notes.txt").write_text("not a manifest")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "c.yml").write_text(JOB % "c")
    return tmp_path


def test_a_directory_gives_its_manifests_in_name_order_and_r_its_subdirectories(tree: Path) -> None:
    assert expand_paths([str(tree)], recursive=False) == [str(tree / "a.json"), str(tree / "b.yaml")]
    assert expand_paths([str(tree)], recursive=True) == [
        str(tree / "a.json"),
        str(tree / "b.yaml"),
        str(tree / "sub" / "c.yml"),
    ]
    assert expand_paths(["-", str(tree / "notes.txt")], recursive=False) == ["-", str(tree / "notes.txt")]


@pytest.mark.parametrize(
    ("name", "recursive", "message"),
    [
        ("missing", False, "{path}: no such file or directory"),
        ("empty", False, "{path}: no .yaml, .yml or .json file in the directory (-R reads its subdirectories)"),
        ("empty", True, "{path}: no .yaml, .yml or .json file in the directory"),
    ],
    ids=["missing", "empty-directory", "empty-directory-recursive"],
)
def test_a_path_with_no_manifest_is_a_usage_error(tmp_path: Path, name: str, recursive: bool, message: str) -> None:
    (tmp_path / "empty").mkdir()
    path = tmp_path / name
    with pytest.raises(UsageError) as raised:
        expand_paths([str(path)], recursive)
    assert str(raised.value) == message.format(path=path)


def test_each_document_knows_its_file_number_and_list_item_from_1(tmp_path: Path) -> None:
    path = tmp_path / "in.yaml"
    path.write_text(JOB % "one" + "---\napiVersion: v1\nkind: List\nitems:\n- " + (JOB % "two").replace("\n", "\n  "))
    documents = read_inputs([str(path)])
    assert [(doc.source, doc.number, doc.item, doc.name) for doc in documents] == [
        (str(path), 1, None, "one"),
        (str(path), 2, 1, "two"),
    ]
    assert documents[0].text == path.read_text()


def test_n_fills_in_the_namespace_and_refuses_another(tmp_path: Path) -> None:
    path = tmp_path / "in.yaml"
    path.write_text(JOB % "j" + "---\n" + (JOB % "k").replace("{name: k}", "{name: k, namespace: ml}"))
    assert read_inputs([str(path)], namespace="ml")[0].data["metadata"] == {"name": "j", "namespace": "ml"}
    with pytest.raises(UsageError) as raised:
        read_inputs([str(path)], namespace="other")
    assert str(raised.value) == (
        f"{path} (document 2) Job/k: the namespace from the provided object 'ml' does not match the namespace "
        "'other' (--namespace): leave the flag out, or pass --namespace=ml"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("- 1\n", "{path} (document 1): a manifest is a mapping, not a list"),
        ("apiVersion: v1\nkind: List\nitems: [3]\n", "{path} (document 1, item 1): a manifest is a mapping, not a int"),
        ("---\n", "{path}: no object in the input"),
    ],
    ids=["a-list", "a-list-item", "no-object"],
)
def test_a_document_that_is_no_object_is_a_usage_error(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "in.yaml"
    path.write_text(text)
    with pytest.raises(UsageError) as raised:
        read_inputs([str(path)])
    assert str(raised.value) == message.format(path=path)


def test_a_built_in_object_without_gang_content_gets_a_skipped_note(tmp_path: Path) -> None:
    path = tmp_path / "in.yaml"
    path.write_text(JOB % "j" + "---\napiVersion: v1\nkind: Service\nmetadata: {name: web}\n")
    notices = skip_notices(read_inputs([str(path)]))
    assert [(notice.kind, notice.text) for notice in notices] == [
        ("skipped", f"{path} (document 2) Service/web: Service (v1) has no gang-scheduling content; skipped")
    ]


def test_about_names_the_document_in_the_librarys_refusal(tmp_path: Path) -> None:
    path = tmp_path / "in.yaml"
    path.write_text(JOB % "j")
    [doc] = read_inputs([str(path)])
    with pytest.raises(UsageError) as raised, about(doc):
        raise WorkloadBuilderError("no such thing\nsecond line")
    assert str(raised.value) == f"{path} (document 1) Job/j: no such thing; second line"


@pytest.mark.parametrize(
    ("spec", "checks"),
    [
        (None, "Kubernetes 1.37, feature gates: all"),
        ("all", "Kubernetes 1.37, feature gates: all"),
        ("defaults", "Kubernetes 1.37, feature gates: defaults"),
        (
            "CompositePodGroup=false,GenericWorkload=FALSE",
            "Kubernetes 1.37, feature gates: all but CompositePodGroup=false,GenericWorkload=false",
        ),
    ],
    ids=["unset", "all", "defaults", "two-off"],
)
def test_gates_and_the_words_naming_them(spec: str | None, checks: str) -> None:
    assert checks_for(parse_gates(spec)) == checks
    assert parse_gates("CompositePodGroup=true") == FeatureGates.all()


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("CompositePodGroup", "--gates: expected Gate=true|false, got 'CompositePodGroup'"),
        ("CompositePodGroup=yes", "--gates: expected Gate=true|false, got 'CompositePodGroup=yes'"),
        (
            "Nope=true",
            "--gates: unknown feature gate(s) Nope: known gates are CompositePodGroup, DRAWorkloadResourceClaims, "
            "GenericWorkload, PodGroupPreemptionPolicy, TopologyAwareWorkloadScheduling, WorkloadWithJob",
        ),
    ],
    ids=["no-value", "not-a-bool", "unknown-gate"],
)
def test_a_bad_gate_is_a_usage_error(spec: str, message: str) -> None:
    with pytest.raises(UsageError) as raised:
        parse_gates(spec)
    assert str(raised.value) == message
