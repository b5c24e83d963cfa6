"""``workloadbuilder doctor`` against a stand-in apiserver on 127.0.0.1 answering recorded API responses.

Each scenario in tests/data/doctor/ maps GET paths to the JSON bodies the
apiserver returns (merged over cluster.yaml, the shared nodes and policies);
any other path is the apiserver's 404 Status. The server records every
request, so the tests also check that doctor only reads.
"""

from __future__ import annotations

import io
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from workloadbuilder.cli.app import main

DATA = Path(__file__).resolve().parents[1] / "data" / "doctor"


class _Server(HTTPServer):
    responses: dict[str, Any]
    seen: list[tuple[str, str]]


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        self.server.seen.append(("GET", path))
        body = self.server.responses.get(path)
        code = 200
        if body is None:
            code, name = 404, path.rsplit("/", 1)[-1]
            body = {
                "kind": "Status",
                "apiVersion": "v1",
                "metadata": {},
                "status": "Failure",
                "message": f'the server could not find the requested resource "{name}"',
                "reason": "NotFound",
                "code": 404,
            }
            if path.startswith("/apis/jobset.x-k8s.io/"):
                body["message"] = f'jobsets.jobset.x-k8s.io "{name}" not found'
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _refuse(self) -> None:
        self.server.seen.append((self.command, urlsplit(self.path).path))
        self.send_response(405)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_POST = do_PUT = do_PATCH = do_DELETE = _refuse


@pytest.fixture
def apiserver(tmp_path: Path) -> Iterator[tuple[_Server, Path]]:
    """The stand-in apiserver on an ephemeral port and a kubeconfig (namespace ml) pointing at it."""
    httpd = _Server(("127.0.0.1", 0), _Handler)
    httpd.responses, httpd.seen = {}, []
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [{"name": "local", "cluster": {"server": f"http://127.0.0.1:{httpd.server_port}"}}],
                "users": [{"name": "reader", "user": {"token": "test"}}],
                "contexts": [{"name": "ml", "context": {"cluster": "local", "user": "reader", "namespace": "ml"}}],
                "current-context": "ml",
            }
        )
    )
    try:
        yield httpd, kubeconfig
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


def run(apiserver: tuple[_Server, Path], scenario: str, *argv: str) -> tuple[int, str, str]:
    httpd, kubeconfig = apiserver
    httpd.responses = {
        **yaml.safe_load((DATA / "cluster.yaml").read_text()),
        **yaml.safe_load((DATA / f"{scenario}.yaml").read_text()),
    }
    out, err = io.StringIO(), io.StringIO()
    code = main(["doctor", *argv, "--kubeconfig", str(kubeconfig)], out, err)
    return code, out.getvalue(), err.getvalue()


# id -> (scenario file, target, exit code); the expected stdout is tests/data/doctor/<id>.out.
SCENARIOS = {
    "healthy": ("healthy", "jobset/train", 0),
    "waiting-for-quorum": ("quorum", "JobSet/quorum", 1),
    "unschedulable-for-taints": ("taints", "jobs.batch/cpu-job", 1),
    "invalid-hierarchy": ("hierarchy", "lws/vllm", 1),
}


@pytest.mark.parametrize(("scenario", "target", "code"), SCENARIOS.values(), ids=SCENARIOS.keys())
@pytest.mark.parametrize("output", ["text", "json"], ids=["text", "json"])
def test_doctor_reports_the_dominant_reason(apiserver, scenario: str, target: str, code: int, output: str):
    name = next(key for key, value in SCENARIOS.items() if value[0] == scenario)
    got = run(apiserver, scenario, target, "--output", output)
    suffix = "json" if output == "json" else "out"
    assert got == (code, (DATA / f"{name}.{suffix}").read_text(), "")


def test_doctor_only_reads(apiserver):
    httpd, _ = apiserver
    run(apiserver, "taints", "job/cpu-job")
    assert sorted(set(httpd.seen)) == [
        ("GET", "/api/v1/namespaces/ml/events"),
        ("GET", "/api/v1/nodes"),
        ("GET", "/api/v1/pods"),
        ("GET", "/apis/batch/v1/namespaces/ml/jobs/cpu-job"),
        ("GET", "/apis/policy/v1/poddisruptionbudgets"),
        ("GET", "/apis/resource.k8s.io/v1/resourceslices"),
        ("GET", "/apis/scheduling.k8s.io/v1/priorityclasses"),
        ("GET", "/apis/scheduling.k8s.io/v1alpha3/namespaces/ml/compositepodgroups"),
        ("GET", "/apis/scheduling.k8s.io/v1beta1/namespaces/ml/podgroups"),
        ("GET", "/apis/scheduling.k8s.io/v1beta1/namespaces/ml/workloads"),
    ]


BAD_INPUT = {
    "not-found": (
        ["jobset/missing"],
        "error: jobsets.jobset.x-k8s.io \"missing\" not found in namespace 'ml'\n",
    ),
    "unknown-kind": (
        ["deployment/web"],
        "error: unknown kind 'deployment': doctor reads Job, JobSet, LeaderWorkerSet, PodGroup, TrainJob, Workload\n",
    ),
    "no-slash": (["train"], "error: 'train': expected KIND/NAME, e.g. jobset/llm-pretrain\n"),
    "unknown-context": (
        ["jobset/train", "--context", "prod"],
        "error: kubeconfig {kubeconfig}: no context named 'prod' (contexts: ml)\n",
    ),
}


@pytest.mark.parametrize(("argv", "message"), BAD_INPUT.values(), ids=BAD_INPUT.keys())
def test_bad_input_is_one_line_and_exit_2(apiserver, argv: list[str], message: str):
    assert run(apiserver, "healthy", *argv) == (2, "", message.format(kubeconfig=apiserver[1]))


def test_namespace_flag_overrides_the_context(apiserver):
    code, out, err = run(apiserver, "healthy", "jobset/train", "-n", "other")
    assert (code, out, err) == (2, "", "error: jobsets.jobset.x-k8s.io \"train\" not found in namespace 'other'\n")


@pytest.mark.parametrize(("scenario", "target", "code"), SCENARIOS.values(), ids=SCENARIOS.keys())
def test_doctor_yaml_is_its_json(apiserver, scenario: str, target: str, code: int):
    name = next(key for key, value in SCENARIOS.items() if value[0] == scenario)
    got, out, err = run(apiserver, scenario, target, "-o", "yaml")
    assert (got, err) == (code, "")
    assert yaml.safe_load(out) == json.loads((DATA / f"{name}.json").read_text())
