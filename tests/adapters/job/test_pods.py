"""A Job's pods as the apiserver makes them: the template with the Job's labels (``adapters.job.pods``)."""

from __future__ import annotations

from workloadbuilder.adapters.job.pods import render_pod_template


def job(**spec: object) -> dict[str, object]:
    return {"metadata": {"name": "train", "uid": "u1"}, "spec": spec}


def test_the_template_gets_the_jobs_labels_and_keeps_its_own() -> None:
    template = {"metadata": {"labels": {"job-name": "mine", "app": "a"}}, "spec": {"containers": []}}
    rendered = render_pod_template(job(template=template))
    assert rendered == {
        "metadata": {
            "labels": {
                "job-name": "mine",
                "app": "a",
                "batch.kubernetes.io/controller-uid": "u1",
                "controller-uid": "u1",
                "batch.kubernetes.io/job-name": "train",
            }
        },
        "spec": {"containers": []},
    }
    assert template["metadata"] == {"labels": {"job-name": "mine", "app": "a"}}  # the input is not changed


def test_a_manual_selector_leaves_the_template_as_written() -> None:
    assert render_pod_template(job(manualSelector=True, template={"spec": {}})) == {"spec": {}}


def test_no_template_renders_nothing() -> None:
    assert render_pod_template(job()) is None
