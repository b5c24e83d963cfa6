"""quiet_gc: the cycle collector is paused inside the block and left as it was after it."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from workloadbuilder._internal.collector import quiet_gc


@pytest.fixture
def collector_state() -> Iterator[None]:
    enabled = gc.isenabled()
    yield
    if enabled:
        gc.enable()
    else:
        gc.disable()


@pytest.mark.usefixtures("collector_state")
@pytest.mark.parametrize("enabled", [True, False], ids=["was-enabled", "was-disabled"])
def test_the_collector_is_off_inside_and_as_before_after(enabled: bool):
    gc.enable() if enabled else gc.disable()
    with quiet_gc():
        assert not gc.isenabled()
    assert gc.isenabled() is enabled


@pytest.mark.usefixtures("collector_state")
def test_an_exception_still_restores_the_collector():
    gc.enable()
    with pytest.raises(ValueError, match="boom"), quiet_gc():
        raise ValueError("boom")
    assert gc.isenabled()


@pytest.mark.usefixtures("collector_state")
def test_nested_blocks_restore_only_at_the_outer_end():
    gc.enable()
    with quiet_gc():
        with quiet_gc():
            pass
        assert not gc.isenabled()
    assert gc.isenabled()
