"""Every line the CLI prints passes one escaping rule (``cli.terminal``), whatever the command (issue 38).

Hostile names, file names, notes and messages (ESC, NUL, U+0085, U+2028,
U+202E, a lone surrogate) are seeded through validate, compile, place and
migrate; each case asserts the exit code and the exact escaped line, that
no raw control character is printed, that the machine-readable outputs
still read back as the exact data, and that letters past ASCII (é, 日本)
are printed as they are. Doctor's cases are in
``tests/doctor/test_hostile_server.py``, against the fake apiserver.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from workloadbuilder.cli.app import main
from workloadbuilder.cli.progress import Progress
from workloadbuilder.cli.terminal import EscapedStream, raw_stream

RAW = {"\x1b", "\x00", "\x07", "\u0085", "\u2028", "\u202e", "\udc80"}
"""Characters no line may carry raw (the progress spinner's own sequences apart)."""

JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: {name}
  namespace: ml
  annotations: {{note: {note}}}
spec:
  parallelism: 2
  template:
    spec:
      restartPolicy: Never
      containers: [{{name: c, image: i, resources: {{requests: {{cpu: "1"}}}}}}]
"""

HOSTILE_NOTE = r'"a\e[31mb\0c\Nd\Le\u202Efg é 日本"'
"""A YAML double-quoted annotation value: ESC, NUL, U+0085, U+2028, U+202E, then letters (a lone surrogate cannot
come from a file, which is UTF-8; doctor's tests bring one from the server)."""

CLUSTER = "nodes:\n- {name: n1, allocatable: {cpu: '8', memory: 8Gi, pods: '110'}}\n"

HOSTILE_FILE = "job\x1b[2J\u202e.yaml"
SHOWN_FILE = "job\\x1b[2J\\u202e.yaml"


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def assert_no_raw(*texts: str) -> None:
    for text in texts:
        assert not RAW & set(text), text


@pytest.fixture
def files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / HOSTILE_FILE).write_text(JOB.format(name="train", note="plain"))
    (tmp_path / "bad-name.yaml").write_text(JOB.format(name=r'"tr\e[2Jain\Lx"', note="plain"))
    (tmp_path / "note.yaml").write_text(JOB.format(name="train", note=HOSTILE_NOTE))
    (tmp_path / "letters.yaml").write_text(JOB.format(name="train", note="'é 日本 ok'"))
    (tmp_path / "cluster.yaml").write_text(CLUSTER)
    return tmp_path


def test_a_missing_hostile_file_is_named_escaped_exit_2(files: Path):
    assert run("validate", "missing\x1b[31m\x00\u2028.yaml") == (
        2,
        "",
        "error: missing\\x1b[31m\\x00\\u2028.yaml: no such file or directory\n",
    )


def test_validate_names_a_hostile_object_escaped(files: Path):
    code, out, err = run("validate", "-W", "ignore", "bad-name.yaml")
    assert (code, err) == (1, "")
    assert out == (
        'bad-name.yaml (document 1) Job/tr\\x1b[2Jain\\u2028x: The Job "tr\\x1b[2Jain\\u2028x" is invalid: '
        'metadata.name: Invalid value: "tr\\x1b[2Jain\\u2028x": a lowercase RFC 1123 subdomain must consist of lower '
        "case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
        "'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\n"
    )
    assert_no_raw(out)


@pytest.mark.parametrize("output", ["junit", "tap", "github"], ids=["junit", "tap", "github"])
def test_report_formats_keep_their_own_escaping(files: Path, output: str):
    code, out, err = run("validate", "-W", "ignore", "-o", output, "bad-name.yaml")
    assert (code, err) == (1, "")
    assert_no_raw(out)
    assert "\\\\x1b" not in out  # escaped once, not twice
    if output == "tap":  # the YAML block reads back as the exact name
        block = out.split("  ---\n", 1)[1].split("  ...\n", 1)[0]
        assert yaml.safe_load(block)["message"] == 'The Job "tr\x1b[2Jain\u2028x" is invalid'


def test_place_names_a_hostile_file_escaped(files: Path):
    code, out, err = run("place", HOSTILE_FILE, "--cluster", "cluster.yaml")
    assert (code, err) == (0, "")
    assert f"Job ml/train ({SHOWN_FILE}, document 1): placed\n" in out
    assert_no_raw(out)


def test_compile_yaml_escapes_in_yaml_and_reads_back_exact(files: Path):
    code, out, err = run("compile", "-W", "ignore", "note.yaml")
    assert (code, err) == (0, "")
    assert '    note: "a\\e[31mb\\0c\\Nd\\Le\\u202Efg \\xE9 \\u65E5\\u672C"\n' in out
    assert_no_raw(out)
    job = next(doc for doc in yaml.safe_load_all(out) if doc["kind"] == "Job")
    assert job["metadata"]["annotations"]["note"] == "a\x1b[31mb\x00c\u0085d\u2028e\u202efg é 日本"


def test_compile_json_is_the_json_encoders_own(files: Path):
    code, out, err = run("compile", "-W", "ignore", "-o", "json", "note.yaml")
    assert (code, err) == (0, "")
    assert out.isascii()
    assert '"note": "a\\u001b[31mb\\u0000c\\u0085d\\u2028e\\u202efg \\u00e9 \\u65e5\\u672c"' in out
    json.loads(out)


def test_letters_past_ascii_are_printed_as_they_are(files: Path):
    code, out, err = run("compile", "-W", "ignore", "letters.yaml")
    assert (code, err) == (0, "")
    assert "    note: é 日本 ok\n" in out


def test_migrate_notes_name_a_hostile_object_escaped(files: Path):
    (files / "old.yaml").write_text(
        "apiVersion: scheduling.k8s.io/v1alpha2\nkind: Workload\n"
        'metadata: {name: "w\\e[2J\\N\\u202Ex", namespace: ml}\n'
        "spec:\n  podGroupTemplates:\n  - name: g\n    schedulingPolicy: {gang: {minCount: 2}}\n"
    )
    code, out, err = run("migrate", "old.yaml")
    assert code == 0
    assert err.splitlines()[0] == (
        "old.yaml (document 1) Workload/w\\x1b[2J\\u0085\\u202ex: "
        "apiVersion: scheduling.k8s.io/v1alpha2 is now scheduling.k8s.io/v1beta1"
    )
    assert '  name: "w\\e[2J\\N\\u202Ex"\n' in out
    assert_no_raw(out, err)
    assert yaml.safe_load(out)["metadata"]["name"] == "w\x1b[2J\u0085\u202ex"


def test_a_usage_error_echoes_the_argument_escaped():
    code, out, err = run("validate", "--output", "x\x1b[2J")
    assert (code, out) == (2, "")
    assert "'x\\x1b[2J'" in err
    assert_no_raw(err)


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_spinner_draws_its_own_sequences_and_an_escaped_label():
    terminal = _Terminal()
    stream = EscapedStream(terminal)
    assert stream.isatty()
    assert raw_stream(stream) is terminal
    progress = Progress(stream, delay=3600, clock=lambda: 0.0)  # ticks drawn by hand only
    with progress.step("reading n\x1b[2J\n.json"):
        progress.tick()
    assert terminal.getvalue() == "\r| reading n\\x1b[2J\\n.json (0.0s)\x1b[K\r\x1b[K"


def test_an_escaped_stream_counts_what_it_was_given():
    raw = io.StringIO()
    stream = EscapedStream(raw)
    assert stream.write("é\x00\n") == 3
    assert raw.getvalue() == "é\\x00\n"


def test_a_file_name_that_is_not_utf8_is_printed_not_an_encoding_error(files: Path):
    """A byte past UTF-8 in a file name is a lone surrogate to Python: a real stdout would fail to encode it."""
    name = os.fsdecode(b"train\xff.yaml")
    (files / name).write_text(JOB.format(name="train", note="plain"))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "workloadbuilder",
            "place",
            name,
            os.fsdecode(b"gone\xfe.yaml"),
            "--cluster",
            "cluster.yaml",
        ],
        capture_output=True,
        timeout=60,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )
    assert (done.returncode, done.stdout, done.stderr) == (
        2,
        b"",
        b"error: gone\\ufffd.yaml: no such file or directory\n",
    )
    done = subprocess.run(
        [sys.executable, "-m", "workloadbuilder", "place", name, "--cluster", "cluster.yaml"],
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0
    assert b"Job ml/train (train\\ufffd.yaml, document 1): placed\n" in done.stdout
