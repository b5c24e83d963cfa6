"""Update safety: what an apiserver says to an update, and the patch a running gang's resize sends.

After creation a Workload may gain or lose no template and change nothing
but a gang's ``minCount``; a PodGroup may change only its ``minCount``.
``check_update`` gives the apiserver's answer to ``old`` becoming ``new``
before the request is made; ``gang_resize_patch`` builds the one change that
is always allowed, as the Job controller does for a running gang Job.
"""

from __future__ import annotations

import copy
from typing import Any

from workloadbuilder import kinds
from workloadbuilder.decode import is_int
from workloadbuilder.errors import InvalidArgumentError, ResizeError
from workloadbuilder.field import ErrorList
from workloadbuilder.gofmt import go_quote
from workloadbuilder.validation.gates import FeatureGates
from workloadbuilder.validation.objects import (
    read_object,
    validate_composite_pod_group,
    validate_pod_group,
    validate_workload,
)
from workloadbuilder.walk import walk

__all__ = ["check_update", "gang_resize_patch"]

_VALIDATORS = {
    kinds.WORKLOAD: validate_workload,
    kinds.POD_GROUP: validate_pod_group,
    kinds.COMPOSITE_POD_GROUP: validate_composite_pod_group,
}


def check_update(old: Any, new: Any, gates: FeatureGates | None = None) -> ErrorList:
    """The errors a 1.37 apiserver returns for updating ``old`` to ``new``.

    Args:
        old: the stored Workload, PodGroup or CompositePodGroup (client model or dict).
        new: the object as it would be sent, of the same kind.
        gates: the feature gates in force; ``None`` turns every gate on.

    Returns:
        The errors, empty when the update would be accepted: for instance
        ``spec.podGroupTemplates: Forbidden: item may not be removed`` or
        ``spec.schedulingPolicy.basic: Invalid value: null: field is immutable``.

    Raises:
        InvalidArgumentError: the two are not of the same supported kind (or ``old`` does not decode).
    """
    kind = kinds.kind_of(old)
    if kind not in _VALIDATORS:
        raise InvalidArgumentError(
            f"old must be a Workload, PodGroup or CompositePodGroup (a client model, or a dict with its kind), not {kind}"
        )
    new_kind = kinds.kind_of(new) or kind
    if new_kind != kind:
        raise InvalidArgumentError(f"an update keeps the kind: old is a {kind}, new a {new_kind}")
    return _VALIDATORS[kind](new, old, gates)


def gang_resize_patch(obj: Any, new_min_count: int, template: str | None = None) -> dict[str, Any]:
    """The strategic-merge patch body that sets a gang's ``minCount`` and changes nothing else.

    For a PodGroup it is ``{"spec": {"schedulingPolicy": {"gang": {"minCount": N}}}}``.
    For a Workload it is what ``CreateTwoWayMergePatch`` gives, as the Job
    controller sends it: template lists carry no patch strategy, so the
    changed list is sent whole, with only the one ``minCount`` changed. Send
    it with ``Content-Type: application/strategic-merge-patch+json``. An
    object already at ``new_min_count`` gives ``{}``.

    Args:
        obj: a PodGroup or Workload (client model or dict).
        new_min_count: the new ``minCount``, at least 1.
        template: for a Workload, the name of the gang template to resize (at
            any depth); may be left out when the Workload has one gang template.

    Raises:
        ResizeError: ``new_min_count`` is below 1, the object (or template) is
            not a gang (basic and gang cannot flip), or the template is not
            found or not named when it must be.
        InvalidArgumentError: the object is of another kind.
    """
    if not is_int(new_min_count) or new_min_count < 1:
        raise ResizeError(f"minCount must be an integer of at least 1, not {new_min_count!r}")
    kind = kinds.kind_of(obj)
    if kind == kinds.POD_GROUP:
        data, errs = read_object(obj, kind)
        errs.raise_if_any()
        gang = ((data.get("spec") or {}).get("schedulingPolicy") or {}).get("gang")
        if gang is None:
            raise ResizeError("the PodGroup is not a gang: only a gang's minCount can change")
        return (
            {}
            if gang.get("minCount") == new_min_count
            else {"spec": {"schedulingPolicy": {"gang": {"minCount": new_min_count}}}}
        )
    if kind == kinds.WORKLOAD:
        return _workload_patch(obj, new_min_count, template)
    raise InvalidArgumentError(
        f"gang_resize_patch resizes a PodGroup or a Workload's template (a client model, or a dict with its kind), not {kind}"
    )


def _workload_patch(obj: Any, new_min_count: int, template: str | None) -> dict[str, Any]:
    data, errs = read_object(obj, kinds.WORKLOAD)
    errs.raise_if_any()
    spec = copy.deepcopy(data.get("spec") or {})
    gangs = [(top, t) for top, t in _leaves(spec) if (t.get("schedulingPolicy") or {}).get("gang") is not None]
    if template is None:
        if len(gangs) != 1:
            names = " ".join(t.get("name", "") for _, t in gangs)
            raise ResizeError(f"name the template to resize: the Workload has {len(gangs)} gang templates ({names})")
        top, target = gangs[0]
    else:
        found = [(top, t) for top, t in _leaves(spec) if t.get("name") == template]
        if not found:
            raise ResizeError(f"podGroupTemplate {go_quote(template)} not found in the Workload")
        top, target = found[0]
        if (target.get("schedulingPolicy") or {}).get("gang") is None:
            raise ResizeError(f"podGroupTemplate {go_quote(template)} is not a gang: only a gang's minCount can change")
    gang = target["schedulingPolicy"]["gang"]
    if gang.get("minCount") == new_min_count:
        return {}
    gang["minCount"] = new_min_count
    return {"spec": {top: spec[top]}}


def _leaves(spec: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Every leaf template with the top-level list it sits in (the list a patch must carry).

    A ``null`` entry (which decodes, as Go's JSON reads it, to an empty
    template) names no template and is skipped; the list is still sent whole.
    """
    return [(record.lineage()[0].list_name, record.node) for record in walk(spec) if not record.composite]
