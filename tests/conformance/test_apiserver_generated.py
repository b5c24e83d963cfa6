"""Seeded random metadata and conditions, with the errors the 1.37 apiserver's rules give them.

The expectations are worked out here from the Go rules themselves, not from
this project's output: each value a generator may pick carries, in a table
written from the rule, the messages Go gives it (apimachinery eed236ce
``pkg/api/validation/objectmeta.go`` and ``generic.go``, ``pkg/util/validation``,
``pkg/apis/meta/v1/validation.ValidateConditions``; apiserver 24a394e5
``pkg/registry/rest/create.go`` and ``update.go``; core's finalizer rule). A
failing seed names the case; rerun it with ``-k seed-<n>``.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from workloadbuilder.validation.objects import validate_composite_pod_group, validate_pod_group, validate_workload

SUB = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start "
    "and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
LABEL = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end "
    "with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
NAME_PART = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
    "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
THREE_PARTS = (
    "a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' "
    "(e.g. 'example.com/MyName')"
)
LONG = "a" * 254

# name -> (messages as a DNS subdomain on create, messages as a URL path segment on update)
NAMES: dict[str, tuple[list[str], list[str]]] = {
    "train": ([], []),
    "a.b": ([], []),
    "A": ([SUB], []),
    "a%b": ([SUB], ["may not contain '%'"]),
    ".": ([SUB], ["may not be '.'"]),
    "..": ([SUB], ["may not be '..'"]),
    "a/b": ([SUB], ["may not contain '/'"]),
    LONG: (["must be no more than 253 characters"], []),
}
# generateName -> (create: as a subdomain, trailing dash masked; create: the generated name's; update: path prefix)
GENERATE_NAMES: dict[str, tuple[list[str], list[str], list[str]]] = {
    "train-": ([], [], []),
    "Gen-": ([SUB], [SUB], []),
    "a/b-": ([SUB], [SUB], ["may not contain '/'"]),
    "-": ([SUB], [SUB], []),
    ".": ([SUB], [SUB], []),
    "a%-": ([], [SUB], ["may not contain '%'"]),  # masked, its last two characters are "a": "aa"
    LONG: (["must be no more than 253 characters"], [], []),  # the generated name keeps 58 bytes of it
}
# namespace -> messages as a DNS label (lengths in characters)
NAMESPACES: dict[str, list[str]] = {
    "ml": [],
    "team-a": [],
    "a.b": ["must not contain dots"],
    "ML": [LABEL],
    "a" * 64: ["must be no more than 63 characters"],
}
# finalizer -> (messages as a qualified name, refused by core's rule as neither standard nor domain-qualified)
FINALIZERS: dict[str, tuple[list[str], bool]] = {
    "kubernetes": ([], False),
    "orphan": ([], False),
    "foregroundDeletion": ([], False),
    "cleanup": ([], True),
    "example.com/f": ([], False),
    "a/b/c": ([THREE_PARTS], False),
    "Example.com/F": (["prefix part " + SUB], False),
    "a b": ([NAME_PART], True),
}
# apiVersion -> (group, version), or None where schema.ParseGroupVersion fails
API_VERSIONS: dict[str, tuple[str, str] | None] = {
    "batch/v1": ("batch", "v1"),
    "v1": ("", "v1"),
    "/v1": ("", "v1"),
    "": ("", ""),
    "/": ("", ""),
    "batch/": ("batch", ""),
    "a/b/c": None,
}

SPECS = {
    "Workload": (
        "scheduling.k8s.io/v1beta1",
        {"podGroupTemplates": [{"name": "workers", "schedulingPolicy": {"gang": {"minCount": 4}}}]},
    ),
    "PodGroup": (
        "scheduling.k8s.io/v1beta1",
        {
            "schedulingPolicy": {"gang": {"minCount": 4}},
            "workloadRef": {"templateName": "workers", "workloadName": "train"},
        },
    ),
    "CompositePodGroup": (
        "scheduling.k8s.io/v1alpha3",
        {
            "schedulingPolicy": {"gang": {"minGroupCount": 2}},
            "workloadRef": {"templateName": "replica", "workloadName": "lws"},
        },
    ),
}
VALIDATORS = {
    "Workload": validate_workload,
    "PodGroup": validate_pod_group,
    "CompositePodGroup": validate_composite_pod_group,
}


def _quote(text: str) -> str:
    return json.dumps(text)  # the pools are ASCII without escapes: Go's %q writes them as JSON does


def _object(kind: str, meta: dict[str, Any]) -> dict[str, Any]:
    api_version, spec = SPECS[kind]
    return {"apiVersion": api_version, "kind": kind, "metadata": meta, "spec": copy.deepcopy(spec)}


def _owner_refs(rng: random.Random) -> list[dict[str, Any]]:
    refs = []
    for _ in range(rng.choice([0, 0, 1, 1, 2, 3])):
        ref: dict[str, Any] = {
            "apiVersion": _pick(rng, API_VERSIONS, "batch/v1"),
            "kind": rng.choice(["Job", "Job", "", "Event"]),
            "name": rng.choice(["j", "j", ""]),
            "uid": rng.choice(["u-1", "u-1", ""]),
        }
        controller = rng.choice([None, None, True, False])
        if controller is not None:
            ref["controller"] = controller
        refs.append(ref)
    return refs


def _owner_json(ref: dict[str, Any]) -> str:
    """metav1.OwnerReference as json.Marshal writes it: fields in order, controller only when set."""
    fields = {key: ref[key] for key in ("apiVersion", "kind", "name", "uid")}
    if "controller" in ref:
        fields["controller"] = ref["controller"]
    return json.dumps(fields, separators=(",", ":"))


def _owner_errors(refs: list[dict[str, Any]]) -> list[str]:
    """validateOwnerReference at each index, then the second controller's error at the list."""
    path, out, first = "metadata.ownerReferences", [], ""
    for i, ref in enumerate(refs):
        at = f"{path}[{i}]"
        parsed = API_VERSIONS[ref["apiVersion"]]
        if ref["apiVersion"] == "":
            out.append(f"{at}.apiVersion: Required value: must not be empty")
        elif parsed is None or parsed[1] == "":
            out.append(
                f"{at}.apiVersion: Invalid value: {_quote(ref['apiVersion'])}: must be <group>/<version> or <version>"
            )
        out += [f"{at}.{key}: Required value: must not be empty" for key in ("kind", "name", "uid") if not ref[key]]
        group, version = parsed or ("", "")
        if (group, version, ref["kind"]) == ("", "v1", "Event"):
            out.append(f"{at}: Invalid value: {_owner_json(ref)}: /v1, Kind=Event is disallowed from being an owner")
        if ref.get("controller"):
            current = f"{ref['kind']}/{ref['name']}"
            if first:
                listed = "[" + ",".join(_owner_json(r) for r in refs) + "]"
                out.append(
                    f"{path}: Invalid value: {listed}: Only one reference can have Controller set to true. "
                    f'Found "true" in references for {first} and {current}'
                )
            else:
                first = current
    return out


def _finalizer_errors(finalizers: list[str]) -> tuple[list[str], list[str]]:
    """apimachinery's ValidateFinalizers (at the list), and core's rule (at each index), apart."""
    at = "metadata.finalizers"
    listed = [f"{at}: Invalid value: {_quote(f)}: {msg}" for f in finalizers for msg in FINALIZERS[f][0]]
    if "orphan" in finalizers and "foregroundDeletion" in finalizers:
        shown = json.dumps(finalizers, separators=(",", ":"))
        listed.append(f"{at}: Invalid value: {shown}: finalizer orphan and foregroundDeletion cannot be both set")
    indexed = [
        f"{at}[{i}]: Invalid value: {_quote(f)}: name is neither a standard finalizer name nor is it fully qualified"
        for i, f in enumerate(finalizers)
        if FINALIZERS[f][1]
    ]
    return listed, indexed


def _shared_errors(namespace: str | None, generation: int | None, refs: list[dict[str, Any]]) -> list[str]:
    out = (
        [f"metadata.namespace: Invalid value: {_quote(namespace)}: {msg}" for msg in NAMESPACES[namespace]]
        if namespace
        else []
    )
    if (generation or 0) < 0:
        out.append(f"metadata.generation: Invalid value: {generation}: must be greater than or equal to 0")
    return out + _owner_errors(refs)


def _pick(rng: random.Random, pool: dict[str, Any], usual: str) -> str:
    """Half the time the usual, valid value; else any of the pool."""
    return usual if rng.random() < 0.5 else rng.choice(list(pool))


def _pick_meta(rng: random.Random) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    if rng.random() < 0.8:
        meta["name"] = _pick(rng, NAMES, "train")
    if rng.random() < 0.4:
        meta["generateName"] = _pick(rng, GENERATE_NAMES, "train-")
    if rng.random() < 0.85:
        meta["namespace"] = _pick(rng, NAMESPACES, "ml")
    if rng.random() < 0.3:
        meta["generation"] = rng.choice([0, 3, -1])
    refs = _owner_refs(rng)
    if refs:
        meta["ownerReferences"] = refs
    finalizers = rng.sample(list(FINALIZERS), rng.choice([0, 0, 0, 1, 2, 3]))
    if finalizers:
        meta["finalizers"] = finalizers
    return meta


def _create_expected(meta: dict[str, Any]) -> list[str]:
    """Core's ValidateObjectMeta after name generation: DNS subdomain names, a DNS label namespace."""
    out: list[str] = []
    name, generate_name = meta.get("name"), meta.get("generateName")
    if generate_name:
        out += [
            f"metadata.generateName: Invalid value: {_quote(generate_name)}: {msg}"
            for msg in GENERATE_NAMES[generate_name][0]
        ]
    if name:
        out += [f"metadata.name: Invalid value: {_quote(name)}: {msg}" for msg in NAMES[name][0]]
    elif generate_name:
        generated = generate_name[:58] + "b2c4d"
        messages = GENERATE_NAMES[generate_name][1]
        out += [f"metadata.name: Invalid value: {_quote(generated)}: {msg}" for msg in messages]
    else:
        out.append("metadata.name: Required value: name or generateName is required")
    out += _shared_errors(meta.get("namespace"), meta.get("generation"), meta.get("ownerReferences") or [])
    listed, indexed = _finalizer_errors(meta.get("finalizers") or [])
    return out + listed + indexed


def _update_expected(meta: dict[str, Any], old: dict[str, Any]) -> list[str]:
    """BeforeUpdate: namespace from the request, the stored generation, path-segment names, no ratcheting."""
    out: list[str] = []
    name, generate_name = meta.get("name") or "", meta.get("generateName")
    namespace = meta.get("namespace") or old.get("namespace")
    if generate_name:
        out += [
            f"metadata.generateName: Invalid value: {_quote(generate_name)}: {msg}"
            for msg in GENERATE_NAMES[generate_name][2]
        ]
    if not name:
        out.append("metadata.name: Required value: name or generateName is required")
    else:
        out += [f"metadata.name: Invalid value: {_quote(name)}: {msg}" for msg in NAMES[name][1]]
    out += _shared_errors(namespace, old.get("generation"), meta.get("ownerReferences") or [])
    listed, indexed = _finalizer_errors(meta.get("finalizers") or [])
    out += listed
    if name != (old.get("name") or ""):
        out.append(f"metadata.name: Invalid value: {_quote(name)}: field is immutable")
    if (namespace or "") != (old.get("namespace") or ""):
        out.append(f"metadata.namespace: Invalid value: {_quote(namespace or '')}: field is immutable")
    return out + indexed


SEEDS = range(300)


@pytest.mark.parametrize("seed", SEEDS, ids=[f"seed-{s}" for s in SEEDS])
def test_generated_create_metadata(seed: int) -> None:
    rng = random.Random(f"create-{seed}")
    kind = rng.choice(list(SPECS))
    meta = _pick_meta(rng)
    assert [str(e) for e in VALIDATORS[kind](_object(kind, meta))] == _create_expected(meta)


@pytest.mark.parametrize("seed", SEEDS, ids=[f"seed-{s}" for s in SEEDS])
def test_generated_update_metadata(seed: int) -> None:
    rng = random.Random(f"update-{seed}")
    kind = rng.choice(list(SPECS))
    old = {"name": rng.choice(list(NAMES)), "namespace": rng.choice(list(NAMESPACES))}
    if rng.random() < 0.4:
        old["generation"] = rng.choice([2, -1])
    meta = _pick_meta(rng)
    if rng.random() < 0.7:  # mostly the same name: an invalid stored name is checked again, not ratcheted
        meta["name"] = old["name"]
    if rng.random() < 0.5:
        meta.pop("namespace", None)  # filled from the request's namespace, the stored one here
    elif rng.random() < 0.7:
        meta["namespace"] = old["namespace"]
    errs = VALIDATORS[kind](_object(kind, meta), old=_object(kind, old))
    assert [str(e) for e in errs] == _update_expected(meta, old)


CONDITION_TYPES = ["PodGroupInitiallyScheduled", "Ready", ""]
STATUSES = {"True": None, "False": None, "Unknown": None, "": "Required value", "Maybe": "Unsupported value"}


def _condition(rng: random.Random) -> dict[str, Any]:
    condition: dict[str, Any] = {
        "type": rng.choice(CONDITION_TYPES),
        "status": rng.choice(list(STATUSES)),
        "reason": rng.choice(["Scheduled", "Scheduled", ""]),
        "message": "m",
    }
    if rng.random() < 0.8:
        condition["lastTransitionTime"] = "2026-07-01T00:00:00Z"
    if rng.random() < 0.3:
        condition["observedGeneration"] = rng.choice([1, -1])
    return condition


def _conditions_expected(conditions: list[dict[str, Any]]) -> list[str]:
    """ValidateConditions: item by item, a repeated type at the item, then the item's own fields in order."""
    out, seen = [], set()
    for i, condition in enumerate(conditions):
        at = f"status.conditions[{i}]"
        if condition["type"] in seen:
            out.append(f"{at}: Duplicate value: {_quote(condition['type'])}")
        seen.add(condition["type"])
        if not condition["type"]:
            out.append(f"{at}.type: Required value: is required")
        status = condition["status"]
        if STATUSES[status] == "Required value":
            out.append(f"{at}.status: Required value")
        elif STATUSES[status]:
            supported = '"False", "True", "Unknown"'
            out.append(f"{at}.status: Unsupported value: {_quote(status)}: supported values: {supported}")
        if condition.get("observedGeneration", 0) < 0:
            out.append(f"{at}.observedGeneration: Invalid value: -1: must be greater than or equal to zero")
        if "lastTransitionTime" not in condition:
            out.append(f"{at}.lastTransitionTime: Required value")
        if not condition["reason"]:
            out.append(f"{at}.reason: Required value")
    return out


@pytest.mark.parametrize("seed", SEEDS, ids=[f"seed-{s}" for s in SEEDS])
def test_generated_status_conditions(seed: int) -> None:
    rng = random.Random(f"conditions-{seed}")
    kind = rng.choice(["PodGroup", "CompositePodGroup"])
    old = _object(kind, {"name": "g", "namespace": "ml"})
    new = copy.deepcopy(old)
    new["status"] = {"conditions": [_condition(rng) for _ in range(rng.choice([0, 1, 2, 3, 4]))]}
    errs = VALIDATORS[kind](new, old=old, subresource="status")
    assert [str(e) for e in errs] == _conditions_expected(new["status"]["conditions"])


def test_generators_reach_every_rule() -> None:
    """The seeds above do produce each kind of error, so a rule left unported would be caught."""
    texts = set()
    for seed in SEEDS:
        texts.update(_create_expected(_pick_meta(random.Random(f"create-{seed}"))))
    wanted = [
        "ownerReferences[0].apiVersion: Required",
        "must be <group>/<version>",
        "Kind=Event",
        "Only one reference",
        "neither a standard finalizer",
        "cannot be both set",
        'metadata.name: Invalid value: "Gen-b2c4d"',
        "253 characters",
        "63 characters",
        "must not contain dots",
    ]
    assert [w for w in wanted if not any(w in t for t in texts)] == []
