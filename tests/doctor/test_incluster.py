"""``doctor --in-cluster``: a pod's service account read as client-go's ``rest.InClusterConfig`` reads it.

Each case makes a fake service account folder (token, ca.crt, namespace) in a
temporary directory, named by ``$WORKLOADBUILDER_SERVICE_ACCOUNT_DIR``, sets
``KUBERNETES_SERVICE_HOST`` and ``KUBERNETES_SERVICE_PORT`` to the loopback fake
apiserver of ``test_hostile_server.py``, served over TLS with the test CA of
tests/data/doctor-tls/, and runs the command as a user would.
"""

from __future__ import annotations

import io
import os
import ssl
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_hostile_server import JOB_PATH, _Handler, _Server, send, status

from workloadbuilder.cli.app import main
from workloadbuilder.doctor.incluster import (
    ERR_NOT_IN_CLUSTER,
    SERVICE_ACCOUNT_DIR,
    SERVICE_ACCOUNT_DIR_ENV,
    ServiceAccountToken,
    load_in_cluster,
)
from workloadbuilder.doctor.kubeconfig import KubeconfigError
from workloadbuilder.doctor.transport import ApiReader, Redactor

TLS = Path(__file__).resolve().parents[1] / "data" / "doctor-tls"
TOKEN = "SA-TOKEN-in-cluster-9f3e"
ENV = ("KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT", "POD_NAMESPACE", SERVICE_ACCOUNT_DIR_ENV, "KUBECONFIG")


@pytest.fixture
def apiserver() -> Iterator[_Server]:
    """The fake apiserver on an ephemeral port of 127.0.0.1, over TLS with the test certificate."""
    httpd = _Server(("127.0.0.1", 0), _Handler)
    httpd.rules, httpd.seen = {}, []
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(TLS / "server.crt", TLS / "server.key")
    httpd.socket = context.wrap_socket(httpd.socket, server_side=True)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    try:
        yield httpd
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


@pytest.fixture
def account(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, apiserver: _Server) -> Path:
    """A service account folder (token with a trailing line feed, the test CA, namespace ml) and the env to it."""
    for name in ENV:
        monkeypatch.delenv(name, raising=False)
    folder = tmp_path / "serviceaccount"
    folder.mkdir()
    (folder / "token").write_text(TOKEN + "\n")
    (folder / "ca.crt").write_bytes((TLS / "ca.crt").read_bytes())
    (folder / "namespace").write_text("ml\n")
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "127.0.0.1")
    monkeypatch.setenv("KUBERNETES_SERVICE_PORT", str(apiserver.server_port))
    monkeypatch.setenv(SERVICE_ACCOUNT_DIR_ENV, str(folder))
    return folder


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["doctor", "job/j", *argv], out, err)
    return code, out.getvalue(), err.getvalue()


def test_the_service_account_reads_the_cluster(apiserver: _Server, account: Path):
    code, out, err = run("--in-cluster")
    assert (code, err) == (1, "")
    assert out.startswith("Job ml/j: no Workload names")  # the namespace file's namespace, stripped
    assert apiserver.seen[0] == (JOB_PATH, f"Bearer {TOKEN}")  # the token stripped, as client-go sends it
    assert all(auth == f"Bearer {TOKEN}" for _, auth in apiserver.seen)


def test_pod_namespace_comes_first_then_the_file_then_default(
    apiserver: _Server, account: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("POD_NAMESPACE", "serving")
    run("--in-cluster")
    assert apiserver.seen[0][0] == "/apis/batch/v1/namespaces/serving/jobs/j"
    monkeypatch.delenv("POD_NAMESPACE")
    apiserver.seen.clear()
    (account / "namespace").write_text("  \n")
    run("--in-cluster")
    assert apiserver.seen[0][0] == "/apis/batch/v1/namespaces/default/jobs/j"
    apiserver.seen.clear()
    (account / "namespace").unlink()
    os.mkfifo(account / "namespace")  # read as client-go's failed read: no namespace, and no wait on the FIFO
    run("--in-cluster", "-n", "team")
    assert apiserver.seen[0][0] == "/apis/batch/v1/namespaces/team/jobs/j"  # -n wins
    assert load_in_cluster().namespace == "default"


@pytest.mark.parametrize("flags", [["--kubeconfig", "k"], ["--context", "x"]], ids=["kubeconfig", "context"])
def test_in_cluster_with_a_kubeconfig_flag_is_a_usage_error(apiserver: _Server, account: Path, flags: list[str]):
    flag = flags[0]
    assert run("--in-cluster", *flags) == (
        2,
        "",
        f"error: --in-cluster and {flag} cannot be given together: the in-cluster configuration is no kubeconfig\n",
    )
    assert apiserver.seen == []


@pytest.mark.parametrize(
    "env",
    [{}, {"KUBERNETES_SERVICE_HOST": "10.0.0.1"}, {"KUBERNETES_SERVICE_HOST": "", "KUBERNETES_SERVICE_PORT": "443"}],
    ids=["neither", "no-port", "empty-host"],
)
def test_outside_a_cluster_is_client_gos_error(monkeypatch: pytest.MonkeyPatch, env: dict[str, str]):
    for name in ENV:
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert run("--in-cluster") == (2, "", f"error: {ERR_NOT_IN_CLUSTER}\n")
    assert ERR_NOT_IN_CLUSTER == (
        "unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined"
    )


@pytest.mark.parametrize(
    ("host", "url"),
    [
        ("10.96.0.1", "https://10.96.0.1:443"),
        ("fd00::1", "https://[fd00::1]:443"),
        ("kubernetes", "https://kubernetes:443"),
    ],
    ids=["ipv4", "ipv6-in-brackets", "name"],
)
def test_the_host_and_port_are_joined_as_go_joins_them(tmp_path: Path, host: str, url: str):
    (tmp_path / "token").write_text(TOKEN)
    environ = {"KUBERNETES_SERVICE_HOST": host, "KUBERNETES_SERVICE_PORT": "443"}
    context = load_in_cluster(environ, folder=str(tmp_path))
    assert context.configuration.host == url
    assert (context.context, context.namespace) == ("in-cluster", "default")
    assert context.source == f"in-cluster ({tmp_path})"


def test_the_folder_defaults_to_the_service_account_mount(monkeypatch: pytest.MonkeyPatch):
    assert SERVICE_ACCOUNT_DIR == "/var/run/secrets/kubernetes.io/serviceaccount"
    environ = {"KUBERNETES_SERVICE_HOST": "10.96.0.1", "KUBERNETES_SERVICE_PORT": "443"}
    if os.path.exists(SERVICE_ACCOUNT_DIR):
        pytest.skip("this test runs inside a pod")
    with pytest.raises(KubeconfigError) as caught:
        load_in_cluster(environ)
    assert str(caught.value) == f"in-cluster: token {SERVICE_ACCOUNT_DIR}/token: no such file"


def test_a_port_that_is_not_a_number_is_refused(account: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("KUBERNETES_SERVICE_PORT", "https")
    assert run("--in-cluster") == (2, "", "error: in-cluster: KUBERNETES_SERVICE_PORT 'https' is not a port number\n")


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _directory(path: Path) -> None:
    path.mkdir()


def _large(path: Path) -> None:
    path.write_bytes(b"t" * ((4 << 20) + 1))


def _empty(path: Path) -> None:
    path.write_text("\n \n")


def _latin(path: Path) -> None:
    path.write_bytes(b"tok\xff")


def _control(path: Path) -> None:
    path.write_text("tok\x1bx\n")


@pytest.mark.parametrize(
    ("make", "problem"),
    [
        (None, "in-cluster: token {token}: no such file"),
        (_fifo, "in-cluster: token {token}: is not a regular file (a FIFO)"),
        (_directory, "in-cluster: token {token}: is a directory"),
        (_large, "in-cluster: token {token}: is larger than 4 MiB"),
        (_empty, 'read empty token from file "{token}"'),
        (_latin, "in-cluster: token {token}: is not UTF-8 text"),
        (
            _control,
            "in-cluster: token {token}: the token has an escape (U+001B): "
            "it cannot be sent in an HTTP header (not sent)",
        ),
    ],
    ids=["missing", "fifo", "directory", "larger-than-4-mib", "empty", "not-utf8", "control-character"],
)
def test_a_token_file_doctor_cannot_use_is_one_line(apiserver: _Server, account: Path, make, problem: str):
    token = account / "token"
    token.unlink()
    if make is not None:
        make(token)
    assert run("--in-cluster") == (2, "", f"error: {problem.format(token=token)}\n")
    assert apiserver.seen == []


def test_without_a_usable_ca_the_system_roots_are_trusted_and_tls_says_why(
    apiserver: _Server, account: Path, monkeypatch: pytest.MonkeyPatch
):
    (account / "ca.crt").unlink()
    context = load_in_cluster()
    assert getattr(context.configuration, "ca_cert_data", None) is None
    assert context.ca_problem == f"ca.crt {account / 'ca.crt'} no such file"
    code, out, err = run("--in-cluster")
    assert (code, out) == (2, "")
    assert err.startswith(f"error: GET https://127.0.0.1:{apiserver.server_port}{JOB_PATH}: TLS failed: ")
    assert err.endswith(f"(the system's roots were trusted: ca.crt {account / 'ca.crt'} no such file)\n")
    (account / "ca.crt").write_text("not a certificate\n")
    assert load_in_cluster().ca_problem == f"ca.crt {account / 'ca.crt'} holds no PEM certificate"
    (account / "ca.crt").unlink()
    os.mkfifo(account / "ca.crt")
    assert load_in_cluster().ca_problem == f"ca.crt {account / 'ca.crt'} is not a regular file (a FIFO)"


def test_the_token_is_never_shown(apiserver: _Server, account: Path):
    apiserver.rules = {"jobs": status(403, f"jobs is forbidden for Bearer {TOKEN}")}
    code, out, err = run("--in-cluster")
    assert code == 2
    assert TOKEN not in out + err
    assert "<redacted>" in err


def test_the_token_is_read_again_once_it_is_50_seconds_old(apiserver: _Server, account: Path):
    now = [100.0]
    context = load_in_cluster(clock=lambda: now[0])
    hook = context.configuration.refresh_api_key_hook
    assert isinstance(hook, ServiceAccountToken)
    assert hook.token == TOKEN
    with ApiReader(context.configuration, redact=context.redact) as reader:
        reader.get(JOB_PATH)
        (account / "token").write_text("SA-TOKEN-rotated-1\n")
        now[0] += 49.9
        reader.get(JOB_PATH)  # still the token held: it is not 50 s old
        now[0] += 0.1
        reader.get(JOB_PATH)  # read again
        (account / "token").unlink()
        now[0] += 60
        reader.get(JOB_PATH)  # a read that fails keeps the token held, as client-go does
        (account / "token").write_text("SA-TOKEN-rotated-2")
        reader.get(JOB_PATH)  # the failed read did not restart the period: read again at once
    assert [auth for _, auth in apiserver.seen] == [
        f"Bearer {TOKEN}",
        f"Bearer {TOKEN}",
        "Bearer SA-TOKEN-rotated-1",
        "Bearer SA-TOKEN-rotated-1",
        "Bearer SA-TOKEN-rotated-2",
    ]
    assert context.redact("SA-TOKEN-rotated-2 SA-TOKEN-rotated-1") == "<redacted> <redacted>"


def test_a_rotated_token_unfit_for_a_header_is_not_sent(apiserver: _Server, account: Path):
    now = [0.0]
    context = load_in_cluster(clock=lambda: now[0])
    with ApiReader(context.configuration, redact=context.redact) as reader:
        (account / "token").write_text("bad\ntoken-rotated")
        now[0] = 60
        with pytest.raises(Exception, match=r"has a line feed \(U\+000A\): not sent"):
            reader.get(JOB_PATH)
    assert apiserver.seen == []


def test_the_hook_is_what_the_kubernetes_client_calls(tmp_path: Path):
    (tmp_path / "token").write_text("first-token")
    now = [0.0]
    hook = ServiceAccountToken(str(tmp_path / "token"), "first-token", Redactor(), clock=lambda: now[0])
    from kubernetes.client.configuration import Configuration

    configuration = Configuration()
    configuration.refresh_api_key_hook = hook
    assert configuration.get_api_key_with_prefix("BearerToken") == "Bearer first-token"
    (tmp_path / "token").write_text("second-token")
    now[0] = 50
    assert configuration.get_api_key_with_prefix("BearerToken") == "Bearer second-token"


def test_a_missing_object_over_tls_is_the_apiservers_404(apiserver: _Server, account: Path):
    apiserver.rules = {"jobs": send(404, {"kind": "Status", "code": 404, "message": 'jobs.batch "j" not found'})}
    code, out, err = run("--in-cluster")
    assert (code, out) == (2, "")
    assert err == "error: jobs.batch \"j\" not found in namespace 'ml'\n"
