"""Create compiled objects in a cluster, in the KEP's order, through the official kubernetes client.

``apply(objects, api_client)`` creates a Workload, its CompositePodGroups and
its PodGroups with ``SchedulingV1beta1Api`` / ``SchedulingV1alpha3Api``:
the Workload first, then the CompositePodGroups from the roots to the
leaves, then the PodGroups, whatever order they were given in. It asks for a
server-side dry run unless told otherwise, never overwrites anything (an
object that already exists is read back and compared) except, when asked
(``resize=True``), a gang's ``minCount``, and returns what it did to each
object as data. ``delete(objects, api_client)`` deletes them again, in the
reverse order. docs/interop.md walks through it.

Only the kubernetes client is used: no kopf, no other client library. The
objects may be client models or Kubernetes JSON dicts (what ``to_dict``
gives, and what ``kopf.adopt`` changes in place).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from kubernetes.client import ApiClient, SchedulingV1alpha3Api, SchedulingV1beta1Api
from kubernetes.client.exceptions import ApiException
from pydantic import BaseModel

from workloadbuilder._internal import kinds
from workloadbuilder._internal.arguments import check_type
from workloadbuilder._internal.decode import decode, errors_at, to_json_dict
from workloadbuilder._internal.kinds import KubeObject
from workloadbuilder.field import ErrorList, FieldPath, required
from workloadbuilder.manifests import DocumentProblem, ManifestError
from workloadbuilder.runtime.resizing import _leaves, gang_resize_patch

__all__ = ["Action", "ApiStatus", "ApplyResult", "apply", "creation_order", "delete", "spec_differences"]

Action = Literal[
    "created",
    "dry-run-created",
    "unchanged",
    "resized",
    "dry-run-resized",
    "conflict",
    "deleted",
    "dry-run-deleted",
    "absent",
    "error",
    "skipped",
]
"""What ``apply`` or ``delete`` did with one object (see ``ApplyResult``)."""

_OK: frozenset[str] = frozenset(
    {"created", "dry-run-created", "unchanged", "resized", "dry-run-resized", "deleted", "dry-run-deleted", "absent"}
)
_MIN_COUNT = ("schedulingPolicy", "gang", "minCount")


_GROUP_KINDS = frozenset({kinds.POD_GROUP, kinds.COMPOSITE_POD_GROUP})
_KIND_RANK = {kinds.WORKLOAD: 0, kinds.COMPOSITE_POD_GROUP: 1, kinds.POD_GROUP: 2}
# The apiserver's one spec default for runtime groups (+default={"single": {}}).
_DEFAULT_DISRUPTION_MODE: dict[str, Any] = {"single": {}}
# Filled in by the Priority admission plugin from priorityClassName; a user may not set them.
_SERVER_RESOLVED = frozenset({"priority", "preemptionPolicy"})
# (apiVersion, kind) -> the API class serving it and its method suffix (create_namespaced_<suffix>).
_ROUTES: Mapping[tuple[str, str], tuple[type, str]] = {
    (f"{kinds.GROUP}/v1beta1", kinds.WORKLOAD): (SchedulingV1beta1Api, "workload"),
    (f"{kinds.GROUP}/v1beta1", kinds.POD_GROUP): (SchedulingV1beta1Api, "pod_group"),
    (f"{kinds.GROUP}/v1alpha3", kinds.WORKLOAD): (SchedulingV1alpha3Api, "workload"),
    (f"{kinds.GROUP}/v1alpha3", kinds.POD_GROUP): (SchedulingV1alpha3Api, "pod_group"),
    (f"{kinds.GROUP}/v1alpha3", kinds.COMPOSITE_POD_GROUP): (SchedulingV1alpha3Api, "composite_pod_group"),
}


@dataclass(frozen=True)
class ApiStatus:
    """The apiserver's refusal of one request: its ``Status`` (``kubectl`` prints ``message``).

    Attributes:
        code: the HTTP status (422 for an invalid object, 403 when forbidden...).
        reason: the Status's machine-readable reason (``Invalid``, ``Forbidden``,
            ``AlreadyExists``...), or the HTTP reason phrase when the answer
            was not a Status.
        message: the Status's message, or the answer's text.
        status: the whole Status as Kubernetes JSON (``details.causes`` lists
            each field error of an ``Invalid``), ``None`` when the answer was
            not a Status.
    """

    code: int
    reason: str
    message: str
    status: dict[str, Any] | None = field(default=None, compare=False)

    def __str__(self) -> str:
        return f"{self.code} {self.reason}: {self.message}"

    @classmethod
    def from_exception(cls, err: ApiException) -> ApiStatus:
        """The error an ``ApiException`` of the kubernetes client carries."""
        try:
            status = json.loads(err.body) if err.body else None
        except ValueError:
            status = None
        if not isinstance(status, dict) or status.get("kind") != "Status":
            return cls(int(err.status or 0), str(err.reason or ""), str(err.body or ""), None)
        code = status.get("code")
        return cls(
            code if isinstance(code, int) else int(err.status or 0),
            str(status.get("reason") or err.reason or ""),
            str(status.get("message") or ""),
            status,
        )


@dataclass(frozen=True)
class ApplyResult:
    """What ``apply`` did with one object.

    Attributes:
        kind: ``Workload``, ``CompositePodGroup`` or ``PodGroup``.
        namespace: the object's namespace.
        name: its name.
        action: ``created``; ``dry-run-created`` (the server accepted it in a
            dry run and persisted nothing); ``unchanged`` (it already exists
            with the same spec); ``resized`` (it already exists and differed
            from ours in gang ``minCount`` only, which ``apply(resize=True)``
            patched to ours; ``dry-run-resized`` in a dry run); ``conflict``
            (it already exists with another spec, left as it is); ``deleted``,
            ``dry-run-deleted`` and ``absent`` (``delete``: the server deleted
            it, would delete it, or holds no such object); ``error`` (the
            server refused a request); ``skipped`` (not sent, because an
            earlier object ended in an error or a conflict).
        object: the server's object: the one it created (or would create,
            in a dry run), the one it already holds for ``unchanged`` and
            ``conflict``, the patched one for ``resized``, the deleted one (or
            the server's ``Status`` of the deletion) for ``deleted``; a client
            model. ``None`` for ``absent``, ``error`` and ``skipped``.
        error: the server's refusal, for ``error`` only.
        differences: for ``conflict``, where the stored spec differs from
            ours (``spec.schedulingPolicy.gang.minCount``), as ``spec_differences``
            gives them; for ``resized``, the ``minCount`` fields patched.
    """

    kind: str
    namespace: str
    name: str
    action: Action
    object: BaseModel | None = field(default=None, compare=False)
    error: ApiStatus | None = None
    differences: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """Whether the object is (or, in a dry run, would be) in the cluster as asked, or gone when deleted."""
        return self.action in _OK

    def __str__(self) -> str:
        text = f"{self.kind} {self.namespace}/{self.name}: {self.action}"
        if self.error is not None:
            return f"{text}: {self.error}"
        if self.differences:
            verb = "changed" if self.action in ("resized", "dry-run-resized") else "differ"
            return f"{text}: {', '.join(self.differences)} {verb}"
        return text


@dataclass(frozen=True)
class _Item:
    """One object to create, decoded, with where it goes."""

    source: KubeObject
    model: BaseModel
    api_version: str
    kind: str
    namespace: str
    name: str
    parent: str | None


def apply(
    objects: Iterable[KubeObject],
    api_client: ApiClient | None = None,
    dry_run: bool = True,
    *,
    field_manager: str | None = None,
    resize: bool = False,
) -> list[ApplyResult]:
    """Create the objects in creation order and say what happened to each; a dry run by default.

    The objects are sent in ``creation_order``: Workloads, then
    CompositePodGroups from the roots to the leaves, then PodGroups. Each is
    created with one ``POST``; nothing is ever replaced, and only a gang's
    ``minCount`` is ever patched (``resize``).

    - An object that already exists (``409 AlreadyExists``) is read back
      (``GET``, never a dry run) and its spec compared with ours by
      ``spec_differences``: ``unchanged`` when they agree, ``conflict`` when
      not. Applying the same objects twice is therefore safe.
    - With ``resize=True``, an existing PodGroup or Workload whose spec
      differs from ours in gang ``minCount`` fields only (the one field the
      apiserver lets change, as a Job controller resizing an elastic gang
      does) is patched to ours instead: one strategic-merge ``PATCH`` of
      ``gang_resize_patch``'s body (for a Workload, every changed template in
      it), a dry run when ``dry_run`` is; the result is ``resized`` (or
      ``dry-run-resized``) and its ``differences`` name the fields changed.
    - Any other refusal by the server is an ``error`` result carrying the
      server's ``Status``. The first ``error`` or ``conflict`` stops the
      apply: every later object is ``skipped``, because later objects refer
      to earlier ones (a PodGroup to its Workload and its parent group), and
      creating them around an object we did not make would build a mixed
      tree. Resolve it and apply again.
    - A transport failure (no server answering) is raised as the client
      raises it (a ``urllib3`` error), with no retry beyond the client's own:
      nothing answered, so the caller retries the whole apply.

    Args:
        objects: ``V1beta1Workload``, ``V1alpha3CompositePodGroup``,
            ``V1beta1PodGroup`` (or the ``v1alpha3`` Workload and PodGroup),
            as client models or Kubernetes JSON dicts, in any order. Each
            needs ``metadata.name`` and ``metadata.namespace``.
        api_client: the kubernetes ``ApiClient`` to send through; by default
            the client's default one (``kubernetes.config.load_config()``
            configures it).
        dry_run: send ``dryRun=All``: the server runs admission and
            validation and persists nothing. ``False`` creates the objects.
        field_manager: the ``fieldManager`` to record on created and patched objects.
        resize: patch an existing gang's ``minCount`` to ours instead of
            calling the difference a ``conflict``.

    Returns:
        One result per object, in the order the objects were sent.

    Raises:
        ManifestError: an object is not one of the five kinds, a dict does
            not decode strictly, or a name or namespace is missing; every bad
            object is listed, and nothing was sent.
    """
    if api_client is not None:
        check_type("apply", "api_client", api_client, ApiClient, "a kubernetes ApiClient")
    check_type("apply", "dry_run", dry_run, bool)
    check_type("apply", "resize", resize, bool)
    if field_manager is not None:
        check_type("apply", "field_manager", field_manager, str)
    items = _order(_prepare(objects))
    beta = SchedulingV1beta1Api(api_client)
    alpha = SchedulingV1alpha3Api(beta.api_client)
    apis: dict[type, Any] = {SchedulingV1beta1Api: beta, SchedulingV1alpha3Api: alpha}
    results: list[ApplyResult] = []
    try:
        for item in items:
            if results and results[-1].action in ("error", "conflict", "skipped"):
                results.append(_result(item, "skipped"))
                continue
            api_class, suffix = _ROUTES[(item.api_version, item.kind)]
            results.append(_create(apis[api_class], suffix, item, dry_run, field_manager, resize))
    finally:
        beta.close()  # closes the client only when the API made it itself
    return results


def delete(
    objects: Iterable[KubeObject],
    api_client: ApiClient | None = None,
    dry_run: bool = True,
    *,
    propagation_policy: Literal["Background", "Foreground", "Orphan"] = "Background",
) -> list[ApplyResult]:
    """Delete the objects in the reverse of creation order and say what happened to each; a dry run by default.

    PodGroups go first, then CompositePodGroups from the leaves to the roots,
    then Workloads, so that no group is left pointing at a parent already
    gone. Each is one ``DELETE`` by name and namespace (``dryRun=All`` unless
    ``dry_run`` is false); nothing is read or compared first.

    - ``deleted`` (``dry-run-deleted``): the server accepted the deletion.
      An object with finalizers (the apiserver puts
      ``scheduling.k8s.io/podgroup-protection`` on a PodGroup, which
      kube-controller-manager takes off once no pod refers to it) is only
      marked for deletion and goes later: ``delete`` does not wait for it.
    - ``absent``: the server holds no such object (``404``); deleting twice
      is therefore safe.
    - Any other refusal is an ``error`` and stops the rest, as in ``apply``:
      every later object (the parents of the one that failed) is ``skipped``.

    Args:
        objects: as for ``apply``; only the kind, name and namespace are read.
        api_client: as for ``apply``.
        dry_run: send ``dryRun=All``: the server checks the deletion and deletes nothing.
        propagation_policy: what becomes of the objects' dependents (the
            garbage collector's ``propagationPolicy``).

    Returns:
        One result per object, in the order the deletions were sent.

    Raises:
        ManifestError: as ``apply`` does, and nothing was sent.
    """
    items = list(reversed(_order(_prepare(objects))))
    beta = SchedulingV1beta1Api(api_client)
    alpha = SchedulingV1alpha3Api(beta.api_client)
    apis: dict[type, Any] = {SchedulingV1beta1Api: beta, SchedulingV1alpha3Api: alpha}
    results: list[ApplyResult] = []
    try:
        for item in items:
            if results and results[-1].action in ("error", "skipped"):
                results.append(_result(item, "skipped"))
                continue
            api_class, suffix = _ROUTES[(item.api_version, item.kind)]
            results.append(_delete(apis[api_class], suffix, item, dry_run, propagation_policy))
    finally:
        beta.close()
    return results


def creation_order(objects: Iterable[KubeObject]) -> list[KubeObject]:
    """The objects in the order to create them: Workloads, CompositePodGroups roots first, PodGroups.

    The sort is stable: objects of the same rank keep their given order
    (``Compiled.objects()`` and ``Hierarchy.objects()`` already are in this
    order). A CompositePodGroup's depth counts its ``parentCompositePodGroupName``
    links to other CompositePodGroups among ``objects`` in its namespace; a
    parent that is not among them counts as already created.

    Raises:
        ManifestError: as ``apply`` does.
    """
    return [item.source for item in _order(_prepare(objects))]


def spec_differences(ours: KubeObject, stored: KubeObject) -> list[str]:
    """Where a stored object's spec differs from ours, as field paths; empty when they agree.

    Both specs are compared in Kubernetes JSON, after doing to ours what the
    apiserver does to every object it stores, so that an object it created
    from ours compares equal: a runtime group's ``disruptionMode`` left unset
    becomes ``{"single": {}}`` (the one ``+default``), and ``priority`` and
    ``preemptionPolicy``, which admission resolves from
    ``priorityClassName``, are ignored wherever ours leaves them unset.
    Metadata and status are not compared.

    Examples:
        >>> ours = {"kind": "PodGroup", "spec": {"schedulingPolicy": {"gang": {"minCount": 4}}}}
        >>> stored = {"kind": "PodGroup", "spec": {"schedulingPolicy": {"gang": {"minCount": 4}},
        ...                                        "disruptionMode": {"single": {}}}}
        >>> spec_differences(ours, stored)
        []
        >>> stored["spec"]["schedulingPolicy"]["gang"]["minCount"] = 2
        >>> spec_differences(ours, stored)
        ['spec.schedulingPolicy.gang.minCount']
    """
    our_spec = copy.deepcopy(_as_json(ours).get("spec") or {})
    stored_spec = _as_json(stored).get("spec") or {}
    if kinds.kind_of(ours) in _GROUP_KINDS and our_spec.get("disruptionMode") is None:
        our_spec["disruptionMode"] = copy.deepcopy(_DEFAULT_DISRUPTION_MODE)
    return _differences(FieldPath("spec"), our_spec, _without_resolved(stored_spec, our_spec))


def _create(
    api: Any, suffix: str, item: _Item, dry_run: bool, field_manager: str | None, resize: bool = False
) -> ApplyResult:
    """One object: create it, or compare it with the one that already exists (and resize it, if asked)."""
    create = getattr(api, f"create_namespaced_{suffix}")
    try:
        created = create(item.namespace, item.model, dry_run="All" if dry_run else None, field_manager=field_manager)
    except ApiException as err:
        error = ApiStatus.from_exception(err)
        if error.code != 409 or error.reason != "AlreadyExists":
            return _result(item, "error", error=error)
    else:
        return _result(item, "dry-run-created" if dry_run else "created", obj=created)
    try:
        stored = getattr(api, f"read_namespaced_{suffix}")(item.name, item.namespace)
    except ApiException as err:
        return _result(item, "error", error=ApiStatus.from_exception(err))
    differences = tuple(spec_differences(item.model, stored))
    patch = _resize_patch(item, stored, differences) if resize and differences else None
    if patch is None:
        return _result(item, "conflict" if differences else "unchanged", obj=stored, differences=differences)
    try:
        patched = getattr(api, f"patch_namespaced_{suffix}")(
            item.name,
            item.namespace,
            patch,
            dry_run="All" if dry_run else None,
            field_manager=field_manager,
            _content_type="application/strategic-merge-patch+json",
        )
    except ApiException as err:
        return _result(item, "error", error=ApiStatus.from_exception(err))
    return _result(item, "dry-run-resized" if dry_run else "resized", obj=patched, differences=differences)


def _resize_patch(item: _Item, stored: BaseModel, differences: tuple[str, ...]) -> dict[str, Any] | None:
    """The patch that takes the stored object's gang ``minCount`` fields to ours, or None if more differs.

    A PodGroup: ``gang_resize_patch`` to our ``minCount``. A Workload: the
    same for each of its gang templates whose ``minCount`` differs, each
    patch's template list laid over the last (it carries the whole list).
    """
    if item.kind not in (kinds.POD_GROUP, kinds.WORKLOAD):
        return None
    if not all(path.endswith(".schedulingPolicy.gang.minCount") for path in differences):
        return None
    ours = _as_json(item.model)
    current = copy.deepcopy(dict(_as_json(stored)))
    if item.kind == kinds.POD_GROUP:
        count = _dig(ours.get("spec"), *_MIN_COUNT)
        return gang_resize_patch(current, count) if _is_count(count) else None
    spec: dict[str, Any] = {}
    for _, template in _leaves(copy.deepcopy(dict(ours.get("spec") or {}))):
        count = _dig(template, *_MIN_COUNT)
        if not _is_count(count) or not template.get("name"):
            continue
        stored_template = next(
            (t for _, t in _leaves(current.get("spec") or {}) if t.get("name") == template["name"]), None
        )
        if stored_template is None or _dig(stored_template, *_MIN_COUNT) == count:
            continue
        part = gang_resize_patch(current, count, template=template["name"])
        spec.update(part.get("spec") or {})
        current["spec"] = {**(current.get("spec") or {}), **(part.get("spec") or {})}
    return {"spec": spec} if spec else None


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _dig(value: Any, *keys: str) -> Any:
    for key in keys:
        value = value.get(key) if isinstance(value, Mapping) else None
    return value


def _delete(api: Any, suffix: str, item: _Item, dry_run: bool, propagation_policy: str) -> ApplyResult:
    """One object: delete it by name."""
    remove = getattr(api, f"delete_namespaced_{suffix}")
    try:
        answer = remove(
            item.name, item.namespace, dry_run="All" if dry_run else None, propagation_policy=propagation_policy
        )
    except ApiException as err:
        error = ApiStatus.from_exception(err)
        if error.code == 404:
            return _result(item, "absent")
        return _result(item, "error", error=error)
    return _result(item, "dry-run-deleted" if dry_run else "deleted", obj=answer)


def _result(
    item: _Item,
    action: Action,
    obj: BaseModel | None = None,
    error: ApiStatus | None = None,
    differences: tuple[str, ...] = (),
) -> ApplyResult:
    return ApplyResult(item.kind, item.namespace, item.name, action, obj, error, differences)


def _prepare(objects: Iterable[KubeObject]) -> list[_Item]:
    """Every object decoded and located, or one ``ManifestError`` naming each bad one."""
    items: list[_Item] = []
    problems: list[DocumentProblem] = []
    for number, obj in enumerate(objects, start=1):
        data = kinds.as_manifest(obj) if isinstance(obj, BaseModel) else obj
        item, errs = _item(obj, data)
        if item is not None:
            items.append(item)
            continue
        metadata = data.get("metadata") if isinstance(data, Mapping) else None
        name = metadata.get("name") if isinstance(metadata, Mapping) else None
        kind = data.get("kind") if isinstance(data, Mapping) else None
        problems.append(
            DocumentProblem(
                "<apply>",
                number,
                kind if isinstance(kind, str) else None,
                name if isinstance(name, str) else None,
                errs,
                "" if errs else f"an object to apply is a client model or a dict, not {type(obj).__name__}",
            )
        )
    if problems:
        raise ManifestError(problems, [item.model for item in items])
    return items


def _item(source: KubeObject, data: Any) -> tuple[_Item | None, ErrorList]:
    if not isinstance(data, Mapping):
        return None, ErrorList()
    model_class, errs = kinds.model_for(data, require_type=True)
    if model_class is None:
        return None, errs
    model, problems = decode(model_class, dict(data))  # a copy, with the apiVersion and kind a model may lack
    if model is None:
        return None, errors_at(None, problems)
    metadata = data.get("metadata") or {}
    for name in ("name", "namespace"):
        if not metadata.get(name):
            errs.append(required(FieldPath("metadata", name)))
    if errs:
        return None, errs
    spec = data.get("spec") or {}
    return (
        _Item(
            source=source,
            model=model,
            api_version=str(data["apiVersion"]),
            kind=str(data["kind"]),
            namespace=metadata["namespace"],
            name=metadata["name"],
            parent=spec.get("parentCompositePodGroupName") or None,
        ),
        errs,
    )


def _order(items: list[_Item]) -> list[_Item]:
    """Workloads, CompositePodGroups by depth (roots first), PodGroups; stable within a rank."""
    composites = {(item.namespace, item.name): item for item in items if item.kind == kinds.COMPOSITE_POD_GROUP}

    def depth(item: _Item) -> int:
        seen = {(item.namespace, item.name)}
        parent, level = item.parent, 0
        while parent is not None and (item.namespace, parent) in composites and (item.namespace, parent) not in seen:
            seen.add((item.namespace, parent))
            parent, level = composites[(item.namespace, parent)].parent, level + 1
        return level

    def key(item: _Item) -> tuple[int, int]:
        return _KIND_RANK[item.kind], depth(item) if item.kind == kinds.COMPOSITE_POD_GROUP else 0

    return sorted(items, key=key)


def _as_json(obj: KubeObject) -> Mapping[str, Any]:
    return to_json_dict(obj) if isinstance(obj, BaseModel) else obj


def _without_resolved(stored: Any, ours: Any) -> Any:
    """``stored`` without the server-resolved fields that ``ours`` leaves unset, at every level."""
    if isinstance(stored, Mapping) and isinstance(ours, Mapping):
        return {
            key: _without_resolved(value, ours.get(key))
            for key, value in stored.items()
            if key not in _SERVER_RESOLVED or key in ours
        }
    if isinstance(stored, list) and isinstance(ours, list) and len(stored) == len(ours):
        return [_without_resolved(value, mine) for value, mine in zip(stored, ours, strict=True)]
    return stored


def _differences(path: FieldPath, ours: Any, stored: Any) -> list[str]:
    """The paths of the leaves (or the lists of another length) where the two values differ."""
    if isinstance(ours, Mapping) and isinstance(stored, Mapping):
        keys = [*ours, *(key for key in stored if key not in ours)]
        return [diff for key in keys for diff in _differences(path.child(key), ours.get(key), stored.get(key))]
    if isinstance(ours, list) and isinstance(stored, list) and len(ours) == len(stored):
        pairs = enumerate(zip(ours, stored, strict=True))
        return [diff for i, (a, b) in pairs for diff in _differences(path.index(i), a, b)]
    return [] if ours == stored else [str(path)]
