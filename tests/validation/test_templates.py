"""A Workload's spec and its templates (``validation.templates.workload_spec``), called directly on canonical JSON.

The messages are the apiserver's; ``test_objects.py`` and ``test_update.py`` check the same rules through
``validate_workload``.
"""

from __future__ import annotations

from typing import Any

import pytest

from workloadbuilder.field import FieldPath
from workloadbuilder.validation.dv import Op
from workloadbuilder.validation.gates import FeatureGates
from workloadbuilder.validation.gotypes import canonical
from workloadbuilder.validation.templates import workload_spec

CREATE = Op(update=False, gates=FeatureGates.all())
UPDATE = Op(update=True, gates=FeatureGates.all())
CREATE_NO_GATES = Op(update=False, gates=FeatureGates())
SPEC = FieldPath("spec")
REF = {"kind": "Job", "name": "job"}


def leaf(name: str, **fields: Any) -> dict[str, Any]:
    return {"name": name, "schedulingPolicy": {"basic": {}}, **fields}


def composite(name: str, *leaves: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {"name": name, "schedulingPolicy": {"basic": {}}, "podGroupTemplates": list(leaves), **fields}


def errors(op: Op, spec: dict[str, Any], old: dict[str, Any] | None = None) -> list[str]:
    before = None if old is None else canonical("WorkloadSpec", old)
    return [str(e) for e in workload_spec(op, SPEC, canonical("WorkloadSpec", spec), before)]


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ({"controllerRef": REF, "podGroupTemplates": [leaf("a")]}, []),
        ({"podGroupTemplates": [leaf("a")]}, []),
        ({"controllerRef": REF, "compositePodGroupTemplates": [composite("set", leaf("a"))]}, []),
        ({"podGroupTemplates": [leaf(f"t{i}") for i in range(8)]}, []),
        (
            {"controllerRef": REF},
            ['spec: Invalid value: "": must specify one of: `podGroupTemplates`, `compositePodGroupTemplates`'],
        ),
        (
            {"podGroupTemplates": [leaf("a")], "compositePodGroupTemplates": [composite("b", leaf("c"))]},
            [
                'spec: Invalid value: "{podGroupTemplates, compositePodGroupTemplates}": must specify exactly one of:'
                " `podGroupTemplates`, `compositePodGroupTemplates`"
            ],
        ),
        (
            {"podGroupTemplates": [leaf(f"t{i}") for i in range(9)]},
            ["spec.podGroupTemplates: Too many: 9: must have at most 8 items"],
        ),
        (
            {"podGroupTemplates": [leaf("a"), leaf("a")]},
            [
                'spec.podGroupTemplates[1]: Duplicate value: {"name":"a","schedulingPolicy":{"basic":{}},'
                '"schedulingConstraints":null}'
            ],
        ),
        (
            {"podGroupTemplates": [{"name": ""}]},
            [
                "spec.podGroupTemplates[0].name: Required value",
                'spec.podGroupTemplates[0].schedulingPolicy: Invalid value: "": must specify one of: `basic`, `gang`',
            ],
        ),
        (
            {
                "compositePodGroupTemplates": [
                    composite("b", compositePodGroupTemplates=[composite("d", leaf("e", preemptionPolicy="x"))])
                ]
            },
            [
                "spec.compositePodGroupTemplates[0].compositePodGroupTemplates[0].podGroupTemplates[0]"
                '.preemptionPolicy: Unsupported value: "x": supported values: "Never", "PreemptLowerPriority"'
            ],
        ),
    ],
    ids=[
        "leaf",
        "no-controller-ref",
        "composite",
        "eight-templates",
        "no-template-list",
        "both-template-lists",
        "nine-templates",
        "duplicate-name",
        "empty-template",
        "nested-composite-reaches-the-leaves",
    ],
)
def test_workload_spec_on_create(spec: dict[str, Any], expected: list[str]) -> None:
    assert errors(CREATE, spec) == expected


def test_a_bad_template_name_is_a_dns_label() -> None:
    (message,) = errors(CREATE, {"podGroupTemplates": [leaf("A")]})
    assert message.startswith('spec.podGroupTemplates[0].name: Invalid value: "A": a lowercase RFC 1123 label')


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        (
            {"compositePodGroupTemplates": [composite("b", leaf("c"))]},
            ["spec.compositePodGroupTemplates: Forbidden: the CompositePodGroup feature gate is disabled"],
        ),
        (
            {"podGroupTemplates": [leaf("a", schedulingConstraints={"topology": [{"key": "zone"}]})]},
            [
                "spec.podGroupTemplates[0].schedulingConstraints: Forbidden: "
                "the TopologyAwareWorkloadScheduling feature gate is disabled"
            ],
        ),
        (
            {"podGroupTemplates": [leaf("a", preemptionPolicy="Never")]},
            [
                "spec.podGroupTemplates[0].preemptionPolicy: Forbidden: "
                "the PodGroupPreemptionPolicy feature gate is disabled"
            ],
        ),
    ],
    ids=["composite-list", "leaf-constraints", "preemption-policy"],
)
def test_gated_fields_with_the_gates_off(spec: dict[str, Any], expected: list[str]) -> None:
    assert errors(CREATE_NO_GATES, spec) == expected


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ({"podGroupTemplates": [leaf("a")]}, {"podGroupTemplates": [leaf("a")]}, []),
        (
            {"podGroupTemplates": [leaf("a")]},
            {"podGroupTemplates": [leaf("a"), leaf("b")]},
            ["spec.podGroupTemplates[1]: Forbidden: item may not be added"],
        ),
        (
            {"podGroupTemplates": [leaf("a")]},
            {"podGroupTemplates": [leaf("b")]},
            [
                "spec.podGroupTemplates[0]: Forbidden: item may not be added",
                "spec.podGroupTemplates: Forbidden: item may not be removed",
            ],
        ),
        (
            {"controllerRef": REF, "podGroupTemplates": [leaf("a")]},
            {"controllerRef": {"kind": "Job", "name": "other"}, "podGroupTemplates": [leaf("a")]},
            ["spec.controllerRef: Invalid value: null: field is immutable"],
        ),
        (
            {"podGroupTemplates": [leaf("a", disruptionMode={"single": {}})]},
            {"podGroupTemplates": [leaf("a", disruptionMode={"all": {}})]},
            ["spec.podGroupTemplates[0].disruptionMode: Invalid value: null: field is immutable"],
        ),
    ],
    ids=["unchanged", "template-added", "template-renamed", "controller-ref-changed", "mode-changed"],
)
def test_workload_spec_on_update(old: dict[str, Any], new: dict[str, Any], expected: list[str]) -> None:
    assert errors(UPDATE, new, old) == expected
