"""tests/validation: what the API server and the builder accept.

The building blocks' declarative rules, name formats, feature gates, the
controller's checks (``Builder.validate``), whole objects as the API server
checks them on create and update, and runtime hierarchies. Objects are built
with ``tests/objects_factories.py``, trees with ``tests/factories.py``.
"""
