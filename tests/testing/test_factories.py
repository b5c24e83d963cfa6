"""The kit's factories: job_owner, make_item, make_options and make_cluster, after the Go tests' helpers."""

from __future__ import annotations

from kubernetes.client import V1OwnerReference

from workloadbuilder import Builder, FieldPath, PolicyInput, WorkloadInput
from workloadbuilder.testing import job_owner, make_cluster, make_item, make_options
from workloadbuilder.types import DisruptionModeOption, SchedulingPolicyOption

SCHEDULING = FieldPath("spec", "scheduling")


def test_job_owner_is_a_batch_v1_job():
    assert job_owner() == V1OwnerReference(api_version="batch/v1", kind="Job", name="job", uid="job-uid")
    assert job_owner("train", "u-1") == V1OwnerReference(api_version="batch/v1", kind="Job", name="train", uid="u-1")


def test_make_item_gang_sets_a_leaf_gang_at_scheduling_policy():
    errors = Builder(make_item("job", path=SCHEDULING, gang=0), make_options()).validate()
    assert [str(e) for e in errors] == [
        "spec.scheduling.schedulingPolicy.gang.minCount: Invalid value: 0: must be greater than or equal to 1"
    ]


def test_make_item_parses_a_string_path_and_keeps_the_other_blocks_of_its_input():
    given = WorkloadInput(policy=PolicyInput(pod_group_data={"basic": {}}, path_elements=["p"]))
    child = make_item("worker")
    item = make_item("job", path="spec.groups[0]", gang=3, input=given, children=[child])
    assert item.path == FieldPath("spec", "groups").index(0)
    assert item.input.policy.path_elements == ["schedulingPolicy"]
    assert item.input.policy.pod_group_data.gang.min_count == 3
    assert item.children == [child]
    assert given.policy.path_elements == ["p"]  # the caller's input is copied, not changed


def test_make_item_without_gang_has_an_empty_input():
    item = make_item("job")
    assert (item.name, item.path, item.input, item.children) == ("job", None, WorkloadInput(), [])


def test_make_options_allows_everything_and_owns_by_a_job():
    options = make_options(namespace="ml")
    assert (options.name, options.namespace, options.owner.kind, len(options.allowed_policies)) == (
        "wl",
        "ml",
        "Job",
        2,
    )


def test_make_options_allows_every_option_and_takes_any_tweak():
    options = make_options(allowed_policies=[SchedulingPolicyOption.GANG])
    assert options.allowed_policies == [SchedulingPolicyOption.GANG]
    assert options.allowed_disruption_modes == list(DisruptionModeOption)
    assert options.owner == job_owner()


def test_make_cluster_generates_a_small_topology():
    cluster = make_cluster(32, hosts_per_rack=4)
    assert len(cluster) == 32


def test_make_cluster_is_seeded_and_labels_the_topology():
    cluster = make_cluster(8, hosts_per_rack=2, racks_per_block=2)
    assert list(cluster.names) == [f"node-{i:05d}" for i in range(8)]
    racks = [(labels["topology.example.com/block"], labels["topology.example.com/rack"]) for labels in cluster.labels]
    assert racks == [
        ("block-00-0", "rack-00-0-00"),
        ("block-00-0", "rack-00-0-00"),
        ("block-00-0", "rack-00-0-01"),
        ("block-00-0", "rack-00-0-01"),
        ("block-00-1", "rack-00-1-00"),
        ("block-00-1", "rack-00-1-00"),
        ("block-00-1", "rack-00-1-01"),
        ("block-00-1", "rack-00-1-01"),
    ]
    again = make_cluster(8, hosts_per_rack=2, racks_per_block=2)
    assert (again.labels, again.allocatable, again.used) == (cluster.labels, cluster.allocatable, cluster.used)
