"""Generate ``adapters/schemas/fields.json``: the field trees the adapters check controller objects against.

Run from the repository's root with ``../shared/crds`` beside it::

    python tools/gen_schemas.py [CRDS_DIR]

(``CRDS_DIR`` defaults to ``../shared/crds``; a git worktree elsewhere passes it.)

Sources:

* ``batch/v1`` Job: the kubernetes client's models (they know 1.37's
  ``spec.scheduling`` and the pod template's ``schedulingGroup``);
* JobSet, LeaderWorkerSet, TrainJob, TrainingRuntime, ClusterTrainingRuntime,
  Volcano's Job and PodGroup and the coscheduling PodGroup: the stored
  version of each CRD in ``../shared/crds``;
* every object's ``metadata``: the client's ``ObjectMeta`` (a CRD only says
  ``type: object`` there, and the apiserver checks it as ObjectMeta);
* the scheduling fields of the design each adapter follows, which no CRD has
  merged yet (``OVERLAYS``): left to the adapter, which decodes them strictly.

Descriptions, defaults, enums and formats are dropped: only which fields
exist, their types and which are required are kept. A subtree that occurs
more than once (a pod spec) is stored once under ``defs`` and referred to by
``{"ref": id}``. Node forms: ``"string"``, ``"integer"``, ``"number"``,
``"boolean"``, ``"int-or-string"``, ``"any"`` (not checked),
``{"object": {field: node}, "required": [...]}``, ``{"map": node}``,
``{"array": node}``, ``{"ref": id}``.
"""

from __future__ import annotations

import json
import sys
import types
import typing
from pathlib import Path
from typing import Any

import yaml
from kubernetes.client import V1Job, V1ObjectMeta
from pydantic import BaseModel

ROOT = Path(__file__).resolve().parent.parent
CRDS = ROOT.parent / "shared" / "crds"
OUT = ROOT / "adapters" / "schemas" / "fields.json"

CRD_FILES = {
    "jobset.x-k8s.io/v1alpha2/JobSet": "jobset.x-k8s.io_jobsets.yaml",
    "leaderworkerset.x-k8s.io/v1/LeaderWorkerSet": "leaderworkerset.x-k8s.io_leaderworkersets.yaml",
    "trainer.kubeflow.org/v1alpha1/TrainJob": "trainer.kubeflow.org_trainjobs.yaml",
    "trainer.kubeflow.org/v1alpha1/TrainingRuntime": "trainer.kubeflow.org_trainingruntimes.yaml",
    "trainer.kubeflow.org/v1alpha1/ClusterTrainingRuntime": "trainer.kubeflow.org_clustertrainingruntimes.yaml",
    "batch.volcano.sh/v1alpha1/Job": "batch.volcano.sh_jobs.yaml",
    "scheduling.volcano.sh/v1beta1/PodGroup": "scheduling.volcano.sh_podgroups.yaml",
    "scheduling.x-k8s.io/v1alpha1/PodGroup": "scheduling.x-k8s.io_podgroups.yaml",
}

_RUNTIME_OVERLAY = [
    ("spec", "scheduling"),
    ("spec", "template", "spec", "scheduling"),
    ("spec", "template", "spec", "replicatedJobs", "*", "template", "spec", "scheduling"),
]
OVERLAYS: dict[str, list[tuple[str, ...]]] = {
    # KEP-969 (PR #1250) and KEP-6089 Option A.
    "jobset.x-k8s.io/v1alpha2/JobSet": [
        ("spec", "scheduling"),
        ("spec", "replicatedJobs", "*", "template", "spec", "scheduling"),
    ],
    # LWS KEP-666 @03254992.
    "leaderworkerset.x-k8s.io/v1/LeaderWorkerSet": [("spec", "scheduling")],
    # Trainer KEP-3015 @073a488e: the runtime's spec.scheduling; the JobSet's
    # and Jobs' own fields exist so that its "owned by the TrainJob
    # controller" rules, not an unknown field, report them.
    "trainer.kubeflow.org/v1alpha1/TrainingRuntime": _RUNTIME_OVERLAY,
    "trainer.kubeflow.org/v1alpha1/ClusterTrainingRuntime": _RUNTIME_OVERLAY,
}
"""Where the followed designs add a scheduling field: ``*`` stands for any list item. The adapter checks them."""

QUANTITIES = {"limits", "requests", "overhead", "sizeLimit", "divisor", "capacity", "allocatable"}
"""Client-model fields typed ``str`` that hold a ``resource.Quantity``: the apiserver also takes a number there."""

Node = Any


def from_model(model: type[BaseModel], seen: tuple[type, ...] = ()) -> Node:
    """The field tree of a kubernetes client model (JSON names, required fields)."""
    fields: dict[str, Node] = {}
    required: list[str] = []
    for name, info in model.model_fields.items():
        json_name = info.serialization_alias or info.alias or name
        fields[json_name] = _annotation(info.annotation, json_name in QUANTITIES, (*seen, model))
        if info.is_required():
            required.append(json_name)
    node: dict[str, Node] = {"object": fields}
    if required:
        node["required"] = sorted(required)
    return node


def _annotation(annotation: Any, quantity: bool, seen: tuple[type, ...]) -> Node:
    origin = typing.get_origin(annotation)
    args = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
    if origin is typing.Annotated:
        return _annotation(args[0], quantity, seen)
    if origin in (typing.Union, types.UnionType):
        if len(args) == 1:  # Optional[X]
            return _annotation(args[0], quantity, seen)
        kinds = {_hashable(_annotation(arg, quantity, seen)) for arg in args}
        if kinds == {"integer", "string"}:
            return "int-or-string"
        if kinds <= {"integer", "number"}:
            return "number"
        return "any"
    if origin in (list, typing.List):  # noqa: UP006 - the client's annotations use typing.List
        return {"array": _annotation(args[0], quantity, seen)}
    if origin in (dict, typing.Dict):  # noqa: UP006
        return {"map": _annotation(args[1], quantity, seen)}
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        if annotation in seen:  # a recursive type (JSONSchemaProps): not checked below this point
            return "any"
        return from_model(annotation, seen)
    if annotation is bool:
        return "boolean"
    if annotation is int:
        return "integer"
    if annotation is float:
        return "number"
    if annotation is str:
        return "int-or-string" if quantity else "string"
    return "any"  # datetime is written as a string; object and Any hold anything


def _hashable(node: Node) -> Node:
    return node if isinstance(node, str) else json.dumps(node, sort_keys=True)


def from_crd(schema: dict[str, Any]) -> Node:
    """The field tree of a CRD's OpenAPI v3 schema."""
    if schema.get("x-kubernetes-int-or-string"):
        return "int-or-string"
    if schema.get("x-kubernetes-preserve-unknown-fields") and "properties" not in schema:
        return "any"
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        if "properties" in schema:
            node: dict[str, Node] = {"object": {k: from_crd(v) for k, v in schema["properties"].items()}}
            if schema.get("required"):
                node["required"] = sorted(schema["required"])
            return node
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            return {"map": from_crd(extra)}
        return "any"  # an object with no declared fields (type: object alone) is left open
    if kind == "array":
        return {"array": from_crd(schema.get("items") or {})}
    if kind in ("string", "integer", "number", "boolean"):
        return kind
    return "any"


def _overlay(node: Node, path: tuple[str, ...]) -> None:
    """Declare the field at ``path`` (its parents must exist) as checked by the adapter."""
    for element in path[:-1]:
        node = node["array"] if element == "*" else node["object"][element]
    node["object"][path[-1]] = "any"


def _crd_root(crds: Path, file_name: str) -> Node:
    documents = [doc for doc in yaml.safe_load_all((crds / file_name).read_text()) if doc]
    crd = documents[0]
    version = next(v for v in crd["spec"]["versions"] if v.get("storage"))
    return from_crd(version["schema"]["openAPIV3Schema"])


def roots(crds: Path) -> dict[str, Node]:
    """Every kind's tree, keyed ``<apiVersion>/<kind>``, with ObjectMeta and the design overlays."""
    meta = from_model(V1ObjectMeta)
    job = from_model(V1Job)
    _overlay(job, ("spec", "scheduling"))
    out = {"batch/v1/Job": job}
    for key, file_name in CRD_FILES.items():
        out[key] = _crd_root(crds, file_name)
    for key, root in out.items():
        root["object"]["metadata"] = meta
        root["required"] = sorted({*root.get("required", []), "spec"})
        for path in OVERLAYS.get(key, []):
            _overlay(root, path)
    return out


class _Interner:
    """Stores every composite node once; nodes used once are inlined back when written."""

    def __init__(self) -> None:
        self.ids: dict[str, str] = {}
        self.defs: dict[str, Node] = {}
        self.uses: dict[str, int] = {}

    def intern(self, node: Node) -> Node:
        if isinstance(node, str):
            return node
        if "object" in node:
            inner: Node = {**node, "object": {k: self.intern(v) for k, v in node["object"].items()}}
        elif "map" in node:
            inner = {"map": self.intern(node["map"])}
        else:
            inner = {"array": self.intern(node["array"])}
        key = json.dumps(inner, sort_keys=True)
        if key not in self.ids:
            self.ids[key] = f"d{len(self.ids)}"
            self.defs[self.ids[key]] = inner
        ref = self.ids[key]
        self.uses[ref] = self.uses.get(ref, 0) + 1
        return {"ref": ref}

    def inline(self, node: Node) -> Node:
        """Resolve refs used once, or too small to be worth one."""
        if isinstance(node, str):
            return node
        if "ref" in node:
            target = self.defs[node["ref"]]
            if self.uses[node["ref"]] == 1 or len(json.dumps(target)) < 60:
                return self.inline(target)
            return node
        if "object" in node:
            return {**node, "object": {k: self.inline(v) for k, v in node["object"].items()}}
        if "map" in node:
            return {"map": self.inline(node["map"])}
        return {"array": self.inline(node["array"])}


def generate(crds: Path) -> dict[str, Any]:
    """The whole package-data document: ``kinds`` (the roots) and ``defs`` (shared subtrees)."""
    interner = _Interner()
    interned = {key: interner.intern(root) for key, root in roots(crds).items()}
    kinds = {key: interner.inline(ref) for key, ref in interned.items()}
    kept: dict[str, Node] = {}
    pending = [kinds]
    while pending:
        node = pending.pop()
        for ref in _refs(node):
            if ref not in kept:
                kept[ref] = interner.inline(interner.defs[ref])
                pending.append(kept[ref])
    return {"kinds": kinds, "defs": dict(sorted(kept.items(), key=lambda item: int(item[0][1:])))}


def _refs(node: Node) -> list[str]:
    """The refs directly inside ``node`` (not inside the defs they name)."""
    if not isinstance(node, dict):
        return []
    if "ref" in node:
        return [node["ref"]]
    return [ref for value in node.values() for ref in _refs(value)]


def main(argv: list[str]) -> int:
    """Write ``adapters/schemas/fields.json``: one line per kind and per shared subtree, so diffs stay readable."""
    crds = Path(argv[0]) if argv else CRDS
    if not crds.is_dir():
        sys.stderr.write(f"{crds}: no such directory (pass the CRDs' folder, ../shared/crds by default)\n")
        return 2
    data = generate(crds)
    lines = ["{", '"kinds": {']
    kinds = list(data["kinds"].items())
    lines += [
        f"{json.dumps(k)}: {json.dumps(v, sort_keys=True)}{',' if i < len(kinds) - 1 else ''}"
        for i, (k, v) in enumerate(kinds)
    ]
    lines += ["},", '"defs": {']
    defs = list(data["defs"].items())
    lines += [
        f"{json.dumps(k)}: {json.dumps(v, sort_keys=True)}{',' if i < len(defs) - 1 else ''}"
        for i, (k, v) in enumerate(defs)
    ]
    lines += ["}", "}"]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text("\n".join(lines) + "\n")
    print(f"{OUT.relative_to(ROOT)}: {len(kinds)} kinds, {len(defs)} shared subtrees, {OUT.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
