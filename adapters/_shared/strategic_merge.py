"""A strategic merge patch of a JobSet spec, as ``strategicpatch.StrategicMergePatch`` applies one.

Kubeflow Trainer renders a TrainJob's JobSet from its runtime's JobSet
spec with each of the TrainJob's ``spec.runtimePatches`` merged in, in
order, as a strategic merge patch against the JobSet spec's Go type; the
pods the JobSet makes come from the merged templates. ``merge`` ports the
rules that patch follows, from k8s.io/apimachinery **v0.37.2**
(``pkg/util/strategicpatch/patch.go``: ``mergeMap``, ``mergeSlice``,
``mergeSliceWithoutSpecialElements``, ``normalizeElementOrder``,
``mergeSortedSlice``), with the list strategies the types declare
(``patchStrategy`` / ``patchMergeKey`` tags of JobSet v1alpha2 and
k8s.io/api v0.37.2 core/v1 and meta/v1):

* a mapping merges key by key; a ``null`` in the patch deletes the key;
* a list of objects with a merge key merges item by item on that key, an
  item the original lacks is added; the merged list holds the patch's
  items in the patch's order, with the original's other items put back
  among them by their order in the original (``mergeSortedSlice``);
* a list of scalars with the merge strategy is the original's items then
  the patch's new ones, without repeats;
* any other list (tolerations, args, ...) and any scalar is replaced.

Patch directives (``$patch``, ``$retainKeys``, ``$deleteFromPrimitiveList``,
``$setElementOrder``) are not ported: ``merge`` refuses a patch holding one
with ``UnsupportedPatch``, and the caller says the patch was not applied.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from workloadbuilder.errors import WorkloadBuilderError

__all__ = ["JOBSET_SPEC", "UnsupportedPatch", "merge"]


class UnsupportedPatch(WorkloadBuilderError, ValueError):
    """A patch this port does not apply (a ``$`` directive, or a list item without its merge key)."""


_CONTAINER: dict[str, Any] = {
    "ports": ("containerPort", {}),
    "env": ("name", {}),
    "volumeMounts": ("mountPath", {}),
    "volumeDevices": ("devicePath", {}),
}
_META: dict[str, Any] = {"ownerReferences": ("uid", {}), "finalizers": ("", {})}
_POD_SPEC: dict[str, Any] = {
    "volumes": ("name", {}),
    "initContainers": ("name", _CONTAINER),
    "containers": ("name", _CONTAINER),
    "ephemeralContainers": ("name", _CONTAINER),
    "imagePullSecrets": ("name", {}),
    "hostAliases": ("ip", {}),
    "topologySpreadConstraints": ("topologyKey", {}),
    "schedulingGates": ("name", {}),
    "evictionResponders": ("name", {}),
    "resourceClaims": ("name", {}),
}
_POD_TEMPLATE: dict[str, Any] = {"metadata": _META, "spec": _POD_SPEC}
_JOB_TEMPLATE: dict[str, Any] = {"metadata": _META, "spec": {"template": _POD_TEMPLATE}}
JOBSET_SPEC: dict[str, Any] = {
    "replicatedJobs": ("name", {"template": _JOB_TEMPLATE}),
    "replicatedJobsStatus": ("name", {}),
}
"""The list strategies inside a JobSet spec: by field, a nested mapping, or ``(merge key, item schema)`` for a
list with the merge strategy (merge key ``""``: a list of scalars). Fields absent from it are replaced."""


def merge(original: Any, patch: Any, schema: Mapping[str, Any] = JOBSET_SPEC) -> Any:
    """``original`` with ``patch`` merged in by the rules above; neither argument is changed.

    Raises:
        UnsupportedPatch: the patch holds a directive, or a merged list's item lacks its merge key.

    Examples:
        >>> spec = {"replicatedJobs": [{"name": "node", "template": {"spec": {"template": {"spec": {
        ...     "nodeSelector": {"a": "1"}, "containers": [{"name": "node", "image": "x"}]}}}}}]}
        >>> patch = {"replicatedJobs": [{"name": "node", "template": {"spec": {"template": {"spec": {
        ...     "nodeSelector": {"b": "2"}, "tolerations": [{"key": "t", "operator": "Exists"}]}}}}}]}
        >>> pod = merge(spec, patch)["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
        >>> pod["nodeSelector"], pod["tolerations"], pod["containers"][0]["image"]
        ({'a': '1', 'b': '2'}, [{'key': 't', 'operator': 'Exists'}], 'x')
    """
    return _merge_value(copy.deepcopy(original), patch, schema)


def _merge_value(original: Any, patch: Any, schema: Mapping[str, Any]) -> Any:
    """A mapping merged into a mapping; anything else replaces."""
    if not isinstance(patch, Mapping):
        return copy.deepcopy(patch)
    if not isinstance(original, dict):
        original = {}
    for key, value in patch.items():
        if isinstance(key, str) and key.startswith("$"):
            raise UnsupportedPatch(f"the patch directive {key!r} is not applied")
        if value is None:  # a null in a patch deletes the field
            original.pop(key, None)
            continue
        strategy = schema.get(key)
        if isinstance(strategy, tuple) and isinstance(value, list) and isinstance(original.get(key), list):
            merge_key, item_schema = strategy
            original[key] = _merge_list(original[key], value, merge_key, item_schema)
        elif isinstance(value, Mapping):
            nested = strategy if isinstance(strategy, Mapping) else {}
            original[key] = _merge_value(original.get(key), value, nested)
        else:
            original[key] = copy.deepcopy(value)
    return original


def _merge_list(original: list[Any], patch: list[Any], merge_key: str, item_schema: Mapping[str, Any]) -> list[Any]:
    """A list with the merge strategy: scalars joined without repeats, objects merged on ``merge_key``."""
    if not merge_key:
        return list(dict.fromkeys([*original, *patch]))  # deduplicateScalars keeps first appearances
    for item in (*original, *patch):
        if not isinstance(item, Mapping) or merge_key not in item:
            raise UnsupportedPatch(f"a list item without its merge key {merge_key!r}")
        if any(isinstance(key, str) and key.startswith("$") for key in item):
            raise UnsupportedPatch("a list item with a patch directive is not applied")
    server_order = [item[merge_key] for item in original]
    merged = list(original)
    for item in patch:
        at = next((i for i, old in enumerate(merged) if old[merge_key] == item[merge_key]), None)
        if at is None:
            merged.append(copy.deepcopy(item))
        else:
            merged[at] = _merge_value(merged[at], item, item_schema)
    patch_keys = [item[merge_key] for item in patch]
    in_patch = [item for item in merged if item[merge_key] in patch_keys]
    server_only = [item for item in merged if item[merge_key] not in patch_keys]
    in_patch.sort(key=lambda item: patch_keys.index(item[merge_key]))
    server_only.sort(key=lambda item: server_order.index(item[merge_key]))
    return _interleave(server_only, in_patch, server_order, merge_key)


def _interleave(left: list[Any], right: list[Any], server_order: list[Any], merge_key: str) -> list[Any]:
    """``mergeSortedSlice``: the server-only items put among the patch's, by their order in the original."""

    def position(item: Any) -> int:
        value = item[merge_key]
        return server_order.index(value) if value in server_order else -1

    out: list[Any] = []
    i = j = 0
    while i < len(left) or j < len(right):
        if j >= len(right):
            out.append(left[i])
            i += 1
        elif i >= len(left):
            out.append(right[j])
            j += 1
        else:
            li, ri = position(left[i]), position(right[j])
            if li >= 0 and ri >= 0 and li < ri:
                out.append(left[i])
                i += 1
            else:
                out.append(right[j])
                j += 1
    return out
