"""The real-scheduler harness's Python scripts (``tools/reference/scheduler/``), loaded for the replay tests.

The scripts live beside the Go harness, not in a package; ``script("compare_groups")``
gives one as a module, loaded once from its path.
"""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
"""The repository's root."""

HARNESS = ROOT / "tools" / "reference" / "scheduler"
"""Where the harness and its scripts are."""

RECORDINGS = ROOT / "tests" / "data" / "scheduler-real"
"""Where the harness's recordings are."""


@functools.cache
def script(name: str) -> ModuleType:
    """``tools/reference/scheduler/<name>.py`` as a module."""
    spec = importlib.util.spec_from_file_location(f"scheduler_harness_{name}", HARNESS / f"{name}.py")
    assert spec is not None, name
    assert spec.loader is not None, name
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
