"""What ``--render`` draws (issue 26 point 9): the simulate chart's ticks, and an HTML page as wide as the window."""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from workloadbuilder.cli.app import main

ROOT = Path(__file__).resolve().parents[2]
SVG = "{http://www.w3.org/2000/svg}"


def run(*argv: str) -> int:
    return main(list(argv), stdout=io.StringIO(), stderr=io.StringIO())


@pytest.mark.parametrize(
    ("queue", "labels"),
    [
        ("two.yaml", ["0 s", "30 s", "60 s", "90 s", "120 s", "150 s"]),
        ("urgent.yaml", ["0 min", "2 min", "4 min", "6 min", "8 min", "10 min"]),
    ],
    ids=["160-seconds-in-30s-steps", "600-seconds-in-minutes"],
)
def test_simulate_chart_has_round_time_ticks(tmp_path: Path, queue: str, labels: list[str]) -> None:
    data = ROOT / "tests" / "data" / "cli" / "simulate"
    chart = tmp_path / "chart.svg"
    assert run("simulate", str(data / queue), "--cluster", str(data / "one-node.yaml"), "--render", str(chart)) == 0
    texts = [text.text for text in ET.parse(chart).getroot().iter(f"{SVG}text")]
    assert texts[1:6] == ["0%", "25%", "50%", "75%", "100%"]
    assert texts[6 : 6 + len(labels)] == labels


def test_the_html_page_gives_the_drawing_the_page_width(tmp_path: Path) -> None:
    data = ROOT / "tests" / "data" / "cli" / "exclusions"
    page, drawing = tmp_path / "p.html", tmp_path / "p.svg"
    for target in (page, drawing):
        run("place", str(data / "gang.yaml"), "--cluster", str(data / "racks.yaml"), "--render", str(target))
    inline = re.search(r"<svg [^>]*>", page.read_text())
    alone = re.search(r"<svg [^>]*>", drawing.read_text())
    assert inline is not None
    assert alone is not None
    assert (inline.group(0), 'style="max-width:1011px"' in alone.group(0)) == (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 674 227" width="100%" font-family="sans-serif" '
        'data-resource="nvidia.com/gpu">',
        True,
    )
    assert ".drawing svg{display:block;width:100%;max-width:none;height:auto}" in page.read_text()
