"""Any custom resource, by a declarative mapping: ``CRDAdapter(CRDMapping)`` plans it like a built-in adapter.

The mapping (``adapters.crd.mapping``) says where the resource keeps each
group's building blocks and counts; the adapter reads them with every
node's path set to where they live, so the builder's errors, and the
adapter's own, come back at the resource's paths
(``spec.roles[1].scheduling.schedulingPolicy.gang.minCount``). On top of
the builder's checks the adapter reports, at those paths: template names
that are not DNS labels or repeat, counts of the wrong type, a gang larger
than its pods or its child groups, a gang with no size at all, claims on a
composite, a composite whose ``forEach`` matched nothing, and a pod template
that is not there to stamp.

Register an adapter for its ``apiVersion``/``kind`` with
``register(CRDAdapter(mapping))`` (or ``register_mapping(path)``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from workloadbuilder import (
    ConstraintsInput,
    DisruptionModeInput,
    ErrorList,
    FieldError,
    FieldPath,
    Hierarchy,
    PolicyInput,
    ResourceClaimsInput,
    SchedulingConfig,
    WorkloadInput,
    WorkloadItem,
)
from workloadbuilder.adapters._shared.blocks import plan_options
from workloadbuilder.adapters._shared.reading import Identity, at, identity_of, read_int
from workloadbuilder.adapters.base import Finding, Plan, PodAssignment, as_dict, register
from workloadbuilder.adapters.crd.mapping import (
    CRDMapping,
    GroupMapping,
    find_all,
    parse_place,
    placeholders,
    static_prefix,
)
from workloadbuilder.adapters.kit import (
    INT32_MAX,
    MAX_PODS,
    MAX_RUNTIME_GROUPS,
    duplicate,
    extend_path,
    field_path_of,
    forbidden,
    go_quote,
    invalid,
    long_name_errors,
    required,
    short_name_errors,
    to_json_dict,
    type_invalid,
)
from workloadbuilder.resolve import fill_gang_count, resolve_config
from workloadbuilder.runtime.delegation import stamp_pod_template
from workloadbuilder.runtime.naming import workload_name

__all__ = ["CRDAdapter", "register_mapping"]

Element = str | int
Elements = tuple[Element, ...]


@dataclass
class _Group:
    """One planned group: its mapping, where its element sits, its item and what it knows about its pods."""

    mapping: GroupMapping
    base: Elements
    item: WorkloadItem
    name_path: FieldPath | None
    children: list[_Group] = field(default_factory=list)
    pods: int | None = None
    pods_path: FieldPath | None = None
    selector: dict[str, str] = field(default_factory=dict)
    template_path: FieldPath | None = None


class CRDAdapter:
    """Plans the custom resource a ``CRDMapping`` describes; register it to make ``plan_object`` use it."""

    def __init__(self, mapping: CRDMapping) -> None:
        if not isinstance(mapping, CRDMapping):
            raise TypeError(
                f"CRDAdapter(): mapping must be a CRDMapping (CRDAdapter.from_yaml reads one from a file or text), "
                f"not {type(mapping).__name__}"
            )
        self.mapping = mapping
        self.api_version = mapping.api_version
        self.kind = mapping.kind

    @classmethod
    def from_yaml(cls, source: str | Path) -> CRDAdapter:
        """An adapter for the mapping in a YAML file or text (see ``CRDMapping.from_yaml``)."""
        return cls(CRDMapping.from_yaml(source))

    def plan(self, obj: Mapping[str, Any] | BaseModel, related: Sequence[Mapping[str, Any] | BaseModel] = ()) -> Plan:
        """Plan one resource: its groups, the Workload's identity and owner, its pods and their stamps.

        ``related`` is not read: a mapping describes one object.
        """
        data = as_dict(obj)
        errors, warnings = ErrorList(), ErrorList()
        ident = identity_of(data, errors, warnings)
        reader = _MappedObjectReader(data, errors)
        made = sum(reader.count(mapping, (), MAX_RUNTIME_GROUPS) for mapping in self.mapping.groups)
        if made > MAX_RUNTIME_GROUPS:  # refused before one group is made
            bound = f"the mapping makes more than {MAX_RUNTIME_GROUPS} groups of this object"
            errors.append(forbidden(_first_for_each(self.mapping.groups), f"{bound} (at most {MAX_RUNTIME_GROUPS})"))
            findings = [Finding(ident.ref, err) for err in errors]
            return Plan(source=data, roots=[], options=plan_options(ident, name=""), errors=findings)
        groups = [group for mapping in self.mapping.groups for group in reader.expand(mapping, ())]
        named, nested = reader.check_names(groups), reader.check_composites(groups)
        for group in _walk(groups):
            reader.check_sizes(group)
        options = plan_options(
            ident,
            name=self._workload_name(reader, ident),
            allowed_policies=self.mapping.allowed_policies,
            allowed_disruption_modes=self.mapping.allowed_disruption_modes,
        )
        leaves = [group for group in _walk(groups) if group.mapping.pods is not None]
        return Plan(
            source=data,
            roots=[group.item for group in groups] if named and nested else [],
            options=options,
            errors=[Finding(ident.ref, err) for err in errors],
            warnings=[Finding(ident.ref, err) for err in warnings],
            assign_pods=lambda hierarchy: _assignments(leaves, hierarchy),
            mutate_source=lambda source, hierarchy: _stamp(leaves, source, hierarchy),
        )

    def _workload_name(self, reader: _MappedObjectReader, ident: Identity) -> str:
        if self.mapping.workload_name is not None:
            name, path = reader.render(self.mapping.workload_name, ())
            problems = long_name_errors(path, name) if name else ErrorList()
            reader.errors.extend(problems)
            return "" if problems else name
        if ident.nameable:
            return workload_name(ident.name, ident.uid)
        return ""


def register_mapping(source: str | Path | CRDMapping) -> CRDAdapter:
    """Load a mapping (a YAML file or text, or a ``CRDMapping``) and register its adapter; returns the adapter.

    Raises:
        TypeError: ``source`` is neither a path, a string nor a ``CRDMapping``.
    """
    if not isinstance(source, str | Path | CRDMapping):
        raise TypeError(
            f"register_mapping(): source must be a path, YAML text or a CRDMapping, not {type(source).__name__}"
        )
    mapping = source if isinstance(source, CRDMapping) else CRDMapping.from_yaml(source)
    adapter = CRDAdapter(mapping)
    register(adapter)
    return adapter


_PODS_BOUND = f" (workloadbuilder plans at most {MAX_PODS} pods per object)"


class _MappedObjectReader:
    """Reads one object through a mapping, appending every problem to ``errors``."""

    def __init__(self, data: dict[str, Any], errors: ErrorList) -> None:
        self.data = data
        self.errors = errors
        self._ints: dict[Elements, int | None] = {}
        self.pods = 0  # pods of the leaves read so far: refused past MAX_PODS
        self.full = False

    def read_int(self, elements: Elements, maximum: int = INT32_MAX, why: str = "") -> int | None:
        """The non-negative integer at ``elements``; a bad value is reported once however often it is read."""
        if elements not in self._ints:
            self._ints[elements] = read_int(self.data, elements, self.errors, minimum=0, maximum=maximum, why=why)
        return self._ints[elements]

    def count(self, mapping: GroupMapping, base: Elements, budget: int) -> int:
        """How many groups ``mapping`` makes below ``base``, counted without making any, and no further than just
        past ``budget`` (a cartesian product of ``forEach`` stops as soon as it is too large)."""
        if mapping.for_each is None:
            bases = [base]
        else:
            container = at(self.data, static_prefix(mapping.for_each, base)[0])
            if container is not None and not isinstance(container, list):
                return 0  # reported when the groups are made
            bases = [elements for elements, _ in find_all(mapping.for_each, self.data, base, at(self.data, base))]
        total = 0
        for elements in bases:
            total += 1
            for sub in mapping.groups:
                if total > budget:
                    return total
                total += self.count(sub, elements, budget - total)
            if total > budget:
                return total
        return total

    def expand(self, mapping: GroupMapping, base: Elements) -> list[_Group]:
        """The groups one mapping makes below ``base``: one, or one per ``for_each`` match."""
        if mapping.for_each is None:
            return [self.group(mapping, base)]
        iterated, dynamic = static_prefix(mapping.for_each, base)
        container = at(self.data, iterated)
        if dynamic and container is not None and not isinstance(container, list):
            self._once(type_invalid(field_path_of(iterated), container, "must be of type array"))
            return []
        matches = find_all(mapping.for_each, self.data, base, at(self.data, base))
        return [self.group(mapping, elements) for elements, _ in matches]

    def group(self, mapping: GroupMapping, base: Elements) -> _Group:
        """The group of one element: its item, children and pods."""
        name, name_path = self.render(mapping.name, base)
        holder = parse_place(mapping.scheduling).resolve(base) if mapping.scheduling is not None else base
        if not isinstance(at(self.data, holder), (Mapping, type(None))):
            self._once(type_invalid(field_path_of(holder), at(self.data, holder), "must be of type object"))
        children = [child for sub in mapping.groups for child in self.expand(sub, base)]
        item = WorkloadItem(
            name=name,
            path=field_path_of(holder),
            default_config=self._defaults(mapping, base),
            input=self._input(mapping, holder),
            callbacks=[self._default_size(mapping, base, len(children))],
            children=[child.item for child in children],
        )
        group = _Group(mapping, base, item, name_path or item.path, children)
        if mapping.pods is not None:
            self._pods(group, base)
        return group

    def render(self, template: str, base: Elements) -> tuple[str, FieldPath | None]:
        """A template with its placeholders filled in, and the place of its first placeholder."""
        text, first = template, None
        for expression in placeholders(template):
            elements = parse_place(expression).resolve(base)
            path = field_path_of(elements)
            first = first or path
            value = at(self.data, elements)
            if value is None:
                self._once(required(path, f"{go_quote(template)} is made from it"))
            elif isinstance(value, bool) or not isinstance(value, (str, int)):
                self._once(type_invalid(path, value, "must be of type string"))
                value = None
            text = text.replace("{" + expression + "}", "" if value is None else str(value), 1)
        return text, first

    def _once(self, error: FieldError) -> None:
        """Report a problem with a field read by several templates (a name and a label) only once."""
        if not any(err.field == error.field for err in self.errors):
            self.errors.append(error)

    def _defaults(self, mapping: GroupMapping, base: Elements) -> SchedulingConfig:
        config = mapping.default_config()
        if mapping.priority_class_name is not None:
            elements = parse_place(mapping.priority_class_name).resolve(base)
            value = at(self.data, elements)
            if isinstance(value, str):
                config.priority_class_name = value
            elif value is not None:
                self.errors.append(type_invalid(field_path_of(elements), value, "must be of type string"))
        return config

    def _input(self, mapping: GroupMapping, holder: Elements) -> WorkloadInput:
        key = "composite_pod_group_data" if mapping.is_composite else "pod_group_data"
        blocks: dict[str, Any] = {}
        for block in ("schedulingPolicy", "schedulingConstraints", "disruptionMode", "resourceClaims"):
            elements = mapping.blocks.elements(block)
            blocks[block] = (elements, at(self.data, holder + tuple(elements)) if elements else None)
        claims_at, claims = blocks["resourceClaims"]
        if mapping.is_composite and claims is not None:
            path = extend_path(field_path_of(holder), claims_at)
            self.errors.append(forbidden(path, "resource claims belong to groups of pods, not to groups of groups"))
            claims = None
        return WorkloadInput(
            policy=PolicyInput(
                path_elements=blocks["schedulingPolicy"][0] or [], **{key: blocks["schedulingPolicy"][1]}
            ),
            constraints=ConstraintsInput(
                path_elements=blocks["schedulingConstraints"][0] or [], **{key: blocks["schedulingConstraints"][1]}
            ),
            disruption_mode=DisruptionModeInput(
                path_elements=blocks["disruptionMode"][0] or [], **{key: blocks["disruptionMode"][1]}
            ),
            resource_claims=ResourceClaimsInput(path_elements=claims_at or [], pod_group_data=claims),
        )

    def _default_size(self, mapping: GroupMapping, base: Elements, children: int) -> Any:
        count = children if mapping.is_composite else None
        if mapping.min_count is not None:
            read = self.read_int(parse_place(mapping.min_count).resolve(base))
            count = read if read is not None else count
        if count is not None and not mapping.is_composite:
            count = max(1, count)
        return fill_gang_count(count)

    def _pods(self, group: _Group, base: Elements) -> None:
        pods = group.mapping.pods
        assert pods is not None
        if isinstance(pods.count, int):
            group.pods = pods.count
        else:
            elements = parse_place(pods.count).resolve(base)
            group.pods_path = field_path_of(elements)
            group.pods = self.read_int(elements, MAX_PODS, _PODS_BOUND)
            if group.pods is None and at(self.data, elements) is None:
                self.errors.append(required(group.pods_path, "the number of pods of the group"))
        if group.pods is not None:
            self.pods += group.pods
            if self.pods > MAX_PODS and not self.full:
                self.full = True
                self.errors.append(
                    forbidden(
                        group.pods_path or group.item.path,
                        f"the mapping makes more than {MAX_PODS} pods of this object{_PODS_BOUND}",
                    )
                )
        group.selector = {label: self.render(value, base)[0] for label, value in pods.selector.items()}
        if pods.template is not None:
            elements = parse_place(pods.template).resolve(base)
            group.template_path = field_path_of(elements)
            if not isinstance(at(self.data, (*elements, "spec")), Mapping):
                self.errors.append(required(group.template_path, "the pod template to stamp with the PodGroup's name"))

    def check_names(self, groups: list[_Group]) -> bool:
        """Every template name a DNS label, none twice; ``False`` when one is empty or repeats (no tree then)."""
        seen: set[str] = set()
        unique = True
        for group in _walk(groups):
            name = group.item.name
            if not name:  # its placeholders are missing or of the wrong type, and already reported
                unique = False
                continue
            self.errors.extend(short_name_errors(group.name_path, name))
            if name in seen:
                self.errors.append(duplicate(group.name_path, name))
                unique = False
            seen.add(name)
        return unique

    def check_composites(self, groups: list[_Group]) -> bool:
        """Every composite mapping found child groups; ``False`` when one did not (it would turn into a leaf)."""
        shaped = True
        for group in _walk(groups):
            if group.mapping.is_composite and not group.children:
                expressions = [sub.for_each or sub.name for sub in group.mapping.groups]
                path = field_path_of(static_prefix(group.mapping.groups[0].for_each or "", group.base)[0])
                detail = f"group {go_quote(group.item.name)} needs at least one child group ({', '.join(expressions)})"
                self._once(required(path, detail))
                shaped = False
        return shaped

    def check_sizes(self, group: _Group) -> None:
        """A gang has a size, and is no larger than its pods (a leaf) or its child groups (a composite)."""
        config = resolve_config(group.item)
        gang = config.policy.gang if config.policy is not None else None
        if gang is None:
            return
        policy = extend_path(group.item.path, group.item.input.policy.path_elements)
        count_field = "minGroupCount" if group.mapping.is_composite else "minCount"
        at_count = extend_path(policy, ["gang", count_field])
        given = _given_count(group.item, count_field)
        if gang.min_count is None:
            self._unsized(group, at_count)
        elif group.mapping.is_composite and gang.min_count > len(group.children):
            detail = f"must be less than or equal to the number of child groups ({len(group.children)})"
            self.errors.append(invalid(at_count if given else policy, gang.min_count, detail))
        elif group.pods is not None and gang.min_count > group.pods:
            where = self._oversized_at(group, at_count if given else None, policy)
            if where is not None:
                bound = group.pods_path if group.pods_path is not None else f"the number of pods ({group.pods})"
                self.errors.append(invalid(where, gang.min_count, f"must be less than or equal to {bound}"))

    def _oversized_at(self, group: _Group, given_at: FieldPath | None, policy: FieldPath | None) -> FieldPath | None:
        """Where to report a gang larger than its pods: the user's count, the count it defaulted from, or the
        default policy; ``None`` when it defaulted from the pod count itself (raised to 1 for no pods: scaled to zero).
        """
        if given_at is not None:
            return given_at
        if group.mapping.min_count is None:
            return policy
        count_at = field_path_of(parse_place(group.mapping.min_count).resolve(group.base))
        return None if count_at == group.pods_path else count_at

    def _unsized(self, group: _Group, at_count: FieldPath | None) -> None:
        """A gang with no size: the count it defaults from is missing (or bad, already reported), or there is none."""
        if group.mapping.min_count is None:
            self.errors.append(required(at_count, "the gang has no size, and the mapping gives it no default"))
            return
        elements = parse_place(group.mapping.min_count).resolve(group.base)
        if at(self.data, elements) is None and not any(
            err.field == str(field_path_of(elements)) for err in self.errors
        ):
            self.errors.append(required(field_path_of(elements), "a gang without a size takes it from here"))


def _first_for_each(mappings: Sequence[GroupMapping]) -> FieldPath | None:
    """Where the first ``forEach`` of ``mappings`` (depth first) iterates: the place a product of them is reported."""
    for mapping in mappings:
        if mapping.for_each is not None:
            return field_path_of(static_prefix(mapping.for_each, ())[0])
        below = _first_for_each(mapping.groups)
        if below is not None:
            return below
    return None


def _given_count(item: WorkloadItem, count_field: str) -> bool:
    """Whether the user's own policy block sets the gang's count."""
    data = item.input.policy.composite_pod_group_data if item.is_composite else item.input.policy.pod_group_data
    data = to_json_dict(data) if isinstance(data, BaseModel) else data
    return at(data, ("gang", count_field)) is not None


def _walk(groups: list[_Group]) -> list[_Group]:
    out: list[_Group] = []
    for group in groups:
        out.append(group)
        out.extend(_walk(group.children))
    return out


def _assignments(leaves: list[_Group], hierarchy: Hierarchy) -> list[PodAssignment]:
    out = []
    for group in leaves:
        runtime = hierarchy.find(group.item.name)
        stamp = str(group.template_path) if group.template_path is not None else None
        out.append(PodAssignment(runtime.name, group.selector, group.pods or 0, stamp, group.item.name))
    return out


def _stamp(leaves: list[_Group], source: dict[str, Any], hierarchy: Hierarchy) -> ErrorList:
    errors = ErrorList()
    for group in leaves:
        if group.template_path is not None:
            errors.extend(stamp_pod_template(source, hierarchy.find(group.item.name).name, path=group.template_path))
    return errors
