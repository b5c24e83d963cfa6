"""``metadata`` as a 1.37 apiserver checks it, on create and on update.

On **create** the scheduling kinds' hand-written validation runs core's
``ValidateObjectMeta``: apimachinery's ``ValidateObjectMeta`` with names as
DNS subdomains (``generateName`` with its trailing dash masked, then the name
the apiserver generated from it), the namespace as a DNS label, a
non-negative ``generation``, labels, annotations, owner references (each at
its index: apiVersion, kind, name and uid set, the apiVersion
``<group>/<version>`` or ``<version>``, no ``v1`` Event, at most one
controller) and finalizers (qualified names, not both ``orphan`` and
``foregroundDeletion``); then core's own finalizer rule, at each index: a
finalizer without a ``/`` must be a standard one.

On **update** the request is first prepared as the apiserver prepares it: a
missing namespace is the request's (here: the stored object's), the
generation is the stored one (the store overwrites it), a missing uid is the
stored one, and stored timestamps are kept. Then ``rest.BeforeUpdate``'s
common checks run: ``ValidateObjectMetaAccessor`` with names as URL path
segments (so ``A`` passes, ``.`` does not), then what
``ValidateObjectMetaAccessorUpdate`` adds (no new finalizer on an object being
deleted, name, namespace, uid and timestamps immutable), then core's
finalizer rule. Nothing ratchets: an invalid name the stored object already
had is reported again. A check the apiserver's path repeats (labels are read
by three of its functions) is reported once, as in the recorded answers.

Offline, some things differ from a live apiserver, on purpose (see
``docs/differences.md``): the namespace may be left out on create (``kubectl``
fills it in), an update needs no ``resourceVersion`` (there is no stored
version to compare it with), a changed name or namespace is reported as
immutable (a live apiserver refuses it as unlike the request URL), a
generated name ends in the fixed suffix :data:`GENERATED_SUFFIX`, the keys
of labels and annotations are checked in sorted order (Go visits a map in
random order) and ``managedFields`` is not checked.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from workloadbuilder._internal.gofmt import go_quote
from workloadbuilder.field import ErrorList, FieldPath, forbidden, invalid, required, too_long
from workloadbuilder.validation.formats import (
    CHARACTERS,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_label_key,
    is_label_value,
    is_path_segment_name,
    is_path_segment_prefix,
)
from workloadbuilder.validation.gotypes import GoStruct

__all__ = [
    "GENERATED_SUFFIX",
    "MAX_GENERATED_PREFIX",
    "TOTAL_ANNOTATION_SIZE_LIMIT",
    "generated_name",
    "metadata_errors",
]

TOTAL_ANNOTATION_SIZE_LIMIT = 256 * (1 << 10)  # TotalAnnotationSizeLimitB: keys and values, in bytes
MAX_GENERATED_PREFIX = 63 - 5
"""``names.MaxGeneratedNameLength``: bytes of ``generateName`` a generated name keeps before its random suffix."""
GENERATED_SUFFIX = "b2c4d"
"""The five characters appended to ``generateName`` here, in place of the apiserver's random ones (drawn from
the same alphabet, so a generated name is valid exactly when the apiserver's would be)."""
_ORPHAN, _FOREGROUND = "orphan", "foregroundDeletion"
_STANDARD_FINALIZERS = frozenset({"kubernetes", _ORPHAN, _FOREGROUND})
_BANNED_OWNERS = {("", "v1", "Event")}
_PATH = FieldPath("metadata")
_IMMUTABLE = "field is immutable"


def generated_name(generate_name: str) -> str:
    """The name the apiserver gives an object created with ``generateName`` and no name (suffix fixed here)."""
    prefix = generate_name.encode("utf-8", "surrogatepass")[:MAX_GENERATED_PREFIX]
    return prefix.decode("utf-8", "ignore") + GENERATED_SUFFIX


def metadata_errors(meta: Mapping[str, Any], old: Mapping[str, Any] | None) -> ErrorList:
    """``metadata`` (canonical JSON) on create (``old`` is ``None``) or on update from ``old``, in Go's order."""
    if old is None:
        return _create_errors(meta)
    return _update_errors(_prepared_for_update(meta, old), old)


def _create_errors(meta: Mapping[str, Any]) -> ErrorList:
    """Core's ``ValidateObjectMeta`` with DNS-subdomain names, after the apiserver generated the name."""
    errs = ErrorList()
    name, generate_name = meta.get("name") or "", meta.get("generateName") or ""
    if generate_name:
        messages = is_dns1123_subdomain(_mask_trailing_dash(generate_name), CHARACTERS)
        errs.extend(invalid(_PATH.child("generateName"), generate_name, msg) for msg in messages)
        name = name or generated_name(generate_name)
    if not name:
        errs.append(required(_PATH.child("name"), "name or generateName is required"))
    else:
        errs.extend(invalid(_PATH.child("name"), name, msg) for msg in is_dns1123_subdomain(name, CHARACTERS))
    errs += _common(meta)
    errs += _finalizers(meta.get("finalizers") or [], _PATH.child("finalizers"))
    errs += _kube_finalizers(meta.get("finalizers") or [], _PATH.child("finalizers"))
    return errs


def _mask_trailing_dash(name: str) -> str:
    """Go's ``maskTrailingDash``: the last two characters become ``a`` when the prefix ends in ``-``."""
    return name[:-2] + "a" if len(name) > 1 and name.endswith("-") else name


def _prepared_for_update(meta: Mapping[str, Any], old: Mapping[str, Any]) -> dict[str, Any]:
    """``metadata`` as ``rest.BeforeUpdate`` hands it to validation: what the request may not set is the stored one."""
    prepared = dict(meta)
    if not prepared.get("namespace"):
        prepared["namespace"] = old.get("namespace")  # EnsureObjectNamespaceMatchesRequestNamespace fills it
    prepared["generation"] = old.get("generation")  # requests cannot update generation
    if not prepared.get("uid"):
        prepared["uid"] = old.get("uid")
    for stamp in ("creationTimestamp", "deletionTimestamp"):
        if old.get(stamp):
            prepared[stamp] = old[stamp]
    if old.get("deletionGracePeriodSeconds") is not None and prepared.get("deletionGracePeriodSeconds") is None:
        prepared["deletionGracePeriodSeconds"] = old["deletionGracePeriodSeconds"]
    return prepared


def _update_errors(meta: Mapping[str, Any], old: Mapping[str, Any]) -> ErrorList:
    """``rest.BeforeUpdate``'s common checks, then the strategy's ``ValidateObjectMetaUpdate``; each check once."""
    errs = ErrorList()
    name, generate_name = meta.get("name") or "", meta.get("generateName") or ""
    if generate_name:
        messages = is_path_segment_prefix(generate_name)
        errs.extend(invalid(_PATH.child("generateName"), generate_name, msg) for msg in messages)
    if not name:
        errs.append(required(_PATH.child("name"), "name or generateName is required"))
    else:
        errs.extend(invalid(_PATH.child("name"), name, msg) for msg in is_path_segment_name(name))
    errs += _common(meta)
    finalizers: Sequence[str] = meta.get("finalizers") or []
    errs += _finalizers(finalizers, _PATH.child("finalizers"))
    if old.get("deletionTimestamp"):
        errs += _no_new_finalizers(finalizers, old.get("finalizers") or [], _PATH.child("finalizers"))
    # The generation is the stored one, so it is never decremented; a timestamp differs only where none was stored.
    for field in ("name", "namespace", "uid", "creationTimestamp", "deletionTimestamp"):
        value = meta.get(field) or ""
        if value != (old.get(field) or ""):
            errs.append(invalid(_PATH.child(field), value, _IMMUTABLE))
    grace = meta.get("deletionGracePeriodSeconds")
    if grace != old.get("deletionGracePeriodSeconds"):
        errs.append(invalid(_PATH.child("deletionGracePeriodSeconds"), grace, _IMMUTABLE))
    errs += _kube_finalizers(finalizers, _PATH.child("finalizers"))
    return errs


def _common(meta: Mapping[str, Any]) -> ErrorList:
    """What create and update check alike: namespace, generation, labels, annotations, owner references."""
    errs = ErrorList()
    namespace = meta.get("namespace") or ""
    if namespace:  # offline, a missing namespace is the one kubectl will fill in
        errs.extend(invalid(_PATH.child("namespace"), namespace, m) for m in is_dns1123_label(namespace, CHARACTERS))
    generation = meta.get("generation") or 0
    if generation < 0:
        errs.append(invalid(_PATH.child("generation"), generation, "must be greater than or equal to 0"))
    errs += _labels(meta.get("labels") or {}, _PATH.child("labels"))
    errs += _annotations(meta.get("annotations") or {}, _PATH.child("annotations"))
    errs += _owner_references(meta.get("ownerReferences") or [], _PATH.child("ownerReferences"))
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
    """Each reference at its index; at most one with ``controller: true``, that error at the list."""
    errs = ErrorList()
    first_controller = ""
    for i, ref in enumerate(refs):
        errs += _owner_reference(ref, path.index(i))
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
    group_version = _parse_group_version(api_version)
    if not api_version:
        errs.append(required(path.child("apiVersion"), "must not be empty"))
    elif group_version is None or not group_version[1]:
        errs.append(invalid(path.child("apiVersion"), api_version, "must be <group>/<version> or <version>"))
    for field in ("kind", "name", "uid"):
        if not ref.get(field):
            errs.append(required(path.child(field), "must not be empty"))
    group, version = group_version or ("", "")
    if (group, version, kind) in _BANNED_OWNERS:
        detail = f"{group}/{version}, Kind={kind} is disallowed from being an owner"
        errs.append(invalid(path, _owner_value(ref), detail))
    return errs


def _owner_value(ref: Mapping[str, Any]) -> GoStruct:
    """An owner reference as Go's ``json.Marshal`` writes ``metav1.OwnerReference``: its fields in order."""
    fields: list[tuple[str, Any]] = [(key, ref.get(key) or "") for key in ("apiVersion", "kind", "name", "uid")]
    fields += [(key, ref[key]) for key in ("controller", "blockOwnerDeletion") if ref.get(key) is not None]
    return GoStruct(fields)


def _parse_group_version(api_version: str) -> tuple[str, str] | None:
    """Go's ``schema.ParseGroupVersion``: ``(group, version)``, or ``None`` where Go returns an error."""
    if api_version in ("", "/"):
        return "", ""
    if api_version.count("/") == 0:
        return "", api_version
    if api_version.count("/") == 1:
        group, _, version = api_version.partition("/")
        return group, version
    return None


def _finalizers(finalizers: Sequence[str], path: FieldPath) -> ErrorList:
    """Each finalizer a qualified name (errors at the list); ``orphan`` and ``foregroundDeletion`` not both."""
    errs = ErrorList()
    for finalizer in finalizers:
        errs.extend(invalid(path, finalizer, msg) for msg in is_label_key(finalizer))
    if _ORPHAN in finalizers and _FOREGROUND in finalizers:
        errs.append(invalid(path, list(finalizers), f"finalizer {_ORPHAN} and {_FOREGROUND} cannot be both set"))
    return errs


def _kube_finalizers(finalizers: Sequence[str], path: FieldPath) -> ErrorList:
    """Core's rule, at each index: a finalizer with no domain (no ``/``) must be a standard one."""
    detail = "name is neither a standard finalizer name nor is it fully qualified"
    return ErrorList(
        invalid(path.index(i), finalizer, detail)
        for i, finalizer in enumerate(finalizers)
        if "/" not in finalizer and finalizer not in _STANDARD_FINALIZERS
    )


def _no_new_finalizers(finalizers: Sequence[str], old: Sequence[str], path: FieldPath) -> ErrorList:
    """An object being deleted may lose finalizers but not gain one (Go prints the new ones with ``%#v``)."""
    extra = sorted(set(finalizers) - set(old))
    if not extra:
        return ErrorList()
    shown = "[]string{" + ", ".join(go_quote(name) for name in extra) + "}"
    detail = f"no new finalizers can be added if the object is being deleted, found new finalizers {shown}"
    return ErrorList([forbidden(path, detail)])
