"""Migration of manifests written for removed ``scheduling.k8s.io`` versions to the 1.37 shapes.

Kubernetes 1.37 no longer serves ``scheduling.k8s.io/v1alpha2`` (nor
``v1alpha1``), and several shapes changed on the way to ``v1beta1``: a
PodGroup's ``podGroupTemplateRef.workload`` became ``workloadRef``, the
``disruptionMode`` enum became a union (``PodGroup`` is ``all: {}``, ``Pod``
is ``single: {}``), a topology constraint's ``level`` became ``key``, and
``v1alpha1``'s ``podGroups``/``policy`` became ``podGroupTemplates``/
``schedulingPolicy``. ``migrate`` rewrites what has a 1.37 counterpart,
leaves the rest in place and reports both, each at its path.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from workloadbuilder._internal import kinds
from workloadbuilder._internal.decode import decode, errors_at
from workloadbuilder._internal.textread import check_nesting
from workloadbuilder._internal.walk import walk
from workloadbuilder.field import FieldPath

__all__ = ["Migration", "MigrationNote", "migrate"]

_MODES = {"PodGroup": "all", "Pod": "single"}


@dataclass(frozen=True)
class MigrationNote:
    """One rewrite, or one thing that could not be rewritten, at its path in the manifest."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


@dataclass(frozen=True)
class Migration:
    """The rewritten manifest and what happened to it.

    Attributes:
        manifest: a new dict in 1.37 shape (the input is not changed).
        rewrites: each change made, in the order made.
        untranslated: what has no 1.37 counterpart and was left as it was;
            the manifest will not load until it is dealt with.
    """

    manifest: dict[str, Any]
    rewrites: list[MigrationNote] = field(default_factory=list)
    untranslated: list[MigrationNote] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        """Whether everything was translated (the manifest should now load)."""
        return not self.untranslated


def migrate(manifest: Mapping[str, Any]) -> Migration:
    """``manifest`` (a Workload, PodGroup or CompositePodGroup of an older version) rewritten for Kubernetes 1.37.

    The ``apiVersion`` becomes ``scheduling.k8s.io/v1beta1`` (Workload,
    PodGroup) or ``v1alpha3`` (CompositePodGroup). Anything that still does
    not decode as that version afterwards (a field with no counterpart, such
    as ``v1alpha1``'s ``desiredCount``) is reported as untranslated.

    Raises:
        TypeError: ``manifest`` is not a mapping.
        InvalidArgumentError: ``manifest`` nests deeper than ``limits.MAX_NESTING`` levels.

    Examples:
        >>> ref = {"workload": {"workloadName": "w", "podGroupTemplateName": "t"}}
        >>> spec = {"podGroupTemplateRef": ref, "schedulingPolicy": {"basic": {}}, "disruptionMode": "Pod"}
        >>> result = migrate({"apiVersion": "scheduling.k8s.io/v1alpha2", "kind": "PodGroup", "spec": spec})
        >>> spec = result.manifest["spec"]
        >>> spec["disruptionMode"], spec["workloadRef"]
        ({'single': {}}, {'workloadName': 'w', 'templateName': 't'})
        >>> for note in result.rewrites:
        ...     print(note)
        apiVersion: scheduling.k8s.io/v1alpha2 is now scheduling.k8s.io/v1beta1
        spec.podGroupTemplateRef: now spec.workloadRef, with podGroupTemplateName as templateName
        spec.disruptionMode: "Pod" is now {single: {}}
    """
    if not isinstance(manifest, Mapping):
        raise TypeError(f"migrate rewrites one manifest (a mapping), not {type(manifest).__name__}")
    check_nesting(manifest, "the manifest to migrate")
    notes = _Notes(copy.deepcopy(dict(manifest)))
    kind = notes.data.get("kind")
    if not isinstance(kind, str) or kind not in kinds.PREFERRED_VERSION:
        notes.keep(FieldPath("kind"), f"{kind!r} is not a scheduling.k8s.io kind that migrate knows")
        return notes.result()
    _migrate_version(notes, kind)
    spec = notes.data.get("spec")
    if isinstance(spec, dict):
        if kind == kinds.WORKLOAD:
            _migrate_workload_spec(notes, spec)
        else:
            if kind == kinds.POD_GROUP:
                _migrate_template_ref(notes, spec)
            _migrate_group(notes, FieldPath("spec"), spec)
    _report_leftovers(notes, kind)
    return notes.result()


class _Notes:
    """The manifest being rewritten and the notes taken."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data
        self.rewrites: list[MigrationNote] = []
        self.untranslated: list[MigrationNote] = []

    def rewrote(self, path: FieldPath, message: str) -> None:
        self.rewrites.append(MigrationNote(str(path), message))

    def keep(self, path: FieldPath, message: str) -> None:
        self.untranslated.append(MigrationNote(str(path), message))

    def result(self) -> Migration:
        return Migration(self.data, self.rewrites, self.untranslated)


def _migrate_version(notes: _Notes, kind: str) -> None:
    version, target = notes.data.get("apiVersion"), kinds.PREFERRED_VERSION[kind]
    if version == target:
        return
    if isinstance(version, str) and version.startswith(f"{kinds.GROUP}/"):
        notes.data["apiVersion"] = target
        notes.rewrote(FieldPath("apiVersion"), f"{version} is now {target}")
    else:
        notes.keep(FieldPath("apiVersion"), f"{version!r} is not a {kinds.GROUP} version")


def _migrate_workload_spec(notes: _Notes, spec: dict[str, Any]) -> None:
    path = FieldPath("spec")
    if "podGroups" in spec:
        if "podGroupTemplates" in spec:
            notes.keep(path.child("podGroups"), "both podGroups and podGroupTemplates are set")
        else:
            spec["podGroupTemplates"] = spec.pop("podGroups")
            notes.rewrote(path.child("podGroups"), "now spec.podGroupTemplates")
    ref = spec.get("controllerRef")
    if isinstance(ref, dict) and "apiVersion" in ref:
        ref_path = path.child("controllerRef")
        if "apiGroup" in ref:
            notes.keep(ref_path.child("apiVersion"), "both apiVersion and apiGroup are set")
        else:
            version = ref.pop("apiVersion")
            group = version.rpartition("/")[0] if isinstance(version, str) else ""
            if group:
                ref["apiGroup"] = group
            notes.rewrote(
                ref_path.child("apiVersion"),
                f"now apiGroup {group!r}" if group else "dropped: the core group has no apiGroup",
            )
    for record in walk(spec, path):
        template_path, template = record.path, record.node
        if "policy" in template:
            if "schedulingPolicy" in template:
                notes.keep(template_path.child("policy"), "both policy and schedulingPolicy are set")
            else:
                template["schedulingPolicy"] = template.pop("policy")
                notes.rewrote(template_path.child("policy"), "now schedulingPolicy")
        _migrate_group(notes, template_path, template)


def _migrate_group(notes: _Notes, path: FieldPath, group: dict[str, Any]) -> None:
    """The shapes a template and a runtime group share: the disruption-mode enum and topology levels."""
    mode = group.get("disruptionMode")
    if isinstance(mode, str):
        mode_path = path.child("disruptionMode")
        if mode in _MODES:
            group["disruptionMode"] = {_MODES[mode]: {}}
            notes.rewrote(mode_path, f'"{mode}" is now {{{_MODES[mode]}: {{}}}}')
        else:
            notes.keep(mode_path, f'"{mode}" is neither "Pod" nor "PodGroup"')
    topology = (
        (group.get("schedulingConstraints") or {}).get("topology")
        if isinstance(group.get("schedulingConstraints"), dict)
        else None
    )
    for i, entry in enumerate(topology if isinstance(topology, list) else []):
        if isinstance(entry, dict) and "level" in entry:
            entry_path = path.child("schedulingConstraints", "topology").index(i)
            if "key" in entry:
                notes.keep(entry_path.child("level"), "both level and key are set")
            else:
                entry["key"] = entry.pop("level")
                notes.rewrote(entry_path.child("level"), "now key")


def _migrate_template_ref(notes: _Notes, spec: dict[str, Any]) -> None:
    """``spec.podGroupTemplateRef.workload.{workloadName,podGroupTemplateName}`` to
    ``spec.workloadRef.{workloadName,templateName}``.
    """
    if "podGroupTemplateRef" not in spec:
        return
    path = FieldPath("spec", "podGroupTemplateRef")
    ref = spec["podGroupTemplateRef"]
    if ref is None:
        del spec["podGroupTemplateRef"]
        notes.rewrote(path, "dropped: it was empty")
        return
    workload = ref.get("workload") if isinstance(ref, dict) else None
    extra = sorted(set(ref) - {"workload"}) if isinstance(ref, dict) else []
    if "workloadRef" in spec or not isinstance(workload, dict) or extra:
        reason = "spec.workloadRef is set too" if "workloadRef" in spec else "it holds more than a workload reference"
        notes.keep(path, f"left as is: {reason}")
        return
    names = {"workloadName": "workloadName", "podGroupTemplateName": "templateName"}
    unknown = sorted(set(workload) - set(names))
    if unknown:
        notes.keep(path.child("workload"), f"left as is: workloadRef has no field for {', '.join(unknown)}")
        return
    del spec["podGroupTemplateRef"]
    spec["workloadRef"] = {names[key]: value for key, value in workload.items()}
    notes.rewrote(path, "now spec.workloadRef, with podGroupTemplateName as templateName")


def _report_leftovers(notes: _Notes, kind: str) -> None:
    """What the target version still cannot decode, each at its path."""
    version = notes.data.get("apiVersion")
    model = kinds.KINDS.get((version, kind)) if isinstance(version, str) else None
    if model is None:
        return
    for err in errors_at(None, decode(model, notes.data)[1]):
        notes.untranslated.append(
            MigrationNote(err.field, f"does not decode as {notes.data['apiVersion']}: {err.error_body()}")
        )
