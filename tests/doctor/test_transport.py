"""Bounded GETs of one apiserver (``doctor.transport``): the limits, the redaction, and ApiReader's one-line errors.

``test_hostile_server.py`` drives the same reader through ``workloadbuilder doctor``; here each function and
``ApiReader.get`` are called directly, against a small HTTP server on 127.0.0.1.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from kubernetes.client import Configuration

from workloadbuilder.doctor.transport import (
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_MAX_RESPONSE_MIB,
    DEFAULT_REQUEST_TIMEOUT,
    DEFAULT_TOTAL_TIMEOUT,
    ApiReader,
    ApiReadError,
    ReadLimits,
    Redactor,
    auth_header,
    credentials_in,
    server_origin,
    type_name,
)

TOKEN = "SECRET-token-0123456789"


def test_the_defaults() -> None:
    assert (DEFAULT_CONNECT_TIMEOUT, DEFAULT_REQUEST_TIMEOUT, DEFAULT_TOTAL_TIMEOUT) == (10.0, 30.0, 120.0)
    assert DEFAULT_MAX_RESPONSE_MIB == 256
    assert ReadLimits() == ReadLimits(10.0, 30.0, 120.0, 256 << 20)


@pytest.mark.parametrize(
    ("change", "error", "message"),
    [
        ({"connect_timeout": 0}, ValueError, "connect_timeout must be a positive, finite number of seconds, got 0"),
        (
            {"request_timeout": float("inf")},
            ValueError,
            "request_timeout must be a positive, finite number of seconds, got inf",
        ),
        (
            {"total_timeout": float("nan")},
            ValueError,
            "total_timeout must be a positive, finite number of seconds, got nan",
        ),
        ({"total_timeout": "1"}, TypeError, "total_timeout must be a number of seconds, not str"),
        ({"connect_timeout": True}, TypeError, "connect_timeout must be a number of seconds, not bool"),
        ({"max_response_bytes": 1.0}, TypeError, "max_response_bytes must be an int, not float"),
        ({"max_response_bytes": 0}, ValueError, "max_response_bytes must be positive, got 0"),
    ],
    ids=["zero", "infinite", "nan", "string", "bool", "float-size", "zero-size"],
)
def test_read_limits_refuse(change: dict[str, Any], error: type[Exception], message: str) -> None:
    with pytest.raises(error) as caught:
        ReadLimits(**change)
    assert str(caught.value) == f"ReadLimits(): {message}"


def test_the_redactor_hides_every_form_of_a_credential() -> None:
    redact = Redactor([f"{TOKEN}\n", "ab", ""])
    text = f"a {TOKEN}\n b {TOKEN.upper()} c b'{TOKEN}\\n' d {json.dumps(TOKEN + chr(10))} e ab"
    assert redact(text) == "a <redacted> b <redacted> c b'<redacted>' d \"<redacted>\" e ab"
    assert Redactor([TOKEN]).scrub(f"x\n{TOKEN}\ny") == "x\n<redacted>\ny"  # scrub keeps the lines


def test_the_redactor_caps_and_joins_lines() -> None:
    redact = Redactor()
    assert redact("a\n b\t c") == "a b c"
    assert redact("x" * 2000) == "x" * 1000 + "..."
    assert redact("x" * 50, cap=10) == "x" * 10 + "..."
    redact.add(["later-secret"])
    assert redact("a later-secret") == "a <redacted>"


@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=4, max_size=12), st.text())
def test_a_redacted_text_never_holds_the_secret(secret: str, around: str) -> None:
    if len(secret.strip()) < 4:
        return
    shown = Redactor([secret])(f"{around}{secret}{around}", cap=10_000)
    assert " ".join(secret.split()) not in shown


@pytest.mark.parametrize(
    ("url", "origin"),
    [
        ("https://user:password@example.com:6443/prefix?token=x", "https://example.com:6443"),
        ("http://[::1]:8080/api", "http://[::1]:8080"),
        ("https://h", "https://h"),
        ("http://[bad", "<an unreadable URL>"),
        ("https://h:99999", "<an unreadable URL>"),
    ],
    ids=["credentials-and-path-dropped", "ipv6", "no-port", "unreadable", "bad-port"],
)
def test_server_origin(url: str, origin: str) -> None:
    assert server_origin(url) == origin


def configuration(host: str = "https://example.com", token: str | None = None) -> Configuration:
    config = Configuration(host=host)
    if token is not None:
        config.api_key = {"authorization": f"Bearer {token}"}
    return config


def test_auth_header_and_credentials_in() -> None:
    assert auth_header(configuration()) is None
    assert auth_header(configuration(token=TOKEN)) == f"Bearer {TOKEN}"
    basic = configuration()
    basic.username, basic.password = "admin", "hunter22"
    assert auth_header(basic) == "Basic YWRtaW46aHVudGVyMjI="
    assert credentials_in("Basic YWRtaW46aHVudGVyMjI=") == [
        "Basic YWRtaW46aHVudGVyMjI=",
        "YWRtaW46aHVudGVyMjI=",
        "admin:hunter22",
        "hunter22",
    ]
    assert credentials_in("Basic !!!") == ["Basic !!!", "!!!", "", ""]
    assert credentials_in(f"Bearer {TOKEN}") == [f"Bearer {TOKEN}", TOKEN]


@pytest.mark.parametrize(
    ("value", "mapping", "name"),
    [
        (None, "an object", "null"),
        (True, "an object", "a boolean"),
        (1, "an object", "a number"),
        (1.5, "an object", "a number"),
        ("s", "an object", "a string"),
        ([], "an object", "a list"),
        ({}, "an object", "an object"),
        ({}, "a mapping", "a mapping"),
        ((1,), "an object", "tuple"),
    ],
    ids=["null", "bool", "int", "float", "str", "list", "object", "mapping", "other"],
)
def test_type_name(value: Any, mapping: str, name: str) -> None:
    assert type_name(value, mapping) == name


@pytest.mark.parametrize(
    ("host", "message"),
    [
        ("ftp://x", "the apiserver address 'ftp://x' is not an http:// or https:// URL with a host"),
        ("https://", "the apiserver address 'https:' is not an http:// or https:// URL with a host"),
        ("localhost:6443", "the apiserver address 'localhost:6443' is not an http:// or https:// URL with a host"),
    ],
    ids=["ftp", "no-host", "no-scheme"],
)
def test_an_address_that_is_no_url_is_refused_before_any_request(host: str, message: str) -> None:
    with pytest.raises(ApiReadError) as caught:
        ApiReader(configuration(host))
    assert (str(caught.value), caught.value.status) == (message, 0)


def test_a_header_with_a_control_character_is_neither_sent_nor_shown() -> None:
    with pytest.raises(ApiReadError) as caught:
        ApiReader(configuration(token=f"{TOKEN}\r\nX-Injected: 1"))
    assert str(caught.value) == "the Authorization value of the configuration has a carriage return (U+000D): not sent"


def test_a_proxy_of_another_kind_is_refused() -> None:
    config = configuration()
    config.proxy = "socks5://user:pw@proxy:1080"
    with pytest.raises(ApiReadError, match=r"^the proxy 'socks5://proxy:1080' is not an http:// or https:// proxy"):
        ApiReader(config)


# --- ApiReader.get against a server on 127.0.0.1 ---

Behave = Callable[[BaseHTTPRequestHandler], None]


def send(code: int, body: bytes | str, *headers: tuple[str, str]) -> Behave:
    data = body.encode() if isinstance(body, str) else body

    def behave(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(code)
        for key, value in (("Content-Length", str(len(data))), *headers):
            handler.send_header(key, value)
        handler.end_headers()
        handler.wfile.write(data)

    return behave


def drip(handler: BaseHTTPRequestHandler) -> None:
    """A byte every 0.05 s for 3 s: no read times out, the answer never completes in time.

    (A server silent past the bound is no such case: urllib3's read timeout and the wait for the answer end
    together, and either may say so first.)
    """
    handler.send_response(200)
    handler.send_header("Content-Length", "60")
    handler.end_headers()
    for _ in range(60):
        handler.wfile.write(b" ")
        handler.wfile.flush()
        time.sleep(0.05)


@contextlib.contextmanager
def server(behave: Behave) -> Iterator[tuple[str, list[dict[str, str]]]]:
    seen: list[dict[str, str]] = []

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            seen.append({"path": self.path, **dict(self.headers)})
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                behave(self)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", seen
    finally:
        httpd.shutdown()
        httpd.server_close()


FAST = ReadLimits(connect_timeout=1, request_timeout=0.5, total_timeout=5)


def refused(behave: Behave, path: str = "/api/v1/pods", limits: ReadLimits = FAST) -> tuple[str, int]:
    """The problem ``get`` names after ``GET <server><path>: ``, and the status it carries."""
    with (
        server(behave) as (url, _),
        ApiReader(configuration(url, TOKEN), limits) as reader,
        pytest.raises(ApiReadError) as caught,
    ):
        reader.get(path)
    message = str(caught.value)
    assert TOKEN not in message
    prefix = f"GET {url}{path}: "
    assert message.startswith(prefix)
    return message.removeprefix(prefix), caught.value.status


def get(behave: Behave, path: str = "/api/v1/pods", limits: ReadLimits = FAST) -> tuple[int, Any]:
    with server(behave) as (url, _), ApiReader(configuration(url, TOKEN), limits) as reader:
        return reader.get(path)


def test_a_json_answer_and_the_headers_sent() -> None:
    with (
        server(send(200, '{"kind": "List", "items": []}')) as (url, seen),
        ApiReader(configuration(url + "/prefix/", TOKEN), FAST) as reader,
    ):
        assert reader.server == url
        assert reader.get("/api/v1/pods") == (200, {"kind": "List", "items": []})
    (request,) = seen
    assert request["path"] == "/prefix/api/v1/pods"
    assert (request["Accept"], request["User-Agent"]) == ("application/json", "workloadbuilder-doctor")
    assert request["Authorization"] == f"Bearer {TOKEN}"


def test_an_error_answer_gives_its_status_and_its_json_or_none() -> None:
    assert get(send(404, '{"kind": "Status", "code": 404}')) == (404, {"kind": "Status", "code": 404})
    assert get(send(503, "<html>down</html>")) == (503, None)
    assert get(send(403, "")) == (403, None)


@pytest.mark.parametrize(
    ("behave", "problem", "status"),
    [
        (
            send(302, "", ("Location", "https://user:pw@elsewhere:8443/login?x=1")),
            "the server answered 302 with a redirect to https://elsewhere:8443: doctor does not follow redirects",
            302,
        ),
        (send(301, ""), "the server answered 301 with a redirect to nowhere: doctor does not follow redirects", 301),
        (
            send(200, "<html>hello</html>"),
            "the answer (200) is not JSON: Expecting value: line 1 column 1 (char 0) (it starts '<html>hello</html>')",
            200,
        ),
        (send(200, ""), "the answer (200) is not JSON: the answer is empty (it starts '')", 200),
        (
            send(200, '{"n": NaN}'),
            "the answer (200) is not JSON: NaN is not a JSON number (it starts '{\"n\": NaN}')",
            200,
        ),
        (
            send(200, '{"n": 1e999}'),
            "the answer (200) is not JSON: 1e999 does not fit a float64 (it starts '{\"n\": 1e999}')",
            200,
        ),
        (send(200, "[" * 101 + "]" * 101), "the answer (200) nests deeper than 100 levels", 200),
        (send(200, "[" * 100_000 + "]" * 100_000), "the answer (200) nests deeper than 100 levels", 200),
        (
            send(200, f'{{"token": "{TOKEN}"'),
            "the answer (200) is not JSON: Expecting ',' delimiter: line 1 column 36 (char 35)"
            ' (it starts \'{"token": "<redacted>"\')',
            200,
        ),
    ],
    ids=[
        "redirect",
        "redirect-nowhere",
        "html",
        "empty",
        "nan",
        "infinite-number",
        "too-deep",
        "too-deep-for-python",
        "secret-in-the-answer",
    ],
)
def test_answers_refused(behave: Behave, problem: str, status: int) -> None:
    assert refused(behave) == (problem, status)


def test_an_answer_past_the_size_cap() -> None:
    small = ReadLimits(connect_timeout=1, request_timeout=0.5, total_timeout=5, max_response_bytes=1 << 20)
    assert refused(send(200, b" " * (2 << 20)), limits=small) == (
        "the answer is larger than 1 MiB (2097152 bytes) (--max-response-mib): not read",
        0,
    )

    def unannounced(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Connection", "close")
        handler.end_headers()
        handler.wfile.write(b" " * (2 << 20))

    assert refused(unannounced, limits=small) == (
        "the answer is larger than 1 MiB (--max-response-mib): not read",
        0,
    )


def test_a_dripping_server_is_cut_off_at_the_request_timeout() -> None:
    assert refused(drip) == ("no complete answer within 0.5 s (--request-timeout)", 0)


def test_no_request_starts_past_the_whole_reads_deadline() -> None:
    now = [0.0]
    limits = ReadLimits(connect_timeout=1, request_timeout=30, total_timeout=10)
    with server(send(200, "{}")) as (url, seen):
        reader = ApiReader(configuration(url), limits, clock=lambda: now[0], started=0.0)
        assert reader.get("/a") == (200, {})
        now[0] = 10.0
        with pytest.raises(ApiReadError) as late:
            reader.get("/b")
    assert str(late.value) == f"GET {url}/b: not sent: the reads took longer than 10 s (--timeout)"
    assert [r["path"] for r in seen] == ["/a"]


def test_a_request_cut_by_the_whole_reads_deadline_says_so() -> None:
    limits = ReadLimits(connect_timeout=1, request_timeout=30, total_timeout=0.3)
    assert refused(drip, limits=limits) == (
        "no complete answer before the reads took 0.3 s (--timeout)",
        0,
    )


def test_a_closed_port_cannot_connect() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with ApiReader(configuration(f"http://127.0.0.1:{port}"), FAST) as reader, pytest.raises(ApiReadError) as caught:
        reader.get("/api")
    assert str(caught.value) == f"GET http://127.0.0.1:{port}/api: cannot connect: connection refused"


def test_a_broken_answer() -> None:
    def cut(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Length", "100")
        handler.end_headers()
        handler.wfile.write(b'{"a": 1')
        handler.wfile.flush()
        handler.connection.shutdown(socket.SHUT_RDWR)

    problem, status = refused(cut)
    assert problem.startswith("the connection broke before the answer was complete: ")
    assert status == 0


def test_the_header_is_made_anew_before_each_request_with_a_refresh_hook() -> None:
    made = itertools.count(1)
    config = configuration(token="initial-token")

    def refresh(c: Configuration) -> None:
        c.api_key = {"authorization": f"Bearer token-number-{next(made)}"}

    config.refresh_api_key_hook = refresh
    with server(send(200, "{}")) as (url, seen):
        config.host = url
        with ApiReader(config, FAST) as reader:
            reader.get("/one")
            reader.get("/two")
    first, second = (r["Authorization"] for r in seen)
    assert first.startswith("Bearer token-number-")
    assert int(second.rpartition("-")[2]) > int(first.rpartition("-")[2])


def test_without_a_refresh_hook_the_header_is_made_once() -> None:
    with server(send(200, "{}")) as (url, seen):
        config = configuration(url, TOKEN)
        with ApiReader(config, FAST) as reader:
            config.api_key = {"authorization": "Bearer changed-afterwards"}
            reader.get("/one")
    assert [r["Authorization"] for r in seen] == [f"Bearer {TOKEN}"]
