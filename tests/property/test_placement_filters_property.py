"""Property: no answer places a pod on a node one of kube-scheduler's filters rejects.

Random small clusters (taints of every effect, cordons, labels, running
pods holding host ports) and random gangs of one or two pod shapes
(tolerations, a node selector, a host port, anti-affinity, a zone spread
constraint); for both strategies, every
placed pod's node passes the pod-and-node filters for that pod's own shape,
the independent checker finds nothing wrong, and no two pods binding the
same host port share a node.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workloadbuilder.placement import Cluster, PlacementRequest, Pods, place, verify

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
TAINT_KEYS = ("nvidia.com/gpu", "dedicated", "node.kubernetes.io/not-ready")
EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


@st.composite
def clusters(draw: st.DrawFn) -> Cluster:
    nodes = []
    running = []
    for i in range(draw(st.integers(1, 8))):
        taints = [
            {
                "key": draw(st.sampled_from(TAINT_KEYS)),
                "value": draw(st.sampled_from(["", "a"])),
                "effect": draw(st.sampled_from(EFFECTS)),
            }
            for _ in range(draw(st.integers(0, 2)))
        ]
        nodes.append(
            {
                "name": f"n{i}",
                "labels": {
                    "pool": draw(st.sampled_from(["x", "y"])),
                    "kubernetes.io/hostname": f"n{i}",
                    "topology.kubernetes.io/zone": draw(st.sampled_from(["z1", "z2", "z3"])),
                },
                "allocatable": {"cpu": str(draw(st.integers(1, 6))), "memory": "16Gi", "pods": "110"},
                "taints": taints,
                "unschedulable": draw(st.booleans()),
            }
        )
        if draw(st.booleans()):
            running.append(
                {"name": f"web-{i}", "kind": "Pod", "node": f"n{i}", "requests": {"cpu": "1"}, "hostPorts": [80]}
            )
    return Cluster.from_yaml({"nodes": nodes, "running": running})


@st.composite
def pod_specs(draw: st.DrawFn) -> dict[str, Any]:
    tolerations = [
        {
            "key": draw(st.sampled_from(("", *TAINT_KEYS))),
            "operator": "Exists",
            "effect": draw(st.sampled_from(("", *EFFECTS))),
        }
        for _ in range(draw(st.integers(0, 2)))
    ]
    if draw(st.booleans()):
        tolerations.append({"key": "node.kubernetes.io/unschedulable", "operator": "Exists"})
    container: dict[str, Any] = {"name": "m", "resources": {"requests": {"cpu": str(draw(st.integers(1, 3)))}}}
    if draw(st.booleans()):
        container["ports"] = [{"containerPort": 80, "hostPort": 80}]
    spec: dict[str, Any] = {"tolerations": tolerations, "containers": [container]}
    if draw(st.booleans()):
        spec["nodeSelector"] = {"pool": draw(st.sampled_from(["x", "y"]))}
    selector = {"matchLabels": {"app": "w"}}
    if draw(st.booleans()):
        key = draw(st.sampled_from(["kubernetes.io/hostname", "topology.kubernetes.io/zone"]))
        spec["affinity"] = {
            "podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": key, "labelSelector": selector}]
            }
        }
    if draw(st.booleans()):
        spec["topologySpreadConstraints"] = [
            {
                "maxSkew": draw(st.integers(1, 2)),
                "topologyKey": "topology.kubernetes.io/zone",
                "whenUnsatisfiable": "DoNotSchedule",
                "labelSelector": selector,
            }
        ]
    return {"metadata": {"labels": {"app": "w"}}, "spec": spec}


@given(
    clusters(),
    st.lists(pod_specs(), min_size=1, max_size=2),
    st.integers(1, 4),
    st.sampled_from(["kube-scheduler", "complete"]),
)
@SETTINGS
def test_no_pod_lands_where_a_filter_rejects_it(
    cl: Cluster, specs: list[dict[str, Any]], count: int, strategy: str
) -> None:
    group = {"kind": "PodGroup", "metadata": {"name": "pg"}, "spec": {"schedulingPolicy": {"gang": {"minCount": 1}}}}
    req = PlacementRequest.from_groups([group], {"pg": [Pods(count, template=spec) for spec in specs]})
    answer = place(req, cl, strategy)
    assert [str(problem) for problem in verify(req, cl, answer)] == []
    (target,) = req.groups
    ports: dict[str, int] = {}
    for placed in answer.groups[0].pods:
        pod_set = target.set_of(target.pod_names.index(placed.name))
        assert cl.rejection(pod_set.constraints, cl.node_index[placed.node]) is None
        if pod_set.constraints.host_ports:
            ports[placed.node] = ports.get(placed.node, 0) + 1
    for running in cl.running_pods:
        if running.host_ports:
            ports[cl.names[running.node]] = ports.get(cl.names[running.node], 0) + 1
    assert all(held <= 1 for held in ports.values())
