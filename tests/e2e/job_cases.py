"""Jobs with ``.spec.scheduling`` for the real Job controller, and the comparison with the Job adapter.

Each case is a root Job (no owner). The live run creates it, waits for the
Workload, the PodGroup and the pods kube-controller-manager makes, and keeps
them (``record``); ``compare`` runs the adapter on the stored Job (with its
uid) and the live Workload (for the PodGroup's second owner reference) and
lists every field where the controller's objects and ours part. CI replays
the recording (``tests/data/e2e-recorded/job-controller.jsonl``) with no Go.
"""

from __future__ import annotations

import copy
from typing import Any

from workloadbuilder import to_dict
from workloadbuilder.adapters.job import JobAdapter

KEPT_METADATA = ("name", "namespace", "labels", "annotations", "ownerReferences")
GANG = {"schedulingPolicy": {"gang": {}}}


def _claims() -> list[dict[str, Any]]:
    return [{"name": "shared", "resourceClaimTemplateName": "gpus"}]


CASES: dict[str, tuple[int, dict[str, Any] | None]] = {
    "no-scheduling": (3, None),
    "basic": (2, {"schedulingPolicy": {"basic": {}}}),
    "gang-defaulted": (4, GANG),
    "gang-min-count": (4, {"schedulingPolicy": {"gang": {"minCount": 3}}}),
    "gang-topology": (4, {**GANG, "schedulingConstraints": {"topology": [{"key": "topology.kubernetes.io/zone"}]}}),
    "gang-disruption-all": (4, {**GANG, "disruptionMode": {"all": {}}}),
    "gang-resource-claims": (2, {**GANG, "resourceClaims": _claims()}),
    "everything": (
        5,
        {
            "schedulingPolicy": {"gang": {"minCount": 5}},
            "schedulingConstraints": {"topology": [{"key": "topology.kubernetes.io/zone"}]},
            "disruptionMode": {"all": {}},
            "resourceClaims": _claims(),
        },
    ),
}
"""Case id -> (parallelism, ``spec.scheduling``); the Jobs are named after their case."""


def job_manifest(case: str, namespace: str) -> dict[str, Any]:
    """The Job of one case: Indexed, ``completions == parallelism``, one small container that never runs.

    A ``nodeSelector`` no Node matches keeps its pods pending, away from the
    Nodes of the scheduler and doctor tests.
    """
    parallelism, scheduling = CASES[case]
    spec: dict[str, Any] = {
        "parallelism": parallelism,
        "completions": parallelism,
        "completionMode": "Indexed",
        "template": {
            "spec": {
                "restartPolicy": "Never",
                "nodeSelector": {"e2e.workloadbuilder.io/case": "none"},
                "containers": [
                    {"name": "main", "image": "e2e.invalid/none:1", "resources": {"requests": {"cpu": "10m"}}}
                ],
            }
        },
    }
    if scheduling is not None:
        spec["scheduling"] = copy.deepcopy(scheduling)
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": case, "namespace": namespace}, "spec": spec}


SERVER_FILLED = {
    "PodGroup": {"priority": 0, "preemptionPolicy": "PreemptLowerPriority", "disruptionMode": {"single": {}}},
    "Workload": {},
}
"""What the apiserver fills into a stored spec that no compile sets: the Priority admission plugin's
``priority`` and ``preemptionPolicy`` (of no class: 0 and PreemptLowerPriority) and PodGroup's one
default, ``disruptionMode: {single: {}}``. They are taken out of the stored object where our
object has no value and the stored one is this one."""


def _no_nulls(value: Any) -> Any:
    """JSON ``null`` is an absent field (the apiserver writes some unset pointers as ``null``)."""
    if isinstance(value, dict):
        return {k: _no_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_no_nulls(v) for v in value]
    return value


def project(obj: dict[str, Any], ours: dict[str, Any] | None = None) -> dict[str, Any]:
    """What is compared of a Workload or PodGroup: apiVersion, kind, the user-visible metadata, spec.

    Given ``ours``, the fields of ``SERVER_FILLED`` that ours leaves unset are dropped from ``obj``.
    """
    meta = obj.get("metadata") or {}
    kept = {key: meta[key] for key in KEPT_METADATA if meta.get(key)}
    spec = _no_nulls(copy.deepcopy(obj.get("spec") or {}))
    if ours is not None:
        for key, value in SERVER_FILLED.get(str(obj.get("kind")), {}).items():
            if key not in (ours.get("spec") or {}) and spec.get(key) == value:
                del spec[key]
    return {"apiVersion": obj.get("apiVersion"), "kind": obj.get("kind"), "metadata": kept, "spec": spec}


def ours(job: dict[str, Any], workload: dict[str, Any] | None) -> dict[str, Any]:
    """The adapter's Workload, PodGroups and pod stamp for the stored Job (the live Workload as related)."""
    related = [workload] if workload is not None else []
    compiled = JobAdapter().plan(job, related=related).compile()
    groups = [to_dict(group) for group in compiled.hierarchy.objects()]
    return {
        "workload": to_dict(compiled.workload) if compiled.workload is not None else None,
        "podGroups": groups,
        "podGroupName": sorted({pods.pod_group for pods in compiled.pods if pods.pod_group}),
    }


def _walk(path: str, real: Any, mine: Any) -> list[str]:
    if isinstance(real, dict) and isinstance(mine, dict):
        found = []
        for key in sorted(set(real) | set(mine)):
            found += _walk(f"{path}.{key}" if path else key, real.get(key), mine.get(key))
        return found
    if isinstance(real, list) and isinstance(mine, list) and len(real) == len(mine):
        return [line for i, (a, b) in enumerate(zip(real, mine, strict=True)) for line in _walk(f"{path}[{i}]", a, b)]
    return [] if real == mine else [f"{path}: controller {real!r}, adapter {mine!r}"]


def compare(record: dict[str, Any]) -> list[str]:
    """Every field where the controller's objects (``record``) and the adapter's part; empty when equal."""
    mine = ours(record["job"], record["workload"])
    found = []
    our_workload = project(mine["workload"]) if mine["workload"] else None
    real_workload = project(record["workload"], mine["workload"]) if record["workload"] else None
    found += _walk("Workload", real_workload, our_workload)
    our_groups = [project(group) for group in mine["podGroups"]]
    padded = mine["podGroups"] + [{}] * max(0, len(record["podGroups"]) - len(mine["podGroups"]))
    real_groups = [project(group, our) for group, our in zip(record["podGroups"], padded, strict=False)]
    found += _walk("PodGroups", real_groups, our_groups)
    found += _walk("pods.schedulingGroup.podGroupName", sorted(set(record["podGroupNames"])), mine["podGroupName"])
    return found
