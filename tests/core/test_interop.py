"""``apply`` against a recording stand-in for the apiserver, through the real kubernetes client.

``FakeApiServer`` serves the scheduling.k8s.io create and read endpoints on
127.0.0.1 (an ephemeral port, a thread per test, always shut down). It
records what the client really sends (verb, path, ``dryRun``, body) and
answers as the apiserver does: ``201`` with the object and a uid (and the
server's own defaults), ``409 AlreadyExists`` for a name it holds, the
stored object on ``GET``, and whatever ``Status`` a test asks for.

The kopf tests (adoption, the example operator's handler) skip without kopf;
nothing else needs it.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import logging
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import yaml
from kubernetes.client import ApiClient, Configuration, V1OwnerReference
from pydantic import BaseModel

from workloadbuilder import Builder, BuildOptions, PolicyInput, WorkloadInput, WorkloadItem, to_dict
from workloadbuilder.adapters.crd import CRDAdapter
from workloadbuilder.interop import ApiStatus, ApplyResult, apply, creation_order, delete, spec_differences
from workloadbuilder.manifests import ManifestError
from workloadbuilder.runtime.hierarchy import materialize
from workloadbuilder.runtime.naming import workload_name

ROOT = Path(__file__).resolve().parents[2]
TRAINING = ROOT / "examples" / "training_cluster"

# ---------------------------------------------------------------------------
# The fake apiserver
# ---------------------------------------------------------------------------

_PATH = re.compile(
    r"/apis/scheduling\.k8s\.io/(?P<version>v1beta1|v1alpha3)/namespaces/(?P<namespace>[^/]+)"
    r"/(?P<plural>workloads|podgroups|compositepodgroups)(?:/(?P<name>[^/]+))?"
)
_KINDS = {"workloads": "Workload", "podgroups": "PodGroup", "compositepodgroups": "CompositePodGroup"}
_PRIORITY_CLASSES = {"training-high": 1000}


@dataclass(frozen=True)
class Request:
    """One request as the server saw it: verb, path without the query, and the ``dryRun`` parameter."""

    method: str
    path: str
    dry_run: str | None


@dataclass(frozen=True)
class Answer:
    """A canned answer to a create: status code, reason phrase, body, content type."""

    code: int
    phrase: str
    body: str
    content_type: str = "application/json"


def status(code: int, reason: str, message: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    """A ``metav1.Status`` failure, as the apiserver writes it."""
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
        "details": details or {},
        "code": code,
    }


@dataclass
class FakeApiServer:
    """What the apiserver holds and what it was asked.

    Attributes:
        stored: collection path + ``/`` + name to the stored object.
        refuse: name to the answer a ``POST`` of that name gets.
        vanish: names whose ``POST`` is ``409`` but which are gone on ``GET``.
        requests, bodies, patches, queries: every request, the ``POST`` and ``PATCH`` bodies, every query.
        refuse_delete: name to the answer a ``DELETE`` of that name gets.
    """

    url: str = ""
    stored: dict[str, dict[str, Any]] = field(default_factory=dict)
    refuse: dict[str, Answer] = field(default_factory=dict)
    vanish: set[str] = field(default_factory=set)
    requests: list[Request] = field(default_factory=list)
    bodies: list[dict[str, Any]] = field(default_factory=list)
    patches: list[dict[str, Any]] = field(default_factory=list)
    refuse_delete: dict[str, Answer] = field(default_factory=dict)
    queries: list[dict[str, list[str]]] = field(default_factory=list)

    def handle(self, method: str, target: str, body: bytes) -> Answer:
        url = urlsplit(target)
        query = parse_qs(url.query)
        self.queries.append(query)
        self.requests.append(Request(method, url.path, query.get("dryRun", [None])[0]))
        match = _PATH.fullmatch(url.path)
        if match is None:
            return _json_answer(
                404, "Not Found", status(404, "NotFound", "the server could not find the requested resource")
            )
        plural, name = match["plural"], match["name"]
        collection = url.path if name is None else url.path.rsplit("/", 1)[0]
        if method == "GET" and name is not None:
            stored = self.stored.get(f"{collection}/{name}")
            if stored is None or name in self.vanish:
                return _not_found(plural, name)
            return _json_answer(200, "OK", stored)
        if method == "POST" and name is None:
            obj = json.loads(body)
            self.bodies.append(obj)
            return self._create(collection, plural, obj, query.get("dryRun") == ["All"])
        if method == "PATCH" and name is not None:  # a strategic-merge patch of maps; lists are replaced
            stored = self.stored.get(f"{collection}/{name}")
            if stored is None:
                return _not_found(plural, name)
            patch = json.loads(body)
            self.patches.append(patch)
            patched = _merged(stored, patch)
            if query.get("dryRun") != ["All"]:
                self.stored[f"{collection}/{name}"] = patched
            return _json_answer(200, "OK", patched)
        if method == "DELETE" and name is not None:
            if name in self.refuse_delete:
                return self.refuse_delete[name]
            stored = self.stored.get(f"{collection}/{name}")
            if stored is None:
                return _not_found(plural, name)
            if query.get("dryRun") != ["All"]:
                del self.stored[f"{collection}/{name}"]
            return _json_answer(200, "OK", stored)
        return _json_answer(405, "Method Not Allowed", status(405, "MethodNotAllowed", f"{method} is not supported"))

    def _create(self, collection: str, plural: str, obj: dict[str, Any], dry_run: bool) -> Answer:
        name = obj["metadata"]["name"]
        if name in self.refuse:
            return self.refuse[name]
        if f"{collection}/{name}" in self.stored or name in self.vanish:
            message = f'{plural}.scheduling.k8s.io "{name}" already exists'
            details = {"name": name, "group": "scheduling.k8s.io", "kind": plural}
            return _json_answer(409, "Conflict", status(409, "AlreadyExists", message, details))
        created = self.admit(plural, obj)
        if not dry_run:
            self.stored[f"{collection}/{name}"] = created
        return _json_answer(201, "Created", created)

    @staticmethod
    def admit(plural: str, obj: dict[str, Any]) -> dict[str, Any]:
        """What the apiserver makes of a new object: a uid, the group default, the resolved priority."""
        created = copy.deepcopy(obj)
        created["metadata"]["uid"] = f"uid-{created['metadata']['name']}"
        spec = created.setdefault("spec", {})
        if plural != "workloads":
            spec.setdefault("disruptionMode", {"single": {}})
            if spec.get("priorityClassName") in _PRIORITY_CLASSES:
                spec["priority"] = _PRIORITY_CLASSES[spec["priorityClassName"]]
        return created


def _merged(stored: Any, patch: Any) -> Any:
    if not isinstance(stored, dict) or not isinstance(patch, dict):
        return copy.deepcopy(patch)
    merged = copy.deepcopy(stored)
    for key, value in patch.items():
        merged[key] = _merged(stored.get(key), value)
    return merged


def _json_answer(code: int, phrase: str, body: dict[str, Any]) -> Answer:
    return Answer(code, phrase, json.dumps(body))


def _not_found(plural: str, name: str) -> Answer:
    details = {"name": name, "group": "scheduling.k8s.io", "kind": plural}
    return _json_answer(
        404, "Not Found", status(404, "NotFound", f'{plural}.scheduling.k8s.io "{name}" not found', details)
    )


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _serve(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        answer = self.server.fake.handle(self.command, self.path, self.rfile.read(length))
        data = answer.body.encode()
        self.send_response(answer.code, answer.phrase)
        self.send_header("Content-Type", answer.content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _serve


class _Server(HTTPServer):
    fake: FakeApiServer


@pytest.fixture
def server() -> Iterator[FakeApiServer]:
    """A fake apiserver on an ephemeral port of 127.0.0.1, shut down after the test."""
    httpd = _Server(("127.0.0.1", 0), _Handler)
    httpd.fake = FakeApiServer(url=f"http://127.0.0.1:{httpd.server_port}")
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    try:
        yield httpd.fake
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


@pytest.fixture
def client(server: FakeApiServer) -> Iterator[ApiClient]:
    """A kubernetes ApiClient for the fake apiserver (no proxy from the environment)."""
    configuration = Configuration(host=server.url)
    configuration.proxy = None
    with ApiClient(configuration) as api_client:
        yield api_client


# ---------------------------------------------------------------------------
# Objects: an LWS-shaped hierarchy and the TrainingCluster example
# ---------------------------------------------------------------------------

WORKLOADS = "/apis/scheduling.k8s.io/v1beta1/namespaces/serving/workloads"
COMPOSITES = "/apis/scheduling.k8s.io/v1alpha3/namespaces/serving/compositepodgroups"
POD_GROUPS = "/apis/scheduling.k8s.io/v1beta1/namespaces/serving/podgroups"

WL = "vllm-5865dbbbb8"
REPLICA_0, REPLICA_1 = f"{WL}-replica-0-5fd9cf4889", f"{WL}-replica-1-5f5dd6c4b8"
LEADER_0, WORKER_0 = f"{WL}-leader-0-7b5f6d544d", f"{WL}-worker-0-6ddc47f6f7"
LEADER_1, WORKER_1 = f"{WL}-leader-1-8b8f85985", f"{WL}-worker-1-5c8b74d6fb"
LWS_ORDER = [
    ("Workload", WL),
    ("CompositePodGroup", REPLICA_0),
    ("CompositePodGroup", REPLICA_1),
    ("PodGroup", LEADER_0),
    ("PodGroup", WORKER_0),
    ("PodGroup", LEADER_1),
    ("PodGroup", WORKER_1),
]
LWS_PATHS = [WORKLOADS, COMPOSITES, COMPOSITES, POD_GROUPS, POD_GROUPS, POD_GROUPS, POD_GROUPS]


def lws_objects() -> list[BaseModel]:
    """A LeaderWorkerSet with two replicas, each a leader and a gang of four workers (docs/runtime.md)."""

    def gang(min_count: int) -> WorkloadInput:
        return WorkloadInput(policy=PolicyInput(pod_group_data={"gang": {"minCount": min_count}}))

    owner = V1OwnerReference(
        api_version="leaderworkerset.x-k8s.io/v1", kind="LeaderWorkerSet", name="vllm", uid="lws-uid", controller=True
    )
    root = WorkloadItem(
        name="replica",
        input=WorkloadInput(policy=PolicyInput(composite_pod_group_data={"gang": {"minGroupCount": 2}})),
        children=[WorkloadItem(name="leader", input=gang(1)), WorkloadItem(name="worker", input=gang(4))],
    )
    options = BuildOptions(name=workload_name("vllm", "lws-uid"), namespace="serving", owner=owner)
    workload = Builder(root, options).build_workload()
    return [workload, *materialize(workload, {"replica": 2}).objects()]


def lws_results(action: str) -> list[ApplyResult]:
    return [ApplyResult(kind, "serving", name, action) for kind, name in LWS_ORDER]  # type: ignore[arg-type]


def training_cluster() -> dict[str, Any]:
    return yaml.safe_load((TRAINING / "llama.yaml").read_text())


def training_objects() -> list[BaseModel]:
    """The TrainingCluster example compiled: a Workload, a CompositePodGroup, two PodGroups."""
    return CRDAdapter.from_yaml(TRAINING / "mapping.yaml").plan(training_cluster()).compile().objects()


def stored_names(server: FakeApiServer) -> list[str]:
    return [key.rsplit("/", 1)[1] for key in server.stored]


# ---------------------------------------------------------------------------
# apply: order, dry run, flavours
# ---------------------------------------------------------------------------


def _permuted(*order: int) -> Callable[[list[BaseModel]], list[Any]]:
    return lambda objects: [objects[i] for i in order]


# id -> (what is given to apply, made from lws_objects(); the order the objects are sent in).
# Within a rank (Workloads, CompositePodGroups of one depth, PodGroups) the given order is kept.
FLAVOURS: dict[str, tuple[Callable[[list[BaseModel]], list[Any]], list[int]]] = {
    "models": (lambda objects: objects, [0, 1, 2, 3, 4, 5, 6]),
    "dicts": (lambda objects: [to_dict(obj) for obj in objects], [0, 1, 2, 3, 4, 5, 6]),
    "reversed-dicts": (lambda objects: [to_dict(obj) for obj in reversed(objects)], [0, 2, 1, 6, 5, 4, 3]),
    "shuffled-models": (_permuted(5, 1, 3, 0, 6, 2, 4), [0, 1, 2, 5, 3, 6, 4]),
}


@pytest.mark.parametrize(("given", "sent"), FLAVOURS.values(), ids=FLAVOURS.keys())
def test_dry_run_creates_each_object_in_creation_order(
    server: FakeApiServer, client: ApiClient, given: Callable[[list[BaseModel]], list[Any]], sent: list[int]
):
    objects = lws_objects()
    results = apply(given(objects), client)
    assert server.requests == [Request("POST", path, "All") for path in LWS_PATHS]
    assert server.bodies == [to_dict(objects[i]) for i in sent]
    assert results == [lws_results("dry-run-created")[i] for i in sent]
    assert [to_dict(result.object)["metadata"]["uid"] for result in results] == [f"uid-{LWS_ORDER[i][1]}" for i in sent]
    assert server.stored == {}


def test_create_then_apply_again_reads_back_and_finds_nothing_changed(server: FakeApiServer, client: ApiClient):
    objects = lws_objects()
    assert apply(objects, client, dry_run=False) == lws_results("created")
    assert stored_names(server) == [name for _, name in LWS_ORDER]
    assert server.requests == [Request("POST", path, None) for path in LWS_PATHS]

    server.requests.clear()
    again = apply(objects, client, dry_run=False)
    assert again == lws_results("unchanged")
    assert server.requests == [
        request
        for (_, name), path in zip(LWS_ORDER, LWS_PATHS, strict=True)
        for request in (Request("POST", path, None), Request("GET", f"{path}/{name}", None))
    ]
    # The stored objects carry the server's default disruptionMode; ours leave it unset.
    assert to_dict(again[3].object)["spec"]["disruptionMode"] == {"single": {}}
    assert [to_dict(result.object)["metadata"]["uid"] for result in again] == [f"uid-{n}" for _, n in LWS_ORDER]


def test_a_dry_run_finds_existing_objects_unchanged(server: FakeApiServer, client: ApiClient):
    objects = training_objects()
    apply(objects, client, dry_run=False)
    server.requests.clear()
    results = apply(objects, client)
    assert [(r.kind, r.name, r.action) for r in results] == [
        ("Workload", "llama-7bbd6f4976", "unchanged"),
        ("CompositePodGroup", "llama-7bbd6f4976-cluster-57bc7cddc4", "unchanged"),
        ("PodGroup", "llama-7bbd6f4976-trainer-698c5d8c97", "unchanged"),
        ("PodGroup", "llama-7bbd6f4976-evaluator-646f4d489", "unchanged"),
    ]
    # The creates are dry runs, the reads are plain reads.
    assert [(r.method, r.dry_run) for r in server.requests] == [("POST", "All"), ("GET", None)] * 4
    # The trainer's priority was resolved by the server from its class; ours has only the class.
    assert to_dict(results[2].object)["spec"]["priority"] == 1000


def test_field_manager_is_sent_with_every_create(server: FakeApiServer, client: ApiClient):
    apply(lws_objects()[:2], client, field_manager="trainingcluster-operator")
    assert server.queries == [{"dryRun": ["All"], "fieldManager": ["trainingcluster-operator"]}] * 2


def test_without_a_client_the_default_one_is_used_and_left_open(server: FakeApiServer, client: ApiClient):
    ApiClient.set_default(client)
    try:
        first = apply(lws_objects()[:1])
        second = apply(lws_objects()[:1])
    finally:
        ApiClient.set_default(None)
    assert first == second == [ApplyResult("Workload", "serving", WL, "dry-run-created")]
    assert server.requests == [Request("POST", WORKLOADS, "All")] * 2


def test_nothing_to_apply_sends_nothing(server: FakeApiServer, client: ApiClient):
    assert apply([], client) == []
    assert server.requests == []


# ---------------------------------------------------------------------------
# apply: conflicts and errors
# ---------------------------------------------------------------------------


def test_a_different_existing_object_is_a_conflict_and_stops_the_rest(server: FakeApiServer, client: ApiClient):
    objects = lws_objects()
    theirs = FakeApiServer.admit("podgroups", to_dict(objects[4]))
    theirs["spec"]["schedulingPolicy"] = {"gang": {"minCount": 2}}
    theirs["spec"]["schedulingConstraints"] = {"topology": [{"key": "kubernetes.io/hostname"}]}
    server.stored[f"{POD_GROUPS}/{WORKER_0}"] = theirs
    before = copy.deepcopy(theirs)

    results = apply(objects, client, dry_run=False)

    assert results == [
        *lws_results("created")[:4],
        ApplyResult(
            "PodGroup",
            "serving",
            WORKER_0,
            "conflict",
            differences=("spec.schedulingPolicy.gang.minCount", "spec.schedulingConstraints"),
        ),
        ApplyResult("PodGroup", "serving", LEADER_1, "skipped"),
        ApplyResult("PodGroup", "serving", WORKER_1, "skipped"),
    ]
    assert to_dict(results[4].object) == before
    assert server.stored[f"{POD_GROUPS}/{WORKER_0}"] == before  # never overwritten
    assert server.requests == [
        *(Request("POST", path, None) for path in LWS_PATHS[:5]),
        Request("GET", f"{POD_GROUPS}/{WORKER_0}", None),
    ]
    assert str(results[4]) == (
        f"PodGroup serving/{WORKER_0}: conflict: spec.schedulingPolicy.gang.minCount, spec.schedulingConstraints differ"
    )


INVALID = status(
    422,
    "Invalid",
    f'CompositePodGroup.scheduling.k8s.io "{REPLICA_1}" is invalid: '
    "spec.schedulingPolicy.gang.minGroupCount: Invalid value: 3: must be less than or equal to 2",
    {
        "name": REPLICA_1,
        "group": "scheduling.k8s.io",
        "kind": "CompositePodGroup",
        "causes": [
            {
                "reason": "FieldValueInvalid",
                "message": "Invalid value: 3: must be less than or equal to 2",
                "field": "spec.schedulingPolicy.gang.minGroupCount",
            }
        ],
    },
)
FORBIDDEN = status(
    403,
    "Forbidden",
    'compositepodgroups.scheduling.k8s.io is forbidden: User "system:serviceaccount:ml:op" cannot create '
    'resource "compositepodgroups" in API group "scheduling.k8s.io" in the namespace "serving"',
)
OTHER_CONFLICT = status(409, "Conflict", "Operation cannot be fulfilled: the object has been modified")

# id -> (how the server treats REPLICA_1, the request after its POST if any, the expected error)
ERRORS: dict[str, tuple[Callable[[FakeApiServer], None], Request | None, ApiStatus]] = {
    "invalid-422": (
        lambda s: s.refuse.update({REPLICA_1: _json_answer(422, "Unprocessable Entity", INVALID)}),
        None,
        ApiStatus(422, "Invalid", INVALID["message"]),
    ),
    "forbidden-403": (
        lambda s: s.refuse.update({REPLICA_1: _json_answer(403, "Forbidden", FORBIDDEN)}),
        None,
        ApiStatus(403, "Forbidden", FORBIDDEN["message"]),
    ),
    "409-that-is-not-already-exists": (
        lambda s: s.refuse.update({REPLICA_1: _json_answer(409, "Conflict", OTHER_CONFLICT)}),
        None,
        ApiStatus(409, "Conflict", OTHER_CONFLICT["message"]),
    ),
    "gone-between-409-and-get": (
        lambda s: s.vanish.add(REPLICA_1),
        Request("GET", f"{COMPOSITES}/{REPLICA_1}", None),
        ApiStatus(404, "NotFound", f'compositepodgroups.scheduling.k8s.io "{REPLICA_1}" not found'),
    ),
    "not-a-status-503": (
        lambda s: s.refuse.update({REPLICA_1: Answer(503, "Service Unavailable", "upstream down", "text/plain")}),
        None,
        ApiStatus(503, "Service Unavailable", "upstream down"),
    ),
}


@pytest.mark.parametrize(("setup", "read", "error"), ERRORS.values(), ids=ERRORS.keys())
def test_a_refusal_is_reported_and_stops_the_rest(
    server: FakeApiServer,
    client: ApiClient,
    setup: Callable[[FakeApiServer], None],
    read: Request | None,
    error: ApiStatus,
):
    setup(server)
    results = apply(lws_objects(), client)
    assert results == [
        *lws_results("dry-run-created")[:2],
        ApplyResult("CompositePodGroup", "serving", REPLICA_1, "error", error=error),
        *(ApplyResult(kind, "serving", name, "skipped") for kind, name in LWS_ORDER[3:]),
    ]
    assert server.requests == [Request("POST", path, "All") for path in LWS_PATHS[:3]] + ([read] if read else [])
    assert [result.ok for result in results] == [True, True, False, False, False, False, False]


def test_an_invalid_answer_keeps_the_whole_status(server: FakeApiServer, client: ApiClient):
    server.refuse[REPLICA_1] = _json_answer(422, "Unprocessable Entity", INVALID)
    error = apply(lws_objects(), client)[2].error
    assert error is not None
    assert error.status == INVALID
    assert error.status["details"]["causes"][0]["field"] == "spec.schedulingPolicy.gang.minGroupCount"
    assert str(error) == f"422 Invalid: {INVALID['message']}"


# ---------------------------------------------------------------------------
# Input that cannot be applied: refused before any request
# ---------------------------------------------------------------------------


def _without(path: str) -> Callable[[dict[str, Any]], None]:
    def drop(obj: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        target = obj
        for name in parents:
            target = target[name]
        del target[last]

    return drop


BAD_INPUT: dict[str, tuple[Callable[[dict[str, Any]], Any], str]] = {
    "no-namespace": (
        _without("metadata.namespace"),
        f'<apply> (document 2): The CompositePodGroup "{REPLICA_0}" is invalid:\n* metadata.namespace: Required value',
    ),
    "no-name": (
        _without("metadata.name"),
        "<apply> (document 2): The CompositePodGroup is invalid:\n* metadata.name: Required value",
    ),
    "unknown-field": (
        lambda obj: obj["spec"].update(minGroupCont=2),
        f'<apply> (document 2): The CompositePodGroup "{REPLICA_0}" is invalid:\n* spec.minGroupCont: unknown field',
    ),
    "another-kind": (
        lambda obj: {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "namespace": "ml"}},
        (
            '<apply> (document 2): The Job "j" is invalid:\n'
            '* kind: Unsupported value: "Job": supported values: "CompositePodGroup", "PodGroup", "Workload"'
        ),
    ),
    "removed-version": (
        lambda obj: obj.update(apiVersion="scheduling.k8s.io/v1alpha2"),
        (
            f'<apply> (document 2): The CompositePodGroup "{REPLICA_0}" is invalid:\n'
            '* apiVersion: Invalid value: "scheduling.k8s.io/v1alpha2": CompositePodGroup scheduling.k8s.io/v1alpha2 '
            "is not served by Kubernetes 1.37: the workloadbuilder migrate command rewrites it to "
            "scheduling.k8s.io/v1alpha3"
        ),
    ),
    "not-an-object": (
        lambda obj: "kind: PodGroup",
        "<apply> (document 2): an object to apply is a client model or a dict, not str",
    ),
}


@pytest.mark.parametrize(("spoil", "message"), BAD_INPUT.values(), ids=BAD_INPUT.keys())
def test_bad_input_is_refused_before_any_request(
    server: FakeApiServer, client: ApiClient, spoil: Callable[[dict[str, Any]], Any], message: str
):
    objects: list[Any] = [to_dict(obj) for obj in lws_objects()[:3]]
    objects[1] = spoil(objects[1]) or objects[1]
    with pytest.raises(ManifestError) as raised:
        apply(objects, client)
    assert str(raised.value) == message
    assert server.requests == []


# ---------------------------------------------------------------------------
# creation_order and spec_differences
# ---------------------------------------------------------------------------


def _group(kind: str, name: str, parent: str | None = None, namespace: str = "ml") -> dict[str, Any]:
    spec: dict[str, Any] = {"workloadRef": {"workloadName": "w", "templateName": name}}
    if parent is not None:
        spec["parentCompositePodGroupName"] = parent
    version = "v1alpha3" if kind == "CompositePodGroup" else "v1beta1"
    return {
        "apiVersion": f"scheduling.k8s.io/{version}",
        "kind": kind,
        "metadata": {"name": name, "namespace": namespace},
        "spec": spec,
    }


WORKLOAD = {
    "apiVersion": "scheduling.k8s.io/v1beta1",
    "kind": "Workload",
    "metadata": {"name": "w", "namespace": "ml"},
    "spec": {"podGroupTemplates": [{"name": "t", "schedulingPolicy": {"basic": {}}}]},
}

ORDERS: dict[str, tuple[list[dict[str, Any]], list[str]]] = {
    "leaves-first": (
        [
            _group("PodGroup", "leaf", "mid"),
            _group("CompositePodGroup", "mid", "top"),
            _group("CompositePodGroup", "top"),
            WORKLOAD,
        ],
        ["w", "top", "mid", "leaf"],
    ),
    "a-leaf-beside-a-composite": (
        [
            _group("CompositePodGroup", "deep", "mid"),
            _group("PodGroup", "shallow", "top"),
            _group("CompositePodGroup", "mid", "top"),
            _group("CompositePodGroup", "top"),
        ],
        ["top", "mid", "deep", "shallow"],
    ),
    "parent-not-given-counts-as-created": (
        [_group("CompositePodGroup", "child", "top"), _group("CompositePodGroup", "other", "elsewhere")],
        ["child", "other"],
    ),
    "same-name-in-another-namespace-is-not-a-parent": (
        [_group("CompositePodGroup", "child", "top", "ml"), _group("CompositePodGroup", "top", None, "other")],
        ["child", "top"],
    ),
    "a-cycle-ends": (
        [
            _group("CompositePodGroup", "a", "b"),
            _group("CompositePodGroup", "b", "a"),
            _group("CompositePodGroup", "r"),
        ],
        ["r", "a", "b"],
    ),
}


@pytest.mark.parametrize(("objects", "names"), ORDERS.values(), ids=ORDERS.keys())
def test_creation_order(objects: list[dict[str, Any]], names: list[str]):
    ordered = creation_order(objects)
    assert [obj["metadata"]["name"] for obj in ordered] == names
    assert all(any(obj is given for given in objects) for obj in ordered)  # the objects themselves


def test_creation_order_keeps_a_compiled_order():
    objects = lws_objects()
    assert creation_order(objects) == objects


def _pod_group(**spec: Any) -> dict[str, Any]:
    return {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", "spec": spec}


GANG = {"gang": {"minCount": 4}}
SINGLE = {"single": {}}
DIFFERENCES: dict[str, tuple[dict[str, Any], dict[str, Any], list[str]]] = {
    "equal": (_pod_group(schedulingPolicy=GANG), _pod_group(schedulingPolicy=GANG, disruptionMode=SINGLE), []),
    "default-disruption-mode-applies": (
        _pod_group(schedulingPolicy=GANG),
        _pod_group(schedulingPolicy=GANG, disruptionMode={"all": {}}),
        ["spec.disruptionMode.single", "spec.disruptionMode.all"],
    ),
    "resolved-priority-ignored": (
        _pod_group(priorityClassName="high"),
        _pod_group(priorityClassName="high", priority=1000, preemptionPolicy="Never", disruptionMode=SINGLE),
        [],
    ),
    "our-priority-compared": (
        _pod_group(priority=5, disruptionMode=SINGLE),
        _pod_group(priority=1000, disruptionMode=SINGLE),
        ["spec.priority"],
    ),
    "a-field-only-they-have": (
        _pod_group(disruptionMode=SINGLE),
        _pod_group(disruptionMode=SINGLE, schedulingConstraints={"topology": [{"key": "zone"}]}),
        ["spec.schedulingConstraints"],
    ),
    "a-list-of-another-length": (
        _pod_group(disruptionMode=SINGLE, schedulingConstraints={"topology": [{"key": "zone"}]}),
        _pod_group(disruptionMode=SINGLE, schedulingConstraints={"topology": [{"key": "zone"}, {"key": "rack"}]}),
        ["spec.schedulingConstraints.topology"],
    ),
    "a-list-item": (
        {**WORKLOAD},
        {**WORKLOAD, "spec": {"podGroupTemplates": [{"name": "t", "schedulingPolicy": GANG}]}},
        ["spec.podGroupTemplates[0].schedulingPolicy.basic", "spec.podGroupTemplates[0].schedulingPolicy.gang"],
    ),
    "a-workload-gets-no-default": (
        {**WORKLOAD},
        {
            **WORKLOAD,
            "spec": {"podGroupTemplates": [{"name": "t", "schedulingPolicy": {"basic": {}}, "disruptionMode": SINGLE}]},
        },
        ["spec.podGroupTemplates[0].disruptionMode"],
    ),
}


@pytest.mark.parametrize(("ours", "stored", "paths"), DIFFERENCES.values(), ids=DIFFERENCES.keys())
def test_spec_differences(ours: dict[str, Any], stored: dict[str, Any], paths: list[str]):
    assert spec_differences(ours, stored) == paths


def test_spec_differences_takes_models():
    objects = lws_objects()
    stored = FakeApiServer.admit("podgroups", to_dict(objects[3]))
    assert spec_differences(objects[3], stored) == []
    assert spec_differences(objects[3], FakeApiServer.admit("podgroups", to_dict(objects[4]))) == [
        "spec.schedulingPolicy.gang.minCount",
        "spec.workloadRef.templateName",
    ]


RESULT_TEXT: dict[str, tuple[ApplyResult, str, bool]] = {
    "created": (ApplyResult("PodGroup", "ml", "pg", "created"), "PodGroup ml/pg: created", True),
    "dry-run": (ApplyResult("Workload", "ml", "w", "dry-run-created"), "Workload ml/w: dry-run-created", True),
    "unchanged": (ApplyResult("PodGroup", "ml", "pg", "unchanged"), "PodGroup ml/pg: unchanged", True),
    "error": (
        ApplyResult("PodGroup", "ml", "pg", "error", error=ApiStatus(403, "Forbidden", "no")),
        "PodGroup ml/pg: error: 403 Forbidden: no",
        False,
    ),
    "skipped": (ApplyResult("PodGroup", "ml", "pg", "skipped"), "PodGroup ml/pg: skipped", False),
}


@pytest.mark.parametrize(("result", "text", "ok"), RESULT_TEXT.values(), ids=RESULT_TEXT.keys())
def test_result_text(result: ApplyResult, text: str, ok: bool):
    assert (str(result), result.ok) == (text, ok)


# ---------------------------------------------------------------------------
# apply(resize=True) and delete
# ---------------------------------------------------------------------------


def _workers_resized(objects: list[BaseModel], count: int) -> list[dict[str, Any]]:
    """The LWS objects with the worker gang's minCount at ``count``: the Workload's template and both PodGroups."""
    resized = [to_dict(obj) for obj in objects]
    templates = resized[0]["spec"]["compositePodGroupTemplates"][0]["podGroupTemplates"]
    next(t for t in templates if t["name"] == "worker")["schedulingPolicy"]["gang"]["minCount"] = count
    for obj in resized[3:]:
        if "-worker-" in obj["metadata"]["name"]:
            obj["spec"]["schedulingPolicy"]["gang"]["minCount"] = count
    return resized


MIN_COUNT = "spec.schedulingPolicy.gang.minCount"
WORKER_TEMPLATE = "spec.compositePodGroupTemplates[0].podGroupTemplates[1].schedulingPolicy.gang.minCount"


@pytest.mark.parametrize("dry_run", [False, True], ids=["for-real", "dry-run"])
def test_resize_patches_only_the_min_counts_that_changed(server: FakeApiServer, client: ApiClient, dry_run: bool):
    objects = lws_objects()
    apply(objects, client, dry_run=False)
    before = copy.deepcopy(server.stored)
    server.requests.clear()
    resized = _workers_resized(objects, 3)
    results = apply(resized, client, dry_run=dry_run, resize=True)
    verb = "dry-run-resized" if dry_run else "resized"
    assert [(r.name, r.action, r.differences) for r in results] == [
        (WL, verb, (WORKER_TEMPLATE,)),
        (REPLICA_0, "unchanged", ()),
        (REPLICA_1, "unchanged", ()),
        (LEADER_0, "unchanged", ()),
        (WORKER_0, verb, (MIN_COUNT,)),
        (LEADER_1, "unchanged", ()),
        (WORKER_1, verb, (MIN_COUNT,)),
    ]
    patches = [r for r in server.requests if r.method == "PATCH"]
    query = "All" if dry_run else None
    assert patches == [
        Request("PATCH", f"{WORKLOADS}/{WL}", query),
        Request("PATCH", f"{POD_GROUPS}/{WORKER_0}", query),
        Request("PATCH", f"{POD_GROUPS}/{WORKER_1}", query),
    ]
    # the Workload's changed list is sent whole (gang_resize_patch), a PodGroup's minCount alone
    assert server.patches == [
        {"spec": {"compositePodGroupTemplates": resized[0]["spec"]["compositePodGroupTemplates"]}},
        {"spec": {"schedulingPolicy": {"gang": {"minCount": 3}}}},
        {"spec": {"schedulingPolicy": {"gang": {"minCount": 3}}}},
    ]
    if dry_run:
        assert server.stored == before
    else:
        assert apply(resized, client, dry_run=False) == lws_results("unchanged")
    assert str(results[4]) == f"PodGroup serving/{WORKER_0}: {verb}: {MIN_COUNT} changed"


def test_resize_leaves_any_other_difference_a_conflict(server: FakeApiServer, client: ApiClient):
    objects = lws_objects()
    apply(objects, client, dry_run=False)
    changed = _workers_resized(objects, 3)
    changed[4]["spec"]["schedulingConstraints"] = {"topology": [{"key": "kubernetes.io/hostname"}]}
    server.requests.clear()
    results = apply(changed, client, dry_run=False, resize=True)
    assert [r.action for r in results] == [
        "resized",
        "unchanged",
        "unchanged",
        "unchanged",
        "conflict",
        "skipped",
        "skipped",
    ]
    assert results[4].differences == ("spec.schedulingConstraints", MIN_COUNT)
    assert [r for r in server.requests if r.method == "PATCH"] == [Request("PATCH", f"{WORKLOADS}/{WL}", None)]


def test_without_resize_a_min_count_difference_is_a_conflict(server: FakeApiServer, client: ApiClient):
    objects = lws_objects()
    apply(objects, client, dry_run=False)
    results = apply(_workers_resized(objects, 3), client, dry_run=False)
    assert (results[0].action, results[0].differences) == ("conflict", (WORKER_TEMPLATE,))
    assert not [r for r in server.requests if r.method == "PATCH"]


def test_delete_goes_leaves_first_and_twice_is_absent(server: FakeApiServer, client: ApiClient):
    objects = lws_objects()
    apply(objects, client, dry_run=False)
    server.requests.clear()
    order = list(reversed(LWS_ORDER))
    paths = list(reversed(LWS_PATHS))
    dry = delete(objects, client)
    assert [(r.kind, r.name, r.action) for r in dry] == [(k, n, "dry-run-deleted") for k, n in order]
    assert len(server.stored) == len(LWS_ORDER)
    assert delete(objects, client, dry_run=False) == [
        ApplyResult(kind, "serving", name, "deleted") for kind, name in order
    ]
    assert server.stored == {}
    assert [r.action for r in delete(objects, client, dry_run=False)] == ["absent"] * len(order)
    expected = [
        Request("DELETE", f"{path}/{name}", dry)
        for dry in ("All", None, None)
        for (_, name), path in zip(order, paths, strict=True)
    ]
    assert server.requests == expected
    assert all(q.get("propagationPolicy") == ["Background"] for q in server.queries[-len(order) :])


def test_a_refused_delete_stops_the_parents(server: FakeApiServer, client: ApiClient):
    objects = lws_objects()
    apply(objects, client, dry_run=False)
    forbidden = status(403, "Forbidden", "no")
    server.refuse_delete[REPLICA_1] = Answer(403, "Forbidden", json.dumps(forbidden))
    results = delete(objects, client, dry_run=False)
    assert [r.action for r in results] == ["deleted"] * 4 + ["error", "skipped", "skipped"]
    assert (results[4].name, str(results[4].error)) == (REPLICA_1, "403 Forbidden: no")
    assert stored_names(server) == [WL, REPLICA_0, REPLICA_1]


# ---------------------------------------------------------------------------
# kopf: adoption and the example operator (skipped without kopf)
# ---------------------------------------------------------------------------


def load_operator() -> ModuleType:
    """examples/kopf_operator/operator.py, loaded by path (its name would shadow the stdlib's ``operator``)."""
    path = ROOT / "examples" / "kopf_operator" / "operator.py"
    spec = importlib.util.spec_from_file_location("kopf_operator_example", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_kopf_adopt_works_on_to_dict_and_apply_takes_the_result(server: FakeApiServer, client: ApiClient):
    kopf = pytest.importorskip("kopf")
    owner = training_cluster()
    owner["metadata"]["labels"] = {"team": "llm"}
    objects = [to_dict(obj) for obj in training_objects()]
    kopf.adopt(objects, owner=owner)
    results = apply(objects, client, dry_run=False)
    assert [result.action for result in results] == ["created"] * 4
    for body in server.bodies:
        assert body["metadata"]["labels"] == {"team": "llm"}
        # The adapter already made the TrainingCluster the controller: kopf adds no second reference.
        assert body["metadata"]["ownerReferences"] == [
            {
                "apiVersion": "training.example.com/v1",
                "blockOwnerDeletion": True,
                "controller": True,
                "kind": "TrainingCluster",
                "name": "llama",
                "uid": "0c7f3d5e-2b1a-4c9d-8e7f-6a5b4c3d2e1f",
            }
        ]


TRAINING_PATHS = [
    "/apis/scheduling.k8s.io/v1beta1/namespaces/ml/workloads",
    "/apis/scheduling.k8s.io/v1alpha3/namespaces/ml/compositepodgroups",
    "/apis/scheduling.k8s.io/v1beta1/namespaces/ml/podgroups",
    "/apis/scheduling.k8s.io/v1beta1/namespaces/ml/podgroups",
]
TRAINING_NAMES = {
    "llama-7bbd6f4976": "created",
    "llama-7bbd6f4976-cluster-57bc7cddc4": "created",
    "llama-7bbd6f4976-trainer-698c5d8c97": "created",
    "llama-7bbd6f4976-evaluator-646f4d489": "created",
}


@pytest.mark.parametrize("body_type", ["dict", "kopf.Body"], ids=["dict", "kopf-body"])
@pytest.mark.parametrize("dry_run", [False, True], ids=["create", "dry-run"])
def test_operator_creates_a_training_clusters_objects(
    server: FakeApiServer, client: ApiClient, dry_run: bool, body_type: str
):
    kopf = pytest.importorskip("kopf")
    operator = load_operator()
    body = training_cluster() if body_type == "dict" else kopf.Body(training_cluster())
    status_of = operator.create_training_cluster(
        body=body, memo=kopf.Memo(api_client=client, dry_run=dry_run), logger=logging.getLogger("test")
    )
    action = "dry-run-created" if dry_run else "created"
    assert status_of == {"workload": "llama-7bbd6f4976", "objects": dict.fromkeys(TRAINING_NAMES, action)}
    assert server.requests == [Request("POST", path, "All" if dry_run else None) for path in TRAINING_PATHS]
    assert [query["fieldManager"] for query in server.queries] == [["trainingcluster-operator"]] * 4
    assert stored_names(server) == ([] if dry_run else list(TRAINING_NAMES))


def test_operator_reports_an_invalid_resource_permanently(server: FakeApiServer, client: ApiClient):
    kopf = pytest.importorskip("kopf")
    operator = load_operator()
    body = training_cluster()
    body["spec"]["roles"][1]["scheduling"] = {"schedulingPolicy": {"gang": {"minCount": 3}}}
    with pytest.raises(kopf.PermanentError) as raised:
        operator.create_training_cluster(body=body, memo=kopf.Memo(api_client=client), logger=logging.getLogger("t"))
    assert str(raised.value) == (
        "TrainingCluster/llama: spec.roles[1].scheduling.schedulingPolicy.gang.minCount: "
        "Invalid value: 3: must be less than or equal to spec.roles[1].replicas"
    )
    assert server.requests == []


# id -> (the answer to the trainer's POST, None for a stored different one; kopf's exception; its message)
OPERATOR_REFUSALS: dict[str, tuple[Answer | None, str, str]] = {
    "conflict-retried": (
        None,
        "TemporaryError",
        "PodGroup ml/llama-7bbd6f4976-trainer-698c5d8c97: conflict: spec.schedulingPolicy.gang.minCount differ",
    ),
    "invalid-permanent": (
        _json_answer(422, "Unprocessable Entity", status(422, "Invalid", "PodGroup is invalid")),
        "PermanentError",
        "PodGroup ml/llama-7bbd6f4976-trainer-698c5d8c97: error: 422 Invalid: PodGroup is invalid",
    ),
    "server-error-retried": (
        _json_answer(500, "Internal Server Error", status(500, "InternalError", "etcd is down")),
        "TemporaryError",
        "PodGroup ml/llama-7bbd6f4976-trainer-698c5d8c97: error: 500 InternalError: etcd is down",
    ),
}


@pytest.mark.parametrize(("answer", "exception", "message"), OPERATOR_REFUSALS.values(), ids=OPERATOR_REFUSALS.keys())
def test_operator_tells_kopf_whether_to_retry_a_refusal(
    server: FakeApiServer, client: ApiClient, answer: Answer | None, exception: str, message: str
):
    kopf = pytest.importorskip("kopf")
    operator = load_operator()
    trainer = "llama-7bbd6f4976-trainer-698c5d8c97"
    if answer is None:
        theirs = FakeApiServer.admit("podgroups", to_dict(training_objects()[2]))
        theirs["spec"]["schedulingPolicy"] = {"gang": {"minCount": 2}}
        server.stored[f"{TRAINING_PATHS[2]}/{trainer}"] = theirs
    else:
        server.refuse[trainer] = answer
    with pytest.raises(kopf.PermanentError if exception == "PermanentError" else kopf.TemporaryError) as raised:
        operator.create_training_cluster(
            body=training_cluster(), memo=kopf.Memo(api_client=client, dry_run=False), logger=logging.getLogger("t")
        )
    assert type(raised.value) is getattr(kopf, exception)
    assert str(raised.value) == message
