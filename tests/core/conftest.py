"""tests/core: the core library and the repository around it.

The top-level modules, each in ``test_<module>.py``: trees, mapping,
resolution, compilation, the Builder and forests, field errors, limits,
manifests, and creating the objects through the kubernetes client against a
recording stand-in for the API server (``interop``); the package's layout
(layers, the mirror of tests, packaging, exceptions); and the docs, examples
and parity table, which must run and hold as written.
Shared factories are in ``tests/factories.py`` and ``tests/objects_factories.py``.
"""
