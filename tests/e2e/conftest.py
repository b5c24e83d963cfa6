"""The real control plane for the end-to-end tests (``tools/control-plane/``), started once per session.

The tests run when ``WORKLOADBUILDER_E2E=1`` is set (``.ci/run`` sets it when it
could build or reuse the binaries); otherwise each of them is skipped with one
line saying how to turn them on. The switch is explicit rather than "whenever
the binaries are cached" because the cache is per user, not per clone: on a
machine where the binaries were built once, every later run of the README's
test command would otherwise start a cluster.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SWITCH = "WORKLOADBUILDER_E2E"
HOW = (
    f"e2e: set {SWITCH}=1 to run against a real v1.37.2 control plane "
    "(build it once with `python3 tools/control-plane/controlplane.py build`; needs Go 1.26 and etcd)"
)


def _load_tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("controlplane", ROOT / "tools" / "control-plane" / "controlplane.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["controlplane"] = module
    spec.loader.exec_module(module)
    return module


controlplane = _load_tool()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test of this folder carries the ``e2e`` mark (``-m "not e2e"`` leaves them out)."""
    here = Path(__file__).parent
    for item in items:
        if item.path.is_relative_to(here):
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="session")
def control_plane() -> Iterator[Any]:
    """A running control plane (``controlplane.ControlPlane``); skips the test when e2e is off."""
    if os.environ.get(SWITCH) != "1":
        pytest.skip(HOW)
    if not controlplane.binaries_present():
        pytest.fail(
            f"{SWITCH}=1 but no binaries in {controlplane.cache_dir()}: run controlplane.py build", pytrace=False
        )
    plane = controlplane.ControlPlane()
    plane.start()
    print(f"\ncontrol plane {controlplane.VERSION} started in {plane.start_seconds:.1f} s (logs: {plane.logs})")
    try:
        yield plane
    finally:
        plane.stop()


@pytest.fixture(scope="session")
def api_client(control_plane: Any) -> Iterator[Any]:
    """A kubernetes ``ApiClient`` for the control plane's admin user."""
    from kubernetes import config

    client = config.new_client_from_config(str(control_plane.kubeconfig))
    try:
        yield client
    finally:
        client.close()


@pytest.fixture
def namespace(api_client: Any) -> Iterator[str]:
    """A fresh namespace for one test, deleted afterwards; the next test starts once its pods are gone.

    Its Jobs go first and its pods are deleted at once (``live_api.delete_namespace``):
    no kubelet confirms a graceful deletion, so a bound pod left behind would hold
    its Node's CPU into the next test.
    """
    from live_api import call, delete_namespace

    name = f"e2e-{uuid.uuid4().hex[:8]}"
    status, body = call(api_client, "POST", "/api/v1/namespaces", {"metadata": {"name": name}})
    assert status == 201, body
    try:
        yield name
    finally:
        delete_namespace(api_client, name)
