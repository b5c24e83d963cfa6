"""Seeded cases nobody picked by hand, for the filter rules ported from kube-scheduler.

Each seed draws a small random case (taints and tolerations, node labels and selectors,
host ports, requests and free amounts, spread counts) and checks the project's filter
against a re-implementation written here from the upstream rules (read in the files named
in ``docs/parity.md``), independent of the project's code:

* ``ToleratesTaint``: an empty effect matches all, an empty key all keys, ``""``/``Equal``
  compare values, ``Exists`` ignores them, ``Lt``/``Gt`` compare decimal ``int64`` values
  (taint below / above toleration), any other operator matches nothing; TaintToleration
  rejects on the first ``NoSchedule``/``NoExecute`` taint nothing tolerates, with the one
  reason ``node(s) had untolerated taint(s)``;
* node affinity: every ``nodeSelector`` pair, then one of the required terms (ORed), each
  term's requirements ANDed, a term without requirements matching nothing;
* ``HostPortInfo.CheckConflict``: same protocol and port, and the same address or either
  one ``0.0.0.0``;
* ``fitsRequest``: ``Too many pods`` when no slot is left, then ``Insufficient <name>`` for
  CPU, memory, ephemeral-storage and each requested scalar resource short on the node;
* PodTopologySpread (DoNotSchedule): a node without the key fails with the missing-label
  reason; else ``count + self - min > maxSkew`` fails, the minimum being 0 while fewer
  domains than ``minDomains`` exist.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from workloadbuilder.field import ErrorList, FieldPath
from workloadbuilder.placement.filters import nodeaffinity, nodeports, noderesources, podtopologyspread, tainttoleration
from workloadbuilder.placement.k8s.constraints import LabelSelector, SpreadConstraint, read_constraints, read_taints

SEEDS = list(range(300))
KEYS = ["", "a", "b", "dedicated", "node.kubernetes.io/not-ready"]
VALUES = ["", "x", "y", "0", "5", "-3", "09", "12", "9223372036854775807", "9223372036854775808"]
EFFECTS = ["", "NoSchedule", "NoExecute", "PreferNoSchedule"]
OPERATORS = ["", "Equal", "Exists", "Lt", "Gt"]  # others are refused when the pod is read


def _constraints(spec: dict[str, Any]) -> Any:
    errors = ErrorList()
    out = read_constraints(spec, FieldPath("spec"), errors)
    assert list(errors) == []
    return out


# -- an independent reading of the upstream rules ------------------------------------------------


def _int64(text: str) -> int | None:
    if text in ("", "-") or text.startswith("+"):
        return None
    digits = text[1:] if text.startswith("-") else text
    if not digits.isdigit() or (len(digits) > 1 and digits[0] == "0"):
        return None
    value = int(text)
    return value if -(2**63) <= value < 2**63 else None


def _tolerates(tol: dict[str, str], taint: dict[str, str]) -> bool:
    if tol.get("effect") and tol["effect"] != taint["effect"]:
        return False
    if tol.get("key") and tol["key"] != taint["key"]:
        return False
    op = tol.get("operator", "")
    if op in ("", "Equal"):
        return tol.get("value", "") == taint.get("value", "")
    if op == "Exists":
        return True
    if op in ("Lt", "Gt"):
        bound, have = _int64(tol.get("value", "")), _int64(taint.get("value", ""))
        if bound is None or have is None:
            return False
        return have < bound if op == "Lt" else have > bound
    return False


def _first_untolerated(taints: list[dict[str, str]], tols: list[dict[str, str]]) -> dict[str, str] | None:
    for taint in taints:
        if taint["effect"] in ("NoSchedule", "NoExecute") and not any(_tolerates(t, taint) for t in tols):
            return taint
    return None


def _requirement_holds(req: dict[str, Any], labels: dict[str, str]) -> bool:
    key, op, values = req["key"], req["operator"], req.get("values", [])
    if op == "In":
        return key in labels and labels[key] in values
    if op == "NotIn":
        return key not in labels or labels[key] not in values
    if op == "Exists":
        return key in labels
    if op == "DoesNotExist":
        return key not in labels
    have, bound = _int64(labels.get(key, "x")), _int64(values[0]) if len(values) == 1 else None
    if have is None or bound is None:
        return False
    return have > bound if op == "Gt" else have < bound


def _affinity_matches(selector: dict[str, str], terms: list[dict[str, Any]] | None, labels: dict[str, str]) -> bool:
    if any(labels.get(k) != v for k, v in selector.items()):
        return False
    if terms is None:
        return True
    return any(
        bool(term["matchExpressions"]) and all(_requirement_holds(r, labels) for r in term["matchExpressions"])
        for term in terms
    )


# -- the generated cases -------------------------------------------------------------------------


def _taint(rng: random.Random) -> dict[str, str]:
    return {"key": rng.choice(KEYS[1:]), "value": rng.choice(VALUES), "effect": rng.choice(EFFECTS[1:])}


def _toleration(rng: random.Random) -> dict[str, str]:
    tol = {"key": rng.choice(KEYS), "operator": rng.choice(OPERATORS), "effect": rng.choice(EFFECTS)}
    if tol["operator"] != "Exists":
        tol["value"] = rng.choice(VALUES)
    if not tol["key"]:
        tol["operator"] = "Exists"  # the API requires Exists with an empty key
    return {k: v for k, v in tol.items() if v}


@pytest.mark.parametrize("seed", SEEDS, ids=[f"seed{s}" for s in SEEDS])
def test_generated_taints_and_tolerations(seed: int) -> None:
    rng = random.Random(seed)
    taints = [_taint(rng) for _ in range(rng.randint(0, 4))]
    tols = [_toleration(rng) for _ in range(rng.randint(0, 3))]
    errors = ErrorList()
    node_taints = read_taints(taints, FieldPath("taints"), errors)
    assert list(errors) == []
    pod = _constraints({"tolerations": tols})
    want = _first_untolerated(taints, tols)
    found = tainttoleration.untolerated(node_taints, pod.tolerations)
    got = None if found is None else {"key": found.key, "value": found.value, "effect": found.effect}
    assert got == (None if want is None else {"key": want["key"], "value": want["value"], "effect": want["effect"]})
    reason = tainttoleration.check(node_taints, pod.tolerations)
    assert reason == (None if want is None else "node(s) had untolerated taint(s)")


LABEL_KEYS = ["zone", "pool", "gen"]
LABEL_VALUES = ["a", "b", "3", "7", "10"]


@pytest.mark.parametrize("seed", SEEDS, ids=[f"seed{s}" for s in SEEDS])
def test_generated_node_affinity_and_selectors(seed: int) -> None:
    rng = random.Random(seed)
    labels = {k: rng.choice(LABEL_VALUES) for k in LABEL_KEYS if rng.random() < 0.7}
    selector = {k: rng.choice(LABEL_VALUES) for k in LABEL_KEYS if rng.random() < 0.2}
    terms = None
    if rng.random() < 0.8:
        terms = []
        for _ in range(rng.randint(1, 3)):
            reqs = []
            for _ in range(rng.randint(0, 3)):
                op = rng.choice(["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"])
                req: dict[str, Any] = {"key": rng.choice(LABEL_KEYS), "operator": op}
                if op in ("In", "NotIn"):
                    req["values"] = rng.sample(LABEL_VALUES, rng.randint(1, 2))
                elif op in ("Gt", "Lt"):
                    req["values"] = [rng.choice(["3", "5", "10"])]
                reqs.append(req)
            terms.append({"matchExpressions": reqs})
    spec: dict[str, Any] = {"nodeSelector": selector} if selector else {}
    if terms is not None:
        spec["affinity"] = {
            "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}
        }
    pod = _constraints(spec)
    want = _affinity_matches(selector, terms, labels)
    assert nodeaffinity.matches(pod, labels, "n1") is want
    assert nodeaffinity.check(pod, labels, "n1") == (
        None if want else "node(s) didn't match Pod's node affinity/selector"
    )


def _ports(rng: random.Random) -> list[dict[str, Any]]:
    out = []
    for _ in range(rng.randint(0, 3)):
        port: dict[str, Any] = {"containerPort": 80, "hostPort": rng.choice([80, 443, 8080])}
        if rng.random() < 0.5:
            port["protocol"] = rng.choice(["TCP", "UDP"])
        if rng.random() < 0.5:
            port["hostIP"] = rng.choice(["0.0.0.0", "10.0.0.1", "10.0.0.2"])
        out.append(port)
    return out


def _conflict(a: dict[str, Any], b: dict[str, Any]) -> bool:
    if a["hostPort"] != b["hostPort"] or a.get("protocol", "TCP") != b.get("protocol", "TCP"):
        return False
    ip_a, ip_b = a.get("hostIP", "0.0.0.0"), b.get("hostIP", "0.0.0.0")
    return ip_a == ip_b or "0.0.0.0" in (ip_a, ip_b)


@pytest.mark.parametrize("seed", SEEDS, ids=[f"seed{s}" for s in SEEDS])
def test_generated_host_ports(seed: int) -> None:
    rng = random.Random(seed)
    wanted, used = _ports(rng), _ports(rng)

    def spec(ports: list[dict[str, Any]]) -> dict[str, Any]:
        return {"containers": [{"name": "c", "ports": ports}]}

    want = any(_conflict(w, u) for w in wanted for u in used)
    got = nodeports.check(_constraints(spec(wanted)).host_ports, _constraints(spec(used)).host_ports)
    assert got == ("node(s) didn't have free ports for the requested pod ports" if want else None)


RESOURCES = ["cpu", "memory", "ephemeral-storage", "nvidia.com/gpu", "example.com/fpga", "hugepages-2Mi"]


@pytest.mark.parametrize("seed", SEEDS, ids=[f"seed{s}" for s in SEEDS])
def test_generated_resources(seed: int) -> None:
    rng = random.Random(seed)
    requests = {r: rng.choice([0, 1000, 4000]) for r in RESOURCES if rng.random() < 0.6}
    free = {r: rng.choice([-1000, 0, 1000, 2000, 8000]) for r in RESOURCES if rng.random() < 0.8}
    free["pods"] = rng.choice([0, 1000, 5000])
    want = ["Too many pods"] if free["pods"] < 1000 else []
    names = ["cpu", "memory", "ephemeral-storage", *sorted(r for r in RESOURCES if "/" in r or "-2Mi" in r)]
    want.extend(
        f"Insufficient {name}" for name in names if requests.get(name, 0) > 0 and free.get(name, 0) < requests[name]
    )
    assert noderesources.check(requests, free) == want


@pytest.mark.parametrize("seed", SEEDS, ids=[f"seed{s}" for s in SEEDS])
def test_generated_topology_spread(seed: int) -> None:
    rng = random.Random(seed)
    domains = [f"z{i}" for i in range(rng.randint(0, 4))]
    counts = {d: rng.randint(0, 4) for d in domains}
    constraint = SpreadConstraint(rng.randint(1, 3), "zone", LabelSelector(), min_domains=rng.randint(1, 5))
    value = rng.choice([*domains, None])
    self_match = rng.random() < 0.7
    if value is None:
        want: str | None = "node(s) didn't match pod topology spread constraints (missing required label)"
    else:
        lowest = min(counts.values()) if len(counts) >= constraint.min_domains else 0
        skew = counts[value] + (1 if self_match else 0) - lowest
        want = "node(s) didn't match pod topology spread constraints" if skew > constraint.max_skew else None
    assert podtopologyspread.check(constraint, value, counts, self_match) == want
