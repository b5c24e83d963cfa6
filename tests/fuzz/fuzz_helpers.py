"""What the fuzz tests share: seed inputs, their mutations, an in-process CLI run and the bad-input contract.

Seeds are the bundled manifests (tests/data, examples) and, when the shared
folder is beside the project, the upstream ones (../shared/manifests). A
mutation takes one seed document and changes one place in it: deletes a
field, duplicates a list entry, retypes a value (a string where a number is,
a huge or negative number, a list, a map, a boolean, null, a lone
surrogate), or adds an unknown field. Text mutations add what only YAML can
say: tags, aliases, deep nesting, bytes that are not UTF-8.

``FUZZ_EXAMPLES`` (environment) sets how many cases each fuzz test draws:
small by default so the suite stays fast, e.g. ``FUZZ_EXAMPLES=2000`` for a
long run while developing.
"""

from __future__ import annotations

import copy
import io
import os
from collections import Counter
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from workloadbuilder.cli.app import main

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "manifests"

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "25"))
"""Cases per fuzz test: 25 in CI, more with ``FUZZ_EXAMPLES``."""

FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=EXAMPLES <= 25,  # CI runs the same cases every time; a long run explores
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)

CASES: Counter[str] = Counter()
"""How many cases each entry point ran in this session (printed at the end of the run)."""

CONTROLLER_KINDS = frozenset({"Job", "JobSet", "LeaderWorkerSet", "TrainJob"})


def _seed_files() -> list[Path]:
    bundled = [
        *sorted((ROOT / "tests" / "data" / "adapters").glob("*/*.yaml")),
        *sorted((ROOT / "tests" / "data" / "manifests").glob("*.yaml")),
        *sorted((ROOT / "examples" / "manifests").glob("*.yaml")),
    ]
    upstream = sorted(SHARED.glob("**/*.yaml")) if SHARED.is_dir() else []
    return [path for path in [*bundled, *upstream] if "golden" not in path.name and ".out." not in path.name]


def _load(path: Path) -> list[dict[str, Any]]:
    try:
        docs = list(yaml.safe_load_all(path.read_text(encoding="utf-8")))
    except yaml.YAMLError:
        return []
    return [doc for doc in docs if isinstance(doc, dict)]


SEEDS: list[list[dict[str, Any]]] = [docs for docs in map(_load, _seed_files()) if docs]
"""Every seed file's documents (files that hold at least one mapping)."""

CONTROLLER_SEEDS = [docs for docs in SEEDS if any(doc.get("kind") in CONTROLLER_KINDS for doc in docs)]

_VALUES = st.one_of(
    st.sampled_from([None, True, False, 0, -1, 2**31 - 1, 2**31, 10**20, 1.5, "", "x", "\ud800", "²", [], {}]),
    st.text(max_size=8),
    st.integers(min_value=-(2**40), max_value=2**40),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.sampled_from(["a", "name", "minCount", "1"]), st.integers(), max_size=2),
)


def _places(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path inside a document (fields and list indexes), the document itself first."""
    found = [path]
    if isinstance(node, dict):
        for key, value in node.items():
            found.extend(_places(value, (*path, key)))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found.extend(_places(value, (*path, i)))
    return found


def _mutate(doc: dict[str, Any], path: tuple[Any, ...], how: str, value: Any) -> dict[str, Any]:
    doc = copy.deepcopy(doc)
    if not path:
        if how == "unknown":
            doc["unknownField"] = value
        return doc
    *head, last = path
    holder: Any = doc
    for step in head:
        holder = holder[step]
    if how == "delete":
        del holder[last]
    elif how == "duplicate" and isinstance(holder, list):
        holder.insert(last, copy.deepcopy(holder[last]))
    elif how == "unknown" and isinstance(holder[last], dict):
        holder[last]["unknownField"] = value
    else:
        holder[last] = value
    return doc


@st.composite
def mutated_documents(draw: st.DrawFn, seeds: list[list[dict[str, Any]]] = CONTROLLER_SEEDS) -> list[dict[str, Any]]:
    """One seed file's documents with one document changed at one place."""
    docs = copy.deepcopy(draw(st.sampled_from(seeds)))
    which = draw(st.integers(0, len(docs) - 1))
    path = draw(st.sampled_from(_places(docs[which])))
    how = draw(st.sampled_from(["delete", "duplicate", "retype", "unknown"]))
    docs[which] = _mutate(docs[which], path, how, draw(_VALUES))
    return docs


_YAML_PIECES = st.sampled_from(
    [
        "x: !!timestamp nope\n",
        "x: !!bool maybe\n",
        "x: !!int ''\n",
        "x: !!float abc\n",
        "x: !!binary '%%%'\n",
        "x: !!python/object:os.system {}\n",
        "x: &a [*a]\n",
        "a: &a [1, 2]\nb: [*a, *a, *a]\n",
        "x: " + "[" * 120 + "]" * 120 + "\n",
        "x: " + "{a: " * 120 + "1" + "}" * 120 + "\n",
        "1: one\n2: two\n",
        "? [a, b]\n: c\n",
        "x: *undefined\n",
        "x: 'unterminated\n",
        "\t- tab\n",
    ]
)


@st.composite
def hostile_texts(draw: st.DrawFn) -> bytes:
    """A seed document as YAML with a hostile piece added (tags, aliases, nesting, bad keys), or raw bytes."""
    if draw(st.integers(0, 9)) == 0:
        return draw(st.binary(max_size=64))
    docs = draw(st.sampled_from(SEEDS))
    text = yaml.safe_dump(docs[0], sort_keys=False)
    piece = draw(_YAML_PIECES)
    if draw(st.booleans()):
        text = text + piece
    else:
        text = (
            "spec:\n" + "".join("  " + line + "\n" for line in piece.splitlines()) + text.replace("spec:", "spec0:", 1)
        )
    data = text.encode("utf-8", "surrogatepass")
    if draw(st.integers(0, 4)) == 0:
        cut = draw(st.integers(0, len(data)))
        data = data[:cut] + b"\xff" + data[cut:]
    return data


def dump_documents(docs: list[Any]) -> str:
    """Documents as one YAML stream (surrogates kept as escapes)."""
    return yaml.safe_dump_all(docs, sort_keys=False, allow_unicode=False)


def run_cli(*argv: str, stdin: bytes | None = None) -> tuple[int, str, str]:
    """``workloadbuilder ARGV`` in this process: exit code, stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def assert_contract(code: int, out: str, err: str) -> None:
    """Exit 0, 1 or 2; no traceback; every line of stderr a warning, a problem, or one ``error:`` line."""
    assert code in (0, 1, 2), (code, err)
    assert "Traceback" not in err, err
    assert "internal error" not in err, err
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(errors) <= 1, err
    if code == 2:
        assert errors, err
