"""PodDisruptionBudgets: selectors, disruptionsAllowed as the disruption controller computes it, and the
violation count."""

from __future__ import annotations

from typing import Any

import pytest

from workloadbuilder.field import ErrorList
from workloadbuilder.placement.cluster.model import RunningPod
from workloadbuilder.placement.framework.preemption import Unit
from workloadbuilder.placement.k8s.disruption import DisruptionBudget, read_budgets, split_violating


def _pdb(spec: dict[str, Any], status: dict[str, Any] | None = None, namespace: str = "ml") -> dict[str, Any]:
    obj: dict[str, Any] = {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "b", "namespace": namespace},
        "spec": spec,
    }
    if status is not None:
        obj["status"] = status
    return obj


def _pods(n: int, labels: dict[str, str], namespace: str = "ml") -> list[dict[str, Any]]:
    return [{"name": f"{namespace}/p{i}", "namespace": namespace, "labels": labels} for i in range(n)]


APP = {"matchLabels": {"app": "web"}}

ALLOWED = [
    ("min-available-int", {"selector": APP, "minAvailable": 3}, None, 5, 2),
    ("min-available-all", {"selector": APP, "minAvailable": 5}, None, 5, 0),
    ("min-available-above-pods", {"selector": APP, "minAvailable": 9}, None, 5, 0),
    ("min-available-percent-rounds-up", {"selector": APP, "minAvailable": "50%"}, None, 5, 2),
    ("max-unavailable-int", {"selector": APP, "maxUnavailable": 1}, None, 5, 1),
    ("max-unavailable-percent-rounds-up", {"selector": APP, "maxUnavailable": "30%"}, None, 5, 2),
    ("max-unavailable-zero-percent", {"selector": APP, "maxUnavailable": "0%"}, None, 5, 0),
    ("no-matching-pods", {"selector": APP, "maxUnavailable": 1}, None, 0, 0),
    ("status-wins", {"selector": APP, "minAvailable": 1}, {"disruptionsAllowed": 0}, 5, 0),
    ("neither-field", {"selector": APP}, None, 5, 0),
]


@pytest.mark.parametrize(("spec", "status", "pods", "allowed"), [c[1:] for c in ALLOWED], ids=[c[0] for c in ALLOWED])
def test_disruptions_allowed(spec: dict[str, Any], status: dict[str, Any] | None, pods: int, allowed: int) -> None:
    errors = ErrorList()
    others = _pods(3, {"app": "db"}) + _pods(3, {"app": "web"}, namespace="other")
    (budget,) = read_budgets([_pdb(spec, status)], "pdbs", _pods(pods, {"app": "web"}) + others, errors)
    assert (budget.disruptions_allowed, list(errors)) == (allowed, [])


def _pod(labels: dict[str, str], namespace: str = "ml") -> RunningPod:
    return RunningPod("ml/x", 0, (), namespace=namespace, labels=labels)


SELECTORS = [
    ("match-labels", {"matchLabels": {"app": "web"}}, {"app": "web", "x": "1"}, True),
    ("match-labels-miss", {"matchLabels": {"app": "web"}}, {"app": "db"}, False),
    ("in", {"matchExpressions": [{"key": "tier", "operator": "In", "values": ["a", "b"]}]}, {"tier": "b"}, True),
    ("in-absent", {"matchExpressions": [{"key": "tier", "operator": "In", "values": ["a"]}]}, {}, False),
    ("not-in-absent", {"matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["a"]}]}, {}, True),
    ("not-in-hit", {"matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["a"]}]}, {"tier": "a"}, False),
    ("exists", {"matchExpressions": [{"key": "tier", "operator": "Exists"}]}, {"tier": ""}, True),
    ("does-not-exist", {"matchExpressions": [{"key": "tier", "operator": "DoesNotExist"}]}, {"tier": "a"}, False),
    ("empty-selects-all", {}, {"any": "thing"}, True),
    ("no-selector-selects-none", None, {"app": "web"}, False),
]


@pytest.mark.parametrize(("selector", "labels", "want"), [c[1:] for c in SELECTORS], ids=[c[0] for c in SELECTORS])
def test_selectors(selector: dict[str, Any] | None, labels: dict[str, str], want: bool) -> None:
    assert DisruptionBudget("ml/b", "ml", selector, 1).covers(_pod(labels)) is want


def test_another_namespace_is_never_covered() -> None:
    assert not DisruptionBudget("ml/b", "ml", {}, 1).covers(_pod({}, namespace="other"))


@pytest.mark.parametrize(
    ("obj", "want"),
    [
        (
            _pdb({"selector": APP, "minAvailable": 1, "maxUnavailable": 1}),
            ['pdbs[0].spec: Invalid value: "": minAvailable and maxUnavailable cannot be both set'],
        ),
        (
            _pdb({"selector": {"matchExpressions": [{"key": "k", "operator": "Near"}]}}),
            [
                (
                    'pdbs[0].spec.selector.matchExpressions[0].operator: Unsupported value: "Near": supported values: '
                    '"In", "NotIn", "Exists", "DoesNotExist"'
                )
            ],
        ),
        (
            _pdb({"selector": APP, "minAvailable": "half"}),
            [
                (
                    'pdbs[0].spec.minAvailable: Invalid value: "half": must be a non-negative integer or a percentage '
                    "such as '50%'"
                )
            ],
        ),
        (
            _pdb({"selector": APP}, {"disruptionsAllowed": -1}),
            ["pdbs[0].status.disruptionsAllowed: Invalid value: -1: must be a non-negative integer"],
        ),
    ],
    ids=["both-fields", "unknown-operator", "bad-int-or-percent", "negative-status"],
)
def test_malformed_budgets(obj: dict[str, Any], want: list[str]) -> None:
    errors = ErrorList()
    assert read_budgets([obj], "pdbs", [], errors) == []
    assert [str(error) for error in errors] == want


def _unit(name: str, *labels: str) -> Unit:
    pods = tuple(
        RunningPod(f"ml/{name}-{i}", 0, (), namespace="ml", labels={"app": app}) for i, app in enumerate(labels)
    )
    return Unit(name, "PodGroup" if len(pods) > 1 else "Pod", 0, pods)


def test_budgets_are_spent_from_the_most_important_victim() -> None:
    """One disruption of `web` allowed: the first web pod spends it, the second violates; a group violates whole."""
    budget = DisruptionBudget("ml/b", "ml", APP, 1)
    units = [_unit("a", "web"), _unit("b", "db"), _unit("c", "web"), _unit("g", "db", "web")]
    violating, other = split_violating(units, [budget])
    assert ([u.name for u in violating], [u.name for u in other]) == (["c", "g"], ["a", "b"])


def test_pods_already_disrupted_do_not_spend_the_budget() -> None:
    budget = DisruptionBudget("ml/b", "ml", APP, 0, ("a-0",))
    violating, other = split_violating([_unit("a", "web"), _unit("c", "web")], [budget])
    assert ([u.name for u in violating], [u.name for u in other]) == (["c"], ["a"])
