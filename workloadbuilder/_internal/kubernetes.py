"""Importing ``kubernetes.client`` without running the ``kubernetes`` package's ``__init__``.

The client's own package is lazy (a model module is imported when its class
is first used), but the top-level ``kubernetes/__init__.py`` imports
``config``, ``dynamic``, ``watch``, ``stream``, ``utils``,
``leaderelection`` and ``informer`` up front: with their dependencies
(google-auth, oauthlib, websocket, urllib3) about 150 ms before the first
model is touched, none of which this library uses to build objects.

``defer_package_init`` registers the ``kubernetes`` package without running
that file. The package stays whole for everyone else: its submodules import
as usual (``import kubernetes.config``), an attribute that names one
(``kubernetes.watch``) imports it on first use, and any other attribute
(``kubernetes.__version__``) runs the real ``__init__`` first.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys

__all__ = ["defer_package_init"]

_PACKAGE = "kubernetes"


def defer_package_init() -> None:
    """Register ``kubernetes`` as a package whose ``__init__`` runs only when something asks for it.

    Does nothing when ``kubernetes`` is already imported (or cannot be found:
    the import that needs it then fails as it would have).
    """
    if _PACKAGE in sys.modules:
        return
    spec = importlib.util.find_spec(_PACKAGE)
    if spec is None or spec.loader is None or spec.submodule_search_locations is None:
        return
    package = importlib.util.module_from_spec(spec)
    state = {"initialized": False}

    def initialize() -> None:
        if not state["initialized"]:
            state["initialized"] = True
            spec.loader.exec_module(package)  # type: ignore[union-attr]

    def __getattr__(name: str) -> object:
        if not name.startswith("__") and importlib.util.find_spec(f"{_PACKAGE}.{name}") is not None:
            return importlib.import_module(f"{_PACKAGE}.{name}")
        initialize()
        try:
            return package.__dict__[name]
        except KeyError:
            raise AttributeError(f"module {_PACKAGE!r} has no attribute {name!r}") from None

    setattr(package, "__getattr__", __getattr__)  # noqa: B010 - a module-level hook, not a method
    sys.modules[_PACKAGE] = package
