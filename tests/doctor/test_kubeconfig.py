"""The kubeconfig as ``doctor`` reads it (``doctor.kubeconfig.load_context``): found, merged, checked, loaded.

Each case writes kubeconfig files to a temporary folder and calls ``load_context`` directly: the context it
loads, or the one line of ``KubeconfigError`` naming the file and the entry, never a credential.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from workloadbuilder.doctor.kubeconfig import MAX_KUBECONFIG_BYTES, KubeconfigError, load_context
from workloadbuilder.errors import WorkloadBuilderError

TOKEN = "tok-abcdef-123456"
PLUGIN = os.path.basename(sys.executable)


def config(
    server: str = "https://example.com:6443",
    user: dict[str, Any] | None = None,
    namespace: str | None = None,
    current: str = "c",
) -> dict[str, Any]:
    context = {"cluster": "k", "user": "u"}
    if namespace:
        context["namespace"] = namespace
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "current-context": current,
        "clusters": [{"name": "k", "cluster": {"server": server, "insecure-skip-tls-verify": True}}],
        "users": [{"name": "u", "user": user if user is not None else {"token": TOKEN}}],
        "contexts": [{"name": "c", "context": context}],
    }


def write(tmp_path: Path, name: str, data: Any) -> str:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else yaml.safe_dump(data))
    return str(path)


def refused(*args: Any, **kwargs: Any) -> str:
    with pytest.raises(KubeconfigError) as caught:
        load_context(*args, **kwargs)
    assert isinstance(caught.value, WorkloadBuilderError)
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_the_bound() -> None:
    assert MAX_KUBECONFIG_BYTES == 4 << 20


def test_the_current_context_is_loaded(tmp_path: Path) -> None:
    path = write(tmp_path, "config", config(namespace="ml"))
    loaded = load_context(path)
    assert (loaded.context, loaded.namespace, loaded.source, loaded.ca_problem) == ("c", "ml", path, "")
    assert loaded.configuration.host == "https://example.com:6443"
    assert loaded.configuration.api_key == {"BearerToken": f"Bearer {TOKEN}"}
    assert loaded.configuration.refresh_api_key_hook is None
    assert loaded.redact(f"said {TOKEN}") == "said <redacted>"


def test_a_context_without_a_namespace_is_in_default(tmp_path: Path) -> None:
    assert load_context(write(tmp_path, "config", config())).namespace == "default"


def test_kubeconfig_files_merge_the_first_naming_an_entry_wins(tmp_path: Path) -> None:
    first = write(tmp_path, "a", config(namespace="ml"))
    second = write(
        tmp_path, "b", {"current-context": "other", "users": [{"name": "u", "user": {"token": "second-token-zzzz"}}]}
    )
    absent = str(tmp_path / "absent")
    loaded = load_context(environ={"KUBECONFIG": os.pathsep.join([absent, first, second])})
    assert (loaded.context, loaded.source) == ("c", f"$KUBECONFIG ({first}, {second})")
    assert loaded.configuration.api_key == {"BearerToken": f"Bearer {TOKEN}"}
    assert loaded.redact("second-token-zzzz") == "<redacted>"  # every user's strings are hidden
    assert load_context(environ={"KUBECONFIG": os.pathsep.join([absent, first])}).source == first


def test_the_default_file_is_under_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert refused(environ={}) == (
        f"kubeconfig {tmp_path}/.kube/config: no such file (give --kubeconfig FILE or set $KUBECONFIG)"
    )
    (tmp_path / ".kube").mkdir()
    write(tmp_path / ".kube", "config", config())
    assert load_context(environ={}).source == f"{tmp_path}/.kube/config"


def test_a_token_file_is_read_relative_to_its_kubeconfig_and_stripped(tmp_path: Path) -> None:
    (tmp_path / "token").write_text(" file-token-xyz0\n")
    loaded = load_context(write(tmp_path, "config", config(user={"tokenFile": "token"})))
    assert loaded.configuration.api_key == {"BearerToken": "Bearer file-token-xyz0"}
    assert loaded.redact("file-token-xyz0") == "<redacted>"


def test_an_exec_plugins_token_is_used(tmp_path: Path) -> None:
    credential = {
        "apiVersion": "client.authentication.k8s.io/v1",
        "kind": "ExecCredential",
        "status": {"token": "plugin-token-777"},
    }
    plugin = exec_user(f"import json; print(json.dumps({credential!r}))")
    loaded = load_context(write(tmp_path, "config", config(user=plugin)))
    assert loaded.configuration.api_key == {"BearerToken": "Bearer plugin-token-777"}
    assert loaded.redact("plugin-token-777") == "<redacted>"


def exec_user(code: str) -> dict[str, Any]:
    return {
        "exec": {
            "apiVersion": "client.authentication.k8s.io/v1",
            "command": sys.executable,
            "args": ["-c", code],
            "interactiveMode": "Never",
        }
    }


@pytest.mark.parametrize(
    ("code", "timeout", "problem"),
    [
        ("raise SystemExit(4)", 30.0, "exited with status 4"),
        ("import time; time.sleep(30)", 0.5, "did not finish within 0.5 s (--timeout): stopped"),
        (
            'print(\'{"kind": "ExecCredential", "secret": "plugin-secret-1"}\')',
            30.0,
            "printed an ExecCredential without 'apiVersion'",
        ),
    ],
    ids=["non-zero-exit", "too-slow", "not-a-credential"],
)
def test_an_exec_plugin_that_fails_is_named_and_its_output_is_not_shown(
    tmp_path: Path, code: str, timeout: float, problem: str
) -> None:
    path = write(tmp_path, "config", config(user=exec_user(code)))
    assert refused(path, timeout=timeout) == (
        f"kubeconfig {path}: context 'c': user 'u': the exec credential plugin {PLUGIN!r} {problem}"
        " (its output is not shown)"
    )


MALFORMED = {
    "list": ("- a\n- b\n", "expected a mapping (kind: Config), found a list"),
    "two-documents": ("a: 1\n---\nb: 2\n", "expected one YAML document, found 2"),
    "empty": ("", "no current-context is set: give --context NAME"),
    "clusters-not-a-list": ("clusters: {}\n", "clusters: expected a list, found a mapping"),
    "entry-without-a-name": ("clusters:\n- cluster: {}\n", "clusters[0].name: expected a non-empty string, found null"),
    "entry-not-a-mapping": ("users:\n- 3\n", "users[0]: expected a mapping, found a number"),
    "body-not-a-mapping": ("users:\n- name: u\n  user: [x]\n", "users[0].user ('u'): expected a mapping, found a list"),
    "current-context-not-a-string": ("current-context: [c]\n", "current-context: expected a string, found a list"),
    "not-utf-8": (b"a: \xff\n", "not UTF-8: byte 0xff at line 1, column 4"),
}


@pytest.mark.parametrize(("text", "problem"), MALFORMED.values(), ids=MALFORMED.keys())
def test_a_malformed_file(tmp_path: Path, text: str | bytes, problem: str) -> None:
    path = tmp_path / "config"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    assert refused(str(path)) == f"kubeconfig {path}: {problem}"


def changed(context: dict[str, Any] | None = None, **top: Any) -> dict[str, Any]:
    data = config()
    data["contexts"][0]["context"].update(context or {})
    data.update(top)
    return data


CHOICES = {
    "no-current-context": (changed(**{"current-context": ""}), None, "no current-context is set: give --context NAME"),
    "unknown-context": (config(), "nope", "no context named 'nope' (contexts: c)"),
    "unknown-cluster": (changed({"cluster": "zz"}), None, "context 'c': cluster 'zz' is not in the kubeconfig"),
    "no-cluster": (changed({"cluster": ""}), None, "context 'c': names no cluster"),
    "unknown-user": (changed({"user": "zz"}), None, "context 'c': user 'zz' is not in the kubeconfig"),
    "namespace-not-a-string": (
        changed({"namespace": 3}),
        None,
        "context 'c': namespace: expected a string, found a number",
    ),
    "server-not-http": (
        config(server="ftp://user:password@h/x"),
        None,
        "cluster 'k': server 'ftp://h/x' is not an http:// or https:// URL with a host",
    ),
    "server-without-host": (
        config(server="https://"),
        None,
        "cluster 'k': server 'https://' is not an http:// or https:// URL with a host",
    ),
    "token-file-missing": (
        config(user={"tokenFile": "missing"}),
        None,
        "context 'c': user 'u': tokenFile missing: no such file",
    ),
    "control-character": (
        config(user={"token": "abc\x07defgh"}),
        None,
        "context 'c': user 'u': the token has a control character (U+0007): it cannot be sent in an HTTP header "
        "(not sent)",
    ),
}


@pytest.mark.parametrize(("data", "context", "problem"), CHOICES.values(), ids=CHOICES.keys())
def test_what_the_chosen_context_needs(tmp_path: Path, data: dict[str, Any], context: str | None, problem: str) -> None:
    path = write(tmp_path, "config", data)
    message = refused(path, context=context)
    assert message == f"kubeconfig {path}: {problem}"
    assert "password" not in message


def test_missing_files_are_named(tmp_path: Path) -> None:
    absent = str(tmp_path / "absent")
    assert refused(absent) == f"kubeconfig {absent}: no such file"
    listed = os.pathsep.join([absent, str(tmp_path / "other")])
    assert refused(environ={"KUBECONFIG": listed}) == f"kubeconfig: no file of $KUBECONFIG exists ({listed})"
    assert refused(str(tmp_path)) == f"kubeconfig {tmp_path}: is a directory"


def test_a_huge_kubeconfig_is_refused_unread(tmp_path: Path) -> None:
    path = tmp_path / "config"
    path.write_bytes(b"#" * (MAX_KUBECONFIG_BYTES + 1))
    assert refused(str(path)) == f"kubeconfig {path}: larger than 4 MiB"


@pytest.mark.parametrize("timeout", [0, -1, True, "1"], ids=["zero", "negative", "bool", "str"])
def test_the_timeout_must_be_positive_seconds(tmp_path: Path, timeout: Any) -> None:
    with pytest.raises(TypeError) as caught:
        load_context(write(tmp_path, "config", config()), timeout=timeout)
    assert str(caught.value) == f"load_context(): timeout must be a positive number of seconds, not {timeout!r}"


def test_no_user_credential_appears_in_a_message(tmp_path: Path) -> None:
    data = config(user={"token": "hidden-token-42", "username": "admin", "password": "hidden-password-42"})
    data["clusters"][0]["cluster"]["server"] = "https://example.com"
    data["users"][0]["user"]["exec"] = exec_user("print('hidden-token-42 hidden-password-42'); raise SystemExit(1)")[
        "exec"
    ]
    del data["users"][0]["user"]["token"]
    message = refused(write(tmp_path, "config", data))
    assert message.endswith(f"the exec credential plugin {PLUGIN!r} exited with status 1 (its output is not shown)")
    assert "hidden" not in message


def test_a_context_named_as_a_credential_is_redacted_in_the_chosen_contexts_errors(tmp_path: Path) -> None:
    data = changed({"cluster": "zz"})
    data["users"][0]["user"] = {"token": "hidden-token-42"}
    data["contexts"][0]["name"] = data["current-context"] = "hidden-token-42"
    assert "hidden" not in refused(write(tmp_path, "config", data))
