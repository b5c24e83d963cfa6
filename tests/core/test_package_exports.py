"""The package's lazy public face: every name of ``__all__`` resolves, and the type checker sees the same names."""

from __future__ import annotations

import ast
import pkgutil
import re
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

import workloadbuilder

INIT = Path(workloadbuilder.__file__)


def _type_checking_imports() -> dict[str, str]:
    """Name -> module of the imports under ``if TYPE_CHECKING:`` in the package's ``__init__``."""
    tree = ast.parse(INIT.read_text())
    block = next(node for node in tree.body if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING")
    names = {}
    for node in block.body:
        assert isinstance(node, ast.ImportFrom)
        assert node.module is not None
        for alias in node.names:
            names[alias.name] = f"{node.module}.{alias.name}" if node.module == "workloadbuilder" else node.module
    return names


def test_the_type_checker_sees_exactly_the_lazy_names() -> None:
    imports = _type_checking_imports()
    lazy = {**workloadbuilder._EXPORTS, **{name: f"workloadbuilder.{name}" for name in workloadbuilder._SUBMODULES}}
    assert imports == lazy
    assert sorted(workloadbuilder.__all__) == sorted(lazy)


@pytest.mark.parametrize("name", workloadbuilder.__all__, ids=workloadbuilder.__all__)
def test_every_public_name_resolves_to_its_definition(name: str) -> None:
    value = getattr(workloadbuilder, name)
    module = workloadbuilder._EXPORTS.get(name)
    if module is None:
        assert value is sys.modules[f"workloadbuilder.{name}"]
    else:
        assert value is getattr(sys.modules[module], name)


def test_no_exported_function_shares_its_name_with_a_submodule() -> None:
    submodules = {info.name for info in pkgutil.iter_modules(workloadbuilder.__path__)}
    assert sorted(set(workloadbuilder.__all__) & submodules) == ["manifests"]  # the one submodule exported as such


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        workloadbuilder.nope  # noqa: B018 - the attribute access is the test


def test_importing_the_package_imports_no_kubernetes_model() -> None:
    code = (
        "import sys, workloadbuilder; "
        "print(sorted(m for m in sys.modules if m.startswith(('kubernetes', 'pydantic', 'yaml'))))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout == "['kubernetes']\n"


def test_the_kubernetes_package_stays_whole() -> None:
    code = (
        "import workloadbuilder._internal.kinds, kubernetes; "
        "print(kubernetes.__version__, kubernetes.config.ConfigException.__name__, kubernetes.watch.Watch.__name__)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout == f"{version('kubernetes')} ConfigException Watch\n"


def test_the_public_surface_is_documented_name_by_name() -> None:
    page = (INIT.parents[1] / "docs" / "reference" / "workloadbuilder.md").read_text()
    surface = page.split("## The public surface", 1)[1].split("## Modules", 1)[0]
    assert sorted(re.findall(r"`(\w+)`", surface.split("|---|---|", 1)[1])) == sorted(workloadbuilder.__all__)
