"""``metadata`` as the apiserver checks it (``k8s.io/apimachinery/pkg/api/validation``, ``ValidateObjectMeta``).

Workloads, PodGroups and CompositePodGroups are named like most objects: a
DNS subdomain, given as ``name`` or derived from ``generateName``, in a
namespace whose name is a DNS label. Then, on create and update alike:
labels (qualified-name keys, label values), annotations (qualified-name keys,
case-insensitive, 256 KiB in all), owner references (apiVersion with a
version, kind, name and uid non-empty, no ``v1`` Event, at most one
controller) and, on create, ``generation`` and finalizers. On update, name,
namespace and uid never change and ``generation`` never goes down.

Offline, three things differ from a live apiserver, on purpose: the
namespace may be left out (``kubectl`` fills it in), an update needs no
``resourceVersion`` (there is no stored version to compare it with), and the
keys of labels and annotations are checked in sorted order (Go visits a map
in random order). ``managedFields`` is not checked.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from workloadbuilder.field import ErrorList, FieldPath, invalid, required, too_long
from workloadbuilder.validation.formats import is_dns1123_label, is_dns1123_subdomain, is_label_key, is_label_value
from workloadbuilder.validation.gotypes import GoStruct

__all__ = ["TOTAL_ANNOTATION_SIZE_LIMIT", "metadata_errors"]

TOTAL_ANNOTATION_SIZE_LIMIT = 256 * (1 << 10)  # TotalAnnotationSizeLimitB: keys and values, in bytes
_ORPHAN, _FOREGROUND = "orphan", "foregroundDeletion"
_BANNED_OWNERS = {("", "v1", "Event")}
_PATH = FieldPath("metadata")


def metadata_errors(meta: Mapping[str, Any], old: Mapping[str, Any] | None) -> ErrorList:
    """``metadata`` (canonical JSON) on create (``old`` is ``None``) or on update from ``old``, in Go's order."""
    errs = _update_errors(meta, old) if old is not None else _create_errors(meta)
    errs += _labels(meta.get("labels") or {}, _PATH.child("labels"))
    errs += _annotations(meta.get("annotations") or {}, _PATH.child("annotations"))
    errs += _owner_references(meta.get("ownerReferences") or [], _PATH.child("ownerReferences"))
    if old is None:
        errs += _finalizers(meta.get("finalizers") or [], _PATH.child("finalizers"))
    return errs


def _create_errors(meta: Mapping[str, Any]) -> ErrorList:
    """Name or generateName, the namespace's format, a non-negative generation."""
    errs = ErrorList()
    name, namespace = meta.get("name") or "", meta.get("namespace") or ""
    generate_name = meta.get("generateName") or ""
    if generate_name:
        errs.extend(
            invalid(_PATH.child("generateName"), generate_name, msg)
            for msg in is_dns1123_subdomain(_mask_trailing_dash(generate_name))
        )
    if not name:
        if not generate_name:  # the apiserver generates the name before it validates
            errs.append(required(_PATH.child("name"), "name or generateName is required"))
    else:
        errs.extend(invalid(_PATH.child("name"), name, msg) for msg in is_dns1123_subdomain(name))
    if namespace:
        errs.extend(invalid(_PATH.child("namespace"), namespace, msg) for msg in is_dns1123_label(namespace))
    generation = meta.get("generation") or 0
    if generation < 0:
        errs.append(invalid(_PATH.child("generation"), generation, "must be greater than or equal to 0"))
    return errs


def _mask_trailing_dash(name: str) -> str:
    """Go's ``maskTrailingDash``: the last two characters become ``a`` when the prefix ends in ``-``."""
    return name[:-2] + "a" if len(name) > 1 and name.endswith("-") else name


def _update_errors(meta: Mapping[str, Any], old: Mapping[str, Any]) -> ErrorList:
    """Generation never decremented; name, namespace and uid immutable."""
    errs = ErrorList()
    generation = meta.get("generation") or 0
    if generation < (old.get("generation") or 0):
        errs.append(invalid(_PATH.child("generation"), generation, "must not be decremented"))
    for field in ("name", "namespace", "uid"):
        value = meta.get(field) or ""
        if value != (old.get(field) or ""):
            errs.append(invalid(_PATH.child(field), value, "field is immutable"))
    return errs


def _labels(labels: Mapping[str, str], path: FieldPath) -> ErrorList:
    """Each key a qualified name, each value a label value; errors at ``metadata.labels`` itself."""
    errs = ErrorList()
    for key in sorted(labels):
        errs.extend(invalid(path, key, msg) for msg in is_label_key(key))
        value = labels[key] or ""
        errs.extend(invalid(path, value, msg) for msg in is_label_value(value))
    return errs


def _annotations(annotations: Mapping[str, str], path: FieldPath) -> ErrorList:
    """Each key a qualified name in lower case; all keys and values together at most 256 KiB."""
    errs = ErrorList()
    for key in sorted(annotations):
        errs.extend(invalid(path, key, msg) for msg in is_label_key(key.lower()))
    size = sum(_bytes(key) + _bytes(value or "") for key, value in annotations.items())
    if size > TOTAL_ANNOTATION_SIZE_LIMIT:
        errs.append(too_long(path, TOTAL_ANNOTATION_SIZE_LIMIT))
    return errs


def _bytes(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def _owner_references(refs: Sequence[Mapping[str, Any]], path: FieldPath) -> ErrorList:
    """Each reference complete and not to a banned kind; at most one with ``controller: true``."""
    errs = ErrorList()
    first_controller = ""
    for ref in refs:
        errs += _owner_reference(ref, path)
        if ref.get("controller"):
            current = f"{ref.get('kind') or ''}/{ref.get('name') or ''}"
            if first_controller:
                detail = (
                    'Only one reference can have Controller set to true. Found "true" in references for '
                    f"{first_controller} and {current}"
                )
                errs.append(invalid(path, [_owner_value(r) for r in refs], detail))
            else:
                first_controller = current
    return errs


def _owner_reference(ref: Mapping[str, Any], path: FieldPath) -> ErrorList:
    errs = ErrorList()
    api_version, kind = ref.get("apiVersion") or "", ref.get("kind") or ""
    group, version = _parse_group_version(api_version)
    if not version:
        errs.append(invalid(path.child("apiVersion"), api_version, "version must not be empty"))
    if not kind:
        errs.append(invalid(path.child("kind"), kind, "kind must not be empty"))
    for field in ("name", "uid"):
        if not ref.get(field):
            errs.append(invalid(path.child(field), ref.get(field) or "", f"{field} must not be empty"))
    if (group, version, kind) in _BANNED_OWNERS:
        detail = f"{group}/{version}, Kind={kind} is disallowed from being an owner"
        errs.append(invalid(path, _owner_value(ref), detail))
    return errs


def _owner_value(ref: Mapping[str, Any]) -> GoStruct:
    """An owner reference as Go's ``json.Marshal`` writes ``metav1.OwnerReference``: its fields in order."""
    fields: list[tuple[str, Any]] = [(key, ref.get(key) or "") for key in ("apiVersion", "kind", "name", "uid")]
    fields += [(key, ref[key]) for key in ("controller", "blockOwnerDeletion") if ref.get(key) is not None]
    return GoStruct(fields)


def _parse_group_version(api_version: str) -> tuple[str, str]:
    """Go's ``schema.ParseGroupVersion``, an unparsable string giving no group and no version."""
    if api_version in ("", "/"):
        return "", ""
    if api_version.count("/") == 0:
        return "", api_version
    if api_version.count("/") == 1:
        group, _, version = api_version.partition("/")
        return group, version
    return "", ""


def _finalizers(finalizers: Sequence[str], path: FieldPath) -> ErrorList:
    """Each finalizer a qualified name; ``orphan`` and ``foregroundDeletion`` not both."""
    errs = ErrorList()
    for finalizer in finalizers:
        errs.extend(invalid(path, finalizer, msg) for msg in is_label_key(finalizer))
    if _ORPHAN in finalizers and _FOREGROUND in finalizers:
        errs.append(invalid(path, list(finalizers), f"finalizer {_ORPHAN} and {_FOREGROUND} cannot be both set"))
    return errs
