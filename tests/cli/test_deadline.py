"""``--timeout`` over a whole command (``cli.deadline``): generated inputs at the engine's limits end in one line,
exit 2, when the bound is too small for them; never exit 3, never a partial answer on stdout."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
import yaml

from workloadbuilder.cli.app import main
from workloadbuilder.cli.deadline import Deadline, TimeBoundReached

TINY = "1e-06"
"""A bound every command has passed by its first look at the clock."""

CLUSTER = ["--generate", "zones=1,blocks=1,racks=1,hosts=2"]


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def _job(name: str) -> dict:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": "ml", "uid": "11111111-2222-3333-4444-555555555555"},
        "spec": {
            "parallelism": 1,
            "completions": 1,
            "scheduling": {"schedulingPolicy": {"gang": {}}},
            "template": {
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": "1"}}}],
                }
            },
        },
    }


def _lws(size: int) -> dict:
    """A LeaderWorkerSet of one replica of ``size`` pods."""
    worker = {"containers": [{"name": "w", "image": "i", "resources": {"requests": {"cpu": "50m"}}}]}
    return {
        "apiVersion": "leaderworkerset.x-k8s.io/v1",
        "kind": "LeaderWorkerSet",
        "metadata": {"name": "big"},
        "spec": {"replicas": 1, "leaderWorkerTemplate": {"size": size, "workerTemplate": {"spec": worker}}},
    }


def _jobset(replicas: int) -> dict:
    """A JobSet without ``spec.scheduling``: one gang per child Job, ``replicas`` of them."""
    pod = {"containers": [{"name": "w", "image": "i", "resources": {"requests": {"cpu": "100m"}}}]}
    job = {"completionMode": "Indexed", "completions": 2, "parallelism": 2, "template": {"spec": pod}}
    job["template"]["spec"]["restartPolicy"] = "OnFailure"
    return {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": "many", "namespace": "default"},
        "spec": {"replicatedJobs": [{"name": "workers", "replicas": replicas, "template": {"spec": job}}]},
    }


@pytest.fixture
def inputs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The issue's three inputs, generated at the engine's limits, in the test's folder."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "job.yaml").write_text(yaml.safe_dump(_job("s")))
    (tmp_path / "queue.yaml").write_text(
        yaml.safe_dump({"workloads": [{"file": "job.yaml", "arrival": 0, "duration": 1, "count": 100_000}]})
    )
    (tmp_path / "lws.yaml").write_text(yaml.safe_dump(_lws(100_000)))
    (tmp_path / "jobset.yaml").write_text(yaml.safe_dump(_jobset(10_000)))
    return tmp_path


STOPPED = {
    "simulate-yaml": (["simulate", "queue.yaml", "-o", "yaml"], "reading the queue's workloads"),
    "simulate-json": (["simulate", "queue.yaml", "-o", "json"], "reading the queue's workloads"),
    "capacity-lws": (["capacity", "lws.yaml"], "reading the inputs"),
    "place-jobset": (["place", "jobset.yaml"], "reading the inputs"),
    "explain-jobset": (["explain", "jobset.yaml", "-o", "json"], "reading the inputs"),
}


@pytest.mark.parametrize(("argv", "doing"), STOPPED.values(), ids=STOPPED.keys())
def test_a_bound_too_small_for_the_input_is_one_line_exit_2(inputs, argv, doing):
    code, out, err = run(*argv, *CLUSTER, "--timeout", TINY)
    assert (code, out) == (2, "")
    assert err == f"error: did not finish within {float(TINY):g} s (--timeout): stopped while {doing}\n"


def test_place_without_timeout_has_no_bound_but_the_searches(inputs):
    (inputs / "small.yaml").write_text(yaml.safe_dump(_jobset(3)))
    code, out, err = run("place", "small.yaml", *CLUSTER)
    assert (code, err) == (0, "")
    assert out.splitlines()[-1] == "verdict: placeable"


def _clock(times: list[float]):
    """A clock that reads ``times`` one by one, then stays at the last."""
    readings = iter(times)
    last = [times[-1]]

    def now() -> float:
        last[0] = next(readings, last[0])
        return last[0]

    return now


def test_the_check_names_the_step_the_bound_stopped():
    bound = Deadline(3, clock=_clock([0.0, 1.0, 3.0]))
    bound.check("reading the inputs")
    with pytest.raises(TimeBoundReached) as caught:
        bound.check("writing the answer (-o yaml)")
    assert str(caught.value) == "did not finish within 3 s (--timeout): stopped while writing the answer (-o yaml)"


def test_the_engine_gets_what_is_left_less_the_answers_share():
    bound = Deadline(10, clock=_clock([0.0, 2.0, 9.5]))
    assert bound.for_engine() == pytest.approx(6.0)  # 10 s, 2 s gone, 2 s kept for the answer
    assert bound.for_engine() == 0.001  # past the engine's share: a search started now ends at once
    assert Deadline(None, engine_default=5.0).for_engine() == 5.0


def test_no_bound_never_stops():
    bound = Deadline(None, clock=_clock([0.0, 10.0**9]))
    bound.check("anything")
    with bound.enforced("anything"):
        pass


def test_enforced_stops_a_step_that_never_looks_at_the_clock_even_one_that_catches_everything():
    bound = Deadline(0.05)
    # the step is the loop itself: one that never looks at the clock
    with pytest.raises(TimeBoundReached) as caught, bound.enforced("spinning"):  # noqa: PT012
        for _ in range(10**10):  # ends at the bound; without one this would run for hours
            try:
                sum(range(100))
            except Exception:
                continue
    assert str(caught.value) == "did not finish within 0.05 s (--timeout): stopped while spinning"
