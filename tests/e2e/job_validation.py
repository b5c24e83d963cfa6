"""The Job API's validation of ``spec.scheduling`` by the real apiserver, beside the Job adapter's.

``adapters.job.api`` writes the hand-written rules of the Job API (a gang
no larger than ``parallelism``, the policy frozen on update) with messages of
its own, the upstream source not having been available: here the real
apiserver says what it answers. A create case is one dry-run ``POST`` of the
Job; an update case creates ``old`` for real, then sends the stored Job with
``spec.scheduling`` replaced as a dry-run ``PUT`` (a client's
read-modify-write), and deletes it. Ours: ``JobAdapter().plan(job).validate()``,
and ``validate_update(stored, new)`` for an update.
"""

from __future__ import annotations

import copy
from typing import Any

from kubernetes.client import ApiClient
from live_api import STRICT, STRICT_DRY_RUN, answer, call

from workloadbuilder.adapters.job import JobAdapter

NAMESPACE = "e2e-job-validation"


def _gang(min_count: int | None = None, **blocks: Any) -> dict[str, Any]:
    return {"schedulingPolicy": {"gang": {} if min_count is None else {"minCount": min_count}}, **blocks}


def _claims(*names: str) -> list[dict[str, Any]]:
    return [{"name": name, "resourceClaimTemplateName": "gpus"} for name in names]


ZONE = {"topology": [{"key": "topology.kubernetes.io/zone"}]}

CREATES: dict[str, tuple[Any, int]] = {
    "gang-min-count-4": (_gang(4), 4),
    "gang-defaulted": (_gang(), 4),
    "gang-above-parallelism": (_gang(5), 4),
    "gang-zero": (_gang(0), 4),
    "gang-negative": (_gang(-1), 4),
    "gang-defaulted-parallelism-0": (_gang(), 0),
    "gang-1-parallelism-0": (_gang(1), 0),
    "gang-and-basic": ({"schedulingPolicy": {"gang": {"minCount": 2}, "basic": {}}}, 4),
    "no-policy": ({"schedulingPolicy": {}}, 4),
    "scheduling-empty": ({}, 4),
    "five-claims": (_gang(resourceClaims=_claims("a", "b", "c", "d", "e")), 4),
    "duplicate-claims": (_gang(resourceClaims=_claims("a", "a")), 4),
    "claim-without-source": (_gang(resourceClaims=[{"name": "a"}]), 4),
    "claim-with-both-sources": (
        _gang(resourceClaims=[{"name": "a", "resourceClaimName": "x", "resourceClaimTemplateName": "y"}]),
        4,
    ),
    "basic-disruption-all": ({"schedulingPolicy": {"basic": {}}, "disruptionMode": {"all": {}}}, 4),
    "basic-topology": ({"schedulingPolicy": {"basic": {}}, "schedulingConstraints": ZONE}, 4),
    "two-topology-keys": (_gang(schedulingConstraints={"topology": [{"key": "zone"}, {"key": "rack"}]}), 4),
    "empty-topology-key": (_gang(schedulingConstraints={"topology": [{"key": ""}]}), 4),
    "bad-topology-key": (_gang(schedulingConstraints={"topology": [{"key": "Not A Key!"}]}), 4),
    "disruption-both": (_gang(disruptionMode={"all": {}, "single": {}}), 4),
    "everything-valid": (
        _gang(3, schedulingConstraints=ZONE, disruptionMode={"all": {}}, resourceClaims=_claims("a")),
        4,
    ),
}
"""Case id -> (``spec.scheduling``, ``parallelism``) for a Job created with a dry run."""

UPDATES: dict[str, tuple[Any, Any]] = {
    "resize-3-to-4": (_gang(3), _gang(4)),
    "gang-to-basic": (_gang(3), {"schedulingPolicy": {"basic": {}}}),
    "basic-to-gang": ({"schedulingPolicy": {"basic": {}}}, _gang(3)),
    "add-topology": (_gang(3), _gang(3, schedulingConstraints=ZONE)),
    "remove-scheduling": (_gang(3), None),
    "add-scheduling": (None, _gang(3)),
    "change-disruption": (_gang(3, disruptionMode={"all": {}}), _gang(3, disruptionMode={"single": {}})),
    "add-claim": (_gang(3), _gang(3, resourceClaims=_claims("a"))),
    "resize-above-parallelism": (_gang(3), _gang(5)),
}
"""Case id -> (old ``spec.scheduling``, new ``spec.scheduling``), ``None`` for none; parallelism 4."""


def job(name: str, scheduling: Any, parallelism: int = 4) -> dict[str, Any]:
    """A root Job whose pods no Node takes; ``spec.scheduling`` left out when ``scheduling`` is None."""
    spec: dict[str, Any] = {
        "parallelism": parallelism,
        "template": {
            "spec": {
                "restartPolicy": "Never",
                "nodeSelector": {"e2e.workloadbuilder.io/case": "none"},
                "containers": [{"name": "c", "image": "e2e.invalid/none:1"}],
            }
        },
    }
    if scheduling is not None:
        spec["scheduling"] = copy.deepcopy(scheduling)
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name, "namespace": NAMESPACE}, "spec": spec}


def _findings(findings: list[Any]) -> dict[str, Any]:
    errors = [[str(f.error), f.error.type.value, str(f.error.field)] for f in findings]
    return {"accepted": not errors, "errors": errors}


def ours_create(obj: dict[str, Any]) -> dict[str, Any]:
    """The Job adapter's validation of creating ``obj``."""
    return _findings(JobAdapter().plan(obj).validate())


def ours_update(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """The Job adapter's validation of ``old`` becoming ``new``."""
    return _findings(JobAdapter().validate_update(old, new))


def judge_create(client: ApiClient, obj: dict[str, Any]) -> dict[str, Any]:
    """The apiserver's dry-run answer to creating the Job."""
    status, body = call(client, "POST", f"/apis/batch/v1/namespaces/{NAMESPACE}/jobs", obj, STRICT_DRY_RUN)
    return {"stage": "create", **answer(status, body)}


def judge_update(
    client: ApiClient, name: str, old: Any, new: Any
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """``(answer, stored old Job, the Job sent)`` for the update case; the old Job is deleted afterwards."""
    path = f"/apis/batch/v1/namespaces/{NAMESPACE}/jobs"
    status, stored = call(client, "POST", path, job(name, old), STRICT)
    assert status == 201, stored
    try:
        sent = copy.deepcopy(stored)
        sent["spec"].pop("scheduling", None)
        if new is not None:
            sent["spec"]["scheduling"] = copy.deepcopy(new)
        status, body = call(client, "PUT", f"{path}/{name}", sent, STRICT_DRY_RUN)
        return {"stage": "update", **answer(status, body)}, stored, sent
    finally:
        call(client, "DELETE", f"{path}/{name}", query=[("propagationPolicy", "Background")])
