"""doctor never leaks or hangs on hostile credentials: the findings of issue 38 (items 1, 2, 5), seeded variations.

Each case runs ``python -m workloadbuilder doctor`` in a child process bounded by a subprocess timeout
(never a timed assertion) against a fake apiserver on 127.0.0.1, and asserts the exit code, one line on
stderr, and that no form of the credential reaches stdout or stderr:

- a token (static, from ``tokenFile`` or from an exec plugin) with a control character is refused before
  any request is sent;
- a token with whitespace around it, sent stripped, is redacted when the server echoes the header back
  as given, lowercased or escaped;
- the kubeconfig and every file it names, when a FIFO, a device, a directory or too large, is refused
  with one line naming the file;
- an exec plugin that never exits, or prints without end, is stopped at ``--timeout`` with its process
  group.
"""

from __future__ import annotations

import json
import os
import random
import string
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from fuzz_helpers import CASES

from workloadbuilder.doctor.credentials import MAX_CREDENTIAL_BYTES, header_problem
from workloadbuilder.doctor.transport import Redactor

SEEDS = range(3)
CONTROLS = ["\n", "\r", "\x1b", "\x00", "\x7f", "\x85", "\u2028", "\t", "\x07"]
LIMIT = 60  # seconds a child may take before the test fails (it ends in a few)


def token(seed: int) -> str:
    """A token of this seed: letters and digits, 12 to 40 of them."""
    rng = random.Random(seed)
    return "tk" + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(rng.randint(12, 40)))


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    seen: list[str | None]
    echo: str  # how the 403 echoes the Authorization header: raw, lower, repr, json


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        header = self.headers.get("Authorization")
        self.server.seen.append(header)
        text = str(header)
        shown = {"raw": text, "lower": text.lower(), "repr": repr(text.encode()), "json": json.dumps(text)}
        body = json.dumps({"kind": "Status", "code": 403, "message": f"forbidden: {shown[self.server.echo]}"})
        data = body.encode()
        self.send_response(403)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def apiserver() -> Iterator[_Server]:
    """A server on 127.0.0.1 that answers every GET with a 403 echoing the Authorization header."""
    httpd = _Server(("127.0.0.1", 0), _Handler)
    httpd.seen, httpd.echo = [], "raw"
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    try:
        yield httpd
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


def kubeconfig(path: Path, server: str, user: dict[str, Any], cluster: dict[str, Any] | None = None) -> Path:
    """A kubeconfig (JSON is YAML) with one cluster, one user and a current context."""
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "c", "cluster": {"server": server, **(cluster or {})}}],
        "users": [{"name": "u", "user": user}],
        "contexts": [{"name": "x", "context": {"cluster": "c", "user": "u", "namespace": "ml"}}],
        "current-context": "x",
    }
    path.write_text(json.dumps(config))
    return path


def doctor(config: Path, *flags: str) -> tuple[int, str, str]:
    """Run doctor in a child, bounded by a subprocess timeout; stdin is closed (no terminal)."""
    CASES["doctor (round 3, child process)"] += 1
    done = subprocess.run(
        [sys.executable, "-m", "workloadbuilder", "doctor", "job/j", "--kubeconfig", str(config), *flags],
        capture_output=True,
        text=True,
        errors="replace",
        stdin=subprocess.DEVNULL,
        timeout=LIMIT,
        cwd=config.parent,
    )
    return done.returncode, done.stdout, done.stderr


def one_line_error(code: int, out: str, err: str, secret: str | None = None) -> str:
    """Assert exit 2, nothing on stdout and one ``error:`` line on stderr without the secret; the line."""
    assert (code, out) == (2, ""), err
    assert err.startswith("error: "), err
    assert err.endswith("\n"), err
    assert err.count("\n") == 1, err
    assert "Traceback" not in err
    assert "internal error" not in err
    if secret is not None:
        core = secret.strip()
        for form in (core, core.lower(), core[: len(core) // 2], core[len(core) // 2 :]):
            assert form not in err, err
            assert form.lower() not in err.lower(), err
    return err


def plugin(path: Path, script: str) -> Path:
    """An executable exec credential plugin running ``script`` under /bin/sh."""
    path.write_text("#!/bin/sh\n" + script + "\n")
    path.chmod(0o755)
    return path


def exec_user(command: Path) -> dict[str, Any]:
    return {"exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": str(command)}}


def credential(value: str) -> str:
    return json.dumps({"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential",
                       "status": {"token": value}})  # fmt: skip


# --- item 1: control characters refused, every form redacted ---------------------------------------------


@pytest.mark.parametrize("seed", SEEDS, ids=[f"seed{seed}" for seed in SEEDS])
@pytest.mark.parametrize("source", ["token", "tokenFile", "exec"], ids=["token", "tokenFile", "exec"])
def test_a_token_with_a_control_character_is_refused_before_any_request(
    apiserver: _Server, tmp_path: Path, seed: int, source: str
) -> None:
    rng = random.Random(seed * 7 + len(source))
    secret = token(seed)
    cut = rng.randint(1, len(secret) - 1)
    bad = secret[:cut] + rng.choice(CONTROLS) + secret[cut:]
    if source == "token":
        user: dict[str, Any] = {"token": bad}
    elif source == "tokenFile":
        (tmp_path / "token").write_text(bad, newline="")
        user = {"tokenFile": "token"}  # relative to the kubeconfig's folder
    else:
        (tmp_path / "cred.json").write_text(credential(bad))
        user = exec_user(plugin(tmp_path / "plugin", f"cat '{tmp_path / 'cred.json'}'"))
    config = kubeconfig(tmp_path / "kc", f"http://127.0.0.1:{apiserver.server_port}", user)
    line = one_line_error(*doctor(config), secret=secret)
    assert "it cannot be sent in an HTTP header (not sent)" in line
    assert apiserver.seen == []


@pytest.mark.parametrize("seed", SEEDS, ids=[f"seed{seed}" for seed in SEEDS])
@pytest.mark.parametrize("echo", ["raw", "lower", "repr", "json"], ids=["raw", "lower", "repr", "json"])
def test_an_echoed_header_is_redacted_in_every_form(apiserver: _Server, tmp_path: Path, seed: int, echo: str) -> None:
    rng = random.Random(seed)
    secret = token(seed + 100)
    padded = rng.choice([" ", "  ", ""]) + secret + rng.choice([" ", "   ", ""])
    apiserver.echo = echo
    config = kubeconfig(tmp_path / "kc", f"http://127.0.0.1:{apiserver.server_port}", {"token": padded})
    line = one_line_error(*doctor(config), secret=secret)
    assert "(403 Forbidden)" in line
    assert "<redacted>" in line
    assert apiserver.seen
    assert all(secret in str(header) for header in apiserver.seen)


@pytest.mark.parametrize("seed", SEEDS, ids=[f"seed{seed}" for seed in SEEDS])
def test_the_redactor_knows_every_form(seed: int) -> None:
    rng = random.Random(seed)
    secret = token(seed + 200)
    given = rng.choice(["", " ", "\t"]) + secret[:5] + rng.choice(CONTROLS) + secret[5:] + rng.choice(["", "\n"])
    redact = Redactor([given, f"Bearer {given}"])
    forms = [
        given,
        given.strip(),
        given.lower(),
        given.upper(),
        repr(given),
        repr(f"Bearer {given}".encode()).lower(),
        json.dumps(given),
        given.encode("unicode_escape").decode(),
    ]
    for form in forms:
        shown = redact(f"invalid header value {form} at the end")
        assert secret[:5] not in shown.replace("<redacted>", ""), (form, shown)
        assert secret[5:].lower() not in shown.lower(), (form, shown)
        assert redact.scrub(f"a\n{form}\nb").startswith("a\n")  # scrub keeps the lines of a report
    together = redact(" and ".join(forms))  # every form in one text
    assert secret[5:].lower() not in together.lower(), together


def test_a_header_problem_names_the_character_only() -> None:
    assert header_problem("Bearer abc") is None
    assert header_problem("Bearer a\nb") == "has a line feed (U+000A)"
    assert header_problem("Bearer a\x1bb") == "has an escape (U+001B)"
    assert header_problem("Bearer a\u2603") == "has a character outside Latin-1 (U+2603)"


# --- item 2: files a kubeconfig names, and exec plugins, bounded ---------------------------------------------

KINDS = ["fifo", "device", "directory", "too-large"]
FIELDS = ["kubeconfig", "tokenFile", "certificate-authority", "client-certificate", "client-key"]


def hostile_file(tmp_path: Path, kind: str, seed: int) -> tuple[str, str]:
    """A path of this kind and the reason doctor gives for it."""
    if kind == "fifo":
        path = tmp_path / f"fifo-{seed}"
        os.mkfifo(path)
        return str(path), "is not a regular file (a FIFO)"
    if kind == "device":
        return random.Random(seed).choice(["/dev/zero", "/dev/urandom", "/dev/null"]), "is not a regular file"
    if kind == "directory":
        path = tmp_path / f"dir-{seed}"
        path.mkdir()
        return str(path), "is a directory"
    path = tmp_path / f"big-{seed}"
    with path.open("wb") as stream:
        stream.truncate(MAX_CREDENTIAL_BYTES + 1 + seed)
    return str(path), "is larger than 4 MiB"


@pytest.mark.parametrize("kind", KINDS, ids=KINDS)
@pytest.mark.parametrize("field", FIELDS, ids=FIELDS)
def test_a_file_that_is_not_a_small_regular_file_is_one_line(tmp_path: Path, kind: str, field: str) -> None:
    seed = FIELDS.index(field) * len(KINDS) + KINDS.index(kind)  # each case its own variation
    path, reason = hostile_file(tmp_path, kind, seed)
    if field == "kubeconfig":
        if kind == "too-large":
            reason = "larger than 4 MiB"
        line = one_line_error(*doctor(Path(path)))
        assert line.startswith(f"error: kubeconfig {path}: {reason}"), line
        return
    user: dict[str, Any] = {"token": "abcdefgh-token"}
    cluster: dict[str, Any] = {}
    if field == "tokenFile":
        user = {"tokenFile": path}
    elif field == "certificate-authority":
        cluster = {field: path}
    else:
        good = tmp_path / "good.pem"
        good.write_text("-----BEGIN X-----\n-----END X-----\n")
        user = {"client-certificate": str(good), "client-key": str(good), field: path}
    config = kubeconfig(tmp_path / "kc", "https://127.0.0.1:1", user, cluster)
    line = one_line_error(*doctor(config, "--connect-timeout", "1"))
    assert f": {field} {path}: {reason}" in line, line


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stream:
            return stream.read().rpartition(")")[2].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


@pytest.mark.parametrize("seed", SEEDS[:2], ids=["seed0", "seed1"])
@pytest.mark.parametrize(
    "behaviour",
    ["never-exits", "child-never-exits", "prints-forever", "closes-stdout"],
    ids=["never-exits", "child-never-exits", "prints-forever", "closes-stdout"],
)
def test_an_exec_plugin_is_stopped_at_the_timeout(tmp_path: Path, seed: int, behaviour: str) -> None:
    pids = tmp_path / "pids"
    scripts = {
        "never-exits": f"echo $$ >> '{pids}'; exec sleep 1000",
        "child-never-exits": f"sleep 1000 & echo $! >> '{pids}'; echo $$ >> '{pids}'; wait",
        "prints-forever": f"echo $$ >> '{pids}'; exec yes {token(seed)}",
        "closes-stdout": f"echo $$ >> '{pids}'; exec >&-; sleep 1000",
    }
    command = plugin(tmp_path / "plugin", scripts[behaviour])
    config = kubeconfig(tmp_path / "kc", "http://127.0.0.1:1", exec_user(command))
    timeout = ["1", "2", "1.5"][seed % 3]
    line = one_line_error(*doctor(config, "--timeout", timeout), secret=token(seed))
    expected = (
        "printed more than 1 MiB: stopped" if behaviour == "prints-forever" else f"did not finish within {timeout} s"
    )
    assert f"the exec credential plugin 'plugin' {expected}" in line, line
    assert all(_gone(int(pid)) for pid in pids.read_text().split()), "a process of the plugin's group survived"
