"""What the ``workloadbuilder`` command makes of each upstream manifest: validate, compile (gang sizes), place.

Each file of the corpus (``tests/data/upstream/<project>/``: the controllers' example folders copied
whole, each project's ``SOURCE`` naming repository and commit) is run as a new user would run it, with
the objects it refers to (a TrainJob's runtime, found by name in the corpus; the tutorial's PodGroup and
Workload in the same folder, migrated to 1.37 first). ``verdicts()`` gives one row per manifest; the golden file
``tests/data/adapters/upstream-verdicts.yaml`` holds them and ``docs/adapters.md`` shows them as a table.
"""

from __future__ import annotations

import contextlib
import io
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from workloadbuilder.cli.app import main

__all__ = ["CASES", "DATA", "GOLDEN", "render_table", "verdicts"]

DATA = Path(__file__).resolve().parents[1] / "data" / "upstream"
GOLDEN = Path(__file__).resolve().parents[1] / "data" / "adapters" / "upstream-verdicts.yaml"
CLUSTER = ["--generate", "zones=1"]


def _sources() -> dict[str, dict[str, Any]]:
    """Each project's ``SOURCE`` note: repository, commit and the folders copied whole."""
    return {path.parent.name: yaml.safe_load(path.read_text()) for path in sorted(DATA.glob("*/SOURCE"))}


SOURCES = _sources()
"""The projects of the corpus, by folder below ``tests/data/upstream``."""


def _corpus() -> list[str]:
    files = []
    for project, source in SOURCES.items():
        for folder in source["folders"]:
            base = DATA / project / folder
            files += [p for p in base.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file()]
    return sorted(str(path.relative_to(DATA)) for path in files)


CASES = _corpus()
"""Every upstream manifest of the corpus, by its path below ``tests/data/upstream``: ``<project>/<repository path>``."""

LEGACY = sorted(str(path.relative_to(DATA)) for path in DATA.glob("*/*.yaml"))
"""The 46 manifests of ``../shared/manifests/upstream`` (each names its source first), kept for other tests."""

PLACE_OPTIONS: dict[str, list[str]] = {
    "jobset/site/static/examples/workload-aware-scheduling/dra/jobset.yaml": ["--claim", "gpu-claim-template=gpu:1"],
}


def _read(file: str | Path) -> list[dict[str, Any]]:
    """A file's objects, or none where it is no YAML (a template)."""
    try:
        return [doc for doc in yaml.safe_load_all((DATA / file).read_text()) if isinstance(doc, dict)]
    except yaml.YAMLError:
        return []


def _documents(case: str) -> list[dict[str, Any]]:
    return _read(case)


def _index() -> dict[tuple[str, str], list[str]]:
    """Which corpus files define each ``(kind, name)``."""
    where: dict[tuple[str, str], list[str]] = {}
    for case in CASES:
        for doc in _documents(case):
            key = (str(doc.get("kind")), str((doc.get("metadata") or {}).get("name")))
            where.setdefault(key, []).append(case)
    return where


def _walk(value: Any, key: str) -> list[Any]:
    """Every value stored under ``key`` anywhere in a document."""
    found = []
    if isinstance(value, dict):
        for k, v in value.items():
            found += [v] if k == key else []
            found += _walk(v, key)
    elif isinstance(value, list):
        for v in value:
            found += _walk(v, key)
    return found


def _needs(case: str, index: dict[tuple[str, str], list[str]]) -> tuple[list[str], list[str]]:
    """The files a manifest refers to: as they are (a TrainJob's runtime), and to migrate first (v1alpha2 tutorials)."""
    docs = _documents(case)
    mine = {(str(d.get("kind")), str((d.get("metadata") or {}).get("name"))) for d in docs}
    plain: list[str] = []
    migrated: list[str] = []
    for doc in docs:
        if doc.get("kind") == "TrainJob":
            ref = (doc.get("spec") or {}).get("runtimeRef") or {}
            key = (ref.get("kind") or "ClusterTrainingRuntime", str(ref.get("name")))
            if key not in mine:
                homes = index.get(key, [])
                near = [h for h in homes if Path(h).parent == Path(case).parent]
                plain += (near or sorted(homes, key=lambda h: ("/base/runtimes/" not in h, h)))[:1]
        for name in _walk(doc.get("spec"), "podGroupName"):
            if ("PodGroup", str(name)) in mine:
                continue
            for home in index.get(("PodGroup", str(name)), []):
                if Path(home).parent != Path(case).parent:
                    continue
                migrated.append(home)
                for group in _documents(home):
                    workload = ((group.get("spec") or {}).get("podGroupTemplateRef") or {}).get("workload") or {}
                    migrated += [
                        h
                        for h in index.get(("Workload", str(workload.get("workloadName"))), [])
                        if Path(h).parent == Path(case).parent
                    ]
    return list(dict.fromkeys(plain)), list(dict.fromkeys(migrated))


def _run(argv: Sequence[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


_WHERE = re.compile(r"^\S+ \(document \d+\): ")
_NOTHING = {
    "no object an adapter knows": "nothing to compile",
    "nothing to place": "nothing to place",
}


def _last_error(err: str) -> str:
    """The command's one error line, without the ``file (document N):`` it starts with, known ones in short."""
    lines = [line for line in err.splitlines() if line.startswith("error: ")]
    text = _WHERE.sub("", lines[-1].removeprefix("error: ")) if lines else ""
    return next((short for prefix, short in _NOTHING.items() if text.startswith(prefix)), f"refused: {text}")


def _inputs(case: str, scratch: Path, index: dict[tuple[str, str], list[str]]) -> tuple[list[str], list[str]]:
    """The files to give with a manifest, and how the row names them."""
    plain, to_migrate = _needs(case, index)
    files, named = [case, *plain], list(plain)
    if to_migrate:
        code, out, _ = _run(["migrate", *to_migrate])
        assert code == 0, f"migrate of {to_migrate} failed"
        target = scratch / (case.replace("/", "_") + ".migrated.yaml")
        target.write_text(out)
        files.append(str(target))
        named += [f"{file} (migrated)" for file in to_migrate]
    if any(_kueue_pod(doc) for doc in _documents(case)):  # plain Pods: Kueue's groups become native ones first
        code, out, _ = _run(["migrate", case])
        target = scratch / (case.replace("/", "_") + ".migrated.yaml")
        target.write_text(out)
        files, named = [str(target)], ["(migrated)"]
    return files, named


def _kueue_pod(doc: dict[str, Any]) -> bool:
    labels = (doc.get("metadata") or {}).get("labels") or {}
    return doc.get("kind") == "Pod" and "kueue.x-k8s.io/pod-group-name" in labels


def _validate(files: list[str]) -> str:
    code, out, err = _run(["validate", "--allow-unknown", "--output", "json", *files])  # a mixed file, as in CI
    if code == 2:
        return "exit 2: nothing checked (no adapter)" if "no object was checked" in err else "bad input"
    records = yaml.safe_load(out) or []
    invalid = [r for r in records if r["errors"]]
    if invalid:
        first = invalid[0]
        return f"invalid: {first['kind']}/{first['name']}: {first['errors'][0]['message']}"
    if not any(r["checked"] for r in records):
        return "not checked (no adapter)"
    return "valid"


def _gangs(files: list[str]) -> list[str]:
    """The compiled Workloads' gang sizes; without one, those of the Workloads given (a bring-your-own tutorial)."""
    code, out, err = _run(["compile", *files])
    compiled = _workload_sizes(yaml.safe_load_all(out)) if code == 0 else []
    if compiled:
        return compiled
    given = _workload_sizes(doc for file in files for doc in _read(file))
    if given:
        return [f"{size} (given)" for size in given]
    return [_last_error(err)] if code != 0 else []


def _workload_sizes(docs: Any) -> list[str]:
    sizes = []
    for doc in docs:
        if (
            isinstance(doc, dict)
            and doc.get("kind") == "Workload"
            and doc.get("apiVersion") == "scheduling.k8s.io/v1beta1"
        ):
            sizes.extend(_template_sizes(doc["spec"]))
    return sizes


def _template_sizes(holder: dict[str, Any]) -> list[str]:
    sizes = []
    for template in holder.get("compositePodGroupTemplates") or []:
        gang = (template.get("schedulingPolicy") or {}).get("gang")
        sizes.append(f"{template['name']}: {gang['minGroupCount']} groups" if gang else f"{template['name']}: basic")
        sizes.extend(_template_sizes(template))
    for template in holder.get("podGroupTemplates") or []:
        gang = (template.get("schedulingPolicy") or {}).get("gang")
        sizes.append(f"{template['name']}: {gang['minCount']}" if gang else f"{template['name']}: basic")
    return sizes


def _place(case: str, files: list[str]) -> str:
    code, out, err = _run(["place", *files, *CLUSTER, *PLACE_OPTIONS.get(case, [])])
    if code == 2:
        return _last_error(err)
    lines = [line for line in out.strip().splitlines() if not line.startswith("verdict: ")]  # the summary's column
    verdict = lines[-1].split(" (kube-scheduler)")[0] if lines else ""
    if verdict != "not feasible":
        return verdict
    reasons = [line.strip().split("`: ", 1)[-1] for line in lines if line.startswith("    `") and "`: " in line]
    return f"not feasible: {reasons[0]}" if reasons else verdict


def verdicts(scratch: Path, cases: Sequence[str] = CASES) -> list[dict[str, Any]]:
    """One row per upstream manifest: its objects, and what validate, compile and place say."""
    index = _index()
    with contextlib.chdir(DATA):
        return [_row(case, scratch, index) for case in cases]


def _row(case: str, scratch: Path, index: dict[tuple[str, str], list[str]]) -> dict[str, Any]:
    """What validate, compile and place say of one manifest (run from ``DATA``)."""
    files, named = _inputs(case, scratch, index)
    objects = [
        f"{doc.get('kind') or '(no kind)'}/{(doc.get('metadata') or {}).get('name') or ''}" for doc in _documents(case)
    ]
    return {
        "manifest": case,
        "objects": objects,
        "with": named,
        "validate": _validate(files),
        "gangs": _gangs(files),
        "place": _place(case, files),
    }


def render_table(rows: list[dict[str, Any]]) -> str:
    """The Markdown table of ``docs/adapters.md``."""
    lines = [
        "| manifest | given with | validate | gangs (template: minCount) | place (generated cluster) |",
        "| --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        cells = [
            f"`{row['manifest']}`",
            ", ".join(row["with"]) or "",
            _short(row["validate"]),
            "; ".join(row["gangs"]) or "",
            _short(row["place"]),
        ]
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(lines) + "\n"


def _short(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
