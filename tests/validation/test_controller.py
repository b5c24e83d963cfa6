"""Builder.validate: a port of validate_test.go's TestBuilderValidate, then the rest of dv-rules.md sections 1-4.

Where the Go table asserts only the count, type and field of the first error,
these tests assert the exact list of error strings, derived from dv-rules.md
and the Go sources (validate.go, zz_generated.validations.go, apimachinery).
"""

from __future__ import annotations

from typing import Any

import pytest
from factories import (
    ALL_MODES,
    ALL_POLICIES,
    SCHEDULING_PATH,
    assert_field_errors,
    composite_gang_data,
    gang_data,
    job_owner,
    make_item,
)
from kubernetes.client import (
    V1alpha3TopologyConstraint,
    V1alpha3WorkloadPodGroupDisruptionMode,
    V1alpha3WorkloadPodGroupResourceClaim,
    V1alpha3WorkloadPodGroupSchedulingConstraints,
    V1alpha3WorkloadPodGroupSchedulingPolicy,
)

from workloadbuilder import (
    Builder,
    BuildOptions,
    ConstraintsInput,
    DisruptionModeInput,
    ErrorType,
    FieldPath,
    PolicyInput,
    ResourceClaimsInput,
    SchedulingConfig,
    WorkloadInput,
    WorkloadItem,
)
from workloadbuilder.types import (
    AllDisruptionMode,
    BasicSchedulingPolicy,
    DisruptionMode,
    DisruptionModeOption,
    GangSchedulingPolicy,
    SchedulingPolicy,
    SchedulingPolicyOption,
    SingleDisruptionMode,
    WorkloadCompositePodGroupSchedulingPolicy,
)

BASIC, GANG = SchedulingPolicyOption.BASIC, SchedulingPolicyOption.GANG
SINGLE, ALL = DisruptionModeOption.SINGLE, DisruptionModeOption.ALL

LABEL_REGEX_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character "
    "(e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
SUBDOMAIN_REGEX_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character "
    "(e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
MIN_1 = "must be greater than or equal to 1"
BASIC_FORBIDDEN = "Forbidden: basic scheduling policy is not supported by this controller"
GANG_FORBIDDEN = "Forbidden: gang scheduling policy is not supported by this controller"
SINGLE_FORBIDDEN = "Forbidden: the disruptionMode `single` is not supported by this controller"
ALL_FORBIDDEN = "Forbidden: the disruptionMode `all` is not supported by this controller"
BASIC_WITH_ALL = 'Invalid value: "": the disruptionMode `all` is not supported with the Basic scheduling policy'
MODE_BOTH_SET = (
    'spec.scheduling.disruptionMode: Invalid value: "{single, all}": must specify exactly one of: `single`, `all`'
)


def validate(
    root: WorkloadItem | None,
    old_root: WorkloadItem | None = None,
    *,
    policies: list[SchedulingPolicyOption] = ALL_POLICIES,
    modes: list[DisruptionModeOption] = ALL_MODES,
    disable_dv: bool = False,
) -> list[str]:
    """Run Builder.validate as the Go table does and return the error strings."""
    builder = Builder(
        root,
        BuildOptions(
            owner=job_owner(),
            allowed_policies=policies,
            allowed_disruption_modes=modes,
            disable_declarative_validation=disable_dv,
        ),
    )
    return [str(e) for e in builder.validate(old_root=old_root)]


# --- the fixtures of validate_test.go ---


def gang() -> PolicyInput:
    return PolicyInput(pod_group_data=gang_data(2))


def basic() -> PolicyInput:
    return PolicyInput(pod_group_data=V1alpha3WorkloadPodGroupSchedulingPolicy(basic={}))


def composite_gang() -> PolicyInput:
    return PolicyInput(composite_pod_group_data=composite_gang_data(2))


def composite_basic() -> PolicyInput:
    return PolicyInput(composite_pod_group_data=WorkloadCompositePodGroupSchedulingPolicy(basic={}))


def single_disruption() -> DisruptionModeInput:
    return DisruptionModeInput(pod_group_data=V1alpha3WorkloadPodGroupDisruptionMode(single={}))


def all_disruption() -> DisruptionModeInput:
    return DisruptionModeInput(pod_group_data=V1alpha3WorkloadPodGroupDisruptionMode(all={}))


def composite_root(given: WorkloadInput) -> WorkloadItem:
    """Go's ``compositeRoot``: a composite ``root`` over one valid gang leaf ``child``, both at spec.scheduling."""
    return make_item(
        "root", path=SCHEDULING_PATH, input=given, children=[make_item("child", path=SCHEDULING_PATH, gang=2)]
    )


# --- TestBuilderValidate ---

BUILDER_VALIDATE: list[tuple[str, dict[str, Any], list[str]]] = [
    (
        "nil tree fails to compile",
        {"root": None},
        ["<nil>: Invalid value: null: invalid builder: missing root WorkloadItem"],
    ),
    ("basic allowed", {"root": WorkloadItem(name="job", input=WorkloadInput(policy=basic()))}, []),
    (
        "empty item name is rejected",
        {"root": WorkloadItem(name="", path=SCHEDULING_PATH, input=WorkloadInput(policy=basic()))},
        ["spec.scheduling: Internal error: workload item name cannot be empty"],
    ),
    (
        "basic forbidden when not allow-listed",
        {"root": WorkloadItem(name="job", input=WorkloadInput(policy=basic())), "policies": [GANG]},
        [f"<nil>: {BASIC_FORBIDDEN}"],
    ),
    ("gang allowed", {"root": WorkloadItem(name="job", input=WorkloadInput(policy=gang())), "policies": [GANG]}, []),
    (
        "gang forbidden when not allow-listed",
        {"root": WorkloadItem(name="job", input=WorkloadInput(policy=gang())), "policies": [BASIC]},
        [f"<nil>: {GANG_FORBIDDEN}"],
    ),
    (
        "single disruption allowed",
        {
            "root": WorkloadItem(name="job", input=WorkloadInput(policy=gang(), disruption_mode=single_disruption())),
            "modes": [SINGLE],
        },
        [],
    ),
    (
        "all disruption forbidden when not allow-listed",
        {
            "root": WorkloadItem(name="job", input=WorkloadInput(policy=gang(), disruption_mode=all_disruption())),
            "modes": [SINGLE],
        },
        [f"<nil>: {ALL_FORBIDDEN}"],
    ),
    (
        "basic with all disruption is rejected by cross-field rule",
        {"root": WorkloadItem(name="job", input=WorkloadInput(policy=basic(), disruption_mode=all_disruption()))},
        [f"<nil>: {BASIC_WITH_ALL}"],
    ),
    (
        "gang with all disruption is valid",
        {"root": WorkloadItem(name="job", input=WorkloadInput(policy=gang(), disruption_mode=all_disruption()))},
        [],
    ),
    (
        "gang minCount below minimum fails declarative validation at injected path",
        {"root": make_item("job", path=SCHEDULING_PATH, gang=0)},
        [f"spec.scheduling.schedulingPolicy.gang.minCount: Invalid value: 0: {MIN_1}"],
    ),
    (
        "nil item Path reports building-block errors without a root prefix",
        {"root": make_item("job", gang=0)},
        [f"schedulingPolicy.gang.minCount: Invalid value: 0: {MIN_1}"],
    ),
    (
        "declarative validation is skipped when disabled",
        {"root": make_item("job", path=SCHEDULING_PATH, gang=0), "disable_dv": True},
        [],
    ),
    (
        "disruptionMode with single and all fails union declarative validation",
        {
            "root": WorkloadItem(
                name="job",
                path=SCHEDULING_PATH,
                input=WorkloadInput(
                    policy=gang(),
                    disruption_mode=DisruptionModeInput(
                        path_elements=["disruptionMode"],
                        pod_group_data=V1alpha3WorkloadPodGroupDisruptionMode(single={}, all={}),
                    ),
                ),
            )
        },
        [MODE_BOTH_SET],
    ),
    (
        "too many topology constraints fails declarative validation",
        {
            "root": WorkloadItem(
                name="job",
                path=SCHEDULING_PATH,
                input=WorkloadInput(
                    policy=gang(),
                    constraints=ConstraintsInput(
                        path_elements=["schedulingConstraints"],
                        pod_group_data=V1alpha3WorkloadPodGroupSchedulingConstraints(
                            topology=[V1alpha3TopologyConstraint(key="zone"), V1alpha3TopologyConstraint(key="rack")]
                        ),
                    ),
                ),
            )
        },
        ["spec.scheduling.schedulingConstraints.topology: Too many: 2: must have at most 1 item"],
    ),
    (
        "resourceClaim with no source fails union declarative validation at indexed path",
        {
            "root": WorkloadItem(
                name="job",
                path=SCHEDULING_PATH,
                input=WorkloadInput(
                    policy=gang(),
                    resource_claims=ResourceClaimsInput(
                        path_elements=["resourceClaims"],
                        pod_group_data=[V1alpha3WorkloadPodGroupResourceClaim(name="claim0")],
                    ),
                ),
            )
        },
        [
            (
                'spec.scheduling.resourceClaims[0]: Invalid value: "": '
                "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`"
            )
        ],
    ),
    (
        "composite gang allowed",
        {"root": composite_root(WorkloadInput(policy=composite_gang())), "policies": [GANG]},
        [],
    ),
    (
        "composite basic forbidden when not allow-listed",
        {"root": composite_root(WorkloadInput(policy=composite_basic())), "policies": [GANG]},
        [f"spec.scheduling: {BASIC_FORBIDDEN}"],
    ),
    (
        "composite gang minGroupCount below minimum fails declarative validation at injected path",
        {
            "root": composite_root(
                WorkloadInput(
                    policy=PolicyInput(
                        path_elements=["schedulingPolicy"], composite_pod_group_data=composite_gang_data(0)
                    )
                )
            )
        },
        [f"spec.scheduling.schedulingPolicy.gang.minGroupCount: Invalid value: 0: {MIN_1}"],
    ),
    (
        "composite policy with basic and gang fails union declarative validation",
        {
            "root": composite_root(
                WorkloadInput(
                    policy=PolicyInput(
                        path_elements=["schedulingPolicy"],
                        composite_pod_group_data=WorkloadCompositePodGroupSchedulingPolicy(
                            basic={}, gang={"minGroupCount": 2}
                        ),
                    )
                )
            )
        },
        [
            (
                'spec.scheduling.schedulingPolicy: Invalid value: "{basic, gang}": '
                "must specify exactly one of: `basic`, `gang`"
            )
        ],
    ),
    (
        "composite policy set with a leaf policy fails the input union",
        {
            "root": composite_root(
                WorkloadInput(
                    policy=PolicyInput(
                        path_elements=["schedulingPolicy"],
                        composite_pod_group_data=composite_gang_data(2),
                        pod_group_data=gang_data(2),
                    )
                )
            )
        },
        ['spec.scheduling: Internal error: composite workload item "root" sets leaf building block: policy'],
    ),
    (
        "composite policy set with a leaf disruptionMode fails the input union",
        {
            "root": composite_root(
                WorkloadInput(
                    policy=PolicyInput(
                        path_elements=["schedulingPolicy"], composite_pod_group_data=composite_gang_data(2)
                    ),
                    disruption_mode=single_disruption(),
                )
            )
        },
        ['spec.scheduling: Internal error: composite workload item "root" sets leaf building block: disruptionMode'],
    ),
    (
        "input union is enforced even when declarative validation is disabled",
        {
            "root": composite_root(
                WorkloadInput(
                    policy=PolicyInput(
                        path_elements=["schedulingPolicy"],
                        composite_pod_group_data=composite_gang_data(2),
                        pod_group_data=gang_data(2),
                    )
                )
            ),
            "disable_dv": True,
        },
        ['spec.scheduling: Internal error: composite workload item "root" sets leaf building block: policy'],
    ),
    (
        "invalid leaf child in a composite tree is validated recursively",
        {
            "root": make_item(
                "root",
                path=SCHEDULING_PATH,
                input=WorkloadInput(policy=composite_basic()),
                children=[make_item("child", path=SCHEDULING_PATH, gang=0)],
            )
        },
        [f"spec.scheduling.schedulingPolicy.gang.minCount: Invalid value: 0: {MIN_1}"],
    ),
    (
        "update with matching root name is accepted",
        {
            "root": WorkloadItem(name="job", input=WorkloadInput(policy=gang())),
            "old_root": WorkloadItem(name="job", input=WorkloadInput(policy=gang())),
        },
        [],
    ),
    (
        "update with mismatched root name is an internal error",
        {
            "root": WorkloadItem(name="job", path=SCHEDULING_PATH, input=WorkloadInput(policy=gang())),
            "old_root": WorkloadItem(name="stale-job", input=WorkloadInput(policy=gang())),
        },
        ['spec.scheduling: Internal error: old root name "stale-job" does not match new root name "job"'],
    ),
    (
        "update clearing policy skips declarative validation for the new nil policy",
        {
            "root": WorkloadItem(name="job", input=WorkloadInput()),
            "old_root": WorkloadItem(name="job", input=WorkloadInput(policy=gang())),
        },
        [],
    ),
    (
        "update clearing constraints skips declarative validation for the new nil constraints",
        {
            "root": WorkloadItem(name="job", input=WorkloadInput(policy=gang())),
            "old_root": WorkloadItem(
                name="job",
                input=WorkloadInput(
                    policy=gang(),
                    constraints=ConstraintsInput(
                        pod_group_data=V1alpha3WorkloadPodGroupSchedulingConstraints(
                            topology=[V1alpha3TopologyConstraint(key="zone")]
                        )
                    ),
                ),
            ),
        },
        [],
    ),
    (
        "update clearing disruptionMode skips declarative validation for the new nil disruptionMode",
        {
            "root": WorkloadItem(name="job", input=WorkloadInput(policy=gang())),
            "old_root": WorkloadItem(
                name="job", input=WorkloadInput(policy=gang(), disruption_mode=single_disruption())
            ),
        },
        [],
    ),
    (
        "update of an unchanged child at the same position is ratcheted",
        {
            "root": make_item("root", children=[make_item("leaf", gang=0)]),
            "old_root": make_item("root", children=[make_item("leaf", gang=0)]),
        },
        [],
    ),
    (
        "update of a child that changed position is validated as an addition",
        {
            "root": make_item("root", path=SCHEDULING_PATH, children=[make_item("leaf", path=SCHEDULING_PATH, gang=0)]),
            "old_root": make_item("root", children=[make_item("mid", children=[make_item("leaf", gang=0)])]),
        },
        [f"spec.scheduling.schedulingPolicy.gang.minCount: Invalid value: 0: {MIN_1}"],
    ),
]


@pytest.mark.parametrize(("case", "expected"), [c[1:] for c in BUILDER_VALIDATE], ids=[c[0] for c in BUILDER_VALIDATE])
def test_builder_validate(case: dict[str, Any], expected: list[str]) -> None:
    case = dict(case)
    root = case.pop("root")
    assert validate(root, **case) == expected


def test_builder_validate_error_types_match_go() -> None:
    """The Go table's type and field assertions, kept for the cases where it made them."""
    builder = Builder(make_item("job", path=SCHEDULING_PATH, gang=0), BuildOptions(owner=job_owner()))
    assert_field_errors(
        builder.validate(),
        [
            (ErrorType.INVALID, "spec.scheduling.schedulingPolicy.gang.minCount"),
            (ErrorType.FORBIDDEN, "spec.scheduling.schedulingPolicy"),
        ],
    )


# --- beyond upstream: the worked ordering example (dv-rules.md 4.6) ---


def _ordering_leaf() -> WorkloadItem:
    return WorkloadItem(
        name="job",
        path=SCHEDULING_PATH,
        input=WorkloadInput(
            policy=PolicyInput(
                path_elements=["schedulingPolicy"], pod_group_data={"basic": {}, "gang": {"minCount": 0}}
            ),
            constraints=ConstraintsInput(
                path_elements=["schedulingConstraints"], pod_group_data={"topology": [{"key": "zone"}, {"key": "rack"}]}
            ),
            disruption_mode=DisruptionModeInput(path_elements=["disruptionMode"], pod_group_data={}),
            resource_claims=ResourceClaimsInput(
                path_elements=["resourceClaims"],
                pod_group_data=[{"name": "X", "resourceClaimName": "x", "resourceClaimTemplateName": "y"}],
            ),
        ),
    )


ORDERING_EXPECTED = [
    'spec.scheduling.schedulingPolicy: Invalid value: "{basic, gang}": must specify exactly one of: `basic`, `gang`',
    f"spec.scheduling.schedulingPolicy.gang.minCount: Invalid value: 0: {MIN_1}",
    "spec.scheduling.schedulingConstraints.topology: Too many: 2: must have at most 1 item",
    'spec.scheduling.disruptionMode: Invalid value: "": must specify one of: `single`, `all`',
    (
        'spec.scheduling.resourceClaims[0]: Invalid value: "{resourceClaimName, resourceClaimTemplateName}": '
        "must specify exactly one of: `resourceClaimName`, `resourceClaimTemplateName`"
    ),
    f'spec.scheduling.resourceClaims[0].name: Invalid value: "X": {LABEL_REGEX_MSG}',
    f"spec.scheduling.schedulingPolicy: {BASIC_FORBIDDEN}",
]


def test_error_order_within_one_leaf() -> None:
    assert validate(_ordering_leaf(), policies=[], modes=[]) == ORDERING_EXPECTED


def test_error_order_aggregates_as_go_does() -> None:
    errs = Builder(_ordering_leaf(), BuildOptions(owner=job_owner())).validate()
    assert str(errs.to_aggregate()) == "[" + ", ".join(ORDERING_EXPECTED) + "]"


def test_errors_come_out_in_depth_first_pre_order_by_node() -> None:
    root = make_item(
        "root",
        path=FieldPath("spec"),
        input=WorkloadInput(policy=PolicyInput(path_elements=["policy"], composite_pod_group_data={})),
        children=[
            make_item(
                "mid",
                path=FieldPath("spec", "groups").index(0),
                input=WorkloadInput(
                    policy=PolicyInput(path_elements=["policy"], composite_pod_group_data={"basic": {}})
                ),
                children=[make_item("deep", path=FieldPath("spec", "groups").index(0).child("leaf"), gang=0)],
            ),
            make_item("after", path=FieldPath("spec", "groups").index(1), gang=-1),
        ],
    )
    assert validate(root, policies=[GANG]) == [
        'spec.policy: Invalid value: "": must specify one of: `basic`, `gang`',
        f"spec.groups[0].policy: {BASIC_FORBIDDEN}",
        f"spec.groups[0].leaf.schedulingPolicy.gang.minCount: Invalid value: 0: {MIN_1}",
        f"spec.groups[1].schedulingPolicy.gang.minCount: Invalid value: -1: {MIN_1}",
    ]


# --- beyond upstream: allow-lists on resolved values (defaults and callbacks; dv-rules.md 4.5) ---


def _set_all_mode(cfg: SchedulingConfig) -> None:
    cfg.disruption_mode = DisruptionMode(all=AllDisruptionMode())


def _set_gang(cfg: SchedulingConfig) -> None:
    cfg.policy = SchedulingPolicy(gang=GangSchedulingPolicy(min_count=3))


GANG_DEFAULT = SchedulingConfig(policy=SchedulingPolicy(gang=GangSchedulingPolicy(min_count=2)))
BASIC_DEFAULT = SchedulingConfig(policy=SchedulingPolicy(basic=BasicSchedulingPolicy()))
POLICY_AT = PolicyInput(path_elements=["schedulingPolicy"])
MODE_AT = DisruptionModeInput(path_elements=["disruptionMode"])

RESOLVED_ALLOW_LISTS = [
    (
        "default gang not allowed",
        WorkloadItem(
            name="job", path=SCHEDULING_PATH, default_config=GANG_DEFAULT, input=WorkloadInput(policy=POLICY_AT)
        ),
        {"policies": [BASIC]},
        [f"spec.scheduling.schedulingPolicy: {GANG_FORBIDDEN}"],
    ),
    (
        "default basic not allowed on a composite",
        make_item(
            "root",
            path=SCHEDULING_PATH,
            default_config=BASIC_DEFAULT,
            input=WorkloadInput(policy=POLICY_AT),
            children=[make_item("child", gang=2)],
        ),
        {"policies": [GANG]},
        [f"spec.scheduling.schedulingPolicy: {BASIC_FORBIDDEN}"],
    ),
    (
        "default single mode not allowed",
        WorkloadItem(
            name="job",
            path=SCHEDULING_PATH,
            default_config=SchedulingConfig(disruption_mode=DisruptionMode(single=SingleDisruptionMode())),
            input=WorkloadInput(disruption_mode=MODE_AT),
        ),
        {"modes": [ALL]},
        [f"spec.scheduling.disruptionMode: {SINGLE_FORBIDDEN}"],
    ),
    (
        "callback all mode not allowed",
        WorkloadItem(
            name="job",
            path=SCHEDULING_PATH,
            input=WorkloadInput(policy=gang(), disruption_mode=MODE_AT),
            callbacks=[_set_all_mode],
        ),
        {"modes": [SINGLE]},
        [f"spec.scheduling.disruptionMode: {ALL_FORBIDDEN}"],
    ),
    (
        "callback gang not allowed",
        WorkloadItem(
            name="job", path=SCHEDULING_PATH, input=WorkloadInput(policy=POLICY_AT), callbacks=[None, _set_gang]
        ),
        {"policies": [BASIC]},
        [f"spec.scheduling.schedulingPolicy: {GANG_FORBIDDEN}"],
    ),
    (
        "callback overrides an allowed input",
        WorkloadItem(
            name="job",
            path=SCHEDULING_PATH,
            input=WorkloadInput(policy=PolicyInput(path_elements=["schedulingPolicy"], pod_group_data={"basic": {}})),
            callbacks=[_set_gang],
        ),
        {"policies": [BASIC]},
        [f"spec.scheduling.schedulingPolicy: {GANG_FORBIDDEN}"],
    ),
    (
        "input overrides a forbidden default",
        WorkloadItem(
            name="job",
            path=SCHEDULING_PATH,
            default_config=GANG_DEFAULT,
            input=WorkloadInput(policy=PolicyInput(path_elements=["schedulingPolicy"], pod_group_data={"basic": {}})),
        ),
        {"policies": [BASIC]},
        [],
    ),
    (
        "default basic with callback all is cross-field invalid",
        WorkloadItem(
            name="job",
            path=SCHEDULING_PATH,
            default_config=BASIC_DEFAULT,
            input=WorkloadInput(disruption_mode=MODE_AT),
            callbacks=[_set_all_mode],
        ),
        {},
        [f"spec.scheduling.disruptionMode: {BASIC_WITH_ALL}"],
    ),
    (
        "default values are never structurally validated",
        WorkloadItem(
            name="job",
            path=SCHEDULING_PATH,
            default_config=SchedulingConfig(
                policy=SchedulingPolicy(gang=GangSchedulingPolicy(min_count=0)),
                disruption_mode=DisruptionMode(),
            ),
        ),
        {},
        [],
    ),
    (
        "empty input policy leaves the default in force",
        WorkloadItem(
            name="job",
            path=SCHEDULING_PATH,
            default_config=GANG_DEFAULT,
            input=WorkloadInput(policy=PolicyInput(path_elements=["schedulingPolicy"], pod_group_data={})),
        ),
        {"policies": [BASIC]},
        [
            'spec.scheduling.schedulingPolicy: Invalid value: "": must specify one of: `basic`, `gang`',
            f"spec.scheduling.schedulingPolicy: {GANG_FORBIDDEN}",
        ],
    ),
]


@pytest.mark.parametrize(
    ("root", "options", "expected"), [c[1:] for c in RESOLVED_ALLOW_LISTS], ids=[c[0] for c in RESOLVED_ALLOW_LISTS]
)
def test_allow_lists_check_resolved_values(root: WorkloadItem, options: dict[str, Any], expected: list[str]) -> None:
    assert validate(root, **options) == expected


def _both_policies() -> SchedulingConfig:
    return SchedulingConfig(
        policy=SchedulingPolicy(basic=BasicSchedulingPolicy(), gang=GangSchedulingPolicy(min_count=2)),
    )


def _both_modes(cfg: SchedulingConfig) -> None:
    cfg.disruption_mode = DisruptionMode(single=SingleDisruptionMode(), all=AllDisruptionMode())


BOTH_MEMBERS = [
    (
        "nothing allowed",
        {"policies": [], "modes": ALL_MODES},
        [f"spec.p: {BASIC_FORBIDDEN}", f"spec.p: {GANG_FORBIDDEN}"],
    ),
    ("basic allowed", {"policies": [BASIC], "modes": ALL_MODES}, [f"spec.p: {GANG_FORBIDDEN}"]),
    ("gang allowed", {"policies": [GANG], "modes": ALL_MODES}, [f"spec.p: {BASIC_FORBIDDEN}"]),
    ("both allowed", {"policies": ALL_POLICIES, "modes": ALL_MODES}, []),
]


@pytest.mark.parametrize(("options", "expected"), [c[1:] for c in BOTH_MEMBERS], ids=[c[0] for c in BOTH_MEMBERS])
def test_ir_policy_with_both_members_checks_each(options: dict[str, Any], expected: list[str]) -> None:
    root = WorkloadItem(
        name="job",
        path=FieldPath("spec"),
        default_config=_both_policies(),
        input=WorkloadInput(policy=PolicyInput(path_elements=["p"])),
    )
    assert validate(root, **options) == expected


def test_ir_with_both_members_everywhere_reports_every_check_in_order() -> None:
    root = WorkloadItem(
        name="job",
        path=FieldPath("spec"),
        default_config=_both_policies(),
        input=WorkloadInput(
            policy=PolicyInput(path_elements=["p"]), disruption_mode=DisruptionModeInput(path_elements=["d"])
        ),
        callbacks=[_both_modes],
    )
    assert validate(root, policies=[], modes=[]) == [
        f"spec.p: {BASIC_FORBIDDEN}",
        f"spec.p: {GANG_FORBIDDEN}",
        f"spec.d: {SINGLE_FORBIDDEN}",
        f"spec.d: {ALL_FORBIDDEN}",
        f"spec.d: {BASIC_WITH_ALL}",
    ]


NO_RESOLVED_POLICY = [
    ("bare leaf", WorkloadItem(name="job", path=SCHEDULING_PATH)),
    (
        "leaf with constraints only",
        WorkloadItem(
            name="job",
            path=SCHEDULING_PATH,
            input=WorkloadInput(constraints=ConstraintsInput(pod_group_data={"topology": [{"key": "zone"}]})),
        ),
    ),
    (
        "composite tree without policies",
        make_item("root", children=[make_item("a"), make_item("b", children=[make_item("c")])]),
    ),
    ("empty policy block", WorkloadItem(name="job", input=WorkloadInput(policy=PolicyInput(pod_group_data={})))),
]


@pytest.mark.parametrize("root", [c[1] for c in NO_RESOLVED_POLICY], ids=[c[0] for c in NO_RESOLVED_POLICY])
def test_no_resolved_policy_means_no_allow_list_check(root: WorkloadItem) -> None:
    errs = validate(root, policies=[], modes=[], disable_dv=True)
    assert errs == []


def test_no_resolved_policy_still_runs_declarative_validation() -> None:
    root = WorkloadItem(name="job", input=WorkloadInput(policy=PolicyInput(pod_group_data={})))
    assert validate(root, policies=[], modes=[]) == ['<nil>: Invalid value: "": must specify one of: `basic`, `gang`']


def test_allow_lists_and_cross_field_run_with_declarative_validation_disabled() -> None:
    root = WorkloadItem(
        name="job",
        path=SCHEDULING_PATH,
        input=WorkloadInput(
            policy=PolicyInput(
                path_elements=["schedulingPolicy"], pod_group_data={"basic": {}, "gang": {"minCount": 0}}
            ),
            disruption_mode=DisruptionModeInput(path_elements=["disruptionMode"], pod_group_data={"all": {}}),
        ),
    )
    assert validate(root, policies=[GANG], modes=[], disable_dv=True) == [
        f"spec.scheduling.schedulingPolicy: {BASIC_FORBIDDEN}",
        f"spec.scheduling.disruptionMode: {ALL_FORBIDDEN}",
        f"spec.scheduling.disruptionMode: {BASIC_WITH_ALL}",
    ]


def test_callbacks_run_once_per_item_during_validate_and_never_touch_the_default() -> None:
    calls: list[str] = []
    default = SchedulingConfig(policy=SchedulingPolicy(gang=GangSchedulingPolicy()))

    def record(name: str):
        def callback(cfg: SchedulingConfig) -> None:
            calls.append(name)
            cfg.policy.gang.min_count = 7

        return callback

    root = make_item(
        "root",
        default_config=default,
        callbacks=[record("root")],
        children=[make_item("leaf", default_config=default, callbacks=[record("leaf")])],
    )
    assert validate(root) == []
    assert calls == ["root", "leaf"]
    assert default == SchedulingConfig(policy=SchedulingPolicy(gang=GangSchedulingPolicy()))


# --- beyond upstream: update ratcheting through the builder (dv-rules.md 2.1, 3, 4.4) ---


def _leaf(
    policy: dict | None = None, constraints: dict | None = None, mode: dict | None = None, claims: list | None = None
) -> WorkloadItem:
    return WorkloadItem(
        name="job",
        path=SCHEDULING_PATH,
        input=WorkloadInput(
            policy=PolicyInput(path_elements=["schedulingPolicy"], pod_group_data=policy),
            constraints=ConstraintsInput(path_elements=["schedulingConstraints"], pod_group_data=constraints),
            disruption_mode=DisruptionModeInput(path_elements=["disruptionMode"], pod_group_data=mode),
            resource_claims=ResourceClaimsInput(path_elements=["resourceClaims"], pod_group_data=claims or []),
        ),
    )


def _old(
    policy: dict | None = None, constraints: dict | None = None, mode: dict | None = None, claims: list | None = None
) -> WorkloadItem:
    """An old root: only name, input data and children are read, so no path or path elements."""
    return WorkloadItem(
        name="job",
        input=WorkloadInput(
            policy=PolicyInput(pod_group_data=policy),
            constraints=ConstraintsInput(pod_group_data=constraints),
            disruption_mode=DisruptionModeInput(pod_group_data=mode),
            resource_claims=ResourceClaimsInput(pod_group_data=claims or []),
        ),
    )


RC = "spec.scheduling.resourceClaims"

UPDATES = [
    ("unchanged invalid minCount is not re-reported", _leaf(policy=gang_data(0)), _old(policy=gang_data(0)), []),
    (
        "changed invalid minCount is re-reported",
        _leaf(policy=gang_data(-1)),
        _old(policy=gang_data(0)),
        [f"spec.scheduling.schedulingPolicy.gang.minCount: Invalid value: -1: {MIN_1}"],
    ),
    (
        "invalid minCount on a block added by the update",
        _leaf(policy=gang_data(0)),
        _old(),
        [f"spec.scheduling.schedulingPolicy.gang.minCount: Invalid value: 0: {MIN_1}"],
    ),
    (
        "union skipped when membership unchanged",
        _leaf(policy={"basic": {}, "gang": {"minCount": 2}}, mode={}),
        _old(policy={"basic": {}, "gang": {"minCount": 2}}, mode={}),
        [],
    ),
    (
        "union skipped but changed count re-checked",
        _leaf(policy={"basic": {}, "gang": {"minCount": 0}}),
        _old(policy={"basic": {}, "gang": {"minCount": 4}}),
        [f"spec.scheduling.schedulingPolicy.gang.minCount: Invalid value: 0: {MIN_1}"],
    ),
    (
        "union re-checked when membership changed",
        _leaf(mode={"single": {}, "all": {}}),
        _old(mode={"all": {}}),
        [MODE_BOTH_SET],
    ),
    (
        "gang flipped to basic is accepted by the building blocks",
        _leaf(policy={"basic": {}}, mode={"single": {}}),
        _old(policy=gang_data(2), mode={"all": {}}),
        [],
    ),
    (
        "resource claims matched by name, not index",
        _leaf(claims=[{"name": "b", "resourceClaimName": "Bad"}, {"name": "X"}]),
        _old(claims=[{"name": "X"}]),
        [f'{RC}[0].resourceClaimName: Invalid value: "Bad": {SUBDOMAIN_REGEX_MSG}'],
    ),
    (
        "renamed resource claim is validated as new",
        _leaf(claims=[{"name": "Y"}]),
        _old(claims=[{"name": "X"}]),
        [
            f'{RC}[0]: Invalid value: "": must specify one of: `resourceClaimName`, `resourceClaimTemplateName`',
            f'{RC}[0].name: Invalid value: "Y": {LABEL_REGEX_MSG}',
        ],
    ),
    (
        "duplicate old claim names: the last one wins",
        _leaf(claims=[{"name": "gpu", "resourceClaimName": "Bad"}]),
        _old(claims=[{"name": "gpu", "resourceClaimName": "ok"}, {"name": "gpu", "resourceClaimName": "Bad"}]),
        [],
    ),
    (
        "duplicate old claim names: the first one does not match",
        _leaf(claims=[{"name": "gpu", "resourceClaimName": "Bad"}]),
        _old(claims=[{"name": "gpu", "resourceClaimName": "Bad"}, {"name": "gpu", "resourceClaimName": "ok"}]),
        [f'{RC}[0].resourceClaimName: Invalid value: "Bad": {SUBDOMAIN_REGEX_MSG}'],
    ),
    (
        "unchanged topology list is skipped",
        _leaf(constraints={"topology": [{"key": ""}, {"key": "-"}]}),
        _old(constraints={"topology": [{"key": ""}, {"key": "-"}]}),
        [],
    ),
    (
        "changed topology list is re-checked",
        _leaf(constraints={"topology": [{"key": ""}]}),
        _old(constraints={"topology": [{"key": "zone"}]}),
        ["spec.scheduling.schedulingConstraints.topology[0].key: Required value"],
    ),
    (
        "clearing every invalid block yields nothing",
        _leaf(),
        _old(
            policy={"basic": {}, "gang": {"minCount": 0}},
            constraints={"topology": [{"key": ""}, {"key": ""}]},
            mode={},
            claims=[{"name": "X"}],
        ),
        [],
    ),
    (
        "same data on create is reported",
        _leaf(policy=gang_data(0), constraints={"topology": [{"key": ""}]}, claims=[{"name": "X"}]),
        None,
        [
            f"spec.scheduling.schedulingPolicy.gang.minCount: Invalid value: 0: {MIN_1}",
            "spec.scheduling.schedulingConstraints.topology[0].key: Required value",
            f'{RC}[0]: Invalid value: "": must specify one of: `resourceClaimName`, `resourceClaimTemplateName`',
            f'{RC}[0].name: Invalid value: "X": {LABEL_REGEX_MSG}',
        ],
    ),
]


@pytest.mark.parametrize(("root", "old_root", "expected"), [c[1:] for c in UPDATES], ids=[c[0] for c in UPDATES])
def test_update_ratcheting(root: WorkloadItem, old_root: WorkloadItem | None, expected: list[str]) -> None:
    assert validate(root, old_root) == expected


def test_update_correlates_children_by_name_within_one_level() -> None:
    root = make_item(
        "root",
        path=FieldPath("spec"),
        children=[
            make_item("b", path=FieldPath("spec", "b"), gang=0),
            make_item("a", path=FieldPath("spec", "a"), gang=0),
            make_item("new", path=FieldPath("spec", "new"), gang=0),
        ],
    )
    old_root = make_item("root", children=[make_item("a", gang=0), make_item("b", gang=0)])
    assert validate(root, old_root) == [f"spec.new.schedulingPolicy.gang.minCount: Invalid value: 0: {MIN_1}"]


def test_update_of_a_leaf_that_became_composite_reads_no_old_composite_data() -> None:
    root = make_item(
        "root",
        path=SCHEDULING_PATH,
        input=WorkloadInput(
            policy=PolicyInput(path_elements=["schedulingPolicy"], composite_pod_group_data=composite_gang_data(0))
        ),
        children=[make_item("leaf", gang=2)],
    )
    old_root = make_item("root", gang=0)
    assert validate(root, old_root) == [
        f"spec.scheduling.schedulingPolicy.gang.minGroupCount: Invalid value: 0: {MIN_1}"
    ]


# --- beyond upstream: missing paths (dv-rules.md 1.2) ---

NIL_PATHS = [
    ("path elements only", make_item("job", gang=0), [f"schedulingPolicy.gang.minCount: Invalid value: 0: {MIN_1}"]),
    (
        "block union at nil",
        WorkloadItem(name="job", input=WorkloadInput(policy=PolicyInput(pod_group_data={}))),
        ['<nil>: Invalid value: "": must specify one of: `basic`, `gang`'],
    ),
    (
        "nested field from the root",
        WorkloadItem(name="job", input=WorkloadInput(policy=PolicyInput(pod_group_data=gang_data(0)))),
        [f"gang.minCount: Invalid value: 0: {MIN_1}"],
    ),
    (
        "topology from the root",
        WorkloadItem(
            name="job",
            input=WorkloadInput(
                constraints=ConstraintsInput(pod_group_data={"topology": [{"key": "a"}, {"key": "b"}]})
            ),
        ),
        ["topology: Too many: 2: must have at most 1 item"],
    ),
    (
        "claim index from the root",
        WorkloadItem(
            name="job",
            input=WorkloadInput(
                resource_claims=ResourceClaimsInput(pod_group_data=[{"name": "", "resourceClaimName": "a"}])
            ),
        ),
        ["[0].name: Required value"],
    ),
    (
        "allow-list at nil",
        WorkloadItem(name="job", input=WorkloadInput(policy=basic(), disruption_mode=all_disruption())),
        [f"<nil>: {BASIC_FORBIDDEN}", f"<nil>: {ALL_FORBIDDEN}", f"<nil>: {BASIC_WITH_ALL}"],
    ),
    (
        "tree error at nil",
        WorkloadItem(name="job", children=[WorkloadItem(name="")]),
        ["<nil>: Internal error: workload item name cannot be empty"],
    ),
]


@pytest.mark.parametrize(("root", "expected"), [c[1:] for c in NIL_PATHS], ids=[c[0] for c in NIL_PATHS])
def test_items_without_a_path(root: WorkloadItem, expected: list[str]) -> None:
    assert validate(root, policies=[GANG], modes=[SINGLE]) == expected


# --- beyond upstream: preconditions and tree checks (dv-rules.md 4.1, 4.2) ---

R = "spec.scheduling: Internal error: "


def _composite(name: str, given: WorkloadInput, *children: WorkloadItem | None) -> WorkloadItem:
    return make_item(name, input=given, children=children or [make_item(f"{name}-leaf")])


TREE_CHECKS = [
    ("nil child", [make_item("a"), None], R + "workload item cannot be nil"),
    ("empty child name", [make_item("a"), make_item("")], R + "workload item name cannot be empty"),
    (
        "duplicate of the root name",
        [make_item("root")],
        R + 'duplicate workload item name "root": template names must be unique across the Workload',
    ),
    (
        "duplicate across branches",
        [make_item("a", children=[make_item("x")]), make_item("b", children=[make_item("x")])],
        R + 'duplicate workload item name "x": template names must be unique across the Workload',
    ),
    (
        "duplicate siblings",
        [make_item("a"), make_item("a")],
        R + 'duplicate workload item name "a": template names must be unique across the Workload',
    ),
    (
        "composite sets leaf policy",
        [_composite("c", WorkloadInput(policy=PolicyInput(pod_group_data={})))],
        R + 'composite workload item "c" sets leaf building block: policy',
    ),
    (
        "composite sets leaf constraints",
        [_composite("c", WorkloadInput(constraints=ConstraintsInput(pod_group_data={"topology": []})))],
        R + 'composite workload item "c" sets leaf building block: constraints',
    ),
    (
        "composite sets leaf disruptionMode",
        [_composite("c", WorkloadInput(disruption_mode=DisruptionModeInput(pod_group_data={"single": {}})))],
        R + 'composite workload item "c" sets leaf building block: disruptionMode',
    ),
    (
        "composite sets leaf resourceClaims",
        [_composite("c", WorkloadInput(resource_claims=ResourceClaimsInput(pod_group_data=[{"name": "a"}])))],
        R + 'composite workload item "c" sets leaf building block: resourceClaims',
    ),
    (
        "composite sets constraints and resourceClaims: constraints first",
        [
            _composite(
                "c",
                WorkloadInput(
                    constraints=ConstraintsInput(pod_group_data={}),
                    resource_claims=ResourceClaimsInput(pod_group_data=[{"name": "a"}]),
                ),
            )
        ],
        R + 'composite workload item "c" sets leaf building block: constraints',
    ),
    (
        "leaf sets composite policy",
        [make_item("l", input=WorkloadInput(policy=composite_gang()))],
        R + 'leaf workload item "l" sets composite building block: policy',
    ),
    (
        "leaf sets composite constraints",
        [make_item("l", input=WorkloadInput(constraints=ConstraintsInput(composite_pod_group_data={})))],
        R + 'leaf workload item "l" sets composite building block: constraints',
    ),
    (
        "leaf sets composite disruptionMode",
        [
            make_item(
                "l", input=WorkloadInput(disruption_mode=DisruptionModeInput(composite_pod_group_data={"all": {}}))
            )
        ],
        R + 'leaf workload item "l" sets composite building block: disruptionMode',
    ),
    (
        "first failure in pre-order wins over a later nil",
        [make_item("a", children=[make_item("l", input=WorkloadInput(policy=composite_gang()))]), None],
        R + 'leaf workload item "l" sets composite building block: policy',
    ),
    (
        "earlier nil wins over a later bad leaf",
        [None, make_item("l", input=WorkloadInput(policy=composite_gang()))],
        R + "workload item cannot be nil",
    ),
    (
        "deep failure reported at the root path",
        [make_item("a", path=FieldPath("elsewhere"), children=[make_item("", path=FieldPath("deeper"))])],
        R + "workload item name cannot be empty",
    ),
]


@pytest.mark.parametrize(("children", "expected"), [c[1:] for c in TREE_CHECKS], ids=[c[0] for c in TREE_CHECKS])
@pytest.mark.parametrize("disable_dv", [False, True], ids=["dv", "no-dv"])
def test_tree_checks(children: list[WorkloadItem | None], expected: str, disable_dv: bool) -> None:
    root = make_item("root", path=SCHEDULING_PATH, children=children)
    assert validate(root, disable_dv=disable_dv) == [expected]


def test_tree_check_on_the_root_itself() -> None:
    leaf = make_item("job", path=SCHEDULING_PATH, input=WorkloadInput(policy=composite_gang()))
    assert validate(leaf) == [R + 'leaf workload item "job" sets composite building block: policy']


def test_composite_with_an_empty_claims_list_is_not_a_tree_error() -> None:
    root = make_item(
        "root",
        input=WorkloadInput(resource_claims=ResourceClaimsInput(pod_group_data=[])),
        children=[make_item("leaf")],
    )
    assert validate(root) == []


def test_item_names_are_not_format_checked() -> None:
    root = make_item("Root_Name", children=[make_item("x" * 100), make_item("with.dots")])
    assert validate(root) == []


ROOT_NAMES = [
    (
        "mismatch without a root path",
        WorkloadItem(name="b"),
        WorkloadItem(name="a"),
        ['<nil>: Internal error: old root name "a" does not match new root name "b"'],
    ),
    (
        "mismatch wins over a tree error",
        WorkloadItem(name="", path=SCHEDULING_PATH),
        WorkloadItem(name="job"),
        ['spec.scheduling: Internal error: old root name "job" does not match new root name ""'],
    ),
    (
        "mismatch wins over declarative errors",
        make_item("job", path=SCHEDULING_PATH, gang=0),
        WorkloadItem(name="job-0"),
        ['spec.scheduling: Internal error: old root name "job-0" does not match new root name "job"'],
    ),
    (
        "missing root wins over an old root",
        None,
        WorkloadItem(name="job"),
        ["<nil>: Invalid value: null: invalid builder: missing root WorkloadItem"],
    ),
    (
        "tree error when names match",
        WorkloadItem(name="job", path=SCHEDULING_PATH, children=[None]),
        WorkloadItem(name="job"),
        ["spec.scheduling: Internal error: workload item cannot be nil"],
    ),
]


@pytest.mark.parametrize(("root", "old_root", "expected"), [c[1:] for c in ROOT_NAMES], ids=[c[0] for c in ROOT_NAMES])
def test_old_and_new_root_preconditions(root: WorkloadItem | None, old_root: WorkloadItem, expected: list[str]) -> None:
    assert validate(root, old_root) == expected


def test_builder_from_an_existing_workload_cannot_validate() -> None:
    workload = Builder(make_item("job", gang=2), BuildOptions(owner=job_owner())).build_workload()
    builder = Builder.from_existing_workload(workload, BuildOptions(owner=job_owner()))
    errs = builder.validate()
    assert [str(e) for e in errs] == [
        "<nil>: Internal error: cannot validate a builder constructed from an existing workload"
    ]
    assert errs[0].type is ErrorType.INTERNAL


# --- beyond upstream: input that does not decode ---

P = "spec.scheduling.schedulingPolicy"

UNDECODABLE = [
    (
        "unknown field in a nested struct",
        WorkloadInput(
            policy=PolicyInput(path_elements=["schedulingPolicy"], pod_group_data={"gang": {"minCount": 2, "extra": 1}})
        ),
        [f"{P}.gang.extra: unknown field"],
    ),
    (
        "unknown top-level field",
        WorkloadInput(policy=PolicyInput(path_elements=["schedulingPolicy"], pod_group_data={"bogus": {}})),
        [f"{P}.bogus: unknown field"],
    ),
    (
        "snake_case spelling is unknown",
        WorkloadInput(
            policy=PolicyInput(path_elements=["schedulingPolicy"], pod_group_data={"gang": {"min_count": 2}})
        ),
        [f"{P}.gang.min_count: unknown field"],
    ),
    (
        "wrong type",
        WorkloadInput(
            policy=PolicyInput(path_elements=["schedulingPolicy"], pod_group_data={"gang": {"minCount": "x"}})
        ),
        [f'{P}.gang.minCount: Invalid value: "x": must be of type integer'],
    ),
    (
        "boolean is not an integer",
        WorkloadInput(
            policy=PolicyInput(path_elements=["schedulingPolicy"], pod_group_data={"gang": {"minCount": True}})
        ),
        [f"{P}.gang.minCount: Invalid value: true: must be of type integer"],
    ),
    (
        "int32 overflow",
        WorkloadInput(
            policy=PolicyInput(path_elements=["schedulingPolicy"], pod_group_data={"gang": {"minCount": 2**31}})
        ),
        [f"{P}.gang.minCount: Invalid value: 2147483648: must be of type int32"],
    ),
    (
        "int32 underflow",
        WorkloadInput(
            policy=PolicyInput(path_elements=["schedulingPolicy"], pod_group_data={"gang": {"minCount": -(2**31) - 1}})
        ),
        [f"{P}.gang.minCount: Invalid value: -2147483649: must be of type int32"],
    ),
    (
        "marker struct is not an object",
        WorkloadInput(
            disruption_mode=DisruptionModeInput(path_elements=["disruptionMode"], pod_group_data={"single": True})
        ),
        ["spec.scheduling.disruptionMode.single: Invalid value: true: must be of type object"],
    ),
    (
        "marker struct has no fields",
        WorkloadInput(
            disruption_mode=DisruptionModeInput(path_elements=["disruptionMode"], pod_group_data={"all": {"now": 1}})
        ),
        ["spec.scheduling.disruptionMode.all.now: unknown field"],
    ),
    (
        "topology is not a list",
        WorkloadInput(
            constraints=ConstraintsInput(
                path_elements=["schedulingConstraints"], pod_group_data={"topology": {"key": "zone"}}
            )
        ),
        ['spec.scheduling.schedulingConstraints.topology: Invalid value: {"key":"zone"}: must be of type array'],
    ),
    (
        "topology entry with a wrong key type",
        WorkloadInput(
            constraints=ConstraintsInput(
                path_elements=["schedulingConstraints"], pod_group_data={"topology": [{"key": 1}]}
            )
        ),
        ["spec.scheduling.schedulingConstraints.topology[0].key: Invalid value: 1: must be of type string"],
    ),
    (
        "claim with a wrong type, by index",
        WorkloadInput(
            resource_claims=ResourceClaimsInput(
                path_elements=["resourceClaims"],
                pod_group_data=[{"name": "ok", "resourceClaimName": "ok"}, {"name": "gpu", "resourceClaimName": 5}],
            )
        ),
        ["spec.scheduling.resourceClaims[1].resourceClaimName: Invalid value: 5: must be of type string"],
    ),
    (
        "claims not a list",
        WorkloadInput(resource_claims=ResourceClaimsInput(path_elements=["resourceClaims"], pod_group_data="gpu")),
        ['spec.scheduling.resourceClaims: Invalid value: "gpu": must be of type array'],
    ),
    (
        "several problems in one block",
        WorkloadInput(
            policy=PolicyInput(
                path_elements=["schedulingPolicy"], pod_group_data={"basic": [], "gang": {"minCount": "2", "x": 1}}
            )
        ),
        [
            f"{P}.basic: Invalid value: []: must be of type object",
            f'{P}.gang.minCount: Invalid value: "2": must be of type integer',
            f"{P}.gang.x: unknown field",
        ],
    ),
]


@pytest.mark.parametrize(("given", "expected"), [c[1:] for c in UNDECODABLE], ids=[c[0] for c in UNDECODABLE])
@pytest.mark.parametrize("disable_dv", [False, True], ids=["dv", "no-dv"])
def test_undecodable_input_is_reported(given: WorkloadInput, expected: list[str], disable_dv: bool) -> None:
    root = WorkloadItem(name="job", path=SCHEDULING_PATH, input=given)
    assert validate(root, disable_dv=disable_dv) == expected


def test_undecodable_composite_block_is_reported_at_its_path() -> None:
    root = make_item(
        "root",
        path=SCHEDULING_PATH,
        input=WorkloadInput(
            policy=PolicyInput(path_elements=["schedulingPolicy"], composite_pod_group_data={"gang": {"minCount": 2}})
        ),
        children=[make_item("leaf", gang=2)],
    )
    assert validate(root, disable_dv=True) == [f"{P}.gang.minCount: unknown field"]


def test_undecodable_policy_is_treated_as_unset_by_the_allow_list() -> None:
    root = WorkloadItem(
        name="job",
        path=SCHEDULING_PATH,
        input=WorkloadInput(
            policy=PolicyInput(path_elements=["schedulingPolicy"], pod_group_data={"gang": {"minCount": "x"}})
        ),
    )
    assert validate(root, policies=[]) == [f'{P}.gang.minCount: Invalid value: "x": must be of type integer']


def test_undecodable_blocks_report_in_block_order() -> None:
    root = WorkloadItem(
        name="job",
        path=SCHEDULING_PATH,
        input=WorkloadInput(
            policy=PolicyInput(path_elements=["schedulingPolicy"], pod_group_data=gang_data(0)),
            constraints=ConstraintsInput(path_elements=["schedulingConstraints"], pod_group_data={"topology": "zone"}),
            disruption_mode=DisruptionModeInput(path_elements=["disruptionMode"], pod_group_data={}),
            resource_claims=ResourceClaimsInput(
                path_elements=["resourceClaims"],
                pod_group_data=[{"name": "X", "resourceClaimName": "a"}, {"name": 1}],
            ),
        ),
    )
    assert validate(root) == [
        f"{P}.gang.minCount: Invalid value: 0: {MIN_1}",
        'spec.scheduling.schedulingConstraints.topology: Invalid value: "zone": must be of type array',
        'spec.scheduling.disruptionMode: Invalid value: "": must specify one of: `single`, `all`',
        f'spec.scheduling.resourceClaims[0].name: Invalid value: "X": {LABEL_REGEX_MSG}',
        "spec.scheduling.resourceClaims[1].name: Invalid value: 1: must be of type string",
    ]


# --- beyond upstream: aggregation and an old tree with holes ---


def test_identical_errors_from_different_nodes_aggregate_once() -> None:
    root = make_item(
        "root",
        children=[make_item("a", path=SCHEDULING_PATH, gang=0), make_item("b", path=SCHEDULING_PATH, gang=0)],
    )
    errs = Builder(root, BuildOptions(owner=job_owner(), allowed_policies=ALL_POLICIES)).validate()
    text = f"spec.scheduling.schedulingPolicy.gang.minCount: Invalid value: 0: {MIN_1}"
    assert [str(e) for e in errs] == [text, text]
    assert str(errs.to_aggregate()) == text


def test_valid_tree_aggregates_to_none() -> None:
    errs = Builder(make_item("job", gang=2), BuildOptions(owner=job_owner(), allowed_policies=ALL_POLICIES)).validate()
    assert errs == []
    assert errs.to_aggregate() is None


def test_old_tree_with_a_nil_child_still_correlates_the_others() -> None:
    """Go dereferences the nil old child and panics; the port skips it (dv-rules.md 7.8)."""
    root = make_item("root", children=[make_item("a", gang=0), make_item("b", path=FieldPath("b"), gang=0)])
    old_root = make_item("root", children=[None, make_item("a", gang=0)])
    assert validate(root, old_root) == [f"b.schedulingPolicy.gang.minCount: Invalid value: 0: {MIN_1}"]


# --- beyond upstream: the controller checks agree whether or not callbacks force a full resolution ---


def _no_op(cfg: SchedulingConfig) -> None:
    """A callback that changes nothing."""


def _with_no_op_callbacks(item: WorkloadItem | None) -> WorkloadItem | None:
    if item is None:
        return None
    return item.model_copy(
        update={"callbacks": [*item.callbacks, _no_op], "children": [_with_no_op_callbacks(c) for c in item.children]}
    )


SAME_WITH_CALLBACKS = [
    ("default with both members", WorkloadItem(name="job", path=FieldPath("spec"), default_config=_both_policies())),
    (
        "default modes with both members",
        WorkloadItem(
            name="job",
            default_config=SchedulingConfig(
                policy=SchedulingPolicy(basic=BasicSchedulingPolicy()),
                disruption_mode=DisruptionMode(single=SingleDisruptionMode(), all=AllDisruptionMode()),
            ),
        ),
    ),
    (
        "empty default members",
        WorkloadItem(
            name="job", default_config=SchedulingConfig(policy=SchedulingPolicy(), disruption_mode=DisruptionMode())
        ),
    ),
    ("input with both members", _ordering_leaf()),
    ("empty input over a default", RESOLVED_ALLOW_LISTS[-1][1]),
    ("input over a default", RESOLVED_ALLOW_LISTS[6][1]),
    (
        "composite tree",
        make_item(
            "root",
            default_config=BASIC_DEFAULT,
            input=WorkloadInput(disruption_mode=DisruptionModeInput(composite_pod_group_data={"all": {}})),
            children=[
                make_item(
                    "a",
                    gang=2,
                    default_config=SchedulingConfig(disruption_mode=DisruptionMode(all=AllDisruptionMode())),
                )
            ],
        ),
    ),
]


@pytest.mark.parametrize("root", [c[1] for c in SAME_WITH_CALLBACKS], ids=[c[0] for c in SAME_WITH_CALLBACKS])
@pytest.mark.parametrize(
    "options",
    [{"policies": [], "modes": []}, {"policies": [BASIC], "modes": [ALL]}, {"policies": [GANG], "modes": [SINGLE]}],
    ids=["nothing-allowed", "basic-all", "gang-single"],
)
def test_controller_checks_do_not_depend_on_callbacks_being_present(
    root: WorkloadItem, options: dict[str, Any]
) -> None:
    assert validate(_with_no_op_callbacks(root), **options) == validate(root, **options)


RATCHET_OPTIONS = BuildOptions(
    allowed_policies=[SchedulingPolicyOption.BASIC, SchedulingPolicyOption.GANG],
    allowed_disruption_modes=[DisruptionModeOption.SINGLE, DisruptionModeOption.ALL],
)
RATCHET_MIN_COUNT = "spec.scheduling.schedulingPolicy.gang.minCount"


def _ratchet_item(policy: Any = None, claims: list[Any] | None = None, path: FieldPath | None = None) -> WorkloadItem:
    return WorkloadItem(
        name="job",
        path=path,
        input=WorkloadInput(
            policy=PolicyInput(path_elements=["schedulingPolicy"], pod_group_data=policy),
            resource_claims=ResourceClaimsInput(path_elements=["resourceClaims"], pod_group_data=claims or []),
        ),
    )


def _ratchet_errors(new: WorkloadItem, old: WorkloadItem) -> list[str]:
    return [str(e) for e in Builder(new, RATCHET_OPTIONS).validate(old_root=old)]


RATCHET_AT = FieldPath("spec", "scheduling")
OLD_BLOCKS: list[tuple[str, Any, Any, list[str]]] = [
    ("unknown-field-in-old-ratchets", {"gang": {"minCount": 0}}, {"gang": {"minCount": 0}, "extra": 1}, []),
    ("unknown-nested-field-in-old-ratchets", {"gang": {"minCount": 0}}, {"gang": {"minCount": 0, "x": 1}}, []),
    (
        "changed-value-still-checked",
        {"gang": {"minCount": -1}},
        {"gang": {"minCount": 0}, "extra": 1},
        [f"{RATCHET_MIN_COUNT}: Invalid value: -1: must be greater than or equal to 1"],
    ),
    (
        "wrong-type-in-old-checks-as-created",
        {"gang": {"minCount": 0}},
        {"gang": {"minCount": "0"}},
        [f"{RATCHET_MIN_COUNT}: Invalid value: 0: must be greater than or equal to 1"],
    ),
]


# An old building block given as a dict with an unknown field still ratchets: its known fields are what Go held.
@pytest.mark.parametrize(("new", "old", "want"), [c[1:] for c in OLD_BLOCKS], ids=[c[0] for c in OLD_BLOCKS])
def test_old_block_with_unknown_fields_ratchets(new: Any, old: Any, want: list[str]) -> None:
    assert _ratchet_errors(_ratchet_item(new, path=RATCHET_AT), _ratchet_item(old)) == want


def test_old_claim_with_unknown_field_ratchets() -> None:
    claim = {"name": "Bad_Name", "resourceClaimName": "c"}
    new = _ratchet_item({"basic": {}}, [claim], path=RATCHET_AT)
    assert _ratchet_errors(new, _ratchet_item({"basic": {}}, [{**claim, "extra": True}])) == []
