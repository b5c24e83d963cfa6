"""How to unit-test your own CRD's translation: the TrainingCluster mapping, its objects and its error paths.

Copy this file next to your mapping. It needs only pytest and workloadbuilder:
the ``wb_golden`` fixture (``golden/`` beside this file; rewrite it with
``pytest --update-goldens``) comes with workloadbuilder's pytest plugin, and
``assert_field_errors`` checks errors by type and path, the way the
Kubernetes Go tests do.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml
from workloadbuilder.adapters.crd import CRDAdapter

from workloadbuilder import to_dict
from workloadbuilder.testing import Golden, assert_field_errors

HERE = Path(__file__).resolve().parent
ADAPTER = CRDAdapter.from_yaml(HERE / "mapping.yaml")


@pytest.fixture
def cluster() -> dict[str, Any]:
    """The sample TrainingCluster, fresh for each test."""
    return yaml.safe_load((HERE / "llama.yaml").read_text())


def test_every_object_matches_the_golden_file(cluster: dict[str, Any], wb_golden: Golden):
    compiled = ADAPTER.plan(cluster).compile()
    wb_golden.check(compiled.objects(), "llama.yaml")


def test_each_role_is_a_group_of_its_pods(cluster: dict[str, Any]):
    compiled = ADAPTER.plan(cluster).compile()
    groups = {group.template_name: to_dict(group.object)["spec"] for group in compiled.hierarchy}
    assert groups["cluster"]["schedulingPolicy"] == {"gang": {"minGroupCount": 2}}
    assert groups["trainer"]["schedulingPolicy"] == {"gang": {"minCount": 8}}  # from replicas
    assert groups["trainer"]["schedulingConstraints"] == {"topology": [{"key": "topology.kubernetes.io/zone"}]}
    assert groups["evaluator"]["schedulingPolicy"] == {"basic": {}}  # the mapping's default
    assert {pods.template: (pods.count, pods.stamp_path) for pods in compiled.pods} == {
        "trainer": (8, "spec.roles[0].template"),
        "evaluator": (2, "spec.roles[1].template"),
    }


@pytest.mark.parametrize(
    ("role", "scheduling", "expected"),
    [
        (
            1,
            {"schedulingPolicy": {"gang": {"minCount": 0}}},
            [("Invalid", "spec.roles[1].scheduling.schedulingPolicy.gang.minCount")],
        ),
        (
            1,
            {"schedulingPolicy": {"gang": {"minCount": 3}}},
            [("Invalid", "spec.roles[1].scheduling.schedulingPolicy.gang.minCount")],
        ),
        (
            0,
            {"schedulingPolicy": {"basic": {}}, "disruptionMode": {"all": {}}},
            [("Invalid", "spec.roles[0].scheduling.disruptionMode")],
        ),
        (
            0,
            {"schedulingConstraints": {"topology": [{"key": "a"}, {"key": "b"}]}},
            [("TooMany", "spec.roles[0].scheduling.schedulingConstraints.topology")],
        ),
    ],
    ids=["gang-of-zero", "gang-larger-than-replicas", "basic-disrupted-all", "two-topology-keys"],
)
def test_errors_come_back_at_the_roles_paths(
    role: int, scheduling: dict[str, Any], expected: list[tuple[str, str]], cluster: dict[str, Any]
):
    broken = copy.deepcopy(cluster)
    broken["spec"]["roles"][role]["scheduling"] = scheduling
    findings = ADAPTER.plan(broken).validate()
    assert_field_errors([finding.error for finding in findings], expected)
