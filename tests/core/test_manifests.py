"""manifests.load and manifests.dump: strict, kubectl-style reading, stable writing, and no traceback on bad input."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kubernetes.client import V1alpha3CompositePodGroup, V1beta1PodGroup, V1beta1Workload
from objects_factories import leaf, pod_group, workload

from workloadbuilder import manifests
from workloadbuilder.manifests import DocumentProblem, ManifestError, dump, load, read_documents
from workloadbuilder.validation.objects import validate_composite_pod_group, validate_pod_group, validate_workload

DATA = Path(__file__).resolve().parents[1] / "data" / "manifests"
TREE = DATA / "composite-tree.yaml"


@pytest.mark.parametrize(
    "source",
    [str(TREE), TREE, TREE.read_text(), io.StringIO(TREE.read_text()), io.BytesIO(TREE.read_bytes())],
    ids=["str-path", "pathlike", "text", "text-stream", "bytes-stream"],
)
def test_load_reads_paths_text_and_streams(source: Any):
    objects = load(source)
    assert [type(o).__name__ for o in objects] == [
        "V1beta1Workload",
        "V1alpha3CompositePodGroup",
        "V1beta1PodGroup",
        "V1beta1PodGroup",
    ]
    assert objects[3].spec.disruption_mode.all == {}
    assert objects[0].spec.composite_pod_group_templates[0].pod_group_templates[0].scheduling_policy.basic == {}


def test_load_reads_json_and_lists():
    [workload_model] = load(DATA / "workload.json")
    assert isinstance(workload_model, V1beta1Workload)
    assert workload_model.spec.pod_group_templates[0].resource_claims[0].resource_claim_template_name == "gpu-claim"
    assert [o.metadata.name for o in load(DATA / "list.yaml")] == ["a", "b"]


@pytest.mark.parametrize("text", ["", "---\n---\n", "# only a comment\n"], ids=["empty", "separators", "comment"])
def test_empty_documents_are_skipped(text: str):
    assert load(text) == []


def test_timestamps_stay_strings_as_kubernetes_reads_them():
    [obj] = load(
        "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: 2026-07-01}\nspec: "
        "{schedulingPolicy: {basic: {}}}\n"
    )
    assert obj.metadata.name == "2026-07-01"


def test_every_bad_document_is_reported_kubectl_style():
    with pytest.raises(ManifestError) as caught:
        load(DATA / "broken.yaml")
    source = str(DATA / "broken.yaml")
    assert str(caught.value).splitlines() == [
        f'{source} (document 1): The Workload "typo" is invalid:',
        "* spec.podGroupTemplates[0].minCont: unknown field",
        '* spec.podGroupTemplates[0].schedulingPolicy.gang.minCount: Invalid value: "four": must be of type integer',
        f'{source} (document 2): The PodGroup "no-version" is invalid:',
        "* apiVersion: Required value",
        f'{source} (document 3): The PodGroup "old" is invalid:',
        (
            '* apiVersion: Invalid value: "scheduling.k8s.io/v1alpha2": PodGroup scheduling.k8s.io/v1alpha2 is not '
            "served by "
            "Kubernetes 1.37: the workloadbuilder migrate command rewrites it to scheduling.k8s.io/v1beta1"
        ),
        f'{source} (document 4): The ConfigMap "settings" is invalid:',
        '* kind: Unsupported value: "ConfigMap": supported values: "CompositePodGroup", "PodGroup", "Workload"',
        f'{source} (document 5): The PodGroup "again" is invalid:',
        "* metadata.name: duplicate field",
        f"{source} (document 6): a manifest must be an object with apiVersion and kind, not an array",
    ]
    assert caught.value.objects == []
    assert [p.document for p in caught.value.problems] == [1, 2, 3, 4, 5, 6]


def test_good_documents_load_even_when_others_do_not():
    text = dump(pod_group()) + "---\nkind: Workload\n"
    with pytest.raises(ManifestError) as caught:
        load(text)
    assert [type(o) for o in caught.value.objects] == [V1beta1PodGroup]
    assert caught.value.problems == [DocumentProblem("<string>", 2, "Workload", None, caught.value.problems[0].errors)]
    assert str(caught.value) == "<string> (document 2): The Workload is invalid:\n* apiVersion: Required value"


LOAD_ERRORS: list[tuple[str, str, str]] = [
    (
        "yaml-syntax",
        "kind: [",
        "<string> (document 1): invalid YAML at line 1, column 8: while parsing a flow node, expected the node "
        "content, but found '<stream end>'",
    ),
    (
        "tab",
        "\tkind: x",
        "<string> (document 1): invalid YAML at line 1, column 1: while scanning for the next token, found character "
        "'\\t' that cannot start any token",
    ),
    (
        "python-tag",
        "!!python/object/apply:os.system [ls]",
        "<string> (document 1): invalid YAML at line 1, column 1: could not determine a constructor for the tag "
        "'tag:yaml.org,2002:python/object/apply:os.system'",
    ),
    (
        "scalar",
        "just text",
        "<string> (document 1): a manifest must be an object with apiVersion and kind, not a string",
    ),
    (
        "json-duplicate",
        '{"kind": "PodGroup", "kind": "Workload"}',
        "<string> (document 1): The Workload is invalid:\n* kind: duplicate field",
    ),
    (
        "kind-not-a-string",
        "apiVersion: v1\nkind: 3",
        "<string> (document 1): The object is invalid:\n* kind: Invalid value: 3: must be of type string",
    ),
    (
        "no-type",
        "metadata: {name: x}",
        '<string> (document 1): The object "x" is invalid:\n* apiVersion: Required value\n* kind: Required value',
    ),
]


@pytest.mark.parametrize(("text", "message"), [(t, m) for _, t, m in LOAD_ERRORS], ids=[i for i, *_ in LOAD_ERRORS])
def test_malformed_input_is_a_manifest_error(text: str, message: str):
    with pytest.raises(ManifestError) as caught:
        load(text)
    assert str(caught.value) == message


def test_a_missing_file_is_a_manifest_error(tmp_path: Path):
    with pytest.raises(ManifestError, match="cannot read: No such file or directory"):
        load(tmp_path / "missing.yaml")
    with pytest.raises(ManifestError, match=r"missing.yaml: cannot read: No such file or directory"):
        load(str(tmp_path / "missing.yaml"))
    with pytest.raises(TypeError, match="a manifest source is a path, a string or a stream, not int"):
        load(3)  # type: ignore[arg-type]


def test_read_documents_gives_plain_data_for_migration():
    [data] = read_documents(DATA / "v1alpha2-podgroup.yaml")
    assert data["apiVersion"] == "scheduling.k8s.io/v1alpha2"
    with pytest.raises(ManifestError, match="invalid YAML"):
        read_documents("a: [")


def test_dump_writes_kubernetes_json_spelling():
    text = dump([V1beta1PodGroup.model_validate(pod_group(gang=2)), workload(leaf("a", priorityClassName="high"))])
    assert text == (
        "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata:\n  name: train-worker-0\n  namespace: ml\n"
        "spec:\n  schedulingPolicy:\n    gang:\n      minCount: 2\n  workloadRef:\n    templateName: worker\n"
        "    workloadName: train\n---\napiVersion: scheduling.k8s.io/v1beta1\nkind: Workload\nmetadata:\n  name: "
        "train\n"
        "  namespace: ml\nspec:\n  podGroupTemplates:\n  - name: a\n    priorityClassName: high\n    "
        "schedulingPolicy:\n"
        "      basic: {}\n"
    )


def test_dump_refuses_a_dict_that_does_not_decode():
    with pytest.raises(
        ManifestError,
        match=r"<dump> \(document 1\): The PodGroup \"train-worker-0\" is invalid:\n\* spec.bogus: unknown field",
    ):
        dump(pod_group(bogus=1))


@pytest.mark.parametrize(
    "name", ["composite-tree.yaml", "workload.json", "list.yaml"], ids=["composite-tree", "workload-json", "list"]
)
def test_load_dump_load_is_identity(name: str):
    first = load(DATA / name)
    text = dump(first)
    assert load(text) == first
    assert dump(load(text)) == text


def test_loaded_fixtures_are_valid():
    validators = {
        V1beta1Workload: validate_workload,
        V1beta1PodGroup: validate_pod_group,
        V1alpha3CompositePodGroup: validate_composite_pod_group,
    }
    for obj in load(TREE) + load(DATA / "workload.json"):
        assert validators[type(obj)](obj) == []


# --- fuzzing: random text and random structures never escape as anything but ManifestError ---

_KEYS = st.sampled_from(
    [
        "apiVersion",
        "kind",
        "metadata",
        "name",
        "spec",
        "podGroupTemplates",
        "schedulingPolicy",
        "gang",
        "minCount",
        "basic",
        "workloadRef",
        "items",
        "topology",
        "key",
        "resourceClaims",
        "x",
        "1",
    ]
)
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**40), max_value=2**40),
    st.floats(allow_nan=True),
    st.text(max_size=8),
    st.sampled_from(
        [
            "scheduling.k8s.io/v1beta1",
            "scheduling.k8s.io/v1alpha3",
            "Workload",
            "PodGroup",
            "CompositePodGroup",
            "List",
            "v1",
        ]
    ),
)
_VALUES = st.recursive(
    _SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=4), max_leaves=12
)
_FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _load_or_manifest_error(text: str) -> list[Any]:
    try:
        return load(text)
    except ManifestError as err:
        error = err
    assert str(error)  # always renders
    return error.objects


@_FUZZ
@given(st.text(alphabet=st.sampled_from(list("ab:-[]{}\n #&*!|>'\"\t,?%@`.0")), max_size=60))
def test_random_text_never_raises_anything_but_manifest_error(text: str):
    _load_or_manifest_error(text)


@_FUZZ
@given(st.lists(_VALUES, min_size=1, max_size=3))
def test_random_structures_never_raise_anything_but_manifest_error(documents: list[Any]):
    text = yaml.safe_dump_all(documents)
    for obj in _load_or_manifest_error(text):
        validator = {V1beta1Workload: validate_workload, V1beta1PodGroup: validate_pod_group}.get(
            type(obj), validate_composite_pod_group
        )
        validator(obj)  # a loaded object can always be validated
    for document in documents:
        if isinstance(document, dict):
            _load_or_manifest_error(json.dumps(document, default=str))


def test_manifests_keeps_its_older_helpers():
    assert manifests.to_dict(pod_group()) == pod_group()
    assert manifests.to_yaml(pod_group()).startswith("apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\n")
