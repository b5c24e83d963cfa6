"""Small builders of compiled objects as Kubernetes JSON, for the object-validation tests.

``workload(leaf("a"), leaf("b", gang=2))`` is a valid two-template Workload;
keyword arguments add or replace fields, so a test states only what it is
about. Every builder returns a fresh dict.
"""

from __future__ import annotations

import copy
from typing import Any

from workloadbuilder.validation.gates import FeatureGates

V1BETA1 = "scheduling.k8s.io/v1beta1"
V1ALPHA3 = "scheduling.k8s.io/v1alpha3"
ALL_GATES = FeatureGates.all()


def _policy(gang: int | None, count: str) -> dict[str, Any]:
    return {"gang": {count: gang}} if gang is not None else {"basic": {}}


def leaf(name: str = "worker", *, gang: int | None = None, **fields: Any) -> dict[str, Any]:
    """A PodGroupTemplate: basic unless ``gang`` gives a minCount."""
    return {"name": name, "schedulingPolicy": _policy(gang, "minCount"), **fields}


def composite(
    name: str,
    *children: dict[str, Any],
    gang: int | None = None,
    composites: list[dict[str, Any]] | None = None,
    **fields: Any,
) -> dict[str, Any]:
    """A CompositePodGroupTemplate with leaf ``children`` (and ``composites``)."""
    template: dict[str, Any] = {"name": name, "schedulingPolicy": _policy(gang, "minGroupCount"), **fields}
    if children:
        template["podGroupTemplates"] = list(children)
    if composites:
        template["compositePodGroupTemplates"] = composites
    return template


def workload(*templates: dict[str, Any], name: str = "train", **spec: Any) -> dict[str, Any]:
    """A Workload in ``ml`` whose ``podGroupTemplates`` are ``templates``; ``spec`` adds or replaces fields."""
    return _workload(name, {"podGroupTemplates": list(templates)} if templates else {}, spec)


def composite_workload(*templates: dict[str, Any], name: str = "train", **spec: Any) -> dict[str, Any]:
    """A Workload in ``ml`` whose ``compositePodGroupTemplates`` are ``templates``."""
    return _workload(name, {"compositePodGroupTemplates": list(templates)} if templates else {}, spec)


def _workload(name: str, body: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": V1BETA1,
        "kind": "Workload",
        "metadata": {"name": name, "namespace": "ml"},
        "spec": {**body, **spec},
    }


def pod_group(
    name: str = "train-worker-0", *, gang: int | None = None, template: str = "worker", **spec: Any
) -> dict[str, Any]:
    """A PodGroup made from template ``template`` of Workload ``train``."""
    body = {
        "workloadRef": {"workloadName": "train", "templateName": template},
        "schedulingPolicy": _policy(gang, "minCount"),
    }
    body.update(spec)
    return {"apiVersion": V1BETA1, "kind": "PodGroup", "metadata": {"name": name, "namespace": "ml"}, "spec": body}


def composite_pod_group(
    name: str = "train-replica-0", *, gang: int | None = None, template: str = "replica", **spec: Any
) -> dict[str, Any]:
    """A CompositePodGroup made from template ``template`` of Workload ``train``."""
    body = {
        "workloadRef": {"workloadName": "train", "templateName": template},
        "schedulingPolicy": _policy(gang, "minGroupCount"),
    }
    body.update(spec)
    return {
        "apiVersion": V1ALPHA3,
        "kind": "CompositePodGroup",
        "metadata": {"name": name, "namespace": "ml"},
        "spec": body,
    }


def changed(obj: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A deep copy of ``obj`` with the value at a dotted ``path`` (``spec.podGroupTemplates.0.name``) set;
    ``...`` deletes it."""
    out = copy.deepcopy(obj)
    *parents, last = [int(p) if p.isdigit() else p for p in path.split(".")]
    node: Any = out
    for part in parents:
        node = node[part]
    if value is ...:
        del node[last]
    else:
        node[last] = value
    return out


def strings(errors: Any) -> list[str]:
    """The errors as their Go strings."""
    return [str(err) for err in errors]


SHORT_NAME = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end "
    "with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
"""The DNS-label (``k8s-short-name``) message."""

LONG_NAME = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start "
    "and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
"""The DNS-subdomain (``k8s-long-name``) message."""

LABEL_KEY_3_PARTS = (
    "a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. "
    "'example.com/MyName')"
)
"""The label-key message for a key with two slashes."""
