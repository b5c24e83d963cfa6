"""The input documents of ``place``/``explain`` as placement requests (cli/placement_inputs.py)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from workloadbuilder.cli.errors import UsageError
from workloadbuilder.cli.inputs import read_inputs
from workloadbuilder.cli.placement_inputs import NothingToPlace, merge_requests, placement_inputs

ROOT = Path(__file__).resolve().parents[2]
JOB = ROOT / "tests" / "data" / "adapters" / "job" / "root-seed-8-workers.in.yaml"  # Job training/trainer
GROUP = "trainer-5d5cd87f58-trainer-pgt-0-9cc94c4c4"
PRIORITY = "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 1000\n"


def test_each_object_is_labelled_with_its_file_and_document(tmp_path: Path) -> None:
    path = tmp_path / "in.yaml"
    path.write_text(PRIORITY + "---\n" + JOB.read_text())
    err = io.StringIO()
    found = placement_inputs(read_inputs([str(path)]), {}, err)
    assert [item.label for item in found.inputs] == [f"Job training/trainer ({path}, document 2)"]
    assert [(priority.name, priority.value) for priority in found.priority_classes] == [("high", 1000)]
    assert [group.name for group in found.inputs[0].request.groups] == [GROUP]
    assert err.getvalue() == ""  # a PriorityClass is read by place, not skipped


def test_only_objects_without_gang_content_is_nothing_to_place_with_a_note_each(tmp_path: Path) -> None:
    path = tmp_path / "in.yaml"
    path.write_text("apiVersion: v1\nkind: Service\nmetadata: {name: web}\n")
    err = io.StringIO()
    with pytest.raises(NothingToPlace) as raised:
        placement_inputs(read_inputs([str(path)]), {}, err)
    assert str(raised.value) == "nothing to place: no object in the input has gang-scheduling content"
    assert (
        err.getvalue()
        == f"Note: {path} (document 1) Service/web: Service (v1) has no gang-scheduling content; skipped\n"
    )


def test_merge_requests_joins_the_roots_and_refuses_a_group_named_twice() -> None:
    inputs = placement_inputs(read_inputs([str(JOB)]), {}, io.StringIO()).inputs
    assert [group.name for group in merge_requests(inputs).groups] == [GROUP]
    with pytest.raises(UsageError) as raised:
        merge_requests([*inputs, *inputs])
    label = f"Job training/trainer ({JOB}, document 1)"
    assert str(raised.value) == f"group '{GROUP}' is in both {label} and {label}"
