from workloadbuilder import Builder, BuildOptions, WorkloadItem


def test_bare_leaf_compiles_to_basic():
    builder = Builder(
        WorkloadItem(name="bare"),
        BuildOptions(owner={"apiVersion": "batch/v1", "kind": "Job", "name": "j", "uid": "u"}),
    )
    assert builder.build_workload().spec.pod_group_templates[0].scheduling_policy.basic == {}
