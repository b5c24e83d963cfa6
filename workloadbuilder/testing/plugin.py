"""The pytest plugin: ``--update-goldens`` and the ``wb_golden`` fixture, registered on install.

The fixture's name carries the ``wb_`` prefix so that it cannot shadow a ``golden`` fixture of the
project that installs this package (the plugin is active in every pytest session where it is installed).

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
def wb_golden(request: pytest.FixtureRequest) -> Golden:
    """Golden files in ``golden/`` beside the test module."""
    folder = Path(str(request.path)).parent / "golden"
    return Golden(folder, bool(request.config.getoption("--update-goldens")))
