"""``interop.apply`` against the real apiserver: dry run, create, apply again, a minCount resize, delete.

The objects are what the Job adapter compiles for a Job that is never
created, their owner references pointed at a ConfigMap that is: the garbage
collector deletes, within seconds, an object whose owner does not exist
(the first run of this test saw the objects vanish between two applies), and
a real Job would get a Workload of the same name from the Job controller.
The resize is ``apply(resize=True)`` of what the adapter compiles for the
same Job with another gang ``minCount``: one strategic-merge PATCH per object
(``gang_resize_patch``'s body), dry run first. ``interop.delete`` deletes
them, PodGroup first; a PodGroup goes only once kube-controller-manager has
taken off the ``scheduling.k8s.io/podgroup-protection`` finalizer the
apiserver puts on it (no pod refers to it), so the test waits for the 404s.
"""

from __future__ import annotations

from typing import Any

from job_cases import job_manifest
from live_api import call, wait_for

from workloadbuilder import interop, to_dict
from workloadbuilder.adapters.job import JobAdapter


def _owner(api_client: Any, namespace: str) -> dict[str, Any]:
    status, owner = call(
        api_client, "POST", f"/api/v1/namespaces/{namespace}/configmaps", {"metadata": {"name": "owner"}}
    )
    assert status == 201, owner
    return {"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": owner["metadata"]["uid"]}


def _compiled(namespace: str, owner: dict[str, Any], min_count: int = 3) -> list[dict[str, Any]]:
    """The Workload and PodGroup of Job ``gang-min-count`` (4 pods) with a gang of ``min_count``, owned by ``owner``."""
    job = job_manifest("gang-min-count", namespace)
    job["metadata"]["uid"] = "0f2b7a4e-5c1d-4a8e-9b3f-6d7e8f9a0b1c"
    job["spec"]["scheduling"]["schedulingPolicy"]["gang"]["minCount"] = min_count
    objects = [to_dict(obj) for obj in JobAdapter().plan(job).compile().objects()]
    for obj in objects:
        obj["metadata"]["ownerReferences"] = [owner]
    return objects


def _path(namespace: str, data: dict[str, Any]) -> str:
    plural = data["kind"].lower() + "s"
    return f"/apis/scheduling.k8s.io/v1beta1/namespaces/{namespace}/{plural}/{data['metadata']['name']}"


def _min_counts(api_client: Any, namespace: str, objects: list[dict[str, Any]]) -> list[int]:
    found = []
    for data in objects:
        status, stored = call(api_client, "GET", _path(namespace, data))
        assert status == 200, stored
        templates = stored["spec"].get("podGroupTemplates") or [stored["spec"]]
        found.append(templates[0]["schedulingPolicy"]["gang"]["minCount"])
    return found


def test_apply_dry_run_then_create_then_unchanged(api_client: Any, namespace: str) -> None:
    objects = _compiled(namespace, _owner(api_client, namespace))
    assert [r.action for r in interop.apply(objects, api_client)] == ["dry-run-created"] * len(objects)
    assert [r.action for r in interop.apply(objects, api_client, dry_run=False)] == ["created"] * len(objects)
    assert [r.action for r in interop.apply(objects, api_client, dry_run=False)] == ["unchanged"] * len(objects)


def test_resize_then_delete(api_client: Any, namespace: str) -> None:
    owner = _owner(api_client, namespace)
    objects = _compiled(namespace, owner)
    assert [r.action for r in interop.apply(objects, api_client, dry_run=False)] == ["created", "created"]
    resized = _compiled(namespace, owner, min_count=2)
    assert [r.action for r in interop.apply(resized, api_client, dry_run=False)] == ["conflict", "skipped"]
    dry = interop.apply(resized, api_client, resize=True)
    assert [r.action for r in dry] == ["dry-run-resized", "dry-run-resized"], [str(r) for r in dry]
    assert _min_counts(api_client, namespace, objects) == [3, 3]
    done = interop.apply(resized, api_client, dry_run=False, resize=True)
    assert [(r.kind, r.action) for r in done] == [("Workload", "resized"), ("PodGroup", "resized")], [
        str(r) for r in done
    ]
    assert done[1].differences == ("spec.schedulingPolicy.gang.minCount",)
    assert _min_counts(api_client, namespace, objects) == [2, 2]
    assert [r.action for r in interop.apply(resized, api_client, dry_run=False)] == ["unchanged", "unchanged"]

    assert [r.action for r in interop.delete(resized, api_client)] == ["dry-run-deleted", "dry-run-deleted"]
    assert _min_counts(api_client, namespace, objects) == [2, 2]
    deleted = interop.delete(resized, api_client, dry_run=False)
    assert [(r.kind, r.action) for r in deleted] == [("PodGroup", "deleted"), ("Workload", "deleted")]
    for data in objects:
        path = _path(namespace, data)
        wait_for(f"{path} to go", lambda url=path: call(api_client, "GET", url)[0] == 404, timeout=60)
    assert [r.action for r in interop.delete(resized, api_client, dry_run=False)] == ["absent", "absent"]
