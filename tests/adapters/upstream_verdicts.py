"""What the ``workloadbuilder`` command makes of each upstream manifest: validate, compile (gang sizes), place.

Each manifest of ``tests/data/upstream/`` (copied from ``../shared/manifests/upstream/``, each naming its
source) is run as a new user would run it, with the objects it refers to (a TrainJob's runtime, the
tutorial's PodGroup, migrated to 1.37 first). ``verdicts()`` gives one row per manifest; the golden file
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

RELATED: dict[str, list[str]] = {
    "trainer/02-runtime-patches.yaml": ["trainer-related/torch_distributed.yaml"],
    "trainer/03-kueue-integration.yaml": ["trainer-related/torch_distributed.yaml"],
    "trainer/flux-lammps-train-job.yaml": ["trainer/flux-runtime.yaml"],
}
"""The runtime each TrainJob names, given beside it."""

MIGRATED: dict[str, list[str]] = {
    "jobset/was-jobset.yaml": ["jobset/was-podgroup-v1alpha2.yaml", "jobset/was-workload-v1alpha2.yaml"],
    "jobset/was-dra-jobset.yaml": ["jobset/was-dra-podgroup-v1alpha2.yaml", "jobset/was-dra-workload-v1alpha2.yaml"],
}
"""The tutorials' hand-made objects (written for v1alpha2), given beside their JobSet after ``migrate``."""

PLACE_OPTIONS: dict[str, list[str]] = {"jobset/was-dra-jobset.yaml": ["--claim", "gpu-claim-template=gpu:1"]}

CASES = sorted(str(path.relative_to(DATA)) for path in DATA.rglob("*.yaml"))
"""Every upstream manifest, by its path below ``tests/data/upstream``."""


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


def _inputs(case: str, scratch: Path) -> list[str]:
    files = [case, *RELATED.get(case, [])]
    if MIGRATED.get(case):
        code, out, _ = _run(["migrate", *MIGRATED[case]])
        assert code == 0, f"migrate of {MIGRATED[case]} failed"
        target = scratch / (Path(case).stem + ".migrated.yaml")
        target.write_text(out)
        files.append(str(target))
    if case == "kueue/kueue-pod-group.yaml":  # plain Pods: Kueue's groups become native ones first
        code, out, _ = _run(["migrate", case])
        target = scratch / "kueue-pod-group.migrated.yaml"
        target.write_text(out)
        files = [str(target)]
    return files


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
    given = _workload_sizes(doc for file in files for doc in yaml.safe_load_all(Path(file).read_text()))
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


def verdicts(scratch: Path) -> list[dict[str, Any]]:
    """One row per upstream manifest: its objects, and what validate, compile and place say."""
    with contextlib.chdir(DATA):
        return [_row(case, scratch) for case in CASES]


def _row(case: str, scratch: Path) -> dict[str, Any]:
    """What validate, compile and place say of one manifest (run from ``DATA``)."""
    files = _inputs(case, scratch)
    docs = [doc for doc in yaml.safe_load_all((DATA / case).read_text()) if isinstance(doc, dict)]
    objects = [f"{doc.get('kind') or '(no kind)'}/{(doc.get('metadata') or {}).get('name') or ''}" for doc in docs]
    given = ["(migrated)" if Path(file).is_absolute() else file for file in files if file != case]
    return {
        "manifest": case,
        "objects": objects,
        "with": given if case != "kueue/kueue-pod-group.yaml" else ["(migrated)"],
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
