"""Causes in kube-scheduler's filter order, and free capacity counted on the nodes a pod may use.

Three kinds of checks: the rack of issue 33 (one node cordoned, one NotReady)
whose free GPUs are 16, not 32; a cluster whose every node a taint, a cordon
or the node selector turns away, where no resource may be blamed; and a
seeded property test comparing ``stages`` with a first-rejecting-filter rule
written here node by node, and with kube-scheduler's FitError line.
"""

from __future__ import annotations

import io
import random
from collections import Counter
from typing import Any

import numpy as np
import pytest
import yaml
from placement_helpers import cluster, node, pod_group, request

from workloadbuilder.cli.app import main
from workloadbuilder.placement import Cluster, Pods, place
from workloadbuilder.placement.explain.fiterror import fit_error
from workloadbuilder.placement.explain.stages import stages, taint_text, usable_mask
from workloadbuilder.placement.framework.snapshot import Snapshot
from workloadbuilder.placement.k8s.constraints import Taint
from workloadbuilder.placement.planning.capacity import capacity

NOT_READY = {"key": "node.kubernetes.io/not-ready", "effect": "NoExecute"}
GPU_TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}


def _rack() -> Cluster:
    """8 GPU nodes of 8 GPUs in one rack: gpu-0 cordoned, gpu-1 NotReady (its lifecycle taint)."""
    nodes = [node(f"gpu-{i}", 8, rack="r1") for i in range(8)]
    nodes[0]["unschedulable"] = True
    nodes[1]["taints"] = [NOT_READY]
    return cluster(*nodes)


def _four_whole_nodes() -> Any:
    return request([pod_group("train", 4)], {"train": (4, {"nvidia.com/gpu": "8"})})


# -- the rack: capacity left, stranded and what is unusable --------------------------------


def test_capacity_left_counts_only_the_nodes_its_pods_may_use() -> None:
    answer = place(_four_whole_nodes(), _rack())
    (group,) = answer.groups
    assert sorted(pod.node for pod in group.pods) == ["gpu-2", "gpu-3", "gpu-4", "gpu-5"]
    assert group.capacity_left == {"pods": "656", "nvidia.com/gpu": "16"}  # GPUs of gpu-6 and gpu-7, not 32
    assert group.to_dict()["unusable"] == {
        "nodes": 2,
        "reasons": {"cordoned": 1, "not ready": 1},
        "free": {"pods": "220", "nvidia.com/gpu": "16"},
    }


def test_capacity_stranded_leaves_out_the_not_ready_node() -> None:
    answer = capacity(request([pod_group("train", 1)], {"train": (1, {"nvidia.com/gpu": "8"})}), _rack())
    # six usable nodes hold six one-node copies; nothing usable is left, the two others are apart
    assert answer.copies == 6
    assert answer.stranded == {"nvidia.com/gpu": "0", "pods": "654"}
    assert answer.unusable == {
        "nodes": 2,
        "reasons": {"cordoned": 1, "not ready": 1},
        "free": {"nvidia.com/gpu": "16", "pods": "220"},
    }
    assert answer.text.splitlines()[-3:] == [
        "not usable by its pods (not in stranded): 2 nodes (1 cordoned, 1 not ready)",
        "  nvidia.com/gpu  16",
        "  pods            220",
    ]


def test_a_toleration_makes_a_tainted_node_usable_again() -> None:
    nodes = [node("a", 8), {**node("b", 8), "taints": [GPU_TAINT]}]
    template = {
        "spec": {
            "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"}],
            "containers": [{"name": "w", "resources": {"requests": {"nvidia.com/gpu": "1"}}}],
        }
    }
    tolerating = request([pod_group("w", 1)], {"w": Pods(1, template=template)})
    plain = request([pod_group("w", 1)], {"w": (1, {"nvidia.com/gpu": "1"})})
    assert place(tolerating, cluster(*nodes)).groups[0].capacity_left["nvidia.com/gpu"] == "15"
    untolerated = place(plain, cluster(*nodes)).groups[0]
    assert untolerated.capacity_left["nvidia.com/gpu"] == "7"
    assert untolerated.unusable["reasons"] == {"untolerated taint nvidia.com/gpu=present:NoSchedule": 1}


# -- every node turned away before NodeResourcesFit -------------------------------------------


def _turned_away() -> Cluster:
    """50 nodes: 34 with the GPU taint, 12 cordoned, 4 without the selected label; a third have 2 CPUs."""
    nodes = []
    for i in range(50):
        entry = node(f"n{i:02d}", 8, cpu="2" if i % 3 == 0 else "16", rack=f"r{i // 10}")
        if i < 34:
            entry["taints"] = [GPU_TAINT]
        elif i < 46:
            entry["unschedulable"] = True
        else:
            entry["labels"]["accelerator"] = "a100"
        nodes.append(entry)
    return cluster(*nodes)


def _selecting(count: int = 3) -> Any:
    template = {
        "spec": {
            "nodeSelector": {"accelerator": "h100"},
            "containers": [{"name": "w", "resources": {"requests": {"cpu": "8"}}}],
        }
    }
    return request([pod_group("sel", count)], {"sel": Pods(count, template=template)})


def test_no_resource_is_blamed_when_filters_turn_every_node_away() -> None:
    answer = place(_selecting(), _turned_away())
    (root,) = answer.explanation["roots"]
    assert root["text"] == [
        "`sel` cannot be placed",
        "`sel` pod `sel-0`: 0/50 nodes are available: 12 node(s) were unschedulable, "
        "34 node(s) had untolerated taint(s), 4 node(s) didn't match Pod's node affinity/selector.",
        "`sel` pod `sel-1`: pod group is unschedulable, 0/1 placements are available, "
        "first placement status: minCount (3) cannot be satisfied: 0 scheduled, 2 remaining",
        "`sel`: the cluster fits 0 of 3 pods",
        "`sel`: 12 of 50 nodes are cordoned",
        "`sel`: 34 of 50 nodes have a taint its pods do not tolerate: nvidia.com/gpu=present:NoSchedule on 34 nodes",
        "`sel`: 4 of 50 nodes do not match its node selector or affinity: "
        "nodeSelector accelerator=h100 not matched by 4 of 4 nodes",
        "preemption cannot help: nothing of lower priority runs",
    ]
    assert [entry["resource"] for entry in root["resources"]] == ["unschedulable"]  # cpu is never blamed
    assert [(f["filter"], f["nodes"], f["causes"]) for f in root["filters"]] == [
        ("NodeUnschedulable", 12, []),
        ("TaintToleration", 34, [{"cause": "nvidia.com/gpu=present:NoSchedule", "nodes": 34}]),
        ("NodeAffinity", 4, [{"cause": "nodeSelector accelerator=h100", "nodes": 4}]),
    ]
    assert not any("rules out the most" in line or "without room" in line for line in answer.text.splitlines())


def test_a_required_affinity_term_no_node_matches_is_named() -> None:
    template = {
        "spec": {
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {"matchExpressions": [{"key": "gpu", "operator": "In", "values": ["h100", "b200"]}]}
                        ]
                    }
                }
            },
            "containers": [{"name": "w", "resources": {"requests": {"cpu": "1"}}}],
        }
    }
    nodes = [node("a", 8, gpu="a100"), node("b", 8)]
    (root,) = place(request([pod_group("w", 1)], {"w": Pods(1, template=template)}), cluster(*nodes)).explanation[
        "roots"
    ]
    assert root["filters"][0]["causes"] == [{"cause": "node affinity term gpu In (h100, b200)", "nodes": 2}]
    assert root["filters"][0]["text"] == (
        "`w`: 2 of 2 nodes do not match its node selector or affinity: "
        "node affinity term gpu In (h100, b200) not matched by 2 of 2 nodes"
    )


def test_shortfalls_count_only_nodes_that_pass_the_earlier_filters() -> None:
    # 4 nodes of 1 GPU (short) but tainted, 2 of 1 GPU untainted (short), 2 of 8 GPUs (room)
    nodes = [{**node(f"t{i}", 1), "taints": [GPU_TAINT]} for i in range(4)]
    nodes += [node("s0", 1), node("s1", 1), node("ok0", 8), node("ok1", 8)]
    (root,) = place(request([pod_group("w", 5)], {"w": (5, {"nvidia.com/gpu": "4"})}), cluster(*nodes)).explanation[
        "roots"
    ]
    gpu = next(entry for entry in root["resources"] if entry["resource"] == "nvidia.com/gpu")
    assert (gpu["nodes"], gpu["passed"], gpu["of"]) == (2, 4, 8)
    assert (
        "`w`: nvidia.com/gpu rules out the most nodes (2 of the 4 nodes the earlier filters pass lack room for one pod)"
        in (root["text"])
    )


# -- the property: stages attribute each node to its first rejecting filter ---------------------


def _first_rejecting(spec: dict[str, Any], pod: dict[str, Any]) -> str | None:
    """The rule, node by node, from the framework's filter order: the first filter that says no."""
    if spec.get("unschedulable") and not pod["tolerates_cordon"]:
        return "NodeUnschedulable"
    if pod["node_name"] is not None and spec["name"] != pod["node_name"]:
        return "NodeName"
    for taint in spec.get("taints", []):
        if taint["effect"] in ("NoSchedule", "NoExecute") and taint["key"] not in pod["tolerated"]:
            return "TaintToleration"
    labels = spec["labels"]
    if any(labels.get(key) != value for key, value in pod["selector"].items()):
        return "NodeAffinity"
    return None


def _first_taint(spec: dict[str, Any], pod: dict[str, Any]) -> str:
    for taint in spec.get("taints", []):
        if taint["effect"] in ("NoSchedule", "NoExecute") and taint["key"] not in pod["tolerated"]:
            return taint_text(Taint(taint["key"], taint.get("value", ""), taint["effect"]))
    raise AssertionError("no untolerated taint")


_TAINTS = [
    {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"},
    {"key": "dedicated", "value": "infer", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/not-ready", "effect": "NoExecute"},
    {"key": "spot", "value": "true", "effect": "PreferNoSchedule"},  # never filters
]


def _seeded(seed: int) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    rng = random.Random(seed)
    specs = []
    for i in range(rng.randint(1, 24)):
        spec = node(f"n{i}", rng.choice([0, 1, 4, 8]), cpu=rng.choice(["1", "8", "32"]), pool=rng.choice("ab"))
        if rng.random() < 0.2:
            spec["unschedulable"] = True
        spec["taints"] = rng.sample(_TAINTS, rng.choice([0, 0, 1, 2]))
        specs.append(spec)
    pod = {
        "tolerated": set(rng.sample(["nvidia.com/gpu", "dedicated"], rng.randint(0, 2))),
        "tolerates_cordon": rng.random() < 0.1,
        "selector": {"pool": rng.choice("ab")} if rng.random() < 0.5 else {},
        "node_name": rng.choice([None, None, None, "n0"]),
        "requests": {"nvidia.com/gpu": str(rng.choice([1, 4, 8])), "cpu": rng.choice(["1", "8"])},
    }
    return specs, pod


def _template(pod: dict[str, Any]) -> dict[str, Any]:
    tolerations = [{"key": key, "operator": "Exists"} for key in sorted(pod["tolerated"])]
    if pod["tolerates_cordon"]:
        tolerations.append({"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"})
    spec: dict[str, Any] = {
        "tolerations": tolerations,
        "containers": [{"name": "w", "resources": {"requests": pod["requests"]}}],
    }
    if pod["selector"]:
        spec["nodeSelector"] = pod["selector"]
    if pod["node_name"] is not None:
        spec["nodeName"] = pod["node_name"]
    return {"spec": spec}


@pytest.mark.parametrize("seed", range(120), ids=[f"seed-{seed}" for seed in range(120)])
def test_each_node_counts_under_its_first_rejecting_filter(seed: int) -> None:
    specs, pod = _seeded(seed)
    cl = cluster(*specs)
    req = request([pod_group("g", 2)], {"g": Pods(2, template=_template(pod))})
    (group,) = req.groups
    snap = Snapshot(cl)
    (pod_set,) = group.pod_sets
    shape = snap.shape(dict(pod_set.requests), pod_set.constraints)
    counted = stages(snap, shape)

    expected = Counter(_first_rejecting(spec, pod) for spec in specs)
    expected.pop(None, None)
    assert {entry.filter: entry.nodes for entry in counted.filters} == dict(expected)
    taints = Counter(_first_taint(s, pod) for s in specs if _first_rejecting(s, pod) == "TaintToleration")
    by_filter = {entry.filter: dict(entry.causes) for entry in counted.filters}
    assert by_filter.get("TaintToleration", {}) == dict(taints)
    reached = [_first_rejecting(spec, pod) is None for spec in specs]
    assert counted.reached.tolist() == reached
    usable = usable_mask(cl, [pod_set.constraints], np.arange(len(specs), dtype=np.int64))
    assert usable.tolist() == reached  # no host ports here: usable is what reaches NodeResourcesFit

    # kube-scheduler's own line counts the same nodes under the same plugins
    line = fit_error(snap, shape)
    words = {
        "NodeUnschedulable": "node(s) were unschedulable",
        "NodeName": "node(s) didn't match the requested node name",
        "TaintToleration": "node(s) had untolerated taint(s)",
        "NodeAffinity": "node(s) didn't match Pod's node affinity/selector",
    }
    if line is not None:
        for name, n in expected.items():
            assert f"{n} {words[name]}" in line, (line, expected)

    # and the explanation blames a resource only for nodes that reached NodeResourcesFit
    answer = place(req, cl)
    (root,) = answer.explanation["roots"]
    gpu = int(pod["requests"]["nvidia.com/gpu"])
    cpu = int(pod["requests"]["cpu"])
    for entry in root["resources"]:
        if entry["resource"] == "unschedulable":
            assert entry["nodes"] == expected["NodeUnschedulable"]
            continue
        need = gpu if entry["resource"] == "nvidia.com/gpu" else cpu
        column = "nvidia.com/gpu" if entry["resource"] == "nvidia.com/gpu" else "cpu"
        short = sum(
            1 for spec, ok in zip(specs, reached, strict=True) if ok and int(spec["allocatable"][column]) < need
        )
        assert (entry["nodes"], entry["passed"]) == (short, sum(reached))
    if not any(reached) and not answer.feasible:
        assert all(entry["resource"] == "unschedulable" for entry in root["resources"])


def test_place_text_shows_capacity_left_and_the_unusable_nodes_apart(tmp_path) -> None:
    nodes = [node(f"gpu-{i}", 8, rack="r1") for i in range(8)]
    nodes[0]["unschedulable"] = True
    nodes[1]["taints"] = [NOT_READY]
    (tmp_path / "rack.yaml").write_text(yaml.safe_dump({"nodes": nodes}))
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "train"},
        "spec": {
            "parallelism": 4,
            "completions": 4,
            "template": {
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [{"name": "w", "image": "x", "resources": {"limits": {"nvidia.com/gpu": "8"}}}],
                }
            },
        },
    }
    (tmp_path / "job.yaml").write_text(yaml.safe_dump(job))
    out = io.StringIO()
    err = io.StringIO()
    code = main(["place", str(tmp_path / "job.yaml"), "--cluster", str(tmp_path / "rack.yaml")], stdout=out, stderr=err)
    lines = out.getvalue().splitlines()
    assert code == 0
    assert lines[5:7] == [
        "    capacity left in the cluster: pods 656, nvidia.com/gpu 16",
        "    not usable by its pods in the cluster: 2 nodes (1 cordoned, 1 not ready),"
        " with pods 220, nvidia.com/gpu 16 free",
    ]
