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
