"""The declarative mapping of a custom resource to a WorkloadItem tree: where its blocks and counts live, in JSONPath.

A ``CRDMapping`` names the resource's ``apiVersion`` and ``kind`` and lists
its groups. Each ``GroupMapping`` becomes one WorkloadItem, or one per match
of its ``forEach`` JSONPath (``$.spec.roles[*]``: one group per role), and
says, relative to that element:

* ``name``: the template name, with ``{<jsonpath>}`` placeholders (``"{name}"``);
* ``scheduling``: where the four building blocks live (``scheduling``), and
  ``blocks`` their field names there (the Job's spelling by default);
* ``minCount``: the count a gang without ``minCount`` (or a composite gang
  without ``minGroupCount``) takes (``replicas``);
* ``pods``: for a leaf, the pod count, the controller's own labels on those
  pods, and the pod template to stamp with the PodGroup's name;
* ``groups``: the child groups, which make this group a composite.

A JSONPath starting with ``$`` reads from the object's root, any other from
the current element (a leading ``@.`` is allowed). Only ``forEach`` may
match several places; every other path names one place, so errors can be
reported there even when the field is missing. Mappings load from YAML
(``CRDMapping.from_yaml``) in camelCase, or are built in Python in
snake_case.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Annotated, Any

from jsonpath_ng import jsonpath
from jsonpath_ng.ext.parser import parse as parse_extended
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic.alias_generators import to_camel

from workloadbuilder import (
    BuildError,
    ConstraintsInput,
    DisruptionModeInput,
    FieldPath,
    PolicyInput,
    ResourceClaimsInput,
    SchedulingConfig,
    WorkloadInput,
    manifests,
)
from workloadbuilder.adapters.kit import MAX_PODS, composite_fields, elements_of, given_blocks, leaf_fields
from workloadbuilder.types import DisruptionModeOption, SchedulingPolicyOption

__all__ = [
    "BlockPaths",
    "CRDMapping",
    "GroupMapping",
    "Place",
    "PodsMapping",
    "find_all",
    "parse_place",
    "placeholders",
    "static_prefix",
]

Element = str | int

_PLACEHOLDER = re.compile(r"\{([^{}]+)\}")
_BLOCK_ATTRS = {
    "schedulingPolicy": "scheduling_policy",
    "schedulingConstraints": "scheduling_constraints",
    "disruptionMode": "disruption_mode",
    "resourceClaims": "resource_claims",
}
_COMPOSITE_BLOCKS = ("schedulingPolicy", "schedulingConstraints", "disruptionMode")
_LEAF_BLOCKS = (*_COMPOSITE_BLOCKS, "resourceClaims")


class Place(BaseModel):
    """A JSONPath that names one place, split into where it starts and its field names and indexes."""

    model_config = ConfigDict(frozen=True)

    absolute: bool
    elements: tuple[Element, ...]

    def resolve(self, base: tuple[Element, ...]) -> tuple[Element, ...]:
        """The place's elements from the object's root, for a path relative to ``base``."""
        return self.elements if self.absolute else base + self.elements


@functools.lru_cache(maxsize=512)
def parse_place(expression: str) -> Place:
    """Parse a one-place JSONPath (``$.spec.scheduling``, ``replicas``, ``@.template``).

    Raises:
        ValueError: it does not parse or may name several places.
    """
    absolute, text = _split(expression)
    if not text:
        return Place(absolute=absolute, elements=())
    try:
        return Place(absolute=absolute, elements=elements_of(text))
    except BuildError as err:
        raise ValueError(str(err)) from err


@functools.lru_cache(maxsize=128)
def _compiled(expression: str) -> tuple[bool, Any]:
    absolute, text = _split(expression)
    try:
        return absolute, parse_extended(text) if text else jsonpath.This()
    except Exception as err:  # jsonpath-ng raises plain Exceptions for syntax errors
        raise ValueError(f"invalid JSONPath {expression!r}: {err}") from err


def find_all(
    expression: str, root: Any, base: tuple[Element, ...], value: Any
) -> list[tuple[tuple[Element, ...], Any]]:
    """Every place a JSONPath matches, as (elements from the object's root, value), in document order.

    Args:
        expression: any JSONPath jsonpath-ng's extended grammar reads (wildcards, filters).
        root: the whole object, for an absolute path.
        base: where ``value`` sits in the object, for a relative path.
        value: the current element.
    """
    absolute, compiled = _compiled(expression)
    start, prefix = (root, ()) if absolute else (value, base)
    try:
        matches = compiled.find(start)
    except (IndexError, OverflowError):  # jsonpath-ng indexes with an index too large for a C integer
        return []  # past the end of any list, as a smaller index past the end is
    return [(prefix + elements_of(match.full_path), match.value) for match in matches]


def static_prefix(expression: str, base: tuple[Element, ...]) -> tuple[tuple[Element, ...], bool]:
    """The fixed part of a JSONPath before its first wildcard, slice or filter, and whether one follows.

    ``$.spec.roles[*]`` gives ``(("spec", "roles"), True)``: the list it iterates.
    """
    absolute, compiled = _compiled(expression)
    nodes: list[Any] = []
    node = compiled
    while isinstance(node, jsonpath.Child):
        nodes.insert(0, node.right)
        node = node.left
    nodes.insert(0, node)
    elements: list[Element] = []
    dynamic = False
    for part in nodes:
        if isinstance(part, (jsonpath.Root, jsonpath.This)):
            continue
        if isinstance(part, jsonpath.Fields) and len(part.fields) == 1 and part.fields[0] != "*":
            elements.append(part.fields[0])
        elif isinstance(part, jsonpath.Index) and len(getattr(part, "indices", ())) == 1:
            elements.append(part.indices[0])
        else:
            dynamic = True
            break
    return (tuple(elements) if absolute else base + tuple(elements)), dynamic


def placeholders(template: str) -> list[str]:
    """The JSONPaths inside ``{...}`` in a template such as ``"{$.metadata.name}-{name}"``."""
    return _PLACEHOLDER.findall(template)


def _split(expression: str) -> tuple[bool, str]:
    text = expression.strip()
    if text.startswith("$"):
        return True, text[1:].lstrip(".")
    if text.startswith("@"):
        return False, text[1:].lstrip(".")
    return False, text


def _check_place(value: str | None) -> str | None:
    if value is not None:
        parse_place(value)
    return value


def _check_template(value: str) -> str:
    for expression in placeholders(value):
        parse_place(expression)
    return value


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", alias_generator=to_camel, validate_by_name=True, validate_by_alias=True)


class PodsMapping(_Model):
    """Where a leaf group's pods come from, relative to the group's element.

    Attributes:
        count: a one-place JSONPath to how many pods the group has
            (``replicas``), or the number itself (``1`` for a head node).
        selector: the controller's own labels on those pods; values may hold
            ``{<jsonpath>}`` placeholders (``{"training.example.com/role": "{name}"}``).
        template: a one-place JSONPath to the pod template the controller
            makes the pods from; the compiled object has it stamped with the
            PodGroup's name. ``None``: the plan stamps nothing.
    """

    count: Annotated[int, Field(ge=0, le=MAX_PODS, strict=True)] | str
    selector: dict[str, str] = Field(default_factory=dict)
    template: str | None = None

    @field_validator("count", "template")
    @classmethod
    def _places(cls, value: int | str | None) -> int | str | None:
        return _check_place(value) if isinstance(value, str) else value

    @field_validator("selector")
    @classmethod
    def _selector(cls, value: dict[str, str]) -> dict[str, str]:
        for text in value.values():
            _check_template(text)
        return value


class BlockPaths(_Model):
    """The field names of the four building blocks below a group's ``scheduling`` place; ``None``: not in this API.

    A dotted name (``policy.scheduling``) goes down several fields.
    """

    scheduling_policy: str | None = "schedulingPolicy"
    scheduling_constraints: str | None = "schedulingConstraints"
    disruption_mode: str | None = "disruptionMode"
    resource_claims: str | None = "resourceClaims"

    @field_validator("*")
    @classmethod
    def _names(cls, value: str | None) -> str | None:
        if value is not None and (not value or any(not part for part in value.split("."))):
            raise ValueError(f"a block's place is one or more field names separated by dots, got {value!r}")
        return value

    def elements(self, block: str) -> list[str] | None:
        """The path elements of a block (by its JSON name, ``schedulingPolicy``), or ``None`` when not mapped."""
        value = getattr(self, _BLOCK_ATTRS[block])
        return value.split(".") if value is not None else None


class GroupMapping(_Model):
    """One group of the tree, or one per element ``for_each`` matches; see the module docstring.

    Attributes:
        name: the template name, with ``{<jsonpath>}`` placeholders.
        for_each: a JSONPath matching the elements this mapping makes one group of each.
        scheduling: a one-place JSONPath to where the blocks live; ``None``: the element itself.
        blocks: the blocks' field names there.
        defaults: the controller's default blocks (Kubernetes JSON, leaf or
            composite spelling by the group's kind); Basic unless given.
        min_count: a one-place JSONPath to the default gang size: a leaf's
            ``minCount`` (at least 1); a composite's ``minGroupCount``, which
            otherwise defaults to its number of child groups.
        priority_class_name: a one-place JSONPath to the group's priority class.
        pods: the group's pods (leaves only).
        groups: the child groups.
    """

    name: str
    for_each: str | None = None
    scheduling: str | None = None
    blocks: BlockPaths = Field(default_factory=BlockPaths)
    defaults: dict[str, Any] = Field(default_factory=lambda: {"schedulingPolicy": {"basic": {}}})
    min_count: str | None = None
    priority_class_name: str | None = None
    pods: PodsMapping | None = None
    groups: list[GroupMapping] = Field(default_factory=list)

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        return _check_template(value)

    @field_validator("scheduling", "min_count", "priority_class_name")
    @classmethod
    def _places(cls, value: str | None) -> str | None:
        return _check_place(value)

    @field_validator("for_each")
    @classmethod
    def _for_each(cls, value: str | None) -> str | None:
        if value is not None:
            _compiled(value)
        return value

    @model_validator(mode="after")
    def _shape(self) -> GroupMapping:
        if self.pods is not None and self.groups:
            raise ValueError(f"group {self.name!r} has child groups, so it owns no pods: drop pods")
        self.default_config()  # decodes the defaults, or raises
        return self

    @property
    def is_composite(self) -> bool:
        """Whether the group groups groups (it has child group mappings)."""
        return bool(self.groups)

    def default_config(self) -> SchedulingConfig:
        """The defaults as the IR.

        Raises:
            ValueError: an unknown block, or a block that does not decode.
        """
        problems = self._default_problems()
        if problems:
            raise ValueError(f"defaults of group {self.name!r}: " + "; ".join(str(p) for p in problems))
        given = self._defaults_input()
        fields = composite_fields(given) if self.is_composite else leaf_fields(given)
        return SchedulingConfig.model_validate(fields)

    def _defaults_input(self) -> WorkloadInput:
        """The defaults as a ``WorkloadInput``, each block at its JSON name (so errors read ``defaults.<block>``)."""
        key = "composite_pod_group_data" if self.is_composite else "pod_group_data"

        def block(name: str) -> dict[str, Any]:
            return {key: self.defaults.get(name), "path_elements": [name]}

        claims = [] if self.is_composite else self.defaults.get("resourceClaims") or []
        return WorkloadInput(
            policy=PolicyInput(**block("schedulingPolicy")),
            constraints=ConstraintsInput(**block("schedulingConstraints")),
            disruption_mode=DisruptionModeInput(**block("disruptionMode")),
            resource_claims=ResourceClaimsInput(pod_group_data=claims, path_elements=["resourceClaims"]),
        )

    def _default_problems(self) -> list[Any]:
        kind = "composite group" if self.is_composite else "group of pods"
        known = _COMPOSITE_BLOCKS if self.is_composite else _LEAF_BLOCKS
        unknown = [block for block in self.defaults if block not in known]
        problems: list[Any] = [f"{FieldPath('defaults', block)}: a {kind} has no such block" for block in unknown]
        for given in given_blocks(self._defaults_input(), FieldPath("defaults"), self.is_composite):
            problems.extend(given.decode_errors())
        return problems


class CRDMapping(_Model):
    """How one custom resource kind maps to a Workload; load it with ``from_yaml`` or build it in Python.

    Attributes:
        api_version: the resource's ``apiVersion`` (``training.example.com/v1``).
        kind: its ``kind``.
        groups: the top-level groups; several (or one ``for_each`` matching
            several elements) become one Workload with a template each.
        workload_name: the Workload's name as a template; by default
            ``<name>-<hash of uid>``, as the Job controller names its Workload.
        allowed_policies: the policies the controller supports (Basic and Gang by default).
        allowed_disruption_modes: the disruption modes it supports (Single and All by default).
    """

    api_version: str
    kind: str
    groups: list[GroupMapping] = Field(min_length=1)
    workload_name: str | None = None
    allowed_policies: list[SchedulingPolicyOption] = Field(
        default_factory=lambda: [SchedulingPolicyOption.BASIC, SchedulingPolicyOption.GANG]
    )
    allowed_disruption_modes: list[DisruptionModeOption] = Field(
        default_factory=lambda: [DisruptionModeOption.SINGLE, DisruptionModeOption.ALL]
    )

    @field_validator("workload_name")
    @classmethod
    def _workload_name(cls, value: str | None) -> str | None:
        return _check_template(value) if value is not None else None

    @classmethod
    def from_yaml(cls, source: str | Path) -> CRDMapping:
        """Load a mapping from a YAML file (a ``Path``, or a ``str`` naming an existing file) or YAML text.

        Raises:
            pydantic.ValidationError: the mapping is not valid, with the place of each problem.
            ManifestError: the text is not YAML (or not UTF-8), with the line.
        """
        data = manifests.read_data(Path(source) if isinstance(source, Path) or _is_file(source) else source)
        return cls.model_validate(data)


def _is_file(text: str) -> bool:
    return "\n" not in text and len(text) < 4096 and Path(text).is_file()
