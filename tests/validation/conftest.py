"""tests/validation: what the API server and the builder accept.

Each file mirrors the module of ``workloadbuilder/validation/`` it tests: the
building blocks' declarative rules, name formats, feature gates and the gates
a set of objects needs, the controller's checks (``Builder.validate``), whole
objects as the API server checks them on create and update (``objects``, with
``metadata``, ``templates``, ``workload_rules`` and ``groupspecs`` for their
parts), and runtime hierarchies. The folder is a package, as tests/placement's
are, so ``test_hierarchy.py`` does not collide with tests/runtime's. Objects are
built with ``tests/objects_factories.py``, trees with ``tests/factories.py``.
"""
