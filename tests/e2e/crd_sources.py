"""The controllers' objects of the golden corpus judged by CRDs made from the schemas the project ships.

``adapters/schemas/fields.json`` is the reduced field tree the strict checks
read (``adapters._shared.strict``). ``crds()`` turns each controller kind of it into a
CustomResourceDefinition (structural schema: objects, arrays, maps, the
scalar types, ``int-or-string``, ``any`` kept as is, the required fields),
and every JobSet, LeaderWorkerSet, TrainJob, runtime, Volcano Job and
PodGroup of the corpus is sent with ``dryRun=All&fieldValidation=Strict``.
The apiserver then decides what a CRD decides (unknown fields, types,
required fields); what the controllers' webhooks decide is not judged here.
Ours: ``adapters._shared.strict.schema_errors``, which checks the object with the
webhook's defaults applied, as the real controller's apiserver would see it.
"""

from __future__ import annotations

import json
import re
from importlib import resources
from typing import Any

from kubernetes.client import ApiClient
from live_api import STRICT_DRY_RUN, answer, call

from workloadbuilder.adapters._shared.strict import schema_errors

SCALARS = {"string": {"type": "string"}, "integer": {"type": "integer"}, "boolean": {"type": "boolean"}}
CLUSTER_SCOPED = {"ClusterTrainingRuntime"}


def _fields() -> dict[str, Any]:
    text = resources.files("workloadbuilder.adapters").joinpath("schemas/fields.json").read_text(encoding="utf-8")
    return dict(json.loads(text))


def _schema(node: Any, defs: dict[str, Any], depth: int = 0) -> dict[str, Any]:
    if depth > 60:
        return {"x-kubernetes-preserve-unknown-fields": True}
    if isinstance(node, str):
        if node in SCALARS:
            return dict(SCALARS[node])
        if node == "int-or-string":
            return {"x-kubernetes-int-or-string": True}
        return {"x-kubernetes-preserve-unknown-fields": True}  # any
    if "ref" in node:
        return _schema(defs[node["ref"]], defs, depth + 1)
    if "array" in node:
        return {"type": "array", "items": _schema(node["array"], defs, depth + 1)}
    if "map" in node:
        return {"type": "object", "additionalProperties": _schema(node["map"], defs, depth + 1)}
    properties = {name: _schema(sub, defs, depth + 1) for name, sub in node["object"].items()}
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if node.get("required"):
        schema["required"] = list(node["required"])
    return schema


def crds() -> list[dict[str, Any]]:
    """One CustomResourceDefinition per controller kind of the shipped schemas (every kind but batch/v1 Job)."""
    data = _fields()
    by_group: dict[tuple[str, str], list[tuple[str, Any]]] = {}
    for key, node in data["kinds"].items():
        group, version, kind = key.split("/")
        if group == "batch" and version == "v1":
            continue
        by_group.setdefault((group, kind), []).append((version, node))
    found = []
    for (group, kind), versions in sorted(by_group.items()):
        plural = kind.lower() + "s"
        served = []
        for i, (version, node) in enumerate(versions):
            schema = _schema(node, data["defs"])
            schema["properties"].pop("metadata", None)  # a CRD may not describe the object's own metadata
            served.append({"name": version, "served": True, "storage": i == 0, "schema": {"openAPIV3Schema": schema}})
        found.append(
            {
                "apiVersion": "apiextensions.k8s.io/v1",
                "kind": "CustomResourceDefinition",
                "metadata": {"name": f"{plural}.{group}"},
                "spec": {
                    "group": group,
                    "names": {"kind": kind, "plural": plural, "singular": kind.lower(), "listKind": f"{kind}List"},
                    "scope": "Cluster" if kind in CLUSTER_SCOPED else "Namespaced",
                    "versions": served,
                },
            }
        )
    return found


def kinds() -> set[tuple[str, str]]:
    """``(apiVersion, kind)`` of every CRD ``crds()`` makes."""
    return {
        (f"{c['spec']['group']}/{v['name']}", c["spec"]["names"]["kind"]) for c in crds() for v in c["spec"]["versions"]
    }


def path_of(obj: dict[str, Any]) -> str:
    """The collection URL to create the object in."""
    group, version = str(obj["apiVersion"]).split("/")
    plural = str(obj["kind"]).lower() + "s"
    if obj["kind"] in CLUSTER_SCOPED:
        return f"/apis/{group}/{version}/{plural}"
    namespace = (obj.get("metadata") or {}).get("namespace") or "default"
    return f"/apis/{group}/{version}/namespaces/{namespace}/{plural}"


def judge_source(client: ApiClient, obj: dict[str, Any]) -> dict[str, Any]:
    """The apiserver's dry-run answer to creating the controller object."""
    status, body = call(client, "POST", path_of(obj), obj, STRICT_DRY_RUN)
    return {"stage": "create", **answer(status, body)}


_UNKNOWN = re.compile(r'unknown field "([^"]+)"')


def fields_refused(real: dict[str, Any]) -> list[str]:
    """The fields the apiserver refused: its causes' fields, or the unknown fields its strict decoding named."""
    if real["errors"]:
        return sorted({error[2] for error in real["errors"]})
    return sorted(set(_UNKNOWN.findall(real["message"])))


def ours(obj: dict[str, Any]) -> list[str]:
    """The fields ``schema_errors`` refuses."""
    return sorted({str(error.field) for error in schema_errors(obj)})


def differs(real: dict[str, Any], mine: list[str]) -> str | None:
    """How the CRD's verdict and ours part (by the fields refused), or ``None`` when they agree."""
    theirs = [] if real["accepted"] else fields_refused(real)
    if real["accepted"] and not mine:
        return None
    if theirs == mine:
        return None
    if real["accepted"]:
        return "the CRD accepts, we refuse"
    if not mine:
        return "the CRD refuses, we accept"
    return "other fields refused"
