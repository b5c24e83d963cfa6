"""``doctor.live.read_live`` called directly against a routed server on 127.0.0.1: what it reads, and its errors.

``test_live.py`` tests ``parse_target``; this file the reads: every path ``read_live`` asks for, the
``kind``/``apiVersion`` it adds to each item, a list the server does not serve read as empty, and the
one-line errors of a missing target, a refusal and a wrong shape.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

import pytest
from kubernetes.client import Configuration

from workloadbuilder.doctor.live import DoctorInputError, LiveState, parse_target, read_live
from workloadbuilder.doctor.transport import ApiReader, ApiReadError, ReadLimits

JOB_PATH = "/apis/batch/v1/namespaces/ml/jobs/train"
JOB = {"metadata": {"name": "train", "namespace": "ml"}, "spec": {"parallelism": 2}}
FAST = ReadLimits(connect_timeout=1, request_timeout=2, total_timeout=10)
PATHS = [
    JOB_PATH,
    "/apis/scheduling.k8s.io/v1beta1/namespaces/ml/workloads",
    "/apis/scheduling.k8s.io/v1beta1/namespaces/ml/podgroups",
    "/apis/scheduling.k8s.io/v1alpha3/namespaces/ml/compositepodgroups",
    "/api/v1/pods",
    "/api/v1/namespaces/ml/events",
    "/api/v1/nodes",
    "/apis/scheduling.k8s.io/v1/priorityclasses",
    "/apis/policy/v1/poddisruptionbudgets",
    "/apis/resource.k8s.io/v1/resourceslices",
]


@contextlib.contextmanager
def apiserver(routes: dict[str, tuple[int, Any]]) -> Iterator[tuple[str, list[str]]]:
    """Answers each GET by its path from ``routes`` (a JSON body), else 200 with an empty list."""
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            path = urlsplit(self.path).path
            seen.append(path)
            status, body = routes.get(path, (200, {"items": []}))
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", seen
    finally:
        httpd.shutdown()
        httpd.server_close()


def read(routes: dict[str, tuple[int, Any]], target: str = "job/train") -> tuple[LiveState, list[str]]:
    kind, name = parse_target(target)
    with apiserver(routes) as (url, seen):
        state = read_live(Configuration(host=url), kind, name, "ml", FAST)
    return state, seen


def test_every_read_is_a_get_of_its_path_and_items_get_their_kind() -> None:
    node = {"metadata": {"name": "n1"}}
    state, seen = read({JOB_PATH: (200, JOB), "/api/v1/nodes": (200, {"items": [node]})})
    assert seen == PATHS
    assert state.target == {"apiVersion": "batch/v1", "kind": "Job", **JOB}
    assert state.nodes == [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}]
    assert state.pods == state.events == state.workloads == []


def test_a_list_the_server_does_not_serve_reads_as_empty() -> None:
    served = {JOB_PATH: (200, JOB), "/apis/resource.k8s.io/v1/resourceslices": (404, {"kind": "Status"})}
    state, _ = read({**served, "/apis/scheduling.k8s.io/v1alpha3/namespaces/ml/compositepodgroups": (404, {})})
    assert (state.resource_slices, state.composite_pod_groups) == ([], [])


def test_a_missing_target_is_the_apiservers_404_message() -> None:
    message = 'jobs.batch "train" not found'
    with pytest.raises(DoctorInputError) as caught:
        read({JOB_PATH: (404, {"kind": "Status", "message": message})})
    assert str(caught.value) == f"{message} in namespace 'ml'"
    with pytest.raises(DoctorInputError) as bare:
        read({JOB_PATH: (404, {})})
    assert str(bare.value) == "jobs.batch \"train\" not found in namespace 'ml'"


def refused(routes: dict[str, tuple[int, Any]]) -> tuple[str, int]:
    with pytest.raises(ApiReadError) as caught:
        read(routes)
    message = str(caught.value)
    return message.split(": ", 1)[1], caught.value.status


@pytest.mark.parametrize(
    ("routes", "problem", "status"),
    [
        (
            {JOB_PATH: (403, {"message": 'jobs.batch "train" is forbidden'})},
            "the apiserver refused (403 Forbidden) to read jobs.batch 'train' in namespace 'ml': "
            'jobs.batch "train" is forbidden',
            403,
        ),
        (
            {JOB_PATH: (401, {})},
            "the apiserver did not accept the credentials (401 Unauthorized) to read jobs.batch 'train' in namespace"
            " 'ml'",
            401,
        ),
        ({JOB_PATH: (500, {})}, "the apiserver answered 500 (error) to read jobs.batch 'train' in namespace 'ml'", 500),
        ({JOB_PATH: (200, [1])}, "expected a Job object, the apiserver sent a list", 200),
        ({JOB_PATH: (200, {"kind": "Pod"})}, "expected a Job, the apiserver sent kind 'Pod'", 200),
        ({JOB_PATH: (200, {"metadata": []})}, "metadata: expected an object, found a list", 200),
        (
            {JOB_PATH: (200, JOB), "/api/v1/pods": (403, {})},
            "the apiserver refused (403 Forbidden) to list pods in all namespaces",
            403,
        ),
        (
            {JOB_PATH: (200, JOB), "/api/v1/nodes": (200, {"items": {}})},
            "items: expected a list, found an object",
            200,
        ),
        (
            {JOB_PATH: (200, JOB), "/api/v1/nodes": (200, {"items": [3]})},
            "items[0]: expected a Node object, found a number",
            200,
        ),
        (
            {JOB_PATH: (200, JOB), "/apis/scheduling.k8s.io/v1/priorityclasses": (200, "x")},
            "expected a PriorityClassList object, the apiserver sent a string",
            200,
        ),
    ],
    ids=[
        "target-forbidden",
        "target-unauthorized",
        "target-server-error",
        "target-not-an-object",
        "target-of-another-kind",
        "target-metadata-not-an-object",
        "list-forbidden",
        "items-not-a-list",
        "item-not-an-object",
        "list-not-an-object",
    ],
)
def test_refusals_and_wrong_shapes(routes: dict[str, tuple[int, Any]], problem: str, status: int) -> None:
    assert refused(routes) == (problem, status)


def test_read_live_takes_an_api_reader_or_a_client_or_a_configuration() -> None:
    kind, name = parse_target("job/train")
    with apiserver({JOB_PATH: (200, JOB)}) as (url, _):
        with ApiReader(Configuration(host=url), FAST) as reader:
            assert read_live(reader, kind, name, "ml").target["metadata"] == JOB["metadata"]

        class Client:
            configuration = Configuration(host=url)

        assert read_live(Client(), kind, name, "ml", FAST).target["kind"] == "Job"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"kind": "job"}, "read_live(): kind must be an ObjectKind, not str"),
        ({"name": 3}, "read_live(): name must be a str, not int"),
        ({"namespace": None}, "read_live(): namespace must be a str, not NoneType"),
        ({"client": object()}, "read_live(): client must be an ApiReader, ApiClient or Configuration, not object"),
    ],
    ids=["kind", "name", "namespace", "client"],
)
def test_argument_types(arguments: dict[str, Any], message: str) -> None:
    kind, name = parse_target("job/train")
    given: dict[str, Any] = {"client": Configuration(host="http://127.0.0.1:1"), "kind": kind, "name": name}
    given.update({"namespace": "ml", **arguments})
    with pytest.raises(TypeError) as caught:
        read_live(**given)
    assert str(caught.value) == message
