"""Every upstream manifest's compiled pods, against what each controller would create.

For every file of the corpus (``upstream_verdicts.CASES``: the controllers' example folders copied whole),
each object a bundled adapter compiles is compared, per controller group (a Job; a JobSet's ReplicatedJob; an
LWS's leaders and its workers; a Volcano task; a TrainJob's ReplicatedJob), on what places a pod: each
container's requests and limits, tolerations, node selector, affinity and scheduler. The expectations are
worked out here from the controllers' own rules, read at the corpus's revisions, never from the adapters:

* Job (k8s.io/kubernetes v1.37.2): ``min(parallelism, completions)`` pods of ``spec.template``.
* JobSet (08dfbdfd, ``constructJob`` and the pod webhook): ``replicas`` Jobs of ``template.spec.template``;
  with ``alpha.jobset.sigs.k8s.io/exclusive-topology`` (ReplicatedJob's over JobSet's) a required pod affinity
  to the Job's key (SHA-1 of ``<namespace>/<jobset>-<rjob>-<index>``) and an anti-affinity to other keys of
  the same priority, over the topology key; with the node-selector strategy the node selector
  ``alpha.jobset.sigs.k8s.io/namespaced-job`` and the ``no-schedule`` toleration instead.
* LWS (060ab4da): per group a leader from ``leaderTemplate`` (else ``workerTemplate``) and ``size - 1``
  workers from ``workerTemplate``; exclusive topology: the group key (SHA-1 of
  ``<namespace>/<lws>-<group>``) affinity and anti-affinity.
* Volcano (ed72c7c8, ``createJobPod``): ``replicas`` pods of the task's template, the Job's
  ``schedulerName`` and ``priorityClassName`` where the template has none.
* TrainJob (kubeflow/trainer 8c0f5059): each runtime ReplicatedJob's template; ``resourcesPerNode`` merged
  key by key into the ``node`` container of the trainer step (of a runtime with an ``mlPolicy``); each of
  ``spec.runtimePatches``' pod templates merged in first, as a strategic merge patch (``_patch_pod``).
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
from collections import Counter
from collections.abc import Mapping
from typing import Any

import pytest
from compiled_pods import group_key, pod_template
from upstream_verdicts import CASES, DATA, _documents, _index, _needs

from workloadbuilder.adapters import PlanError, adapter_for

INDEX = _index()
FIELDS = ("tolerations", "nodeSelector", "affinity", "schedulerName")
JOB_INDEX, GROUP_INDEX = "jobset.sigs.k8s.io/job-index", "leaderworkerset.sigs.k8s.io/group-index"


def _shape(template: Mapping[str, Any] | None) -> dict[str, Any]:
    """What places a pod of ``template``: each container's requests and limits, and the pod's placement fields."""
    spec = (template or {}).get("spec") or {}
    containers = {
        f"{kind}/{c.get('name')}": {k: v for k, v in (c.get("resources") or {}).items() if k in ("requests", "limits")}
        for kind in ("initContainers", "containers")
        for c in spec.get(kind) or []
    }
    return {"containers": containers, **{key: spec[key] for key in FIELDS if spec.get(key) not in (None, "", [], {})}}


def _name(doc: Mapping[str, Any]) -> str:
    metadata = doc.get("metadata") or {}
    return str(metadata.get("name") or f"{metadata.get('generateName') or ''}xxxxx")


def _int(value: Any, default: int) -> int:
    return value if isinstance(value, int) else default


def _job_pods(spec: Mapping[str, Any]) -> int:
    parallelism = _int(spec.get("parallelism"), 1)
    completions = spec.get("completions")
    return parallelism if completions is None else min(parallelism, completions)


def _affinity(template: Mapping[str, Any], label: str, key: str, topology: str, extra: list[Any], ns: bool) -> Any:
    """``template`` with the exclusive pair of terms the controllers add (JobSet's carry a namespace selector)."""
    out = copy.deepcopy(dict(template))
    spec = out.setdefault("spec", {})
    affinity = spec.setdefault("affinity", {})
    selector_in = {"matchExpressions": [{"key": label, "operator": "In", "values": [key]}]}
    apart = [{"key": label, "operator": "Exists"}, {"key": label, "operator": "NotIn", "values": [key]}, *extra]
    for kind, selector in (("podAffinity", selector_in), ("podAntiAffinity", {"matchExpressions": apart})):
        term = {"labelSelector": selector, "topologyKey": topology, **({"namespaceSelector": {}} if ns else {})}
        affinity.setdefault(kind, {}).setdefault("requiredDuringSchedulingIgnoredDuringExecution", []).append(term)
    return out


def _expected_jobset(js: Mapping[str, Any]) -> dict[str, list[Any]]:
    name, ns = _name(js), (js.get("metadata") or {}).get("namespace") or "default"
    owner = (js.get("metadata") or {}).get("annotations") or {}
    out: dict[str, list[Any]] = {}
    for rjob in (js.get("spec") or {}).get("replicatedJobs") or []:
        job_spec = (rjob.get("template") or {}).get("spec") or {}
        template = job_spec.get("template") or {}
        own = ((rjob.get("template") or {}).get("metadata") or {}).get("annotations") or {}
        source = own if "alpha.jobset.sigs.k8s.io/exclusive-topology" in own else owner
        topology = source.get("alpha.jobset.sigs.k8s.io/exclusive-topology")
        strategy = "alpha.jobset.sigs.k8s.io/node-selector" in source
        shapes = []
        for index in range(_int(rjob.get("replicas"), 1)):
            child = f"{name}-{rjob['name']}-{index}"
            rendered = template
            if topology and strategy:
                rendered = copy.deepcopy(dict(template))
                spec = rendered.setdefault("spec", {})
                spec.setdefault("nodeSelector", {})["alpha.jobset.sigs.k8s.io/namespaced-job"] = f"{ns}_{child}"
                spec.setdefault("tolerations", []).append(
                    {"key": "alpha.jobset.sigs.k8s.io/no-schedule", "operator": "Exists", "effect": "NoSchedule"}
                )
            elif topology:
                key = hashlib.sha1(f"{ns}/{child}".encode()).hexdigest()
                priority = (template.get("spec") or {}).get("priorityClassName") or "0"
                extra = [{"key": "jobset.sigs.k8s.io/priority", "operator": "In", "values": [priority]}]
                rendered = _affinity(template, "jobset.sigs.k8s.io/job-key", key, topology, extra, ns=True)
            shapes += [_shape(rendered)] * _job_pods(job_spec)
        if shapes:
            out[f"replicatedJob {rjob['name']}"] = shapes
    return out


def _expected_lws(lws: Mapping[str, Any]) -> dict[str, list[Any]]:
    name, ns = _name(lws), (lws.get("metadata") or {}).get("namespace") or "default"
    spec = lws.get("spec") or {}
    lwt = spec.get("leaderWorkerTemplate") or {}
    size, replicas = _int(lwt.get("size"), 1), _int(spec.get("replicas"), 1)
    topology = ((lws.get("metadata") or {}).get("annotations") or {}).get(
        "leaderworkerset.sigs.k8s.io/exclusive-topology"
    )
    out: dict[str, list[Any]] = {"leader": [], "worker": []}
    for group in range(replicas):
        key = hashlib.sha1(f"{ns}/{name}-{group}".encode()).hexdigest()
        for role, template, count in (
            ("leader", lwt.get("leaderTemplate") or lwt.get("workerTemplate"), 1),
            ("worker", lwt.get("workerTemplate"), size - 1),
        ):
            if topology:
                template = _affinity(template, "leaderworkerset.sigs.k8s.io/group-key", key, topology, [], ns=False)
            out[role] += [_shape(template)] * count
    return {role: shapes for role, shapes in out.items() if shapes}


def _expected_volcano(job: Mapping[str, Any]) -> dict[str, list[Any]]:
    spec = job.get("spec") or {}
    out = {}
    for i, task in enumerate(spec.get("tasks") or []):
        template = copy.deepcopy(task.get("template") or {})
        pod = template.setdefault("spec", {})
        for key in ("schedulerName", "priorityClassName"):
            if not pod.get(key) and spec.get(key):
                pod[key] = spec[key]
        if _int(task.get("replicas"), 0):
            out[f"task {task.get('name') or f'default{i}'}"] = [_shape(template)] * task["replicas"]
    return out


def _expected_trainjob(job: Mapping[str, Any], runtime: Mapping[str, Any]) -> dict[str, list[Any]]:
    """Per runtime ReplicatedJob, its one pod shape (the counts are the Trainer tests')."""
    overlay = ((job.get("spec") or {}).get("trainer") or {}).get("resourcesPerNode")
    has_policy = (runtime.get("spec") or {}).get("mlPolicy") is not None
    out = {}
    for rjob in ((runtime.get("spec") or {}).get("template") or {}).get("spec", {}).get("replicatedJobs") or []:
        template = copy.deepcopy((rjob.get("template") or {}).get("spec", {}).get("template") or {})
        for pod_patch in _pod_patches(job, rjob["name"]):  # the patches first, then the TrainJob's trainer fields
            _patch_pod(template, pod_patch)
        labels = ((rjob.get("template") or {}).get("metadata") or {}).get("labels") or {}
        step = labels.get("trainer.kubeflow.org/trainjob-ancestor-step")
        node = [c for c in (template.get("spec") or {}).get("containers") or [] if c.get("name") == "node"]
        if overlay and node and step == "trainer" and has_policy:
            resources = node[0].setdefault("resources", {})
            for key in ("requests", "limits"):
                if overlay.get(key):
                    resources[key] = {**(resources.get(key) or {}), **overlay[key]}
        out[f"replicatedJob {rjob['name']}"] = [_shape(template)]
    return out


def _pod_patches(job: Mapping[str, Any], rjob: str) -> list[Mapping[str, Any]]:
    """The pod templates ``spec.runtimePatches`` give ReplicatedJob ``rjob``, in order."""
    found = []
    for patch in (job.get("spec") or {}).get("runtimePatches") or []:
        spec = ((patch.get("trainingRuntimeSpec") or {}).get("template") or {}).get("spec") or {}
        for entry in spec.get("replicatedJobs") or []:
            pod = ((entry.get("template") or {}).get("spec") or {}).get("template")
            if entry.get("name") == rjob and isinstance(pod, Mapping):
                found.append(pod)
    return found


def _patch_pod(template: dict[str, Any], patch: Mapping[str, Any]) -> None:
    """Trainer's strategic merge of one pod template patch, for the fields compared here (k8s.io/api tags).

    Maps (``nodeSelector``, ``affinity``, a container's ``resources``) merge key by key, a null deleting;
    ``containers`` and ``initContainers`` merge by name; ``tolerations`` and scalars are replaced.
    """

    def merged(old: Any, new: Any) -> Any:
        if not isinstance(new, Mapping):
            return copy.deepcopy(new)
        out = dict(old) if isinstance(old, Mapping) else {}
        for key, value in new.items():
            if value is None:
                out.pop(key, None)
            else:
                out[key] = merged(out.get(key), value)
        return out

    spec, pod = template.setdefault("spec", {}), patch.get("spec") or {}
    for key in ("nodeSelector", "affinity", "tolerations", "schedulerName"):
        if key in pod:
            spec[key] = merged(spec.get(key), pod[key]) if key in ("nodeSelector", "affinity") else pod[key]
    for kind in ("initContainers", "containers"):
        mine = spec.setdefault(kind, [])
        for container in pod.get(kind) or []:
            twin = next((c for c in mine if c.get("name") == container.get("name")), None)
            if twin is None:
                mine.append(copy.deepcopy(container))
            elif "resources" in container:
                twin["resources"] = merged(twin.get("resources"), container["resources"])


def _expected(doc: Mapping[str, Any], related: list[dict[str, Any]]) -> dict[str, list[Any]]:
    kind, api = doc.get("kind"), str(doc.get("apiVersion"))
    if kind == "Job" and api == "batch/v1":
        return {"job": [_shape((doc.get("spec") or {}).get("template"))] * _job_pods(doc.get("spec") or {})}
    if kind == "JobSet":
        return _expected_jobset(doc)
    if kind == "LeaderWorkerSet":
        return _expected_lws(doc)
    if kind == "Job":
        return _expected_volcano(doc)
    ref = (doc.get("spec") or {}).get("runtimeRef") or {}
    (runtime,) = [
        r
        for r in related
        if r.get("kind") == (ref.get("kind") or "ClusterTrainingRuntime") and _name(r) == ref.get("name")
    ][:1]
    return _expected_trainjob(doc, runtime)


def _actual(doc: Mapping[str, Any], compiled: Any, per_kind_counts: bool) -> dict[str, list[Any]]:
    """The compiled pods by controller group; the job index orders a JobSet's, the group index an LWS's."""
    out: dict[str, list[tuple[tuple[int, int], Any]]] = {}
    for pods in compiled.pods:
        order = (
            int(
                pods.selector.get(
                    "jobset.sigs.k8s.io/job-index", pods.selector.get("leaderworkerset.sigs.k8s.io/group-index", 0)
                )
            ),
            int(pods.selector.get("leaderworkerset.sigs.k8s.io/worker-index", 0)),
        )
        count = pods.count if per_kind_counts else 1
        out.setdefault(group_key(pods.selector), []).extend([(order, _shape(pod_template(compiled, pods)))] * count)
    return {key: [shape for _, shape in sorted(entries, key=lambda e: e[0])] for key, entries in out.items()}


def _related(case: str) -> list[dict[str, Any]]:
    plain, _ = _needs(case, INDEX)
    return [doc for file in plain for doc in _documents(file)]


def _compiled(case: str) -> list[tuple[dict[str, Any], Any, list[dict[str, Any]]]]:
    """Each object of ``case`` a bundled adapter compiles, with the compiled plan and the objects given with it."""
    docs, related = _documents(case), _related(case)
    out = []
    with contextlib.chdir(DATA):
        for doc in docs:
            adapter = adapter_for(str(doc.get("apiVersion")), str(doc.get("kind")))
            if adapter is None:
                continue
            others = [d for d in docs if d is not doc] + related
            try:
                compiled = adapter.plan(doc, others).compile()
            except PlanError:
                continue
            out.append((doc, compiled, others))
    return out


RESULTS = {case: _compiled(case) for case in CASES}


@pytest.mark.parametrize("case", CASES, ids=CASES)
def test_compiled_pods_are_the_controllers_pods(case: str) -> None:
    for doc, compiled, related in RESULTS[case]:
        if not compiled.pods:
            continue
        if doc.get("kind") == "TrainJob":
            actual = {k: v[:1] for k, v in _actual(doc, compiled, per_kind_counts=False).items()}
        else:
            actual = _actual(doc, compiled, per_kind_counts=True)
        assert actual == _expected(doc, related), f"{doc.get('kind')}/{_name(doc)}"


def test_every_file_with_a_compiled_object_is_checked() -> None:
    """93 of the 298 files have pods to compare; the other 5 with an adapter's object are refused by its rules.

    The rest hold no object an adapter compiles (Deployments, queues, RBAC, plain Pods a user makes).
    """
    checked = [case for case, results in RESULTS.items() if any(compiled.pods for _, compiled, _ in results)]
    kinds = Counter(
        f"{doc.get('apiVersion')} {doc.get('kind')}"
        for results in RESULTS.values()
        for doc, compiled, _ in results
        if compiled.pods
    )
    assert len(CASES) == 298
    assert len(checked) == 93
    assert kinds == {
        "jobset.x-k8s.io/v1alpha2 JobSet": 35,
        "batch.volcano.sh/v1alpha1 Job": 20,
        "batch/v1 Job": 17,
        "leaderworkerset.x-k8s.io/v1 LeaderWorkerSet": 17,
        "trainer.kubeflow.org/v1alpha1 TrainJob": 8,
    }
    refused = [
        case
        for case in CASES
        if any(adapter_for(str(d.get("apiVersion")), str(d.get("kind"))) for d in _documents(case))
        and not any(compiled.pods for _, compiled, _ in RESULTS[case])
    ]
    assert refused == [
        "kueue/site/static/examples/serving-workloads/sample-leaderworkerset-tas.yaml",
        "volcano/example/invalid_jobs/duplicatedPolicyEvent-webhook-deny.yaml",
        "volcano/example/invalid_jobs/duplicatedTaskName-webhook-deny.yaml",
        "volcano/example/invalid_jobs/minAvailable-webhook-deny.yaml",
        "volcano/example/kubecon-2019-china/task-priority/elastic-job.yaml",
    ]
