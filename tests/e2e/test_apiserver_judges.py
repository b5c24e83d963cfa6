"""The real kube-apiserver v1.37.2 judges what the offline validation judges.

Two corpora, each sent with server-side dry-run and strict field validation:

- the 433 recorded validation cases (``tests/data/apiserver-recorded/``): creates and updates of
  Workload, PodGroup and CompositePodGroup (``apiserver_judge``);
- every object ``workloadbuilder compile`` makes from the golden corpus (``corpus_objects``);
- Jobs whose ``spec.scheduling`` the Job API judges, created and updated (``job_validation``);
- the corpus's JobSets, LeaderWorkerSets, TrainJobs, runtimes and Volcano and coscheduling objects,
  against CRDs made from the schemas the project ships (``crd_sources``).

For each, ``validate`` must accept exactly what the apiserver accepts, with equal field errors,
except where ``tests/data/e2e-recorded/differences.yaml`` names the case and why.
``WORKLOADBUILDER_E2E_RECORD=1`` rewrites the recordings that
``tests/conformance/test_e2e_recorded.py`` replays without Go.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from typing import Any

import crd_sources
import job_validation
import pytest
import yaml
from apiserver_judge import RECORDED, differs, judge, load_cases, ours, prepare
from corpus_objects import CORPUS_RECORDING, compiled_objects, corpus_documents, judge_object, our_object_verdict
from live_api import call, delete_namespace, wait_for

DIFFERENCES = RECORDED.parent / "differences.yaml"
JOB_RECORDING = RECORDED.parent / "job-validation.jsonl"
CRD_RECORDING = RECORDED.parent / "controller-sources.jsonl"
RECORD = os.environ.get("WORKLOADBUILDER_E2E_RECORD") == "1"


def _known(section: str) -> dict[str, str]:
    data = yaml.safe_load(DIFFERENCES.read_text()) if DIFFERENCES.exists() else {}
    return {str(k): str(v["how"]) for k, v in ((data or {}).get(section) or {}).items()}


def _write(path: Any, header: dict[str, Any], rows: list[dict[str, Any]]) -> None:
    lines = [json.dumps(header, sort_keys=True)] + [json.dumps(row, sort_keys=True) for row in rows]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_recorded_cases(api_client: Any) -> None:
    cases = load_cases()
    prepare(api_client, cases)
    rows, parted = [], {}
    for case in cases:
        real = judge(api_client, case)
        rows.append({"id": case["id"], "kind": case["kind"], "op": case["op"], "real": real})
        how = differs(real, ours(case), case["obj"])
        if how:
            parted[case["id"]] = how
    if RECORD:
        header = {
            "revision": "k8s.io/kubernetes v1.37.2 kube-apiserver",
            "cases": len(rows),
            "query": "dryRun=All&fieldValidation=Strict",
        }
        _write(RECORDED, header, rows)
    print(
        "apiserver agreement on the recorded cases:",
        len(cases) - len(parted),
        "of",
        len(cases),
        Counter(parted.values()),
    )
    assert parted == _known("apiserver-cases")


def test_compiled_corpus(api_client: Any) -> None:
    objects = compiled_objects()
    assert objects, "the corpus compiled to no object"
    prepare(api_client, [{"obj": obj} for _, obj in objects])
    rows, parted = [], {}
    for source, obj in objects:
        real = judge_object(api_client, obj)
        ident = f"{source}#{obj['kind']}/{obj['metadata']['name']}"
        rows.append({"id": ident, "obj": obj, "real": real})
        how = differs(real, our_object_verdict(obj), obj)
        if how:
            parted[ident] = how
    if RECORD:
        _write(CORPUS_RECORDING, {"revision": "k8s.io/kubernetes v1.37.2 kube-apiserver", "objects": len(rows)}, rows)
    print("apiserver agreement on the compiled corpus:", len(rows) - len(parted), "of", len(rows))
    assert parted == _known("compiled-corpus")


@pytest.mark.parametrize("version", ["v1beta1", "v1alpha3"], ids=["v1beta1", "v1alpha3"])
def test_both_versions_are_served(api_client: Any, version: str) -> None:
    status, body = call(api_client, "GET", f"/apis/scheduling.k8s.io/{version}")
    assert status == 200
    kinds = {resource["kind"] for resource in body["resources"]}
    assert {"Workload", "PodGroup"} <= kinds
    if version == "v1alpha3":
        assert "CompositePodGroup" in kinds


def test_job_scheduling_validation(api_client: Any) -> None:
    call(api_client, "POST", "/api/v1/namespaces", {"metadata": {"name": job_validation.NAMESPACE}})
    try:
        rows, parted = _judge_jobs(api_client)
    finally:  # the update cases' Jobs, and the pods their controller made meanwhile
        delete_namespace(api_client, job_validation.NAMESPACE)
    if RECORD:
        _write(JOB_RECORDING, {"revision": "k8s.io/kubernetes v1.37.2 kube-apiserver", "jobs": len(rows)}, rows)
    print("apiserver agreement on Job spec.scheduling:", len(rows) - len(parted), "of", len(rows))
    assert parted == _known("job-validation")


def _judge_jobs(api_client: Any) -> tuple[list[dict[str, Any]], dict[str, str]]:
    rows, parted = [], {}
    for ident, (scheduling, parallelism) in job_validation.CREATES.items():
        obj = job_validation.job(ident, scheduling, parallelism)
        real = job_validation.judge_create(api_client, obj)
        rows.append({"id": ident, "op": "create", "obj": obj, "real": real})
        how = differs(real, job_validation.ours_create(obj), obj)
        if how:
            parted[ident] = how
    for ident, (old, new) in job_validation.UPDATES.items():
        real, stored, sent = job_validation.judge_update(api_client, ident, old, new)
        rows.append({"id": ident, "op": "update", "old": stored, "obj": sent, "real": real})
        how = differs(real, job_validation.ours_update(stored, sent), sent)
        if how:
            parted[ident] = how
    return rows, parted


def test_controller_sources_against_the_shipped_schemas(api_client: Any) -> None:
    for crd in crd_sources.crds():
        status, body = call(api_client, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)
        assert status in (201, 409), body.get("message")
    served = crd_sources.kinds()
    sources = [(path, doc) for path, doc in corpus_documents() if (doc.get("apiVersion"), doc.get("kind")) in served]
    assert sources
    prepare(api_client, [{"obj": doc} for _, doc in sources])
    for crd in crd_sources.crds():  # a CRD serves once Established, and its handler a moment later
        name = crd["metadata"]["name"]
        wait_for(f"CRD {name}", lambda n=name: _established(api_client, n), timeout=60)
        for version in crd["spec"]["versions"]:
            probe = {"apiVersion": f"{crd['spec']['group']}/{version['name']}", "kind": crd["spec"]["names"]["kind"]}
            path = crd_sources.path_of({**probe, "metadata": {"namespace": "default"}})
            wait_for(f"{path} to be served", lambda p=path: call(api_client, "GET", p)[0] == 200, timeout=60)
    rows, parted = [], {}
    for path, doc in sources:
        real = crd_sources.judge_source(api_client, doc)
        ident = f"{path}#{doc['kind']}/{(doc.get('metadata') or {}).get('name')}"
        rows.append({"id": ident, "obj": doc, "real": real})
        how = crd_sources.differs(real, crd_sources.ours(doc))
        if how:
            parted[ident] = how
    if RECORD:
        _write(CRD_RECORDING, {"revision": "k8s.io/kubernetes v1.37.2 kube-apiserver", "objects": len(rows)}, rows)
    print(
        "CRD (shipped schemas) agreement on the controller objects:",
        len(rows) - len(parted),
        "of",
        len(rows),
        Counter(parted.values()),
    )
    assert parted == _known("controller-sources")


def _established(api_client: Any, name: str) -> bool:
    status, body = call(api_client, "GET", f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}")
    conditions = (body.get("status") or {}).get("conditions") or [] if status == 200 else []
    return any(c["type"] == "Established" and c["status"] == "True" for c in conditions)
