"""Properties of random WorkloadItem trees: compilation mirrors the tree, nothing is mutated, bad input never raises."""

from __future__ import annotations

import copy
import itertools
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kubernetes.client import (
    V1alpha3WorkloadPodGroupDisruptionMode,
    V1alpha3WorkloadPodGroupResourceClaim,
    V1alpha3WorkloadPodGroupSchedulingConstraints,
    V1alpha3WorkloadPodGroupSchedulingPolicy,
    V1beta1CompositePodGroupTemplate,
    V1beta1PodGroupTemplate,
    V1beta1TopologyConstraint,
    V1beta1Workload,
)
from pydantic import BaseModel

from workloadbuilder import (
    Builder,
    BuildError,
    BuildOptions,
    ConstraintsInput,
    DisruptionModeInput,
    FieldPath,
    PolicyInput,
    ResourceClaimsInput,
    SchedulingConfig,
    WorkloadInput,
    WorkloadItem,
    to_dict,
    to_yaml,
)
from workloadbuilder._internal.decode import decode
from workloadbuilder.resolve import resolve_config
from workloadbuilder.types import (
    AllDisruptionMode,
    BasicSchedulingPolicy,
    DisruptionMode,
    DisruptionModeOption,
    GangSchedulingPolicy,
    ResourceClaim,
    SchedulingConstraints,
    SchedulingPolicy,
    SchedulingPolicyOption,
    SingleDisruptionMode,
    WorkloadCompositePodGroupDisruptionMode,
    WorkloadCompositePodGroupSchedulingConstraints,
    WorkloadCompositePodGroupSchedulingPolicy,
)

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
JUNK_SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

OWNER = {"apiVersion": "batch/v1", "kind": "Job", "name": "job", "uid": "job-uid"}
WORKLOAD_NAME = "wl"
NAMESPACE = "ns"


def options() -> BuildOptions:
    return BuildOptions(
        name=WORKLOAD_NAME,
        namespace=NAMESPACE,
        owner=OWNER,
        allowed_policies=[SchedulingPolicyOption.BASIC, SchedulingPolicyOption.GANG],
        allowed_disruption_modes=[DisruptionModeOption.SINGLE, DisruptionModeOption.ALL],
    )


MAX_DEPTH = 4
MAX_CHILDREN = 8
TOPOLOGY_KEYS = ["topology.kubernetes.io/zone", "topology.kubernetes.io/region", "kubernetes.io/hostname", "rack"]
NAMES = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8)
COUNTS = st.integers(min_value=1, max_value=10_000)
CLAIM_NAMES = ["gpu", "nic", "scratch", "cache", "model", "x1"]


# --- the plan: what a generated item is made of, as plain data ---


@dataclass
class Plan:
    """One generated item: its raw building-block inputs (as given) and the item built from them."""

    name: str
    path: FieldPath
    composite: bool
    blocks: dict[str, Any]  # "policy" | "constraints" | "disruption_mode" | "resource_claims" -> raw input
    elements: dict[str, list[str]]
    default: SchedulingConfig | None
    callbacks: list[Callable[[SchedulingConfig], None]]
    children: list[Plan] = field(default_factory=list)

    def item(self) -> WorkloadItem:
        data = "composite_pod_group_data" if self.composite else "pod_group_data"
        given = WorkloadInput(
            policy=PolicyInput(path_elements=self.elements["policy"], **{data: self.blocks.get("policy")}),
            constraints=ConstraintsInput(
                path_elements=self.elements["constraints"], **{data: self.blocks.get("constraints")}
            ),
            disruption_mode=DisruptionModeInput(
                path_elements=self.elements["disruption_mode"], **{data: self.blocks.get("disruption_mode")}
            ),
            resource_claims=ResourceClaimsInput(
                path_elements=self.elements["resource_claims"], pod_group_data=self.blocks.get("resource_claims")
            ),
        )
        return WorkloadItem(
            name=self.name,
            path=self.path,
            default_config=self.default,
            input=given,
            callbacks=list(self.callbacks),
            children=[child.item() for child in self.children],
        )


def walk(plan: Plan) -> Iterator[Plan]:
    yield plan
    for child in plan.children:
        yield from walk(child)


def walk_items(item: WorkloadItem) -> Iterator[WorkloadItem]:
    yield item
    for child in item.children:
        assert child is not None
        yield from walk_items(child)


# --- valid building blocks, as dicts in Kubernetes JSON spelling ---


def policy_blocks(composite: bool) -> st.SearchStrategy[dict[str, Any] | None]:
    count_field = "minGroupCount" if composite else "minCount"
    return st.one_of(
        st.none(),
        st.just({"basic": {}}),
        COUNTS.map(lambda n: {"gang": {count_field: n}}),
    )


CONSTRAINT_BLOCKS = st.one_of(
    st.none(),
    st.just({}),
    st.just({"topology": []}),
    st.sampled_from(TOPOLOGY_KEYS).map(lambda key: {"topology": [{"key": key}]}),
)
MODE_BLOCKS = st.sampled_from([None, {"single": {}}, {"all": {}}])


@st.composite
def claim_lists(draw: st.DrawFn) -> list[dict[str, Any]] | None:
    names = draw(st.lists(st.sampled_from(CLAIM_NAMES), max_size=3, unique=True))
    if not names and draw(st.booleans()):
        return None
    claims = []
    for name in names:
        source = draw(st.sampled_from(["resourceClaimName", "resourceClaimTemplateName"]))
        claims.append({"name": name, source: f"{name}-source"})
    return claims


def _default_configs() -> list[SchedulingConfig]:
    """Controller defaults to pick from; one pick is one draw, and items that pick the same one share it."""
    policies = [
        None,
        SchedulingPolicy(basic=BasicSchedulingPolicy()),
        SchedulingPolicy(gang=GangSchedulingPolicy(min_count=1)),
        SchedulingPolicy(gang=GangSchedulingPolicy(min_count=7)),
    ]
    topologies = [[], [TOPOLOGY_KEYS[0]]]
    modes = [None, DisruptionMode(single=SingleDisruptionMode()), DisruptionMode(all=AllDisruptionMode())]
    claim_sets = [[], ["dflt", "shared"]]
    priorities = [("", None, None), ("high", 5, "Never")]
    configs = []
    for policy, keys, mode, claims, (class_name, priority, preemption) in itertools.product(
        policies, topologies, modes, claim_sets, priorities
    ):
        configs.append(
            SchedulingConfig(
                policy=policy.model_copy(deep=True) if policy is not None else None,
                constraints=SchedulingConstraints(topology=[V1beta1TopologyConstraint(key=k) for k in keys])
                if keys
                else None,
                disruption_mode=mode.model_copy(deep=True) if mode is not None else None,
                resource_claims=[ResourceClaim(name=n, resource_claim_template_name=f"{n}-template") for n in claims],
                priority_class_name=class_name,
                priority=priority,
                preemption_policy=preemption,
            )
        )
    return configs


DEFAULT_CONFIGS = st.one_of(st.none(), st.sampled_from(_default_configs()))


def mutate_everything(cfg: SchedulingConfig) -> None:
    """A callback that changes every mutable part of what it is given, in place."""
    if cfg.policy is not None and cfg.policy.gang is not None and cfg.policy.gang.min_count is not None:
        cfg.policy.gang.min_count += 1
    if cfg.constraints is not None:
        cfg.constraints.topology.append(V1beta1TopologyConstraint(key="mutated"))
    for claim in cfg.resource_claims:
        claim.name = claim.name + "-x"
    cfg.resource_claims.append(ResourceClaim(name="added", resource_claim_name="added-claim"))
    cfg.priority_class_name = "mutated"


def do_nothing(cfg: SchedulingConfig) -> None:
    """A callback that leaves the resolved config as it is."""


CALLBACKS = st.lists(st.sampled_from([mutate_everything, do_nothing]), max_size=2)
NAMED_ELEMENTS = {
    "policy": ["schedulingPolicy"],
    "constraints": ["schedulingConstraints"],
    "disruption_mode": ["disruptionMode"],
    "resource_claims": ["resourceClaims"],
}
ELEMENT_LAYOUTS = st.sampled_from(
    [
        {block: [] for block in NAMED_ELEMENTS},
        NAMED_ELEMENTS,
        {block: elements if block == "policy" else [] for block, elements in NAMED_ELEMENTS.items()},
    ]
)


def _resolved_kind(user: dict[str, Any] | None, default: BaseModel | None, members: tuple[str, str]) -> str | None:
    """Which union member wins resolution for one block: the user's, else the default's."""
    if user:
        for member in members:
            if member in user:
                return member
    if default is not None:
        for member in members:
            if getattr(default, member) is not None:
                return member
    return None


def _keep_valid(blocks: dict[str, Any], default: SchedulingConfig | None) -> None:
    """Basic with `all` is a validation error: turn such a user mode into `single`, or set one."""
    policy = _resolved_kind(blocks.get("policy"), default.policy if default else None, ("basic", "gang"))
    mode = _resolved_kind(
        blocks.get("disruption_mode"), default.disruption_mode if default else None, ("single", "all")
    )
    if policy == "basic" and mode == "all":
        blocks["disruption_mode"] = {"single": {}}


@st.composite
def trees(draw: st.DrawFn, junk: bool = False, max_nodes: int = 20) -> Plan:
    """A random tree plan: depth <= 4, <= 8 children a node, unique lowercase names."""
    used: set[str] = set()
    budget = [draw(st.integers(min_value=1, max_value=max_nodes)) - 1]

    def node(depth: int) -> Plan:
        name = draw(NAMES.filter(lambda n: n not in used))
        used.add(name)
        n_children = 0
        if depth < MAX_DEPTH and budget[0] > 0:
            n_children = draw(st.integers(min_value=0, max_value=min(MAX_CHILDREN, budget[0])))
            budget[0] -= n_children
        children = [node(depth + 1) for _ in range(n_children)]
        composite = bool(children)
        default = draw(DEFAULT_CONFIGS)
        if junk:
            blocks = {
                "policy": draw(junk_or(policy_blocks(composite))),
                "constraints": draw(junk_or(CONSTRAINT_BLOCKS)),
                "disruption_mode": draw(junk_or(MODE_BLOCKS)),
            }
            if not composite:
                blocks["resource_claims"] = draw(junk_claims())
        else:
            blocks = {
                "policy": draw(policy_blocks(composite)),
                "constraints": draw(CONSTRAINT_BLOCKS),
                "disruption_mode": draw(MODE_BLOCKS),
            }
            if not composite:
                blocks["resource_claims"] = draw(claim_lists())
            _keep_valid(blocks, default)
        return Plan(
            name=name,
            path=FieldPath("spec", "groups").key(name),
            composite=composite,
            blocks=blocks,
            elements=draw(ELEMENT_LAYOUTS),
            default=default,
            callbacks=draw(CALLBACKS),
            children=children,
        )

    return node(1)


# --- junk: unknown keys and wrong types ---

JSON_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**40), max_value=2**40),
    st.floats(allow_nan=False),
    st.text(max_size=6),
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)
KNOWN_KEYS = ["basic", "gang", "minCount", "minGroupCount", "topology", "key", "single", "all", "min_count"]


@st.composite
def junk_dicts(draw: st.DrawFn) -> Any:
    """A block that is wrong somewhere: unknown keys, known keys with wrong values, or not an object at all."""
    kind = draw(st.sampled_from(["random-keys", "known-keys", "nested", "not-an-object"]))
    if kind == "random-keys":
        return draw(st.dictionaries(st.text(min_size=1, max_size=8), JSON_VALUES, min_size=1, max_size=4))
    if kind == "known-keys":
        return draw(st.dictionaries(st.sampled_from(KNOWN_KEYS), JSON_VALUES, min_size=1, max_size=3))
    if kind == "nested":
        outer = draw(st.sampled_from(["gang", "basic", "single", "all", "topology"]))
        inner = draw(st.dictionaries(st.sampled_from([*KNOWN_KEYS, "bogus"]), JSON_VALUES, max_size=3))
        return {outer: [inner] if outer == "topology" else inner}
    return draw(st.one_of(st.lists(JSON_VALUES, max_size=3), JSON_SCALARS.filter(lambda v: v is not None)))


def junk_or(valid: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(valid, junk_dicts())


def junk_claims() -> st.SearchStrategy[Any]:
    return st.one_of(
        claim_lists(),
        st.lists(st.one_of(junk_dicts(), st.just({"name": "ok", "resourceClaimName": "c"})), min_size=1, max_size=3),
        JSON_SCALARS.filter(lambda v: v not in (None, "", 0, False)),
    )


# --- helpers on compiled objects ---

Template = V1beta1PodGroupTemplate | V1beta1CompositePodGroupTemplate


def root_template(workload: V1beta1Workload) -> tuple[Template, bool]:
    spec = workload.spec
    leaves, composites = spec.pod_group_templates or [], spec.composite_pod_group_templates or []
    assert len(leaves) + len(composites) == 1
    return (leaves[0], False) if leaves else (composites[0], True)


def all_templates(workload: V1beta1Workload) -> Iterator[tuple[Template, bool]]:
    def visit(template: Template, composite: bool) -> Iterator[tuple[Template, bool]]:
        yield template, composite
        if composite:
            for leaf in template.pod_group_templates or []:
                yield leaf, False
            for child in template.composite_pod_group_templates or []:
                yield from visit(child, True)

    yield from visit(*root_template(workload))


def assert_mirrors(template: Template, is_composite: bool, item: WorkloadItem) -> None:
    """The template subtree has the item subtree's names, kinds and (per kind) order."""
    assert template.name == item.name
    assert is_composite == item.is_composite
    if not is_composite:
        assert isinstance(template, V1beta1PodGroupTemplate)
        return
    assert isinstance(template, V1beta1CompositePodGroupTemplate)
    children = [c for c in item.children if c is not None]
    leaf_children = [c for c in children if not c.is_composite]
    composite_children = [c for c in children if c.is_composite]
    leaves = template.pod_group_templates or []
    composites = template.composite_pod_group_templates or []
    assert [t.name for t in leaves] == [c.name for c in leaf_children]
    assert [t.name for t in composites] == [c.name for c in composite_children]
    for leaf, child in zip(leaves, leaf_children, strict=True):
        assert_mirrors(leaf, False, child)
    for composite, child in zip(composites, composite_children, strict=True):
        assert_mirrors(composite, True, child)


def snapshot(item: WorkloadItem) -> list[tuple[str, dict[str, Any], dict[str, Any] | None]]:
    return [
        (
            node.name,
            node.input.model_dump(warnings=False),
            node.default_config.model_dump(warnings=False) if node.default_config is not None else None,
        )
        for node in walk_items(item)
    ]


# --- properties of valid trees: one generated tree is checked for every invariant ---


def check_build_mirrors_the_tree(plan: Plan, root: WorkloadItem, workload: V1beta1Workload) -> None:
    template, is_composite = root_template(workload)
    assert_mirrors(template, is_composite, root)
    names = Counter(t.name for t, _ in all_templates(workload))
    assert names == Counter(p.name for p in walk(plan))
    assert set(names.values()) == {1}


def check_building_again(builder: Builder, root: WorkloadItem, workload: V1beta1Workload) -> None:
    assert builder.build_workload() is workload
    again = Builder(root, options()).build_workload()
    assert again is not workload
    assert again == workload


def check_validate_is_empty_and_deterministic(builder: Builder, root: WorkloadItem, plan: Plan) -> None:
    assert builder.validate() == []
    assert builder.validate() == []
    assert builder.validate(old_root=root) == []
    assert Builder(plan.item(), options()).validate(old_root=root) == []


def check_resolution_is_repeatable(root: WorkloadItem) -> None:
    for item in walk_items(root):
        first = resolve_config(item)
        assert resolve_config(item) == first
        assert first is not item.default_config


def check_materialization(builder: Builder, workload: V1beta1Workload) -> None:
    """Every template becomes a runtime group carrying exactly its scheduling fields, as a copy."""
    before = to_dict(workload.model_copy(deep=True))
    owner = options().owner
    for template, is_composite in all_templates(workload):
        name = f"{template.name}-0"
        expected = to_dict(template)
        expected.pop("name")
        if is_composite:
            group = builder.new_composite_pod_group(name, template.name)
            expected.pop("podGroupTemplates", None)
            expected.pop("compositePodGroupTemplates", None)
        else:
            group = builder.new_pod_group(name, template.name)
        spec = to_dict(group.spec)
        assert spec.pop("workloadRef") == {"workloadName": WORKLOAD_NAME, "templateName": template.name}
        assert spec == expected
        assert (group.metadata.name, group.metadata.namespace, group.metadata.owner_references) == (
            name,
            NAMESPACE,
            [owner],
        )
        gang = group.spec.scheduling_policy.gang
        if gang is not None:  # the group is a copy: changing it leaves the cached Workload alone
            if is_composite:
                gang.min_group_count += 1
            else:
                gang.min_count += 1
    assert to_dict(workload) == before


def check_yaml_is_byte_identical(plan: Plan, builder: Builder, workload: V1beta1Workload) -> None:
    """The Workload and a runtime group dump to the same bytes twice, and from a fresh compilation."""
    other = Builder(plan.item(), options())
    rebuilt = other.build_workload()
    template, is_composite = root_template(workload)
    if is_composite:
        ours = builder.new_composite_pod_group("g-0", template.name)
        theirs = other.new_composite_pod_group("g-0", template.name)
    else:
        ours = builder.new_pod_group("g-0", template.name)
        theirs = other.new_pod_group("g-0", template.name)
    text = to_yaml([workload, ours])
    assert to_yaml([workload, ours]) == text
    assert to_yaml([rebuilt, theirs]) == text


@SETTINGS
@given(trees())
def test_valid_tree_invariants(plan: Plan):
    raw_blocks = [copy.deepcopy(p.blocks) for p in walk(plan)]
    root = plan.item()
    before = snapshot(root)
    builder = Builder(root, options())
    workload = builder.build_workload()

    check_build_mirrors_the_tree(plan, root, workload)
    check_building_again(builder, root, workload)
    check_validate_is_empty_and_deterministic(builder, root, plan)
    check_resolution_is_repeatable(root)
    check_materialization(builder, workload)
    check_yaml_is_byte_identical(plan, builder, workload)

    # Nothing above changed the caller's inputs, the dicts they came from, or the defaults.
    assert snapshot(root) == before
    assert [p.blocks for p in walk(plan)] == raw_blocks


# --- properties of trees with junk input ---


def _under(error_field: str, prefix: str) -> bool:
    return error_field == prefix or error_field.startswith((prefix + ".", prefix + "["))


BLOCK_MODELS = {
    ("policy", False): V1alpha3WorkloadPodGroupSchedulingPolicy,
    ("constraints", False): V1alpha3WorkloadPodGroupSchedulingConstraints,
    ("disruption_mode", False): V1alpha3WorkloadPodGroupDisruptionMode,
    ("policy", True): WorkloadCompositePodGroupSchedulingPolicy,
    ("constraints", True): WorkloadCompositePodGroupSchedulingConstraints,
    ("disruption_mode", True): WorkloadCompositePodGroupDisruptionMode,
}


def undecodable_block_paths(plan: Plan) -> list[str]:
    """Where each block of the tree that cannot be decoded lives."""
    paths = []
    for node in walk(plan):
        for block, raw in node.blocks.items():
            if raw is None:
                continue
            if block == "resource_claims":
                bad = not isinstance(raw, list) or any(
                    decode(V1alpha3WorkloadPodGroupResourceClaim, claim)[1] for claim in raw
                )
            else:
                bad = bool(decode(BLOCK_MODELS[(block, node.composite)], raw)[1])
            if bad:
                paths.append(str(node.path.child(*node.elements[block])) if node.elements[block] else str(node.path))
    return paths


def check_validate_reports_under_item_paths(plan: Plan, root: WorkloadItem) -> list[str]:
    found = Builder(root, options()).validate()
    errors, fields = [str(e) for e in found], [e.field for e in found]
    assert [str(e) for e in Builder(root, options()).validate()] == errors
    item_paths = [str(p.path) for p in walk(plan)]
    for error, error_field in zip(errors, fields, strict=True):
        assert any(_under(error_field, path) for path in item_paths), error
    for block_path in undecodable_block_paths(plan):
        assert any(_under(error_field, block_path) for error_field in fields), block_path
    return errors


def check_no_op_callbacks_change_nothing(root: WorkloadItem, errors: list[str]) -> None:
    """Validation takes a shortcut for items without callbacks; it must agree with full resolution."""
    with_callbacks = root.model_copy(deep=True)
    for item in walk_items(with_callbacks):
        item.callbacks = [do_nothing]
    assert [str(e) for e in Builder(with_callbacks, options()).validate()] == errors


def check_build_raises_only_build_error(plan: Plan, root: WorkloadItem) -> None:
    try:
        workload = Builder(root, options()).build_workload()
    except BuildError as error:
        message = str(error)
    else:
        assert isinstance(workload, V1beta1Workload)
        assert undecodable_block_paths(plan) == []
        return
    assert message != ""


@JUNK_SETTINGS
@given(trees(junk=True, max_nodes=10))
def test_junk_input_never_raises_and_is_reported_under_the_items_paths(plan: Plan):
    for node in walk(plan):
        node.callbacks = []
    root = plan.item()
    before = snapshot(root)

    errors = check_validate_reports_under_item_paths(plan, root)
    check_no_op_callbacks_change_nothing(root, errors)
    check_build_raises_only_build_error(plan, root)

    assert snapshot(root) == before
