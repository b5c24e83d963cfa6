"""Properties of names and runtime hierarchies over random inputs."""

from __future__ import annotations

import math
from collections.abc import Iterator

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workloadbuilder import Builder, BuildOptions, WorkloadItem
from workloadbuilder.runtime.hierarchy import materialize
from workloadbuilder.runtime.naming import pod_group_name, runtime_group_name, template_name, workload_name
from workloadbuilder.validation.formats import is_dns1123_label, is_dns1123_subdomain

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
OWNER = {"apiVersion": "v1", "kind": "ConfigMap", "name": "cm", "uid": "cm-uid", "controller": True}

_LABEL = st.from_regex(r"[a-z0-9]([-a-z0-9]{0,40}[a-z0-9])?", fullmatch=True)
# DNS subdomains of any length up to 300 (longer than allowed, so the cuts are exercised), dots included.
SUBDOMAINS = st.lists(_LABEL, min_size=1, max_size=12).map(".".join).map(lambda s: s[:300].rstrip(".-") or "a")


@SETTINGS
@given(owner=SUBDOMAINS, uid=st.text(max_size=40))
def test_workload_names_are_valid_subdomains(owner: str, uid: str):
    name = workload_name(owner, uid)
    assert is_dns1123_subdomain(name) == []
    assert name == workload_name(owner, uid)


@SETTINGS
@given(workload=SUBDOMAINS, template=_LABEL, indices=st.lists(st.integers(0, 10_000), max_size=4))
def test_runtime_group_names_are_valid_subdomains(workload: str, template: str, indices: list[int]):
    name = runtime_group_name(workload, template, indices)
    assert is_dns1123_subdomain(name) == []
    if not indices:
        assert name == pod_group_name(workload, template)


@SETTINGS
@given(base=SUBDOMAINS, index=st.integers(0, 99))
def test_template_names_are_valid_labels(base: str, index: int):
    name = template_name(base, f"pgt-{index}")
    assert is_dns1123_label(name) == []
    if len(base) <= 57 and "." not in base:
        assert name == f"{base}-pgt-{index}"


@st.composite
def trees(draw: st.DrawFn) -> tuple[WorkloadItem, dict[str, int]]:
    """A tree of depth up to 4 and width up to 3, and a count for some of its templates."""
    counter = iter(range(1000))
    counts: dict[str, int] = {}

    def node(depth: int) -> WorkloadItem:
        name = f"t{next(counter)}"
        if draw(st.booleans()):
            counts[name] = draw(st.integers(0, 3))
        width = draw(st.integers(0, 3)) if depth < 4 else 0
        return WorkloadItem(name=name, children=[node(depth + 1) for _ in range(width)])

    return node(1), counts


def chains(item: WorkloadItem, above: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    yield (*above, item.name)
    for child in item.children:
        yield from chains(child, (*above, item.name))


@SETTINGS
@given(tree=trees())
def test_hierarchies_are_complete_and_ordered(tree: tuple[WorkloadItem, dict[str, int]]):
    root, counts = tree
    workload = Builder(root, BuildOptions(name="wl", namespace="ns", owner=OWNER)).build_workload()
    hierarchy = materialize(workload, counts)
    # as many groups of each template as the counts on its way down multiply to
    for chain in chains(root):
        expected = math.prod(counts.get(name, 1) for name in chain)
        assert sum(1 for g in hierarchy if g.template_name == chain[-1]) == expected
    seen: set[str] = set()
    for group in hierarchy:
        assert group.name not in seen
        assert is_dns1123_subdomain(group.name) == []
        assert group.parent is None or group.parent in seen
        assert len(group.indices) == sum(
            1 for name in next(c for c in chains(root) if c[-1] == group.template_name) if name in counts
        )
        seen.add(group.name)
    assert [obj.metadata.name for obj in hierarchy.deletion_order()] == [g.name for g in reversed(hierarchy.groups)]
