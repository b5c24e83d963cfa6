"""Bring-your-own PodGroups: pod templates that already name a PodGroup, as the Job adapter's ``manageNone`` mode.

A user who makes the Workload and its PodGroups by hand (JobSet's
Workload-Aware Scheduling tutorial does) writes the PodGroup's name into a
pod template's ``spec.schedulingGroup.podGroupName``; the controller then
makes no scheduling object for those pods and passes the stamp through.
``bring_your_own`` turns such templates into pod assignments to the named
PodGroups, reads those PodGroups from the related objects (so they are
checked and placed with the plan), and warns where the hand-made group
cannot fill: a gang waiting for more pods than name it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from workloadbuilder import ErrorList, FieldPath
from workloadbuilder.adapters._shared.blocks import lossy
from workloadbuilder.adapters._shared.reading import at
from workloadbuilder.adapters.base import PodAssignment, as_dict
from workloadbuilder.adapters.kit import forbidden, go_quote, required

__all__ = ["Member", "OwnGroups", "bring_your_own", "named_pod_group"]


def _group_path(template: FieldPath) -> FieldPath:
    return template.child("spec", "schedulingGroup")


def named_pod_group(obj: Mapping[str, Any], template: FieldPath) -> Any:
    """The pod template's ``spec.schedulingGroup`` as written (``None`` when unset)."""
    return at(obj, _group_path(template).elements())


@dataclass(frozen=True)
class Member:
    """Pods a controller makes from one pod template.

    Attributes:
        template: the pod template's path in the object.
        selector: the controller's labels that pick these pods.
        count: how many pods it makes from the template.
    """

    template: FieldPath
    selector: Mapping[str, str]
    count: int


@dataclass
class OwnGroups:
    """What ``bring_your_own`` found: assignments, the PodGroups read, and problems."""

    pods: list[PodAssignment]
    uses: list[str]
    errors: ErrorList
    warnings: ErrorList


def bring_your_own(
    obj: Mapping[str, Any],
    members: Sequence[Member],
    namespace: str,
    related: Sequence[Mapping[str, Any] | BaseModel],
    controller: str,
) -> OwnGroups:
    """Assign the members' pods to the PodGroups their templates name, checked against those PodGroups.

    Args:
        obj: the controller's object.
        members: the pod templates that set ``spec.schedulingGroup``.
        namespace: the object's namespace (a PodGroup is namespaced).
        related: the other objects of the input, where the PodGroups are looked up.
        controller: the controller's name, for messages ("the JobSet controller").
    """
    found = OwnGroups([], [], ErrorList(), ErrorList())
    counts: dict[str, int] = {}
    first_path: dict[str, FieldPath] = {}  # where each PodGroup is first named, for the warnings about it
    for member in members:
        path = _group_path(member.template).child("podGroupName")
        name = at(obj, path.elements())
        if not isinstance(name, str) or not name:
            if name is None or name == "":
                found.errors.append(required(path, "the pods must name the PodGroup they join"))
            continue  # a wrong type is a schema error
        counts[name] = counts.get(name, 0) + member.count
        first_path.setdefault(name, path)
        found.pods.append(PodAssignment(name, dict(member.selector), member.count, str(member.template), ""))
        found.warnings.append(
            forbidden(
                path,
                f"the pods join the PodGroup {go_quote(name)} the user made: {controller} makes no Workload and no "
                "PodGroup for them",
            )
        )
    groups = _pod_groups(related, namespace)
    for name, count in counts.items():
        group, path = groups.get(name), first_path[name]
        if group is None:
            found.warnings.append(
                lossy(path, name, "is not in the input: give the PodGroup to check and place the pods with it")
            )
            continue
        found.uses.append(f"PodGroup/{name}")
        need = at(group, ("spec", "schedulingPolicy", "gang", "minCount"))
        if isinstance(need, int) and not isinstance(need, bool) and need > count:
            found.warnings.append(
                lossy(
                    path,
                    name,
                    f"the PodGroup's gang waits for {need} pods and {count} of this object's pods name it: "
                    "it fills only if other pods join it",
                )
            )
    return found


def _pod_groups(related: Sequence[Mapping[str, Any] | BaseModel], namespace: str) -> dict[str, dict[str, Any]]:
    """The ``scheduling.k8s.io`` PodGroups among related objects, by name, in the object's namespace."""
    out: dict[str, dict[str, Any]] = {}
    for obj in related:
        data = as_dict(obj)
        if data.get("kind") != "PodGroup" or not str(data.get("apiVersion", "")).startswith("scheduling.k8s.io/"):
            continue
        name = at(data, ("metadata", "name"))
        theirs = at(data, ("metadata", "namespace")) or ""
        if isinstance(name, str) and (not namespace or not theirs or theirs == namespace):
            out.setdefault(name, data)
    return out
