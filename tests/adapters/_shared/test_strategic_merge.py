"""The strategic merge patch of a JobSet spec: apimachinery's rules, list orders included, and its refusals.

The list orders are what ``strategicpatch.StrategicMergePatch`` of k8s.io/apimachinery v0.37.2 returns for
the same PodSpec documents (run once with Go; the two ordering cases are the surprising ones).

The TrainJob replay (``tests/adapters/test_controllers_recorded.py``) checks the same merge against what
Trainer v2.3.0's Go code renders for 44 TrainJobs with ``runtimePatches``; these cases pin each rule alone.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workloadbuilder.adapters._shared.strategic_merge import UnsupportedPatch, merge


def _spec(pod: dict[str, Any], name: str = "node") -> dict[str, Any]:
    return {"replicatedJobs": [{"name": name, "template": {"spec": {"template": {"spec": pod}}}}]}


def _pod(spec: dict[str, Any]) -> dict[str, Any]:
    pod: dict[str, Any] = spec["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    return pod


@pytest.mark.parametrize(
    ("original", "patch", "expected"),
    [
        pytest.param(
            {"nodeSelector": {"a": "1", "b": "2"}},
            {"nodeSelector": {"b": None, "c": "3"}},
            {"nodeSelector": {"a": "1", "c": "3"}},
            id="a-map-merges-and-a-null-deletes",
        ),
        pytest.param(
            {"tolerations": [{"key": "a", "operator": "Exists"}]},
            {"tolerations": [{"key": "b", "operator": "Exists"}]},
            {"tolerations": [{"key": "b", "operator": "Exists"}]},
            id="a-list-without-strategy-is-replaced",
        ),
        pytest.param(
            {"containers": [{"name": "node", "image": "x", "args": ["a", "b"]}]},
            {"containers": [{"name": "node", "args": ["c"]}]},
            {"containers": [{"name": "node", "image": "x", "args": ["c"]}]},
            id="containers-merge-by-name-and-their-args-are-replaced",
        ),
        pytest.param(
            {"containers": [{"name": "node", "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]}]},
            {"containers": [{"name": "node", "env": [{"name": "B", "value": "9"}, {"name": "C", "value": "3"}]}]},
            {
                "containers": [
                    {
                        "name": "node",
                        "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "9"}, {"name": "C", "value": "3"}],
                    }
                ]
            },
            id="env-merges-by-name-new-ones-after",
        ),
        pytest.param(
            {"containers": [{"name": "a"}, {"name": "b"}, {"name": "c"}]},
            {"containers": [{"name": "c", "image": "z"}, {"name": "a", "image": "y"}]},
            {"containers": [{"name": "b"}, {"name": "c", "image": "z"}, {"name": "a", "image": "y"}]},
            id="patched-items-in-patch-order-a-server-only-one-inserted-by-the-original-order",
        ),
        pytest.param(
            {"containers": [{"name": "a"}, {"name": "b"}, {"name": "c"}]},
            {"containers": [{"name": "b", "image": "y"}, {"name": "d"}]},
            {"containers": [{"name": "a"}, {"name": "b", "image": "y"}, {"name": "d"}, {"name": "c"}]},
            id="a-new-item-comes-before-the-server-only-ones-it-cannot-be-ordered-with",
        ),
        pytest.param(
            {"containers": [{"name": "n", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]},
            {"containers": [{"name": "n", "resources": {"requests": {"cpu": "2"}, "limits": {"cpu": "4"}}}]},
            {
                "containers": [
                    {"name": "n", "resources": {"requests": {"cpu": "2", "memory": "1Gi"}, "limits": {"cpu": "4"}}}
                ]
            },
            id="resources-merge-key-by-key",
        ),
        pytest.param(
            {"volumes": [{"name": "v", "emptyDir": {}}]},
            {"volumes": [{"name": "w", "configMap": {"name": "c"}}]},
            {"volumes": [{"name": "w", "configMap": {"name": "c"}}, {"name": "v", "emptyDir": {}}]},
            id="volumes-merge-by-name-a-new-one-first-when-nothing-orders-it",
        ),
    ],
)
def test_a_pod_template_patch_merges_as_apimachinery_does(
    original: dict[str, Any], patch: dict[str, Any], expected: dict[str, Any]
) -> None:
    assert _pod(merge(_spec(original), _spec(patch))) == expected


def test_replicated_jobs_merge_by_name_and_a_new_one_is_added() -> None:
    original = {"replicatedJobs": [{"name": "a", "replicas": 1}, {"name": "b", "replicas": 2}]}
    patch = {"replicatedJobs": [{"name": "b", "replicas": 5}, {"name": "c"}]}
    assert merge(original, patch) == {
        "replicatedJobs": [{"name": "a", "replicas": 1}, {"name": "b", "replicas": 5}, {"name": "c"}]
    }


def test_scalar_lists_with_the_merge_strategy_join_without_repeats() -> None:
    original = _spec({})
    original["replicatedJobs"][0]["template"]["metadata"] = {"finalizers": ["a", "b"]}
    patch = {"replicatedJobs": [{"name": "node", "template": {"metadata": {"finalizers": ["b", "c"]}}}]}
    merged = merge(original, patch)
    assert merged["replicatedJobs"][0]["template"]["metadata"]["finalizers"] == ["a", "b", "c"]


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        pytest.param({"$patch": "replace"}, "the patch directive '$patch' is not applied", id="directive"),
        pytest.param(
            {"replicatedJobs": [{"template": {}}]}, "a list item without its merge key 'name'", id="no-merge-key"
        ),
        pytest.param(
            {"replicatedJobs": [{"name": "node", "$patch": "delete"}]},
            "a list item with a patch directive is not applied",
            id="item-directive",
        ),
    ],
)
def test_what_the_port_does_not_apply_is_refused(patch: dict[str, Any], message: str) -> None:
    with pytest.raises(UnsupportedPatch) as error:
        merge(_spec({}), patch)
    assert str(error.value) == message


maps = st.recursive(
    st.one_of(st.integers(0, 3), st.text("ab", max_size=2)),
    lambda inner: st.dictionaries(st.sampled_from(["x", "y", "z"]), inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=200, deadline=None)
@given(maps, maps)
def test_merge_changes_neither_argument_and_a_second_merge_of_the_same_patch_changes_nothing(
    original: Any, patch: Any
) -> None:
    before, patch_before = copy.deepcopy(original), copy.deepcopy(patch)
    once = merge(original, patch, {})
    assert (original, patch) == (before, patch_before)
    assert merge(once, patch, {}) == once


@settings(max_examples=200, deadline=None)
@given(maps)
def test_an_empty_patch_changes_nothing(original: Any) -> None:
    assert merge(original, {}, {}) == (original if isinstance(original, dict) else {})
