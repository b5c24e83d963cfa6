"""The text output of ``place`` and ``explain``: a placement, or only its explanation, input by input.

Both start with the line describing the cluster and end with a one-line
verdict; in between, each input object says whether it was placed. ``place``
then shows each group's domain, nodes and the capacity left there (or why
not), ``explain`` each root's explanation section by section. The JSON
output is the placement's own; this module is only for people reading a
terminal.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from workloadbuilder.cli.placement_inputs import PlacementInput
from workloadbuilder.placement import GroupPlacement, GroupRequest, Placement, resource_millis
from workloadbuilder.placement.answer import ResourceShortage, RootExplanation, SearchSummary
from workloadbuilder.placement.explain.root import proof_text, shortage_text
from workloadbuilder.placement.explain.wording import count_of, reason_count, short_key
from workloadbuilder.placement.k8s.quantity import readable_quantity

__all__ = ["explain_text", "place_text"]

_NODES_SHOWN = 8


def place_text(inputs: Sequence[PlacementInput], placement: Placement, cluster_line: str) -> str:
    """Each input: its groups, where they went and the capacity left, or why not."""
    explained = _explained(placement)
    lines = [cluster_line, ""]
    by_name = {group.name: group for group in placement.groups}
    for item in inputs:
        roots = [explained[root.name] for root in item.request.roots]
        lines.append(f"{item.label}: {'placed' if all(r.feasible for r in roots) else 'not placed'}")
        lines += _warning_lines(item)
        for root in item.request.roots:
            for group, depth in _walk(root, 1):
                lines += _group_lines(group, by_name[group.name], depth)
            entry = explained[root.name]
            notes = entry.text[1:] if entry.feasible else entry.text
            if notes:
                lines.append("  why:" if not entry.feasible else "  notes:")
                lines += [f"    {note}" for note in notes]
        lines.append("")
    lines += _victim_lines(placement)
    lines.append(_summary(inputs, placement, explained))
    return "\n".join(lines) + "\n"


def explain_text(inputs: Sequence[PlacementInput], placement: Placement, cluster_line: str) -> str:
    """Each input's explanation: quorum, each failing level, resources, claims, search, preemption."""
    explained = _explained(placement)
    lines = [cluster_line, ""]
    for item in inputs:
        entries = [explained[root.name] for root in item.request.roots]
        verdict = "placed" if all(entry.feasible for entry in entries) else "not placed"
        lines.append(f"{item.label}: {verdict} ({placement.strategy})")
        lines += _warning_lines(item)
        for entry in entries:
            lines += _explanation_lines(entry)
        lines.append("")
    lines.append(_summary(inputs, placement, explained))
    return "\n".join(lines) + "\n"


def _warning_lines(item: PlacementInput) -> list[str]:
    """What the model does not check in the input's pods (per-pod DRA claims, volumes, ...), one line each.

    The JSON output has them under ``warnings``; a reader of the text must see them too, since each one
    is a way the answer can be wrong.
    """
    return [f"  warning: {warning}" for warning in item.request.warnings]


def _explained(placement: Placement) -> dict[str, RootExplanation]:
    """The explanation's entries by root group name: inputs name their roots, the explanation lists them."""
    return {entry.group: entry for entry in placement.explained}


def _summary(inputs: Sequence[PlacementInput], placement: Placement, explained: Mapping[str, RootExplanation]) -> str:
    """The last line: the verdict, and how many input objects (not groups) were placed."""
    placed = sum(all(explained[root.name].feasible for root in item.request.roots) for item in inputs)
    verdict = "feasible" if placement.feasible else "not feasible"
    return f"{verdict} ({placement.strategy}): {placed} of {count_of(len(inputs), 'object')} placed"


def _walk(group: GroupRequest, depth: int) -> Iterable[tuple[GroupRequest, int]]:
    """A group and everything below it, each with its depth, so the output can indent the hierarchy."""
    yield group, depth
    for child in group.children:
        yield from _walk(child, depth + 1)


def _group_lines(group: GroupRequest, placed: GroupPlacement, depth: int) -> list[str]:
    """A group's header, where it went (or that it did not), and the capacity left in its domain."""
    pad = "  " * depth
    policy = f"gang, {'minCount' if group.is_leaf else 'minGroupCount'} {group.minimum}" if group.gang else "basic"
    details = [f"template {group.template}"] if group.template else []
    details += [policy, *([f"topology {group.topology_key}"] if group.topology_key else [])]
    lines = [f"{pad}{group.kind} {group.name} ({'; '.join(details)})"]
    where = ", ".join(f"{short_key(key)} {value}" for key, value in placed.domains.items()) or "the cluster"
    if group.is_leaf:
        if placed.pods:
            nodes = Counter(pod.node for pod in placed.pods)
            shown = [f"{node} x{n}" if n > 1 else node for node, n in list(nodes.items())[:_NODES_SHOWN]]
            if len(nodes) > _NODES_SHOWN:
                shown.append(f"... ({len(nodes) - _NODES_SHOWN} more nodes)")
            lines.append(
                f"{pad}  placed {len(placed.pods)} of {count_of(group.count, 'pod')} in {where}, "
                f"on {count_of(len(nodes), 'node')}: {', '.join(shown)}"
            )
        else:
            lines.append(f"{pad}  not placed ({group.minimum} of its {count_of(group.count, 'pod')} needed)")
    else:
        below = sum(1 for member in group.walk() if member.is_leaf)
        if placed.domains or placed.capacity_left:
            lines.append(f"{pad}  placed in {where} ({count_of(below, 'PodGroup')} below)")
        else:
            lines.append(
                f"{pad}  not placed ({group.minimum} of its {count_of(len(group.children), 'child group')} needed)"
            )
    if placed.capacity_left:
        left = ", ".join(
            f"{resource} {readable_quantity(resource, resource_millis(resource, amount))}"
            for resource, amount in placed.capacity_left.items()
        )
        lines.append(f"{pad}  capacity left in {where}: {left}")
    if placed.unusable and placed.unusable.get("nodes"):
        lines.append(f"{pad}  {_unusable_text(placed.unusable, where)}")
    return lines


def _unusable_text(unusable: Mapping[str, object], where: str) -> str:
    """The domain's nodes the group's pods may not use, why, and what is free there (not in the capacity left)."""
    nodes = int(unusable["nodes"])  # type: ignore[call-overload]
    reasons = unusable.get("reasons") or {}
    why = ", ".join(reason_count(n, reason) for reason, n in reasons.items())  # type: ignore[attr-defined]
    free = unusable.get("free") or {}
    amounts = ", ".join(
        f"{resource} {readable_quantity(resource, resource_millis(resource, amount))}"
        for resource, amount in free.items()  # type: ignore[attr-defined]
    )
    text = f"not usable by its pods in {where}: {count_of(nodes, 'node')}"
    text += f" ({why})" if why else ""
    return text + (f", with {amounts} free" if amounts else "")


def _victim_lines(placement: Placement) -> list[str]:
    """What preemption evicted, and from which nodes (nothing when it evicted nothing)."""
    if not placement.victims:
        return []
    lines = ["evicted:"]
    for victim in placement.victims:
        nodes = sorted({pod.node for pod in victim.pods})
        lines.append(
            f"  {victim.kind} {victim.name} (priority {victim.priority}): "
            f"{count_of(len(victim.pods), 'pod')} on {', '.join(nodes)}"
        )
    return [*lines, ""]


def _explanation_lines(entry: RootExplanation) -> list[str]:
    """One root's explanation, section by section; a placed root says where and what it took."""
    lines = [f"  {entry.text[0]}"]
    if entry.feasible:
        lines += [f"  {line}" for line in entry.text[1:]]
    else:
        if entry.fit_errors:
            lines.append("  kube-scheduler (FailedScheduling):")
            lines += [f"    `{line.group}` pod `{line.pod}`: {line.message}" for line in entry.fit_errors]
        if entry.quorum:
            lines.append("  quorum:")
            for quorum in entry.quorum:
                field_name = "minCount" if quorum.unit == "pods" else "minGroupCount"
                state = "met" if quorum.ok else "short"
                lines.append(
                    f"    `{quorum.group}`: {quorum.have} {quorum.unit} for a {field_name} of {quorum.need}: {state}"
                )
        if entry.levels:
            lines.append("  levels, outermost first:")
            for level in entry.levels:
                lines.append(f"    [{short_key(level.topology_key)}] {level.text}")
                lines += [f"      {domain.text}" for domain in level.exclusions]
        if entry.filters:
            lines.append("  filters, in kube-scheduler's order:")
            lines += [f"    {rejection.text}" for rejection in entry.filters]
        shortages = [resource for resource in entry.resources if resource.resource != "unschedulable"]
        if shortages:  # cordons are NodeUnschedulable's, said with the filters
            lines.append("  resources:")
            lines += [f"    {_resource_text(resource)}" for resource in shortages]
        if entry.claims:
            lines.append("  claims:")
            lines += [f"    {claim.text}" for claim in entry.claims]
        if entry.interplay is not None:
            lines.append(f"  earlier roots: {entry.interplay.text}")
        if entry.preemption is not None:
            lines.append(f"  preemption: {entry.preemption.text}")
            lines += [f"    {reason.text}" for reason in entry.preemption.reasons]
    if entry.search is not None:
        lines.append(f"  search: {_search_text(entry.search, entry.feasible, entry.placed_before)}")
    return lines


def _resource_text(entry: ResourceShortage) -> str:
    """One resource shortfall: how many of the nodes the earlier filters pass it rules out (cordons apart)."""
    return shortage_text(entry, short=False)


def _search_text(search: SearchSummary, feasible: bool, placed_before: tuple[str, ...]) -> str:
    """What the complete search did: a search cut short by its time bound proves nothing, so it says so.

    A proof that nothing fits holds beside the roots placed before, and says so.
    """
    if search.greedy:
        return "kube-scheduler's answer, kept by the complete strategy"
    if search.timed_out:
        return f"the complete search reached its time bound ({search.timeout:g} s): no placement found, none ruled out"
    if not feasible:
        return proof_text(placed_before)
    return "found by the complete search (exact)"
