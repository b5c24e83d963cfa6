"""The ``preemption`` part of an explanation: whether evicting lower-priority work helps, which victims and why.

``report`` gives a ``PreemptionReport`` (``placement.answer``), whose JSON
form is, in this key order:

    {"wouldHelp": bool,          # evicting the victims lets the root be placed
     "eligible": bool,           # False when the preemptor's preemptionPolicy is Never
     "status": str | None,       # kube-scheduler's PodGroupPostFilter status message, where it has one
     "victims": [name],          # most important first
     "pods": int,                # pods the victims hold
     "violations": int,          # victims that violate a PodDisruptionBudget
     "reasons": [{"name", "kind", "priority", "pods", "nodes", "violatesBudget", "text"}],
     "text": str}

The status messages are DefaultPreemption's for pod groups
(pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go
prefixes the evaluator's message with ``pod group preemption: ``).
"""

from __future__ import annotations

from workloadbuilder.placement.answer import PreemptionReason, PreemptionReport
from workloadbuilder.placement.cluster.model import Cluster
from workloadbuilder.placement.framework.preemption import Unit, Victims

__all__ = ["NEVER_STATUS", "NO_VICTIMS_STATUS", "report"]

NEVER_STATUS = "pod group preemption: not eligible due to preemptionPolicy=Never."
"""What kube-scheduler says of a preemptor whose preemptionPolicy is Never."""
NO_VICTIMS_STATUS = "pod group preemption: No preemption victims found for incoming preemptor"
"""What kube-scheduler says when nothing of lower priority runs."""


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def report(
    found: Victims | None, candidates: list[Unit], asked: bool, priority: int, cluster: Cluster, never: bool = False
) -> PreemptionReport:
    """The ``preemption`` entry of a root that did not fit as it was.

    Args:
        found: what preemption found (``None`` when it could not help or was not eligible).
        candidates: every unit of lower priority than the preemptor.
        asked: whether the victims were evicted (``preempt=True``) or only probed.
        priority: the preemptor's priority.
        cluster: for node names.
        never: the preemptor's preemptionPolicy is Never.
    """
    if never:
        text = f"preemption cannot help: the preemptor's preemptionPolicy is Never ({NEVER_STATUS})"
        return _helpless(text, eligible=False, status=NEVER_STATUS)
    if not candidates:
        return _helpless("preemption cannot help: nothing of lower priority runs", status=NO_VICTIMS_STATUS)
    if found is None:
        return _helpless(
            "preemption would not help: even evicting every lower-priority unit "
            f"({_count(len(candidates), 'unit')}) leaves it unplaceable"
        )
    units = found.units
    violating = {unit.name for unit in found.violating}
    pods = sum(len(unit.pods) for unit in units)
    top = max((unit.priority for unit in units), default=0)
    verb = "evicts" if asked else "would help: evicting"
    text = f"preemption {verb} {_count(len(units), 'unit')} ({_count(pods, 'pod')}, priority up to {top})"
    if violating:
        text += f", {_count(len(violating), 'PodDisruptionBudget violation')}"
    return PreemptionReport(
        would_help=True,
        eligible=True,
        status=None,
        victims=tuple(unit.name for unit in units),
        pods=pods,
        violations=len(violating),
        reasons=tuple(_reason(unit, priority, unit.name in violating, cluster) for unit in units),
        text=text,
    )


def _helpless(text: str, *, eligible: bool = True, status: str | None = None) -> PreemptionReport:
    """A report that preemption does not help, saying why."""
    return PreemptionReport(False, eligible, status, (), 0, 0, (), text)


def _reason(unit: Unit, priority: int, violates: bool, cluster: Cluster) -> PreemptionReason:
    """Why one unit goes: below the preemptor's priority, and the placed pods need its room."""
    nodes = [cluster.names[i] for i in unit.nodes]
    where = ", ".join(nodes[:3]) + (", ..." if len(nodes) > 3 else "")
    text = (
        f"`{unit.name}` ({unit.kind}, priority {unit.priority} < {priority}): {_count(len(unit.pods), 'pod')} on "
        f"{where}; with it back, a placed pod would not fit there"
    )
    if violates:
        text += "; evicting it violates a PodDisruptionBudget (no reprieve kept the budget)"
    return PreemptionReason(unit.name, unit.kind, unit.priority, len(unit.pods), tuple(nodes), violates, text)
