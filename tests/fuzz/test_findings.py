"""Every finding of the fuzzing run in issue 17, as a table: the input, the command, the exit code and the line.

Each input is the finding's minimal reproducer, written out here; the line is
the whole of what the user reads for it (the one ``error:`` line, or the
verdict's line for an invalid object).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from fuzz_helpers import ROOT, assert_contract, run_cli

JOB = """apiVersion: batch/v1
kind: Job
metadata: {name: trainer, namespace: training, uid: 6f1c2a34-8b9d-4e5f-a1b2-c3d4e5f60718}
spec:
  parallelism: 2
  completions: 2
  scheduling:
    schedulingPolicy: {gang: {}}
  template:
    spec:
      restartPolicy: Never
      containers: [{name: trainer, image: training-image:latest, resources: {requests: {cpu: "1"}}}]
"""
LWS = """apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: lws, namespace: ml, uid: 11111111-2222-4333-8444-555555555555}
spec:
  replicas: REPLICAS
  leaderWorkerTemplate:
    size: SIZE
    workerTemplate:
      spec:
        containers: [{name: w, image: w:1}]
"""
JOBSET = """apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: js, namespace: ml, uid: 11111111-2222-4333-8444-555555555555}
spec:
  replicatedJobs:
  - name: workers
    replicas: REPLICAS
    template:
      spec:
        parallelism: 2
        completions: 2
        template: TEMPLATE
"""
POD_TEMPLATE = "{spec: {restartPolicy: Never, containers: [{name: w, image: w:1}]}}"
PG = (
    "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: pg, namespace: ns}\n"
    "spec:\n  schedulingPolicy: {gang: {minCount: 2}}\n"
)
PARENT = """---
apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata: {name: NAME, namespace: ml, uid: 66666666-7777-4888-8999-aaaaaaaaaaaa}
spec:
  controllerRef: {apiGroup: jobset.x-k8s.io, kind: JobSet, name: train}
  podGroupTemplates:
  - name: workers
    schedulingPolicy: {gang: {minCount: 2}}
"""
CHILD = """apiVersion: batch/v1
kind: Job
metadata:
  name: train-workers-1
  namespace: ml
  uid: 44444444-5555-4666-8777-888888888888
  annotations: {scheduling.k8s.io/group-template-name: TEMPLATE}
  ownerReferences:
  - {apiVersion: jobset.x-k8s.io/v1alpha2, kind: JobSet, name: train, \
uid: 55555555-6666-4777-8888-999999999999, controller: true}
spec:
  parallelism: 2
  completions: 2
  template:
    spec:
      restartPolicy: Never
      containers: [{name: worker, image: worker:1}]
"""
CLUSTER = "nodes:\n- {name: a1, labels: {topology.kubernetes.io/zone: z}, allocatable: {cpu: '64', pods: '110'}}\n"
BOMB = "".join(f"a{i}: &a{i} [{','.join([f'*a{i - 1}'] * 10)}]\n" for i in range(1, 8))
FINDINGS = [
    pytest.param(
        {"in.yaml": PG + "  x:\n    a0: &a0 [lol]\n" + "".join("    " + line + "\n" for line in BOMB.splitlines())},
        ["validate", "in.yaml"],
        2,
        "error: in.yaml (document 1): YAML aliases expand past 100000 nodes (at line 12, column 26)",
        id="alias-bomb",
    ),
    pytest.param(
        {"in.yaml": LWS.replace("REPLICAS", "1").replace("SIZE", "2147483647")},
        ["compile", "in.yaml"],
        2,
        "error: in.yaml (document 1) LeaderWorkerSet/lws: spec.leaderWorkerTemplate.size: Invalid value: 2147483647: "
        "must be less than or equal to 100000 (workloadbuilder plans at most 100000 pods per object)",
        id="lws-size-int32max",
    ),
    pytest.param(
        {"in.yaml": LWS.replace("REPLICAS", "1").replace("SIZE", "1000000")},
        ["compile", "in.yaml"],
        2,
        "error: in.yaml (document 1) LeaderWorkerSet/lws: spec.leaderWorkerTemplate.size: Invalid value: 1000000: "
        "must be less than or equal to 100000 (workloadbuilder plans at most 100000 pods per object)",
        id="lws-size-1e6",
    ),
    pytest.param(
        {"in.yaml": LWS.replace("REPLICAS", "2147483647").replace("SIZE", "2")},
        ["compile", "in.yaml"],
        2,
        "error: in.yaml (document 1) LeaderWorkerSet/lws: spec.replicas: Invalid value: 2147483647: must be less than "
        "or equal to 10000 (workloadbuilder plans at most 10000 runtime groups per object)",
        id="lws-replicas-int32max",
    ),
    pytest.param(
        {"in.yaml": LWS.replace("REPLICAS", "10000").replace("SIZE", "100")},
        ["compile", "in.yaml"],
        2,
        "error: in.yaml (document 1) LeaderWorkerSet/lws: spec.leaderWorkerTemplate.size: Invalid value: 100: "
        "replicas \u00d7 size must be at most 100000 (workloadbuilder plans at most 100000 pods per object)",
        id="lws-replicas-times-size",
    ),
    pytest.param(
        {"in.yaml": JOB.replace("parallelism: 2", "parallelism: 2147483647")},
        ["place", "in.yaml", "--generate", "zones=1,blocks=1,racks=1,hosts=2"],
        1,
        'verdict: invalid: in.yaml (document 1): The Job "trainer" is invalid: spec.parallelism: Invalid value: '
        "2147483647: must be less than or equal to 100000 (workloadbuilder plans at most 100000 pods per object)",
        id="job-parallelism-int32max",
    ),
    pytest.param(
        {"in.yaml": JOBSET.replace("REPLICAS", "2147483647").replace("TEMPLATE", POD_TEMPLATE)},
        ["place", "in.yaml", "--generate", "zones=1,blocks=1,racks=1,hosts=2"],
        1,
        'verdict: invalid: in.yaml (document 1): The JobSet "js" is invalid: spec.replicatedJobs[0].replicas: Invalid '
        "value: 2147483647: must be less than or equal to 10000 (workloadbuilder plans at most 10000 runtime groups "
        "per object)",
        id="jobset-replicas-int32max",
    ),
    pytest.param(
        {"in.yaml": PG + "  x: !!timestamp nope\n"},
        ["validate", "in.yaml"],
        2,
        "error: in.yaml (document 1): invalid YAML at line 6, column 6: cannot read 'nope' as !!timestamp",
        id="yaml-timestamp-tag",
    ),
    pytest.param(
        {"in.yaml": PG + "  x: !!bool maybe\n"},
        ["validate", "in.yaml"],
        2,
        "error: in.yaml (document 1): invalid YAML at line 6, column 6: cannot read 'maybe' as !!bool",
        id="yaml-bool-tag",
    ),
    pytest.param(
        {"in.yaml": PG + "  x: !!int ''\n"},
        ["validate", "in.yaml"],
        2,
        "error: in.yaml (document 1): invalid YAML at line 6, column 6: cannot read '' as !!int",
        id="yaml-int-empty-tag",
    ),
    pytest.param(
        {"in.yaml": JOB, "c.yaml": CLUSTER + "x: !!timestamp nope\n"},
        ["place", "in.yaml", "--cluster", "c.yaml"],
        2,
        "error: c.yaml (document 1): invalid YAML at line 3, column 4: cannot read 'nope' as !!timestamp",
        id="cluster-timestamp-tag",
    ),
    pytest.param(
        {"in.yaml": JOB, "c.yaml": CLUSTER + "x: !!bool maybe\n"},
        ["place", "in.yaml", "--cluster", "c.yaml"],
        2,
        "error: c.yaml (document 1): invalid YAML at line 3, column 4: cannot read 'maybe' as !!bool",
        id="cluster-bool-tag",
    ),
    pytest.param(
        {"in.yaml": JOB, "m.yaml": "apiVersion: x/v1\nkind: X\nwhen: !!timestamp nope\n"},
        ["compile", "in.yaml", "--mapping", "m.yaml"],
        2,
        "error: m.yaml (document 1): invalid YAML at line 3, column 7: cannot read 'nope' as !!timestamp",
        id="mapping-timestamp-tag",
    ),
    pytest.param(
        {"in.yaml": JOB + "---\napiVersion: scheduling.k8s.io/v1beta1\nkind: Workload\nmetadata: oops\n"},
        ["compile", "in.yaml"],
        2,
        'error: in.yaml (document 2) Workload: metadata: Invalid value: "oops": must be of type object',
        id="related-workload-metadata-string",
    ),
    pytest.param(
        {
            "in.yaml": JOB
            + "---\napiVersion: scheduling.k8s.io/v1beta1\nkind: Workload\nmetadata: {name: w, uid: [1, 2]}\n"
        },
        ["compile", "in.yaml"],
        2,
        "error: in.yaml (document 2) Workload/w: metadata.uid: Invalid value: [1,2]: must be of type string",
        id="related-workload-uid-list",
    ),
    pytest.param(
        {"in.yaml": CHILD.replace("TEMPLATE", "workers") + PARENT.replace("NAME", "null")},
        ["compile", "in.yaml"],
        2,
        "error: in.yaml (document 2) Workload: metadata.name: Required value: a related Workload is found by its name",
        id="delegated-parent-name-null",
    ),
    pytest.param(
        {"in.yaml": CHILD.replace("TEMPLATE", "[workers]") + PARENT.replace("NAME", "train")},
        ["validate", "in.yaml"],
        1,
        'in.yaml (document 1) Job/train-workers-1: The Job "train-workers-1" is invalid: '
        'metadata.annotations[scheduling.k8s.io/group-template-name]: Invalid value: ["workers"]: must be of type '
        "string",
        id="delegated-annotation-list",
    ),
    pytest.param(
        {
            "in.yaml": CHILD.replace("TEMPLATE", "workers").replace(
                "group-template-name: workers}",
                "group-template-name: workers, scheduling.k8s.io/parent-composite-podgroup: {x: 1}}",
            )
            + PARENT.replace("NAME", "train")
        },
        ["compile", "in.yaml"],
        2,
        "error: in.yaml (document 1) Job/train-workers-1: "
        'metadata.annotations[scheduling.k8s.io/parent-composite-podgroup]: Invalid value: {"x":1}: must be of type '
        "string",
        id="delegated-annotation-map",
    ),
    pytest.param(
        {"in.yaml": JOB.replace("schedulingPolicy: {gang: {}}", "schedulingPolicy: {gang: {}}\n    1: x")},
        ["validate", "in.yaml"],
        1,
        'in.yaml (document 1) Job/trainer: The Job "trainer" is invalid: spec.scheduling.1: unknown field',
        id="int-key-in-scheduling",
    ),
    pytest.param(
        {"in.yaml": "apiVersion: scheduling.k8s.io/v1alpha2\nkind: PodGroup\nmetadata: {name: pg}\nspec:\n  1: x\n"},
        ["migrate", "in.yaml"],
        1,
        "in.yaml (document 1) PodGroup/pg: not translated: spec.1: does not decode as scheduling.k8s.io/v1beta1: "
        "unknown field",
        id="migrate-int-key",
    ),
    pytest.param(
        {
            "in.json": '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":'
            + '{"a":' * 450
            + "1"
            + "}" * 451
        },
        ["migrate", "in.json"],
        2,
        "error: in.json (document 1): JSON nests deeper than 100 levels",
        id="migrate-450-levels",
    ),
    pytest.param(
        {"in.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: true\n", "c.yaml": CLUSTER},
        ["place", "in.yaml", "--cluster", "c.yaml"],
        2,
        "error: in.yaml (document 1): Pod 'p': spec: Invalid value: true: must be of type object",
        id="pod-spec-bool",
    ),
    pytest.param(
        {
            "in.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {schedulingGroup: workers-0}\n",
            "c.yaml": CLUSTER,
        },
        ["place", "in.yaml", "--cluster", "c.yaml"],
        2,
        "error: in.yaml (document 1): Pod 'p': spec.schedulingGroup: Invalid value: \"workers-0\": must be of type "
        "object",
        id="pod-scheduling-group-string",
    ),
    pytest.param(
        {
            "in.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {schedulingGroup: {podGroupName: {a: "
            "b}}}\n",
            "c.yaml": CLUSTER,
        },
        ["place", "in.yaml", "--cluster", "c.yaml"],
        2,
        'error: in.yaml (document 1): Pod \'p\': spec.schedulingGroup.podGroupName: Invalid value: {"a":"b"}: must be '
        "of type string",
        id="pod-group-name-map",
    ),
    pytest.param(
        {"in.yaml": JOBSET.replace("REPLICAS", "1").replace("TEMPLATE", "[" + POD_TEMPLATE + "]")},
        ["validate", "in.yaml"],
        1,
        'in.yaml (document 1) JobSet/js: The JobSet "js" is invalid: spec.replicatedJobs[0].template.spec.template: '
        'Invalid value: [{"spec":{"containers":[{"image":"w:1","name":"w"}],"restartPolicy":"Never"}}]: must be of '
        "type object",
        id="jobset-pod-template-list",
    ),
    pytest.param(
        {
            "in.yaml": JOB,
            "c.json": (
                '{"kind": "List", "items": [{"metadata": {"name": "n", "labels": {"zone": 1}}, '
                '"status": {"allocatable": {"cpu": "8", "pods": "110"}}}]}'
            ),
        },
        ["place", "in.yaml", "--cluster", "c.json"],
        2,
        "error: c.json: nodes[0].metadata.labels[zone]: Invalid value: 1: must be of type string",
        id="kubectl-int-label",
    ),
    pytest.param(
        {"in.yaml": JOB, "c.yaml": CLUSTER + "devicePools: [{name: p, deviceClass: d, count: 1, node: [a1]}]\n"},
        ["place", "in.yaml", "--cluster", "c.yaml"],
        2,
        'error: c.yaml: devicePools[0].node: Invalid value: ["a1"]: must be of type string',
        id="pool-node-list",
    ),
    pytest.param(
        {"in.yaml": JOB, "c.yaml": CLUSTER},
        ["place", "in.yaml", "--cluster", "c.yaml", "--claim", "x=y:²"],
        2,
        "error: --claim: expected NAME=DEVICECLASS or NAME=DEVICECLASS:COUNT, got 'x=y:²'",
        id="claim-count-superscript",
    ),
    pytest.param(
        {"in.yaml": JOB},
        ["place", "in.yaml", "--generate", "zones=²"],
        2,
        "error: --generate: zones must be an integer of at least 1, got '²'",
        id="generate-superscript",
    ),
    pytest.param(
        {
            "in.json": (
                '{"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", "metadata": {"name": "\\ud800"}, '
                '"spec": {"schedulingPolicy": {"basic": {}}}}'
            )
        },
        ["validate", "in.json"],
        1,
        'in.json (document 1) PodGroup/�: The PodGroup "�" is invalid: metadata.name: Invalid value: "�": a '
        "lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start "
        "and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        id="json-surrogate",
    ),
    pytest.param(
        {"in.yaml": b"a:\xff\n"},
        ["validate", "in.yaml"],
        2,
        "error: in.yaml: not UTF-8: byte 0xff at line 1, column 3",
        id="not-utf8",
    ),
    pytest.param(
        {"in.yaml": JOB, "m.yaml": b"apiVersion: \xff\n"},
        ["compile", "in.yaml", "--mapping", "m.yaml"],
        2,
        "error: m.yaml: not UTF-8: byte 0xff at line 1, column 13",
        id="mapping-not-utf8",
    ),
]


@pytest.mark.parametrize(("files", "argv", "code", "line"), FINDINGS, ids=[finding.id for finding in FINDINGS])
def test_each_finding_is_one_readable_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    files: dict[str, str | bytes],
    argv: list[str],
    code: int,
    line: str,
) -> None:
    for name, content in files.items():
        (tmp_path / name).write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    monkeypatch.chdir(tmp_path)
    got, out, err = run_cli(*argv)
    assert_contract(got, out, err)
    assert (got, line in (out + err).splitlines()) == (code, True), out + err


def test_an_alias_bomb_is_refused_in_bounded_memory(tmp_path: Path) -> None:
    """In a fresh process capped at 512 MB of address space beyond the interpreter, the bomb is one line."""
    files, argv = FINDINGS[0].values[0], FINDINGS[0].values[1]
    (tmp_path / "in.yaml").write_text(files["in.yaml"], encoding="utf-8")
    cap = "import resource, runpy, sys; resource.setrlimit(resource.RLIMIT_AS, (2**30, 2**30)); "
    run = "sys.argv = ['workloadbuilder', *sys.argv[1:]]; runpy.run_module('workloadbuilder', run_name='__main__')"
    done = subprocess.run(
        [sys.executable, "-c", cap + run, *argv], cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False
    )
    assert (done.returncode, done.stderr.splitlines()[-1]) == (2, FINDINGS[0].values[3])


@pytest.mark.parametrize("command", ["compile", "validate"], ids=["compile", "validate"])
def test_output_is_byte_identical_across_hash_seeds(command: str) -> None:
    manifest = ROOT / "tests" / "data" / "adapters" / "jobset" / "topology-constrained.yaml"
    outputs = {
        subprocess.run(
            [sys.executable, "-m", "workloadbuilder", command, str(manifest)],
            capture_output=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
            check=False,
        ).stdout
        for seed in ("0", "4242")
    }
    assert len(outputs) == 1
    assert outputs != {b""}
