"""The kubeconfig as ``doctor`` reads it: checked first, then loaded by the kubernetes client, errors on one line.

``load_context(kubeconfig, context)`` finds the files as kubectl does
(``--kubeconfig``, else every existing file of ``$KUBECONFIG``, else
``~/.kube/config``), reads each with the bounded YAML reader, merges them
(the first file that names a cluster, user or context, or sets
``current-context``, wins) and checks the shape of everything it will use:
each entry a mapping with a ``name``, the chosen context naming a cluster
whose ``server`` is an ``http://`` or ``https://`` URL. Then the files the
chosen user and cluster name (``tokenFile``, ``certificate-authority``,
``client-certificate``, ``client-key``) are read, as regular files only and
bounded in size (``credentials.read_regular_file``; a relative path is
relative to the kubeconfig that names it, as kubectl has it), and put in as
data; and the exec credential plugin, when the client would run it, is run
here with the time bound and an output bound (``credentials.run_plugin``),
its token or certificate put in as data too. Only then does the kubernetes
client's own loader build the ``Configuration`` (certificates, tokens),
never writing the file back. No ``auth-provider`` plugin runs: the stored
token of a ``gcp`` or ``oidc`` provider is used as the user's token, and one
that is missing or expired (which the loader would refresh, unbounded) is
refused. An ``Authorization``
value with a control character is refused before anything is sent.

Every failure is a ``KubeconfigError`` naming the file and the entry, never a
credential: every string of every ``users`` entry, a token file's content,
the plugin's token and key, and the header value are redacted from every
message (in each form a message may carry them: see ``transport.Redactor``),
and an exec credential plugin's output is summarised, never shown.
"""

from __future__ import annotations

import base64
import contextlib
import datetime
import json
import logging
import os
import re
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from workloadbuilder._internal.gofmt import capped
from workloadbuilder._internal.textread import TextError, decode_utf8
from workloadbuilder.doctor.credentials import (
    MAX_CREDENTIAL_BYTES,
    MAX_PLUGIN_OUTPUT_BYTES,
    PluginFailure,
    UnreadableFile,
    header_problem,
    read_regular_file,
    run_plugin,
)
from workloadbuilder.doctor.transport import DEFAULT_TOTAL_TIMEOUT, Redactor, auth_header, credentials_in, type_name
from workloadbuilder.errors import WorkloadBuilderError
from workloadbuilder.manifests import ManifestError, read_documents_text

__all__ = ["MAX_KUBECONFIG_BYTES", "KubeContext", "KubeconfigError", "load_context"]

MAX_KUBECONFIG_BYTES = 4 << 20
"""Bytes one kubeconfig file may have (one with a few embedded certificates is about 10 kB)."""

_DEFAULT_FILE = os.path.join("~", ".kube", "config")
_ENTRIES = (("clusters", "cluster"), ("users", "user"), ("contexts", "context"))


class KubeconfigError(WorkloadBuilderError):
    """A kubeconfig ``doctor`` cannot use: missing, unreadable, malformed, or a credential plugin that failed."""


@dataclass(frozen=True)
class KubeContext:
    """The chosen context of a kubeconfig, loaded.

    Attributes:
        configuration: the kubernetes client ``Configuration`` (server, TLS, credentials).
        context: the context's name.
        namespace: the context's namespace (``default`` when it names none).
        source: the file (or ``$KUBECONFIG`` files) it came from, as messages name it.
        redact: hides every credential of the kubeconfig in a message.
        ca_problem: why the CA bundle meant for the server is not used (the system's roots are trusted
            instead: ``--in-cluster`` with a ``ca.crt`` that cannot be read), said when TLS then fails;
            empty otherwise.
    """

    configuration: Any
    context: str
    namespace: str
    source: str
    redact: Redactor
    ca_problem: str = ""


def _type_name(value: Any) -> str:
    return type_name(value, "a mapping")


def _files(kubeconfig: str | None, environ: Mapping[str, str]) -> tuple[list[str], str]:
    """The kubeconfig files to read and how messages name them."""
    if kubeconfig is not None:
        path = os.path.expanduser(kubeconfig)
        if not os.path.exists(path):
            raise KubeconfigError(f"kubeconfig {capped(kubeconfig)}: no such file")
        return [path], capped(kubeconfig)
    listed = environ.get("KUBECONFIG", "")
    if listed:
        named = [os.path.expanduser(part) for part in listed.split(os.pathsep) if part]
        found = [path for path in named if os.path.exists(path)]
        if not found:
            raise KubeconfigError(f"kubeconfig: no file of $KUBECONFIG exists ({capped(listed)})")
        return found, (capped(found[0]) if len(found) == 1 else f"$KUBECONFIG ({capped(', '.join(found))})")
    path = os.path.expanduser(_DEFAULT_FILE)
    if not os.path.exists(path):
        raise KubeconfigError(f"kubeconfig {path}: no such file (give --kubeconfig FILE or set $KUBECONFIG)")
    return [path], path


def _read(path: str) -> dict[str, Any]:
    """One file's data: a mapping (an empty file is an empty mapping)."""
    shown = capped(path)
    try:
        data = read_regular_file(path, MAX_KUBECONFIG_BYTES)
    except UnreadableFile as err:
        if err.reason.startswith("is larger than"):
            raise KubeconfigError(f"kubeconfig {shown}: larger than {MAX_KUBECONFIG_BYTES >> 20} MiB") from None
        raise KubeconfigError(f"kubeconfig {shown}: {err.reason}") from None
    try:
        documents = read_documents_text(shown, decode_utf8(data, shown))
    except TextError as err:
        raise KubeconfigError(f"kubeconfig {shown}: {err.message}") from None
    except ManifestError as err:
        raise KubeconfigError(
            f"kubeconfig {shown}: not YAML: {capped(str(err).partition(': ')[2] or str(err))}"
        ) from None
    if len(documents) > 1:
        raise KubeconfigError(f"kubeconfig {shown}: expected one YAML document, found {len(documents)}")
    config = documents[0] if documents else None
    if config is None:
        return {}
    if not isinstance(config, dict):
        raise KubeconfigError(f"kubeconfig {shown}: expected a mapping (kind: Config), found {_type_name(config)}")
    return config


@dataclass
class _Merged:
    """The merged files: each named entry with the file it came from, and the first ``current-context``."""

    entries: dict[str, dict[str, tuple[dict[str, Any], str]]]  # "clusters" -> name -> (entry, file)
    current: str | None  # the first current-context set
    secrets: list[str]  # every string of every users entry


def _strings(value: Any) -> list[str]:
    found: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, Mapping):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def _merge(paths: list[str]) -> _Merged:
    merged = _Merged({plural: {} for plural, _ in _ENTRIES}, None, [])
    for path in paths:
        config = _read(path)
        shown = capped(path)
        for plural, singular in _ENTRIES:
            listed = config.get(plural)
            if listed is None:
                continue
            if not isinstance(listed, list):
                raise KubeconfigError(f"kubeconfig {shown}: {plural}: expected a list, found {_type_name(listed)}")
            for index, entry in enumerate(listed):
                where = f"kubeconfig {shown}: {plural}[{index}]"
                if not isinstance(entry, dict):
                    raise KubeconfigError(f"{where}: expected a mapping, found {_type_name(entry)}")
                name = entry.get("name")
                if not isinstance(name, str) or not name:
                    raise KubeconfigError(f"{where}.name: expected a non-empty string, found {_type_name(name)}")
                body = entry.get(singular)
                if plural == "users":
                    merged.secrets += _strings(body)
                if not isinstance(body, dict):
                    raise KubeconfigError(
                        f"{where}.{singular} ({capped(name, 200)!r}): expected a mapping, found {_type_name(body)}"
                    )
                merged.entries[plural].setdefault(name, (entry, path))
        current = config.get("current-context")
        if current is not None and not isinstance(current, str):
            raise KubeconfigError(
                f"kubeconfig {shown}: current-context: expected a string, found {_type_name(current)}"
            )
        if current and merged.current is None:
            merged.current = current
    return merged


def _chosen(merged: _Merged, context: str | None, source: str, redact: Redactor) -> tuple[str, dict[str, Any], str]:
    """The context's name, its ``context`` mapping and the file it is in.

    The names its errors quote (context, cluster, user) go through ``redact``: a name may be anything, a
    user's credential too.
    """
    name = context if context is not None else merged.current
    if not name:
        raise KubeconfigError(f"kubeconfig {source}: no current-context is set: give --context NAME")
    found = merged.entries["contexts"].get(name)
    if found is None:
        known = ", ".join(sorted(merged.entries["contexts"])) or "none"
        raise KubeconfigError(
            f"kubeconfig {source}: no context named {redact(name, 200)!r} (contexts: {redact(known)})"
        )
    entry, path = found
    body: dict[str, Any] = entry["context"]
    where = f"kubeconfig {capped(path)}: context {redact(name, 200)!r}"
    for key in ("cluster", "user", "namespace"):
        value = body.get(key)
        if value is not None and not isinstance(value, str):
            raise KubeconfigError(f"{where}: {key}: expected a string, found {_type_name(value)}")
    cluster_name = body.get("cluster")
    if not cluster_name:
        raise KubeconfigError(f"{where}: names no cluster")
    cluster = merged.entries["clusters"].get(cluster_name)
    if cluster is None:
        raise KubeconfigError(f"{where}: cluster {redact(cluster_name, 200)!r} is not in the kubeconfig")
    user_name = body.get("user")
    if user_name and user_name not in merged.entries["users"]:
        raise KubeconfigError(f"{where}: user {redact(user_name, 200)!r} is not in the kubeconfig")
    server = cluster[0]["cluster"].get("server")
    where = f"kubeconfig {capped(cluster[1])}: cluster {redact(cluster_name, 200)!r}"
    if not isinstance(server, str) or not server:
        raise KubeconfigError(f"{where}: server: expected a URL, found {_type_name(server)}")
    scheme, _, rest = server.partition("://")
    if scheme not in ("http", "https") or not rest.strip("/"):
        host, slash, tail = rest.partition("/")
        shown = f"{scheme}://{host.rpartition('@')[2]}{slash}{tail}" if rest else server  # no user:password@
        raise KubeconfigError(f"{where}: server {capped(shown, 200)!r} is not an http:// or https:// URL with a host")
    return name, body, path


class _Captured(logging.Handler):
    """Keeps what the kubernetes client logs while it loads (an exec plugin's failure, with its raw output)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.messages: list[str] = []  # the messages logged, in order

    def emit(self, record: logging.LogRecord) -> None:
        """Keep the message; print nothing."""
        if record.levelno >= logging.WARNING:
            self.messages.append(record.getMessage())


def _exec_problem(message: str) -> str:
    """What an exec credential plugin's failure was, in our words: the plugin's own output is never shown."""
    returned = re.match(r"exec: process returned (-?\d+)", message)
    if returned:
        return f"exited with status {returned.group(1)}"
    if message.startswith("exec: failed to decode process output"):
        return "printed something that is not an ExecCredential in JSON"
    missing = re.match(r"exec: malformed response\. missing key '(\w+)'", message)
    if missing:
        return f"printed an ExecCredential without {missing.group(1)!r}"
    if "plugin api version" in message:
        return "printed an ExecCredential of another apiVersion than the kubeconfig's exec.apiVersion"
    if "missing token or clientCertificateData" in message:
        return "printed an ExecCredential with neither a token nor a client certificate"
    if "missing clientKeyData" in message:
        return "printed an ExecCredential with a client certificate but no key"
    if "malformed request" in message:
        return "is configured without " + message.rpartition("missing key ")[2].strip()
    if "No such file or directory" in message or "Permission denied" in message:
        return "cannot be run: " + ("no such file" if "No such file" in message else "permission denied")
    return "failed"


def _shown_path(value: str) -> str:
    return capped(value) if value.isprintable() else capped(repr(value))


def _named_file(entry: dict[str, Any], key: str, file: str, where: str) -> bytes:
    """The bytes of the file ``entry[key]`` names, relative to the kubeconfig ``file`` it is in (as kubectl)."""
    value = entry[key]
    if not isinstance(value, str) or not value:
        raise KubeconfigError(f"{where}: {key}: expected a file name, found {_type_name(value)}")
    path = os.path.expanduser(value)
    if not os.path.isabs(path):
        path = os.path.join(os.path.dirname(os.path.abspath(file)), path)
    try:
        return read_regular_file(path, MAX_CREDENTIAL_BYTES)
    except UnreadableFile as err:
        raise KubeconfigError(f"{where}: {key} {_shown_path(value)}: {err.reason}") from None


def _key_material(pem: bytes | str) -> list[str]:
    """The text of a private key and each line of its body, to redact."""
    text = pem.decode("utf-8", "replace") if isinstance(pem, bytes) else pem
    return [text, *(line.strip() for line in text.splitlines() if not line.startswith("-----"))]


_INLINED = (
    ("cluster", "certificate-authority", "certificate-authority-data"),
    ("user", "client-certificate", "client-certificate-data"),
    ("user", "client-key", "client-key-data"),
)


def _inline_files(
    user: dict[str, Any],
    user_where: str,
    user_file: str,
    cluster: dict[str, Any],
    cluster_where: str,
    cluster_file: str,
    https: bool,
    redact: Redactor,
) -> None:
    """Read each file the chosen user and cluster name (bounded, regular files only) into their data keys.

    As the client's loader would: ``token`` wins over ``tokenFile`` and ``X-data`` over ``X``; the
    certificate files count only for an ``https://`` server. A token file's content is stripped, as
    kubectl strips it.
    """
    if "token" not in user and "tokenFile" in user:
        raw = _named_file(user, "tokenFile", user_file, user_where)
        text = raw.decode("utf-8", "replace")
        redact.add([text, text.strip()])
        if "\ufffd" in text:
            raise KubeconfigError(f"{user_where}: tokenFile {_shown_path(user['tokenFile'])}: is not UTF-8 text")
        del user["tokenFile"]
        user["token"] = text.strip()
    key_data = user.get("client-key-data")
    if isinstance(key_data, str):
        with contextlib.suppress(ValueError):
            redact.add(_key_material(base64.b64decode(key_data, validate=False)))
    if not https:
        return
    for owner, key, data_key in _INLINED:
        entry, file, where = (
            (cluster, cluster_file, cluster_where) if owner == "cluster" else (user, user_file, user_where)
        )
        if data_key in entry or key not in entry:
            continue
        content = _named_file(entry, key, file, where)
        if key == "client-key":
            redact.add(_key_material(content))
        del entry[key]
        entry[data_key] = base64.standard_b64encode(content).decode("ascii")


def _plugin_status(plugin: Any, where: str, deadline: float, bound: str, redact: Redactor) -> dict[str, Any]:
    """Run the exec credential plugin (bounded: see ``credentials.run_plugin``) and check its ExecCredential."""
    command = plugin.get("command") if isinstance(plugin, dict) else None
    shown = redact(os.path.basename(command), 200) if isinstance(command, str) else "?"
    prefix = f"{where}: the exec credential plugin {shown!r}"
    if not isinstance(plugin, dict):
        raise KubeconfigError(f"{where}: exec: expected a mapping, found {_type_name(plugin)}")
    for key in ("command", "apiVersion"):
        if key not in plugin:
            raise KubeconfigError(f"{prefix} is configured without {key!r} (its output is not shown)")
    args = plugin.get("args") or []
    env_items = plugin.get("env") or []
    if not isinstance(command, str) or not command:
        raise KubeconfigError(f"{where}: exec.command: expected a string, found {_type_name(command)}")
    if not isinstance(args, list) or not all(isinstance(arg, str) for arg in args):
        raise KubeconfigError(f"{where}: exec.args: expected a list of strings")
    env = dict(os.environ)
    if not isinstance(env_items, list):
        raise KubeconfigError(f"{where}: exec.env: expected a list, found {_type_name(env_items)}")
    for index, item in enumerate(env_items):
        if not (isinstance(item, dict) and isinstance(item.get("name"), str) and isinstance(item.get("value"), str)):
            raise KubeconfigError(f"{where}: exec.env[{index}]: expected a mapping of a string name and value")
        env[item["name"]] = item["value"]
    interactive = hasattr(sys.stdout, "isatty") and sys.stdout.isatty()
    api_version = plugin["apiVersion"]
    env["KUBERNETES_EXEC_INFO"] = json.dumps(
        {"apiVersion": api_version, "kind": "ExecCredential", "spec": {"interactive": interactive}}
    )
    try:
        output = run_plugin(
            [command, *args],
            env,
            max(deadline - time.monotonic(), 0.001),
            MAX_PLUGIN_OUTPUT_BYTES,
            interactive,
            bound=bound,
        )
    except PluginFailure as failure:
        raise KubeconfigError(f"{prefix} {failure.problem} (its output is not shown)") from None
    try:
        data = json.loads(output)
    except (ValueError, RecursionError):
        data = None
    if not isinstance(data, dict):
        raise KubeconfigError(
            f"{prefix} printed something that is not an ExecCredential in JSON (its output is not shown)"
        )
    for key in ("apiVersion", "kind", "status"):
        if key not in data:
            raise KubeconfigError(f"{prefix} printed an ExecCredential without {key!r} (its output is not shown)")
    if data["apiVersion"] != api_version:
        raise KubeconfigError(
            f"{prefix} printed an ExecCredential of another apiVersion than the kubeconfig's exec.apiVersion "
            "(its output is not shown)"
        )
    status = data["status"]
    if not isinstance(status, dict):
        raise KubeconfigError(
            f"{prefix} printed an ExecCredential whose status is not an object (its output is not shown)"
        )
    for key in ("token", "clientCertificateData", "clientKeyData"):
        if key in status and not isinstance(status[key], str):
            raise KubeconfigError(
                f"{prefix} printed an ExecCredential whose status.{key} is not a string (its output is not shown)"
            )
    if isinstance(status.get("token"), str):
        redact.add([status["token"]])
    if isinstance(status.get("clientKeyData"), str):
        redact.add(_key_material(status["clientKeyData"]))
    if "token" not in status and "clientCertificateData" not in status:
        raise KubeconfigError(
            f"{prefix} printed an ExecCredential with neither a token nor a client certificate "
            "(its output is not shown)"
        )
    if "token" not in status and "clientKeyData" not in status:
        raise KubeconfigError(
            f"{prefix} printed an ExecCredential with a client certificate but no key (its output is not shown)"
        )
    return status


def _use_plugin(user: dict[str, Any], where: str, deadline: float, bound: str, redact: Redactor) -> bool:
    """Run the user's exec plugin when the client's loader would (no token), and put what it gave in as data."""
    if "exec" not in user or user.get("token"):
        return False
    status = _plugin_status(user["exec"], where, deadline, bound, redact)
    del user["exec"]
    if "token" in status:
        user["token"] = status["token"]
    else:
        for key in ("client-certificate", "client-key"):
            user.pop(key, None)
        user["client-certificate-data"] = base64.standard_b64encode(status["clientCertificateData"].encode()).decode()
        user["client-key-data"] = base64.standard_b64encode(status["clientKeyData"].encode()).decode()
    return True


def _use_auth_provider(user: dict[str, Any], where: str, redact: Redactor) -> bool:
    """Put the ``gcp`` or ``oidc`` auth-provider's stored token in as the user's token, and take the provider out.

    The client's loader would refresh a missing or expired token itself (``gcloud`` or google-auth for ``gcp``; an
    HTTP request to the OIDC issuer) with no time bound; doctor runs no auth-provider plugin: such a token is refused
    with one line instead. As the loader: a provider of another name is ignored, and an ``oidc`` ``id-token`` that is
    not a JWT counts as no provider (the user's own token or exec plugin is used).

    Raises:
        KubeconfigError: the provider is not a mapping, or its token is missing or expired (refreshing it is left to
            kubectl).
    """
    provider = user.get("auth-provider")
    if provider is None:
        return False
    if not isinstance(provider, dict):
        raise KubeconfigError(f"{where}: auth-provider is {_type_name(provider)}, not a mapping")
    name, config = provider.get("name"), provider.get("config")
    if name not in ("gcp", "oidc"):
        return False
    config = config if isinstance(config, dict) else {}
    key = "access-token" if name == "gcp" else "id-token"
    token = config.get(key)
    expired = _gcp_expired(config) if name == "gcp" else _jwt_expired(token)
    if not isinstance(token, str) or not token or expired:
        state = "has expired" if isinstance(token, str) and token else "is not set"
        raise KubeconfigError(
            f"{where}: the auth-provider {name!r}: its {key} {state}, and doctor runs no auth-provider plugin to "
            "refresh it (it would run a command or reach the network without a bound): run kubectl once to refresh "
            "it, or use an exec credential plugin"
        )
    del user["auth-provider"]
    if expired is None:  # an oidc id-token that is not a JWT: the loader ignores the provider
        return False
    redact.add([token])
    user["token"] = token
    return True


def _gcp_expired(config: dict[str, Any]) -> bool:
    """Whether a gcp provider's ``expiry`` (RFC 3339) has passed; one that is not a time counts as passed."""
    expiry = config.get("expiry")
    if expiry is None:
        return False
    try:
        when = datetime.datetime.fromisoformat(str(expiry))
    except ValueError:
        return True
    when = when if when.tzinfo else when.replace(tzinfo=datetime.UTC)
    return when <= datetime.datetime.now(datetime.UTC)


def _jwt_expired(token: Any) -> bool | None:
    """Whether an oidc ``id-token``'s ``exp`` has passed, as the client's loader reads it; ``None``: not a JWT."""
    if not isinstance(token, str) or not token:
        return False
    parts = token.split(".")
    if len(parts) != 3 or any(char in token for char in "=+/") or len(parts[1]) % 4 == 1:
        return None
    try:
        claims = json.loads(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)).decode("utf-8"))
    except (ValueError, RecursionError):
        return None
    expire = claims.get("exp") if isinstance(claims, dict) else None
    if isinstance(expire, bool) or not isinstance(expire, int | float):
        return False
    return bool(expire <= time.time())


def load_context(
    kubeconfig: str | None = None,
    context: str | None = None,
    environ: Mapping[str, str] | None = None,
    timeout: float = DEFAULT_TOTAL_TIMEOUT,
) -> KubeContext:
    """Find, read, check and load the kubeconfig's chosen context (see the module's docstring).

    Args:
        kubeconfig: the file (``--kubeconfig``); ``None`` reads ``$KUBECONFIG`` or ``~/.kube/config``.
        context: the context (``--context``); ``None`` is the current one.
        environ: where ``KUBECONFIG`` is looked up (``os.environ`` by default).
        timeout: seconds an exec credential plugin may run (``--timeout``); it is killed, with its
            process group, past them.

    Raises:
        KubeconfigError: one line naming the file and what is wrong, with no credential in it.
    """
    from kubernetes.client.configuration import Configuration
    from kubernetes.config.config_exception import ConfigException
    from kubernetes.config.kube_config import ConfigNode, KubeConfigLoader

    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not timeout > 0:
        raise TypeError(f"load_context(): timeout must be a positive number of seconds, not {timeout!r}")
    deadline = time.monotonic() + timeout
    paths, source = _files(kubeconfig, os.environ if environ is None else environ)
    merged = _merge(paths)
    redact = Redactor(merged.secrets)
    name, body, path = _chosen(merged, context, source, redact)
    user_name = body.get("user")
    where = f"kubeconfig {capped(path)}: context {redact(name, 200)!r}"
    user_entry, user_file = merged.entries["users"].get(user_name or "", ({}, ""))
    cluster_entry, cluster_file = merged.entries["clusters"][body["cluster"]]
    user_body = dict(user_entry.get("user") or {})
    cluster_body = dict(cluster_entry["cluster"])
    user_where = f"{where}: user {redact(str(user_name), 200)!r}"
    _inline_files(
        user_body,
        user_where,
        user_file or path,
        cluster_body,
        f"kubeconfig {capped(cluster_file)}: cluster {redact(str(body['cluster']), 200)!r}",
        cluster_file,
        str(cluster_body["server"]).startswith("https"),
        redact,
    )
    origin = "the token of tokenFile" if "tokenFile" in (user_entry.get("user") or {}) else "the token"
    if _use_auth_provider(user_body, user_where, redact):
        origin = "the token of the auth-provider"
    elif _use_plugin(user_body, user_where, deadline, f"{timeout:g} s (--timeout)", redact):
        origin = "the token the exec credential plugin printed"
    if user_name:
        merged.entries["users"][user_name] = ({**user_entry, "user": user_body}, user_file)
    merged.entries["clusters"][body["cluster"]] = ({**cluster_entry, "cluster": cluster_body}, cluster_file)
    tree: dict[str, Any] = {
        plural: [
            ConfigNode(f"{plural}[name={entry_name}]", entry, file)  # type: ignore[no-untyped-call]
            for entry_name, (entry, file) in found.items()
        ]
        for plural, found in merged.entries.items()
    }
    tree["current-context"] = name
    configuration = Configuration()
    captured = _Captured()
    root = logging.getLogger()
    root.addHandler(captured)
    try:
        loader = KubeConfigLoader(  # type: ignore[no-untyped-call]
            config_dict=ConfigNode("kubeconfig", tree, path),  # type: ignore[no-untyped-call]
            active_context=name,
        )
        loader.load_and_set(configuration)  # type: ignore[no-untyped-call]
    except ConfigException as err:
        raise KubeconfigError(f"{where}: {redact(str(err).removeprefix('Invalid kube-config file. '))}") from None
    except Exception as err:  # the client's loader raises what it meets in the user's file
        raise KubeconfigError(f"{where}: cannot be loaded: {type(err).__name__}: {redact(str(err))}") from None
    finally:
        root.removeHandler(captured)
    user = merged.entries["users"].get(user_name or "", ({}, ""))[0].get("user") or {}
    if captured.messages:
        plugin = user.get("exec") if isinstance(user, dict) else None
        if isinstance(plugin, dict):
            command = plugin.get("command")
            shown = redact(os.path.basename(command), 200) if isinstance(command, str) else "?"
            raise KubeconfigError(
                f"{where}: user {redact(str(user_name), 200)!r}: the exec credential plugin {shown!r} "
                f"{_exec_problem(captured.messages[0])} (its output is not shown)"
            )
        raise KubeconfigError(f"{where}: user {redact(str(user_name), 200)!r}: the credentials cannot be loaded")
    configuration.refresh_api_key_hook = None  # the credentials were just loaded: no plugin runs again
    redact.add(str(value) for value in configuration.api_key.values())
    header = auth_header(configuration)
    if header:
        redact.add(credentials_in(header))
        problem = header_problem(header)
        if problem:
            what = origin if header.startswith("Bearer ") else "the user name or password"
            raise KubeconfigError(f"{user_where}: {what} {problem}: it cannot be sent in an HTTP header (not sent)")
    namespace = body.get("namespace") or "default"
    return KubeContext(configuration, name, namespace, source, redact)
