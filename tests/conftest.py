"""Shared pytest configuration for every test folder.

pytester runs the testing kit's plugin the way a user's suite would; and
every parametrized table names its cases: a ``parametrize`` without ``ids``
(or without an ``id`` on each of its ``pytest.param``s) fails collection.
Each topic folder has a ``conftest.py`` of its own; none holds doctests, so
``--doctest-modules`` does not collect them (several files named conftest.py
outside packages would collide there).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest_plugins = ["pytester"]


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Leave the conftest files out of doctest collection; pytest loads them as conftests all the same."""
    return True if collection_path.name == "conftest.py" else None


def parametrize_has_ids(mark: pytest.Mark) -> bool:
    """Whether a ``parametrize`` mark names each of its cases."""
    if "ids" in mark.kwargs and mark.kwargs["ids"] is not None:
        return True
    values: Any = mark.args[1] if len(mark.args) > 1 else mark.kwargs.get("argvalues", [])
    return bool(values) and all(getattr(value, "id", None) is not None for value in values)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Fail collection when a test under tests/ is parametrized without ids."""
    unnamed = sorted(
        {
            f"{item.path.relative_to(config.rootpath)}::{getattr(item, 'originalname', item.name)}"
            for item in items
            if item.path.is_relative_to(config.rootpath / "tests")
            for mark in item.iter_markers("parametrize")
            if not parametrize_has_ids(mark)
        }
    )
    if unnamed:
        raise pytest.UsageError("parametrize without ids (pass ids=...): " + ", ".join(unnamed))
