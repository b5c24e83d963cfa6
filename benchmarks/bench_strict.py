"""Time the strict schema check of controller objects against the whole plan-and-compile it is part of.

For every controller object among the upstream manifests
(``tests/data/upstream``), prints the median time of ``schema_errors`` (the
field-tree walk) and of ``plan_object(obj).compile()`` (which includes it),
and their ratio: the share of planning spent on strict field checks. Run:

    python benchmarks/bench_strict.py [--repeat N]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from workloadbuilder.adapters import PlanError, plan_object
from workloadbuilder.adapters._shared.strict import has_schema, schema_errors

UPSTREAM = Path(__file__).resolve().parent.parent / "tests" / "data" / "upstream"


def objects() -> list[dict[str, Any]]:
    """The upstream controller objects that compile on their own (TrainJobs need their runtime: left out)."""
    found = []
    for path in sorted(UPSTREAM.rglob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text()):
            if isinstance(doc, dict) and has_schema(doc) and doc.get("kind") not in ("TrainJob",):
                try:
                    plan_object(doc).compile()
                except (PlanError, LookupError):
                    continue
                found.append(doc)
    return found


def median(action: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    docs = objects()
    check = median(lambda: [schema_errors(doc) for doc in docs], args.repeat)
    whole = median(lambda: [plan_object(doc).compile() for doc in docs], args.repeat)
    print(f"{len(docs)} controller objects: schema check {check * 1e3:.2f} ms, plan+compile {whole * 1e3:.2f} ms")
    print(f"schema check / plan+compile: {check / whole:.2f}")


if __name__ == "__main__":
    main()
