"""tests/core: the core library and the repository around it.

Trees, mapping, resolution, compilation, the Builder and forests, strict
decoding, field errors, names, manifests and migration; the package's
layout (layers, packaging, exceptions, the template walk); and the docs,
examples and parity table, which must run and hold as written.
Shared factories are in ``tests/factories.py`` and ``tests/objects_factories.py``.
"""
