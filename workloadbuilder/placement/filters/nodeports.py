"""NodePorts: two pods binding the same host port cannot share a node.

Follows kubernetes/kubernetes ``pkg/scheduler/framework/plugins/nodeports/node_ports.go``
and ``HostPortInfo.CheckConflict``: same protocol and port conflict when
either address is ``0.0.0.0`` or both are equal.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from workloadbuilder.placement.k8s.constraints import HostPort

__all__ = ["NAME", "REASON", "check"]

NAME = "NodePorts"
REASON = "node(s) didn't have free ports for the requested pod ports"


def check(wanted: Sequence[HostPort], used: Iterable[HostPort]) -> str | None:
    """The plugin's reason when a wanted port conflicts with one already used on the node, else ``None``."""
    if not wanted:
        return None
    used = tuple(used)
    if any(port.conflicts(other) for port in wanted for other in used):
        return REASON
    return None
