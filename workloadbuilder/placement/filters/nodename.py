"""NodeName: a pod that names its node fits no other.

Follows kubernetes/kubernetes ``pkg/scheduler/framework/plugins/nodename/node_name.go``.
"""

from __future__ import annotations

__all__ = ["NAME", "REASON", "check"]

NAME = "NodeName"
REASON = "node(s) didn't match the requested node name"


def check(wanted: str, node: str) -> str | None:
    """The plugin's reason when ``spec.nodeName`` is set to another node than ``node``, else ``None``."""
    if wanted and wanted != node:
        return REASON
    return None
