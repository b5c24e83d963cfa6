"""Properties of object validation: valid objects stay valid through dump and load, one broken rule, one exact error."""

from __future__ import annotations

import copy
import itertools
from collections.abc import Callable, Iterator
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workloadbuilder import check_update
from workloadbuilder.manifests import dump, load
from workloadbuilder.runtime.resizing import gang_resize_patch
from workloadbuilder.validation.objects import validate_pod_group, validate_workload, workload_warnings

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])

SHORT_NAME = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end "
    "with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
LONG_NAME = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start "
    "and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
KEYS = ["kubernetes.io/hostname", "topology.kubernetes.io/zone", "topology.example.com/rack", "rack"]
MODES = st.sampled_from([None, {"single": {}}, {"all": {}}])

Template = dict[str, Any]


@st.composite
def _scheduling_fields(draw: st.DrawFn, all_parent: bool) -> dict[str, Any]:
    """The optional fields every template and group may carry; ``all_parent`` forces ``disruptionMode: all``."""
    fields: dict[str, Any] = {}
    mode = {"all": {}} if all_parent else draw(MODES)
    if mode is not None:
        fields["disruptionMode"] = mode
    if draw(st.booleans()):
        fields["schedulingConstraints"] = {"topology": [{"key": draw(st.sampled_from(KEYS))}]}
    if draw(st.booleans()):
        fields["priorityClassName"] = draw(st.sampled_from(["high", "low-priority", "system.batch"]))
    if draw(st.booleans()):
        fields["priority"] = draw(st.integers(min_value=-(2**31), max_value=1_000_000_000))
    if draw(st.booleans()):
        fields["preemptionPolicy"] = draw(st.sampled_from(["Never", "PreemptLowerPriority"]))
    return fields


@st.composite
def leaves(draw: st.DrawFn, name: str, all_parent: bool = False) -> Template:
    """A valid PodGroupTemplate named ``name``."""
    policy = {"gang": {"minCount": draw(st.integers(1, 1000))}} if draw(st.booleans()) else {"basic": {}}
    template: Template = {"name": name, "schedulingPolicy": policy, **draw(_scheduling_fields(all_parent))}
    claims = draw(st.integers(0, 4))
    if claims:
        source = draw(st.sampled_from(["resourceClaimName", "resourceClaimTemplateName"]))
        template["resourceClaims"] = [{"name": f"claim-{i}", source: f"source-{i}"} for i in range(claims)]
    return template


@st.composite
def composites(draw: st.DrawFn, names: Iterator[str], depth: int = 1, all_parent: bool = False) -> Template:
    """A valid CompositePodGroupTemplate at ``depth`` (1 at the top), with unique names from ``names``."""
    template: Template = {"name": next(names), **draw(_scheduling_fields(all_parent))}
    is_all = template.get("disruptionMode") == {"all": {}}
    children = [draw(leaves(next(names), is_all)) for _ in range(draw(st.integers(0 if depth < 4 else 1, 3)))]
    nested = [draw(composites(names, depth + 1, is_all)) for _ in range(draw(st.integers(0, 2)) if depth < 3 else 0)]
    if not children and not nested:
        children = [draw(leaves(next(names), is_all))]
    if children:
        template["podGroupTemplates"] = children
    if nested:
        template["compositePodGroupTemplates"] = nested
    count = len(children) + len(nested)
    template["schedulingPolicy"] = (
        {"gang": {"minGroupCount": draw(st.integers(1, count))}} if draw(st.booleans()) else {"basic": {}}
    )
    return template


@st.composite
def workloads(draw: st.DrawFn) -> dict[str, Any]:
    """A valid Workload: up to 8 leaf templates, or a tree of composite templates at most 4 levels deep."""
    names = (f"t{i}" for i in itertools.count())
    if draw(st.booleans()):
        spec = {"podGroupTemplates": [draw(leaves(next(names))) for _ in range(draw(st.integers(1, 8)))]}
    else:
        spec = {"compositePodGroupTemplates": [draw(composites(names)) for _ in range(draw(st.integers(1, 3)))]}
    if draw(st.booleans()):
        spec["controllerRef"] = {"apiGroup": "batch", "kind": "Job", "name": "train"}
    _one_priority(spec, draw(_scheduling_fields(False)))
    return {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "Workload",
        "metadata": {"name": "train", "namespace": "ml"},
        "spec": spec,
    }


def _one_priority(spec: dict[str, Any], fields: dict[str, Any]) -> None:
    """Give every template the same priorityClassName and priority (the apiserver refuses two)."""
    for _, template, _, _ in templates({"spec": spec}):
        for key in ("priorityClassName", "priority"):
            template.pop(key, None)
            if key in fields:
                template[key] = fields[key]


def one_priority_error(workload: dict[str, Any]) -> list[str]:
    """The error a second priority in ``workload`` gives: its wording says whether the tree has composites."""
    if len(templates(workload)) < 2:
        return []
    if "podGroupTemplates" in workload["spec"]:
        return ["spec: Invalid value: null: detected multiple priority configurations"]
    return [
        "spec: Invalid value: null: all priority and priorityClassName values must be identical, "
        "detected multiple values"
    ]


def templates(workload: dict[str, Any]) -> list[tuple[str, Template, bool, bool]]:
    """Every template in pre-order: ``(path, template, is composite, parent is all)``."""
    out: list[tuple[str, Template, bool, bool]] = []

    def walk(path: str, parent: dict[str, Any], parent_all: bool) -> None:
        for list_name in ("podGroupTemplates", "compositePodGroupTemplates"):
            for i, template in enumerate(parent.get(list_name, [])):
                template_path = f"{path}.{list_name}[{i}]"
                composite = list_name == "compositePodGroupTemplates"
                out.append((template_path, template, composite, parent_all))
                if composite:
                    walk(template_path, template, template.get("disruptionMode") == {"all": {}})

    walk("spec", workload["spec"], False)
    return out


# Each mutation breaks one rule of a template and returns the one error it must give.
Mutation = Callable[[str, Template, bool], str]


def _bad_name(path: str, template: Template, composite: bool) -> str:
    template["name"] = "Bad_Name"
    return f'{path}.name: Invalid value: "Bad_Name": {SHORT_NAME}'


def _both_policies(path: str, template: Template, composite: bool) -> str:
    template["schedulingPolicy"] = {"basic": {}, "gang": {"minGroupCount" if composite else "minCount": 1}}
    return f'{path}.schedulingPolicy: Invalid value: "{{basic, gang}}": must specify exactly one of: `basic`, `gang`'


def _no_policy(path: str, template: Template, composite: bool) -> str:
    template["schedulingPolicy"] = {}
    return f'{path}.schedulingPolicy: Invalid value: "": must specify one of: `basic`, `gang`'


def _zero_count(path: str, template: Template, composite: bool) -> str:
    count = "minGroupCount" if composite else "minCount"
    template["schedulingPolicy"] = {"gang": {count: 0}}
    return f"{path}.schedulingPolicy.gang.{count}: Required value"


def _negative_count(path: str, template: Template, composite: bool) -> str:
    count = "minGroupCount" if composite else "minCount"
    template["schedulingPolicy"] = {"gang": {count: -7}}
    return f"{path}.schedulingPolicy.gang.{count}: Invalid value: -7: must be greater than or equal to 1"


def _high_priority(path: str, template: Template, composite: bool) -> str:
    template["priority"] = 1_000_000_001
    return f"{path}.priority: Invalid value: 1000000001: must be less than or equal to 1000000000"


def _bad_class(path: str, template: Template, composite: bool) -> str:
    template["priorityClassName"] = "High"
    return f'{path}.priorityClassName: Invalid value: "High": {LONG_NAME}'


def _bad_preemption(path: str, template: Template, composite: bool) -> str:
    template["preemptionPolicy"] = "Sometimes"
    return f'{path}.preemptionPolicy: Unsupported value: "Sometimes": supported values: "Never", "PreemptLowerPriority"'


def _two_topologies(path: str, template: Template, composite: bool) -> str:
    template["schedulingConstraints"] = {"topology": [{"key": "zone"}, {"key": "rack"}]}
    return f"{path}.schedulingConstraints.topology: Too many: 2: must have at most 1 item"


def _empty_key(path: str, template: Template, composite: bool) -> str:
    template["schedulingConstraints"] = {"topology": [{"key": ""}]}
    return f"{path}.schedulingConstraints.topology[0].key: Required value"


def _unknown_field(path: str, template: Template, composite: bool) -> str:
    template["minCont"] = 3
    return f"{path}.minCont: unknown field"


MUTATIONS: list[Mutation] = [
    _bad_name,
    _both_policies,
    _no_policy,
    _zero_count,
    _negative_count,
    _high_priority,
    _bad_class,
    _bad_preemption,
    _two_topologies,
    _empty_key,
    _unknown_field,
]


@SETTINGS
@given(workloads())
def test_a_valid_workload_stays_valid_through_dump_and_load(obj: dict[str, Any]):
    assert validate_workload(obj) == []
    assert workload_warnings(obj) == []
    [model] = load(dump(obj))
    assert validate_workload(model) == []
    assert load(dump(model)) == [model]


@SETTINGS
@given(workloads(), st.data())
def test_one_broken_rule_gives_exactly_its_error(obj: dict[str, Any], data: st.DataObject):
    broken = copy.deepcopy(obj)
    path, template, composite, parent_all = data.draw(st.sampled_from(templates(broken)))
    mutations = MUTATIONS + ([] if parent_all else [_empty_mode])
    mutation = data.draw(st.sampled_from(mutations))
    expected = [mutation(path, template, composite)]
    if mutation in (_high_priority, _bad_class):  # the hand-written one-priority rule comes first
        expected = one_priority_error(broken) + expected
    assert [str(e) for e in validate_workload(broken)] == expected


def _empty_mode(path: str, template: Template, composite: bool) -> str:
    template["disruptionMode"] = {}
    return f'{path}.disruptionMode: Invalid value: "": must specify one of: `single`, `all`'


@SETTINGS
@given(workloads(), st.data())
def test_resizing_a_gang_is_always_accepted_and_nothing_else_changes(obj: dict[str, Any], data: st.DataObject):
    gangs = [t for _, t, composite, _ in templates(obj) if not composite and "gang" in t["schedulingPolicy"]]
    if gangs:
        template = data.draw(st.sampled_from(gangs))
        patch = gang_resize_patch(obj, data.draw(st.integers(1, 500)), template["name"])
        new = copy.deepcopy(obj)
        new["spec"].update(patch.get("spec", {}))
        assert check_update(obj, new) == []
    path, template, _, _ = data.draw(st.sampled_from(templates(obj)))
    changed = copy.deepcopy(obj)
    {p: t for p, t, *_ in templates(changed)}[path]["priority"] = 12345 if template.get("priority") != 12345 else 54321
    assert [str(e) for e in check_update(obj, changed)] == [
        *one_priority_error(obj),
        f"{path}.priority: Invalid value: null: field is immutable",
    ]


@st.composite
def pod_groups(draw: st.DrawFn) -> dict[str, Any]:
    """A valid PodGroup made from template ``t0`` of Workload ``train``."""
    spec = {k: v for k, v in draw(leaves("t0")).items() if k != "name"}
    spec["workloadRef"] = {"workloadName": "train", "templateName": "t0"}
    if draw(st.booleans()):
        spec["parentCompositePodGroupName"] = "train-replica-0"
    return {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": "train-t0-0"},
        "spec": spec,
    }


@SETTINGS
@given(pod_groups(), st.data())
def test_pod_groups_valid_then_one_rule_broken(obj: dict[str, Any], data: st.DataObject):
    assert validate_pod_group(obj) == []
    assert load(dump(obj)) == load(dump(load(dump(obj))))
    broken = copy.deepcopy(obj)
    spec = broken["spec"]
    mutation = data.draw(st.sampled_from([m for m in MUTATIONS if m is not _bad_name] + [_empty_mode]))
    expected = mutation("spec", spec, False)
    assert [str(e) for e in validate_pod_group(broken)] == [expected]
