"""The queue: Priority admission for each group to place, ``PrioritySort``'s order of roots, and gang queue admission.

``resolve_request`` gives every group the priority and preemption policy the
apiserver's Priority admission would (a class's value, an explicit
``priority``, the ``globalDefault`` class, else 0), one priority per root
hierarchy, and ``Never`` for a root when any group or pod template in it
says so. ``queue_order`` is ``PrioritySort``'s ``Less``: higher priority
first, then the earlier one. ``admissible`` is the gang's queue admission.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workloadbuilder.placement.framework.queue import admissible, queue_order, resolve_request
from workloadbuilder.placement.k8s.priorities import PriorityClass, PriorityClasses, PriorityError, PrioritySpec
from workloadbuilder.placement.request.model import GroupRequest, PlacementRequest


def group(
    name: str,
    *children: GroupRequest,
    count: int = 0,
    minimum: int = 1,
    gang: bool = True,
    spec: PrioritySpec | None = None,
    pods: PrioritySpec | None = None,
    priority: int = 0,
    order: tuple[str, int] = ("", 0),
) -> GroupRequest:
    out = GroupRequest(
        name,
        "CompositePodGroup" if children else "PodGroup",
        None,
        None,
        gang,
        minimum,
        None,
        priority,
        "single",
        count=count,
        children=list(children),
        order=order,
        priority_spec=spec or PrioritySpec(),
        pod_priority=pods,
    )
    for child in children:
        child.parent = name
    return out


CLASSES = PriorityClasses(
    [
        PriorityClass("high", 1000),
        PriorityClass("batch", 100, global_default=True),
        PriorityClass("polite", 500, preemption_policy="Never"),
    ]
)


RESOLVE = [
    ("nothing said: the globalDefault class", PrioritySpec(), None, (100, "PreemptLowerPriority")),
    ("a class", PrioritySpec("high"), None, (1000, "PreemptLowerPriority")),
    ("a class's Never policy", PrioritySpec("polite"), None, (500, "Never")),
    ("an explicit priority without class", PrioritySpec(priority=7), None, (7, "PreemptLowerPriority")),
    (
        "an explicit policy beats the class's",
        PrioritySpec("polite", preemption_policy="PreemptLowerPriority"),
        None,
        (500, "PreemptLowerPriority"),
    ),
    ("a system class", PrioritySpec("system-node-critical"), None, (2_000_001_000, "PreemptLowerPriority")),
    (
        "the pods' class when the group says nothing",
        PrioritySpec(),
        PrioritySpec("high"),
        (1000, "PreemptLowerPriority"),
    ),
    (
        "the pods' Never beats the group's class",
        PrioritySpec("high"),
        PrioritySpec(preemption_policy="Never"),
        (1000, "Never"),
    ),
]


@pytest.mark.parametrize(("spec", "pods", "expected"), [c[1:] for c in RESOLVE], ids=[c[0] for c in RESOLVE])
def test_resolve_request_one_group(spec: PrioritySpec, pods: PrioritySpec | None, expected: tuple[int, str]) -> None:
    root = group("workers", count=2, spec=spec, pods=pods)
    resolve_request(PlacementRequest([root]), CLASSES)
    assert (root.priority, root.preemption_policy) == expected


def test_without_default_class_the_priority_is_zero() -> None:
    root = group("workers", count=1)
    resolve_request(PlacementRequest([root]), PriorityClasses())
    assert (root.priority, root.preemption_policy) == (0, "PreemptLowerPriority")


def test_an_unknown_class_is_admissions_forbidden_message() -> None:
    root = group("workers", count=1, spec=PrioritySpec("missing"))
    with pytest.raises(PriorityError) as raised:
        resolve_request(PlacementRequest([root]), CLASSES)
    assert str(raised.value) == (
        'podgroups.scheduling.k8s.io "workers" is forbidden: no PriorityClass with name missing was found'
    )
    assert raised.value.obj == "workers"


def test_an_unknown_class_of_the_pods_names_the_group() -> None:
    root = group("workers", count=1, pods=PrioritySpec("missing"))
    with pytest.raises(PriorityError) as raised:
        resolve_request(PlacementRequest([root]), CLASSES)
    assert raised.value.obj == "workers"


def test_a_child_must_have_its_roots_priority() -> None:
    child = group("pg-1", count=1, spec=PrioritySpec("batch"))
    root = group("cpg", child, spec=PrioritySpec("high"))
    with pytest.raises(PriorityError) as raised:
        resolve_request(PlacementRequest([root]), CLASSES)
    assert str(raised.value) == (
        "podgroups.scheduling.k8s.io \"pg-1\": priority 100 must match the priority of its root 'cpg' (1000)"
    )
    assert raised.value.obj == "pg-1"


def test_one_never_in_the_hierarchy_makes_the_root_never() -> None:
    polite = group("pg-2", count=1, spec=PrioritySpec("high", preemption_policy="Never"))
    root = group("cpg", group("pg-1", count=1, spec=PrioritySpec("high")), polite, spec=PrioritySpec("high"))
    resolve_request(PlacementRequest([root]), CLASSES)
    assert [g.priority for g in root.walk()] == [1000, 1000, 1000]
    assert root.preemption_policy == "Never"


def test_queue_order_is_priority_then_creation() -> None:
    roots = [
        group("late-high", priority=10, order=("2024-01-02", 0)),
        group("early-low", priority=0, order=("2024-01-01", 0)),
        group("early-high", priority=10, order=("2024-01-01", 1)),
        group("earliest-high", priority=10, order=("2024-01-01", 0)),
        group("negative", priority=-5, order=("", 0)),
    ]
    assert [r.name for r in queue_order(roots)] == ["earliest-high", "early-high", "late-high", "early-low", "negative"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=1, max_size=8), st.randoms(use_true_random=False))
def test_queue_order_is_a_total_order(priorities: list[int], rng: object) -> None:
    """With distinct creation orders, the order does not depend on the input's, and each pair is in ``Less`` order."""
    roots = [group(f"r{k}", priority=p, order=("t", k)) for k, p in enumerate(priorities)]
    shuffled = list(roots)
    rng.shuffle(shuffled)  # type: ignore[attr-defined]
    ordered = queue_order(shuffled)
    assert [r.name for r in ordered] == [r.name for r in queue_order(roots)]
    for a, b in itertools.pairwise(ordered):
        assert a.priority > b.priority or (a.priority == b.priority and a.order < b.order)


ADMISSIBLE = [
    ("a gang with enough pods", group("pg", count=4, minimum=4), True),
    ("a gang short of pods", group("pg", count=3, minimum=4), False),
    ("a basic group needs one pod", group("pg", count=1, minimum=5, gang=False), True),
    ("a basic group with no pod", group("pg", count=0, gang=False), False),
    (
        "a composite with enough admissible children",
        group("cpg", group("a", count=2, minimum=2), group("b", count=1, minimum=2), minimum=1),
        True,
    ),
    (
        "a composite whose children fall short",
        group("cpg", group("a", count=2, minimum=2), group("b", count=1, minimum=2), minimum=2),
        False,
    ),
    (
        "admission recurses through composites",
        group("top", group("mid", group("a", count=0, minimum=1)), minimum=1),
        False,
    ),
]


@pytest.mark.parametrize(("root", "expected"), [c[1:] for c in ADMISSIBLE], ids=[c[0] for c in ADMISSIBLE])
def test_admissible(root: GroupRequest, expected: bool) -> None:
    assert admissible(root) is expected
