#!/usr/bin/env python3
"""Build and run a Kubernetes v1.37.2 control plane on 127.0.0.1 for the end-to-end tests.

Subcommands (README.md in this folder has the details and the measured times):

    controlplane.py build            build the three binaries into the cache (or reuse them)
    controlplane.py cached           exit 0 when the binaries of this version are cached
    controlplane.py up [--nodes N]   start etcd, kube-apiserver, kube-controller-manager and
                                     kube-scheduler, print the kubeconfig, run until interrupted
    controlplane.py run -- CMD ...   start them, run CMD with KUBECONFIG set, stop them

The module is also imported by ``tests/e2e/conftest.py`` (``ControlPlane``,
``binaries_present``). Standard library only, plus the ``openssl`` command
for the certificates, so CI can run it before any virtual environment
exists. Everything listens on 127.0.0.1 on ports the kernel hands out; each
process is stopped by the PID this module got when it started it, on a
normal exit, on an error and on SIGINT or SIGTERM.
"""

from __future__ import annotations

import argparse
import atexit
import base64
import json
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

VERSION = "v1.37.2"
HERE = Path(__file__).resolve().parent
COMPONENTS = ("kube-apiserver", "kube-controller-manager", "kube-scheduler")
FEATURE_GATES = (
    "GenericWorkload",
    "WorkloadWithJob",
    "TopologyAwareWorkloadScheduling",
    "CompositePodGroup",
    "DRAWorkloadResourceClaims",
    "PodGroupPreemptionPolicy",
)
RUNTIME_CONFIG = "scheduling.k8s.io/v1beta1=true,scheduling.k8s.io/v1alpha3=true"
# Without a kubelet no Node ever heartbeats: the node lifecycle controller would
# mark every Node NotReady and taint it after the grace period, so it stays off.
CONTROLLERS = "*,-node-lifecycle-controller"
START_TIMEOUT = 180.0


def cache_dir(version: str = VERSION) -> Path:
    """The folder the binaries of ``version`` are built into, outside any clone."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "workloadbuilder" / "control-plane" / version


def binaries_present(directory: Path | None = None) -> bool:
    """Whether the three binaries are in the cache (etcd is looked up separately)."""
    directory = directory or cache_dir()
    return all(os.access(directory / name, os.X_OK) for name in COMPONENTS)


def find_etcd() -> str | None:
    """The etcd to run: ``$WORKLOADBUILDER_ETCD``, then one in the cache folder, then ``etcd`` on PATH."""
    named = os.environ.get("WORKLOADBUILDER_ETCD")
    if named:
        return named
    cached = cache_dir() / "etcd"
    if os.access(cached, os.X_OK):
        return str(cached)
    return shutil.which("etcd")


def _ldflags(version: str) -> str:
    major, minor = version.lstrip("v").split(".")[:2]
    stamps = {
        "k8s.io/component-base/version": {"gitVersion": version, "gitMajor": major, "gitMinor": minor},
        "k8s.io/client-go/pkg/version": {"gitVersion": version, "gitMajor": major, "gitMinor": minor},
    }
    parts = ["-s", "-w"]
    for package, values in stamps.items():
        parts += [f"-X {package}.{name}={value}" for name, value in values.items()]
    parts.append("-X k8s.io/component-base/version.gitTreeState=clean")
    return " ".join(parts)


def build(version: str = VERSION, force: bool = False) -> Path:
    """Build the three binaries of ``version`` from this folder's go.mod into the cache; reuse them if there."""
    target = cache_dir(version)
    if binaries_present(target) and not force:
        print(f"control plane {version}: reusing {target}", file=sys.stderr)
        return target
    if shutil.which("go") is None:
        raise SystemExit("control plane: `go` is not on PATH; Go 1.26 and the module proxy are needed to build")
    target.mkdir(parents=True, exist_ok=True)
    packages = [f"k8s.io/kubernetes/cmd/{name}" for name in COMPONENTS]
    command = ["nice", "-n", "10", "go", "build", "-trimpath", "-ldflags", _ldflags(version), "-o", f"{target}/"]
    started = time.monotonic()
    subprocess.run([*command, *packages], cwd=HERE, check=True)
    print(f"control plane {version}: built in {time.monotonic() - started:.0f} s into {target}", file=sys.stderr)
    return target


def install_etcd() -> str:
    """An etcd binary: the one found, or Debian's ``etcd-server`` installed with apt-get."""
    found = find_etcd()
    if found:
        return found
    if shutil.which("apt-get") is None:
        raise SystemExit("control plane: no etcd on PATH and no apt-get to install etcd-server")
    prefix = [] if os.geteuid() == 0 else ["sudo"]
    subprocess.run([*prefix, "apt-get", "install", "-y", "--no-install-recommends", "etcd-server"], check=True)
    found = find_etcd()
    if not found:
        raise SystemExit("control plane: etcd-server installed but no etcd on PATH")
    return found


def free_port() -> int:
    """A port on 127.0.0.1 nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def _key_and_request(cwd: Path, name: str, subject: str, extensions: Sequence[str] = ()) -> None:
    ext = [arg for item in extensions for arg in ("-addext", item)]
    _openssl(
        "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
        "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", subject, *ext, cwd=cwd,
    )  # fmt: skip


def _sign(cwd: Path, name: str) -> None:
    _openssl(
        "x509", "-req", "-in", f"{name}.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
        "-days", "2", "-copy_extensions", "copyall", "-out", f"{name}.crt", cwd=cwd,
    )  # fmt: skip


def make_certificates(directory: Path) -> None:
    """A throwaway CA, the apiserver's serving certificate, an admin client certificate, the SA key."""
    directory.mkdir(parents=True, exist_ok=True)
    _openssl(
        "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
        "-keyout", "ca.key", "-out", "ca.crt", "-days", "2", "-subj", "/CN=workloadbuilder-e2e-ca", cwd=directory,
    )  # fmt: skip
    sans = "subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default.svc,IP:10.0.0.1"
    _key_and_request(directory, "apiserver", "/CN=kube-apiserver", [sans, "extendedKeyUsage=serverAuth"])
    _sign(directory, "apiserver")
    _key_and_request(directory, "admin", "/O=system:masters/CN=workloadbuilder-e2e", ["extendedKeyUsage=clientAuth"])
    _sign(directory, "admin")
    _openssl("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "sa.key", cwd=directory)
    _openssl("ec", "-in", "sa.key", "-pubout", "-out", "sa.pub", cwd=directory)


def _b64(path: Path) -> str:
    return base64.b64encode(path.read_bytes()).decode("ascii")


def write_kubeconfig(path: Path, server: str, certs: Path) -> None:
    """A kubeconfig for the admin client certificate, with the certificates inline."""
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {"name": "e2e", "cluster": {"server": server, "certificate-authority-data": _b64(certs / "ca.crt")}}
        ],
        "users": [
            {
                "name": "e2e-admin",
                "user": {
                    "client-certificate-data": _b64(certs / "admin.crt"),
                    "client-key-data": _b64(certs / "admin.key"),
                },
            }
        ],
        "contexts": [{"name": "e2e", "context": {"cluster": "e2e", "user": "e2e-admin", "namespace": "default"}}],
        "current-context": "e2e",
    }
    path.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")  # JSON is YAML
    path.chmod(0o600)


def node_object(name: str, allocatable: dict[str, str], labels: dict[str, str] | None = None) -> dict[str, object]:
    """A Node as an API object alone: Ready, with this allocatable (and capacity), no kubelet behind it."""
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    ready = {
        "type": "Ready", "status": "True", "reason": "KubeletReady", "message": "no kubelet: an API object only",
        "lastHeartbeatTime": now, "lastTransitionTime": now,
    }  # fmt: skip
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})}},
        "status": {"capacity": allocatable, "allocatable": allocatable, "conditions": [ready]},
    }


@dataclass
class Process:
    """One started component: its name, PID and log file."""

    name: str
    popen: subprocess.Popen[bytes]
    log: Path


@dataclass
class ControlPlane:
    """etcd, kube-apiserver, kube-controller-manager and kube-scheduler in one temporary folder.

    ``start()`` returns once the apiserver is ready, the scheduler is healthy and the
    controller manager has made the ``default`` ServiceAccount; ``stop()`` ends every
    process it started, by PID, and is safe to call more than once. The folder (logs,
    certificates, etcd data, kubeconfig) is kept when ``keep`` is set or a start fails.
    """

    binaries: Path = field(default_factory=cache_dir)
    etcd: str | None = None
    keep: bool = False
    workdir: Path = field(init=False)
    kubeconfig: Path = field(init=False)
    server: str = field(init=False, default="")
    processes: list[Process] = field(init=False, default_factory=list)
    start_seconds: float = field(init=False, default=0.0)

    def __post_init__(self) -> None:
        self.workdir = Path(tempfile.mkdtemp(prefix="workloadbuilder-control-plane-"))
        self.kubeconfig = self.workdir / "kubeconfig"

    @property
    def logs(self) -> Path:
        """The folder holding one ``<component>.log`` per process."""
        return self.workdir / "logs"

    def start(self) -> ControlPlane:
        """Start the four processes in order and wait until the cluster answers; stop them all on failure."""
        started = time.monotonic()
        atexit.register(self.stop)
        try:
            self._start()
        except BaseException:
            self.keep = True
            self.stop()
            raise
        self.start_seconds = time.monotonic() - started
        return self

    def _start(self) -> None:
        etcd = self.etcd or find_etcd()
        if not etcd:
            raise RuntimeError("no etcd: install Debian's etcd-server or set WORKLOADBUILDER_ETCD")
        if not binaries_present(self.binaries):
            raise RuntimeError(f"no control-plane binaries in {self.binaries}: run controlplane.py build")
        certs = self.workdir / "pki"
        make_certificates(certs)
        self.logs.mkdir()
        client_port, peer_port = free_port(), free_port()
        etcd_url = f"http://127.0.0.1:{client_port}"
        self._spawn("etcd", [etcd, *self._etcd_flags(client_port, peer_port)])
        self._wait(f"{etcd_url}/health", "etcd", tls=None)
        api_port = free_port()
        self.server = f"https://127.0.0.1:{api_port}"
        write_kubeconfig(self.kubeconfig, self.server, certs)
        self._spawn(
            "kube-apiserver", [str(self.binaries / "kube-apiserver"), *self._apiserver_flags(api_port, etcd_url, certs)]
        )
        self._wait(f"{self.server}/readyz", "kube-apiserver", tls=self._client_tls(certs))
        scheduler_port, manager_port = free_port(), free_port()
        self._spawn(
            "kube-controller-manager",
            [str(self.binaries / "kube-controller-manager"), *self._manager_flags(manager_port, certs)],
        )
        self._spawn("kube-scheduler", [str(self.binaries / "kube-scheduler"), *self._scheduler_flags(scheduler_port)])
        insecure = ssl.create_default_context()
        insecure.check_hostname = False
        insecure.verify_mode = ssl.CERT_NONE  # their serving certificates are self-signed
        self._wait(f"https://127.0.0.1:{scheduler_port}/healthz", "kube-scheduler", tls=insecure)
        self._wait(f"https://127.0.0.1:{manager_port}/healthz", "kube-controller-manager", tls=insecure)
        self._wait(
            f"{self.server}/api/v1/namespaces/default/serviceaccounts/default",
            "the default ServiceAccount",
            tls=self._client_tls(certs),
        )

    def _etcd_flags(self, client_port: int, peer_port: int) -> list[str]:
        peer = f"http://127.0.0.1:{peer_port}"
        client = f"http://127.0.0.1:{client_port}"
        return [
            "--name=e2e", f"--data-dir={self.workdir / 'etcd'}",
            f"--listen-client-urls={client}", f"--advertise-client-urls={client}",
            f"--listen-peer-urls={peer}", f"--initial-advertise-peer-urls={peer}",
            f"--initial-cluster=e2e={peer}", "--initial-cluster-state=new", "--log-level=warn",
        ]  # fmt: skip

    def _apiserver_flags(self, port: int, etcd_url: str, certs: Path) -> list[str]:
        return [
            "--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", f"--secure-port={port}",
            f"--etcd-servers={etcd_url}", f"--cert-dir={self.workdir / 'apiserver-certs'}",
            f"--tls-cert-file={certs / 'apiserver.crt'}", f"--tls-private-key-file={certs / 'apiserver.key'}",
            f"--client-ca-file={certs / 'ca.crt'}",
            f"--service-account-key-file={certs / 'sa.pub'}", f"--service-account-signing-key-file={certs / 'sa.key'}",
            "--service-account-issuer=https://kubernetes.default.svc", "--service-cluster-ip-range=10.0.0.0/24",
            "--authorization-mode=RBAC", "--endpoint-reconciler-type=none",
            # Pods need no token (no kubelet mounts one); a new Node would get the not-ready taint,
            # which only the (disabled) node lifecycle controller takes off again.
            "--disable-admission-plugins=ServiceAccount,TaintNodesByCondition",
            f"--feature-gates={','.join(f'{gate}=true' for gate in FEATURE_GATES)}",
            f"--runtime-config={RUNTIME_CONFIG}",
        ]  # fmt: skip

    def _common_flags(self, port: int, name: str) -> list[str]:
        return [
            f"--kubeconfig={self.kubeconfig}", f"--authentication-kubeconfig={self.kubeconfig}",
            f"--authorization-kubeconfig={self.kubeconfig}", "--bind-address=127.0.0.1", f"--secure-port={port}",
            f"--cert-dir={self.workdir / (name + '-certs')}", "--leader-elect=false",
            f"--feature-gates={','.join(f'{gate}=true' for gate in FEATURE_GATES)}",
        ]  # fmt: skip

    def _manager_flags(self, port: int, certs: Path) -> list[str]:
        return [
            *self._common_flags(port, "kube-controller-manager"), f"--controllers={CONTROLLERS}",
            f"--service-account-private-key-file={certs / 'sa.key'}", f"--root-ca-file={certs / 'ca.crt'}",
            f"--cluster-signing-cert-file={certs / 'ca.crt'}", f"--cluster-signing-key-file={certs / 'ca.key'}",
        ]  # fmt: skip

    def _scheduler_flags(self, port: int) -> list[str]:
        return self._common_flags(port, "kube-scheduler")

    @staticmethod
    def _client_tls(certs: Path) -> ssl.SSLContext:
        context = ssl.create_default_context(cafile=str(certs / "ca.crt"))
        context.load_cert_chain(str(certs / "admin.crt"), str(certs / "admin.key"))
        return context

    def create(self, obj: dict[str, object], namespace: str | None = None) -> dict[str, object]:
        """POST one object (a Node, say) to the apiserver and return what it stored."""
        kind = str(obj["kind"]).lower() + "s"
        path = f"/api/v1/namespaces/{namespace}/{kind}" if namespace else f"/api/v1/{kind}"
        request = urllib.request.Request(
            self.server + path,
            data=json.dumps(obj).encode(),
            method="POST",
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=30, context=self._client_tls(self.workdir / "pki")) as answer:
            stored: dict[str, object] = json.load(answer)
        return stored

    def _spawn(self, name: str, command: list[str]) -> None:
        log = self.logs / f"{name}.log"
        with open(log, "wb") as out:
            popen = subprocess.Popen(
                command, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True
            )
        self.processes.append(Process(name, popen, log))

    def _wait(self, url: str, what: str, tls: ssl.SSLContext | None) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        problem = "no answer yet"
        while time.monotonic() < deadline:
            for process in self.processes:
                if process.popen.poll() is not None:
                    raise RuntimeError(f"{process.name} exited with {process.popen.returncode} (log: {process.log})")
            try:
                with urllib.request.urlopen(url, timeout=5, context=tls) as answer:
                    if answer.status == 200:
                        return
                    problem = f"HTTP {answer.status}"
            except (urllib.error.URLError, OSError) as err:
                problem = str(err)
            time.sleep(0.5)
        raise RuntimeError(f"{what} not ready after {START_TIMEOUT:.0f} s at {url}: {problem} (logs: {self.logs})")

    def stop(self) -> None:
        """Stop every started process, the last started first (SIGTERM, then SIGKILL after 15 s)."""
        while self.processes:
            process = self.processes.pop()
            if process.popen.poll() is None:
                process.popen.send_signal(signal.SIGTERM)
                try:
                    process.popen.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    process.popen.kill()
                    process.popen.wait()
        if not self.keep and self.workdir.exists():
            shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self) -> ControlPlane:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()


@contextmanager
def stopped_on_signals(plane: ControlPlane) -> Iterator[None]:
    """Turn SIGINT and SIGTERM into a clean stop of ``plane`` while the block runs."""

    def handler(signum: int, _frame: FrameType | None) -> None:
        plane.stop()
        raise SystemExit(128 + signum)

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def _up(args: argparse.Namespace) -> int:
    plane = ControlPlane(keep=args.keep)
    with stopped_on_signals(plane), plane:
        for i in range(args.nodes):
            plane.create(node_object(f"node-{i:02d}", {"cpu": "8", "memory": "32Gi", "pods": "110"}))
        print(f"control plane {VERSION} up in {plane.start_seconds:.1f} s", file=sys.stderr)
        print(f"export KUBECONFIG={plane.kubeconfig}   # logs: {plane.logs}", file=sys.stderr)
        while True:
            time.sleep(3600)


def _run(args: argparse.Namespace) -> int:
    command = [arg for arg in args.command if arg != "--"]
    if not command:
        raise SystemExit("controlplane.py run: give a command after --")
    plane = ControlPlane(keep=args.keep)
    with stopped_on_signals(plane), plane:
        print(f"control plane {VERSION} up in {plane.start_seconds:.1f} s (logs: {plane.logs})", file=sys.stderr)
        environ = {**os.environ, "KUBECONFIG": str(plane.kubeconfig)}
        return subprocess.run(command, env=environ, check=False).returncode


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    sub = parser.add_subparsers(dest="what", required=True)
    built = sub.add_parser("build", help="build the binaries into the cache, or reuse them")
    built.add_argument("--force", action="store_true", help="rebuild even when cached")
    sub.add_parser("cached", help="exit 0 when the binaries are in the cache, 1 when not")
    up = sub.add_parser("up", help="start the control plane and wait for Ctrl-C")
    up.add_argument("--nodes", type=int, default=0, help="create this many Ready Nodes (8 CPU, 32Gi)")
    up.add_argument("--keep", action="store_true", help="keep the temporary folder (logs) after stopping")
    run = sub.add_parser("run", help="start it, run a command with KUBECONFIG set, stop it")
    run.add_argument("--keep", action="store_true", help="keep the temporary folder (logs) after stopping")
    run.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    if args.what == "cached":
        return 0 if binaries_present() else 1
    if args.what == "build":
        print(build(force=args.force))
        print(install_etcd())
        return 0
    return _up(args) if args.what == "up" else _run(args)


if __name__ == "__main__":
    sys.exit(main())
