"""The in-cluster configuration as ``doctor --in-cluster`` reads it: a pod's service account, as client-go reads it.

``load_in_cluster()`` does what client-go's ``rest.InClusterConfig`` and
``clientcmd``'s in-cluster namespace do (k8s.io/client-go v0.37.2,
``rest/config.go``, ``tools/clientcmd/client_config.go``,
``transport/token_source.go``):

- the server is ``https://`` and ``$KUBERNETES_SERVICE_HOST`` joined to
  ``$KUBERNETES_SERVICE_PORT`` as Go's ``net.JoinHostPort`` joins them (a host
  with a ``:``, an IPv6 address, in brackets); either unset or empty is
  client-go's ``ErrNotInCluster``, word for word;
- the token is the service account folder's ``token``, stripped of
  surrounding whitespace (as client-go's file token source sends it); a
  missing or unreadable one is an error, an empty one is client-go's
  ``read empty token from file``;
- the CA is the folder's ``ca.crt`` when it holds PEM certificates; when it
  cannot be read or holds none, client-go logs it and trusts the system's
  roots, and so does ``doctor``, naming the reason should TLS then fail;
- the namespace is ``$POD_NAMESPACE``, else the folder's ``namespace``
  stripped, else ``default`` (a ``namespace`` file that cannot be read
  counts as none, as in client-go);
- the token is read again once it is 50 seconds old (client-go's one-minute
  period less its ten seconds of leeway: kubelet rotates a projected token
  file); a read that fails keeps the token held, as client-go does.

The folder is ``/var/run/secrets/kubernetes.io/serviceaccount`` unless
``$WORKLOADBUILDER_SERVICE_ACCOUNT_DIR`` (or the ``folder`` argument) names
another. Each file is read as the files a kubeconfig names are
(``credentials.read_regular_file``): a regular file of at most
``MAX_CREDENTIAL_BYTES``, a FIFO or a device refused without waiting on it.
Every failure is a ``KubeconfigError`` of one line that never shows the token.
"""

from __future__ import annotations

import os
import ssl
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from workloadbuilder._internal.gofmt import capped, go_quote
from workloadbuilder.doctor.credentials import MAX_CREDENTIAL_BYTES, UnreadableFile, header_problem, read_regular_file
from workloadbuilder.doctor.kubeconfig import KubeconfigError, KubeContext
from workloadbuilder.doctor.transport import Redactor

__all__ = [
    "ERR_NOT_IN_CLUSTER",
    "SERVICE_ACCOUNT_DIR",
    "SERVICE_ACCOUNT_DIR_ENV",
    "TOKEN_REREAD_SECONDS",
    "ServiceAccountToken",
    "load_in_cluster",
]

SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"
"""Where kubelet mounts a pod's service account: ``token``, ``ca.crt`` and ``namespace``."""

SERVICE_ACCOUNT_DIR_ENV = "WORKLOADBUILDER_SERVICE_ACCOUNT_DIR"
"""The environment variable naming another service account folder (tests; a token mounted elsewhere)."""

ERR_NOT_IN_CLUSTER = (
    "unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined"
)
"""client-go's ``rest.ErrNotInCluster``, word for word."""

TOKEN_REREAD_SECONDS = 50.0
"""Age at which the token file is read again: client-go's period (a minute) less its leeway (ten seconds)."""

IN_CLUSTER_CONTEXT = "in-cluster"
"""The context name ``KubeContext.context`` holds for the in-cluster configuration."""


def _join_host_port(host: str, port: str) -> str:
    """Go's ``net.JoinHostPort``: a host with a colon is a literal IPv6 address, put in brackets."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _shown(value: str) -> str:
    return capped(value) if value.isprintable() else capped(repr(value))


def _token_text(data: bytes, path: str) -> str:
    """The token a token file holds: its UTF-8 text stripped (client-go's ``fileTokenSource``)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise KubeconfigError(f"in-cluster: token {_shown(path)}: is not UTF-8 text") from None
    token = text.strip()
    if not token:
        raise KubeconfigError(f"read empty token from file {go_quote(capped(path))}")
    return token


class ServiceAccountToken:
    """The service account's token, read again from its file once it is ``TOKEN_REREAD_SECONDS`` old.

    An instance is the ``refresh_api_key_hook`` of the ``Configuration`` ``load_in_cluster`` returns: the
    kubernetes client (and ``ApiReader``, before each request) calls it, and it puts the token in
    ``api_key["BearerToken"]``. A read that fails, or finds the file empty, keeps the token held (client-go
    logs "Unable to rotate token" and goes on with it); each new token is added to the redactor.
    """

    def __init__(
        self,
        path: str,
        token: str,
        redact: Redactor,
        clock: Callable[[], float] = time.monotonic,
        period: float = TOKEN_REREAD_SECONDS,
    ) -> None:
        self.path = path  # the token file
        self.token = token  # the token held, stripped
        self.read_at = clock()  # the clock reading of its read
        self._redact = redact
        self._clock = clock
        self._period = period
        self._lock = threading.Lock()

    def current(self) -> str:
        """The token to send now: the file's again when the one held is ``period`` seconds old."""
        with self._lock:
            now = self._clock()
            if now - self.read_at >= self._period:
                try:
                    data = read_regular_file(self.path, MAX_CREDENTIAL_BYTES)
                    text = data.decode("utf-8")
                except (UnreadableFile, UnicodeDecodeError):
                    return self.token
                self._redact.add([text, text.strip()])
                if text.strip():
                    self.token = text.strip()
                    self.read_at = now
            return self.token

    def __call__(self, configuration: Any) -> None:
        """The ``refresh_api_key_hook``: the current token into the configuration."""
        configuration.api_key["BearerToken"] = self.current()
        configuration.api_key_prefix["BearerToken"] = "Bearer"


def _ca_bundle(path: str) -> tuple[str | None, str]:
    """The PEM text of ``ca.crt``, or ``None`` and why it is not used (client-go then trusts the system's roots)."""
    try:
        data = read_regular_file(path, MAX_CREDENTIAL_BYTES)
    except UnreadableFile as err:
        return None, err.reason
    text = data.decode("ascii", "replace")
    if "-----BEGIN CERTIFICATE-----" not in text:
        return None, "holds no PEM certificate"
    try:
        ssl.create_default_context(cadata=text)
    except (ssl.SSLError, ValueError):
        return None, "holds a certificate that does not parse"
    return text, ""


def _namespace(environ: Mapping[str, str], path: str) -> str:
    """``$POD_NAMESPACE``, else the ``namespace`` file stripped, else ``default`` (clientcmd's order)."""
    if environ.get("POD_NAMESPACE"):
        return environ["POD_NAMESPACE"]
    try:
        text = read_regular_file(path, MAX_CREDENTIAL_BYTES).decode("utf-8", "replace").strip()
    except UnreadableFile:
        return "default"
    return text or "default"


def load_in_cluster(
    environ: Mapping[str, str] | None = None,
    folder: str | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> KubeContext:
    """The in-cluster configuration, loaded (see the module's docstring).

    Args:
        environ: where ``KUBERNETES_SERVICE_HOST``, ``KUBERNETES_SERVICE_PORT``, ``POD_NAMESPACE`` and
            ``WORKLOADBUILDER_SERVICE_ACCOUNT_DIR`` are looked up (``os.environ`` by default).
        folder: the service account folder; ``None`` is ``$WORKLOADBUILDER_SERVICE_ACCOUNT_DIR``, else
            ``SERVICE_ACCOUNT_DIR``.
        clock: the time source of the token's re-read.

    Returns:
        a ``KubeContext`` whose context is ``in-cluster``, whose ``source`` names the folder, and whose
        ``ca_problem`` says why ``ca.crt`` is not used (empty when it is).

    Raises:
        KubeconfigError: not in a cluster (client-go's ``ErrNotInCluster``), a port that is not a number,
            or a token file that is missing, unreadable, not UTF-8, empty, or not fit for an HTTP header.
    """
    from kubernetes.client.configuration import Configuration

    environ = os.environ if environ is None else environ
    host, port = environ.get("KUBERNETES_SERVICE_HOST", ""), environ.get("KUBERNETES_SERVICE_PORT", "")
    if not host or not port:
        raise KubeconfigError(ERR_NOT_IN_CLUSTER)
    if not (port.isascii() and port.isdigit() and 0 < int(port) < 65536):
        raise KubeconfigError(f"in-cluster: KUBERNETES_SERVICE_PORT {_shown(port)!r} is not a port number")
    folder = folder if folder is not None else environ.get(SERVICE_ACCOUNT_DIR_ENV) or SERVICE_ACCOUNT_DIR
    token_path = os.path.join(folder, "token")
    try:
        raw = read_regular_file(token_path, MAX_CREDENTIAL_BYTES)
    except UnreadableFile as err:
        raise KubeconfigError(f"in-cluster: token {_shown(token_path)}: {err.reason}") from None
    redact = Redactor([raw.decode("utf-8", "replace")])
    token = _token_text(raw, token_path)
    redact.add([token])
    problem = header_problem("Bearer " + token)
    if problem:
        raise KubeconfigError(
            f"in-cluster: token {_shown(token_path)}: the token {problem}: it cannot be sent in an HTTP header "
            "(not sent)"
        )
    ca_path = os.path.join(folder, "ca.crt")
    ca_text, ca_problem = _ca_bundle(ca_path)
    configuration: Any = Configuration()
    configuration.host = "https://" + _join_host_port(host, port)
    if ca_text is not None:
        configuration.ca_cert_data = ca_text
    source = ServiceAccountToken(token_path, token, redact, clock)
    configuration.refresh_api_key_hook = source
    source(configuration)
    namespace = _namespace(environ, os.path.join(folder, "namespace"))
    shown_ca = f"ca.crt {_shown(ca_path)} {ca_problem}" if ca_problem else ""
    return KubeContext(
        configuration, IN_CLUSTER_CONTEXT, namespace, f"in-cluster ({_shown(folder)})", redact, ca_problem=shown_ca
    )
