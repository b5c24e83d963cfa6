"""Raw requests to the live apiserver through a kubernetes ``ApiClient``, answers as plain JSON.

The e2e tests need what the apiserver said, refusals included, in the shape
they are recorded in (``tests/data/e2e-recorded/``): the HTTP code, the
Status's message and each cause of an ``Invalid`` as ``(text, type, field)``,
the triple the offline validation is compared in.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from typing import Any

from kubernetes.client import ApiClient

GROUP = "scheduling.k8s.io"
PLURALS = {"Workload": "workloads", "PodGroup": "podgroups", "CompositePodGroup": "compositepodgroups"}
DEFAULT_VERSION = {"Workload": "v1beta1", "PodGroup": "v1beta1", "CompositePodGroup": "v1alpha3"}
STRICT_DRY_RUN = [("dryRun", "All"), ("fieldValidation", "Strict")]
STRICT = [("fieldValidation", "Strict")]


def call(
    client: ApiClient,
    method: str,
    path: str,
    body: Any = None,
    query: list[tuple[str, str]] | None = None,
    content_type: str = "application/json",
) -> tuple[int, Any]:
    """One request; the status code and the decoded JSON answer, for refusals too."""
    method, url, headers, data, _ = client.param_serialize(
        method,
        path,
        query_params=query or [],
        header_params={"Content-Type": content_type, "Accept": "application/json"},
        body=body,
        auth_settings=["BearerToken"],
    )
    response = client.call_api(method, url, header_params=headers, body=data)
    raw = response.read()
    try:
        return int(response.status), json.loads(raw) if raw else None
    except ValueError:
        return int(response.status), {"message": raw.decode("utf-8", "replace")}


def scheduling_path(kind: str, api_version: Any, namespace: str, name: str | None = None) -> str:
    """The URL of a scheduling.k8s.io collection, or of one object in it."""
    version = DEFAULT_VERSION[kind]
    if isinstance(api_version, str) and api_version.startswith(GROUP + "/"):
        version = api_version.split("/", 1)[1]
    path = f"/apis/{GROUP}/{version}/namespaces/{namespace}/{PLURALS[kind]}"
    return f"{path}/{name}" if name else path


def answer(status: int, body: Any) -> dict[str, Any]:
    """The recorded form of one answer: ``code``, ``accepted``, ``reason``, ``message``, ``errors``."""
    body = body if isinstance(body, Mapping) else {}
    accepted = 200 <= status < 300
    causes = (body.get("details") or {}).get("causes") or [] if not accepted else []
    errors = [
        [
            f"{c['field']}: {c.get('message', '')}" if c.get("field") else c.get("message", ""),
            c.get("reason", ""),
            c.get("field", ""),
        ]
        for c in causes
    ]
    return {
        "code": status,
        "accepted": accepted,
        "reason": "" if accepted else str(body.get("reason", "")),
        "message": "" if accepted else str(body.get("message", "")),
        "errors": errors,
    }


def wait_for(what: str, probe: Callable[[], Any], timeout: float = 60.0, every: float = 0.25) -> Any:
    """Poll ``probe`` until it returns something true; that value, or AssertionError after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(every)


def items(client: ApiClient, path: str) -> list[dict[str, Any]]:
    """The items of a List (``[]`` when the collection answers anything but 200)."""
    status, body = call(client, "GET", path)
    return list(body.get("items") or []) if status == 200 and isinstance(body, Mapping) else []


def force_delete_pods(client: ApiClient, pods: list[dict[str, Any]]) -> None:
    """Delete each pod at once (``gracePeriodSeconds=0``): no kubelet ever confirms a graceful deletion."""
    for pod in pods:
        meta = pod["metadata"]
        call(
            client,
            "DELETE",
            f"/api/v1/namespaces/{meta['namespace']}/pods/{meta['name']}",
            query=[("gracePeriodSeconds", "0")],
        )


def delete_jobs(client: ApiClient, namespace: str, name: str | None = None) -> None:
    """Delete the namespace's Jobs (or one), wait until they are gone, then their pods, and wait for those too.

    The Jobs go first, with ``propagationPolicy=Background``: a pod deleted while
    its Job still exists is made again by the Job controller. Once the Jobs are
    gone, every pod they left is deleted at once, and the wait ends when the
    apiserver lists none (a pod's ``job-tracking`` finalizer holds it until the
    controller lets go).
    """
    jobs = f"/apis/batch/v1/namespaces/{namespace}/jobs"
    background = [("propagationPolicy", "Background")]
    if name is None:
        call(client, "DELETE", jobs, query=background)
    else:
        call(client, "DELETE", f"{jobs}/{name}", query=background)

    def jobs_gone() -> bool:
        listed = items(client, jobs)
        return not [j for j in listed if name is None or j["metadata"]["name"] == name]

    wait_for(f"the Jobs of {namespace} to go", jobs_gone, timeout=60)
    selector = "batch.kubernetes.io/job-name" + ("" if name is None else f"%3D{name}")
    pods = f"/api/v1/namespaces/{namespace}/pods?labelSelector={selector}"

    def pods_gone() -> bool:
        left = items(client, pods)
        force_delete_pods(client, left)
        return not left

    wait_for(f"the Jobs' pods of {namespace} to go", pods_gone, timeout=60, every=0.5)


def delete_namespace(client: ApiClient, namespace: str) -> None:
    """Delete a namespace and wait until no pod of it is left (the namespace itself finishes on its own).

    Its Jobs go first (``delete_jobs``), so that no controller makes pods while
    the namespace empties; then the namespace, whose remaining pods are deleted
    at once on every poll (the namespace controller deletes them gracefully, and
    a bound pod would wait for a kubelet forever). What a later test can meet is
    the room pods hold: once the apiserver lists none, the namespace's other
    objects (events, PodGroups without pods) are the namespace controller's to
    finish, and every test has a namespace of its own, so waiting for the
    terminating namespace to vanish (seconds of finalizers each) buys nothing.
    """
    if call(client, "GET", f"/api/v1/namespaces/{namespace}")[0] == 404:
        return
    delete_jobs(client, namespace)
    call(client, "DELETE", f"/api/v1/namespaces/{namespace}")

    def emptied() -> bool:
        pods = items(client, f"/api/v1/namespaces/{namespace}/pods")
        force_delete_pods(client, pods)
        return not pods

    wait_for(f"the pods of namespace {namespace} to go", emptied, timeout=180, every=0.5)


def delete_nodes(client: ApiClient, names: list[str]) -> None:
    """Delete the Nodes and wait until the apiserver has none of them."""
    for name in names:
        call(client, "DELETE", f"/api/v1/nodes/{name}")
    wait_for(
        f"Nodes {', '.join(names)} to go",
        lambda: all(call(client, "GET", f"/api/v1/nodes/{name}")[0] == 404 for name in names),
        timeout=60,
    )


def scheduler_sees(client: ApiClient, namespace: str, node: str) -> None:
    """Wait until kube-scheduler's cache holds ``node``, the last Node created, and every change before it.

    A canary pod that only ``node`` can take (node affinity on ``metadata.name``,
    no requests) is created and waited for until it is bound; the scheduler binds
    it from its own cache, which its Node informer fills in the order the
    apiserver wrote the Nodes, so every Node created or deleted before ``node``
    is in the cache too. The canary is then deleted at once and waited for; the
    pods created after that reach the scheduler after its deletion (one pod
    informer, in order), so it takes no room from them.
    """
    affinity = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}]
            }
        }
    }
    name = f"canary-{node}"
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "affinity": affinity,
            "tolerations": [{"operator": "Exists"}],
            "terminationGracePeriodSeconds": 0,
            "containers": [{"name": "main", "image": "e2e.invalid/none:1"}],
        },
    }
    status, body = call(client, "POST", f"/api/v1/namespaces/{namespace}/pods", pod)
    assert status == 201, body
    path = f"/api/v1/namespaces/{namespace}/pods/{name}"
    wait_for(f"the scheduler to bind {name}", lambda: (call(client, "GET", path)[1].get("spec") or {}).get("nodeName"))
    call(client, "DELETE", path, query=[("gracePeriodSeconds", "0")])
    wait_for(f"{name} to go", lambda: call(client, "GET", path)[0] == 404)
