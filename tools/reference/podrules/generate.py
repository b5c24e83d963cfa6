"""Seeded pod templates around each pod rule ``adapters/pod_rules.py`` ports, for ``podrules-reference`` to judge.

    python tools/reference/podrules/generate.py --seed 37 --count 600 > cases.jsonl
    ./tools/reference/podrules/podrules-reference < cases.jsonl > tests/data/apiserver-recorded/pod-templates.jsonl

Each case starts from a valid template (every container has an image, so only the ported rules can fire) and
changes one family of fields: a name that must be a DNS label or subdomain, a repeated name, a port, an env var
name, a container's resources, the restart policy. The values mix the ones manifest authors write by mistake
(a ``$PLACEHOLDER``, an upper-case name, ``8080`` as a port name, a GPU request without a limit) with random ones.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import sys
from collections.abc import Callable
from typing import Any

PATHS = ("spec.template", "spec.replicatedJobs[0].template.spec.template", "spec.leaderWorkerTemplate.workerTemplate")
NAMES = ["main", "Main", "my_name", "a.b", "-x", "x-", "", "$K8S_SA_NAME", "a" * 64, "worker-1", "1abc", "ok"]
ACCOUNTS = ["$K8S_SA_NAME", "default", "My-SA", "sa.example.com", "a" * 254, "sa_1", "-sa", "training-sa"]
PORT_NAMES = ["http", "8080", "HTTP", "a--b", "-http", "http-", "abcdefghijklmnop", "grpc-1", "p_1", "metrics"]
ENV_NAMES = ["PATH", "A=B", "MY VAR", "1ABC", "naïve", "..", "_x", "TAB\tX", "x.y-z", ""]
QUANTITIES = ["1", "2", "500m", "2000m", "1.5", "1Gi", "1024Mi", "1536Mi", "1G", "-1", "0", "2e3", "0.5Ki", "100Mi"]
RESOURCES = ["cpu", "memory", "ephemeral-storage", "nvidia.com/gpu", "example.com/foo", "gpu", "pods", "hugepages-2Mi"]


def base(rng: random.Random) -> dict[str, Any]:
    containers = [{"name": f"c{i}", "image": "busybox"} for i in range(rng.randint(1, 3))]
    return {"metadata": {"labels": {"app": "x"}}, "spec": {"containers": containers}}


def _container(spec: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    container: dict[str, Any] = rng.choice(spec["containers"])
    return container


def service_account(t: dict[str, Any], rng: random.Random) -> None:
    t["spec"]["serviceAccountName"] = rng.choice(ACCOUNTS)


def container_names(t: dict[str, Any], rng: random.Random) -> None:
    for container in t["spec"]["containers"]:
        if rng.random() < 0.6:
            container["name"] = rng.choice(NAMES)


def init_containers(t: dict[str, Any], rng: random.Random) -> None:
    names = [c["name"] for c in t["spec"]["containers"]] + NAMES
    t["spec"]["initContainers"] = [{"name": rng.choice(names), "image": "busybox"} for _ in range(rng.randint(1, 3))]


def volumes(t: dict[str, Any], rng: random.Random) -> None:
    names = ["data", "cache", "scratch", "main", "Main", "my_name", "a.b", "", "data"]
    t["spec"]["volumes"] = [{"name": rng.choice(names), "emptyDir": {}} for _ in range(rng.randint(1, 3))]


def ports(t: dict[str, Any], rng: random.Random) -> None:
    listed = []
    for _ in range(rng.randint(1, 3)):
        port: dict[str, Any] = {"containerPort": rng.choice([80, 0, 65536, 8080, 443])}
        if rng.random() < 0.8:
            port["name"] = rng.choice(PORT_NAMES)
        if rng.random() < 0.3:
            port["hostPort"] = rng.choice([80, 70000, -1])
        if rng.random() < 0.3:
            port["protocol"] = rng.choice(["TCP", "UDP", "SCTP", "tcp", "HTTP"])
        listed.append(port)
    _container(t["spec"], rng)["ports"] = listed


def env(t: dict[str, Any], rng: random.Random) -> None:
    _container(t["spec"], rng)["env"] = [{"name": rng.choice(ENV_NAMES), "value": "v"} for _ in range(rng.randint(1, 3))]


def resources(t: dict[str, Any], rng: random.Random) -> None:
    chosen: dict[str, Any] = {}
    for key in ("requests", "limits"):
        if rng.random() < 0.75:
            names = rng.sample(RESOURCES, 1)  # one name a map: Go walks a map in a random order
            chosen[key] = {name: rng.choice(QUANTITIES) for name in names}
    if rng.random() < 0.4 and "requests" in chosen:
        chosen.setdefault("limits", {}).update({k: rng.choice(QUANTITIES) for k in chosen["requests"]})
        chosen["limits"] = dict(list(chosen["limits"].items())[:1])
    _container(t["spec"], rng)["resources"] = chosen


def restart(t: dict[str, Any], rng: random.Random) -> None:
    t["spec"]["restartPolicy"] = rng.choice(["Always", "OnFailure", "Never", "never", "Sometimes"])


def hostname(t: dict[str, Any], rng: random.Random) -> None:
    t["spec"][rng.choice(["hostname", "subdomain"])] = rng.choice(NAMES[1:])


FAMILIES: dict[str, Callable[[dict[str, Any], random.Random], None]] = {
    "serviceAccountName": service_account,
    "containers.name": container_names,
    "initContainers.name": init_containers,
    "volumes.name": volumes,
    "ports": ports,
    "env.name": env,
    "resources": resources,
    "restartPolicy": restart,
    "hostname": hostname,
}


def cases(seed: int, count: int) -> list[dict[str, Any]]:
    """``count`` cases, the same for the same seed, cycling through the families."""
    rng = random.Random(seed)
    out = []
    families = list(FAMILIES)
    for i in range(count):
        family = families[i % len(families)]
        template = base(rng)
        FAMILIES[family](template, rng)
        if rng.random() < 0.25:  # a second family on top, as a real manifest has more than one mistake
            FAMILIES[rng.choice(families)](template, rng)
        path = rng.choice(PATHS)
        out.append({"id": f"{family}-{i}", "family": family, "path": path, "template": copy.deepcopy(template)})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=37)
    parser.add_argument("--count", type=int, default=600)
    args = parser.parse_args()
    header = {"header": {"generator": "tools/reference/podrules/generate.py", "seed": args.seed, "count": args.count}}
    sys.stdout.write(json.dumps(header) + "\n")
    for case in cases(args.seed, args.count):
        sys.stdout.write(json.dumps(case) + "\n")


if __name__ == "__main__":
    main()
