"""Volcano's admission rules for a Job's lifecycle policies, in Volcano's own words.

Ported from volcano-sh/volcano ``pkg/webhooks/admission/jobs/validate/util.go``
(``validatePolicies``), which the validating webhook runs on the Job's
``spec.policies`` and on each task's ``policies``. Each list is checked on
its own, policy by policy, and the check of a list stops at its first
problem, as Volcano's does:

* ``event`` (or ``events``) and ``exitCode`` together, or neither;
* an event or action Volcano does not know;
* the same event in two policies (``duplicate event E  across different
  policy``, two spaces as in Volcano's format string: the example
  ``example/invalid_jobs/duplicatedPolicyEvent-webhook-deny.yaml`` is
  refused for it);
* exit code ``0``, or the same exit code twice;
* ``*`` (any event) beside another event.

Errors are at the policy's field (``spec.policies[1].event``); the detail
is Volcano's message.

``io_errors`` is the same file's ``validateIO``, run on ``spec.volumes``:
each entry needs a ``mountPath`` no earlier entry has, and exactly one of
``volumeClaim`` (a claim to create) or ``volumeClaimName`` (an existing
claim, whose name must be a DNS subdomain). Volcano stops at the first
problem of the list, and so does this. Volcano writes each message with a
leading space and a trailing ``;`` to join it to the webhook's other
messages; the detail here is the message without those separators.
Volcano's module is not served by the Go module proxy this project uses:
the rule and its words were read from the source at the examples' commit
(``tests/data/upstream/volcano/SOURCE``) and are not replayed from Go.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from workloadbuilder import ErrorList, FieldPath
from workloadbuilder.adapters.kit import invalid, is_dns1123_subdomain, required
from workloadbuilder.validation.formats import CHARACTERS

__all__ = ["VALID_ACTIONS", "VALID_EVENTS", "io_errors", "policy_errors"]

VALID_EVENTS = ("*", "PodFailed", "PodEvicted", "PodPending", "Unknown", "TaskCompleted", "JobUpdated", "TaskFailed")
"""The events a policy may name (Volcano's ``policyEventMap``)."""

VALID_ACTIONS = ("AbortJob", "RestartJob", "RestartTask", "RestartPod", "TerminateJob", "CompleteJob", "ResumeJob")
"""The actions a policy may take (Volcano's ``policyActionMap``)."""

_VALID = f" valid events are {list(VALID_EVENTS)}, valid actions are {list(VALID_ACTIONS)}".replace("'", "")


def policy_errors(job: Mapping[str, Any]) -> ErrorList:
    """Every refused policy list of a Volcano Job: each task's, then the Job's, each stopping at its first problem."""
    errors = ErrorList()
    spec = job.get("spec")
    if not isinstance(spec, Mapping):
        return errors
    tasks = spec.get("tasks")
    if isinstance(tasks, list):
        for i, task in enumerate(tasks):
            if isinstance(task, Mapping):
                errors.extend(_policies(task.get("policies"), FieldPath("spec", "tasks").index(i).child("policies")))
    errors.extend(_policies(spec.get("policies"), FieldPath("spec", "policies")))
    return errors


def _policies(policies: Any, path: FieldPath) -> ErrorList:
    if not isinstance(policies, list):
        return ErrorList()  # absent, or the schema check reports the type
    events: dict[str, FieldPath] = {}
    codes: set[Any] = set()
    found = ErrorList()
    for i, policy in enumerate(policies):
        if not isinstance(policy, Mapping):
            continue
        at = path.index(i)
        problem = _policy(policy, at, events, codes)
        if problem is not None:
            found.append(problem)
            break
    if "*" in events and len(events) > 1:
        found.append(invalid(events["*"], "*", "if there's * here, no other policy should be here"))
    return found


def _policy(policy: Mapping[str, Any], at: FieldPath, events: dict[str, FieldPath], codes: set[Any]) -> Any:
    """The first problem of one policy (``None``: none), recording its events and exit code."""
    listed = _events(policy)
    code = policy.get("exitCode")
    if listed and code is not None:
        return invalid(at, _shown(policy), "must not specify event and exitCode simultaneously")
    if not listed and code is None:
        return invalid(at, _shown(policy), "either event and exitCode should be specified")
    if listed:
        action = policy.get("action")
        for field, event in listed:
            if event not in VALID_EVENTS:
                return invalid(at.child(field), event, "invalid policy event;" + _VALID)
            if action not in VALID_ACTIONS:
                return invalid(at.child("action"), action, "invalid policy action;" + _VALID)
            if event in events:
                return invalid(at.child(field), event, f"duplicate event {event}  across different policy")
            events[event] = at.child(field)
        return None
    if code == 0:
        return invalid(at.child("exitCode"), code, "0 is not a valid error code")
    if code in codes:
        return invalid(at.child("exitCode"), code, f"duplicate exitCode {code}")
    codes.add(code)
    return None


def _events(policy: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """The policy's distinct events, each with its field (Volcano's ``getEventList``: ``events``, then ``event``)."""
    out: list[tuple[str, Any]] = []
    more = policy.get("events")
    if isinstance(more, Sequence) and not isinstance(more, str):
        out.extend(("events", event) for event in more if event)
    if policy.get("event"):
        out.append(("event", policy["event"]))
    distinct: list[tuple[str, Any]] = []
    for field, event in out:
        if all(event != known for _, known in distinct):
            distinct.append((field, event))
    return distinct


def _shown(
    policy: Mapping[str, Any], keys: Sequence[str] = ("event", "events", "exitCode", "action")
) -> dict[str, Any]:
    return {key: policy[key] for key in keys if key in policy}


_CONFLICT = (
    "conflict: If you want to use an existing PVC, just specify VolumeClaimName."
    "If you want to create a new PVC, you do not need to specify VolumeClaimName"
)


def io_errors(job: Mapping[str, Any]) -> ErrorList:
    """The first refused entry of a Volcano Job's ``spec.volumes`` (``validateIO``); none for another kind.

    Examples:
        >>> job = {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "spec": {"volumes": [
        ...     {"mountPath": "/in"}, {"mountPath": "/out", "volumeClaimName": "claim"}]}}
        >>> print(io_errors(job)[0])
        spec.volumes[0]: Required value: either VolumeClaim or VolumeClaimName must be specified
    """
    if job.get("kind") != "Job" or not str(job.get("apiVersion") or "").startswith("batch.volcano.sh/"):
        return ErrorList()
    spec = job.get("spec")
    volumes = spec.get("volumes") if isinstance(spec, Mapping) else None
    if not isinstance(volumes, list):
        return ErrorList()
    mounts: set[str] = set()
    for i, volume in enumerate(volumes):
        if not isinstance(volume, Mapping):
            continue
        problem = _volume(volume, FieldPath("spec", "volumes").index(i), mounts)
        if problem is not None:
            return ErrorList([problem])
    return ErrorList()


def _volume(volume: Mapping[str, Any], at: FieldPath, mounts: set[str]) -> Any:
    """One entry's first problem (``None``: none), recording its mount path."""
    mount = volume.get("mountPath")
    if not isinstance(mount, str) or not mount:
        return required(at.child("mountPath"), "mountPath is required")
    if mount in mounts:
        return invalid(at.child("mountPath"), mount, f"duplicated mountPath: {mount}")
    claim, name = volume.get("volumeClaim"), volume.get("volumeClaimName")
    if claim is None and not name:
        return required(at, "either VolumeClaim or VolumeClaimName must be specified")
    if isinstance(name, str) and name:
        if claim is not None:
            return invalid(at, _shown(volume, ("volumeClaim", "volumeClaimName")), _CONFLICT)
        messages = is_dns1123_subdomain(name, CHARACTERS)
        if messages:
            listed = "[" + " ".join(messages) + "]"
            return invalid(at.child("volumeClaimName"), name, f"invalid VolumeClaimName {name} : {listed}")
    mounts.add(mount)
    return None
