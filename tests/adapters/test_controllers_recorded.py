"""Each adapter's pods against the pods the controller's own Go code renders (recorded, replayed without Go).

``tools/reference/controllers/`` holds the harnesses: Kubeflow Trainer's runtime framework building the JobSet
of a TrainJob over its runtime, and JobSet's webhook defaulting, Job construction and pod webhook. Their
answers, reduced per controller group to what places a pod (pod count; each container's requests and limits;
tolerations, node selector, affinity, scheduler and priority class; the controllers' labels), are in
``tests/data/controllers-recorded/<controller>.jsonl.gz``: every object of the controller's own upstream
examples, and seeded generated ones. Each case compiles with the bundled adapter and must agree exactly,
quantities compared by value, except the cases of ``<controller>-known-differences.json`` (each with why).
"""

from __future__ import annotations

import contextlib
import gzip
import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml
from compiled_pods import group_key, pod_template

from workloadbuilder.adapters import PlanError
from workloadbuilder.adapters.base import plan_object
from workloadbuilder.placement.k8s.quantity import parse_nanos

DATA = Path(__file__).resolve().parents[1] / "data"
RECORDED = DATA / "controllers-recorded"
UPSTREAM = DATA / "upstream"
CONTROLLERS = ("trainer", "jobset")
KEEP_EMPTY = ("namespaceSelector", "labelSelector")
INDEX_LABELS = ("jobset.sigs.k8s.io/job-index", "leaderworkerset.sigs.k8s.io/group-index")
LABEL_DOMAINS = ("jobset.sigs.k8s.io/", "leaderworkerset.sigs.k8s.io/", "volcano.sh/", "trainer.kubeflow.org/")


@cache
def _docs(file: str) -> list[Any]:
    try:
        return list(yaml.safe_load_all((UPSTREAM / file).read_text()))
    except yaml.YAMLError:
        return []


def _cases(controller: str) -> list[dict[str, Any]]:
    with gzip.open(RECORDED / f"{controller}.jsonl.gz", "rt") as fh:
        return [json.loads(line) for line in fh]


def _known(controller: str) -> dict[str, str]:
    path = RECORDED / f"{controller}-known-differences.json"
    return json.loads(path.read_text())["cases"] if path.exists() else {}


CASES = {c: _cases(c) for c in CONTROLLERS}
KNOWN = {c: _known(c) for c in CONTROLLERS}
PARAMS = [(c, case["id"]) for c in CONTROLLERS for case in CASES[c]]


def _normal(value: Any, key: str = "") -> Any:
    """``value`` as Go's JSON writes it: empty fields left out (a selector's ``{}`` kept: it means all)."""
    if isinstance(value, dict):
        out = {k: _normal(v, k) for k, v in value.items()}
        return {k: v for k, v in out.items() if v not in (None, "", [], {}) or (k in KEEP_EMPTY and v == {})}
    if isinstance(value, list):
        return [_normal(v) for v in value]
    return value


def _quantities(containers: dict[str, Any]) -> dict[str, Any]:
    """Requests and limits by value; a container that asks for nothing is left out (it changes no pod's request)."""
    return {
        name: {
            kind: {r: parse_nanos(str(q)) for r, q in (res.get(kind) or {}).items()} for kind in res if res.get(kind)
        }
        for name, res in containers.items()
        if any(res.get(kind) for kind in ("requests", "limits"))
    }


def _facts(template: Any) -> dict[str, Any]:
    """The recorder's facts of one pod template, without the labels (they are checked against the selector)."""
    spec = (template or {}).get("spec") or {}
    containers = {
        f"{kind}/{c.get('name')}": {
            k: v for k, v in (c.get("resources") or {}).items() if k in ("requests", "limits") and v
        }
        for kind in ("initContainers", "containers")
        for c in spec.get(kind) or []
    }
    out: dict[str, Any] = {"containers": _quantities(containers)}
    for key in ("tolerations", "nodeSelector", "affinity", "schedulerName", "priorityClassName"):
        if spec.get(key):
            out[key] = _normal(spec[key], key)
    return {k: v for k, v in out.items() if v not in ({}, [])} | {"containers": out["containers"]}


def _recorded(group: dict[str, Any]) -> dict[str, Any]:
    facts = {k: v for k, v in group.items() if k not in ("group", "count", "labels")}
    facts["containers"] = _quantities(facts.get("containers") or {})
    return facts


def _runs(items: list[tuple[str, int, dict[str, Any]]]) -> list[tuple[str, int, Any]]:
    """Consecutive pods of one group with equal facts merged, as the recorder merges them."""
    out: list[tuple[str, int, Any]] = []
    for group, count, facts in items:
        if count == 0:
            continue
        if out and out[-1][0] == group and out[-1][2] == facts:
            out[-1] = (group, out[-1][1] + count, facts)
        else:
            out.append((group, count, facts))
    return out


def _inputs(case: dict[str, Any]) -> tuple[Any, list[Any]]:
    if "object" in case:
        return case["object"], case.get("related") or []
    file, index = case["source"]
    related = [_docs(f)[i] for f, i in case.get("related_sources") or []]
    return _docs(file)[index], related


def compare(controller: str, case: dict[str, Any]) -> str | None:
    """``None`` when the adapter's pods are the recorded ones, else what differs."""
    obj, related = _inputs(case)
    try:
        with contextlib.chdir(UPSTREAM):
            compiled = plan_object(obj, related).compile()
    except PlanError as error:
        return None if "error" in case else f"the adapter refuses: {error}"
    if "error" in case:
        return f"the controller's code refuses ({case['error']}); the adapter compiles"
    ordered = sorted(
        compiled.pods,
        key=lambda p: (group_key(p.selector), *(int(p.selector.get(k, 0)) for k in INDEX_LABELS)),
    )
    order = [g["group"] for g in case["groups"]]
    ordered.sort(key=lambda p: order.index(group_key(p.selector)) if group_key(p.selector) in order else -1)
    ours = _runs([(group_key(p.selector), p.count, _facts(pod_template(compiled, p))) for p in ordered])
    theirs = [(g["group"], g["count"], _recorded(g)) for g in case["groups"]]
    if ours != theirs:
        return f"pods differ:\n  adapter:    {ours}\n  controller: {theirs}"
    if controller == "trainer":
        return None  # Trainer renders the JobSet; JobSet's controller labels the pods (the jobset harness checks them)
    labels = {g["group"]: g.get("labels") or {} for g in case["groups"]}
    for pods in compiled.pods:
        rendered = labels.get(group_key(pods.selector), {})
        for key, value in pods.selector.items():
            if key.startswith(LABEL_DOMAINS) and key not in rendered:
                return f"selector label {key} is on no pod the controller renders"
            if key.startswith(LABEL_DOMAINS) and key not in INDEX_LABELS and rendered[key] != value:
                return f"selector {key}={value}, the controller's pods have {rendered[key]}"
    return None


@pytest.mark.parametrize(("controller", "case_id"), PARAMS, ids=[f"{c}:{i}" for c, i in PARAMS])
def test_adapter_pods_are_the_controllers_pods(controller: str, case_id: str) -> None:
    case = next(c for c in CASES[controller] if c["id"] == case_id)
    difference = compare(controller, case)
    if case_id in KNOWN[controller]:
        assert difference is not None, f"listed as a known difference but agrees now: {KNOWN[controller][case_id]}"
        return
    assert difference is None, difference


def test_known_differences_name_recorded_cases() -> None:
    for controller in CONTROLLERS:
        ids = {case["id"] for case in CASES[controller]}
        assert set(KNOWN[controller]) <= ids
