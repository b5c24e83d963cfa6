"""GET requests to one apiserver, each bounded in time and size, answered as JSON or as one line of error.

``doctor`` reads a cluster it does not trust to be well: a server that goes
silent, answers with HTML, redirects elsewhere or sends gigabytes must end in
one line that names the server and the path, never a hang, a traceback or a
credential on the screen. ``ApiReader`` holds those rules:

- every request has a connect timeout and a wall-clock deadline from sending
  it to the answer's last byte (``ReadLimits.request_timeout``), and no
  request starts or runs past the deadline of the whole read
  (``ReadLimits.total_timeout``); the request runs in a worker thread the
  caller waits for, so a server that drips one byte a second is cut off too;
- nothing is retried and no redirect is followed (an apiserver does not
  redirect a read; a 3xx names where it pointed, without its path);
- an answer is streamed and refused past ``ReadLimits.max_response_bytes``;
- an answer must be JSON that Go would decode (no ``NaN``, no infinite
  numbers), nesting at most ``limits.MAX_NESTING`` levels;
- every text that comes from the server, and every message, is capped at
  ``limits.MAX_MESSAGE_VALUE`` characters and has the user's credentials
  replaced by ``<redacted>``.

The connection is urllib3's, configured from a kubernetes client
``Configuration`` as the client's own REST layer configures it (CA, client
certificate, TLS server name, HTTP proxy).
"""

from __future__ import annotations

import base64
import contextlib
import json
import math
import re
import ssl
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import urllib3
from urllib3.exceptions import (
    ConnectTimeoutError,
    HTTPError,
    LocationParseError,
    NameResolutionError,
    NewConnectionError,
    ProtocolError,
    ProxyError,
    ReadTimeoutError,
    SSLError,
)

from workloadbuilder._internal.gofmt import capped
from workloadbuilder._internal.textread import check_nesting
from workloadbuilder.doctor.credentials import header_problem
from workloadbuilder.errors import InvalidArgumentError, WorkloadBuilderError
from workloadbuilder.limits import MAX_MESSAGE_VALUE, MAX_NESTING

__all__ = [
    "DEFAULT_CONNECT_TIMEOUT",
    "DEFAULT_MAX_RESPONSE_MIB",
    "DEFAULT_REQUEST_TIMEOUT",
    "DEFAULT_TOTAL_TIMEOUT",
    "ApiReadError",
    "ApiReader",
    "ReadLimits",
    "Redactor",
    "auth_header",
    "server_origin",
    "type_name",
]

DEFAULT_CONNECT_TIMEOUT = 10.0
"""Seconds to open a connection (TCP and TLS) to the apiserver."""

DEFAULT_REQUEST_TIMEOUT = 30.0
"""Seconds one request may take, from sending it to the last byte of the answer."""

DEFAULT_TOTAL_TIMEOUT = 120.0
"""Seconds every request of one ``doctor`` run may take together."""

DEFAULT_MAX_RESPONSE_MIB = 256
"""MiB one answer may have (a list of 100,000 pods is about 400 MiB of JSON: raise it for such clusters)."""

_CHUNK = 1 << 16
_SCHEMES = ("http", "https")


class ApiReadError(WorkloadBuilderError):
    """A read that failed: the server unreachable, silent, refusing, redirecting, or answering what is not JSON.

    Attributes:
        status: the HTTP status of the answer, 0 when there was none (a transport, TLS or decode failure).
    """

    def __init__(self, message: str, status: int = 0) -> None:
        self.status = status  # the answer's HTTP status; 0 when no answer came
        super().__init__(message)


@dataclass(frozen=True)
class ReadLimits:
    """The bounds of one ``doctor`` read of a cluster; each is a command-line flag (docs/robustness.md).

    Attributes:
        connect_timeout: seconds to open a connection (``--connect-timeout``).
        request_timeout: seconds one request may take, to the answer's last byte (``--request-timeout``).
        total_timeout: seconds all requests may take together (``--timeout``).
        max_response_bytes: bytes one answer may have (``--max-response-mib``).
    """

    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT
    request_timeout: float = DEFAULT_REQUEST_TIMEOUT
    total_timeout: float = DEFAULT_TOTAL_TIMEOUT
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_MIB << 20

    def __post_init__(self) -> None:
        for name in ("connect_timeout", "request_timeout", "total_timeout"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise TypeError(f"ReadLimits(): {name} must be a number of seconds, not {type(value).__name__}")
            if not (math.isfinite(value) and value > 0):
                raise ValueError(f"ReadLimits(): {name} must be a positive, finite number of seconds, got {value!r}")
        size = self.max_response_bytes
        if isinstance(size, bool) or not isinstance(size, int):
            raise TypeError(f"ReadLimits(): max_response_bytes must be an int, not {type(size).__name__}")
        if size <= 0:
            raise ValueError(f"ReadLimits(): max_response_bytes must be positive, got {size}")


class Redactor:
    """Replaces every known credential in a text by ``<redacted>`` and caps the text, before anyone prints it.

    Each credential is looked for in every form a message can carry it in: as given, stripped, with its
    whitespace run together (as messages are put on one line), escaped as Python's and JSON's ``repr``
    escape it (``b'bearer s3cr3t\\n'``), and in any letter case (a reason that was lowercased).
    """

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._secrets: set[str] = set()  # the credential strings to hide (tokens, passwords, keys)
        self._forms: list[str] | None = None  # every form of every secret, longest first (built on first use)
        self._patterns: dict[str, re.Pattern[str]] = {}  # a form's case-insensitive pattern, made on first use
        self.add(secrets)

    def add(self, secrets: Iterable[str]) -> None:
        """Hide these strings too (empty and very short ones are ignored: they would blank ordinary words)."""
        self._secrets.update(secret for secret in secrets if isinstance(secret, str) and len(secret.strip()) >= 4)
        self._forms = None

    def _all_forms(self) -> list[str]:
        if self._forms is None:
            forms: set[str] = set()
            for secret in self._secrets:
                forms.update(form for form in _forms_of(secret) if len(form.strip()) >= 4)
            self._forms = sorted(forms, key=len, reverse=True)
        return self._forms

    def scrub(self, text: str) -> str:
        """``text`` with every credential replaced by ``<redacted>``, its lines and length kept as they are."""
        text = str(text)
        for form in self._all_forms():
            if len(form) > len(text):
                continue
            if form in text:
                text = text.replace(form, "<redacted>")
            if form.lower() in text.lower():
                pattern = self._patterns.get(form)
                if pattern is None:
                    pattern = self._patterns[form] = re.compile(re.escape(form), re.IGNORECASE)
                text = pattern.sub("<redacted>", text)
        return text

    def __call__(self, text: str, cap: int = MAX_MESSAGE_VALUE) -> str:
        """``text`` on one line, with every credential replaced and cut at ``cap`` characters."""
        return capped(" ".join(self.scrub(" ".join(self.scrub(str(text)).split())).split()), cap)


def _forms_of(secret: str) -> set[str]:
    """The forms a credential can take in a message (see ``Redactor``)."""
    plain = {secret, secret.strip(), " ".join(secret.split())}
    forms = set(plain)
    for form in plain:
        forms.add(repr(form)[1:-1])
        forms.add(form.encode("unicode_escape").decode("ascii"))
        forms.add(json.dumps(form)[1:-1])
        forms.add(repr(form.encode("utf-8", "surrogateescape"))[2:-1])
        with contextlib.suppress(UnicodeEncodeError):
            forms.add(repr(form.encode("latin-1"))[2:-1])
    forms |= {" ".join(form.split()) for form in forms}
    return forms


def server_origin(url: str) -> str:
    """``scheme://host:port`` of a URL, without any user name, password, path or query (safe to print)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return "<an unreadable URL>"
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    return f"{parts.scheme}://{host}" + (f":{port}" if port is not None else "")


def auth_header(configuration: Any) -> str | None:
    """The ``Authorization`` value the kubernetes client would send (a bearer token or basic credentials)."""
    value = configuration.get_api_key_with_prefix("BearerToken", alias="authorization")
    if not value and configuration.username and configuration.password:
        value = urllib3.util.make_headers(basic_auth=f"{configuration.username}:{configuration.password}")[
            "authorization"
        ]
    return str(value) if value else None


def credentials_in(header: str) -> list[str]:
    """The secret parts of an ``Authorization`` value: the token, and basic credentials decoded."""
    scheme, _, credential = header.partition(" ")
    found = [header, credential]
    if scheme.lower() == "basic":
        try:
            decoded = base64.b64decode(credential, validate=True).decode("utf-8", "replace")
        except ValueError:
            decoded = ""
        found += [decoded, decoded.partition(":")[2]]
    return found


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{capped(text, 40)} does not fit a float64")
    return value


@dataclass
class _Answer:
    """What the worker thread got: the status, headers and body, or the failure."""

    status: int = 0
    location: str | None = None
    body: bytes | bytearray = b""
    failure: BaseException | None = None


class ApiReader:
    """GET-only JSON reads of one apiserver, each bounded as ``ReadLimits`` says (see the module's docstring).

    Raises (from ``get``): ``ApiReadError`` with one line naming the server and the path.
    """

    def __init__(
        self,
        configuration: Any,
        limits: ReadLimits | None = None,
        redact: Redactor | None = None,
        clock: Callable[[], float] = time.monotonic,
        started: float | None = None,
    ) -> None:
        """Prepare the connection pool from a kubernetes client ``Configuration`` (nothing is sent yet).

        ``started`` is the ``clock`` reading the whole read's deadline counts from (``doctor`` passes the
        time it started loading the credentials); now by default.

        Raises:
            ApiReadError: the server address is not an ``http://`` or ``https://`` URL, or names no host;
                or the ``Authorization`` value has a control character (it is not sent, nor shown).
        """
        self.limits = limits or ReadLimits()  # the bounds of every request
        self.redact = redact or Redactor()  # hides the user's credentials in every message
        host = str(configuration.host or "").rstrip("/")
        self.server = server_origin(host)  # scheme://host:port, printed in every message
        parts = urlsplit(host)
        if parts.scheme not in _SCHEMES or not parts.hostname:
            raise ApiReadError(
                f"the apiserver address {self.redact(server_origin(host) if parts.hostname else host, 200)!r} "
                "is not an http:// or https:// URL with a host"
            )
        self._base = host  # the server URL requests are made against (its path prefix kept)
        self._clock = clock  # time source of the deadlines
        self._deadline = (clock() if started is None else started) + self.limits.total_timeout  # the whole read's end
        self._headers = {"Accept": "application/json", "User-Agent": "workloadbuilder-doctor"}  # sent with each GET
        # a token read again from its file (the in-cluster token): the header is made anew before each request
        self._configuration = configuration if getattr(configuration, "refresh_api_key_hook", None) else None
        self._authorize(configuration)
        self._pool = self._pool_manager(configuration)  # urllib3's connections to the server

    def _authorize(self, configuration: Any) -> None:
        """Put the configuration's ``Authorization`` value in the headers, refused with a control character."""
        auth = auth_header(configuration)
        if auth:
            self.redact.add(credentials_in(auth))
            problem = header_problem(auth)
            if problem:
                raise ApiReadError(f"the Authorization value of the configuration {problem}: not sent")
            self._headers["Authorization"] = auth

    @staticmethod
    def _pool_manager(configuration: Any) -> urllib3.PoolManager:
        """The pool the kubernetes client's REST layer would build, with nothing retried or redirected."""
        args: dict[str, Any] = {
            "cert_reqs": ssl.CERT_REQUIRED if configuration.verify_ssl else ssl.CERT_NONE,
            "ca_certs": configuration.ssl_ca_cert,
            "cert_file": configuration.cert_file,
            "key_file": configuration.key_file,
            "retries": False,
            "maxsize": 1,
        }
        if getattr(configuration, "ca_cert_data", None):
            args["ca_cert_data"] = configuration.ca_cert_data
        if configuration.assert_hostname is not None:
            args["assert_hostname"] = configuration.assert_hostname
        if getattr(configuration, "tls_server_name", None):
            args["server_hostname"] = configuration.tls_server_name
        proxy = getattr(configuration, "proxy", None)
        if proxy:
            if urlsplit(str(proxy)).scheme not in _SCHEMES:
                raise ApiReadError(
                    f"the proxy {server_origin(str(proxy))!r} is not an http:// or https:// proxy (doctor's kinds)"
                )
            return urllib3.ProxyManager(str(proxy), proxy_headers=configuration.proxy_headers, **args)
        return urllib3.PoolManager(**args)

    def close(self) -> None:
        """Close the connections."""
        self._pool.clear()

    def __enter__(self) -> ApiReader:
        """The reader itself; ``with`` closes it."""
        return self

    def __exit__(self, *_: object) -> None:
        """Close the connections."""
        self.close()

    def get(self, path: str) -> tuple[int, Any]:
        """GET ``path`` and return ``(status, JSON body)`` for a 2xx or 4xx/5xx answer whose body is JSON or empty.

        The body of an error answer is ``None`` when it is not JSON (an HTML error page).

        Raises:
            ApiReadError: no answer in time, a transport or TLS failure, a redirect, an answer too large,
                or a 2xx answer that is not JSON.
        """
        where = self.redact(f"GET {self.server}{path}")
        remaining = self._deadline - self._clock()
        if remaining <= 0:
            raise ApiReadError(
                f"{where}: not sent: the reads took longer than {self.limits.total_timeout:g} s (--timeout)"
            )
        wait = min(self.limits.request_timeout, remaining)
        if self._configuration is not None:
            self._authorize(self._configuration)
        answer = _Answer()
        cancelled = threading.Event()
        worker = threading.Thread(
            target=self._fetch,
            args=(self._base + path, dict(self._headers), wait, answer, cancelled),
            daemon=True,
            name="doctor-get",
        )
        worker.start()
        worker.join(wait)
        if worker.is_alive():
            cancelled.set()
            if wait == self.limits.request_timeout:
                raise ApiReadError(f"{where}: no complete answer within {wait:g} s (--request-timeout)")
            raise ApiReadError(
                f"{where}: no complete answer before the reads took {self.limits.total_timeout:g} s (--timeout)"
            )
        if answer.failure is not None:
            raise ApiReadError(f"{where}: {self._transport_problem(answer.failure)}") from None
        if 300 <= answer.status < 400:
            target = server_origin(answer.location) if answer.location else "nowhere"
            raise ApiReadError(
                f"{where}: the server answered {answer.status} with a redirect to {target}: "
                "doctor does not follow redirects",
                answer.status,
            )
        return answer.status, self._decode(where, answer)

    def _fetch(
        self, url: str, headers: dict[str, str], wait: float, answer: _Answer, cancelled: threading.Event
    ) -> None:
        """The worker: one request, its body streamed into ``answer`` up to the size cap."""
        cap = self.limits.max_response_bytes
        try:
            response = self._pool.request(
                "GET",
                url,
                headers=headers,
                timeout=urllib3.Timeout(connect=min(self.limits.connect_timeout, wait), read=wait),
                preload_content=False,
                redirect=False,
                retries=False,
            )
            try:
                answer.status = response.status
                answer.location = response.headers.get("Location")
                length = response.headers.get("Content-Length", "")
                if length.isdigit() and int(length) > cap:
                    raise _TooLarge(int(length))
                body = bytearray()
                for chunk in response.stream(_CHUNK):
                    if cancelled.is_set():
                        return
                    if len(body) + len(chunk) > cap:
                        raise _TooLarge(None)
                    body += chunk
                answer.body = body
            finally:
                response.release_conn()
        except Exception as failure:  # every failure is handed to the waiting caller
            answer.failure = failure

    def _transport_problem(self, failure: BaseException) -> str:
        """One line for a failure of the connection, the TLS handshake or the answer's framing."""
        limits = self.limits
        if isinstance(failure, _TooLarge):
            size = f" ({failure.size} bytes)" if failure.size is not None else ""
            return (
                f"the answer is larger than {limits.max_response_bytes >> 20} MiB{size} (--max-response-mib): not read"
            )
        # NameResolutionError is a NewConnectionError, which urllib3 makes a ConnectTimeoutError too: most
        # specific first.
        if isinstance(failure, NameResolutionError):
            return "cannot resolve the server's host name"
        if isinstance(failure, ProxyError):
            return "the proxy failed: " + self.redact(_reason(failure), 300)
        if isinstance(failure, NewConnectionError):
            return "cannot connect: " + self.redact(_reason(failure), 300)
        if isinstance(failure, ConnectTimeoutError):
            return f"no connection within {limits.connect_timeout:g} s (--connect-timeout)"
        if isinstance(failure, ReadTimeoutError):
            return "the server stopped answering (read timed out)"
        if isinstance(failure, SSLError):
            return f"TLS failed: {self.redact(_ssl_reason(failure), 300)}"
        if isinstance(failure, ProtocolError):
            return "the connection broke before the answer was complete: " + self.redact(_reason(failure), 300)
        if isinstance(failure, LocationParseError):
            return "the server address does not parse as a URL"
        if isinstance(failure, HTTPError | OSError | ValueError):
            return f"the request failed: {type(failure).__name__}: {self.redact(_reason(failure), 300)}"
        raise failure  # anything else is a bug of ours, reported as one

    def _decode(self, where: str, answer: _Answer) -> Any:
        """The answer's JSON; ``None`` for an error answer whose body is not JSON."""
        ok = 200 <= answer.status < 300
        try:
            text = answer.body.decode("utf-8")
            if not text.strip():
                if ok:
                    raise ValueError("the answer is empty")
                return None
            data = json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)
        except RecursionError:
            data = _TOO_DEEP
        except ValueError as bad:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
            if not ok:
                return None
            # redacted before it is cut, so that a credential across the cut is not half shown
            head = self.redact(bytes(answer.body[:8192]).decode("utf-8", "replace"), 8192)
            shown = " ".join(bytes(answer.body[:60]).decode("utf-8", "replace").split())
            if shown != head[: len(shown)]:
                shown = head[:60]
            raise ApiReadError(
                f"{where}: the answer ({answer.status}) is not JSON: {self.redact(str(bad), 200)} "
                f"(it starts {shown!r})",
                answer.status,
            ) from None
        try:
            if data is _TOO_DEEP:
                raise InvalidArgumentError("too deep for Python's JSON decoder")
            check_nesting(data)
        except InvalidArgumentError:
            raise ApiReadError(
                f"{where}: the answer ({answer.status}) nests deeper than {MAX_NESTING} levels", answer.status
            ) from None
        return data


_TOO_DEEP = object()


class _TooLarge(Exception):
    """An answer past the size cap (``size``: its Content-Length when it announced one)."""

    def __init__(self, size: int | None) -> None:
        self.size = size  # the announced Content-Length, None when the stream ran past the cap
        super().__init__("too large")


def _reason(failure: BaseException) -> str:
    """The innermost reason of a urllib3 failure, without urllib3's repetition of the pool and URL."""
    reason = getattr(failure, "reason", None) or failure.__cause__ or failure.__context__
    inner = reason if isinstance(reason, BaseException) else failure
    text = getattr(inner, "strerror", None) or str(inner)
    for noise in ("Failed to establish a new connection: ",):
        text = text.split(noise, 1)[-1]
    if "[Errno" in text:
        text = text.split("]", 1)[-1].strip()
    return text.lower() if text else type(inner).__name__


def _ssl_reason(failure: BaseException) -> str:
    """What broke in a TLS handshake, in OpenSSL's words, with a hint for the commonest case."""
    candidates = [failure, failure.__cause__, failure.__context__, *failure.args]
    cause = next((item for item in candidates if isinstance(item, ssl.SSLError)), None)
    if isinstance(cause, ssl.SSLCertVerificationError):
        return f"the server's certificate is not trusted: {cause.verify_message}"
    reason = getattr(cause, "reason", None)
    if reason in _PLAIN_HTTP:
        return f"{str(reason).lower().replace('_', ' ')} (is the server plain http:// rather than https://?)"
    if reason:
        return str(reason).lower().replace("_", " ")
    return _reason(failure)


_PLAIN_HTTP = frozenset({"WRONG_VERSION_NUMBER", "RECORD_LAYER_FAILURE", "HTTP_REQUEST", "PACKET_LENGTH_TOO_LONG"})
"""OpenSSL's reasons when the other end answered a TLS hello with plain HTTP."""


def type_name(value: Any, mapping: str = "an object") -> str:
    """A decoded value's kind for a message: ``null``, ``a boolean``, ``a number``, ``a string``, ``a list``, ...

    ... or ``mapping`` for a mapping: ``an object`` in JSON answers, ``a mapping`` in a kubeconfig.
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return mapping if isinstance(value, Mapping) else type(value).__name__
