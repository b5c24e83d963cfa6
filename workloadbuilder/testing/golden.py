"""Golden files: compare objects with a YAML file, and rewrite it on request.

A reviewer reads a golden file as the exact manifest a change produces; a
change in output shows up as a diff of that file. Set ``update=True`` (the
pytest plugin's ``--update-goldens``) to write the file instead of comparing.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from workloadbuilder.manifests import to_yaml

__all__ = ["Golden", "assert_golden"]


def assert_golden(
    objects: BaseModel | dict[str, Any] | Iterable[BaseModel | dict[str, Any]], path: str | Path, update: bool = False
) -> None:
    """Assert that ``objects`` render to exactly the YAML in ``path`` (or write it when ``update``).

    Raises:
        AssertionError: with a unified diff, or when the file is missing.
    """
    __tracebackhide__ = True  # pytest shows the caller's line, not this function's source
    path = Path(path)
    text = to_yaml(objects)
    if update:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return
    if not path.exists():
        raise AssertionError(f"golden file {path} does not exist; run with --update-goldens to create it")
    expected = path.read_text()
    if text != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), text.splitlines(True), str(path), "actual"))
        raise AssertionError(f"output differs from {path}:\n{diff}")


class Golden:
    """The ``wb_golden`` fixture: ``wb_golden.check(objects, "name.yaml")`` against files in one folder."""

    def __init__(self, folder: Path, update: bool) -> None:
        self.folder = folder  # where the golden files are read and written
        self.update = update  # whether check() rewrites the files instead of comparing

    def check(self, objects: BaseModel | dict[str, Any] | Iterable[BaseModel | dict[str, Any]], name: str) -> None:
        """Compare ``objects`` with ``folder/name`` (or rewrite it under ``--update-goldens``)."""
        __tracebackhide__ = True
        assert_golden(objects, self.folder / name, self.update)
