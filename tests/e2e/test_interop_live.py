"""``interop.apply`` against the real apiserver: dry run, create, apply again, a minCount resize, delete.

The objects are what the Job adapter compiles for a Job that is never
created, their owner references pointed at a ConfigMap that is: the garbage
collector deletes, within seconds, an object whose owner does not exist
(the first run of this test saw the objects vanish between two applies), and
a real Job would get a Workload of the same name from the Job controller.
``interop`` has no update or delete of its own: the resize is
``gang_resize_patch`` sent as the strategic-merge patch its docstring names,
the delete a plain DELETE. A PodGroup goes only once kube-controller-manager
has taken off the ``scheduling.k8s.io/podgroup-protection`` finalizer the
apiserver puts on it (no pod refers to it), so the test waits for the 404.
"""

from __future__ import annotations

from typing import Any

from job_cases import job_manifest
from live_api import call, wait_for

from workloadbuilder import gang_resize_patch, interop, to_dict
from workloadbuilder.adapters.job import JobAdapter


def _compiled(api_client: Any, namespace: str) -> list[dict[str, Any]]:
    status, owner = call(
        api_client, "POST", f"/api/v1/namespaces/{namespace}/configmaps", {"metadata": {"name": "owner"}}
    )
    assert status == 201, owner
    job = job_manifest("gang-min-count", namespace)
    job["metadata"]["uid"] = "0f2b7a4e-5c1d-4a8e-9b3f-6d7e8f9a0b1c"
    reference = {"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": owner["metadata"]["uid"]}
    objects = [to_dict(obj) for obj in JobAdapter().plan(job).compile().objects()]
    for obj in objects:
        obj["metadata"]["ownerReferences"] = [reference]
    return objects


def test_apply_dry_run_then_create_then_unchanged(api_client: Any, namespace: str) -> None:
    objects = _compiled(api_client, namespace)
    assert [r.action for r in interop.apply(objects, api_client)] == ["dry-run-created"] * len(objects)
    assert [r.action for r in interop.apply(objects, api_client, dry_run=False)] == ["created"] * len(objects)
    assert [r.action for r in interop.apply(objects, api_client, dry_run=False)] == ["unchanged"] * len(objects)


def test_resize_then_delete(api_client: Any, namespace: str) -> None:
    objects = _compiled(api_client, namespace)
    assert all(r.ok for r in interop.apply(objects, api_client, dry_run=False))
    for data in objects:
        path = (
            f"/apis/scheduling.k8s.io/v1beta1/namespaces/{namespace}/{data['kind'].lower()}s/{data['metadata']['name']}"
        )
        status, stored = call(api_client, "GET", path)
        assert status == 200, stored
        patch = gang_resize_patch(stored, 2)
        status, patched = call(api_client, "PATCH", path, patch, content_type="application/strategic-merge-patch+json")
        assert status == 200, patched
        templates = patched["spec"].get("podGroupTemplates") or [patched["spec"]]
        assert templates[0]["schedulingPolicy"]["gang"]["minCount"] == 2
        assert call(api_client, "DELETE", path)[0] == 200
        wait_for(f"{path} to go", lambda url=path: call(api_client, "GET", url)[0] == 404, timeout=30)
