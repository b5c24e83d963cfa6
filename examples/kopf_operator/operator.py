"""A kopf operator for the made-up TrainingCluster resource: its scheduling objects, made on create.

When a TrainingCluster is created, ``create_training_cluster``:

1. plans it with the CRD adapter and the mapping of ``examples/training_cluster/``
   (an invalid resource is a permanent error, at the resource's own paths);
2. compiles the Workload, the cluster's CompositePodGroup and one PodGroup
   per role, as Kubernetes JSON, and lets ``kopf.adopt`` make them the
   resource's children (same namespace, its labels; the adapter already set
   the resource as their controller owner);
3. creates them with ``workloadbuilder.interop.apply`` in the KEP's order,
   and raises what kopf should do about a refusal: retry later (a conflict,
   a server error) or give up (an invalid object).

Run it against a cluster with ``kopf run examples/kopf_operator/operator.py``
(``TRAININGCLUSTER_DRY_RUN=1`` for server-side dry runs only). Importing it
needs no cluster: the client is configured at startup, and tests call the
handler with a ``kopf.Memo`` of their own (``tests/core/test_interop.py``).
Creating the pods from the stamped templates (``compiled.source``,
``compiled.pods``) is the controller's next step, not shown.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import kopf
import kubernetes
from workloadbuilder.adapters import PlanError
from workloadbuilder.adapters.crd import CRDAdapter

from workloadbuilder import to_dict
from workloadbuilder.interop import apply

MAPPING = Path(__file__).resolve().parent.parent / "training_cluster" / "mapping.yaml"
ADAPTER = CRDAdapter.from_yaml(MAPPING)
FIELD_MANAGER = "trainingcluster-operator"


@kopf.on.startup()
def configure(memo: kopf.Memo, **_: Any) -> None:
    """Connect to the cluster: in-cluster credentials, else the local kubeconfig."""
    kubernetes.config.load_config()
    memo.api_client = kubernetes.client.ApiClient()
    memo.dry_run = os.environ.get("TRAININGCLUSTER_DRY_RUN", "") == "1"


@kopf.on.create("training.example.com", "v1", "trainingclusters")
def create_training_cluster(
    body: Mapping[str, Any], memo: kopf.Memo, logger: logging.Logger, **_: Any
) -> dict[str, Any]:
    """Create a TrainingCluster's Workload and groups; what kopf stores in its status.

    Returns:
        ``{"workload": <name>, "objects": {<name>: <action>}}``.

    Raises:
        kopf.PermanentError: the resource (or an object made from it) is invalid.
        kopf.TemporaryError: a conflict or any other refusal; kopf retries.
    """
    try:
        compiled = ADAPTER.plan(body).compile()
    except PlanError as err:
        raise kopf.PermanentError("; ".join(str(finding) for finding in err.findings)) from err
    objects = [to_dict(obj) for obj in compiled.objects()]
    kopf.adopt(objects, owner=body)

    results = apply(objects, memo.api_client, dry_run=memo.get("dry_run", False), field_manager=FIELD_MANAGER)
    for result in results:
        logger.info("%s", result)
    failed = next((result for result in results if not result.ok and result.action != "skipped"), None)
    if failed is not None:
        if failed.error is not None and failed.error.code in (400, 422):
            raise kopf.PermanentError(str(failed))
        raise kopf.TemporaryError(str(failed), delay=30)
    assert compiled.workload is not None  # a TrainingCluster always makes one
    return {"workload": compiled.workload.metadata.name, "objects": {result.name: result.action for result in results}}
