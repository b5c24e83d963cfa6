"""The real apiserver judging the recorded validation cases: one request (or three) per case.

A case of ``tests/data/apiserver-recorded/`` is a create or an update of a
Workload, PodGroup or CompositePodGroup (some of the ``status``
subresource). Against the live apiserver:

- first the namespaces the cases name and the PriorityClasses they refer to
  are created (``prepare``: ``high``, ``my-class``, ``other`` and the
  examples' ``training-high``, value 1000),
  since the Priority admission plugin refuses a group whose class does not
  exist, or whose ``priority`` is not the class's value;
- a create is one ``POST`` with ``dryRun=All`` and ``fieldValidation=Strict``
  into the object's namespace (``default`` when it names none);
- an update first creates ``old`` for real (a refusal of ``old`` is the
  answer, at ``stage: old``), then sends ``obj`` as a dry-run ``PUT`` (to
  ``/status`` for the subresource) with the stored object's
  ``resourceVersion`` and ``uid``, and the ``spec.priority`` and
  ``spec.preemptionPolicy`` the Priority plugin resolved, wherever ``obj``
  carries ``old``'s (as a client's read-modify-write does), so a stale
  version stays stale, and finally deletes ``old`` (its finalizers removed
  first).

``ours`` is the offline validation of the same request, every gate on, in
the same ``(text, type, field)`` form; ``differs`` names how two answers part.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kubernetes.client import ApiClient
from live_api import STRICT, STRICT_DRY_RUN, answer, call, scheduling_path

from workloadbuilder.validation.objects import validate_composite_pod_group, validate_pod_group, validate_workload

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "tests" / "data" / "apiserver-recorded"
RECORDED = ROOT / "tests" / "data" / "e2e-recorded" / "apiserver-cases.jsonl"


def load_cases() -> list[dict[str, Any]]:
    """Every recorded validation case, ``agreed.jsonl`` then ``reproducers.jsonl``, in file order."""
    cases = []
    for name in ("agreed.jsonl", "reproducers.jsonl"):
        with open(CASES / name, encoding="utf-8") as handle:
            cases += [json.loads(line) for line in handle if line.strip()]
    return cases


def _meta(obj: Any) -> dict[str, Any]:
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    return meta if isinstance(meta, dict) else {}


def namespace_of(case: dict[str, Any]) -> str:
    """The namespace the request goes to: the object's, or ``default``."""
    namespace = _meta(case["obj"]).get("namespace")
    return namespace if isinstance(namespace, str) and namespace else "default"


PRIORITY_CLASSES = {"high": 1000, "my-class": 1000, "other": 1000, "training-high": 1000}


def prepare(client: ApiClient, cases: list[dict[str, Any]]) -> None:
    """Create the namespaces the cases go to and the PriorityClasses they name (existing ones are kept)."""
    for name in sorted({namespace_of(case) for case in cases}):
        call(client, "POST", "/api/v1/namespaces", {"metadata": {"name": name}})
    for name, value in PRIORITY_CLASSES.items():
        body = {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": name},
            "value": value,
        }
        call(client, "POST", "/apis/scheduling.k8s.io/v1/priorityclasses", body)


def judge(client: ApiClient, case: dict[str, Any]) -> dict[str, Any]:
    """The live apiserver's answer to the case's request (see the module docstring)."""
    kind, obj, namespace = case["kind"], case["obj"], namespace_of(case)
    if case["op"] == "create":
        status, body = call(
            client, "POST", scheduling_path(kind, obj.get("apiVersion"), namespace), obj, STRICT_DRY_RUN
        )
        return {"stage": "create", **answer(status, body)}
    old = case["old"]
    status, stored = call(client, "POST", scheduling_path(kind, old.get("apiVersion"), namespace), old, STRICT)
    if not 200 <= status < 300:
        return {"stage": "old", **answer(status, stored)}
    try:
        return {"stage": "update", **_update(client, case, stored)}
    finally:
        _remove(client, kind, stored)


def _update(client: ApiClient, case: dict[str, Any], stored: dict[str, Any]) -> dict[str, Any]:
    kind, body = case["kind"], copy.deepcopy(case["obj"])
    old_meta, stored_meta = _meta(case["old"]), stored["metadata"]
    if isinstance(body.get("metadata"), dict):
        meta = body["metadata"]
        for key in ("resourceVersion", "uid"):
            if key in stored_meta and meta.get(key) == old_meta.get(key):
                meta[key] = stored_meta[key]
    old_spec, stored_spec = case["old"].get("spec") or {}, stored.get("spec") or {}
    if isinstance(body.get("spec"), dict):
        for key in ("priority", "preemptionPolicy"):
            if key in stored_spec and body["spec"].get(key) == old_spec.get(key):
                body["spec"][key] = stored_spec[key]
    path = scheduling_path(kind, body.get("apiVersion"), stored_meta["namespace"], stored_meta["name"])
    if case.get("subresource"):
        path += "/" + case["subresource"]
    status, answered = call(client, "PUT", path, body, STRICT_DRY_RUN)
    return answer(status, answered)


def _remove(client: ApiClient, kind: str, stored: dict[str, Any]) -> None:
    meta = stored["metadata"]
    path = scheduling_path(kind, stored.get("apiVersion"), meta["namespace"], meta["name"])
    if meta.get("finalizers"):
        call(client, "PATCH", path, {"metadata": {"finalizers": None}}, content_type="application/merge-patch+json")
    call(client, "DELETE", path)


def ours(case: dict[str, Any]) -> dict[str, Any]:
    """The offline validation of the case's request: ``accepted`` and the ``(text, type, field)`` errors."""
    obj, old, subresource = case["obj"], case.get("old"), case.get("subresource") or None
    if case["kind"] == "Workload":
        errors = validate_workload(obj, old=old, gates=None)
    elif case["kind"] == "PodGroup":
        errors = validate_pod_group(obj, old=old, gates=None, subresource=subresource)
    else:
        errors = validate_composite_pod_group(obj, old=old, gates=None, subresource=subresource)
    return {"accepted": not errors, "errors": [[str(e), e.type.value, str(e.field)] for e in errors]}


def generated_name_mask(obj: Any) -> Callable[[str], str]:
    """A function that hides the 5 random characters after the object's ``generateName`` in a text."""
    prefix = _meta(obj).get("generateName")
    if not isinstance(prefix, str) or not prefix or _meta(obj).get("name"):
        return lambda text: text
    pattern = re.compile(re.escape(prefix) + r"[a-z0-9]{5}")
    return lambda text: pattern.sub(prefix + "*****", text)


def differs(real: dict[str, Any], mine: dict[str, Any], obj: Any = None) -> str | None:
    """How the two answers part, in a few words, or ``None`` when they agree.

    They agree when both accept, or both refuse with equal error lists, item by
    item in order, the random suffix of a ``generateName`` hidden on both sides
    (``obj`` is the object sent). A refusal that is not validation's is named by its cause:
    the update's ``old`` could not be stored, the namespace cannot exist,
    admission (the Priority plugin), a failed precondition.
    """
    if real.get("stage") == "old":
        return f"old refused on create ({real['code']} {real['reason']})"
    if real["accepted"] and mine["accepted"]:
        return None
    if real["code"] == 404:
        return "namespace cannot exist (404 NotFound)"
    if real["code"] == 403:
        return "admission refuses (403 Forbidden)" + ("" if not mine["accepted"] else ", we accept")
    if real["code"] == 409:
        return "precondition fails (409 Conflict)"
    if real["accepted"] != mine["accepted"]:
        return "apiserver accepts, we refuse" if real["accepted"] else "apiserver refuses, we accept"
    mask = generated_name_mask(obj)
    theirs = [[mask(part) for part in error] for error in real["errors"]]
    ours_ = [[mask(part) for part in error] for error in mine["errors"]]
    if theirs == ours_:
        return None
    if sorted(map(tuple, theirs)) == sorted(map(tuple, ours_)):
        return "same errors, other order"
    return "other errors"
