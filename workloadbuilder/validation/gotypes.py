"""The Go shape of the compiled scheduling types, for Go semantics on Kubernetes JSON.

Validation reads objects as Kubernetes JSON (dicts), but the apiserver's
rules are written against Go structs: a missing string is ``""``, a missing
pointer is ``nil``, ``nil`` and empty lists are the same, and a ``Duplicate``
error shows the whole Go struct as ``json.Marshal`` writes it (declaration
order, ``omitempty`` honoured, ``null`` for an unset pointer without it).
``canonical`` puts a dict into that shape, so plain ``==`` is
``equality.Semantic.DeepEqual``; ``go_value`` renders a canonical struct as
Go would print it in an error.

The shapes are those of ``scheduling.k8s.io/v1beta1`` (``v1alpha3`` has the
same fields and tags), and of the ``v1alpha3`` building blocks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from workloadbuilder._internal.decode import json_attributes, to_json_dict

__all__ = ["GoStruct", "canonical", "go_value"]

# Field kinds: a Go string or int32 value, a pointer to one, a struct value or
# pointer, a pointer to an empty struct (`basic: {}`), a list of structs, and
# opaque JSON (conditions, which nothing here validates).
_STR, _INT, _PSTR, _PINT, _STRUCT, _PSTRUCT, _EMPTY, _LIST, _JSON = (
    "string",
    "int32",
    "*string",
    "*int32",
    "struct",
    "*struct",
    "*{}",
    "[]",
    "json",
)


@dataclass(frozen=True)
class _Field:
    name: str
    kind: str
    type: str = ""
    omitempty: bool = True


def _f(name: str, kind: str, type_: str = "", omitempty: bool = True) -> _Field:
    return _Field(name, kind, type_, omitempty)


_TYPES: dict[str, tuple[_Field, ...]] = {
    "WorkloadSpec": (
        _f("controllerRef", _PSTRUCT, "TypedLocalObjectReference"),
        _f("podGroupTemplates", _LIST, "PodGroupTemplate", omitempty=False),
        _f("compositePodGroupTemplates", _LIST, "CompositePodGroupTemplate"),
    ),
    "TypedLocalObjectReference": (
        _f("apiGroup", _STR),
        _f("kind", _STR, omitempty=False),
        _f("name", _STR, omitempty=False),
    ),
    "PodGroupTemplate": (
        _f("name", _STR, omitempty=False),
        _f("schedulingPolicy", _STRUCT, "PodGroupSchedulingPolicy", omitempty=False),
        _f("schedulingConstraints", _PSTRUCT, "PodGroupSchedulingConstraints", omitempty=False),
        _f("resourceClaims", _LIST, "PodGroupResourceClaim"),
        _f("disruptionMode", _PSTRUCT, "DisruptionMode"),
        _f("priorityClassName", _STR),
        _f("priority", _PINT),
        _f("preemptionPolicy", _PSTR),
    ),
    "CompositePodGroupTemplate": (
        _f("name", _STR, omitempty=False),
        _f("schedulingPolicy", _STRUCT, "CompositePodGroupSchedulingPolicy", omitempty=False),
        _f("schedulingConstraints", _PSTRUCT, "PodGroupSchedulingConstraints"),
        _f("disruptionMode", _PSTRUCT, "DisruptionMode"),
        _f("priorityClassName", _STR),
        _f("priority", _PINT),
        _f("preemptionPolicy", _PSTR),
        _f("podGroupTemplates", _LIST, "PodGroupTemplate"),
        _f("compositePodGroupTemplates", _LIST, "CompositePodGroupTemplate"),
    ),
    "PodGroupSchedulingPolicy": (
        _f("basic", _EMPTY),
        _f("gang", _PSTRUCT, "GangSchedulingPolicy"),
    ),
    "GangSchedulingPolicy": (_f("minCount", _INT, omitempty=False),),
    "CompositePodGroupSchedulingPolicy": (
        _f("basic", _EMPTY),
        _f("gang", _PSTRUCT, "CompositeGangSchedulingPolicy"),
    ),
    "CompositeGangSchedulingPolicy": (_f("minGroupCount", _INT, omitempty=False),),
    # The building blocks (scheduling.k8s.io/v1alpha3 Workload*): the gang counts are optional pointers there.
    "WorkloadPodGroupSchedulingPolicy": (
        _f("basic", _EMPTY),
        _f("gang", _PSTRUCT, "WorkloadPodGroupGangSchedulingPolicy"),
    ),
    "WorkloadPodGroupGangSchedulingPolicy": (_f("minCount", _PINT),),
    "WorkloadCompositePodGroupSchedulingPolicy": (
        _f("basic", _EMPTY),
        _f("gang", _PSTRUCT, "WorkloadCompositePodGroupGangSchedulingPolicy"),
    ),
    "WorkloadCompositePodGroupGangSchedulingPolicy": (_f("minGroupCount", _PINT),),
    # batch/v1 Job's spec.scheduling: the four leaf building blocks, embedded.
    "JobScheduling": (
        _f("schedulingPolicy", _PSTRUCT, "WorkloadPodGroupSchedulingPolicy"),
        _f("schedulingConstraints", _PSTRUCT, "PodGroupSchedulingConstraints"),
        _f("disruptionMode", _PSTRUCT, "DisruptionMode"),
        _f("resourceClaims", _LIST, "PodGroupResourceClaim"),
    ),
    "PodGroupSchedulingConstraints": (_f("topology", _LIST, "TopologyConstraint"),),
    "TopologyConstraint": (_f("key", _STR, omitempty=False),),
    "DisruptionMode": (_f("single", _EMPTY), _f("all", _EMPTY)),
    "PodGroupResourceClaim": (
        _f("name", _STR, omitempty=False),
        _f("resourceClaimName", _PSTR),
        _f("resourceClaimTemplateName", _PSTR),
    ),
    "WorkloadReference": (
        _f("workloadName", _STR, omitempty=False),
        _f("templateName", _STR, omitempty=False),
    ),
    "PodGroupSpec": (
        _f("parentCompositePodGroupName", _PSTR),
        _f("workloadRef", _PSTRUCT, "WorkloadReference"),
        _f("schedulingPolicy", _STRUCT, "PodGroupSchedulingPolicy", omitempty=False),
        _f("schedulingConstraints", _PSTRUCT, "PodGroupSchedulingConstraints"),
        _f("resourceClaims", _LIST, "PodGroupResourceClaim"),
        _f("disruptionMode", _PSTRUCT, "DisruptionMode"),
        _f("priorityClassName", _STR),
        _f("priority", _PINT),
        _f("preemptionPolicy", _PSTR),
    ),
    "CompositePodGroupSpec": (
        _f("parentCompositePodGroupName", _PSTR),
        _f("workloadRef", _PSTRUCT, "WorkloadReference", omitempty=False),
        _f("schedulingPolicy", _STRUCT, "CompositePodGroupSchedulingPolicy", omitempty=False),
        _f("schedulingConstraints", _PSTRUCT, "PodGroupSchedulingConstraints"),
        _f("disruptionMode", _PSTRUCT, "DisruptionMode"),
        _f("priorityClassName", _STR),
        _f("priority", _PINT),
        _f("preemptionPolicy", _PSTR),
    ),
    "PodGroupStatus": (
        _f("conditions", _JSON),
        _f("resourceClaimStatuses", _LIST, "PodGroupResourceClaimStatus"),
    ),
    "PodGroupResourceClaimStatus": (
        _f("name", _STR, omitempty=False),
        _f("resourceClaimName", _PSTR),
    ),
}


def canonical(type_name: str, value: Any) -> dict[str, Any]:
    """``value`` (a JSON dict, ``None`` for Go's zero struct, or a model) with each field of ``type_name`` in Go's form.

    Strings and integers get their zero value when missing or null, unset
    pointers are ``None``, empty lists become ``None`` (Go's semantic
    equality does not tell them apart), ``basic: {}`` and friends are ``{}``.
    Fields ``type_name`` does not declare are dropped: decode first to
    report them. A model is read field by field, as its JSON would be,
    without building that JSON.
    """
    data: Mapping[str, Any]
    if isinstance(value, BaseModel):
        data = {name: getattr(value, attr) for name, attr in json_attributes(type(value)).items()}
    else:
        data = value if isinstance(value, Mapping) else {}
    out: dict[str, Any] = {}
    for field in _TYPES[type_name]:
        raw = data.get(field.name)
        if field.kind == _STR:
            out[field.name] = raw if raw is not None else ""
        elif field.kind == _INT:
            out[field.name] = raw if raw is not None else 0
        elif field.kind in (_PSTR, _PINT):
            out[field.name] = raw
        elif field.kind == _JSON:
            out[field.name] = _json(raw)
        elif field.kind == _EMPTY:
            out[field.name] = None if raw is None else {}
        elif field.kind == _STRUCT:
            out[field.name] = canonical(field.type, raw)
        elif field.kind == _PSTRUCT:
            out[field.name] = None if raw is None else canonical(field.type, raw)
        else:  # a list of structs; a null element is Go's zero struct
            out[field.name] = [canonical(field.type, item) for item in raw] if raw else None
    return out


def _json(raw: Any) -> Any:
    """Opaque JSON as JSON: models read from a model's field are dumped."""
    if isinstance(raw, BaseModel):
        return to_json_dict(raw)
    if isinstance(raw, list):
        return [_json(item) for item in raw]
    return raw


class GoStruct:
    """A Go struct as ``json.Marshal`` writes it: fields in declaration order.

    ``gofmt.render_bad_value`` encodes an object with ``model_dump`` field by
    field in the order given, so a ``GoStruct`` inside a ``FieldError``
    renders as the apiserver's message does.
    """

    __slots__ = ("_fields",)

    def __init__(self, fields: list[tuple[str, Any]]) -> None:
        self._fields = fields

    def model_dump(self, **_: Any) -> dict[str, Any]:
        """The fields to encode, in order (``None`` is written ``null``)."""
        return dict(self._fields)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GoStruct) and self._fields == other._fields

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"GoStruct({self._fields!r})"


def _empty(kind: str, raw: Any) -> bool:
    """What ``omitempty`` leaves out: a zero string or number, a nil pointer, an empty list; never a struct."""
    if kind == _STR:
        return bool(raw == "")
    if kind == _INT:
        return bool(raw == 0)
    if kind == _STRUCT:
        return False
    return not raw if kind == _LIST else raw is None


def go_value(type_name: str, value: dict[str, Any]) -> GoStruct:
    """A canonical struct of ``type_name`` as Go's ``json.Marshal`` would write it, for an error's bad value."""
    fields: list[tuple[str, Any]] = []
    for field in _TYPES[type_name]:
        raw = value.get(field.name)
        if field.omitempty and _empty(field.kind, raw):
            continue
        if field.kind == _EMPTY:
            fields.append((field.name, None if raw is None else GoStruct([])))
        elif field.kind in (_STRUCT, _PSTRUCT):
            fields.append((field.name, None if raw is None else go_value(field.type, raw)))
        elif field.kind == _LIST:
            fields.append((field.name, None if raw is None else [go_value(field.type, item) for item in raw]))
        else:
            fields.append((field.name, raw))
    return GoStruct(fields)
