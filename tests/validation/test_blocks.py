"""The building blocks' declarative rules, create and update, against the generated Go validators.

Expected errors follow ``Validate_WorkloadPodGroup*`` / ``Validate_WorkloadCompositePodGroup*``
and ``Validate_TopologyConstraint`` in ``scheduling/v1alpha3/zz_generated.validations.go``,
with apimachinery's ``validate.Union`` ratcheting (dv-rules.md sections 2.1 and 3).
"""

from __future__ import annotations

from typing import Any

import pytest
from kubernetes.client import (
    V1alpha3WorkloadPodGroupDisruptionMode,
    V1alpha3WorkloadPodGroupResourceClaim,
    V1alpha3WorkloadPodGroupSchedulingConstraints,
    V1alpha3WorkloadPodGroupSchedulingPolicy,
)

from workloadbuilder import FieldPath
from workloadbuilder.types import (
    WorkloadCompositePodGroupDisruptionMode,
    WorkloadCompositePodGroupSchedulingConstraints,
    WorkloadCompositePodGroupSchedulingPolicy,
)
from workloadbuilder.validation.blocks import (
    validate_composite_disruption_mode,
    validate_composite_scheduling_constraints,
    validate_composite_scheduling_policy,
    validate_disruption_mode,
    validate_resource_claim,
    validate_scheduling_constraints,
    validate_scheduling_policy,
    validate_union,
)

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
NAME_PART_REGEX_MSG = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character "
    "(e.g. 'MyName',  or 'my.name',  or '123-abc', "
    "regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)

POLICY_ONE_OF = "must specify one of: `basic`, `gang`"
POLICY_EXACTLY_ONE = "must specify exactly one of: `basic`, `gang`"
MODE_ONE_OF = "must specify one of: `single`, `all`"
MODE_EXACTLY_ONE = "must specify exactly one of: `single`, `all`"
CLAIM_ONE_OF = "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`"
CLAIM_EXACTLY_ONE = "must specify exactly one of: `resourceClaimName`, `resourceClaimTemplateName`"
MIN_1 = "must be greater than or equal to 1"


def _strings(errs) -> list[str]:
    return [str(e) for e in errs]


def _model(cls: type, data: dict[str, Any] | None) -> Any:
    """A building block from Kubernetes JSON spelling (``None`` stays ``None``: no old object)."""
    return None if data is None else cls.model_validate(data)


# --- validate_union (apimachinery validate.Union) ---

UNION_PATH = FieldPath("spec", "u")
UNION = [
    ("one member set", (True, False, False), None, []),
    ("last member set", (False, False, True), None, []),
    ("none set", (False, False, False), None, ['spec.u: Invalid value: "": must specify one of: `a`, `b`, `c`']),
    (
        "two set",
        (True, False, True),
        None,
        ['spec.u: Invalid value: "{a, c}": must specify exactly one of: `a`, `b`, `c`'],
    ),
    (
        "all set",
        (True, True, True),
        None,
        ['spec.u: Invalid value: "{a, b, c}": must specify exactly one of: `a`, `b`, `c`'],
    ),
    ("update none set, unchanged", (False, False, False), (False, False, False), []),
    ("update two set, unchanged", (True, True, False), (True, True, False), []),
    (
        "update two set, one added",
        (True, True, False),
        (True, False, False),
        ['spec.u: Invalid value: "{a, b}": must specify exactly one of: `a`, `b`, `c`'],
    ),
    (
        "update none set, one removed",
        (False, False, False),
        (False, True, False),
        ['spec.u: Invalid value: "": must specify one of: `a`, `b`, `c`'],
    ),
    ("update switched member", (False, True, False), (True, False, False), []),
]


@pytest.mark.parametrize(("now", "old", "expected"), [c[1:] for c in UNION], ids=[c[0] for c in UNION])
def test_validate_union(now, old, expected) -> None:
    assert _strings(validate_union(UNION_PATH, ("a", "b", "c"), now, old)) == expected


def test_validate_union_with_no_path_reports_at_nil() -> None:
    assert _strings(validate_union(None, ("x", "y"), (False, False), None)) == [
        '<nil>: Invalid value: "": must specify one of: `x`, `y`'
    ]


# --- Validate_WorkloadPodGroupSchedulingPolicy and its composite twin ---

POLICY_PATH = FieldPath("spec", "scheduling", "schedulingPolicy")
P = "spec.scheduling.schedulingPolicy"


def _policy_cases(count_field: str) -> list[tuple[str, Any, Any, list[str]]]:
    """Cases shared by the leaf (``minCount``) and composite (``minGroupCount``) policies."""

    def gang(n: int | None = None) -> dict[str, Any]:
        return {} if n is None else {count_field: n}

    too_small = f"{P}.gang.{count_field}: Invalid value: %d: {MIN_1}"
    return [
        # create
        ("basic", {"basic": {}}, None, []),
        ("gang with count", {"gang": gang(1)}, None, []),
        ("gang without count", {"gang": gang()}, None, []),
        ("gang with max int32 count", {"gang": gang(2**31 - 1)}, None, []),
        ("empty policy", {}, None, [f'{P}: Invalid value: "": {POLICY_ONE_OF}']),
        (
            "basic and gang",
            {"basic": {}, "gang": gang(2)},
            None,
            [f'{P}: Invalid value: "{{basic, gang}}": {POLICY_EXACTLY_ONE}'],
        ),
        ("count zero", {"gang": gang(0)}, None, [too_small % 0]),
        ("count negative", {"gang": gang(-5)}, None, [too_small % -5]),
        (
            "basic and gang with count zero",
            {"basic": {}, "gang": gang(0)},
            None,
            [f'{P}: Invalid value: "{{basic, gang}}": {POLICY_EXACTLY_ONE}', too_small % 0],
        ),
        # update
        ("update unchanged invalid count", {"gang": gang(0)}, {"gang": gang(0)}, []),
        ("update changed invalid count", {"gang": gang(0)}, {"gang": gang(3)}, [too_small % 0]),
        ("update invalid count changed again", {"gang": gang(-1)}, {"gang": gang(0)}, [too_small % -1]),
        ("update count fixed", {"gang": gang(3)}, {"gang": gang(0)}, []),
        ("update count set from unset", {"gang": gang(0)}, {"gang": gang()}, [too_small % 0]),
        ("update count cleared", {"gang": gang()}, {"gang": gang(0)}, []),
        ("update gang replaces basic", {"gang": gang(0)}, {"basic": {}}, [too_small % 0]),
        ("update basic replaces gang", {"basic": {}}, {"gang": gang(0)}, []),
        ("update both set, unchanged", {"basic": {}, "gang": gang(2)}, {"basic": {}, "gang": gang(2)}, []),
        ("update empty, unchanged", {}, {}, []),
        (
            "update both set, count changed to invalid",
            {"basic": {}, "gang": gang(0)},
            {"basic": {}, "gang": gang(1)},
            [too_small % 0],
        ),
        (
            "update basic added to gang",
            {"basic": {}, "gang": gang(0)},
            {"gang": gang(0)},
            [f'{P}: Invalid value: "{{basic, gang}}": {POLICY_EXACTLY_ONE}'],
        ),
        ("update emptied", {}, {"basic": {}}, [f'{P}: Invalid value: "": {POLICY_ONE_OF}']),
    ]


LEAF_POLICY = _policy_cases("minCount")
COMPOSITE_POLICY = _policy_cases("minGroupCount")


@pytest.mark.parametrize(("new", "old", "expected"), [c[1:] for c in LEAF_POLICY], ids=[c[0] for c in LEAF_POLICY])
def test_validate_scheduling_policy(new, old, expected) -> None:
    cls = V1alpha3WorkloadPodGroupSchedulingPolicy
    assert _strings(validate_scheduling_policy(POLICY_PATH, _model(cls, new), _model(cls, old))) == expected


@pytest.mark.parametrize(
    ("new", "old", "expected"), [c[1:] for c in COMPOSITE_POLICY], ids=[c[0] for c in COMPOSITE_POLICY]
)
def test_validate_composite_scheduling_policy(new, old, expected) -> None:
    cls = WorkloadCompositePodGroupSchedulingPolicy
    assert _strings(validate_composite_scheduling_policy(POLICY_PATH, _model(cls, new), _model(cls, old))) == expected


def test_policy_with_no_path_reports_nested_fields_from_the_root() -> None:
    obj = _model(V1alpha3WorkloadPodGroupSchedulingPolicy, {"gang": {"minCount": 0}})
    assert _strings(validate_scheduling_policy(None, obj)) == [f"gang.minCount: Invalid value: 0: {MIN_1}"]


# --- Validate_WorkloadPodGroupSchedulingConstraints / composite / TopologyConstraint ---

CONSTRAINTS_PATH = FieldPath("spec", "scheduling", "schedulingConstraints")
C = "spec.scheduling.schedulingConstraints"

CONSTRAINTS = [
    # create
    ("no topology", {}, None, []),
    ("empty topology", {"topology": []}, None, []),
    ("one valid key", {"topology": [{"key": "topology.kubernetes.io/zone"}]}, None, []),
    (
        "two entries",
        {"topology": [{"key": "zone"}, {"key": "rack"}]},
        None,
        [f"{C}.topology: Too many: 2: must have at most 1 item"],
    ),
    (
        "too many entries short-circuit the keys",
        {"topology": [{"key": ""}, {"key": "-"}, {"key": "a/b/c"}]},
        None,
        [f"{C}.topology: Too many: 3: must have at most 1 item"],
    ),
    ("empty key", {"topology": [{"key": ""}]}, None, [f"{C}.topology[0].key: Required value"]),
    (
        "key ends with dash",
        {"topology": [{"key": "zone-"}]},
        None,
        [f'{C}.topology[0].key: Invalid value: "zone-": {NAME_PART_REGEX_MSG}'],
    ),
    (
        "key with uppercase prefix",
        {"topology": [{"key": "Example.com/zone"}]},
        None,
        [f'{C}.topology[0].key: Invalid value: "Example.com/zone": prefix part {SUBDOMAIN_REGEX_MSG}'],
    ),
    (
        "key with empty name",
        {"topology": [{"key": "example.com/"}]},
        None,
        [
            f'{C}.topology[0].key: Invalid value: "example.com/": name part must be non-empty',
            f'{C}.topology[0].key: Invalid value: "example.com/": {NAME_PART_REGEX_MSG}',
        ],
    ),
    # update: the whole list is skipped when unchanged, else every entry is checked as new
    ("update unchanged empty key", {"topology": [{"key": ""}]}, {"topology": [{"key": ""}]}, []),
    (
        "update unchanged too many",
        {"topology": [{"key": "zone"}, {"key": "rack"}]},
        {"topology": [{"key": "zone"}, {"key": "rack"}]},
        [],
    ),
    (
        "update key emptied",
        {"topology": [{"key": ""}]},
        {"topology": [{"key": "zone"}]},
        [f"{C}.topology[0].key: Required value"],
    ),
    (
        "update entry added",
        {"topology": [{"key": "zone"}, {"key": "rack"}]},
        {"topology": [{"key": "zone"}]},
        [f"{C}.topology: Too many: 2: must have at most 1 item"],
    ),
    (
        "update unchanged-valued entry re-checked after reorder",
        {"topology": [{"key": "-bad"}]},
        {"topology": [{"key": "zone"}, {"key": "-bad"}]},
        [f'{C}.topology[0].key: Invalid value: "-bad": {NAME_PART_REGEX_MSG}'],
    ),
    ("update unset and empty are equal", {"topology": []}, {}, []),
    ("update fixed", {"topology": [{"key": "zone"}]}, {"topology": [{"key": ""}]}, []),
]


@pytest.mark.parametrize(("new", "old", "expected"), [c[1:] for c in CONSTRAINTS], ids=[c[0] for c in CONSTRAINTS])
def test_validate_scheduling_constraints(new, old, expected) -> None:
    cls = V1alpha3WorkloadPodGroupSchedulingConstraints
    assert _strings(validate_scheduling_constraints(CONSTRAINTS_PATH, _model(cls, new), _model(cls, old))) == expected


@pytest.mark.parametrize(("new", "old", "expected"), [c[1:] for c in CONSTRAINTS], ids=[c[0] for c in CONSTRAINTS])
def test_validate_composite_scheduling_constraints(new, old, expected) -> None:
    cls = WorkloadCompositePodGroupSchedulingConstraints
    errs = validate_composite_scheduling_constraints(CONSTRAINTS_PATH, _model(cls, new), _model(cls, old))
    assert _strings(errs) == expected


# --- Validate_WorkloadPodGroupDisruptionMode and its composite twin ---

MODE_PATH = FieldPath("spec", "scheduling", "disruptionMode")
M = "spec.scheduling.disruptionMode"

MODES = [
    ("single", {"single": {}}, None, []),
    ("all", {"all": {}}, None, []),
    ("empty", {}, None, [f'{M}: Invalid value: "": {MODE_ONE_OF}']),
    ("single and all", {"single": {}, "all": {}}, None, [f'{M}: Invalid value: "{{single, all}}": {MODE_EXACTLY_ONE}']),
    ("update both, unchanged", {"single": {}, "all": {}}, {"single": {}, "all": {}}, []),
    ("update empty, unchanged", {}, {}, []),
    ("update single to all", {"all": {}}, {"single": {}}, []),
    (
        "update all added",
        {"single": {}, "all": {}},
        {"single": {}},
        [f'{M}: Invalid value: "{{single, all}}": {MODE_EXACTLY_ONE}'],
    ),
    ("update emptied", {}, {"all": {}}, [f'{M}: Invalid value: "": {MODE_ONE_OF}']),
    ("update fixed", {"single": {}}, {"single": {}, "all": {}}, []),
]


@pytest.mark.parametrize(("new", "old", "expected"), [c[1:] for c in MODES], ids=[c[0] for c in MODES])
def test_validate_disruption_mode(new, old, expected) -> None:
    cls = V1alpha3WorkloadPodGroupDisruptionMode
    assert _strings(validate_disruption_mode(MODE_PATH, _model(cls, new), _model(cls, old))) == expected


@pytest.mark.parametrize(("new", "old", "expected"), [c[1:] for c in MODES], ids=[c[0] for c in MODES])
def test_validate_composite_disruption_mode(new, old, expected) -> None:
    cls = WorkloadCompositePodGroupDisruptionMode
    assert _strings(validate_composite_disruption_mode(MODE_PATH, _model(cls, new), _model(cls, old))) == expected


# --- Validate_WorkloadPodGroupResourceClaim ---

CLAIM_PATH = FieldPath("spec", "scheduling", "resourceClaims").index(0)
R = "spec.scheduling.resourceClaims[0]"

CLAIMS = [
    # create
    ("claim name", {"name": "gpu", "resourceClaimName": "shared-gpu"}, None, []),
    ("template name", {"name": "gpu", "resourceClaimTemplateName": "gpu.example.com"}, None, []),
    ("no source", {"name": "gpu"}, None, [f'{R}: Invalid value: "": {CLAIM_ONE_OF}']),
    (
        "both sources",
        {"name": "gpu", "resourceClaimName": "a", "resourceClaimTemplateName": "b"},
        None,
        [f'{R}: Invalid value: "{{resourceClaimName, resourceClaimTemplateName}}": {CLAIM_EXACTLY_ONE}'],
    ),
    ("empty name", {"name": "", "resourceClaimName": "a"}, None, [f"{R}.name: Required value"]),
    (
        "uppercase name",
        {"name": "X", "resourceClaimName": "a"},
        None,
        [f'{R}.name: Invalid value: "X": {LABEL_REGEX_MSG}'],
    ),
    (
        "dotted name",
        {"name": "a.b", "resourceClaimName": "a"},
        None,
        [f'{R}.name: Invalid value: "a.b": must not contain dots'],
    ),
    (
        "name too long",
        {"name": "n" * 64, "resourceClaimName": "a"},
        None,
        [f'{R}.name: Invalid value: "{"n" * 64}": must be no more than 63 bytes'],
    ),
    (
        "empty claim name counts as set",
        {"name": "gpu", "resourceClaimName": ""},
        None,
        [f'{R}.resourceClaimName: Invalid value: "": {SUBDOMAIN_REGEX_MSG}'],
    ),
    (
        "bad template name",
        {"name": "gpu", "resourceClaimTemplateName": "Bad_Name"},
        None,
        [f'{R}.resourceClaimTemplateName: Invalid value: "Bad_Name": {SUBDOMAIN_REGEX_MSG}'],
    ),
    (
        "claim name too long",
        {"name": "gpu", "resourceClaimName": "c" * 254},
        None,
        [f'{R}.resourceClaimName: Invalid value: "{"c" * 254}": must be no more than 253 bytes'],
    ),
    (
        "everything wrong, in field order",
        {"name": "", "resourceClaimName": "", "resourceClaimTemplateName": ""},
        None,
        [
            f'{R}: Invalid value: "{{resourceClaimName, resourceClaimTemplateName}}": {CLAIM_EXACTLY_ONE}',
            f"{R}.name: Required value",
            f'{R}.resourceClaimName: Invalid value: "": {SUBDOMAIN_REGEX_MSG}',
            f'{R}.resourceClaimTemplateName: Invalid value: "": {SUBDOMAIN_REGEX_MSG}',
        ],
    ),
    # update
    ("update unchanged invalid claim", {"name": "X"}, {"name": "X"}, []),
    (
        "update unchanged invalid sources",
        {"name": "gpu", "resourceClaimName": "A", "resourceClaimTemplateName": "B"},
        {"name": "gpu", "resourceClaimName": "A", "resourceClaimTemplateName": "B"},
        [],
    ),
    (
        "update source changed to invalid",
        {"name": "gpu", "resourceClaimName": "Bad"},
        {"name": "gpu", "resourceClaimName": "ok"},
        [f'{R}.resourceClaimName: Invalid value: "Bad": {SUBDOMAIN_REGEX_MSG}'],
    ),
    (
        "update source switched",
        {"name": "gpu", "resourceClaimTemplateName": "Bad"},
        {"name": "gpu", "resourceClaimName": "Bad"},
        [f'{R}.resourceClaimTemplateName: Invalid value: "Bad": {SUBDOMAIN_REGEX_MSG}'],
    ),
    (
        "update source removed",
        {"name": "gpu"},
        {"name": "gpu", "resourceClaimName": "ok"},
        [f'{R}: Invalid value: "": {CLAIM_ONE_OF}'],
    ),
    (
        "update second source added next to an unchanged invalid one",
        {"name": "gpu", "resourceClaimName": "Bad", "resourceClaimTemplateName": "ok"},
        {"name": "gpu", "resourceClaimName": "Bad"},
        [f'{R}: Invalid value: "{{resourceClaimName, resourceClaimTemplateName}}": {CLAIM_EXACTLY_ONE}'],
    ),
    (
        "update name changed",
        {"name": "X", "resourceClaimName": "ok"},
        {"name": "gpu", "resourceClaimName": "ok"},
        [f'{R}.name: Invalid value: "X": {LABEL_REGEX_MSG}'],
    ),
]


@pytest.mark.parametrize(("new", "old", "expected"), [c[1:] for c in CLAIMS], ids=[c[0] for c in CLAIMS])
def test_validate_resource_claim(new, old, expected) -> None:
    cls = V1alpha3WorkloadPodGroupResourceClaim
    assert _strings(validate_resource_claim(CLAIM_PATH, _model(cls, new), _model(cls, old))) == expected
