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
        ("from workloadbuilder import podgroup", {"workloadbuilder.podgroup"}),
        ("from workloadbuilder import podgroup, FieldPath", {"workloadbuilder", "workloadbuilder.podgroup"}),
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


def _graph() -> dict[str, set[str]]:
    modules = source_modules()
    return {module: imports_of(path, set(modules)) - {module} for module, path in modules.items()}


def import_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            for succ in successors:
                if succ not in index:
                    index[succ] = low[succ] = len(index)
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(sorted(graph[succ]))))
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        circles.append(sorted(component))
    return circles


def test_no_import_circle_anywhere() -> None:
    assert import_circles(_graph()) == []


def test_a_circle_is_found() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert import_circles(graph) == [["a", "b", "c"]]


def _imports_between(graph: dict[str, set[str]], low: str, high: str) -> list[str]:
    """``module -> dep`` for each import from a module under ``low`` of one under ``high``."""

    def under(name: str, package: str) -> bool:
        return name == package or name.startswith(package + ".")

    return [f"{m} -> {d}" for m, deps in sorted(graph.items()) if under(m, low) for d in sorted(deps) if under(d, high)]


P = "workloadbuilder.placement"


@pytest.mark.parametrize(
    ("importer", "imported"),
    [
        (f"{P}.cluster", f"{P}.request"),
        (f"{P}.request", f"{P}.cluster"),
        (f"{P}.verify", f"{P}.strategies"),
        (f"{P}.verify", f"{P}.engine"),
        (f"{P}.verify", f"{P}.explain"),
        (f"{P}.k8s", f"{P}.answer"),
        ("workloadbuilder.placement", "workloadbuilder.adapters"),
    ],
    ids=[
        "cluster-never-imports-request",
        "request-never-imports-cluster",
        "verify-never-imports-strategies",
        "verify-never-imports-engine",
        "verify-never-imports-explain",
        "k8s-knows-no-engine",
        "placement-never-names-the-adapters",
    ],
)
def test_independent_parts_stay_independent(importer: str, imported: str) -> None:
    assert _imports_between(_graph(), importer, imported) == []


def test_no_cli_command_imports_another_and_nothing_imports_the_app() -> None:
    graph = _graph()
    commands = [m for m in graph if m.startswith("workloadbuilder.cli.commands.")]
    assert [f"{m} -> {d}" for m in commands for d in sorted(graph[m]) if d in commands] == []
    importers = sorted(m for m, deps in graph.items() if "workloadbuilder.cli.app" in deps)
    assert importers == ["workloadbuilder.__main__"]


# The packages whose ``__init__`` is a public face, made to re-export what a user imports.
FACES = frozenset(
    {
        "workloadbuilder",
        "workloadbuilder.placement",
        "workloadbuilder.adapters",
        "workloadbuilder.adapters.kit",
        "workloadbuilder.testing",
        "workloadbuilder.doctor",
    }
)


def defined_names(path: Path) -> set[str]:
    """The names a module binds itself at its top level (functions, classes, assignments), not those it imports."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(leaf.id for target in targets for leaf in ast.walk(target) if isinstance(leaf, ast.Name))
    return names


def test_names_are_imported_from_their_owner() -> None:
    modules = source_modules()
    owned = {module: defined_names(path) for module, path in modules.items()}
    through = []
    for module, path in sorted(modules.items()):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, ast.ImportFrom) or node.module not in modules or node.module in FACES:
                continue
            through += [
                f"{module}: {alias.name} through {node.module}"
                for alias in node.names
                if f"{node.module}.{alias.name}" not in modules and alias.name not in owned[node.module]
            ]
    assert through == []


FACES = {
    "workloadbuilder",
    "workloadbuilder.adapters",
    "workloadbuilder.adapters.kit",
    "workloadbuilder.placement",
    "workloadbuilder.testing",
}
"""The modules that may re-export private names: what ``import workloadbuilder...`` is meant to give."""


def reexported_private_names(path: Path) -> set[str]:
    """Names ``path`` imports from ``workloadbuilder._internal`` and lists again in its ``__all__``."""
    tree = ast.parse(path.read_text(), str(path))
    private = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("workloadbuilder._internal")
        for alias in node.names
    }
    exported: set[str] = set()
    for node in tree.body:
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        )
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets) and node.value is not None:
            exported |= {
                e.value for e in ast.walk(node.value) if isinstance(e, ast.Constant) and isinstance(e.value, str)
            }
    return private & exported


def test_only_the_faces_reexport_private_names() -> None:
    offenders = {
        module: sorted(names)
        for module, path in source_modules().items()
        if module not in FACES
        and not module.startswith("workloadbuilder._internal")
        and (names := reexported_private_names(path))
    }
    assert offenders == {}


def test_a_private_reexport_is_caught(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text('from workloadbuilder._internal.gofmt import go_quote\n__all__ = ["go_quote", "other"]\n')
    assert reexported_private_names(module) == {"go_quote"}


A = "workloadbuilder.adapters"


def read_adapter_imports(markdown: str) -> set[tuple[str, str]]:
    """The ``## Adapters`` table: (importer, imported) for each controller package allowed to import another."""
    section = markdown.split("\n## Adapters\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    pairs = set()
    for row in rows[2:]:  # the header and the |---| line
        importer, imported, _why = (cell.strip().strip("`") for cell in row.strip("|").split("|"))
        pairs.add((importer, imported))
    return pairs


def controller_packages() -> list[str]:
    """The adapters' controller packages: every package folder of adapters/ but ``_shared``."""
    folders = sorted(p.parent.name for p in SOURCES[A].glob("*/__init__.py"))
    return [f"{A}.{name}" for name in folders if name != "_shared"]


def _package_of(module: str, packages: list[str]) -> str | None:
    return next((p for p in packages if module == p or module.startswith(p + ".")), None)


def sideways_imports(graph: dict[str, set[str]], packages: list[str]) -> set[tuple[str, str]]:
    """(importer, imported) for each import of one controller package's module from another's."""
    found = set()
    for module, deps in graph.items():
        own = _package_of(module, packages)
        for dep in deps:
            other = _package_of(dep, packages)
            if own is not None and other is not None and other != own:
                found.add((own, other))
    return found


def test_the_adapters_have_controller_packages() -> None:
    assert controller_packages() == [f"{A}.{n}" for n in ("crd", "job", "jobset", "lws", "trainer", "volcano")]


def test_controller_packages_import_each_other_only_as_the_page_lists() -> None:
    listed = read_adapter_imports(PAGE.read_text())
    assert sideways_imports(_graph(), controller_packages()) == listed


def test_shared_imports_no_controller_package_and_no_cross_adapter_module() -> None:
    graph = _graph()
    allowed = {A, f"{A}.base", f"{A}.kit"}
    shared = f"{A}._shared"
    offenders = [
        f"{module} -> {dep}"
        for module, deps in sorted(graph.items())
        if module == shared or module.startswith(shared + ".")
        for dep in sorted(deps)
        if dep.startswith(A + ".") and not dep.startswith(shared + ".") and dep not in allowed
    ]
    assert offenders == []


def test_no_controller_package_imports_a_cross_adapter_module() -> None:
    graph = _graph()
    packages = controller_packages()
    top = {m for m in graph if m.startswith(A + ".") and m.count(".") == 2} - {f"{A}.base", f"{A}.kit"}
    top -= {*packages, f"{A}._shared"}
    offenders = [
        f"{module} -> {dep}"
        for module, deps in sorted(graph.items())
        if _package_of(module, packages) is not None
        for dep in sorted(deps & top)
    ]
    assert offenders == []


def test_a_sideways_import_is_found() -> None:
    graph = {f"{A}.trainer.adapter": {f"{A}.jobset.levels", f"{A}.trainer.pods"}, f"{A}.jobset.pods": {f"{A}.kit"}}
    assert sideways_imports(graph, [f"{A}.jobset", f"{A}.trainer"]) == {(f"{A}.trainer", f"{A}.jobset")}


# Tests mirror the code: each library module's tests are in tests/<same path>/test_<module>.py.
TESTS = ROOT / "tests"
MIRROR_EXCEPTIONS: dict[str, str] = {}
"""Library modules (paths from the repository root) allowed to have no mirrored test file, each with its reason.

At most three; a module listed here that has a mirrored test since is an error, so the list only shrinks.
"""


def mirrored_tests(module: Path) -> list[Path]:
    """Where the tests of ``module`` (a path from the repository root) may be: its mirrored test file.

    ``workloadbuilder/a/b.py`` is tested by ``tests/a/test_b.py`` and ``adapters/a/b.py`` by
    ``tests/adapters/a/test_b.py``; a top-level ``workloadbuilder/b.py`` by ``tests/core/test_b.py``.
    """
    parts = module.parts
    folder = parts[1:-1] if parts[0] == "workloadbuilder" else parts[:-1]
    name = f"test_{module.stem}.py"
    if parts[0] == "workloadbuilder" and not folder:
        return [TESTS / "core" / name]
    return [TESTS.joinpath(*folder, name)]


def library_modules() -> list[Path]:
    """Every library module but ``__init__.py`` and ``__main__.py``, as a path from the repository root."""
    found = []
    for folder in SOURCES.values():
        for path in sorted(folder.rglob("*.py")):
            relative = path.relative_to(ROOT)
            if relative.parts[:2] == ("workloadbuilder", "adapters"):
                continue  # the symbolic link to adapters/, listed from there
            if path.name not in ("__init__.py", "__main__.py"):
                found.append(relative)
    return found


def modules_without_a_mirrored_test() -> list[str]:
    return [str(m) for m in library_modules() if not any(t.is_file() for t in mirrored_tests(m))]


@pytest.mark.parametrize(
    ("module", "expected"),
    [
        ("workloadbuilder/limits.py", "tests/core/test_limits.py"),
        ("workloadbuilder/validation/dv.py", "tests/validation/test_dv.py"),
        ("workloadbuilder/placement/cluster/model.py", "tests/placement/cluster/test_model.py"),
        ("workloadbuilder/cli/commands/compile.py", "tests/cli/commands/test_compile.py"),
        ("adapters/job/pods.py", "tests/adapters/job/test_pods.py"),
        ("adapters/kit.py", "tests/adapters/test_kit.py"),
    ],
    ids=["top-level", "subpackage", "nested-subpackage", "cli-command", "adapter-package", "adapters-top"],
)
def test_the_mirrored_path_of_a_module(module: str, expected: str) -> None:
    assert mirrored_tests(Path(module)) == [ROOT / expected]


def test_every_library_module_has_a_mirrored_test() -> None:
    missing = modules_without_a_mirrored_test()
    unexplained = [module for module in missing if module not in MIRROR_EXCEPTIONS]
    assert unexplained == [], f"{len(unexplained)} modules without tests/<same path>/test_<module>.py:\n" + "\n".join(
        unexplained
    )


def test_the_mirror_exceptions_are_few_explained_and_still_missing() -> None:
    assert len(MIRROR_EXCEPTIONS) <= 3
    assert all(reason.strip() for reason in MIRROR_EXCEPTIONS.values())
    missing = set(modules_without_a_mirrored_test())
    assert [module for module in MIRROR_EXCEPTIONS if module not in missing] == []
