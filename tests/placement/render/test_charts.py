"""The planning charts: self-contained SVG with a viewBox, a title, and a tooltip on every bar or step.

``capacity_svg`` draws one bar per domain, its length proportional to the
copies that fit there (the longest spans 540 of the 800 units); the title
counts the copies that fit in all. ``utilization_svg`` draws one step line
per resource from 0 to the last event, 100% at the top of a 300-unit plot.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from workloadbuilder.placement.planning.capacity import Capacity
from workloadbuilder.placement.planning.simulate import Simulation
from workloadbuilder.placement.render.charts import capacity_svg, utilization_svg

SVG = "{http://www.w3.org/2000/svg}"


def parse(text: str) -> ET.Element:
    assert text.endswith("</svg>\n")
    return ET.fromstring(text)


def bars(root: ET.Element) -> list[tuple[str, str]]:
    """Each bar's width and tooltip."""
    return [(rect.get("width", ""), rect.findtext(f"{SVG}title", "")) for rect in root.iter(f"{SVG}rect")]


def test_capacity_bars_per_domain() -> None:
    root = parse(capacity_svg(Capacity(3, {"topology.example.com/rack": {"r1": 2, "r2": 1, "r3": 0}})))
    assert root.get("viewBox") == "0 0 800 166"
    assert root.get("aria-label") == "3 copies fit in all"
    assert root.findtext(f"{SVG}title") == "3 copies fit in all"
    assert bars(root) == [
        ("540.0", "topology.example.com/rack=r1: 2 copies"),
        ("270.0", "topology.example.com/rack=r2: 1 copy"),
        ("0.0", "topology.example.com/rack=r3: 0 copies"),
    ]
    texts = [text.text for text in root.iter(f"{SVG}text")]
    assert texts == ["3 copies fit in all", "copies per domain, each domain alone", "r1", "2", "r2", "1", "r3", "0"]


def test_capacity_of_several_keys_lists_every_domain() -> None:
    root = parse(capacity_svg(Capacity(1, {"zone": {"a": 4}, "rack": {"r1": 1}})))
    assert root.get("aria-label") == "1 copy fit in all"
    assert bars(root) == [("540.0", "zone=a: 4 copies"), ("135.0", "rack=r1: 1 copy")]


def test_capacity_without_topology_key() -> None:
    root = parse(capacity_svg(Capacity(0)))
    assert root.get("viewBox") == "0 0 800 122"
    assert bars(root) == []
    assert [text.text for text in root.iter(f"{SVG}text")] == ["0 copies fit in all", "the input names no topology key"]


def test_capacity_escapes_label_values() -> None:
    text = capacity_svg(Capacity(1, {"k": {"a<b&c": 1}}))
    assert "a&lt;b&amp;c" in text
    assert bars(parse(text)) == [("540.0", "k=a<b&c: 1 copy")]


def test_utilization_steps() -> None:
    simulation = Simulation([], 5.0, {"nvidia.com/gpu": [[0.0, 0.5], [5.0, 0.25]], "cpu": [[0.0, 1.0]]})
    root = parse(utilization_svg(simulation))
    assert root.get("viewBox") == "0 0 800 440"
    assert root.get("aria-label") == "utilization over time"
    paths = [(path.get("d"), path.get("stroke")) for path in root.iter(f"{SVG}path")]
    assert paths == [
        ("M80.0 60.0 H760.0", "#1f77b4"),  # cpu first (sorted), 100% from 0 s
        ("M80.0 210.0 H760.0 V285.0 H760.0", "#ff7f0e"),
    ]
    tooltips = [(w, t) for w, t in bars(root) if t]
    assert tooltips == [
        ("680.0", "cpu: 100.0% from 0 s"),
        ("680.0", "nvidia.com/gpu: 50.0% from 0 s"),
        ("1.0", "nvidia.com/gpu: 25.0% from 5 s"),
    ]
    texts = [text.text for text in root.iter(f"{SVG}text")]
    assert texts == [
        "utilization over time",
        *("0%", "25%", "50%", "75%", "100%"),
        *("0 s", "1 s", "2 s", "3 s", "4 s", "5 s"),
        *("cpu", "nvidia.com/gpu"),
    ]


def test_utilization_of_nothing_is_an_empty_plot() -> None:
    root = parse(utilization_svg(Simulation([], None)))
    assert root.get("viewBox") == "0 0 800 400"
    assert list(root.iter(f"{SVG}path")) == []
    assert [text.text for text in root.iter(f"{SVG}text")] == [
        "utilization over time",
        *("0%", "25%", "50%", "75%", "100%"),
        *("0 s", "0.2 s", "0.4 s", "0.6 s", "0.8 s", "1 s"),
    ]
