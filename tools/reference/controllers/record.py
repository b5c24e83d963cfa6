"""Inputs for the controller harnesses, and their answers reduced to the pod facts the adapters model.

    python3 record.py trainer   # needs trainer/trainer-reference built (README.md)
    python3 record.py jobset

Inputs, per controller: every object of its kind in every file under ``tests/data/upstream/<controller>/``
(named by file and document; a TrainJob with the runtime it names, found in the same folder first, then
anywhere in that tree), then seeded generated ones (written out whole). Standard library only.
"""

from __future__ import annotations

import gzip
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
UPSTREAM = ROOT / "tests" / "data" / "upstream"
OUT = ROOT / "tests" / "data" / "controllers-recorded"
SEED = 33
KINDS = {"trainer": ("trainer.kubeflow.org/v1alpha1", "TrainJob"), "jobset": ("jobset.x-k8s.io/v1alpha2", "JobSet")}
RUNTIMES = ("TrainingRuntime", "ClusterTrainingRuntime")
LABEL_DOMAINS = ("jobset.sigs.k8s.io/", "leaderworkerset.sigs.k8s.io/", "volcano.sh/", "trainer.kubeflow.org/")


def _yaml_docs(path: Path) -> list[Any]:
    """A file's documents, through the project's virtual environment's PyYAML (none where it is no YAML)."""
    import yaml  # the only third-party import: run with the project's environment

    try:
        return list(yaml.safe_load_all(path.read_text()))
    except yaml.YAMLError:
        return []


def upstream(controller: str) -> list[dict[str, Any]]:
    api, kind = KINDS[controller]
    files = sorted(p for p in (UPSTREAM / controller).rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file())
    docs = {f: _yaml_docs(f) for f in files}
    runtimes: dict[tuple[str, str], list[tuple[Path, int]]] = {}
    for f, items in docs.items():
        for i, d in enumerate(items):
            if isinstance(d, dict) and d.get("kind") in RUNTIMES:
                runtimes.setdefault((d["kind"], str((d.get("metadata") or {}).get("name"))), []).append((f, i))
    cases = []
    for f, items in docs.items():
        for i, d in enumerate(items):
            if not (isinstance(d, dict) and d.get("apiVersion") == api and d.get("kind") == kind):
                continue
            case: dict[str, Any] = {"id": f"{f.relative_to(UPSTREAM)}#{i}", "source": [str(f.relative_to(UPSTREAM)), i]}
            if kind == "TrainJob":
                ref = (d.get("spec") or {}).get("runtimeRef") or {}
                homes = runtimes.get((ref.get("kind") or "ClusterTrainingRuntime", str(ref.get("name"))), [])
                homes = sorted(
                    homes,
                    key=lambda h: (h[0] != f, h[0].parent != f.parent, "/base/runtimes/" not in str(h[0]), str(h[0])),
                )
                case["related_sources"] = [[str(h.relative_to(UPSTREAM)), j] for h, j in homes[:1]]
            cases.append(case)
    return cases


def _resources(rng: random.Random) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if rng.random() < 0.8:
        out["requests"] = {
            "cpu": rng.choice(["500m", "1", "2", "0.5", "1500m"]),
            "memory": rng.choice(["1Gi", "512Mi", "2G"]),
        }
    if rng.random() < 0.5:
        out["limits"] = {"nvidia.com/gpu": rng.choice([1, 2, 8, "4"])}
        if rng.random() < 0.5:
            out["limits"]["memory"] = "4Gi"
    return out


def _container(rng: random.Random, name: str) -> dict[str, Any]:
    c: dict[str, Any] = {"name": name, "image": "busybox"}
    r = _resources(rng)
    if r:
        c["resources"] = r
    return c


def _pod_spec(rng: random.Random, main: str) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [_container(rng, main)]}
    if rng.random() < 0.3:
        spec["containers"].append(_container(rng, "sidecar"))
    if rng.random() < 0.2:
        spec["initContainers"] = [_container(rng, "init")]
    if rng.random() < 0.3:
        spec["tolerations"] = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
    if rng.random() < 0.3:
        spec["nodeSelector"] = {"cloud.google.com/gke-accelerator": rng.choice(["a100", "h100"])}
    if rng.random() < 0.15:
        spec["affinity"] = {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a", "b"]}]}
                    ]
                }
            }
        }
    if rng.random() < 0.15:
        spec["priorityClassName"] = "high"
    if rng.random() < 0.1:
        spec["schedulerName"] = "other-scheduler"
    return spec


def generated_jobsets(n: int, rng: random.Random) -> list[dict[str, Any]]:
    cases = []
    for k in range(n):
        annotations = {}
        if rng.random() < 0.3:
            annotations["alpha.jobset.sigs.k8s.io/exclusive-topology"] = rng.choice(
                ["rack", "cloud.google.com/gke-nodepool"]
            )
            if rng.random() < 0.3:
                annotations["alpha.jobset.sigs.k8s.io/node-selector"] = "true"
        rjobs = []
        for r in range(rng.randint(1, 3)):
            job_spec: dict[str, Any] = {"template": {"spec": _pod_spec(rng, "main")}}
            if rng.random() < 0.7:
                job_spec["parallelism"] = rng.randint(1, 4)
            if rng.random() < 0.5:
                job_spec["completions"] = rng.randint(1, 4)
            template: dict[str, Any] = {"spec": job_spec}
            if not annotations and rng.random() < 0.15:
                template["metadata"] = {"annotations": {"alpha.jobset.sigs.k8s.io/exclusive-topology": "rack"}}
            rjob: dict[str, Any] = {"name": f"rj{r}", "template": template}
            if rng.random() < 0.7:
                rjob["replicas"] = rng.randint(1, 3)
            rjobs.append(rjob)
        meta: dict[str, Any] = {"name": f"gen-{k}"}
        if annotations:
            meta["annotations"] = annotations
        if rng.random() < 0.3:
            meta["namespace"] = "team-a"
        obj = {"apiVersion": KINDS["jobset"][0], "kind": "JobSet", "metadata": meta, "spec": {"replicatedJobs": rjobs}}
        cases.append({"id": f"generated-{k:03d}", "object": obj})
    return cases


def _runtime(rng: random.Random, k: int) -> dict[str, Any]:
    policy = rng.choice([{"torch": {}}, {"torch": {}}, {}, None])
    node_spec = _pod_spec(rng, "node")
    rjobs = []
    if rng.random() < 0.3:
        init = {
            "name": "initializer",
            "template": {
                "metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "dataset-initializer"}},
                "spec": {"template": {"spec": {"containers": [_container(rng, "dataset-initializer")]}}},
            },
        }
        rjobs.append(init)
    rjobs.append(
        {
            "name": "node",
            "template": {
                "metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
                "spec": {"template": {"spec": node_spec}},
            },
        }
    )
    spec: dict[str, Any] = {"template": {"spec": {"replicatedJobs": rjobs}}}
    if policy is not None:
        spec["mlPolicy"] = {"numNodes": rng.randint(1, 4), **policy}
    kind = rng.choice(RUNTIMES)
    meta: dict[str, Any] = {"name": f"rt-{k}"}
    return {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": kind, "metadata": meta, "spec": spec}


def generated_trainjobs(n: int, rng: random.Random) -> list[dict[str, Any]]:
    cases = []
    for k in range(n):
        runtime = _runtime(rng, k)
        trainer: dict[str, Any] = {}
        if rng.random() < 0.7:
            trainer["resourcesPerNode"] = _resources(rng) or {"requests": {"cpu": "3"}}
        if rng.random() < 0.4:
            trainer["image"] = "pytorch:2"
        if rng.random() < 0.3:
            trainer["command"] = ["torchrun"]
            trainer["args"] = ["train.py"]
        if rng.random() < 0.3:
            trainer["env"] = [{"name": "A", "value": "1"}]
        if rng.random() < 0.5:
            trainer["numNodes"] = rng.randint(1, 5)
        if rng.random() < 0.3:
            trainer["numProcPerNode"] = rng.choice([1, 4])
        spec: dict[str, Any] = {"runtimeRef": {"name": runtime["metadata"]["name"], "kind": runtime["kind"]}}
        if trainer:
            spec["trainer"] = trainer
        if rng.random() < 0.3:
            spec["runtimePatches"] = [
                {
                    "manager": "example.com/tuner",
                    "trainingRuntimeSpec": {
                        "template": {
                            "spec": {
                                "replicatedJobs": [
                                    {
                                        "name": "node",
                                        "template": {
                                            "spec": {
                                                "template": {
                                                    "spec": {
                                                        "nodeSelector": {"pool": "tuned"},
                                                        "tolerations": [{"key": "tuned", "operator": "Exists"}],
                                                    }
                                                }
                                            }
                                        },
                                    }
                                ]
                            }
                        }
                    },
                }
            ]
        obj = {"apiVersion": KINDS["trainer"][0], "kind": "TrainJob", "metadata": {"name": f"tj-{k}"}, "spec": spec}
        cases.append({"id": f"generated-{k:03d}", "object": obj, "related": [runtime]})
    return cases


def resolve(case: dict[str, Any]) -> dict[str, Any]:
    """The harness's input line of a case: its object and related objects as JSON."""

    def doc(ref: list[Any]) -> Any:
        return _yaml_docs(UPSTREAM / ref[0])[ref[1]]

    obj = case["object"] if "object" in case else doc(case["source"])
    related = case.get("related") or [doc(r) for r in case.get("related_sources", [])]
    return {"id": case["id"], "object": obj, "related": related}


def facts(template: dict[str, Any]) -> dict[str, Any]:
    """What places a pod: each container's requests and limits, and the pod's placement fields and our labels."""
    spec = template.get("spec") or {}
    containers = {
        f"{kind}/{c.get('name')}": {
            k: v for k, v in (c.get("resources") or {}).items() if k in ("requests", "limits") and v
        }
        for kind in ("initContainers", "containers")
        for c in spec.get(kind) or []
    }
    out: dict[str, Any] = {"containers": containers}
    for key in ("tolerations", "nodeSelector", "affinity", "schedulerName", "priorityClassName"):
        if spec.get(key):
            out[key] = spec[key]
    labels = {
        k: v for k, v in ((template.get("metadata") or {}).get("labels") or {}).items() if k.startswith(LABEL_DOMAINS)
    }
    if labels:
        out["labels"] = labels
    return out


def main() -> None:
    controller = sys.argv[1]
    rng = random.Random(SEED)
    cases = upstream(controller) + (
        generated_trainjobs(150, rng) if controller == "trainer" else generated_jobsets(150, rng)
    )
    lines = [resolve(c) for c in cases]
    binary = HERE / controller / f"{controller}-reference"
    feed = "".join(json.dumps(line) + "\n" for line in lines)
    answers = [
        json.loads(a)
        for a in subprocess.run(
            [str(binary)], input=feed, capture_output=True, text=True, check=True
        ).stdout.splitlines()
    ]
    assert [a["id"] for a in answers] == [c["id"] for c in cases]
    OUT.mkdir(parents=True, exist_ok=True)
    with gzip.open(OUT / f"{controller}.jsonl.gz", "wt") as fh:
        for case, answer in zip(cases, answers, strict=True):
            row = {k: v for k, v in case.items()}
            if "error" in answer:
                row["error"] = answer["error"]
            else:
                row["groups"] = [
                    {"group": g["group"], "count": g["count"], **facts(g["template"])}
                    for g in answer.get("groups") or []
                ]
            fh.write(json.dumps(row, sort_keys=True) + "\n")
    print(f"{controller}: {len(cases)} cases, {sum('error' in a for a in answers)} refused by the controller's code")


if __name__ == "__main__":
    main()
