"""Every Workload, PodGroup and CompositePodGroup ``workloadbuilder compile`` makes of the golden corpus.

The corpus: the upstream manifests (``tests/data/upstream/``, as
``tests/adapters/upstream_verdicts.py`` lists them), the examples
(``examples/*.yaml``, ``examples/manifests/``) and the manifests folder
(``tests/data/manifests/``). Each file is compiled alone, as a user would
run ``workloadbuilder compile FILE -o json``, after giving each of its
objects a ``metadata.uid`` where it has none (a live object always has one;
without it every owner reference is refused, by both sides alike); a file the
command refuses (one that needs another file, or is broken on purpose) gives
no object. The example programs (``examples/*.py``) add the objects their
golden output prints (``tests/data/examples/*.out``, the YAML after the
first ``---``): the composite trees of LeaderWorkerSet and the training
cluster come from there. An object without a namespace goes to ``default``,
where the command would create it.
"""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
import uuid
from pathlib import Path
from typing import Any

import yaml
from kubernetes.client import ApiClient
from live_api import STRICT_DRY_RUN, answer, call, scheduling_path

from workloadbuilder.cli.app import main
from workloadbuilder.validation.objects import validate_composite_pod_group, validate_pod_group, validate_workload

ROOT = Path(__file__).resolve().parents[2]
CORPUS_RECORDING = ROOT / "tests" / "data" / "e2e-recorded" / "compiled-corpus.jsonl"
KINDS = {"Workload", "PodGroup", "CompositePodGroup"}


def corpus_files() -> list[Path]:
    """The files of the corpus, sorted by their path below the repository."""
    upstream = ROOT / "tests" / "data" / "upstream"
    files = [p for p in upstream.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file()]
    files += sorted((ROOT / "examples").glob("*.yaml")) + sorted((ROOT / "examples" / "manifests").glob("*.yaml"))
    files += sorted((ROOT / "tests" / "data" / "manifests").glob("*"))
    return sorted(set(files))


def corpus_documents() -> list[tuple[str, dict[str, Any]]]:
    """``(file below the repository, document)`` for every object of the corpus files, as written."""
    found = []
    for path in corpus_files():
        try:
            docs = list(yaml.safe_load_all(path.read_text(encoding="utf-8")))
        except (yaml.YAMLError, UnicodeDecodeError):
            continue
        found += [(str(path.relative_to(ROOT)), doc) for doc in docs if isinstance(doc, dict) and doc.get("kind")]
    return found


def _with_uids(path: Path, scratch: Path) -> Path | None:
    """A copy of the file whose every object has a uid (derived from the file and its place), or None if not YAML."""
    try:
        docs = list(yaml.safe_load_all(path.read_text(encoding="utf-8")))
    except (yaml.YAMLError, UnicodeDecodeError):
        return None
    for index, doc in enumerate(docs):
        meta = doc.get("metadata") if isinstance(doc, dict) else None
        if isinstance(meta, dict) and not meta.get("uid"):
            meta["uid"] = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{path.name}#{index}"))
    copy = scratch / path.name
    copy.write_text(yaml.safe_dump_all(docs, sort_keys=False), encoding="utf-8")
    return copy


def _compile(path: Path) -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory() as scratch:
        copy = _with_uids(path, Path(scratch))
        if copy is None:
            return []
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stderr(io.StringIO()):
            code = main(["compile", str(copy), "-o", "json", "-q"], out, err)
    if code != 0 or not out.getvalue().strip():
        return []
    data = json.loads(out.getvalue())
    return data["items"] if data.get("kind") == "List" else [data]


def compiled_objects() -> list[tuple[str, dict[str, Any]]]:
    """``(file below the repository, object)`` for every scheduling object the corpus compiles to."""
    found = []
    for path in corpus_files():
        for obj in _compile(path):
            if obj.get("kind") in KINDS and str(obj.get("apiVersion", "")).startswith("scheduling.k8s.io/"):
                obj.setdefault("metadata", {}).setdefault("namespace", "default")
                found.append((str(path.relative_to(ROOT)), obj))
    return found + printed_objects()


def printed_objects() -> list[tuple[str, dict[str, Any]]]:
    """``(golden output file, object)`` for every scheduling object an example program prints."""
    found = []
    for path in sorted((ROOT / "tests" / "data" / "examples").glob("*.out")):
        for part in path.read_text(encoding="utf-8").split("\n---\n")[1:]:
            try:
                obj = yaml.safe_load(part)
            except yaml.YAMLError:
                continue
            if isinstance(obj, dict) and obj.get("kind") in KINDS:
                obj.setdefault("metadata", {}).setdefault("namespace", "default")
                found.append((str(path.relative_to(ROOT)), obj))
    return found


def judge_object(client: ApiClient, obj: dict[str, Any]) -> dict[str, Any]:
    """The apiserver's dry-run answer to creating the object."""
    path = scheduling_path(obj["kind"], obj.get("apiVersion"), obj["metadata"]["namespace"])
    status, body = call(client, "POST", path, obj, STRICT_DRY_RUN)
    return {"stage": "create", **answer(status, body)}


def our_object_verdict(obj: dict[str, Any]) -> dict[str, Any]:
    """The offline validation of creating the object, every gate on."""
    check = {"Workload": validate_workload, "PodGroup": validate_pod_group}.get(
        obj["kind"], validate_composite_pod_group
    )
    errors = check(obj, gates=None)
    return {"accepted": not errors, "errors": [[str(e), e.type.value, str(e.field)] for e in errors]}
