"""The compiled block predicates (``blocks.is_clean``) never call a block clean that its rules find fault with.

Random building blocks, valid and not (unions with none or both members,
counts below 1, too many topology entries, bad label keys, values of the
wrong type assigned after construction), are checked both ways: a block the
predicate calls clean has no error under its rules, and the common valid
blocks are called clean (so the fast path is the one taken).
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from kubernetes.client import (
    V1alpha3TopologyConstraint,
    V1alpha3WorkloadPodGroupDisruptionMode,
    V1alpha3WorkloadPodGroupGangSchedulingPolicy,
    V1alpha3WorkloadPodGroupSchedulingConstraints,
    V1alpha3WorkloadPodGroupSchedulingPolicy,
)

from workloadbuilder.field import FieldPath
from workloadbuilder.types import (
    WorkloadCompositePodGroupDisruptionMode,
    WorkloadCompositePodGroupGangSchedulingPolicy,
    WorkloadCompositePodGroupSchedulingConstraints,
    WorkloadCompositePodGroupSchedulingPolicy,
)
from workloadbuilder.validation.blocks import VALIDATORS, is_clean

PATH = FieldPath("spec", "scheduling")
counts = st.one_of(st.none(), st.integers(-2, 3), st.just("3"), st.just(True))
members = st.one_of(st.none(), st.just({}), st.just({"x": 1}))
keys = st.sampled_from(["rack", "example.com/rack", "", "a/b/c", "-bad", "x" * 64, "/rack", "Zone_1"])


def _assign(model: Any, **values: Any) -> Any:
    """Set attributes after construction, bypassing validation where the model does not validate assignment."""
    for name, value in values.items():
        object.__setattr__(model, name, value)
    return model


@st.composite
def leaf_policies(draw: Any) -> Any:
    gang = draw(st.one_of(st.none(), st.builds(lambda: V1alpha3WorkloadPodGroupGangSchedulingPolicy())))
    if gang is not None:
        _assign(gang, min_count=draw(counts))
    return _assign(V1alpha3WorkloadPodGroupSchedulingPolicy(), basic=draw(members), gang=gang)


@st.composite
def composite_policies(draw: Any) -> Any:
    gang = draw(st.one_of(st.none(), st.builds(lambda: WorkloadCompositePodGroupGangSchedulingPolicy())))
    if gang is not None:
        _assign(gang, min_group_count=draw(counts))
    return _assign(WorkloadCompositePodGroupSchedulingPolicy(), basic=draw(members), gang=gang)


@st.composite
def constraints(draw: Any) -> Any:
    model = draw(
        st.sampled_from([V1alpha3WorkloadPodGroupSchedulingConstraints, WorkloadCompositePodGroupSchedulingConstraints])
    )
    entries = draw(
        st.one_of(
            st.none(),
            st.lists(
                st.one_of(keys.map(lambda key: _assign(V1alpha3TopologyConstraint(key="k"), key=key)), st.none()),
                max_size=3,
            ),
        )
    )
    return _assign(model(), topology=entries)


@st.composite
def modes(draw: Any) -> Any:
    model = draw(st.sampled_from([V1alpha3WorkloadPodGroupDisruptionMode, WorkloadCompositePodGroupDisruptionMode]))
    return _assign(model(), single=draw(members), all=draw(members))


@settings(max_examples=400, deadline=None)
@given(st.one_of(leaf_policies(), composite_policies(), constraints(), modes()))
def test_a_clean_block_has_no_error(block: Any) -> None:
    if is_clean(type(block), block):
        assert list(VALIDATORS[type(block)](PATH, block, None)) == []


def test_the_usual_valid_blocks_are_clean() -> None:
    blocks = [
        V1alpha3WorkloadPodGroupSchedulingPolicy(gang=V1alpha3WorkloadPodGroupGangSchedulingPolicy(min_count=4)),
        V1alpha3WorkloadPodGroupSchedulingPolicy(basic={}),
        WorkloadCompositePodGroupSchedulingPolicy(
            gang=WorkloadCompositePodGroupGangSchedulingPolicy(min_group_count=2)
        ),
        V1alpha3WorkloadPodGroupSchedulingConstraints(
            topology=[V1alpha3TopologyConstraint(key="topology.kubernetes.io/zone")]
        ),
        WorkloadCompositePodGroupSchedulingConstraints(topology=[]),
        V1alpha3WorkloadPodGroupDisruptionMode(all={}),
        WorkloadCompositePodGroupDisruptionMode(single={}),
    ]
    for block in blocks:
        assert is_clean(type(block), block), block
        assert list(VALIDATORS[type(block)](PATH, block, None)) == []


def test_a_faulty_block_is_not_clean() -> None:
    both = V1alpha3WorkloadPodGroupSchedulingPolicy(
        basic={}, gang=V1alpha3WorkloadPodGroupGangSchedulingPolicy(min_count=1)
    )
    zero = V1alpha3WorkloadPodGroupSchedulingPolicy(gang=V1alpha3WorkloadPodGroupGangSchedulingPolicy(min_count=0))
    two = V1alpha3WorkloadPodGroupSchedulingConstraints(
        topology=[V1alpha3TopologyConstraint(key="a"), V1alpha3TopologyConstraint(key="b")]
    )
    for block in (both, zero, two, V1alpha3WorkloadPodGroupDisruptionMode()):
        assert not is_clean(type(block), block)
        assert list(VALIDATORS[type(block)](PATH, block, None)) != []
