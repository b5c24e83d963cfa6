"""The apiserver's hand-written ``metadata`` checks that matter for these objects.

Workloads, PodGroups and CompositePodGroups are named like most objects: a
DNS subdomain, given as ``name`` or derived from ``generateName``, in a
namespace whose name is a DNS label; name and namespace never change. The
messages are ``k8s.io/apimachinery/pkg/api/validation``'s. The namespace may
be left out (``kubectl`` fills it in); labels, annotations and owner
references are not checked here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from workloadbuilder.field import ErrorList, FieldPath, invalid, required
from workloadbuilder.validation.formats import is_dns1123_label, is_dns1123_subdomain

__all__ = ["metadata_errors"]

_PATH = FieldPath("metadata")


def metadata_errors(meta: Mapping[str, Any], old: Mapping[str, Any] | None) -> ErrorList:
    """``metadata`` on create (``old`` is ``None``): name or generateName, formats; on update: name and namespace
    kept.
    """
    name, namespace = meta.get("name") or "", meta.get("namespace") or ""
    if old is not None:
        errs = ErrorList()
        for field, value in (("name", name), ("namespace", namespace)):
            if value != (old.get(field) or ""):
                errs.append(invalid(_PATH.child(field), value, "field is immutable"))
        return errs
    errs = ErrorList()
    generate_name = meta.get("generateName") or ""
    if generate_name:
        # A prefix may end with the dash the random suffix follows.
        masked = generate_name[:-1] + "a" if generate_name.endswith("-") and len(generate_name) > 1 else generate_name
        errs.extend(invalid(_PATH.child("generateName"), generate_name, msg) for msg in is_dns1123_subdomain(masked))
    if not name:
        if not generate_name:  # the apiserver generates the name before it validates
            errs.append(required(_PATH.child("name"), "name or generateName is required"))
    else:
        errs.extend(invalid(_PATH.child("name"), name, msg) for msg in is_dns1123_subdomain(name))
    if namespace:
        errs.extend(invalid(_PATH.child("namespace"), namespace, msg) for msg in is_dns1123_label(namespace))
    return errs
