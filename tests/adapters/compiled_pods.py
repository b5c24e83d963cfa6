"""What the pod-shape tests read of a compiled plan: each pod assignment's controller group and its template.

``tests/adapters/test_upstream_pods.py`` (expectations from the controllers' rules) and
``tests/adapters/test_controllers_recorded.py`` (the controllers' own Go rendering) compare the same two
things of a ``Compiled`` plan: which controller group a ``PodAssignment`` belongs to, by the labels its
selector carries, and the pod template its pods are made from.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def group_key(selector: Mapping[str, str]) -> str:
    """The controller group of a pod assignment, by its selector's labels: a ReplicatedJob, an LWS role, a task."""
    if "jobset.sigs.k8s.io/replicatedjob-name" in selector:
        return f"replicatedJob {selector['jobset.sigs.k8s.io/replicatedjob-name']}"
    if "leaderworkerset.sigs.k8s.io/worker-index" in selector:
        return "leader" if selector["leaderworkerset.sigs.k8s.io/worker-index"] == "0" else "worker"
    if "volcano.sh/task-spec" in selector:
        return f"task {selector['volcano.sh/task-spec']}"
    return "job"


def pod_template(compiled: Any, pods: Any) -> Any:
    """The pod template of an assignment: its own (rendered) one, else the one at its stamp path in the source."""
    if pods.pod_template is not None:
        return pods.pod_template
    node: Any = compiled.source
    for part in pods.stamp_path.replace("]", "").replace("[", ".").split("."):
        node = node[int(part)] if part.isdigit() else node[part]
    return node
