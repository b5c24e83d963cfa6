"""Any custom resource, planned from a declarative mapping of where its building blocks and counts live.

``mapping`` holds the mapping (``CRDMapping`` and its parts, in JSONPath),
``adapter`` plans a resource with one (``CRDAdapter``, ``register_mapping``).
"""

from workloadbuilder.adapters.crd.adapter import CRDAdapter, register_mapping
from workloadbuilder.adapters.crd.mapping import BlockPaths, CRDMapping, GroupMapping, PodsMapping

__all__ = ["BlockPaths", "CRDAdapter", "CRDMapping", "GroupMapping", "PodsMapping", "register_mapping"]
