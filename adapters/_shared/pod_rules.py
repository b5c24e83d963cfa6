"""The apiserver's pod rules for the pod templates inside controller objects, at the manifest's own paths.

A Job, a JobSet's replicated Jobs, a LeaderWorkerSet's leader and worker
templates, a Volcano Job's tasks and a Kubeflow Trainer runtime's JobSet all
end up as pods (through Jobs or StatefulSets) that the apiserver validates;
a manifest that breaks those rules is accepted by the controller's own CRD
and then fails later, where its author does not look. ``template_errors``
finds every pod template of an object by its kind and judges it here, with
the apiserver's wording, at the path inside the object the author wrote.

Ported from k8s.io/kubernetes **v1.37.2**
(``pkg/apis/core/validation/validation.go``: ``ValidatePodSpec``,
``ValidateVolumes``, ``validateContainers``, ``validateInitContainers``,
``validateContainerCommon``, ``validateContainerPorts``, ``ValidateEnv``,
``validateRestartPolicy``; ``pkg/apis/batch/validation/validation.go``:
a Job's pods restart ``OnFailure`` or ``Never``, only ``Never`` with a
``podFailurePolicy``; ``pkg/apis/apps/validation/validation.go``: a
StatefulSet's pods restart ``Always``), for the fields authors get wrong:

* names: ``serviceAccountName`` a DNS subdomain; containers, init
  containers and volumes DNS labels, required and unique (an init container
  may not reuse a container's name); ``hostname`` and ``subdomain`` DNS
  labels;
* ports: names of at most 15 characters with a letter and no ``--``,
  unique within the container; ``containerPort`` required, ports in 1-65535,
  protocol ``TCP``, ``UDP`` or ``SCTP``; no host port (with its protocol and
  host IP) taken twice among the containers, or within one init container;
* env var names: required, printable ASCII without ``=`` (the relaxed rule,
  locked on since 1.34);
* ``resources``: ``adapters._shared.pod_resources``;
* ``restartPolicy``: one of the three, then what the controller kind allows.

The object judged is the one the apiserver receives after the controller's
defaulting webhook (``adapters._shared.defaults``): a JobSet's Jobs restart
``OnFailure`` unless told otherwise, a Trainer runtime's JobSet too. A field
the apiserver defaults (a port's protocol, a pod's restart policy) is judged
only as given. A value of the wrong type is left to the schema check
(``adapters._shared.strict``). A TrainJob's ``runtimePatches`` are pieces merged into
the runtime's pods: their names and env names are judged, not what a whole
pod needs. Beside the pod rules, ``pod_template_errors`` runs the rules a
controller's own webhook adds, which the adapter owning that controller
passes in (Volcano's ``validateIO``, Trainer's required container per step):
this module knows no controller package. ``adapters.template_rules`` runs
every controller's rules, for an object whatever its kind.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from workloadbuilder import ErrorList, FieldPath
from workloadbuilder.adapters._shared.defaults import defaulted
from workloadbuilder.adapters._shared.pod_resources import resource_requirements_errors
from workloadbuilder.adapters._shared.reading import at as value_at
from workloadbuilder.adapters.kit import duplicate, go_quote, invalid, required
from workloadbuilder.field import not_supported, type_invalid
from workloadbuilder.validation.formats import CHARACTERS, is_dns1123_label, is_dns1123_subdomain

__all__ = [
    "KUBERNETES_REVISION",
    "ControllerRule",
    "PodTemplate",
    "Restart",
    "pod_spec_errors",
    "pod_spec_type_errors",
    "pod_template_errors",
    "pod_templates",
]

KUBERNETES_REVISION = "v1.37.2"
"""The k8s.io/kubernetes release whose pod validation this module follows."""

_POLICIES = ("Always", "OnFailure", "Never")
_JOB_POLICIES = ("OnFailure", "Never")
_PROTOCOLS = ("SCTP", "TCP", "UDP")
_PORT_NAME_MAX = 15


class Restart(enum.Enum):
    """Which restart policies the controller that makes the pods allows (beyond the pod's own three)."""

    JOB = "job"
    """A batch Job written as such: ``OnFailure`` or ``Never``; unset is the pod default ``Always``, refused."""
    JOBSET_JOB = "jobset-job"
    """A Job a JobSet makes: as ``JOB``, but JobSet's webhook sets an unset policy to ``OnFailure``."""
    STATEFUL_SET = "statefulset"
    """A StatefulSet's pods (a LeaderWorkerSet's): ``Always``, the default."""
    ANY = "any"
    """Pods made directly (Volcano's tasks): any of the three."""


@dataclass(frozen=True)
class PodTemplate:
    """One pod template inside an object: where it is, what makes its pods, and whether it is a piece of one.

    ``failure_policy`` is where the Job's ``podFailurePolicy`` would be (``None``: no Job around it).
    """

    path: FieldPath
    restart: Restart
    failure_policy: FieldPath | None = None
    partial: bool = False


def _jobset_templates(base: FieldPath, rjobs: Any, restart: Restart, partial: bool = False) -> Iterator[PodTemplate]:
    for i, _ in enumerate(rjobs if isinstance(rjobs, list) else []):
        job_spec = base.index(i).child("template", "spec")
        yield PodTemplate(job_spec.child("template"), restart, job_spec.child("podFailurePolicy"), partial)


def _list(obj: Any, path: FieldPath) -> Any:
    return value_at(obj, path.elements())


_RUNTIME_JOBS = FieldPath("spec", "template", "spec", "replicatedJobs")


def pod_templates(obj: Mapping[str, Any]) -> list[PodTemplate]:
    """Every pod template of a Job, JobSet, LeaderWorkerSet, Volcano Job, Trainer runtime or TrainJob's patches.

    An object of another kind has none here.
    """
    kind, api = obj.get("kind"), str(obj.get("apiVersion") or "")
    group = api.rpartition("/")[0]
    if (group, kind) == ("batch", "Job"):
        return [PodTemplate(FieldPath("spec", "template"), Restart.JOB, FieldPath("spec", "podFailurePolicy"))]
    if (group, kind) == ("jobset.x-k8s.io", "JobSet"):
        base = FieldPath("spec", "replicatedJobs")
        return list(_jobset_templates(base, _list(obj, base), Restart.JOBSET_JOB))
    if (group, kind) == ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"):
        lwt = FieldPath("spec", "leaderWorkerTemplate")
        names = [name for name in ("leaderTemplate", "workerTemplate") if _list(obj, lwt.child(name)) is not None]
        return [PodTemplate(lwt.child(name), Restart.STATEFUL_SET) for name in names]
    if (group, kind) == ("batch.volcano.sh", "Job"):
        tasks = _list(obj, FieldPath("spec", "tasks"))
        count = len(tasks) if isinstance(tasks, list) else 0
        return [PodTemplate(FieldPath("spec", "tasks").index(i).child("template"), Restart.ANY) for i in range(count)]
    if group == "trainer.kubeflow.org" and kind in ("TrainingRuntime", "ClusterTrainingRuntime"):
        return list(_jobset_templates(_RUNTIME_JOBS, _list(obj, _RUNTIME_JOBS), Restart.JOBSET_JOB))
    if group == "trainer.kubeflow.org" and kind == "TrainJob":
        patches = _list(obj, FieldPath("spec", "runtimePatches"))
        found: list[PodTemplate] = []
        for m, _ in enumerate(patches if isinstance(patches, list) else []):
            base = FieldPath("spec", "runtimePatches").index(m).child("trainingRuntimeSpec", "template", "spec")
            rjobs = _list(obj, base.child("replicatedJobs"))
            found += _jobset_templates(base.child("replicatedJobs"), rjobs, Restart.JOBSET_JOB, partial=True)
        return found
    return []


ControllerRule = Callable[[Mapping[str, Any]], ErrorList]
"""A controller webhook's own rule: the errors it finds in an object (after its defaults), none for another kind."""


def pod_template_errors(obj: Mapping[str, Any], controller_rules: Sequence[ControllerRule] = ()) -> ErrorList:
    """Every pod rule an object's pod templates break, then each of ``controller_rules``, in order.

    The rules are given the object as the controller's defaulting webhook
    leaves it, the same object the pod rules judge.

    Examples:
        >>> job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "a"}, "spec": {"template": {
        ...     "spec": {"serviceAccountName": "$K8S_SA_NAME", "restartPolicy": "Never",
        ...              "containers": [{"name": "main", "image": "busybox"}]}}}}
        >>> for error in pod_template_errors(job):
        ...     print(str(error)[:92])
        spec.template.spec.serviceAccountName: Invalid value: "$K8S_SA_NAME": a lowercase RFC 1123 s
    """
    seen = defaulted(obj)
    errors = ErrorList()
    for template in pod_templates(seen):
        spec = _list(seen, template.path.child("spec"))
        if isinstance(spec, Mapping):
            errors.extend(pod_spec_errors(spec, template.path.child("spec"), template.partial))
            errors.extend(_controller_restart(seen, spec, template))
    errors.extend(_trainer_env(seen))
    for rule in controller_rules:
        errors.extend(rule(seen))
    return errors


def _trainer_env(obj: Mapping[str, Any]) -> ErrorList:
    """A TrainJob's ``spec.trainer``: its env joins the ``node`` container's, its ``resourcesPerNode`` the node's."""
    if obj.get("kind") != "TrainJob" or not str(obj.get("apiVersion") or "").startswith("trainer.kubeflow.org/"):
        return ErrorList()
    trainer = _list(obj, FieldPath("spec", "trainer"))
    if not isinstance(trainer, Mapping):
        return ErrorList()
    base = FieldPath("spec", "trainer")
    errors = _env_errors(trainer.get("env"), base.child("env"))
    per_node = base.child("resourcesPerNode")
    compared = {str(per_node.child("requests")), str(per_node.child("limits")), str(per_node)}
    found = resource_requirements_errors(trainer.get("resourcesPerNode"), per_node, limits_elsewhere=True)
    errors.extend(error for error in found if error.field in compared)  # each amount is the TrainJob adapter's check
    return errors


def pod_spec_errors(spec: Mapping[str, Any], path: FieldPath, partial: bool = False) -> ErrorList:
    """The rules of ``ValidatePodSpec`` this module ports, in its order, for one pod spec at ``path``.

    ``partial``: a piece merged into a pod (a patch), so nothing is required and nothing must be unique.
    """
    errors = _volume_errors(spec.get("volumes"), path.child("volumes"), partial)
    containers = spec.get("containers")
    errors.extend(_container_errors(containers, path.child("containers"), partial))
    regular = [c.get("name") for c in containers if isinstance(c, Mapping)] if isinstance(containers, list) else []
    errors.extend(_init_container_errors(spec.get("initContainers"), path.child("initContainers"), regular, partial))
    policy = spec.get("restartPolicy")
    if isinstance(policy, str) and policy and policy not in _POLICIES:
        errors.append(not_supported(path.child("restartPolicy"), policy, _POLICIES))
    account = spec.get("serviceAccountName")
    if isinstance(account, str) and account:
        at = path.child("serviceAccountName")
        errors.extend(invalid(at, account, message) for message in is_dns1123_subdomain(account, CHARACTERS))
    for key in ("hostname", "subdomain"):
        value = spec.get(key)
        if isinstance(value, str) and value:
            errors.extend(invalid(path.child(key), value, message) for message in is_dns1123_label(value, CHARACTERS))
    return errors


_TYPED: dict[
    str, dict[str, type]
] = {  # the fields pod_spec_errors reads, by the type the schema gives them, for objects with no bundled schema
    "containers": {"name": str, "ports": list, "env": list},
    "initContainers": {"name": str, "ports": list, "env": list},
    "volumes": {"name": str},
}
_ENTRY_TYPED: dict[str, dict[str, type]] = {
    "ports": {"name": str, "containerPort": int, "hostPort": int, "protocol": str},
    "env": {"name": str},
}
_TYPE_NAMES = {str: "string", int: "integer", list: "array"}


def pod_spec_type_errors(spec: Mapping[str, Any], path: FieldPath) -> ErrorList:
    """A type error (the schema's words) at each field ``pod_spec_errors`` reads that holds another type.

    For a pod spec no bundled schema covers (a Pod's, a ReplicaSet's): the
    lists of containers, init containers and volumes, their names, ports and
    env entries.
    """
    errors = ErrorList()
    for key, fields in _TYPED.items():
        listed = spec.get(key)
        if listed is not None and not isinstance(listed, list):
            errors.append(type_invalid(path.child(key), listed, "must be of type array"))
            continue
        for i, item in enumerate(listed or []):
            errors.extend(_typed(item, path.child(key).index(i), fields))
    return errors


def _typed(item: Any, at: FieldPath, fields: Mapping[str, type]) -> ErrorList:
    if not isinstance(item, Mapping):
        return ErrorList([type_invalid(at, item, "must be of type object")])
    errors = ErrorList()
    for name, wanted in fields.items():
        value = item.get(name)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, wanted):
            errors.append(type_invalid(at.child(name), value, f"must be of type {_TYPE_NAMES[wanted]}"))
        elif isinstance(value, list):
            for j, entry in enumerate(value):
                errors.extend(_typed(entry, at.child(name).index(j), _ENTRY_TYPED[name]))
    return errors


def _items(listed: Any) -> Iterator[tuple[int, Mapping[str, Any]]]:
    for i, item in enumerate(listed if isinstance(listed, list) else []):
        if isinstance(item, Mapping):
            yield i, item


def _name_errors(item: Mapping[str, Any], at: FieldPath, partial: bool) -> ErrorList:
    """A name that must be a DNS label: required (unless ``partial``), and a label when given as a string."""
    name = item.get("name")
    if name is None or name == "":
        return ErrorList() if partial else ErrorList([required(at)])
    if not isinstance(name, str):
        return ErrorList()
    return ErrorList(invalid(at, name, message) for message in is_dns1123_label(name, CHARACTERS))


def _volume_errors(volumes: Any, path: FieldPath, partial: bool) -> ErrorList:
    """``ValidateVolumes``: each name a required DNS label, a repeat a ``Duplicate`` unless the volume had errors."""
    errors = ErrorList()
    names: set[str] = set()
    for i, volume in _items(volumes):
        at = path.index(i).child("name")
        own = _name_errors(volume, at, partial)
        name = volume.get("name")
        if not partial and isinstance(name, str) and name in names:
            own.append(duplicate(at, name))
        if not own and isinstance(name, str):
            names.add(name)
        errors.extend(own)
    return errors


def _container_errors(containers: Any, path: FieldPath, partial: bool) -> ErrorList:
    """``validateContainers``: at least one container, each judged, each name new among the containers."""
    errors = ErrorList()
    if not partial and isinstance(containers, list) and not containers:
        errors.append(required(path))
    names: set[str] = set()
    for i, container in _items(containers):
        errors.extend(_container_common(container, path.index(i), partial))
        name = container.get("name") or ""
        if not isinstance(name, str):
            continue  # a name of another type is the schema check's error, and no name to compare
        if not partial and name in names:
            errors.append(duplicate(path.index(i).child("name"), name))
        names.add(name)
    if not partial:
        errors.extend(_host_port_conflicts(list(_items(containers)), path))
    return errors


def _host_port_conflicts(containers: list[tuple[int, Mapping[str, Any]]], path: FieldPath) -> ErrorList:
    """``checkHostPortConflicts``: a protocol, host IP and host port taken twice among these containers."""
    errors = ErrorList()
    taken: set[str] = set()
    for i, container in containers:
        for j, port in _items(container.get("ports")):
            host_port = port.get("hostPort")
            if not isinstance(host_port, int) or isinstance(host_port, bool) or host_port == 0:
                continue
            key = f"{port.get('protocol') or 'TCP'}/{port.get('hostIP') or ''}/{host_port}"
            if key in taken:
                errors.append(duplicate(path.index(i).child("ports").index(j).child("hostPort"), key))
            taken.add(key)
    return errors


def _init_container_errors(containers: Any, path: FieldPath, regular: list[Any], partial: bool) -> ErrorList:
    """``validateInitContainers``: each judged, each name new among the containers and the init containers."""
    errors = ErrorList()
    names = {name if isinstance(name, str) else "" for name in regular}
    for i, container in _items(containers):
        errors.extend(_container_common(container, path.index(i), partial))
        name = container.get("name") or ""
        if not partial and isinstance(name, str) and name in names:
            errors.append(duplicate(path.index(i).child("name"), name))
        elif name and isinstance(name, str):
            names.add(name)
        if not partial:
            errors.extend(_host_port_conflicts([(i, container)], path))
    return errors


def _container_common(container: Mapping[str, Any], path: FieldPath, partial: bool) -> ErrorList:
    """``validateContainerCommon``, for the fields ported: the name, the ports, the env, the resources."""
    errors = _name_errors(container, path.child("name"), partial)
    errors.extend(_port_errors(container.get("ports"), path.child("ports"), partial))
    errors.extend(_env_errors(container.get("env"), path.child("env"), partial))
    errors.extend(resource_requirements_errors(container.get("resources"), path.child("resources")))
    return errors


def port_name_messages(name: str) -> list[str]:
    """Why ``name`` is no port name (``IsValidPortName``), in Go's order; empty when it is one.

    Examples:
        >>> port_name_messages("http"), port_name_messages("8080")
        ([], ['must contain at least one letter (a-z)'])
    """
    messages = []
    if len(name) > _PORT_NAME_MAX:
        messages.append(f"must be no more than {_PORT_NAME_MAX} characters")
    if not name or any(not ("a" <= ch <= "z" or "0" <= ch <= "9" or ch == "-") for ch in name):
        messages.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if not any("a" <= ch <= "z" for ch in name):
        messages.append("must contain at least one letter (a-z)")
    if "--" in name:
        messages.append("must not contain consecutive hyphens")
    if name and (name[0] == "-" or name[-1] == "-"):
        messages.append("must not begin or end with a hyphen")
    return messages


def _port_number(value: Any, at: FieldPath, errors: ErrorList) -> None:
    if isinstance(value, int) and not isinstance(value, bool) and not 1 <= value <= 65535:
        errors.append(invalid(at, value, "must be between 1 and 65535, inclusive"))


def _port_errors(ports: Any, path: FieldPath, partial: bool) -> ErrorList:
    """``validateContainerPorts``: names, the container port (required), the host port, the protocol."""
    errors = ErrorList()
    names: set[str] = set()
    for i, port in _items(ports):
        at = path.index(i)
        name = port.get("name")
        if isinstance(name, str) and name:
            messages = port_name_messages(name)
            errors.extend(invalid(at.child("name"), name, message) for message in messages)
            if not messages and name in names:
                errors.append(duplicate(at.child("name"), name))
            elif not messages:
                names.add(name)
        number = port.get("containerPort")
        if (number is None or number == 0) and not partial:
            errors.append(required(at.child("containerPort")))
        else:
            _port_number(number, at.child("containerPort"), errors)
        if port.get("hostPort"):
            _port_number(port.get("hostPort"), at.child("hostPort"), errors)
        protocol = port.get("protocol")
        if isinstance(protocol, str) and protocol and protocol not in _PROTOCOLS:
            errors.append(not_supported(at.child("protocol"), protocol, _PROTOCOLS))
    return errors


_ENV_NAME = "a valid environment variable name must consist only of printable ASCII characters other than '='"


def _env_errors(env: Any, path: FieldPath, partial: bool = False) -> ErrorList:
    """``ValidateEnv`` with the relaxed names of 1.37: required, printable ASCII, no ``=``."""
    errors = ErrorList()
    for i, var in _items(env):
        at = path.index(i).child("name")
        name = var.get("name")
        if name is None or name == "":
            if not partial:
                errors.append(required(at))
        elif isinstance(name, str) and any(not " " <= ch <= "~" or ch == "=" for ch in name):
            errors.append(invalid(at, name, _ENV_NAME))
    return errors


def _controller_restart(obj: Mapping[str, Any], spec: Mapping[str, Any], template: PodTemplate) -> ErrorList:
    """What the controller kind allows of the pod's ``restartPolicy``, at the template's own path."""
    at = template.path.child("spec", "restartPolicy")
    given = spec.get("restartPolicy")
    if not isinstance(given, str | None) or (template.partial and not given):
        return ErrorList()
    policy = given or ("OnFailure" if template.restart is Restart.JOBSET_JOB else "Always")
    if template.restart is Restart.STATEFUL_SET and policy != "Always":
        return ErrorList([not_supported(at, policy, ["Always"])])
    if template.restart not in (Restart.JOB, Restart.JOBSET_JOB):
        return ErrorList()
    if policy == "Always":
        valid = ", ".join(go_quote(p) for p in _JOB_POLICIES)
        return ErrorList([required(at, f"valid values: {valid}")])
    if policy not in _JOB_POLICIES:
        return ErrorList([not_supported(at, policy, _JOB_POLICIES)])
    failure_policy = _list(obj, template.failure_policy) if template.failure_policy is not None else None
    if failure_policy is not None and policy != "Never":
        return ErrorList([invalid(at, policy, 'only "Never" is supported when podFailurePolicy is specified')])
    return ErrorList()
