"""Check a directory of Workload, PodGroup and CompositePodGroup manifests the way the apiserver would, in CI.

    python examples/validate_manifests.py [--exit-code] [DIR ...]

Every ``*.yaml``, ``*.yml`` and ``*.json`` file under each directory (by
default ``examples/manifests``) is loaded strictly (documents of other API
groups, a JobSet say, are skipped), each object is validated
as a Kubernetes 1.37 apiserver would validate its creation, the runtime
groups are checked as one hierarchy, and the problems are printed in
``kubectl``'s words. A manifest for a removed API version is shown with what
``migrate`` would rewrite. Last come the feature gates the valid objects
need. With ``--exit-code`` the script exits with status 1 when anything is
invalid, which is what a CI job wants.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from workloadbuilder._internal.kinds import GROUP, REMOVED_VERSIONS, kind_of
from workloadbuilder.manifests import ManifestError, load, read_documents
from workloadbuilder.migration.versions import migrate
from workloadbuilder.validation.hierarchy import validate_hierarchy
from workloadbuilder.validation.objects import (
    validate_composite_pod_group,
    validate_pod_group,
    validate_workload,
    workload_warnings,
)
from workloadbuilder.validation.requirements import required_gates

VALIDATORS = {
    "Workload": validate_workload,
    "PodGroup": validate_pod_group,
    "CompositePodGroup": validate_composite_pod_group,
}
RESOURCES = {"Workload": "workload", "PodGroup": "podgroup", "CompositePodGroup": "compositepodgroup"}


def manifest_files(directories: list[Path]) -> list[Path]:
    """The manifest files under the directories, in a stable order."""
    return sorted(
        p for d in directories for p in d.rglob("*") if p.suffix in (".yaml", ".yml", ".json") and p.is_file()
    )


def ours(api_version: str | None) -> bool:
    """Whether a document belongs to scheduling.k8s.io (or says nothing): other API groups are not ours to judge."""
    return api_version is None or api_version.startswith(GROUP + "/")


def load_file(path: Path) -> tuple[list[BaseModel], list[str]]:
    """The objects of one file that load, and the lines that say why the others do not."""
    try:
        return load(path), []
    except ManifestError as err:
        lines = [f"error: {problem}" for problem in err.problems if ours(problem.api_version)]
        return err.objects, (lines + migration_hints(path)) if lines else []


def migration_hints(path: Path) -> list[str]:
    """For documents of a removed version, what ``migrate`` would rewrite."""
    try:
        documents = read_documents(path)
    except ManifestError:  # already reported: the file does not parse
        return []
    lines = []
    for document in documents:
        if isinstance(document, dict) and document.get("apiVersion") in REMOVED_VERSIONS:
            result = migrate(document)
            lines.append(f"hint: workloadbuilder.migrate() would rewrite {path} ({len(result.rewrites)} changes):")
            lines.extend(f"  {note}" for note in result.rewrites + result.untranslated)
    return lines


def check(obj: BaseModel) -> bool:
    """Validate one object; print its warnings and errors, or that it is valid."""
    kind = kind_of(obj) or ""
    name = obj.metadata.name if getattr(obj, "metadata", None) is not None else ""  # type: ignore[attr-defined]
    for warning in workload_warnings(obj) if kind == "Workload" else []:
        print(f"Warning: {warning}")
    errors = VALIDATORS[kind](obj)
    if not errors:
        print(f"{RESOURCES[kind]}.scheduling.k8s.io/{name} valid")
        return True
    print(f'error: The {kind} "{name}" is invalid:')
    for err in errors:
        print(f"* {err}")
    return False


def main(argv: list[str]) -> int:
    exit_code = "--exit-code" in argv
    directories = [Path(a) for a in argv if a != "--exit-code"] or [Path("examples/manifests")]
    valid: list[Any] = []
    invalid = 0
    for path in manifest_files(directories):
        objects, lines = load_file(path)
        if objects or lines:
            print(f"# {path}")
        for line in lines:
            print(line)
        invalid += sum(line.startswith("error: ") for line in lines)
        for obj in objects:
            if check(obj):
                valid.append(obj)
            else:
                invalid += 1
    problems = validate_hierarchy(valid)
    if problems:
        print("# runtime hierarchy")
    for problem in problems:
        print(f"error: {problem}")
    print("# feature gates these objects need (all are off by default in 1.37)")
    for requirement in required_gates(valid):
        print(f"--feature-gates={requirement.gate}=true on {', '.join(requirement.components)}")
    print(f"{len(valid)} valid, {invalid + len(problems)} problems")
    return 1 if exit_code and (invalid or problems) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
