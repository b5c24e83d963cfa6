"""The kubeconfig as ``doctor`` reads it: checked first, then loaded by the kubernetes client, errors on one line.

``load_context(kubeconfig, context)`` finds the files as kubectl does
(``--kubeconfig``, else every existing file of ``$KUBECONFIG``, else
``~/.kube/config``), reads each with the bounded YAML reader, merges them
(the first file that names a cluster, user or context, or sets
``current-context``, wins) and checks the shape of everything it will use:
each entry a mapping with a ``name``, the chosen context naming a cluster
whose ``server`` is an ``http://`` or ``https://`` URL. Only then does the
kubernetes client's own loader build the ``Configuration`` (certificates,
tokens, exec and auth-provider plugins), never writing the file back.

Every failure is a ``KubeconfigError`` naming the file and the entry, never a
credential: every string of every ``users`` entry is redacted from every
message, and an exec credential plugin's output (which the client would log
raw on failure) is summarised, never shown.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from workloadbuilder._internal.gofmt import capped
from workloadbuilder._internal.textread import TextError, decode_utf8
from workloadbuilder.doctor.transport import Redactor, type_name
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
    """

    configuration: Any
    context: str
    namespace: str
    source: str
    redact: Redactor


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
        with open(path, "rb") as stream:
            data = stream.read(MAX_KUBECONFIG_BYTES + 1)
    except IsADirectoryError:
        raise KubeconfigError(f"kubeconfig {shown}: is a directory") from None
    except OSError as err:
        raise KubeconfigError(f"kubeconfig {shown}: cannot be read: {err.strerror or type(err).__name__}") from None
    if len(data) > MAX_KUBECONFIG_BYTES:
        raise KubeconfigError(f"kubeconfig {shown}: larger than {MAX_KUBECONFIG_BYTES >> 20} MiB")
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


def _chosen(merged: _Merged, context: str | None, source: str) -> tuple[str, dict[str, Any], str]:
    """The context's name, its ``context`` mapping and the file it is in."""
    name = context if context is not None else merged.current
    if not name:
        raise KubeconfigError(f"kubeconfig {source}: no current-context is set: give --context NAME")
    found = merged.entries["contexts"].get(name)
    if found is None:
        known = ", ".join(sorted(merged.entries["contexts"])) or "none"
        raise KubeconfigError(
            f"kubeconfig {source}: no context named {capped(name, 200)!r} (contexts: {capped(known)})"
        )
    entry, path = found
    body: dict[str, Any] = entry["context"]
    where = f"kubeconfig {capped(path)}: context {capped(name, 200)!r}"
    for key in ("cluster", "user", "namespace"):
        value = body.get(key)
        if value is not None and not isinstance(value, str):
            raise KubeconfigError(f"{where}: {key}: expected a string, found {_type_name(value)}")
    cluster_name = body.get("cluster")
    if not cluster_name:
        raise KubeconfigError(f"{where}: names no cluster")
    cluster = merged.entries["clusters"].get(cluster_name)
    if cluster is None:
        raise KubeconfigError(f"{where}: cluster {capped(cluster_name, 200)!r} is not in the kubeconfig")
    user_name = body.get("user")
    if user_name and user_name not in merged.entries["users"]:
        raise KubeconfigError(f"{where}: user {capped(user_name, 200)!r} is not in the kubeconfig")
    server = cluster[0]["cluster"].get("server")
    where = f"kubeconfig {capped(cluster[1])}: cluster {capped(cluster_name, 200)!r}"
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


def load_context(
    kubeconfig: str | None = None, context: str | None = None, environ: Mapping[str, str] | None = None
) -> KubeContext:
    """Find, read, check and load the kubeconfig's chosen context (see the module's docstring).

    Args:
        kubeconfig: the file (``--kubeconfig``); ``None`` reads ``$KUBECONFIG`` or ``~/.kube/config``.
        context: the context (``--context``); ``None`` is the current one.
        environ: where ``KUBECONFIG`` is looked up (``os.environ`` by default).

    Raises:
        KubeconfigError: one line naming the file and what is wrong, with no credential in it.
    """
    from kubernetes.client.configuration import Configuration
    from kubernetes.config.config_exception import ConfigException
    from kubernetes.config.kube_config import ConfigNode, KubeConfigLoader

    paths, source = _files(kubeconfig, os.environ if environ is None else environ)
    merged = _merge(paths)
    redact = Redactor(merged.secrets)
    name, body, path = _chosen(merged, context, source)
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
    user_name = body.get("user")
    where = f"kubeconfig {capped(path)}: context {redact(name, 200)!r}"
    try:
        loader = KubeConfigLoader(  # type: ignore[no-untyped-call]
            config_dict=ConfigNode("kubeconfig", tree, path),  # type: ignore[no-untyped-call]
            active_context=name,
        )
        loader.load_and_set(configuration)  # type: ignore[no-untyped-call]
    except ConfigException as err:
        raise KubeconfigError(f"{where}: {redact(str(err).removeprefix('Invalid kube-config file. '))}") from None
    except Exception as err:  # noqa: BLE001 - the client's loader raises what it meets in the user's file
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
    namespace = body.get("namespace") or "default"
    return KubeContext(configuration, name, namespace, source, redact)
