"""The distribution installs one top-level package, workloadbuilder, with the adapters inside it."""

import doctest
import importlib
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(out), str(ROOT)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.fail(f"building the wheel failed:\n{done.stderr[-2000:]}")
    (path,) = out.glob("workloadbuilder-*.whl")
    return zipfile.ZipFile(path)


def test_the_wheel_installs_only_the_workloadbuilder_package(wheel):
    (top_level,) = [name for name in wheel.namelist() if name.endswith(".dist-info/top_level.txt")]
    assert wheel.read(top_level).decode().split() == ["workloadbuilder"]


def test_the_wheel_carries_the_adapters_as_a_subpackage(wheel):
    names = set(wheel.namelist())
    expected = {f"workloadbuilder/{p.relative_to(ROOT).as_posix()}" for p in (ROOT / "adapters").rglob("*.py")}
    assert expected <= names
    assert not any(name.startswith("adapters/") for name in names)


def test_every_package_folder_is_listed_in_pyproject(wheel):
    folders = {p.parent.relative_to(ROOT).as_posix() for p in (ROOT / "workloadbuilder").rglob("__init__.py")}
    # rglob does not follow the workloadbuilder/adapters link: the adapters' packages are read from adapters/
    adapters = {
        f"workloadbuilder/{p.parent.relative_to(ROOT).as_posix()}" for p in (ROOT / "adapters").rglob("__init__.py")
    }
    packaged = {name.rsplit("/", 1)[0] for name in wheel.namelist() if name.endswith("/__init__.py")}
    assert folders | adapters == packaged


def test_the_editable_install_imports_the_adapters_from_the_repository(tmp_path):
    # Run from elsewhere, so that the repository root is not on sys.path.
    probe = (
        "import importlib.util, workloadbuilder.adapters as a; "
        "print(a.__file__); print(importlib.util.find_spec('adapters'))"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, check=True)
    location, top_level = done.stdout.split()
    assert Path(location).resolve() == ROOT / "adapters" / "__init__.py"
    assert top_level == "None"


@pytest.mark.parametrize(
    "module", ["workloadbuilder.adapters.base", "workloadbuilder.adapters._shared.reading"], ids=str
)
def test_adapter_doctests(module):
    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0
    assert result.failed == 0
