"""A TrainJob's pod templates as Kubeflow Trainer renders them: the runtime's templates with the TrainJob's trainer.

Ported from kubeflow/trainer at commit ``8c0f5059`` (2026-08-21), the
revision whose examples ``tests/data/upstream/trainer`` holds:

* ``pkg/runtime/core/trainingruntime.go`` (``newRuntimeInfo``): when the
  TrainJob sets ``spec.trainer.resourcesPerNode``, it is merged into the
  first container named ``node`` of every ReplicatedJob labelled
  ``trainer.kubeflow.org/trainjob-ancestor-step: trainer`` (only when the
  runtime has an ``mlPolicy``), and of the ReplicatedJob named ``node`` when
  ``mlPolicy.mpi.runLauncherAsNode`` is true. The merge is the strategic
  merge of ``pkg/util/trainingruntime.MergeResourceRequirements``:
  ``requests`` and ``limits`` key by key (the TrainJob's value wins, the
  runtime's other keys stay) and ``claims`` by ``name``.
* ``pkg/runtime/framework/plugins/jobset/builder.go`` (``Builder.Trainer``):
  the TrainJob's ``image``, ``command`` and ``args`` replace the runtime's
  on the ``node`` container of the trainer step; its ``env`` is upserted by
  name (``pkg/apply.UpsertEnvVars``: a variable of the same name is
  replaced in place, a new one appended) on the ``node`` container of the
  trainer step and, with ``runLauncherAsNode``, of the ``node``
  ReplicatedJob.

What the ML plugins add on top (the ``PET_*`` and OpenMPI variables, the
MPI SSH and hostfile volumes, Flux's installer init container and wrapped
command, torchtune's extra arguments) is not rendered: none of it changes
what a pod requests. ``numProcPerNode`` only feeds those variables, so it
is a ``lossy`` warning (``adapters.trainer.adapter``), as is a ``resourcesPerNode`` that
Trainer drops because no container would receive it.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from workloadbuilder import ErrorList, FieldPath
from workloadbuilder.adapters._shared.reading import at
from workloadbuilder.adapters.kit import OMIT_VALUE, invalid

__all__ = [
    "NODE_CONTAINER",
    "REQUIRED_CONTAINERS",
    "TRAINER_REVISION",
    "ancestor_container_errors",
    "merge_resources",
    "render_pod_template",
    "resources_target",
]

TRAINER_REVISION = "8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3"
"""The kubeflow/trainer commit whose rendering rules this module follows."""

NODE_CONTAINER = "node"
"""The container Trainer overlays the TrainJob's trainer on (``constants.Node``)."""

ANCESTOR_LABEL = "trainer.kubeflow.org/trainjob-ancestor-step"

REQUIRED_CONTAINERS = {
    "trainer": NODE_CONTAINER,
    "dataset-initializer": "dataset-initializer",
    "model-initializer": "model-initializer",
}
"""The container each step of a runtime must have, by its ancestor label (the runtime webhook's rule)."""


def _run_launcher_as_node(runtime: Mapping[str, Any]) -> bool:
    return at(runtime, ("spec", "mlPolicy", "mpi", "runLauncherAsNode")) is True


def _is_trainer_step(runtime: Mapping[str, Any], rjob_path: tuple[Any, ...]) -> bool:
    label: object = at(runtime, (*rjob_path, "template", "metadata", "labels", ANCESTOR_LABEL))
    return label == "trainer"


def resources_target(runtime: Mapping[str, Any], rjob_path: tuple[Any, ...], rjob_name: str) -> bool:
    """Whether Trainer merges ``resourcesPerNode`` into this ReplicatedJob's ``node`` container.

    The trainer step of a runtime with an ``mlPolicy``, or the ``node``
    ReplicatedJob of an MPI runtime whose launcher runs as a node.
    """
    has_policy = at(runtime, ("spec", "mlPolicy")) is not None
    if _is_trainer_step(runtime, rjob_path) and has_policy:
        return True
    return _run_launcher_as_node(runtime) and rjob_name == NODE_CONTAINER


def _env_target(runtime: Mapping[str, Any], rjob_path: tuple[Any, ...], rjob_name: str) -> bool:
    """Where the TrainJob's ``env`` goes: the trainer step, or MPI's ``node`` with the launcher as a node."""
    if _is_trainer_step(runtime, rjob_path):
        return True
    return _run_launcher_as_node(runtime) and rjob_name == NODE_CONTAINER


def _merged_map(base: Any, override: Any) -> Any:
    """``requests`` or ``limits``: the runtime's keys, each replaced or joined by the TrainJob's."""
    if not isinstance(override, Mapping) or not override:
        return base
    merged = dict(base) if isinstance(base, Mapping) else {}
    merged.update(override)
    return merged


def _merged_claims(base: Any, override: Any) -> Any:
    """``claims`` merged by ``name``: a claim of the same name is replaced in place, a new one appended."""
    if not isinstance(override, list) or not override:
        return base
    merged = [dict(c) if isinstance(c, Mapping) else c for c in base] if isinstance(base, list) else []
    for claim in override:
        name = claim.get("name") if isinstance(claim, Mapping) else None
        position = next(
            (
                i
                for i, old in enumerate(merged)
                if isinstance(old, Mapping) and name is not None and old.get("name") == name
            ),
            None,
        )
        if position is None:
            merged.append(copy.deepcopy(claim))
        else:
            merged[position] = {**merged[position], **claim}
    return merged


def merge_resources(base: Any, override: Mapping[str, Any]) -> dict[str, Any]:
    """The runtime container's ``resources`` with the TrainJob's ``resourcesPerNode`` merged in.

    Args:
        base: the container's ``resources`` (``None`` or not a mapping counts as empty).
        override: ``spec.trainer.resourcesPerNode``.
    """
    out = {key: copy.deepcopy(value) for key, value in base.items()} if isinstance(base, Mapping) else {}
    for key in ("requests", "limits"):
        value = _merged_map(out.get(key), override.get(key))
        if value is not None:
            out[key] = value
    claims = _merged_claims(out.get("claims"), override.get("claims"))
    if claims is not None:
        out["claims"] = claims
    return out


def _upsert_env(base: Any, additions: list[Any]) -> list[Any]:
    """``UpsertEnvVars``: each variable replaces the one of its name where it is, or is appended."""
    env = list(base) if isinstance(base, list) else []
    for var in additions:
        if not isinstance(var, Mapping):
            continue
        position = next(
            (i for i, old in enumerate(env) if isinstance(old, Mapping) and old.get("name") == var.get("name")), None
        )
        if position is None:
            env.append(copy.deepcopy(var))
        else:
            env[position] = copy.deepcopy(var)
    return env


def _node_containers(template: Mapping[str, Any]) -> list[dict[str, Any]]:
    containers = at(template, ("spec", "containers"))
    if not isinstance(containers, list):
        return []
    return [c for c in containers if isinstance(c, dict) and c.get("name") == NODE_CONTAINER]


def render_pod_template(
    runtime: Mapping[str, Any], rjob_path: tuple[Any, ...], rjob_name: str, trainer: Mapping[str, Any]
) -> Mapping[str, Any] | None:
    """One ReplicatedJob's pod template as the TrainJob's JobSet will hold it.

    Args:
        runtime: the TrainingRuntime or ClusterTrainingRuntime (not changed).
        rjob_path: the ReplicatedJob's path elements inside the runtime.
        rjob_name: its ``name``.
        trainer: the TrainJob's ``spec.trainer`` (empty when it sets none).

    Returns the runtime's template itself when nothing of the TrainJob
    applies to it, a changed copy otherwise, ``None`` when there is none.
    """
    template = at(runtime, (*rjob_path, "template", "spec", "template"))
    if not isinstance(template, Mapping):
        return None
    resources = trainer.get("resourcesPerNode")
    overlay_resources = isinstance(resources, Mapping) and resources_target(runtime, rjob_path, rjob_name)
    overlay_container = _is_trainer_step(runtime, rjob_path) and any(
        isinstance(trainer.get(key), str if key == "image" else list) for key in ("image", "command", "args")
    )
    env = trainer.get("env")
    overlay_env = isinstance(env, list) and bool(env) and _env_target(runtime, rjob_path, rjob_name)
    if not (overlay_resources or overlay_container or overlay_env):
        return template
    rendered = copy.deepcopy(dict(template))
    nodes = _node_containers(rendered)
    if overlay_resources and nodes:
        assert isinstance(resources, Mapping)
        nodes[0]["resources"] = merge_resources(nodes[0].get("resources"), resources)
    for container in nodes:
        if overlay_container:
            if isinstance(trainer.get("image"), str):
                container["image"] = trainer["image"]
            for key in ("command", "args"):
                if isinstance(trainer.get(key), list):
                    container[key] = list(trainer[key])
        if overlay_env:
            assert isinstance(env, list)
            container["env"] = _upsert_env(container.get("env"), env)
    return rendered


_REPLICATED_JOBS = ("spec", "template", "spec", "replicatedJobs")


def ancestor_container_errors(runtime: Mapping[str, Any]) -> ErrorList:
    """The runtime webhook's rule: a step labelled as an ancestor has the container its step needs.

    The trainer step (``trainjob-ancestor-step: trainer``) needs a container
    named ``node``, each initializer one named as the step; the error is at
    the step's ``containers``, in the webhook's words. Another kind has none.

    Examples:
        >>> runtime = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "ClusterTrainingRuntime",
        ...            "spec": {"template": {"spec": {"replicatedJobs": [{"name": "node", "template": {
        ...                "metadata": {"labels": {ANCESTOR_LABEL: "trainer"}},
        ...                "spec": {"template": {"spec": {"containers": [{"name": "trainer"}]}}}}}]}}}}
        >>> print(ancestor_container_errors(runtime)[0].detail)
        must contain the required container for the ancestor: node
    """
    errors = ErrorList()
    if runtime.get("kind") not in ("TrainingRuntime", "ClusterTrainingRuntime"):
        return errors
    if not str(runtime.get("apiVersion") or "").startswith("trainer.kubeflow.org/"):
        return errors
    rjobs = at(runtime, _REPLICATED_JOBS)
    for i, rjob in enumerate(rjobs if isinstance(rjobs, list) else []):
        ancestor = at(rjob, ("template", "metadata", "labels", ANCESTOR_LABEL))
        needed = REQUIRED_CONTAINERS.get(ancestor) if isinstance(ancestor, str) else None
        if needed is None:
            continue
        containers = at(rjob, ("template", "spec", "template", "spec", "containers"))
        listed = containers if isinstance(containers, list) else []
        if not any(isinstance(c, Mapping) and c.get("name") == needed for c in listed):
            path = FieldPath(*_REPLICATED_JOBS).index(i).child("template", "spec", "template", "spec", "containers")
            errors.append(invalid(path, OMIT_VALUE, f"must contain the required container for the ancestor: {needed}"))
    return errors
