"""``workloadbuilder doctor`` against a hostile fake apiserver on 127.0.0.1 (issue 27 points 3, 6 and 9).

The server answers each GET by the first rule of the case whose key is in the
request's path (``"*"`` matches any): invalid JSON, the wrong shapes, deep
JSON, silence, a drip, redirects, huge answers, refusals. Every case runs
the CLI in-process with short timeouts, and asserts the exit code, the one
line on stderr and what stdout holds; no case may print the token of the
kubeconfig, and none may take more than a few seconds.
"""

from __future__ import annotations

import base64
import contextlib
import io
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from workloadbuilder.cli.app import main

TOKEN = "SECRET-TOKEN-abc123"
NS = "ml"
JOB_PATH = "/apis/batch/v1/namespaces/ml/jobs/j"
JOB = {
    "apiVersion": "batch/v1",
    "kind": "Job",
    "metadata": {"name": "j", "namespace": NS, "uid": "u-1"},
    "spec": {"parallelism": 2, "template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}},
}
FAST = ["--connect-timeout", "1", "--request-timeout", "0.5"]

Behave = Callable[["_Handler"], None]


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    rules: dict[str, Behave]
    seen: list[tuple[str, str | None]]


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        self.server.seen.append((path, self.headers.get("Authorization")))
        behave = next((rule for key, rule in self.server.rules.items() if key == "*" or key in path), None)
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            (behave or _default)(self)

    def answer(self, code: int, body: Any, extra: tuple[tuple[str, str], ...] = ()) -> None:
        data = body if isinstance(body, bytes) else (body if isinstance(body, str) else json.dumps(body)).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in extra:
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)


def _default(handler: _Handler) -> None:
    path = urlsplit(handler.path).path
    handler.answer(200, JOB if path == JOB_PATH else {"kind": "List", "items": []})


def send(code: int, body: Any, *extra: tuple[str, str]) -> Behave:
    return lambda handler: handler.answer(code, body, extra)


def status(code: int, message: str) -> Behave:
    return send(code, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "message": message, "code": code})


def slow_headers(handler: _Handler) -> None:
    handler.wfile.write(b"HTTP/1.1 200 OK\r\n")
    handler.wfile.flush()
    time.sleep(3)


def drip(handler: _Handler) -> None:
    body = b'{"items": [' + b" " * 100 + b"]}"
    handler.send_response(200)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    for byte in body[:40]:
        handler.wfile.write(bytes([byte]))
        handler.wfile.flush()
        time.sleep(0.1)


def chunked_forever(handler: _Handler) -> None:
    handler.send_response(200)
    handler.send_header("Transfer-Encoding", "chunked")
    handler.end_headers()
    chunk = b"[" + b" " * 65534 + b"]"
    for _ in range(64):  # 4 MiB, then the chunked stream ends
        handler.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
    handler.wfile.write(b"0\r\n\r\n")


def pending(handler: _Handler) -> None:
    pods = [
        {
            "metadata": {"name": f"q{i}", "namespace": NS},
            "spec": {"schedulingGroup": {"podGroupName": "pg"}, "containers": [{"name": "c", "image": "i"}]},
            "status": {"phase": "Pending"},
        }
        for i in range(2)
    ]
    handler.answer(200, {"items": pods})


WORKLOADS = send(
    200,
    {
        "items": [
            {
                "metadata": {"name": "wl", "namespace": NS},
                "spec": {
                    "controllerRef": {"apiGroup": "batch", "kind": "Job", "name": "j"},
                    "podGroupTemplates": [{"name": "t", "schedulingPolicy": {"gang": {"minCount": 2}}}],
                },
            }
        ]
    },
)
HUGE_GANG = send(
    200,
    {
        "items": [
            {
                "metadata": {"name": "pg", "namespace": NS},
                "spec": {
                    "workloadRef": {"workloadName": "wl", "templateName": "t"},
                    "schedulingPolicy": {"gang": {"minCount": 2147483647}},
                },
            }
        ]
    },
)
NODES = send(
    200,
    {
        "items": [
            {
                "metadata": {"name": "n0"},
                "status": {
                    "allocatable": {"cpu": "8", "memory": "16Gi", "pods": "110"},
                    "conditions": [{"type": "Ready", "status": "True"}],
                },
            }
        ]
    },
)


@pytest.fixture
def apiserver() -> Iterator[_Server]:
    """The hostile server on an ephemeral port of 127.0.0.1 (its rules set by each case)."""
    httpd = _Server(("127.0.0.1", 0), _Handler)
    httpd.rules, httpd.seen = {}, []
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    try:
        yield httpd
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


def kubeconfig_text(
    server: str, user: str = f"{{token: {TOKEN}}}", context: str = "{cluster: c, user: u, namespace: ml}"
) -> str:
    return (
        "apiVersion: v1\nkind: Config\n"
        f'clusters:\n- name: c\n  cluster: {{server: "{server}"}}\n'
        f"users:\n- name: u\n  user: {user}\n"
        f"contexts:\n- name: x\n  context: {context}\n"
        "current-context: x\n"
    )


def run(kubeconfig: Path, *argv: str) -> tuple[int, str, str, float]:
    out, err = io.StringIO(), io.StringIO()
    started = time.monotonic()
    code = main(["doctor", "job/j", "--kubeconfig", str(kubeconfig), *argv], out, err)
    return code, out.getvalue(), err.getvalue(), time.monotonic() - started


def closed_port() -> int:
    """A port of 127.0.0.1 nothing listens on (bound, then closed)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


G = "GET {server}"
JOB_GET = G + JOB_PATH
PODS_GET = G + "/api/v1/pods"

# id -> (rules, extra flags, exit code, the stderr line ({server} is the fake apiserver's URL))
SERVER_CASES: dict[str, tuple[dict[str, Behave], list[str], int, str]] = {
    "invalid-json": (
        {"jobs": send(200, "not json {")},
        [],
        2,
        f"{JOB_GET}: the answer (200) is not JSON: Expecting value: line 1 column 1 (char 0) (it starts 'not json {{')",
    ),
    "html-page": (
        {"jobs": send(200, "<html>hi</html>")},
        [],
        2,
        f"{JOB_GET}: the answer (200) is not JSON: Expecting value: line 1 column 1 (char 0) "
        "(it starts '<html>hi</html>')",
    ),
    "empty-answer": (
        {"jobs": send(200, b"")},
        [],
        2,
        f"{JOB_GET}: the answer (200) is not JSON: the answer is empty (it starts '')",
    ),
    "bytes-not-utf8": (
        {"jobs": send(200, b'{"a": "\xff"}')},
        [],
        2,
        f"{JOB_GET}: the answer (200) is not JSON: 'utf-8' codec can't decode byte 0xff in position 7: "
        'invalid start byte (it starts \'{"a": "\ufffd"}\')',
    ),
    "target-is-a-list": (
        {"jobs": send(200, [])},
        [],
        2,
        f"{JOB_GET}: expected a Job object, the apiserver sent a list",
    ),
    "target-is-null": (
        {"jobs": send(200, "null")},
        [],
        2,
        f"{JOB_GET}: expected a Job object, the apiserver sent null",
    ),
    "target-of-another-kind": (
        {"jobs": send(200, {"kind": "ConfigMap", "metadata": {"name": "j"}})},
        [],
        2,
        f"{JOB_GET}: expected a Job, the apiserver sent kind 'ConfigMap'",
    ),
    "target-metadata-a-number": (
        {"jobs": send(200, {"kind": "Job", "metadata": 5})},
        [],
        2,
        f"{JOB_GET}: metadata: expected an object, found a number",
    ),
    "items-are-ints": (
        {"pods": send(200, {"items": [1, 2, None]})},
        [],
        2,
        f"{PODS_GET}: items[0]: expected a Pod object, found a number",
    ),
    "items-a-string": (
        {"pods": send(200, {"items": "abc"})},
        [],
        2,
        f"{PODS_GET}: items: expected a list, found a string",
    ),
    "list-a-string": (
        {"nodes": send(200, '"hello"')},
        [],
        2,
        "GET {server}/api/v1/nodes: expected a NodeList object, the apiserver sent a string",
    ),
    "deep-json": (
        {"pods": send(200, '{"items":[' + '{"a":' * 5000 + "1" + "}" * 5000 + "]}")},
        [],
        2,
        f"{PODS_GET}: the answer (200) nests deeper than 100 levels",
    ),
    "nested-past-the-limit": (
        {"pods": send(200, '{"items":[' + '{"a":' * 150 + "1" + "}" * 150 + "]}")},
        [],
        2,
        f"{PODS_GET}: the answer (200) nests deeper than 100 levels",
    ),
    "nan": (
        {"nodes": send(200, '{"items":[{"status":{"allocatable":{"cpu":NaN}}}]}')},
        [],
        2,
        "GET {server}/api/v1/nodes: the answer (200) is not JSON: NaN is not a JSON number "
        '(it starts \'{"items":[{"status":{"allocatable":{"cpu":NaN}}}]}\')',
    ),
    "number-past-float64": (
        {"nodes": send(200, '{"items":[{"status":{"allocatable":{"pods":1e309}}}]}')},
        [],
        2,
        "GET {server}/api/v1/nodes: the answer (200) is not JSON: 1e309 does not fit a float64 "
        '(it starts \'{"items":[{"status":{"allocatable":{"pods":1e309}}}]}\')',
    ),
    "headers-then-nothing": (
        {"pods": slow_headers},
        FAST,
        2,
        f"{PODS_GET}: no complete answer within 0.5 s (--request-timeout)",
    ),
    "one-byte-at-a-time": ({"pods": drip}, FAST, 2, f"{PODS_GET}: no complete answer within 0.5 s (--request-timeout)"),
    "whole-read-deadline": (
        {"pods": slow_headers},
        ["--request-timeout", "5", "--timeout", "0.5"],
        2,
        f"{PODS_GET}: no complete answer before the reads took 0.5 s (--timeout)",
    ),
    "redirect-to-another-host": (
        {"jobs": send(302, "", ("Location", "http://user:pw@127.0.0.2:9/ok" + JOB_PATH))},
        [],
        2,
        f"{JOB_GET}: the server answered 302 with a redirect to http://127.0.0.2:9: doctor does not follow redirects",
    ),
    "redirect-to-another-port": (
        {"jobs": send(307, "", ("Location", "http://127.0.0.1:9" + JOB_PATH))},
        [],
        2,
        f"{JOB_GET}: the server answered 307 with a redirect to http://127.0.0.1:9: doctor does not follow redirects",
    ),
    "redirect-without-location": (
        {"jobs": send(301, "")},
        [],
        2,
        f"{JOB_GET}: the server answered 301 with a redirect to nowhere: doctor does not follow redirects",
    ),
    "404-message-of-100k": (
        {"jobs": status(404, "x" * 100_000)},
        [],
        2,
        "x" * 1000 + "... in namespace 'ml'",
    ),
    "404-html-page": (
        {"jobs": send(404, "<html>" + "y" * 100_000)},
        [],
        2,
        "jobs.batch \"j\" not found in namespace 'ml'",
    ),
    "403-names-what-and-hides-the-token": (
        {"pods": status(403, f'pods is forbidden: User "x" cannot list resource "pods" (token {TOKEN})')},
        [],
        2,
        f"{PODS_GET}: the apiserver refused (403 Forbidden) to list pods in all namespaces: pods is forbidden: "
        'User "x" cannot list resource "pods" (token <redacted>)',
    ),
    "403-without-a-message": (
        {"nodes": send(403, "")},
        [],
        2,
        "GET {server}/api/v1/nodes: the apiserver refused (403 Forbidden) to list nodes at the cluster scope",
    ),
    "401": (
        {"jobs": status(401, "Unauthorized")},
        [],
        2,
        f"{JOB_GET}: the apiserver did not accept the credentials (401 Unauthorized) to read jobs.batch 'j' in "
        "namespace 'ml': Unauthorized",
    ),
    "500-html": (
        {"workloads": send(500, "<html>boom</html>")},
        [],
        2,
        "GET {server}/apis/scheduling.k8s.io/v1beta1/namespaces/ml/workloads: the apiserver answered 500 (error) to "
        "list workloads.scheduling.k8s.io in namespace 'ml'",
    ),
    "announced-too-large": (
        {"pods": send(200, b" " * (2 << 20))},
        ["--max-response-mib", "1"],
        2,
        f"{PODS_GET}: the answer is larger than 1 MiB (2097152 bytes) (--max-response-mib): not read",
    ),
    "streamed-too-large": (
        {"pods": chunked_forever},
        ["--max-response-mib", "1"],
        2,
        f"{PODS_GET}: the answer is larger than 1 MiB (--max-response-mib): not read",
    ),
}


@pytest.mark.parametrize(("rules", "flags", "code", "line"), SERVER_CASES.values(), ids=SERVER_CASES.keys())
def test_a_hostile_answer_is_one_line(apiserver: _Server, tmp_path: Path, rules, flags, code, line):
    server = f"http://127.0.0.1:{apiserver.server_port}"
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(kubeconfig_text(server))
    apiserver.rules = rules
    got_code, out, err, took = run(kubeconfig, *flags)
    assert (got_code, out, err) == (code, "", f"error: {line.replace('{server}', server)}\n")
    assert took < 5
    assert all(auth == f"Bearer {TOKEN}" for _, auth in apiserver.seen)


def test_a_redirect_is_not_followed(apiserver: _Server, tmp_path: Path):
    server = f"http://127.0.0.1:{apiserver.server_port}"
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(kubeconfig_text(server))
    apiserver.rules = {"jobs": send(302, "", ("Location", f"{server}/elsewhere{JOB_PATH}"))}
    assert run(kubeconfig)[0] == 2
    assert [path for path, _ in apiserver.seen] == [JOB_PATH]


def test_a_gang_of_int32_max_is_not_replayed(apiserver: _Server, tmp_path: Path):
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(kubeconfig_text(f"http://127.0.0.1:{apiserver.server_port}"))
    apiserver.rules = {"workloads": WORKLOADS, "podgroups": HUGE_GANG, "pods": pending, "nodes": NODES}
    code, out, err, took = run(kubeconfig)
    assert (code, err) == (1, "")
    assert out.splitlines()[0] == (
        "Job ml/j: 2 of 2147483647 pods of t exist; the gang waits for quorum (minCount 2147483647): "
        "2147483645 more pods to create"
    )
    assert out.splitlines()[-1] == (
        "  not replayed: PodGroup pg would replay 2147483647 pods (minCount 2147483647); "
        "the engine models at most 100000 pods per replay"
    )
    assert took < 5


# id -> (server URL ({port}: a closed port, {tls}: the fake plain-HTTP server), the stderr line)
TRANSPORT_CASES = {
    "connection-refused": (
        "http://127.0.0.1:{port}",
        "GET http://127.0.0.1:{port}" + JOB_PATH + ": cannot connect: connection refused",
    ),
    "tls-to-plain-http": ("https://127.0.0.1:{tls}", "GET https://127.0.0.1:{tls}" + JOB_PATH + ": TLS failed: "),
    "credentials-in-the-url-are-not-shown": (
        "http://admin:hunter2-pass@127.0.0.1:{port}",
        "GET http://127.0.0.1:{port}" + JOB_PATH + ": cannot connect: connection refused",
    ),
}


@pytest.mark.parametrize(("url", "line"), TRANSPORT_CASES.values(), ids=TRANSPORT_CASES.keys())
def test_a_transport_failure_is_one_line(apiserver: _Server, tmp_path: Path, url: str, line: str):
    values = {"port": closed_port(), "tls": apiserver.server_port}
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(kubeconfig_text(url.format(**values)))
    code, out, err, took = run(kubeconfig, *FAST)
    expected = f"error: {line.format(**values)}"
    if url.startswith("https"):  # OpenSSL names the failure by its version: one of these
        assert err in {
            expected + reason + " (is the server plain http:// rather than https://?)\n"
            for reason in ("wrong version number", "record layer failure", "packet length too long", "http request")
        }
    else:
        assert err == expected + "\n"
    assert (code, out) == (2, "")
    assert took < 5


CONTEXT = "{cluster: c, user: u, namespace: ml}"

# id -> (kubeconfig text ({server}: the fake apiserver), the stderr line ({kubeconfig}: the file))
KUBECONFIG_CASES = {
    "not-yaml": ("clusters: [\n", "kubeconfig {kubeconfig}: not YAML: "),
    "a-list": ("- a\n- b\n", "kubeconfig {kubeconfig}: expected a mapping (kind: Config), found a list"),
    "context-a-string": (
        kubeconfig_text("{server}").replace(f"context: {CONTEXT}", "context: just-a-string"),
        "kubeconfig {kubeconfig}: contexts[0].context ('x'): expected a mapping, found a string",
    ),
    "contexts-a-mapping": (
        "contexts: {x: 1}\n",
        "kubeconfig {kubeconfig}: contexts: expected a list, found a mapping",
    ),
    "user-a-string-hides-it": (
        kubeconfig_text("{server}", user=TOKEN),
        "kubeconfig {kubeconfig}: users[0].user ('u'): expected a mapping, found a string",
    ),
    "no-current-context": (
        kubeconfig_text("{server}").replace("current-context: x\n", ""),
        "kubeconfig {kubeconfig}: no current-context is set: give --context NAME",
    ),
    "context-names-no-such-cluster": (
        kubeconfig_text("{server}", context="{cluster: other, user: u}"),
        "kubeconfig {kubeconfig}: context 'x': cluster 'other' is not in the kubeconfig",
    ),
    "ftp-server": (
        kubeconfig_text("ftp://127.0.0.1:21"),
        "kubeconfig {kubeconfig}: cluster 'c': server 'ftp://127.0.0.1:21' is not an http:// or https:// URL with a "
        "host",
    ),
    "file-server": (
        kubeconfig_text("file:///etc/passwd"),
        "kubeconfig {kubeconfig}: cluster 'c': server 'file:///etc/passwd' is not an http:// or https:// URL "
        "with a host",
    ),
    "server-a-number": (
        kubeconfig_text("{server}").replace('{server: "{server}"}', "{server: 5}"),
        "kubeconfig {kubeconfig}: cluster 'c': server: expected a URL, found a number",
    ),
    "exec-plugin-fails-its-output-is-not-shown": (
        kubeconfig_text(
            "{server}",
            user="{exec: {apiVersion: client.authentication.k8s.io/v1, command: /bin/sh, "
            f'args: ["-c", "echo {TOKEN} >&2; echo {TOKEN}; exit 7"]}}}}',
        ),
        "kubeconfig {kubeconfig}: context 'x': user 'u': the exec credential plugin 'sh' exited with status 7 "
        "(its output is not shown)",
    ),
    "exec-plugin-prints-no-json": (
        kubeconfig_text(
            "{server}",
            user="{exec: {apiVersion: client.authentication.k8s.io/v1, command: /bin/sh, "
            f'args: ["-c", "echo token={TOKEN}"]}}}}',
        ),
        "kubeconfig {kubeconfig}: context 'x': user 'u': the exec credential plugin 'sh' printed something that is "
        "not an ExecCredential in JSON (its output is not shown)",
    ),
    "exec-plugin-not-found": (
        kubeconfig_text(
            "{server}", user="{exec: {apiVersion: client.authentication.k8s.io/v1, command: /no/such/plugin}}"
        ),
        "kubeconfig {kubeconfig}: context 'x': user 'u': the exec credential plugin 'plugin' cannot be run: "
        "no such file (its output is not shown)",
    ),
}


@pytest.mark.parametrize(("text", "line"), KUBECONFIG_CASES.values(), ids=KUBECONFIG_CASES.keys())
def test_a_bad_kubeconfig_is_one_line(apiserver: _Server, tmp_path: Path, text: str, line: str):
    server = f"http://127.0.0.1:{apiserver.server_port}"
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(text.replace("{server}", server))
    code, out, err, _ = run(kubeconfig)
    expected = f"error: {line.replace('{kubeconfig}', str(kubeconfig))}"
    assert (code, out) == (2, "")
    assert err == expected + "\n" if not line.endswith(": ") else err.startswith(expected)
    assert len(err.splitlines()) == 1
    assert TOKEN not in err
    assert apiserver.seen == []


def test_a_missing_kubeconfig_is_named(tmp_path: Path):
    missing = tmp_path / "nope"
    assert run(missing)[:3] == (2, "", f"error: kubeconfig {missing}: no such file\n")


def test_a_token_from_an_exec_plugin_is_redacted_too(apiserver: _Server, tmp_path: Path):
    fresh = "FRESH-exec-token-42"
    credential = json.dumps(
        {"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential", "status": {"token": fresh}}
    )
    plugin = tmp_path / "plugin.sh"
    plugin.write_text(f"#!/bin/sh\necho '{credential}'\n")
    plugin.chmod(0o755)
    server = f"http://127.0.0.1:{apiserver.server_port}"
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(
        kubeconfig_text(server, user=f"{{exec: {{apiVersion: client.authentication.k8s.io/v1, command: {plugin}}}}}")
    )
    apiserver.rules = {"jobs": status(403, f"forbidden for {fresh}")}
    code, out, err, _ = run(kubeconfig)
    assert (code, out) == (2, "")
    assert err == (
        f"error: GET {server}{JOB_PATH}: the apiserver refused (403 Forbidden) to read jobs.batch 'j' in namespace "
        "'ml': forbidden for <redacted>\n"
    )
    assert apiserver.seen == [(JOB_PATH, f"Bearer {fresh}")]


def test_the_kubeconfig_is_never_written(apiserver: _Server, tmp_path: Path):
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(kubeconfig_text(f"http://127.0.0.1:{apiserver.server_port}"))
    before = kubeconfig.read_bytes()
    assert run(kubeconfig)[0] == 1
    assert kubeconfig.read_bytes() == before


BAD_FLAGS = {
    "nan-timeout": (
        ["--request-timeout", "nan"],
        "--request-timeout: expected a number of seconds above 0 and up to 86400, got 'nan'",
    ),
    "zero-timeout": (["--timeout", "0"], "--timeout: expected a number of seconds above 0 and up to 86400, got '0'"),
    "words-for-mib": (
        ["--max-response-mib", "lots"],
        "--max-response-mib: expected a whole number of MiB from 1 to 1048576, got 'lots'",
    ),
}


@pytest.mark.parametrize(("flags", "line"), BAD_FLAGS.values(), ids=BAD_FLAGS.keys())
def test_a_bad_bound_is_one_line(tmp_path: Path, flags: list[str], line: str):
    assert run(tmp_path / "unread", *flags)[:3] == (2, "", f"error: {line}\n")


ECHOING_GANG = send(
    200,
    {
        "items": [
            {
                "metadata": {"name": "pg", "namespace": NS},
                "spec": {
                    "workloadRef": {"workloadName": "wl", "templateName": "t"},
                    "schedulingPolicy": {"gang": {"minCount": 2}},
                },
                "status": {
                    "conditions": [
                        {
                            "type": "PodGroupScheduled",
                            "status": "False",
                            "reason": "Unschedulable",
                            "message": f"token {TOKEN.lower()} and {TOKEN.encode()!r} were seen",
                        }
                    ]
                },
            }
        ]
    },
)


@pytest.mark.parametrize("output", ["text", "json"], ids=["text", "json"])
def test_a_token_the_server_echoes_into_the_report_is_redacted(apiserver: _Server, tmp_path: Path, output: str):
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(kubeconfig_text(f"http://127.0.0.1:{apiserver.server_port}"))
    apiserver.rules = {"workloads": WORKLOADS, "podgroups": ECHOING_GANG, "pods": pending, "nodes": NODES}
    code, out, err, _ = run(kubeconfig, "--output", output)
    assert code in (0, 1)
    assert err == ""
    assert TOKEN.lower() not in out.lower()
    assert "<redacted>" in out
    if output == "json":
        json.loads(out)


def test_a_token_file_is_read_beside_its_kubeconfig_and_stripped(apiserver: _Server, tmp_path: Path):
    (tmp_path / "token").write_text(f"  {TOKEN}\n")
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(kubeconfig_text(f"http://127.0.0.1:{apiserver.server_port}", user="{tokenFile: token}"))
    apiserver.rules = {"jobs": status(403, f"no for Bearer {TOKEN}")}
    code, out, err, _ = run(kubeconfig)
    assert (code, out) == (2, "")
    assert TOKEN not in err
    assert err.endswith("no for <redacted>\n")
    assert apiserver.seen == [(JOB_PATH, f"Bearer {TOKEN}")]


def test_an_exec_plugin_may_give_a_client_certificate(tmp_path: Path):
    credential = json.dumps(
        {
            "apiVersion": "client.authentication.k8s.io/v1",
            "kind": "ExecCredential",
            "status": {
                "clientCertificateData": "CERT",
                "clientKeyData": "-----BEGIN K-----\nKEYBODY1234\n-----END K-----",
            },
        }
    )
    plugin = tmp_path / "plugin.sh"
    plugin.write_text(f"#!/bin/sh\necho '{credential}'\n")
    plugin.chmod(0o755)
    kubeconfig = tmp_path / "kubeconfig"
    port = closed_port()
    kubeconfig.write_text(
        kubeconfig_text(
            f"https://127.0.0.1:{port}",
            user=f"{{exec: {{apiVersion: client.authentication.k8s.io/v1, command: {plugin}}}}}",
        )
    )
    code, out, err, _ = run(kubeconfig, *FAST)
    assert (code, out) == (2, "")
    assert "KEYBODY1234" not in err
    assert len(err.splitlines()) == 1


HOSTILE = "a\x1b[2J\x00b\u0085c\u2028d\u202ee\udc80f é 日本"
"""What a server may put in a message or a name: ESC, NUL, U+0085, U+2028, U+202E, a lone surrogate, letters."""

HOSTILE_SHOWN = "a\\x1b[2J\\x00b c d\\u202ee\\ufffdf é 日本"
"""``HOSTILE`` as doctor's lines show it: Go's ``strconv.Quote`` escapes, the letters as they are, and U+0085 and
U+2028 as spaces (doctor puts a message on one line, its whitespace run together)."""

HOSTILE_GANG = send(
    200,
    {
        "items": [
            {
                "metadata": {"name": "pg", "namespace": NS},
                "spec": {
                    "workloadRef": {"workloadName": "wl", "templateName": "t"},
                    "schedulingPolicy": {"gang": {"minCount": 2}},
                },
                "status": {
                    "conditions": [
                        {
                            "type": "PodGroupScheduled",
                            "status": "False",
                            "reason": "Unschedulable",
                            "message": f"the scheduler says {HOSTILE}",
                        }
                    ]
                },
            }
        ]
    },
)


def test_a_hostile_server_message_reaches_stderr_escaped(apiserver: _Server, tmp_path: Path):
    server = f"http://127.0.0.1:{apiserver.server_port}"
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(kubeconfig_text(server))
    apiserver.rules = {"jobs": status(403, f"forbidden: {HOSTILE}")}
    assert run(kubeconfig)[:3] == (
        2,
        "",
        f"error: GET {server}{JOB_PATH}: the apiserver refused (403 Forbidden) to read jobs.batch 'j' in namespace "
        f"'ml': forbidden: {HOSTILE_SHOWN}\n",
    )


def test_a_hostile_message_in_the_report_is_escaped_in_text_and_exact_in_json(apiserver: _Server, tmp_path: Path):
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(kubeconfig_text(f"http://127.0.0.1:{apiserver.server_port}"))
    apiserver.rules = {"workloads": WORKLOADS, "podgroups": HOSTILE_GANG, "pods": pending, "nodes": NODES}
    code, text, err, _ = run(kubeconfig)
    assert code in (0, 1)
    assert err == ""
    assert f"the scheduler says {HOSTILE_SHOWN}" in text
    assert not {"\x1b", "\x00", "\u0085", "\u2028", "\u202e"} & set(text)
    assert f"  - PodGroup pg: PodGroupScheduled=False (Unschedulable): the scheduler says {HOSTILE_SHOWN}\n" in text
    code, out, err, _ = run(kubeconfig, "--output", "json")
    assert code in (0, 1)
    assert err == ""
    assert out.isascii()
    assert "the scheduler says a\\u001b[2J\\u0000b" in out
    said = "PodGroupScheduled=False (Unschedulable): the scheduler says a\x1b[2J\x00b c d\u202ee\udc80f é 日本"
    assert said in _strings(json.loads(out))  # the data exact: the JSON escapes decode to the server's text


def _strings(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [text for item in value.values() for text in _strings(item)]
    if isinstance(value, list):
        return [text for item in value for text in _strings(item)]
    return [value] if isinstance(value, str) else []


def _jwt(claims: dict[str, Any]) -> str:
    body = base64.urlsafe_b64encode(json.dumps(claims).encode()).decode().rstrip("=")
    return f"eyJhbGciOiJub25lIn0.{body}.c2ln"


LIVE_JWT = _jwt({"exp": 4_102_444_800})  # 2100-01-01
DEAD_JWT = _jwt({"exp": 1_000_000_000})  # 2001

# id -> (the user entry, the Authorization header sent, or the stderr line when nothing is sent)
AUTH_PROVIDERS: dict[str, tuple[str, str]] = {
    "gcp-stored-token": (
        "{auth-provider: {name: gcp, config: {access-token: GCP-tok-1, expiry: '2100-01-01T00:00:00Z'}}}",
        "Bearer GCP-tok-1",
    ),
    "gcp-without-expiry": ("{auth-provider: {name: gcp, config: {access-token: GCP-tok-2}}}", "Bearer GCP-tok-2"),
    "oidc-live-id-token": (
        f"{{auth-provider: {{name: oidc, config: {{id-token: {LIVE_JWT}}}}}}}",
        f"Bearer {LIVE_JWT}",
    ),
    "oidc-not-a-jwt-falls-to-the-token": (
        f"{{token: {TOKEN}, auth-provider: {{name: oidc, config: {{id-token: opaque}}}}}}",
        f"Bearer {TOKEN}",
    ),
    "another-provider-is-ignored": (f"{{token: {TOKEN}, auth-provider: {{name: azure}}}}", f"Bearer {TOKEN}"),
    "gcp-expired": (
        "{auth-provider: {name: gcp, config: {access-token: GCP-old, expiry: '2001-01-01T00:00:00Z', "
        "cmd-path: /bin/sleep, cmd-args: '60'}}}",
        "error: kubeconfig {kubeconfig}: context 'x': user 'u': the auth-provider 'gcp': its access-token has expired, "
        "and doctor runs no auth-provider plugin to refresh it (it would run a command or reach the network without a "
        "bound): run kubectl once to refresh it, or use an exec credential plugin\n",
    ),
    "gcp-without-a-token": (
        "{auth-provider: {name: gcp, config: {cmd-path: /bin/sleep, cmd-args: '60'}}}",
        "error: kubeconfig {kubeconfig}: context 'x': user 'u': the auth-provider 'gcp': its access-token is not set, "
        "and doctor runs no auth-provider plugin to refresh it (it would run a command or reach the network without a "
        "bound): run kubectl once to refresh it, or use an exec credential plugin\n",
    ),
    "oidc-expired": (
        f"{{auth-provider: {{name: oidc, config: {{id-token: {DEAD_JWT}, refresh-token: R, "
        "idp-issuer-url: 'http://127.0.0.2:9'}}}",
        "error: kubeconfig {kubeconfig}: context 'x': user 'u': the auth-provider 'oidc': its id-token has expired, "
        "and doctor runs no auth-provider plugin to refresh it (it would run a command or reach the network without a "
        "bound): run kubectl once to refresh it, or use an exec credential plugin\n",
    ),
    "provider-not-a-mapping": (
        "{auth-provider: gcp}",
        "error: kubeconfig {kubeconfig}: context 'x': user 'u': auth-provider is a string, not a mapping\n",
    ),
}


@pytest.mark.parametrize(("user", "expected"), AUTH_PROVIDERS.values(), ids=AUTH_PROVIDERS.keys())
def test_an_auth_provider_plugin_is_never_run(apiserver: _Server, tmp_path: Path, user: str, expected: str):
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(kubeconfig_text(f"http://127.0.0.1:{apiserver.server_port}", user=user))
    code, out, err, took = run(kubeconfig)
    assert took < 5
    if expected.startswith("Bearer "):
        assert code == 1
        assert err == ""
        assert {auth for _, auth in apiserver.seen} == {expected}
    else:
        assert (code, out, err) == (2, "", expected.replace("{kubeconfig}", str(kubeconfig)))
        assert apiserver.seen == []
