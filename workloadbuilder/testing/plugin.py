"""The pytest plugin: ``--update-goldens`` and the ``golden`` fixture, registered on install.

Golden files live in a ``golden`` folder next to the test module that uses
them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from workloadbuilder.testing.golden import Golden


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add ``--update-goldens``."""
    parser.addoption(
        "--update-goldens", action="store_true", default=False, help="rewrite workloadbuilder golden files"
    )


@pytest.fixture
def golden(request: pytest.FixtureRequest) -> Golden:
    """Golden files in ``golden/`` beside the test module."""
    folder = Path(str(request.path)).parent / "golden"
    return Golden(folder, bool(request.config.getoption("--update-goldens")))
