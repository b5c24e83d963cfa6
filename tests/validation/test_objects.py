"""validate_workload on create: every rule of a Workload and its templates, with the apiserver's exact errors.

The hand-written template-tree rules and the warnings are tested in test_workload_rules.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from kubernetes.client import V1beta1PodGroupTemplate, V1beta1Workload, V1beta1WorkloadSpec, V1ObjectMeta
from objects_factories import (
    LABEL_KEY_3_PARTS,
    LONG_NAME,
    SHORT_NAME,
    changed,
    composite,
    composite_workload,
    leaf,
    strings,
    workload,
)

from workloadbuilder.validation.objects import validate_workload

T0 = "spec.podGroupTemplates[0]"
C0 = "spec.compositePodGroupTemplates[0]"
UNION_TEMPLATES = "`podGroupTemplates`, `compositePodGroupTemplates`"
ONE_COMPOSITE_PRIORITY = (
    "spec: Invalid value: null: all priority and priorityClassName values must be identical, detected multiple values"
)


def test_a_valid_leaf_workload_has_no_errors():
    obj = workload(
        leaf("leader", gang=1, disruptionMode={"all": {}}, priorityClassName="high-priority", priority=1000),
        leaf(
            "worker",
            gang=4,
            priorityClassName="high-priority",
            priority=1000,
            schedulingConstraints={"topology": [{"key": "topology.kubernetes.io/zone"}]},
            resourceClaims=[{"name": "gpus", "resourceClaimTemplateName": "gpu-template"}],
            preemptionPolicy="Never",
        ),
        controllerRef={"apiGroup": "batch", "kind": "Job", "name": "train"},
    )
    assert validate_workload(obj) == []


def test_a_valid_composite_workload_has_no_errors():
    replica = composite(
        "replica",
        leaf("leader", gang=1, disruptionMode={"all": {}}),
        leaf("workers", gang=4, disruptionMode={"all": {}}),
        gang=2,
        disruptionMode={"all": {}},
        schedulingConstraints={"topology": [{"key": "topology.kubernetes.io/zone"}]},
    )
    assert validate_workload(composite_workload(replica)) == []


def test_a_client_model_is_validated_like_its_json():
    model = V1beta1Workload(
        metadata=V1ObjectMeta(name="train"),
        spec=V1beta1WorkloadSpec(
            pod_group_templates=[V1beta1PodGroupTemplate(name="Worker", scheduling_policy={"basic": {}})]
        ),
    )
    assert strings(validate_workload(model)) == [f'{T0}.name: Invalid value: "Worker": {SHORT_NAME}']


CASES: list[tuple[str, dict[str, Any], list[str]]] = [
    # --- the spec union and the controller reference ---
    ("no-templates", workload(), [f'spec: Invalid value: "": must specify one of: {UNION_TEMPLATES}']),
    (
        "empty-template-lists",
        workload(podGroupTemplates=[], compositePodGroupTemplates=[]),
        [f'spec: Invalid value: "": must specify one of: {UNION_TEMPLATES}'],
    ),
    (
        "both-template-lists",
        workload(leaf("a"), compositePodGroupTemplates=[composite("c", leaf("b"))]),
        [
            f'spec: Invalid value: "{{podGroupTemplates, compositePodGroupTemplates}}": must specify exactly one of: '
            f"{UNION_TEMPLATES}"
        ],
    ),
    (
        "controller-ref-empty",
        workload(leaf(), controllerRef={}),
        ["spec.controllerRef.kind: Required value", "spec.controllerRef.name: Required value"],
    ),
    (
        "controller-ref-api-group",
        workload(leaf(), controllerRef={"apiGroup": "Batch", "kind": "Job", "name": "j"}),
        [f'spec.controllerRef.apiGroup: Invalid value: "Batch": {LONG_NAME}'],
    ),
    (
        "controller-ref-path-segments",
        workload(leaf(), controllerRef={"kind": "Job/v1", "name": "a%b/c"}),
        [
            "spec.controllerRef.kind: Invalid value: \"Job/v1\": may not contain '/'",
            "spec.controllerRef.name: Invalid value: \"a%b/c\": may not contain '/'",
            "spec.controllerRef.name: Invalid value: \"a%b/c\": may not contain '%'",
        ],
    ),
    (
        "controller-ref-dot",
        workload(leaf(), controllerRef={"kind": "Job", "name": "."}),
        ["spec.controllerRef.name: Invalid value: \".\": may not be '.'"],
    ),
    (
        "controller-ref-dot-dot",
        workload(leaf(), controllerRef={"kind": "..", "name": "j"}),
        ["spec.controllerRef.kind: Invalid value: \"..\": may not be '..'"],
    ),
    # --- template lists ---
    ("eight-templates", workload(*[leaf(f"t{i}") for i in range(8)]), []),
    (
        "nine-templates",
        workload(*[leaf(f"t{i}") for i in range(9)]),
        ["spec.podGroupTemplates: Too many: 9: must have at most 8 items"],
    ),
    (
        "nine-composite-templates",
        composite_workload(*[composite(f"c{i}", leaf(f"l{i}")) for i in range(9)]),
        ["spec.compositePodGroupTemplates: Too many: 9: must have at most 8 items"],
    ),
    (
        "nine-nested-leaves",
        composite_workload(composite("c", *[leaf(f"l{i}") for i in range(9)])),
        [f"{C0}.podGroupTemplates: Too many: 9: must have at most 8 items"],
    ),
    (
        "nine-nested-composites",
        composite_workload(composite("c", composites=[composite(f"n{i}", leaf(f"l{i}")) for i in range(9)])),
        [f"{C0}.compositePodGroupTemplates: Too many: 9: must have at most 8 items"],
    ),
    (
        "duplicate-template-in-a-list",
        workload(leaf("a"), leaf("b"), leaf("a", gang=2)),
        [
            "spec.podGroupTemplates[2]: Duplicate value: "
            '{"name":"a","schedulingPolicy":{"gang":{"minCount":2}},"schedulingConstraints":null}'
        ],
    ),
    (
        "duplicate-composite-in-a-list",
        composite_workload(composite("c", leaf("a")), composite("c", leaf("b"), preemptionPolicy="Never")),
        [
            (
                'spec.compositePodGroupTemplates[1]: Duplicate value: {"name":"c","schedulingPolicy":{"basic":{}},'
                '"preemptionPolicy":"Never",'
                '"podGroupTemplates":[{"name":"b","schedulingPolicy":{"basic":{}},"schedulingConstraints":null}]}'
            )
        ],
    ),
    # --- template names ---
    ("name-empty", workload(leaf("")), [f"{T0}.name: Required value"]),
    ("name-uppercase", workload(leaf("Worker")), [f'{T0}.name: Invalid value: "Worker": {SHORT_NAME}']),
    ("name-with-dots", workload(leaf("a.b")), [f'{T0}.name: Invalid value: "a.b": must not contain dots']),
    (
        "name-64-bytes",
        workload(leaf("a" * 64)),
        [f'{T0}.name: Invalid value: "{"a" * 64}": must be no more than 63 bytes'],
    ),
    (
        "composite-name",
        composite_workload(composite("-c", leaf("a"))),
        [f'{C0}.name: Invalid value: "-c": {SHORT_NAME}'],
    ),
    # --- scheduling policy ---
    (
        "policy-none",
        workload(leaf(schedulingPolicy={})),
        [f'{T0}.schedulingPolicy: Invalid value: "": must specify one of: `basic`, `gang`'],
    ),
    (
        "policy-both",
        workload(leaf(schedulingPolicy={"basic": {}, "gang": {"minCount": 2}})),
        [f'{T0}.schedulingPolicy: Invalid value: "{{basic, gang}}": must specify exactly one of: `basic`, `gang`'],
    ),
    (
        "min-count-missing",
        workload(leaf(schedulingPolicy={"gang": {}})),
        [f"{T0}.schedulingPolicy.gang.minCount: Required value"],
    ),
    ("min-count-zero", workload(leaf(gang=0)), [f"{T0}.schedulingPolicy.gang.minCount: Required value"]),
    (
        "min-count-negative",
        workload(leaf(gang=-3)),
        [f"{T0}.schedulingPolicy.gang.minCount: Invalid value: -3: must be greater than or equal to 1"],
    ),
    (
        "min-group-count-zero",
        composite_workload(composite("c", leaf("a"), gang=0)),
        [f"{C0}.schedulingPolicy.gang.minGroupCount: Required value"],
    ),
    (
        "min-group-count-negative",
        composite_workload(composite("c", leaf("a"), gang=-1)),
        [f"{C0}.schedulingPolicy.gang.minGroupCount: Invalid value: -1: must be greater than or equal to 1"],
    ),
    (
        "composite-policy-none",
        composite_workload(composite("c", leaf("a"), schedulingPolicy={})),
        [f'{C0}.schedulingPolicy: Invalid value: "": must specify one of: `basic`, `gang`'],
    ),
    # --- topology constraints ---
    ("topology-empty", workload(leaf(schedulingConstraints={"topology": []})), []),
    ("constraints-empty", workload(leaf(schedulingConstraints={})), []),
    (
        "topology-two",
        workload(leaf(schedulingConstraints={"topology": [{"key": "a"}, {"key": "Bad Key"}]})),
        [f"{T0}.schedulingConstraints.topology: Too many: 2: must have at most 1 item"],
    ),
    (
        "topology-key-empty",
        workload(leaf(schedulingConstraints={"topology": [{}]})),
        [f"{T0}.schedulingConstraints.topology[0].key: Required value"],
    ),
    (
        "topology-key-three-parts",
        workload(leaf(schedulingConstraints={"topology": [{"key": "a/b/c"}]})),
        [f'{T0}.schedulingConstraints.topology[0].key: Invalid value: "a/b/c": {LABEL_KEY_3_PARTS}'],
    ),
    (
        "topology-key-empty-prefix",
        workload(leaf(schedulingConstraints={"topology": [{"key": "/rack"}]})),
        [f'{T0}.schedulingConstraints.topology[0].key: Invalid value: "/rack": prefix part must be non-empty'],
    ),
    (
        "composite-topology-two",
        composite_workload(composite("c", leaf("a"), schedulingConstraints={"topology": [{"key": "a"}, {"key": "b"}]})),
        [f"{C0}.schedulingConstraints.topology: Too many: 2: must have at most 1 item"],
    ),
    # --- resource claims ---
    (
        "claims-four",
        workload(leaf(resourceClaims=[{"name": f"c{i}", "resourceClaimName": "x"} for i in range(4)])),
        [],
    ),
    (
        "claims-five",
        workload(leaf(resourceClaims=[{"name": "C"} for _ in range(5)])),
        [f"{T0}.resourceClaims: Too many: 5: must have at most 4 items"],
    ),
    (
        "claims-duplicate-name",
        workload(
            leaf(
                resourceClaims=[
                    {"name": "gpu", "resourceClaimName": "a"},
                    {"name": "gpu", "resourceClaimTemplateName": "b"},
                ]
            )
        ),
        [f'{T0}.resourceClaims[1]: Duplicate value: {{"name":"gpu","resourceClaimTemplateName":"b"}}'],
    ),
    (
        "claim-no-source",
        workload(leaf(resourceClaims=[{"name": "gpu"}])),
        [
            f'{T0}.resourceClaims[0]: Invalid value: "": must specify one of: `resourceClaimName`, '
            "`resourceClaimTemplateName`"
        ],
    ),
    (
        "claim-both-sources",
        workload(leaf(resourceClaims=[{"name": "gpu", "resourceClaimName": "a", "resourceClaimTemplateName": "b"}])),
        [
            (
                f'{T0}.resourceClaims[0]: Invalid value: "{{resourceClaimName, resourceClaimTemplateName}}": '
                "must specify exactly one of: `resourceClaimName`, `resourceClaimTemplateName`"
            )
        ],
    ),
    (
        "claim-name-empty",
        workload(leaf(resourceClaims=[{"resourceClaimName": "a"}])),
        [f"{T0}.resourceClaims[0].name: Required value"],
    ),
    (
        "claim-name-format",
        workload(leaf(resourceClaims=[{"name": "GPU", "resourceClaimName": "a"}])),
        [f'{T0}.resourceClaims[0].name: Invalid value: "GPU": {SHORT_NAME}'],
    ),
    (
        "claim-source-empty-string",
        workload(leaf(resourceClaims=[{"name": "gpu", "resourceClaimName": ""}])),
        [f'{T0}.resourceClaims[0].resourceClaimName: Invalid value: "": {LONG_NAME}'],
    ),
    (
        "claim-template-format",
        workload(leaf(resourceClaims=[{"name": "gpu", "resourceClaimTemplateName": "Gpu"}])),
        [f'{T0}.resourceClaims[0].resourceClaimTemplateName: Invalid value: "Gpu": {LONG_NAME}'],
    ),
    # --- disruption mode and priority ---
    (
        "mode-empty",
        workload(leaf(disruptionMode={})),
        [f'{T0}.disruptionMode: Invalid value: "": must specify one of: `single`, `all`'],
    ),
    (
        "mode-both",
        workload(leaf(disruptionMode={"single": {}, "all": {}})),
        [f'{T0}.disruptionMode: Invalid value: "{{single, all}}": must specify exactly one of: `single`, `all`'],
    ),
    (
        "priority-class-format",
        workload(leaf(priorityClassName="High")),
        [f'{T0}.priorityClassName: Invalid value: "High": {LONG_NAME}'],
    ),
    ("priority-maximum", workload(leaf(priority=1_000_000_000)), []),
    (
        "priority-too-high",
        workload(leaf(priority=1_000_000_001)),
        [f"{T0}.priority: Invalid value: 1000000001: must be less than or equal to 1000000000"],
    ),
    ("priority-negative", workload(leaf(priority=-5)), []),
    (
        "preemption-policy",
        workload(leaf(preemptionPolicy="Sometimes")),
        [f'{T0}.preemptionPolicy: Unsupported value: "Sometimes": supported values: "Never", "PreemptLowerPriority"'],
    ),
    (
        "composite-priority",
        composite_workload(composite("c", leaf("a"), priority=2_000_000_000, priorityClassName="x_y")),
        [
            ONE_COMPOSITE_PRIORITY,  # hand-written first: the leaf has no priority
            f'{C0}.priorityClassName: Invalid value: "x_y": {LONG_NAME}',
            f"{C0}.priority: Invalid value: 2000000000: must be less than or equal to 1000000000",
        ],
    ),
    # --- metadata ---
    (
        "no-name",
        changed(workload(leaf()), "metadata", {}),
        ["metadata.name: Required value: name or generateName is required"],
    ),
    ("generate-name", changed(workload(leaf()), "metadata", {"generateName": "train-"}), []),
    (
        "name-format",
        changed(workload(leaf()), "metadata.name", "Train"),
        [f'metadata.name: Invalid value: "Train": {LONG_NAME}'],
    ),
    (
        "namespace-format",
        changed(workload(leaf()), "metadata.namespace", "a.b"),
        ['metadata.namespace: Invalid value: "a.b": must not contain dots'],
    ),
]


@pytest.mark.parametrize(("obj", "expected"), [(o, e) for _, o, e in CASES], ids=[i for i, *_ in CASES])
def test_create_rules(obj: dict[str, Any], expected: list[str]):
    assert strings(validate_workload(obj)) == expected


DECODING_CASES: list[tuple[str, dict[str, Any], list[str]]] = [
    ("unknown-field", workload(leaf(minCont=3)), [f"{T0}.minCont: unknown field"]),
    ("snake-case", workload(leaf(priority_class_name="x")), [f"{T0}.priority_class_name: unknown field"]),
    (
        "wrong-type",
        workload(leaf(gang="4")),
        [f'{T0}.schedulingPolicy.gang.minCount: Invalid value: "4": must be of type integer'],
    ),
    (
        "int32-overflow",
        workload(leaf(priority=2**31)),
        [f"{T0}.priority: Invalid value: 2147483648: must be of type int32"],
    ),
    (
        "other-kind",
        changed(workload(leaf()), "kind", "PodGroup"),
        ['kind: Unsupported value: "PodGroup": supported values: "Workload"'],
    ),
    (
        "removed-version",
        changed(workload(leaf()), "apiVersion", "scheduling.k8s.io/v1alpha2"),
        [
            (
                'apiVersion: Invalid value: "scheduling.k8s.io/v1alpha2": Workload scheduling.k8s.io/v1alpha2 is not '
                "served by "
                "Kubernetes 1.37: the workloadbuilder migrate command rewrites it to scheduling.k8s.io/v1beta1"
            )
        ],
    ),
    (
        "unknown-version",
        changed(workload(leaf()), "apiVersion", "batch/v1"),
        [
            'apiVersion: Unsupported value: "batch/v1": supported values: "scheduling.k8s.io/v1alpha3", '
            '"scheduling.k8s.io/v1beta1"'
        ],
    ),
    ("v1alpha3-is-served", changed(workload(leaf()), "apiVersion", "scheduling.k8s.io/v1alpha3"), []),
    ("no-type-meta", changed(changed(workload(leaf()), "apiVersion", ...), "kind", ...), []),
]


@pytest.mark.parametrize(
    ("obj", "expected"), [(o, e) for _, o, e in DECODING_CASES], ids=[i for i, *_ in DECODING_CASES]
)
def test_decoding_comes_first(obj: dict[str, Any], expected: list[str]):
    assert strings(validate_workload(obj)) == expected


def test_hand_written_errors_come_first_then_the_declarative_ones():
    obj = changed(
        composite_workload(composite("c", leaf("c", gang=0), disruptionMode={"all": {}})), "metadata.name", "Bad"
    )
    assert strings(validate_workload(obj)) == [
        f'metadata.name: Invalid value: "Bad": {LONG_NAME}',
        f'{C0}.podGroupTemplates[0].name: Duplicate value: "c"',
        f"{C0}.podGroupTemplates[0].schedulingPolicy.gang.minCount: Required value",
    ]


def test_a_bad_argument_type_is_a_type_error():
    with pytest.raises(TypeError, match="expected a Workload as a kubernetes client model or a dict, got list"):
        validate_workload([])
