"""Builder: compilation, resolution and the materialization facade (port of upstream builder_test.go)."""

from __future__ import annotations

from typing import Any

import pytest
from factories import SCHEDULING_PATH, composite_gang_data, gang_data, job_owner, make_item
from kubernetes.client import (
    V1alpha3TopologyConstraint,
    V1alpha3WorkloadPodGroupDisruptionMode,
    V1alpha3WorkloadPodGroupGangSchedulingPolicy,
    V1alpha3WorkloadPodGroupResourceClaim,
    V1alpha3WorkloadPodGroupSchedulingConstraints,
    V1alpha3WorkloadPodGroupSchedulingPolicy,
    V1beta1Workload,
)

import workloadbuilder.builder as builder_module
from workloadbuilder import (
    Builder,
    BuildError,
    BuildOptions,
    ConstraintsInput,
    DisruptionModeInput,
    ErrorType,
    PolicyInput,
    ResourceClaimsInput,
    SchedulingConfig,
    WorkloadInput,
    WorkloadItem,
    to_dict,
)
from workloadbuilder.types import (
    BasicSchedulingPolicy,
    DisruptionMode,
    GangSchedulingPolicy,
    SchedulingPolicy,
    SchedulingPolicyOption,
    SingleDisruptionMode,
    WorkloadCompositePodGroupDisruptionMode,
    WorkloadCompositePodGroupSchedulingConstraints,
    WorkloadCompositePodGroupSchedulingPolicy,
)

ZONE = "topology.kubernetes.io/zone"
REGION = "topology.kubernetes.io/region"
NO_WORKLOAD = "no Workload available: call BuildWorkload or use NewBuilderFromExistingWorkload first"

# The owner the upstream table falls back to when a case names none.
TABLE_OWNER = {"apiVersion": "batch/v1", "kind": "Job", "name": "test-job", "uid": "12345"}
JOB_OWNER = {"apiVersion": "batch/v1", "kind": "Job", "name": "job", "uid": "job-uid"}


# --- fixtures ---


def basic_config(**extra: Any) -> SchedulingConfig:
    return SchedulingConfig(policy=SchedulingPolicy(basic=BasicSchedulingPolicy()), **extra)


def gang_config(min_count: int | None, **extra: Any) -> SchedulingConfig:
    return SchedulingConfig(policy=SchedulingPolicy(gang=GangSchedulingPolicy(min_count=min_count)), **extra)


def leaf(name: str, config: SchedulingConfig | None = None, **fields: Any) -> WorkloadItem:
    return WorkloadItem(name=name, default_config=config, **fields)


def empty_gang_input() -> WorkloadInput:
    """A leaf gang policy with no minCount, as a typed client model."""
    return WorkloadInput(
        policy=PolicyInput(
            pod_group_data=V1alpha3WorkloadPodGroupSchedulingPolicy(gang=V1alpha3WorkloadPodGroupGangSchedulingPolicy())
        )
    )


def set_min_count_if_unset(n: int):
    """A callback that fills a gang's missing count, like a Job defaulting it to its parallelism."""

    def callback(cfg: SchedulingConfig) -> None:
        if cfg.policy is not None and cfg.policy.gang is not None and cfg.policy.gang.min_count is None:
            cfg.policy.gang.min_count = n

    return callback


def triple_min_count(cfg: SchedulingConfig) -> None:
    gang = cfg.policy.gang if cfg.policy is not None else None
    if gang is not None and gang.min_count is not None:
        gang.min_count *= 3


def gang_workload_item() -> WorkloadItem:
    """Upstream ``createGangWorkloadItem``: one leaf ``pgt-0`` with a user gang of 3."""
    return WorkloadItem(name="pgt-0", input=WorkloadInput(policy=PolicyInput(pod_group_data=gang_data(3))))


def composite_workload_item() -> WorkloadItem:
    """Upstream ``createCompositeWorkloadItem``: cpgt-0 owns leaf pgt-0 and composite cpgt-1 (leaf pgt-1)."""
    return WorkloadItem(
        name="cpgt-0",
        default_config=gang_config(2),
        children=[
            leaf("pgt-0", basic_config()),
            WorkloadItem(name="cpgt-1", default_config=gang_config(2), children=[leaf("pgt-1", basic_config())]),
        ],
    )


def existing_workload() -> V1beta1Workload:
    """Upstream ``existingWorkload``: a Workload someone else compiled and persisted."""
    return V1beta1Workload.model_validate(
        {
            "metadata": {"name": "parent-wl", "namespace": "ns", "uid": "wl-uid"},
            "spec": {
                "podGroupTemplates": [
                    {
                        "name": "pgt-0",
                        "schedulingPolicy": {"gang": {"minCount": 4}},
                        "priorityClassName": "high-priority",
                        "priority": 1000,
                    }
                ]
            },
        }
    )


def wl_options(**extra: Any) -> BuildOptions:
    return BuildOptions(name="wl", namespace="ns", owner=job_owner(), **extra)


def expected_workload(
    spec: dict[str, Any], owner: dict[str, Any] = TABLE_OWNER, group: str = "batch"
) -> dict[str, Any]:
    """The full Workload dict the builder should emit for ``spec`` (controllerRef added)."""
    return {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "Workload",
        "metadata": {"name": "wl", "namespace": "ns", "ownerReferences": [owner]},
        "spec": {"controllerRef": {"apiGroup": group, "kind": owner["kind"], "name": owner["name"]}, **spec},
    }


def one_leaf(template: dict[str, Any]) -> dict[str, Any]:
    return {"podGroupTemplates": [template]}


def one_composite(template: dict[str, Any]) -> dict[str, Any]:
    return {"compositePodGroupTemplates": [template]}


BASIC = {"basic": {}}


# --- TestBuildWorkload ---

BUILD_CASES = [
    pytest.param(
        leaf("test-job", basic_config()),
        TABLE_OWNER,
        expected_workload(one_leaf({"name": "test-job", "schedulingPolicy": BASIC})),
        id="basic policy",
    ),
    pytest.param(
        leaf("gang-job", gang_config(4)),
        TABLE_OWNER,
        expected_workload(one_leaf({"name": "gang-job", "schedulingPolicy": {"gang": {"minCount": 4}}})),
        id="gang policy from default",
    ),
    pytest.param(
        leaf("gang-job", basic_config(), input=empty_gang_input(), callbacks=[set_min_count_if_unset(8)]),
        TABLE_OWNER,
        expected_workload(one_leaf({"name": "gang-job", "schedulingPolicy": {"gang": {"minCount": 8}}})),
        id="gang minCount defaulted by callback",
    ),
    pytest.param(
        leaf("override-job", basic_config(), input=WorkloadInput(policy=PolicyInput(pod_group_data=gang_data(2)))),
        TABLE_OWNER,
        expected_workload(one_leaf({"name": "override-job", "schedulingPolicy": {"gang": {"minCount": 2}}})),
        id="user gang overrides default basic",
    ),
    pytest.param(
        leaf(
            "merge-job",
            basic_config(disruption_mode=DisruptionMode(single=SingleDisruptionMode())),
            input=WorkloadInput(
                constraints=ConstraintsInput(
                    pod_group_data=V1alpha3WorkloadPodGroupSchedulingConstraints(
                        topology=[V1alpha3TopologyConstraint(key=ZONE)]
                    )
                )
            ),
        ),
        TABLE_OWNER,
        expected_workload(
            one_leaf(
                {
                    "name": "merge-job",
                    "schedulingPolicy": BASIC,
                    "schedulingConstraints": {"topology": [{"key": ZONE}]},
                    "disruptionMode": {"single": {}},
                }
            )
        ),
        id="field-by-field merge of default and user config",
    ),
    pytest.param(
        leaf(
            "topo-job",
            basic_config(),
            input=WorkloadInput(constraints=ConstraintsInput(pod_group_data={"topology": [{"key": ZONE}]})),
        ),
        TABLE_OWNER,
        expected_workload(
            one_leaf(
                {"name": "topo-job", "schedulingPolicy": BASIC, "schedulingConstraints": {"topology": [{"key": ZONE}]}}
            )
        ),
        id="topology constraints",
    ),
    pytest.param(
        leaf(
            "disruption-job",
            basic_config(),
            input=WorkloadInput(
                disruption_mode=DisruptionModeInput(pod_group_data=V1alpha3WorkloadPodGroupDisruptionMode(all={}))
            ),
        ),
        TABLE_OWNER,
        expected_workload(
            one_leaf({"name": "disruption-job", "schedulingPolicy": BASIC, "disruptionMode": {"all": {}}})
        ),
        id="disruption mode all",
    ),
    pytest.param(
        leaf(
            "dra-job",
            basic_config(),
            input=WorkloadInput(
                resource_claims=ResourceClaimsInput(
                    pod_group_data=[V1alpha3WorkloadPodGroupResourceClaim(name="gpu", resource_claim_name="my-claim")]
                )
            ),
        ),
        TABLE_OWNER,
        expected_workload(
            one_leaf(
                {
                    "name": "dra-job",
                    "schedulingPolicy": BASIC,
                    "resourceClaims": [{"name": "gpu", "resourceClaimName": "my-claim"}],
                }
            )
        ),
        id="resource claims",
    ),
    pytest.param(
        leaf("prio-job", basic_config(priority_class_name="system-node-critical")),
        TABLE_OWNER,
        expected_workload(
            one_leaf({"name": "prio-job", "schedulingPolicy": BASIC, "priorityClassName": "system-node-critical"})
        ),
        id="priorityClassName propagates to template",
    ),
    pytest.param(
        leaf("owned-job", basic_config()),
        {"apiVersion": "batch/v1", "kind": "Job", "name": "my-job", "uid": "abc-123"},
        expected_workload(
            one_leaf({"name": "owned-job", "schedulingPolicy": BASIC}),
            owner={"apiVersion": "batch/v1", "kind": "Job", "name": "my-job", "uid": "abc-123"},
        ),
        id="owner reference and controllerRef parse APIGroup",
    ),
    pytest.param(
        WorkloadItem(name="bare"),
        TABLE_OWNER,
        expected_workload(one_leaf({"name": "bare", "schedulingPolicy": BASIC})),
        id="nil configs default to basic",
    ),
    pytest.param(
        leaf("adjusted", gang_config(4), callbacks=[triple_min_count]),
        TABLE_OWNER,
        expected_workload(one_leaf({"name": "adjusted", "schedulingPolicy": {"gang": {"minCount": 12}}})),
        id="callback performs arbitrary adjustment",
    ),
    pytest.param(
        WorkloadItem(name="gang-job", input=empty_gang_input(), callbacks=[set_min_count_if_unset(16)]),
        TABLE_OWNER,
        expected_workload(one_leaf({"name": "gang-job", "schedulingPolicy": {"gang": {"minCount": 16}}})),
        id="resolution does not mutate caller inputs",
    ),
    pytest.param(
        WorkloadItem(
            name="cpg-root",
            default_config=gang_config(2),
            children=[leaf("workers", gang_config(4)), leaf("ps", basic_config())],
        ),
        TABLE_OWNER,
        expected_workload(
            one_composite(
                {
                    "name": "cpg-root",
                    "schedulingPolicy": {"gang": {"minGroupCount": 2}},
                    "podGroupTemplates": [
                        {"name": "workers", "schedulingPolicy": {"gang": {"minCount": 4}}},
                        {"name": "ps", "schedulingPolicy": BASIC},
                    ],
                }
            )
        ),
        id="composite root compiles into a composite template with leaf children",
    ),
    pytest.param(
        WorkloadItem(
            name="cpg-root",
            input=WorkloadInput(policy=PolicyInput(composite_pod_group_data=composite_gang_data(3))),
            children=[leaf("workers", basic_config())],
        ),
        TABLE_OWNER,
        expected_workload(
            one_composite(
                {
                    "name": "cpg-root",
                    "schedulingPolicy": {"gang": {"minGroupCount": 3}},
                    "podGroupTemplates": [{"name": "workers", "schedulingPolicy": BASIC}],
                }
            )
        ),
        id="composite gang minGroupCount from user input",
    ),
    pytest.param(
        WorkloadItem(
            name="cpg-root",
            default_config=basic_config(),
            input=WorkloadInput(
                constraints=ConstraintsInput(
                    composite_pod_group_data=WorkloadCompositePodGroupSchedulingConstraints(
                        topology=[V1alpha3TopologyConstraint(key=ZONE)]
                    )
                ),
                disruption_mode=DisruptionModeInput(
                    composite_pod_group_data=WorkloadCompositePodGroupDisruptionMode(all={})
                ),
            ),
            children=[leaf("workers", basic_config())],
        ),
        TABLE_OWNER,
        expected_workload(
            one_composite(
                {
                    "name": "cpg-root",
                    "schedulingPolicy": BASIC,
                    "schedulingConstraints": {"topology": [{"key": ZONE}]},
                    "disruptionMode": {"all": {}},
                    "podGroupTemplates": [{"name": "workers", "schedulingPolicy": BASIC}],
                }
            )
        ),
        id="composite constraints and disruption mode compile onto the composite template",
    ),
    pytest.param(
        WorkloadItem(name="cpg-root", children=[leaf("workers", basic_config())]),
        TABLE_OWNER,
        expected_workload(
            one_composite(
                {
                    "name": "cpg-root",
                    "schedulingPolicy": BASIC,
                    "podGroupTemplates": [{"name": "workers", "schedulingPolicy": BASIC}],
                }
            )
        ),
        id="composite defaults to basic policy",
    ),
    pytest.param(
        WorkloadItem(
            name="cpg-root",
            default_config=basic_config(),
            children=[
                WorkloadItem(name="inner", default_config=gang_config(2), children=[leaf("workers", basic_config())])
            ],
        ),
        TABLE_OWNER,
        expected_workload(
            one_composite(
                {
                    "name": "cpg-root",
                    "schedulingPolicy": BASIC,
                    "compositePodGroupTemplates": [
                        {
                            "name": "inner",
                            "schedulingPolicy": {"gang": {"minGroupCount": 2}},
                            "podGroupTemplates": [{"name": "workers", "schedulingPolicy": BASIC}],
                        }
                    ],
                }
            )
        ),
        id="nested composite compiles recursively",
    ),
]


@pytest.mark.parametrize(("root", "owner", "expected"), BUILD_CASES)
def test_build_workload(root: WorkloadItem, owner: dict[str, Any], expected: dict[str, Any]) -> None:
    before = root.model_copy(deep=True)

    workload = Builder(root, BuildOptions(name="wl", namespace="ns", owner=owner)).build_workload()

    assert to_dict(workload) == expected
    assert root == before, "resolution must not mutate the caller's defaults or input"


def test_build_workload_leaves_typed_input_min_count_unset() -> None:
    """TestBuildWorkload/resolution does not mutate caller inputs: the typed block keeps minCount unset."""
    root = WorkloadItem(name="gang-job", input=empty_gang_input(), callbacks=[set_min_count_if_unset(16)])

    Builder(root, BuildOptions(name="wl", namespace="ns", owner=TABLE_OWNER)).build_workload()

    assert root.input.policy.pod_group_data.gang.min_count is None


EMPTY_NAME_CALLBACK_RUNS: list[str] = []

BUILD_ERROR_CASES = [
    pytest.param(
        WorkloadItem(
            name="",
            input=WorkloadInput(policy=PolicyInput(pod_group_data={"basic": {}})),
            callbacks=[lambda cfg: EMPTY_NAME_CALLBACK_RUNS.append("ran")],
        ),
        TABLE_OWNER,
        "workload item name cannot be empty",
        id="empty leaf name fails before resolution and callbacks",
    ),
    pytest.param(
        WorkloadItem(name="gang-job", input=empty_gang_input()),
        TABLE_OWNER,
        "gang scheduling requires minCount to be set after resolution",
        id="gang missing minCount fails",
    ),
    pytest.param(
        WorkloadItem(
            name="cpg-root",
            input=WorkloadInput(policy=PolicyInput(composite_pod_group_data=composite_gang_data(None))),
            children=[leaf("workers", basic_config())],
        ),
        TABLE_OWNER,
        "composite gang scheduling requires minGroupCount to be set after resolution",
        id="composite gang missing minGroupCount fails",
    ),
    pytest.param(
        WorkloadItem(
            name="cpg-root",
            input=WorkloadInput(
                policy=PolicyInput(
                    composite_pod_group_data=WorkloadCompositePodGroupSchedulingPolicy.model_validate(
                        composite_gang_data(2)
                    )
                ),
                disruption_mode=DisruptionModeInput(pod_group_data={"single": {}}),
            ),
            children=[leaf("workers", basic_config())],
        ),
        TABLE_OWNER,
        'composite workload item "cpg-root" sets leaf building block: disruptionMode',
        id="composite policy set together with a leaf building block fails the input union",
    ),
    pytest.param(
        WorkloadItem(name="cpg-root", default_config=basic_config(), children=[None]),
        TABLE_OWNER,
        "workload item cannot be nil",
        id="composite with a nil child fails",
    ),
    pytest.param(
        WorkloadItem(name="cpg-root", default_config=basic_config(), children=[leaf("", basic_config())]),
        TABLE_OWNER,
        "workload item name cannot be empty",
        id="composite child with empty name fails",
    ),
    pytest.param(
        WorkloadItem(
            name="cpg-root",
            default_config=basic_config(),
            children=[leaf("workers", basic_config()), leaf("workers", basic_config())],
        ),
        TABLE_OWNER,
        'duplicate workload item name "workers": template names must be unique across the Workload',
        id="duplicate template names across the tree fail",
    ),
    pytest.param(None, TABLE_OWNER, "workload item cannot be nil", id="nil root fails"),
    pytest.param(
        leaf("job", basic_config()),
        None,
        "a Workload must be owned by its controller for garbage collection",
        id="missing owner returns error",
    ),
    pytest.param(
        leaf("job", basic_config()),
        {"apiVersion": "batch/v1/extra", "kind": "Job", "name": "my-job", "uid": "abc-123"},
        'invalid owner apiVersion "batch/v1/extra": unexpected GroupVersion string: batch/v1/extra',
        id="owner apiVersion that fails to parse returns error",
    ),
]


@pytest.mark.parametrize(("root", "owner", "message"), BUILD_ERROR_CASES)
def test_build_workload_error(root: WorkloadItem | None, owner: dict[str, Any] | None, message: str) -> None:
    builder = Builder(root, BuildOptions(name="wl", namespace="ns", owner=owner))

    with pytest.raises(BuildError) as caught:
        builder.build_workload()

    assert str(caught.value) == message
    assert EMPTY_NAME_CALLBACK_RUNS == [], "the tree check must refuse the item before any callback runs"


# --- TestNewBuilder ---


def test_new_builder() -> None:
    """TestNewBuilder: the root and options are kept, and nothing is compiled yet."""
    item = gang_workload_item()

    builder = Builder(item, BuildOptions(name="wl", namespace="ns", owner=job_owner()))

    assert builder.root is item
    assert (builder.options.name, builder.options.namespace) == ("wl", "ns")
    assert to_dict(builder.options.owner) == JOB_OWNER
    with pytest.raises(BuildError) as caught:
        builder.new_pod_group("pg", "pgt-0")
    assert str(caught.value) == NO_WORKLOAD


# --- TestBuilderBuildWorkload ---


def test_builder_build_workload_compiles_identity_and_controller_ref() -> None:
    """TestBuilderBuildWorkload/compiles identity and controllerRef."""
    workload = Builder(gang_workload_item(), wl_options()).build_workload()

    assert to_dict(workload) == expected_workload(
        one_leaf({"name": "pgt-0", "schedulingPolicy": {"gang": {"minCount": 3}}}), owner=JOB_OWNER
    )


def test_builder_build_workload_caches_the_compiled_workload() -> None:
    """TestBuilderBuildWorkload/caches the compiled workload."""
    builder = Builder(gang_workload_item(), wl_options())

    first = builder.build_workload()
    second = builder.build_workload()

    assert first is second


def _checks_counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record each structural and decoding check compilation makes (they still run)."""
    import workloadbuilder.compile as compile_module

    calls: list[str] = []
    for name in ("tree_error", "undecodable_tree_errors"):
        real = getattr(compile_module, name)
        monkeypatch.setattr(
            compile_module, name, lambda root, _real=real, _name=name: calls.append(_name) or _real(root)
        )
    return calls


@pytest.mark.parametrize(
    ("validate_first", "allowed", "expected_checks"),
    [
        (True, [SchedulingPolicyOption.GANG], []),
        (False, [SchedulingPolicyOption.GANG], ["tree_error", "undecodable_tree_errors"]),
        (True, [SchedulingPolicyOption.BASIC], ["tree_error", "undecodable_tree_errors"]),
    ],
    ids=["validated-tree-is-not-checked-again", "build-alone-checks-all", "invalid-tree-is-checked-again"],
)
def test_build_workload_reuses_what_validate_found(
    monkeypatch: pytest.MonkeyPatch,
    validate_first: bool,
    allowed: list[SchedulingPolicyOption],
    expected_checks: list[str],
) -> None:
    builder = Builder(gang_workload_item(), wl_options(allowed_policies=allowed))
    if validate_first:
        builder.validate()
    calls = _checks_counted(monkeypatch)
    assert to_dict(builder.build_workload())["spec"]["podGroupTemplates"] == [
        {"name": "pgt-0", "schedulingPolicy": {"gang": {"minCount": 3}}}
    ]
    assert calls == expected_checks


def test_a_tree_validated_on_one_builder_is_checked_on_another() -> None:
    item = gang_workload_item()
    validated = Builder(item, wl_options(allowed_policies=[SchedulingPolicyOption.GANG]))
    assert validated.validate() == []
    other = Builder(gang_workload_item(), wl_options())
    other._checked = validated._checked  # a CheckedTree applies only to its own root object
    assert to_dict(other.build_workload()) == to_dict(validated.build_workload())


@pytest.mark.parametrize(
    ("builder", "message", "repair"),
    [
        pytest.param(
            Builder(None, wl_options()),
            "workload item cannot be nil",
            lambda b: setattr(b, "root", gang_workload_item()),
            id="nil root",
        ),
        pytest.param(
            Builder(gang_workload_item(), BuildOptions(name="wl", namespace="ns")),
            "a Workload must be owned by its controller for garbage collection",
            lambda b: setattr(b.options, "owner", job_owner()),
            id="missing owner",
        ),
    ],
)
def test_builder_build_workload_errors_cache_nothing(builder: Builder, message: str, repair: Any) -> None:
    """TestBuilderBuildWorkload/errors are returned and nothing is cached.

    Go reads the private cache; here nothing cached shows as "no Workload" on
    materialization and as a fresh compilation once the cause is repaired.
    """
    with pytest.raises(BuildError) as caught:
        builder.build_workload()
    assert str(caught.value) == message

    with pytest.raises(BuildError) as no_workload:
        builder.new_pod_group("pg", "pgt-0")
    assert str(no_workload.value) == NO_WORKLOAD

    repair(builder)
    assert to_dict(builder.build_workload()) == expected_workload(
        one_leaf({"name": "pgt-0", "schedulingPolicy": {"gang": {"minCount": 3}}}), owner=JOB_OWNER
    )


# --- TestBuilderNewPodGroup ---


def expected_pod_group(
    name: str,
    template: str,
    spec: dict[str, Any],
    owners: list[dict[str, Any]] | None = None,
    workload: str = "wl",
    namespace: str = "ns",
) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name, "namespace": namespace}
    if owners:
        metadata["ownerReferences"] = owners
    return {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "metadata": metadata,
        "spec": {"workloadRef": {"workloadName": workload, "templateName": template}, **spec},
    }


def expected_composite_pod_group(
    name: str, template: str, spec: dict[str, Any], owners: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name, "namespace": "ns"}
    if owners:
        metadata["ownerReferences"] = owners
    return {
        "apiVersion": "scheduling.k8s.io/v1alpha3",
        "kind": "CompositePodGroup",
        "metadata": metadata,
        "spec": {"workloadRef": {"workloadName": "wl", "templateName": template}, **spec},
    }


GANG_3 = {"schedulingPolicy": {"gang": {"minCount": 3}}}


def built(item: WorkloadItem) -> Builder:
    builder = Builder(item, wl_options())
    builder.build_workload()
    return builder


def count_index_builds(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Record every template index the builder constructs."""
    made: list[object] = []
    real = builder_module.TemplateIndex

    def counting(workload: V1beta1Workload) -> object:
        index = real(workload)
        made.append(index)
        return index

    monkeypatch.setattr(builder_module, "TemplateIndex", counting)
    return made


def test_builder_new_pod_group_requires_a_workload_first() -> None:
    """TestBuilderNewPodGroup/requires a workload first."""
    builder = Builder(gang_workload_item(), wl_options())

    with pytest.raises(BuildError) as caught:
        builder.new_pod_group("pg", "pgt-0")

    assert str(caught.value) == NO_WORKLOAD


def test_builder_new_pod_group_materializes_owned_by_configured_owner() -> None:
    """TestBuilderNewPodGroup/materializes from the compiled template owned by the configured owner."""
    pod_group = built(gang_workload_item()).new_pod_group("pg", "pgt-0")

    assert to_dict(pod_group) == expected_pod_group("pg", "pgt-0", GANG_3, owners=[JOB_OWNER])


def test_builder_new_pod_group_omits_owner_references_without_owner() -> None:
    """TestBuilderNewPodGroup/omits ownerReferences when no owner is configured."""
    builder = built(gang_workload_item())
    builder.options.owner = None

    pod_group = builder.new_pod_group("pg", "pgt-0")

    assert to_dict(pod_group) == expected_pod_group("pg", "pgt-0", GANG_3)


def test_builder_new_pod_group_errors_on_unknown_template() -> None:
    """TestBuilderNewPodGroup/errors on unknown template."""
    builder = built(gang_workload_item())

    with pytest.raises(BuildError) as caught:
        builder.new_pod_group("pg", "missing")

    assert str(caught.value) == 'podGroupTemplate "missing" not found in workload "wl" (have [pgt-0])'


def test_builder_new_pod_group_builds_the_index_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """TestBuilderNewPodGroup/builds the template index once and reuses it across calls.

    Go compares the private index pointer; here the index constructor is counted.
    """
    made = count_index_builds(monkeypatch)
    builder = built(gang_workload_item())

    first = builder.new_pod_group("pg-1", "pgt-0")
    second = builder.new_pod_group("pg-2", "pgt-0")

    assert len(made) == 1
    assert to_dict(first) == expected_pod_group("pg-1", "pgt-0", GANG_3, owners=[JOB_OWNER])
    assert to_dict(second) == expected_pod_group("pg-2", "pgt-0", GANG_3, owners=[JOB_OWNER])


# --- TestBuilderNewCompositePodGroup ---

CPGT_GANG_2 = {"schedulingPolicy": {"gang": {"minGroupCount": 2}}}


def test_builder_new_composite_pod_group_requires_a_workload_first() -> None:
    """TestBuilderNewCompositePodGroup/requires a workload first."""
    builder = Builder(composite_workload_item(), wl_options())

    with pytest.raises(BuildError) as caught:
        builder.new_composite_pod_group("cpg", "cpgt-0")

    assert str(caught.value) == NO_WORKLOAD


def test_builder_new_composite_pod_group_materializes_owned_by_configured_owner() -> None:
    """TestBuilderNewCompositePodGroup/materializes from the compiled composite template owned by the configured
    owner."""
    group = built(composite_workload_item()).new_composite_pod_group("cpg", "cpgt-0")

    assert to_dict(group) == expected_composite_pod_group("cpg", "cpgt-0", CPGT_GANG_2, owners=[JOB_OWNER])


def test_builder_new_composite_pod_group_omits_owner_references_without_owner() -> None:
    """TestBuilderNewCompositePodGroup/omits ownerReferences when no owner is configured."""
    builder = built(composite_workload_item())
    builder.options.owner = None

    group = builder.new_composite_pod_group("cpg", "cpgt-0")

    assert to_dict(group) == expected_composite_pod_group("cpg", "cpgt-0", CPGT_GANG_2)


def test_builder_new_composite_pod_group_resolves_nested_template() -> None:
    """TestBuilderNewCompositePodGroup/resolves a nested composite template through the recursive index."""
    group = built(composite_workload_item()).new_composite_pod_group("cpg", "cpgt-1")

    assert to_dict(group) == expected_composite_pod_group("cpg", "cpgt-1", CPGT_GANG_2, owners=[JOB_OWNER])


def test_builder_new_composite_pod_group_errors_on_unknown_template() -> None:
    """TestBuilderNewCompositePodGroup/errors on unknown template."""
    builder = built(composite_workload_item())

    with pytest.raises(BuildError) as caught:
        builder.new_composite_pod_group("cpg", "missing")

    assert str(caught.value) == 'compositePodGroupTemplate "missing" not found in workload "wl" (have [cpgt-0 cpgt-1])'


def test_builder_new_composite_pod_group_builds_the_index_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """TestBuilderNewCompositePodGroup/builds the composite template index once and reuses it across calls.

    Go compares the private index pointer; here the index constructor is counted.
    """
    made = count_index_builds(monkeypatch)
    builder = built(composite_workload_item())

    first = builder.new_composite_pod_group("cpg-1", "cpgt-0")
    second = builder.new_composite_pod_group("cpg-2", "cpgt-1")

    assert len(made) == 1
    assert to_dict(first) == expected_composite_pod_group("cpg-1", "cpgt-0", CPGT_GANG_2, owners=[JOB_OWNER])
    assert to_dict(second) == expected_composite_pod_group("cpg-2", "cpgt-1", CPGT_GANG_2, owners=[JOB_OWNER])


# --- TestNewBuilderFromExistingWorkload ---


def test_existing_workload_materializes_without_build() -> None:
    """TestNewBuilderFromExistingWorkload/materializes from the supplied workload without BuildWorkload."""
    builder = Builder.from_existing_workload(existing_workload(), BuildOptions(owner=job_owner()))

    pod_group = builder.new_pod_group("pg", "pgt-0")

    assert to_dict(pod_group) == expected_pod_group(
        "pg",
        "pgt-0",
        {"schedulingPolicy": {"gang": {"minCount": 4}}, "priorityClassName": "high-priority", "priority": 1000},
        owners=[JOB_OWNER],
        workload="parent-wl",
    )


def test_existing_workload_refuses_build() -> None:
    """TestNewBuilderFromExistingWorkload/BuildWorkload is refused in existing mode."""
    builder = Builder.from_existing_workload(existing_workload(), wl_options())

    with pytest.raises(BuildError) as caught:
        builder.build_workload()

    assert str(caught.value) == (
        "BuildWorkload is not available on a Builder created from an existing Workload: "
        "it materializes from the supplied Workload"
    )


@pytest.mark.parametrize("old_root", [None, gang_workload_item()], ids=["create", "update"])
def test_existing_workload_refuses_validate(old_root: WorkloadItem | None) -> None:
    """TestNewBuilderFromExistingWorkload/Validate is refused in existing mode (one InternalError, as the Go code
    does)."""
    builder = Builder.from_existing_workload(existing_workload(), BuildOptions(owner=job_owner()))

    errors = builder.validate(old_root=old_root)

    assert [(e.type, e.field) for e in errors] == [(ErrorType.INTERNAL, "<nil>")]
    assert [str(e) for e in errors] == [
        "<nil>: Internal error: cannot validate a builder constructed from an existing workload"
    ]


def test_existing_workload_errors_on_unknown_template() -> None:
    """TestNewBuilderFromExistingWorkload/errors on unknown template."""
    builder = Builder.from_existing_workload(existing_workload(), BuildOptions(owner=job_owner()))

    with pytest.raises(BuildError) as caught:
        builder.new_pod_group("pg", "missing")

    assert str(caught.value) == 'podGroupTemplate "missing" not found in workload "parent-wl" (have [pgt-0])'


# --- beyond upstream: inputs in other flavours ---


def test_owner_given_as_dict() -> None:
    builder = Builder(gang_workload_item(), BuildOptions(name="wl", namespace="ns", owner=dict(JOB_OWNER)))

    assert to_dict(builder.build_workload()) == expected_workload(
        one_leaf({"name": "pgt-0", **GANG_3}), owner=JOB_OWNER
    )
    assert to_dict(builder.new_pod_group("pg", "pgt-0")) == expected_pod_group(
        "pg", "pgt-0", GANG_3, owners=[JOB_OWNER]
    )


def test_options_given_as_dict() -> None:
    builder = Builder(gang_workload_item(), {"name": "wl", "namespace": "ns", "owner": dict(JOB_OWNER)})

    assert to_dict(builder.build_workload()) == expected_workload(
        one_leaf({"name": "pgt-0", **GANG_3}), owner=JOB_OWNER
    )


def test_existing_workload_given_as_dict() -> None:
    workload = to_dict(existing_workload())
    builder = Builder.from_existing_workload(workload, BuildOptions(owner=job_owner()))

    assert to_dict(builder.new_pod_group("pg", "pgt-0")) == to_dict(
        Builder.from_existing_workload(existing_workload(), BuildOptions(owner=job_owner())).new_pod_group(
            "pg", "pgt-0"
        )
    )


def test_build_refuses_undecodable_input() -> None:
    root = make_item(
        "job",
        path=SCHEDULING_PATH,
        input=WorkloadInput(
            policy=PolicyInput(
                pod_group_data={"gang": {"minCount": "4"}, "extra": 1}, path_elements=["schedulingPolicy"]
            )
        ),
    )

    with pytest.raises(BuildError) as caught:
        Builder(root, wl_options()).build_workload()

    message = str(caught.value)
    assert message.startswith("invalid input: ")
    assert message == (
        'invalid input: [spec.scheduling.schedulingPolicy.gang.minCount: Invalid value: "4": must be of type integer, '
        "spec.scheduling.schedulingPolicy.extra: unknown field]"
    )


def test_owner_api_version_with_two_slashes_fails() -> None:
    options = BuildOptions(
        name="wl", namespace="ns", owner={"apiVersion": "a/b/c", "kind": "K", "name": "n", "uid": "u"}
    )

    with pytest.raises(BuildError) as caught:
        Builder(gang_workload_item(), options).build_workload()

    assert str(caught.value) == 'invalid owner apiVersion "a/b/c": unexpected GroupVersion string: a/b/c'


@pytest.mark.parametrize("api_version", ["", "/", "v1"], ids=["empty", "slash", "core v1"])
def test_owner_api_version_without_group_gives_empty_api_group(api_version: str) -> None:
    owner = {"apiVersion": api_version, "kind": "K", "name": "n", "uid": "u"}

    workload = Builder(gang_workload_item(), BuildOptions(name="wl", namespace="ns", owner=owner)).build_workload()

    ref = workload.spec.controller_ref
    assert (ref.api_group or "", ref.kind, ref.name) == ("", "K", "n")
    assert to_dict(workload)["metadata"]["ownerReferences"] == [owner]


@pytest.mark.parametrize("api_version", ["", "/", "v1"], ids=["empty", "slash", "core v1"])
def test_empty_api_group_is_omitted_from_controller_ref(api_version: str) -> None:
    """Go's ``TypedLocalObjectReference.APIGroup`` is ``omitempty``: an empty group is not serialized."""
    owner = {"apiVersion": api_version, "kind": "K", "name": "n", "uid": "u"}

    workload = Builder(gang_workload_item(), BuildOptions(name="wl", namespace="ns", owner=owner)).build_workload()

    assert to_dict(workload)["spec"]["controllerRef"] == {"kind": "K", "name": "n"}


# --- deliberate differences from Go (docs/differences.md) ---


def test_new_pod_group_finds_leaf_nested_in_composite() -> None:
    """Difference 1: leaf templates inside composite templates are materializable (Go indexes the top level only)."""
    builder = built(composite_workload_item())

    inner = builder.new_pod_group("pg-a", "pgt-0")
    nested = builder.new_pod_group("pg-b", "pgt-1")

    assert to_dict(inner) == expected_pod_group("pg-a", "pgt-0", {"schedulingPolicy": BASIC}, owners=[JOB_OWNER])
    assert to_dict(nested) == expected_pod_group("pg-b", "pgt-1", {"schedulingPolicy": BASIC}, owners=[JOB_OWNER])


def test_new_pod_group_not_found_lists_the_top_level_leaves() -> None:
    """Difference 1 finds nested leaves, but the "have" list is Go's: the top-level leaves (none here)."""
    builder = built(composite_workload_item())

    with pytest.raises(BuildError) as caught:
        builder.new_pod_group("pg", "missing")

    assert str(caught.value) == 'podGroupTemplate "missing" not found in workload "wl" (have [])'


def test_new_pod_group_not_found_lists_only_top_level_leaves() -> None:
    """Difference 1, on a hand-written Workload with leaves both at the top and inside composites."""
    workload = V1beta1Workload.model_validate(
        {
            "metadata": {"name": "mixed", "namespace": "ns"},
            "spec": {
                "podGroupTemplates": [{"name": "top", "schedulingPolicy": BASIC}],
                "compositePodGroupTemplates": [
                    {
                        "name": "c1",
                        "schedulingPolicy": BASIC,
                        "podGroupTemplates": [{"name": "a", "schedulingPolicy": BASIC}],
                        "compositePodGroupTemplates": [
                            {
                                "name": "c2",
                                "schedulingPolicy": BASIC,
                                "podGroupTemplates": [{"name": "b", "schedulingPolicy": BASIC}],
                            }
                        ],
                    },
                    {
                        "name": "c3",
                        "schedulingPolicy": BASIC,
                        "podGroupTemplates": [{"name": "d", "schedulingPolicy": BASIC}],
                    },
                ],
            },
        }
    )
    builder = Builder.from_existing_workload(workload, BuildOptions(owner=job_owner()))

    with pytest.raises(BuildError) as leaf_missing:
        builder.new_pod_group("pg", "missing")
    with pytest.raises(BuildError) as composite_missing:
        builder.new_composite_pod_group("cpg", "missing")

    assert str(leaf_missing.value) == 'podGroupTemplate "missing" not found in workload "mixed" (have [top])'
    assert str(composite_missing.value) == (
        'compositePodGroupTemplate "missing" not found in workload "mixed" (have [c1 c2 c3])'
    )
    assert builder.new_pod_group("pg", "b").spec.workload_ref.template_name == "b"


def test_priority_and_preemption_policy_flow_into_templates_and_groups() -> None:
    """Difference 3: priority and preemptionPolicy from the resolved config reach templates and runtime groups."""

    def raise_priority(cfg: SchedulingConfig) -> None:
        cfg.priority = 2000
        cfg.preemption_policy = "PreemptLowerPriority"

    root = WorkloadItem(
        name="cpg",
        default_config=gang_config(1, priority_class_name="high", priority=1000, preemption_policy="Never"),
        children=[leaf("workers", gang_config(4), callbacks=[raise_priority])],
    )
    builder = Builder(root, wl_options())

    workload = builder.build_workload()

    assert to_dict(workload) == expected_workload(
        one_composite(
            {
                "name": "cpg",
                "schedulingPolicy": {"gang": {"minGroupCount": 1}},
                "priorityClassName": "high",
                "priority": 1000,
                "preemptionPolicy": "Never",
                "podGroupTemplates": [
                    {
                        "name": "workers",
                        "schedulingPolicy": {"gang": {"minCount": 4}},
                        "priority": 2000,
                        "preemptionPolicy": "PreemptLowerPriority",
                    }
                ],
            }
        ),
        owner=JOB_OWNER,
    )
    assert to_dict(builder.new_composite_pod_group("cpg-x", "cpg")) == expected_composite_pod_group(
        "cpg-x",
        "cpg",
        {
            "schedulingPolicy": {"gang": {"minGroupCount": 1}},
            "priorityClassName": "high",
            "priority": 1000,
            "preemptionPolicy": "Never",
        },
        owners=[JOB_OWNER],
    )
    assert to_dict(builder.new_pod_group("pg-x", "workers")) == expected_pod_group(
        "pg-x",
        "workers",
        {"schedulingPolicy": {"gang": {"minCount": 4}}, "priority": 2000, "preemptionPolicy": "PreemptLowerPriority"},
        owners=[JOB_OWNER],
    )


@pytest.mark.parametrize(
    ("root", "message"),
    [
        pytest.param(None, "workload item cannot be nil", id="tree error"),
        pytest.param(
            WorkloadItem(name="gang-job", input=empty_gang_input()),
            "gang scheduling requires minCount to be set after resolution",
            id="compile error",
        ),
    ],
)
def test_tree_and_compile_errors_win_over_missing_owner(root: WorkloadItem | None, message: str) -> None:
    with pytest.raises(BuildError) as caught:
        Builder(root, BuildOptions(name="wl", namespace="ns")).build_workload()

    assert str(caught.value) == message
