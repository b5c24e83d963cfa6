"""Small builders for fixtures, after the Go tests' ``newWorkloadItem(name, withPath(...), withGang(n))``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kubernetes.client import V1OwnerReference

from workloadbuilder.field import FieldPath
from workloadbuilder.placement import Cluster
from workloadbuilder.types import (
    BuildOptions,
    DisruptionModeOption,
    PolicyInput,
    SchedulingPolicyOption,
    WorkloadInput,
    WorkloadItem,
)

__all__ = ["job_owner", "make_cluster", "make_item", "make_options"]


def job_owner(name: str = "job", uid: str = "job-uid") -> V1OwnerReference:
    """A ``batch/v1`` Job owner reference, the owner the Go tests use."""
    return V1OwnerReference(api_version="batch/v1", kind="Job", name=name, uid=uid)


def make_item(
    name: str,
    *,
    path: FieldPath | str | None = None,
    gang: int | None = None,
    input: WorkloadInput | None = None,
    children: Iterable[WorkloadItem | None] = (),
    **fields: Any,
) -> WorkloadItem:
    """A WorkloadItem; ``gang=N`` sets a leaf gang policy with ``minCount: N`` at ``schedulingPolicy``.

    Other keyword arguments (``default_config``, ``callbacks``) go to ``WorkloadItem`` as they are.
    """
    given = input if input is not None else WorkloadInput()
    if gang is not None:
        policy = PolicyInput(pod_group_data={"gang": {"minCount": gang}}, path_elements=["schedulingPolicy"])
        given = given.model_copy(update={"policy": policy})
    item_path = FieldPath.parse(path) if isinstance(path, str) else path
    return WorkloadItem(name=name, path=item_path, input=given, children=list(children), **fields)


def make_options(**tweaks: Any) -> BuildOptions:
    """BuildOptions allowing every policy and mode, owned by ``job_owner()``, named ``wl`` in ``ns``; tweak any
    field.
    """
    values: dict[str, Any] = {
        "name": "wl",
        "namespace": "ns",
        "owner": job_owner(),
        "allowed_policies": list(SchedulingPolicyOption),
        "allowed_disruption_modes": list(DisruptionModeOption),
    }
    values.update(tweaks)
    return BuildOptions(**values)


def make_cluster(nodes: int = 64, *, seed: int = 0, **shape: Any) -> Cluster:
    """A generated zone → block → rack → host cluster (``Cluster.generate``), small by default.

    ``shape`` takes ``Cluster.generate``'s keywords: ``hosts_per_rack``,
    ``racks_per_block``, ``blocks_per_zone``, ``allocatable``,
    ``used_fraction``, ``running_groups``, ``keys``.
    """
    return Cluster.generate(nodes, seed=seed, **shape)
