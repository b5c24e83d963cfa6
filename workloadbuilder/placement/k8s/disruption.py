"""PodDisruptionBudgets as kube-scheduler's preemption counts them.

A budget (``policy/v1``) matches the pods of its namespace that its
``selector`` selects (no selector: none; an empty one: all). How many of
them may go is ``status.disruptionsAllowed`` when the dump has it, else
what the disruption controller would compute: ``minAvailable`` or
``maxUnavailable`` (an integer or a percentage, rounded up) against the
matching pods, every one counted healthy (pkg/controller/disruption).

``split_violating`` follows ``FilterVictimsWithPDBViolation``
(pkg/scheduler/framework/preemption/util.go): walking the candidate victims
from the most important, each matching pod (not already in
``status.disruptedPods``) spends one allowed disruption of each budget it
matches; a victim with any pod past a budget's allowance violates it, and a
group victim violates as a whole.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic import BaseModel

from workloadbuilder.field import ErrorList, FieldPath, invalid, not_supported, required, type_invalid
from workloadbuilder.manifests import to_dict
from workloadbuilder.placement.k8s.constraints import LabelSelector, NodeSelectorRequirement


class LabelledPod(Protocol):
    """What a budget reads of a pod: its namespace and labels (a cluster's ``RunningPod`` is one)."""

    @property
    def namespace(self) -> str:
        """The pod's namespace."""
        ...

    @property
    def labels(self) -> Mapping[str, str]:
        """The pod's labels."""
        ...


__all__ = ["DisruptionBudget", "LabelledPod", "read_budgets", "split_violating"]

_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")
_PERCENT = re.compile(r"^([0-9]+)%$")


@dataclass(frozen=True)
class DisruptionBudget:
    """A ``policy/v1`` PodDisruptionBudget as preemption counts it.

    ``selector`` is the raw ``spec.selector`` (Kubernetes JSON, ``None``
    when absent); ``disruptions_allowed`` is ``status.disruptionsAllowed``
    (computed by ``read_budgets`` when the status is missing);
    ``disrupted_pods`` are the pod names of ``status.disruptedPods``.
    """

    name: str
    namespace: str
    selector: Mapping[str, Any] | None
    disruptions_allowed: int = 0
    disrupted_pods: tuple[str, ...] = ()
    _parsed: LabelSelector | None = field(init=False, repr=False, compare=False, default=None)

    def __post_init__(self) -> None:
        # parsed once; read_budgets has already reported any malformed term
        object.__setattr__(self, "_parsed", _selector(self.selector, FieldPath("selector"), ErrorList()))

    def covers(self, pod: LabelledPod) -> bool:
        """Whether the budget protects ``pod``: same namespace and selected (no selector selects nothing)."""
        return self._parsed is not None and pod.namespace == self.namespace and self._parsed.matches(pod.labels)


def read_budgets(
    items: Iterable[Any], section: str, pods: Sequence[Mapping[str, Any]], errors: ErrorList
) -> list[DisruptionBudget]:
    """The PodDisruptionBudget objects among ``items``; problems go to ``errors`` at ``section[i]...``.

    ``pods`` are the cluster's running pods as readers parse them (dicts
    with ``namespace`` and ``labels``), against which a budget without
    ``status.disruptionsAllowed`` is computed.
    """
    out = []
    for i, item in enumerate(items):
        data = to_dict(item) if isinstance(item, BaseModel) else item
        if not isinstance(data, Mapping) or data.get("kind") != "PodDisruptionBudget":
            continue
        budget = _budget(data, FieldPath(section).index(i), pods, errors)
        if budget is not None:
            out.append(budget)
    return out


def _budget(
    data: Mapping[str, Any], path: FieldPath, pods: Sequence[Mapping[str, Any]], errors: ErrorList
) -> DisruptionBudget | None:
    metadata = _mapping(data.get("metadata"))
    name = metadata.get("name")
    if not isinstance(name, str) or not name:
        errors.append(required(path.child("metadata", "name")))
        return None
    namespace = str(metadata.get("namespace") or "default")
    spec = _mapping(data.get("spec"))
    before = len(errors)
    selector = _selector(spec.get("selector"), path.child("spec", "selector"), errors)
    status = _mapping(data.get("status"))
    allowed = status.get("disruptionsAllowed")
    if allowed is not None and (isinstance(allowed, bool) or not isinstance(allowed, int) or allowed < 0):
        errors.append(invalid(path.child("status", "disruptionsAllowed"), allowed, "must be a non-negative integer"))
    if spec.get("minAvailable") is not None and spec.get("maxUnavailable") is not None:
        errors.append(invalid(path.child("spec"), "", "minAvailable and maxUnavailable cannot be both set"))
    if len(errors) > before:
        return None
    if allowed is None:
        matching = sum(
            1
            for pod in pods
            if selector is not None
            and (pod.get("namespace") or "default") == namespace
            and selector.matches(pod.get("labels") or {})
        )
        allowed = _allowed(spec, matching, path.child("spec"), errors)
        if allowed is None:
            return None
    disrupted = _mapping(status.get("disruptedPods"))
    raw = spec.get("selector")
    return DisruptionBudget(
        name, namespace, raw if isinstance(raw, Mapping) else None, allowed, tuple(sorted(disrupted))
    )


def _mapping(value: Any) -> Mapping[str, Any]:
    """``value`` when it is an object, else an empty one (the reader reports wrong types where they matter)."""
    return value if isinstance(value, Mapping) else {}


def _selector(raw: Any, path: FieldPath, errors: ErrorList) -> LabelSelector | None:
    """``None`` for a missing selector (selects nothing); an empty one selects every pod."""
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        errors.append(type_invalid(path, raw, "must be of type object"))
        return None
    labels = raw.get("matchLabels") or {}
    if not isinstance(labels, Mapping):
        errors.append(type_invalid(path.child("matchLabels"), labels, "must be of type object"))
        labels = {}
    expressions = []
    for j, term in enumerate(raw.get("matchExpressions") or []):
        term_path = path.child("matchExpressions").index(j)
        if not isinstance(term, Mapping) or not term.get("key"):
            errors.append(required(term_path.child("key")))
            continue
        operator = term.get("operator")
        if operator not in _OPERATORS:
            errors.append(not_supported(term_path.child("operator"), operator, _OPERATORS))
            continue
        values = term.get("values") or []
        if operator in ("In", "NotIn") and not values:
            errors.append(required(term_path.child("values"), "must be specified when `operator` is 'In' or 'NotIn'"))
            continue
        if operator in ("Exists", "DoesNotExist") and values:
            errors.append(
                invalid(
                    term_path.child("values"),
                    values,
                    "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
                )
            )
            continue
        expressions.append(NodeSelectorRequirement(str(term["key"]), str(operator), tuple(str(v) for v in values)))
    return LabelSelector(tuple((str(k), str(v)) for k, v in labels.items()), tuple(expressions))


def _allowed(spec: Mapping[str, Any], matching: int, path: FieldPath, errors: ErrorList) -> int | None:
    """``disruptionsAllowed`` as the disruption controller computes it, every matching pod healthy."""
    if spec.get("maxUnavailable") is not None:
        unavailable = _scaled(spec["maxUnavailable"], matching, path.child("maxUnavailable"), errors)
        if unavailable is None:
            return None
        expected, desired = matching, max(0, matching - unavailable)
    elif spec.get("minAvailable") is not None:
        desired_value = _scaled(spec["minAvailable"], matching, path.child("minAvailable"), errors)
        if desired_value is None:
            return None
        expected, desired = matching, desired_value
    else:
        expected, desired = 0, 0
    allowed = matching - desired
    return allowed if expected > 0 and allowed > 0 else 0


def _scaled(raw: Any, total: int, path: FieldPath, errors: ErrorList) -> int | None:
    """An int-or-percent against ``total``, a percentage rounded up (``GetScaledValueFromIntOrPercent``)."""
    if isinstance(raw, int) and not isinstance(raw, bool) and raw >= 0:
        return raw
    match = _PERCENT.match(raw) if isinstance(raw, str) else None
    if match is None:
        errors.append(invalid(path, raw, "must be a non-negative integer or a percentage such as '50%'"))
        return None
    return math.ceil(int(match[1]) * total / 100)


def split_violating(units: Sequence[Any], budgets: Sequence[DisruptionBudget]) -> tuple[list[Any], list[Any]]:
    """``units`` (most important first, each with ``pods``) split into those that violate a budget and the rest.

    Both lists keep the given order.
    """
    if not budgets:
        return [], list(units)
    left = [budget.disruptions_allowed for budget in budgets]
    violating: list[Any] = []
    other: list[Any] = []
    for unit in units:
        breaks = False
        for pod in unit.pods:
            short = pod.name.rsplit("/", 1)[-1]
            for b, budget in enumerate(budgets):
                if short in budget.disrupted_pods or not budget.covers(pod):
                    continue
                left[b] -= 1
                if left[b] < 0:
                    breaks = True
                    break
        (violating if breaks else other).append(unit)
    return violating, other
