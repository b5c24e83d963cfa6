"""The declarative CRD adapter: mappings, the trees they make, and errors at the resource's own paths."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pydantic
import pytest
import yaml
from plan_summary import golden_documents

from workloadbuilder import FieldPath, to_dict
from workloadbuilder.adapters import PlanError, adapter_for, plan_object, scoped_registry
from workloadbuilder.adapters.crd import CRDAdapter, register_mapping
from workloadbuilder.adapters.crd.mapping import CRDMapping, GroupMapping, PodsMapping
from workloadbuilder.runtime.naming import workload_name
from workloadbuilder.testing import assert_golden

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "tests" / "data" / "adapters" / "crd"
EXAMPLE = ROOT / "examples" / "training_cluster"
CASES = {
    "training-cluster": (EXAMPLE / "mapping.yaml", EXAMPLE / "llama.yaml"),
    "worker-pool": (DATA / "worker-pool.mapping.yaml", DATA / "worker-pool.in.yaml"),
}


def load(case: str) -> tuple[CRDAdapter, dict[str, Any]]:
    mapping, manifest = CASES[case]
    return CRDAdapter.from_yaml(mapping), yaml.safe_load(manifest.read_text())


def changed(obj: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A copy of ``obj`` with the field at a rendered path set (deleted when ``value`` is ``None``)."""
    copied = copy.deepcopy(obj)
    *parents, last = FieldPath.parse(path).elements()
    node: Any = copied
    for element in parents:
        node = node[element]
    if value is None:
        del node[last]
    else:
        node[last] = value
    return copied


@pytest.mark.parametrize("case", sorted(CASES), ids=sorted(CASES))
def test_golden(case: str, request: pytest.FixtureRequest):
    adapter, obj = load(case)
    plan = adapter.plan(obj)
    compiled = plan.compile()
    assert_golden(
        golden_documents(plan, compiled), DATA / f"{case}.out.yaml", update=request.config.getoption("--update-goldens")
    )


def test_training_cluster_is_a_gang_of_roles():
    adapter, obj = load("training-cluster")
    compiled = adapter.plan(obj).compile()
    composite = to_dict(compiled.workload)["spec"]["compositePodGroupTemplates"][0]
    assert composite["schedulingPolicy"] == {"gang": {"minGroupCount": 2}}
    assert [(t["name"], t["schedulingPolicy"]) for t in composite["podGroupTemplates"]] == [
        ("trainer", {"gang": {"minCount": 8}}),
        ("evaluator", {"basic": {}}),
    ]
    stamped = compiled.source["spec"]["roles"][0]["template"]["spec"]["schedulingGroup"]
    assert stamped == {"podGroupName": compiled.hierarchy.find("trainer").name}
    assert "schedulingGroup" not in obj["spec"]["roles"][0]["template"]["spec"]  # the input is never changed


TRAINING_ERRORS: list[tuple[str, str, Any, list[str]]] = [
    (
        "min-count-zero",
        "spec.roles[1].scheduling",
        {"schedulingPolicy": {"gang": {"minCount": 0}}},
        [
            (
                "spec.roles[1].scheduling.schedulingPolicy.gang.minCount: Invalid value: 0: must be greater than or "
                "equal to 1"
            )
        ],
    ),
    (
        "min-count-above-replicas",
        "spec.roles[1].scheduling",
        {"schedulingPolicy": {"gang": {"minCount": 3}}},
        [
            (
                "spec.roles[1].scheduling.schedulingPolicy.gang.minCount: Invalid value: 3: must be less than or equal "
                "to spec.roles[1].replicas"
            )
        ],
    ),
    (
        "min-group-count-above-roles",
        "spec.scheduling.schedulingPolicy.gang.minGroupCount",
        3,
        [
            (
                "spec.scheduling.schedulingPolicy.gang.minGroupCount: Invalid value: 3: must be less than or equal to "
                "the number of child groups (2)"
            )
        ],
    ),
    ("duplicate-role", "spec.roles[1].name", "trainer", ['spec.roles[1].name: Duplicate value: "trainer"']),
    (
        "role-name-not-a-label",
        "spec.roles[1].name",
        "eval.v2",
        ['spec.roles[1].name: Invalid value: "eval.v2": must not contain dots'],
    ),
    ("role-without-name", "spec.roles[1].name", None, ['spec.roles[1].name: Required value: "{name}" is made from it']),
    (
        "replicas-a-string",
        "spec.roles[0].replicas",
        "8",
        ['spec.roles[0].replicas: Invalid value: "8": must be of type integer'],
    ),
    (
        "replicas-negative",
        "spec.roles[0].replicas",
        -1,
        ["spec.roles[0].replicas: Invalid value: -1: must be greater than or equal to 0"],
    ),
    (
        "replicas-missing",
        "spec.roles[0].replicas",
        None,
        ["spec.roles[0].replicas: Required value: the number of pods of the group"],
    ),
    (
        "no-roles",
        "spec.roles",
        [],
        ['spec.roles: Required value: group "cluster" needs at least one child group ($.spec.roles[*])'],
    ),
    (
        "claims-on-the-cluster",
        "spec.scheduling.resourceClaims",
        [{"name": "nics", "resourceClaimName": "nics"}],
        [
            (
                "spec.scheduling.resourceClaims: Forbidden: resource claims belong to groups of pods, not to groups of "
                "groups"
            )
        ],
    ),
    (
        "basic-role-disrupted-all",
        "spec.roles[1].scheduling",
        {"disruptionMode": {"all": {}}},
        [
            (
                'spec.roles[1].scheduling.disruptionMode: Invalid value: "": the disruptionMode `all` is not supported '
                "with the Basic scheduling policy"
            )
        ],
    ),
    (
        "topology-key-invalid",
        "spec.roles[0].scheduling.schedulingConstraints.topology",
        [{"key": "-zone"}],
        [
            (
                'spec.roles[0].scheduling.schedulingConstraints.topology[0].key: Invalid value: "-zone": name part '
                "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
                "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
                "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
            )
        ],
    ),
    (
        "unknown-field",  # the block counts as unset, so the default Basic policy meets the role's `all`
        "spec.roles[0].scheduling.schedulingPolicy",
        {"gang": {"mincount": 8}},
        [
            "spec.roles[0].scheduling.schedulingPolicy.gang.mincount: unknown field",
            (
                'spec.roles[0].scheduling.disruptionMode: Invalid value: "": the disruptionMode `all` is not '
                "supported with the Basic scheduling policy"
            ),
        ],
    ),
    (
        "priority-class-not-a-string",
        "spec.roles[1].template.spec.priorityClassName",
        7,
        ["spec.roles[1].template.spec.priorityClassName: Invalid value: 7: must be of type string"],
    ),
    (
        "scheduling-not-an-object",
        "spec.scheduling",
        "gang",
        ['spec.scheduling: Invalid value: "gang": must be of type object'],
    ),
    (
        "roles-not-a-list",
        "spec.roles",
        {"name": "trainer"},
        ['spec.roles: Invalid value: {"name":"trainer"}: must be of type array'],
    ),
    (
        "no-pod-template",
        "spec.roles[1].template",
        None,
        ["spec.roles[1].template: Required value: the pod template to stamp with the PodGroup's name"],
    ),
]


@pytest.mark.parametrize(
    ("path", "value", "expected"), [case[1:] for case in TRAINING_ERRORS], ids=[case[0] for case in TRAINING_ERRORS]
)
def test_training_cluster_errors(path: str, value: Any, expected: list[str]):
    adapter, obj = load("training-cluster")
    plan = adapter.plan(changed(obj, path, value))
    assert [str(finding) for finding in plan.validate()] == [
        f"TrainingCluster/llama: {message}" for message in expected
    ]
    with pytest.raises(PlanError):
        plan.compile()


WORKER_POOL_ERRORS: list[tuple[str, str, Any, list[str]]] = [
    (
        "disruption-all-not-supported",
        "spec.workerGroups[1].disruption",
        {"all": {}},
        ["spec.workerGroups[1].disruption: Forbidden: the disruptionMode `all` is not supported by this controller"],
    ),
    (
        "head-gang-of-two",
        "spec.head.policy",
        {"gang": {"minCount": 2}},
        ["spec.head.policy.gang.minCount: Invalid value: 2: must be less than or equal to the number of pods (1)"],
    ),
    (
        "gang-without-size",
        "spec.head.policy",
        {"gang": {}},
        ["spec.head.policy.gang.minCount: Required value: the gang has no size, and the mapping gives it no default"],
    ),
    (
        "claim-without-source",
        "spec.workerGroups[1].claims",
        [{"name": "nics"}],
        [
            (
                'spec.workerGroups[1].claims[0]: Invalid value: "": must specify one of: `resourceClaimName`, '
                "`resourceClaimTemplateName`"
            )
        ],
    ),
    (
        "group-name-a-list",
        "spec.workerGroups[0].groupName",
        ["small"],
        ['spec.workerGroups[0].groupName: Invalid value: ["small"]: must be of type string'],
    ),
]


@pytest.mark.parametrize(
    ("path", "value", "expected"),
    [case[1:] for case in WORKER_POOL_ERRORS],
    ids=[case[0] for case in WORKER_POOL_ERRORS],
)
def test_worker_pool_errors(path: str, value: Any, expected: list[str]):
    adapter, obj = load("worker-pool")
    findings = adapter.plan(changed(obj, path, value)).validate()
    assert [str(finding) for finding in findings] == [f"WorkerPool/pool: {message}" for message in expected]


def test_stamping_a_template_that_names_another_group_fails_at_its_path():
    adapter, obj = load("training-cluster")
    obj = changed(obj, "spec.roles[1].template.spec.schedulingGroup", {"podGroupName": "mine"})
    with pytest.raises(PlanError) as raised:
        adapter.plan(obj).compile()
    assert [str(finding) for finding in raised.value.findings] == [
        (
            'TrainingCluster/llama: spec.roles[1].template.spec.schedulingGroup.podGroupName: Invalid value: "mine": '
            'already names another PodGroup; cannot make the pods members of "llama-7bbd6f4976-evaluator-646f4d489"'
        )
    ]


def test_default_workload_name_is_the_job_controllers_scheme():
    adapter, obj = load("training-cluster")
    assert adapter.plan(obj).options.name == workload_name("llama", obj["metadata"]["uid"])


def test_missing_uid_is_a_warning_and_missing_name_an_error():
    adapter, obj = load("training-cluster")
    no_uid = adapter.plan(changed(obj, "metadata.uid", None))
    assert [str(w) for w in no_uid.warnings] == [
        (
            "TrainingCluster/llama: metadata.uid: Required value: planned with an empty uid: the Workload name hashes "
            "the uid, and owner references need it, so plan the object as read back from the cluster to get the "
            "controller's names"
        )
    ]
    assert no_uid.validate() == []
    no_name = adapter.plan(changed(obj, "metadata.name", None))
    assert [str(f) for f in no_name.validate()] == [
        "TrainingCluster/: metadata.name: Required value: every derived name starts from it"
    ]


class RoleModel(pydantic.BaseModel):
    """A user's own typed model with camelCase aliases, as generated SDKs write them."""

    model_config = pydantic.ConfigDict(populate_by_name=True, alias_generator=pydantic.alias_generators.to_camel)

    name: str
    replicas: int
    scheduling: dict[str, Any] | None = None
    template: dict[str, Any]


class TrainingClusterModel(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(populate_by_name=True)

    api_version: str = pydantic.Field(alias="apiVersion")
    kind: str
    metadata: dict[str, Any]
    spec: dict[str, Any]


def test_typed_resource_plans_like_its_dict():
    adapter, obj = load("training-cluster")
    typed = TrainingClusterModel.model_validate(obj)
    from_dict, from_model = adapter.plan(obj).compile(), adapter.plan(typed).compile()
    assert [to_dict(o) for o in from_model.objects()] == [to_dict(o) for o in from_dict.objects()]


def test_registered_on_demand():
    with scoped_registry():  # leave the registry as other tests expect it
        assert adapter_for("training.example.com/v1", "TrainingCluster") is None
        adapter = register_mapping(EXAMPLE / "mapping.yaml")
        assert adapter_for("training.example.com/v1", "TrainingCluster") is adapter
        _, obj = load("training-cluster")
        assert [root.name for root in plan_object(obj).roots] == ["cluster"]
    assert adapter_for("training.example.com/v1", "TrainingCluster") is None


def test_mapping_built_in_python_equals_its_yaml():
    in_python = CRDMapping(
        api_version="training.example.com/v1",
        kind="TrainingCluster",
        groups=[
            GroupMapping(
                name="cluster",
                scheduling="$.spec.scheduling",
                priority_class_name="$.spec.roles[0].template.spec.priorityClassName",
                groups=[
                    GroupMapping(
                        for_each="$.spec.roles[*]",
                        name="{name}",
                        scheduling="scheduling",
                        min_count="replicas",
                        priority_class_name="template.spec.priorityClassName",
                        pods=PodsMapping(
                            count="replicas",
                            selector={
                                "training.example.com/cluster": "{$.metadata.name}",
                                "training.example.com/role": "{name}",
                            },
                            template="template",
                        ),
                    )
                ],
            )
        ],
    )
    assert in_python == CRDMapping.from_yaml(EXAMPLE / "mapping.yaml")


BAD_MAPPINGS: list[tuple[str, Callable[[dict[str, Any]], None], tuple[Any, ...], str]] = [
    (
        "pods-on-a-composite",
        lambda m: m["groups"][0].update(pods={"count": 1}),
        ("groups", 0),
        "Value error, group 'cluster' has child groups, so it owns no pods: drop pods",
    ),
    (
        "wildcard-where-one-place",
        lambda m: m["groups"][0]["groups"][0].update(minCount="roles[*].replicas"),
        ("groups", 0, "groups", 0, "minCount"),
        'Value error, JSONPath "roles[*].replicas" must name one place: use field names and non-negative indexes only',
    ),
    (
        "unknown-default-block",
        lambda m: m["groups"][0].update(defaults={"policy": {"gang": {}}}),
        ("groups", 0),
        "Value error, defaults of group 'cluster': defaults.policy: a composite group has no such block",
    ),
    (
        "default-that-does-not-decode",
        lambda m: m["groups"][0]["groups"][0].update(defaults={"schedulingPolicy": {"gang": {"minCount": "8"}}}),
        ("groups", 0, "groups", 0),
        (
            "Value error, defaults of group '{name}': defaults.schedulingPolicy.gang.minCount: Invalid value: \"8\": "
            "must be of type integer"
        ),
    ),
    (
        "unknown-mapping-field",
        lambda m: m["groups"][0].update(forEvery="$.x"),
        ("groups", 0, "forEvery"),
        "Extra inputs are not permitted",
    ),
    (
        "bad-block-name",
        lambda m: m["groups"][0].update(blocks={"schedulingPolicy": "a..b"}),
        ("groups", 0, "blocks", "schedulingPolicy"),
        "Value error, a block's place is one or more field names separated by dots, got 'a..b'",
    ),
    (
        "no-groups",
        lambda m: m.update(groups=[]),
        ("groups",),
        "List should have at least 1 item after validation, not 0",
    ),
]


@pytest.mark.parametrize(
    ("change", "loc", "message"), [case[1:] for case in BAD_MAPPINGS], ids=[case[0] for case in BAD_MAPPINGS]
)
def test_bad_mapping_is_refused_when_loaded(
    change: Callable[[dict[str, Any]], None], loc: tuple[Any, ...], message: str
):
    data = yaml.safe_load((EXAMPLE / "mapping.yaml").read_text())
    change(data)
    with pytest.raises(pydantic.ValidationError) as raised:
        CRDMapping.model_validate(data)
    assert [(error["loc"], error["msg"]) for error in raised.value.errors()] == [(loc, message)]


@pytest.mark.parametrize(
    ("path", "value", "sizes"),
    [
        ("spec.scheduling.schedulingPolicy.gang", {}, {"cluster": 2, "trainer": 8}),
        ("spec.roles[0].replicas", 0, {"cluster": 2, "trainer": 1}),
        ("spec.roles[0].scheduling.schedulingPolicy.gang", {"minCount": 5}, {"cluster": 2, "trainer": 5}),
    ],
    ids=["composite-defaults-to-all-children", "scaled-to-zero-keeps-a-gang-of-one", "explicit-count-kept"],
)
def test_default_sizes(path: str, value: Any, sizes: dict[str, int]):
    adapter, obj = load("training-cluster")
    plan = adapter.plan(changed(obj, path, value))
    assert plan.validate() == []
    spec = to_dict(plan.compile().workload)["spec"]["compositePodGroupTemplates"][0]
    found = {spec["name"]: spec["schedulingPolicy"]["gang"]["minGroupCount"]}
    found.update(
        {
            t["name"]: t["schedulingPolicy"]["gang"]["minCount"]
            for t in spec["podGroupTemplates"]
            if "gang" in t["schedulingPolicy"]
        }
    )
    assert found == sizes


def test_workload_name_template_must_make_a_dns_subdomain():
    adapter, obj = load("worker-pool")
    mapping = adapter.mapping.model_copy(update={"workload_name": "{$.spec.poolName}"})
    findings = CRDAdapter(mapping).plan(changed(obj, "spec.poolName", "Big_Pool")).validate()
    assert [str(finding) for finding in findings] == [
        (
            'WorkerPool/pool: spec.poolName: Invalid value: "Big_Pool": a lowercase RFC 1123 subdomain must consist '
            "of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric "
            "character (e.g. 'example.com', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
        )
    ]
