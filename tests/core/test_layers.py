"""No module imports a higher layer: the import graph checked against the layer table of docs/architecture.md.

The table is read from the page, so the page and this check cannot drift.
Every import counts, function-level ones included.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "architecture.md"
# The two source trees and the package each is installed as.
SOURCES = {"workloadbuilder": ROOT / "workloadbuilder", "workloadbuilder.adapters": ROOT / "adapters"}


def read_layers(markdown: str) -> list[tuple[str, list[str]]]:
    """The ``## Layers`` table: (layer, module names) per row, lowest layer first."""
    section = markdown.split("\n## Layers\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    layers = []
    for row in rows[2:]:  # the header and the |---| line
        layer, modules, _job = (cell.strip() for cell in row.strip("|").split("|"))
        layers.append((layer, re.findall(r"`([\w.*]+)`", modules)))
    return layers


def source_modules() -> dict[str, Path]:
    """Every module of the installed package, by dotted name, with its file."""
    modules: dict[str, Path] = {}
    for package, folder in SOURCES.items():
        for path in sorted(folder.rglob("*.py")):
            parts = path.relative_to(folder).with_suffix("").parts
            name = ".".join((package, *parts[:-1])) if parts[-1] == "__init__" else ".".join((package, *parts))
            if package == "workloadbuilder" and name.startswith("workloadbuilder.adapters"):
                continue
            modules[name] = path
    return modules


def imports_of(path: Path, known: set[str]) -> set[str]:
    """The package modules ``path`` imports, at any level of the file."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            # ``from package import module`` imports the module; ``from package import name`` the package.
            for alias in node.names:
                submodule = f"{node.module}.{alias.name}"
                found.add(submodule if submodule in known else node.module)
    return {name for name in found if name in known}


def layer_index(layers: list[tuple[str, list[str]]]) -> dict[str, int]:
    """For each module of the package, the index of its layer; fails on a module in no layer or in two."""
    exact = {name: i for i, (_, names) in enumerate(layers) for name in names if not name.endswith(".*")}
    packages = [(name[:-2], i) for i, (_, names) in enumerate(layers) for name in names if name.endswith(".*")]
    index: dict[str, int] = {}
    missing = []
    for module in source_modules():
        if module in exact:
            index[module] = exact[module]
            continue
        matches = [(len(pkg), i) for pkg, i in packages if module == pkg or module.startswith(pkg + ".")]
        if not matches:
            missing.append(module)
        else:
            index[module] = max(matches)[1]
    assert not missing, f"modules in no layer of {PAGE.name}: {missing}"
    return index


LAYERS = read_layers(PAGE.read_text())


def test_the_table_names_only_existing_modules() -> None:
    known = set(source_modules())
    named = [name for _, names in LAYERS for name in names]
    unknown = [name for name in named if (name[:-2] if name.endswith(".*") else name) not in known]
    assert unknown == []
    assert len(named) == len(set(named)), "a module is named twice"


def find_violations(
    layers: list[tuple[str, list[str]]], index: dict[str, int], graph: dict[str, set[str]]
) -> list[str]:
    """``<module> (<layer>) imports <module> (<layer>)`` for each import of a higher layer."""
    return [
        f"{module} ({layers[index[module]][0]}) imports {dep} ({layers[index[dep]][0]})"
        for module, deps in graph.items()
        for dep in sorted(deps)
        if index[dep] > index[module]
    ]


def test_no_module_imports_a_higher_layer() -> None:
    modules = source_modules()
    graph = {module: imports_of(path, set(modules)) for module, path in modules.items()}
    assert find_violations(LAYERS, layer_index(LAYERS), graph) == []


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("from workloadbuilder import kinds", {"workloadbuilder.kinds"}),
        ("from workloadbuilder import kinds, FieldPath", {"workloadbuilder", "workloadbuilder.kinds"}),
        ("from workloadbuilder import FieldPath", {"workloadbuilder"}),
        ("import workloadbuilder.field as f", {"workloadbuilder.field"}),
        (
            "def f():\n    from workloadbuilder.placement import cluster",
            {"workloadbuilder.placement.cluster"},
        ),
        ("import json\nfrom pydantic import BaseModel", set()),
    ],
    ids=[
        "module-from-package",
        "module-and-name-from-package",
        "name-from-package",
        "dotted-import",
        "function-level",
        "third-party",
    ],
)
def test_imports_are_read_at_every_level(tmp_path: Path, source: str, expected: set[str]) -> None:
    path = tmp_path / "m.py"
    path.write_text(source)
    assert imports_of(path, set(source_modules())) == expected


def test_a_higher_import_is_caught() -> None:
    page = (
        "\n## Layers\n\n| Layer | Modules | Job |\n|---|---|---|\n"
        "| low | `workloadbuilder.field` | x |\n| high | `workloadbuilder.cli.*` | y |\n"
    )
    layers = read_layers(page)
    assert layers == [("low", ["workloadbuilder.field"]), ("high", ["workloadbuilder.cli.*"])]
    index = {"workloadbuilder.field": 0, "workloadbuilder.cli.app": 1}
    graph = {"workloadbuilder.field": {"workloadbuilder.cli.app"}, "workloadbuilder.cli.app": {"workloadbuilder.field"}}
    assert find_violations(layers, index, graph) == [
        "workloadbuilder.field (low) imports workloadbuilder.cli.app (high)"
    ]
