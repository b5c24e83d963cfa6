"""A JobSet's pods as the JobSet controller, its webhooks and the Job controller make them (``jobset.pods``)."""

from __future__ import annotations

import hashlib

from workloadbuilder.adapters.jobset.pods import JOB_KEY, job_name, render_job_pod_template

JOBSET = {
    "apiVersion": "jobset.x-k8s.io/v1alpha2",
    "kind": "JobSet",
    "metadata": {"name": "js", "namespace": "d"},
    "spec": {
        "replicatedJobs": [
            {
                "name": "w",
                "replicas": 2,
                "template": {"spec": {"parallelism": 1, "template": {"spec": {"containers": [{"name": "c"}]}}}},
            }
        ]
    },
}


def test_a_jobs_name_is_the_jobset_the_replicated_job_and_the_index() -> None:
    assert job_name("js", "workers", 3) == "js-workers-3"


def test_the_second_jobs_pods_get_jobsets_labels_the_job_name_and_the_webhooks_defaults() -> None:
    rendered = render_job_pod_template(JOBSET, 0, 1)
    assert rendered is not None
    labels = rendered["metadata"]["labels"]
    assert labels == {
        "jobset.sigs.k8s.io/jobset-name": "js",
        "jobset.sigs.k8s.io/replicatedjob-name": "w",
        "jobset.sigs.k8s.io/restart-attempt": "0",
        "jobset.sigs.k8s.io/replicatedjob-replicas": "2",
        "jobset.sigs.k8s.io/group-name": "default",
        "jobset.sigs.k8s.io/job-index": "1",
        JOB_KEY: hashlib.sha1(b"d/js-w-1").hexdigest(),  # JobSet's job key: SHA-1 of <namespace>/<job name>
        "jobset.sigs.k8s.io/job-global-index": "1",
        "jobset.sigs.k8s.io/global-replicas": "2",
        "jobset.sigs.k8s.io/job-group-index": "1",
        "jobset.sigs.k8s.io/group-replicas": "2",
        "batch.kubernetes.io/job-name": "js-w-1",
        "job-name": "js-w-1",
        "jobset.sigs.k8s.io/priority": "0",
    }
    assert rendered["spec"] == {"containers": [{"name": "c"}], "restartPolicy": "OnFailure", "subdomain": "js"}


def test_the_input_is_not_changed() -> None:
    render_job_pod_template(JOBSET, 0, 0)
    pod = JOBSET["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]  # type: ignore[index]
    assert pod == {"spec": {"containers": [{"name": "c"}]}}
