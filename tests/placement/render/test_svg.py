"""The placement drawing: nested domain boxes, node cells, usage colours, chosen domains and shortfalls.

Every test parses the SVG with ``xml.etree`` and checks its structure, not
its pixels.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import Counter

import pytest
from placement_helpers import BLOCK, RACK, cluster, composite, node, pod_group, request

from workloadbuilder.placement import Cluster, PlacementRequest, Pods, place
from workloadbuilder.placement.k8s.quantity import readable_quantity
from workloadbuilder.placement.render.svg import render_html, render_svg
from workloadbuilder.placement.render.tree import BEST_COLOUR, EVICTED_COLOUR, GROUP_COLOURS, PLACED_COLOUR, USED_COLOUR

SVG = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def groups_of(root: ET.Element, cls: str) -> list[ET.Element]:
    return [g for g in root.iter(f"{SVG}g") if g.get("class") == cls]


def texts(element: ET.Element) -> list[str]:
    return [t.text or "" for t in element.iter(f"{SVG}text")]


def marks(root: ET.Element) -> list[tuple[str, str, str, list[str]]]:
    """Each outline: its kind, the element it surrounds, its colour and its text."""
    out = []
    for cls in ("chosen", "shortfall"):
        for g in groups_of(root, cls):
            outline = next(r for r in g.iter(f"{SVG}rect") if r.get("fill") == "none")
            out.append((cls, g.get("data-target") or "", outline.get("stroke") or "", texts(g)))
    return out


def two_blocks(a1_used: str = "1") -> Cluster:
    """Block A: racks of 3 (one GPU used) and 5 GPUs; block B: two racks of 5 GPUs."""
    return cluster(
        node("a1", 3, block="block-A", rack="rack-A1", used={"nvidia.com/gpu": a1_used}),
        node("a2", 5, block="block-A", rack="rack-A2"),
        node("b1", 5, block="block-B", rack="rack-B1"),
        node("b2", 5, block="block-B", rack="rack-B2"),
    )


def two_racks_gang() -> PlacementRequest:
    return request(
        [
            composite("cpg-root", 2, key=BLOCK),
            pod_group("pg-1", 5, key=RACK, parent="cpg-root"),
            pod_group("pg-2", 5, key=RACK, parent="cpg-root"),
        ],
        {"pg-1": (5, {"nvidia.com/gpu": "1"}), "pg-2": (5, {"nvidia.com/gpu": "1"})},
    )


def generated(nodes: int, **shape: int) -> Cluster:
    return Cluster.generate(nodes, seed=3, **shape)


def rack_gang(pods: int, gpus: str = "1") -> PlacementRequest:
    return request([pod_group("w", pods, key=RACK)], {"w": (pods, {"nvidia.com/gpu": gpus})})


# -- the topology -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("shape", "boxes"),
    [
        (
            {"nodes": 64, "hosts_per_rack": 4, "racks_per_block": 4, "blocks_per_zone": 2},
            {"cluster": 1, "zone": 2, "block": 4, "rack": 16},
        ),
        (
            {"nodes": 1024, "hosts_per_rack": 16, "racks_per_block": 8, "blocks_per_zone": 4},
            {"cluster": 1, "zone": 2, "block": 8, "rack": 64},
        ),
        # one rack per block: the two keys cut the nodes alike, so one level is drawn
        (
            {"nodes": 8, "hosts_per_rack": 2, "racks_per_block": 1, "blocks_per_zone": 2},
            {"cluster": 1, "zone": 2, "block": 4},
        ),
    ],
    ids=["64-nodes", "1024-nodes", "rack-per-block"],
)
def test_one_box_per_domain_and_one_cell_per_node(shape, boxes):
    nodes = shape.pop("nodes")
    cl = generated(nodes, **shape)
    req = request([pod_group("w", 1)], {"w": (1, {"cpu": "1"})})
    root = parse(render_svg(req, cl, place(req, cl)))
    assert Counter(g.get("data-level") for g in groups_of(root, "domain")) == boxes
    cells = groups_of(root, "cell")
    assert (len(cells), {g.get("data-kind") for g in cells}) == (nodes, {"node"})


def test_boxes_nest_as_the_topology_does():
    root = parse(render_svg(two_racks_gang(), two_blocks(), place(two_racks_gang(), two_blocks())))
    parent = {child: g for g in root.iter(f"{SVG}g") for child in g}
    chain = {}
    for cell in groups_of(root, "cell"):
        names, up = [], parent[cell]
        while up.get("class") == "domain":
            names.append(up.get("data-value") or up.get("data-level"))
            up = parent[up]
        chain[cell.find(f"{SVG}title").text.split(":")[0]] = names
    assert chain == {
        "a1": ["rack-A1", "block-A", "cluster"],
        "a2": ["rack-A2", "block-A", "cluster"],
        "b1": ["rack-B1", "block-B", "cluster"],
        "b2": ["rack-B2", "block-B", "cluster"],
    }


def test_a_key_that_does_not_nest_is_left_out():
    cl = cluster(
        node("n1", block="b1", rack="r1", pool="p1"),
        node("n2", block="b1", rack="r2", pool="p2"),
        node("n3", block="b2", rack="r3", pool="p1"),
    )
    req = request([pod_group("w", 2, key="pool")], {"w": (2, {"nvidia.com/gpu": "1"})})
    answer = place(req, cl)
    drawn = parse(render_svg(req, cl, answer))
    assert Counter(g.get("data-level") for g in groups_of(drawn, "domain")) == {"cluster": 1, "pool": 2, "rack": 3}
    only = parse(render_svg(req, cl, answer, levels=["pool"]))
    assert Counter(g.get("data-level") for g in groups_of(only, "domain")) == {"cluster": 1, "pool": 2}


# -- what is used, what is placed --------------------------------------------------------------


def bars(root: ET.Element) -> dict[str, dict[str, tuple[str, float]]]:
    """Per node: each bar segment's fill and its share of the bar."""
    out = {}
    for cell in groups_of(root, "cell"):
        name = cell.find(f"{SVG}title").text.split(":")[0]
        rects = {r.get("class"): r for r in cell.iter(f"{SVG}rect")}
        whole = float(rects["free"].get("width"))
        out[name] = {
            cls: (rect.get("fill"), round(float(rect.get("width")) / whole, 2))
            for cls, rect in rects.items()
            if cls != "free"
        }
    return out


def test_cells_show_what_was_used_and_what_the_gang_takes():
    cl = two_blocks(a1_used="2")
    req = rack_gang(4)
    root = parse(render_svg(req, cl, place(req, cl)))
    assert root.get("data-resource") == "nvidia.com/gpu"
    assert bars(root) == {
        "a1": {"used": (USED_COLOUR, 0.67)},
        "a2": {"placed": (PLACED_COLOUR, 0.8)},
        "b1": {},
        "b2": {},
    }


def test_preemption_marks_the_evicted_share():
    cl = cluster(
        node("n1", 4, rack="r1"),
        node("n2", 4, rack="r1"),
        running=[
            {
                "name": "batch",
                "priority": 10,
                "disruptionMode": "all",
                "pods": [{"name": "batch-0", "node": "n1", "requests": {"nvidia.com/gpu": "4"}}],
            }
        ],
    )
    req = request([pod_group("urgent", 8, key=RACK, priority=100)], {"urgent": (8, {"nvidia.com/gpu": "1"})})
    answer = place(req, cl, preempt=True)
    assert [victim.name for victim in answer.victims] == ["batch"]
    assert bars(parse(render_svg(req, cl, answer))) == {
        "n1": {"placed": (PLACED_COLOUR, 1.0), "evicted": (EVICTED_COLOUR, 1.0)},
        "n2": {"placed": (PLACED_COLOUR, 1.0)},
    }


def test_the_resource_drawn_can_be_chosen():
    cl = two_blocks(a1_used="2")
    req = rack_gang(4)
    root = parse(render_svg(req, cl, place(req, cl), resource="cpu"))
    assert root.get("data-resource") == "cpu"
    assert bars(root) == {"a1": {}, "a2": {}, "b1": {}, "b2": {}}  # the gang asks for no CPU, nothing used any


# -- chosen domains and shortfalls ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("make_request", "expected"),
    [
        (
            two_racks_gang,
            [
                ("chosen", "block-B", GROUP_COLOURS[0], ["cpg-root"]),
                ("chosen", "rack-B1", GROUP_COLOURS[1], ["pg-1"]),
                ("chosen", "rack-B2", GROUP_COLOURS[2], ["pg-2"]),
            ],
        ),
        (
            lambda: rack_gang(6),
            [("shortfall", "rack-A2", BEST_COLOUR, ["best for w: 5 of 6 pods, 1 short"])],
        ),
        (
            # no topology constraint: the nodes the pods went to are outlined, the first one labelled
            lambda: request([pod_group("free", 7)], {"free": (7, {"nvidia.com/gpu": "1"})}),
            [("chosen", "a1", GROUP_COLOURS[0], ["free"]), ("chosen", "a2", GROUP_COLOURS[0], [])],
        ),
    ],
    ids=["composite-in-block-B", "infeasible-best-rack", "no-topology-nodes"],
)
def test_each_group_outlines_its_domain_or_its_best_try(make_request, expected):
    req = make_request()
    root = parse(render_svg(req, two_blocks(), place(req, two_blocks())))
    assert marks(root) == expected


def test_the_legend_says_where_each_group_went_or_how_short_it_fell():
    feasible = parse(render_svg(two_racks_gang(), two_blocks(), place(two_racks_gang(), two_blocks())))
    assert texts(groups_of(feasible, "legend")[0]) == [
        "feasible (kube-scheduler)",
        "4 nodes; bars show nvidia.com/gpu",
        "used before",
        "placed now",
        "evicted",
        "free",
        "cordoned",
        "NotReady",
        "tainted",
        "cpg-root (CompositePodGroup): 10 pods in block block-B",
        "pg-1 (PodGroup): 5 pods in block block-B, rack rack-B1",
        "pg-2 (PodGroup): 5 pods in block block-B, rack rack-B2",
    ]
    req = rack_gang(6)
    infeasible = parse(render_svg(req, two_blocks(), place(req, two_blocks()), title="can w run?"))
    assert texts(groups_of(infeasible, "legend")[0])[0] == "can w run?"
    assert texts(groups_of(infeasible, "legend")[0])[-1] == (
        "w (PodGroup): not placed; best for w: 5 of 6 pods, 1 short in rack rack-A2"
    )


def test_a_composite_that_fits_no_block_shows_its_best_block():
    req = request(
        [
            composite("train", 2, key=BLOCK),
            pod_group("a", 5, key=RACK, parent="train"),
            pod_group("b", 6, key=RACK, parent="train"),
        ],
        {"a": (5, {"nvidia.com/gpu": "1"}), "b": (6, {"nvidia.com/gpu": "1"})},
    )
    root = parse(render_svg(req, two_blocks(), place(req, two_blocks())))
    assert [(kind, target, text) for kind, target, _, text in marks(root)] == [
        ("shortfall", "block-A", ["best for train: 1 of 2 child groups, 1 short"]),
        ("shortfall", "rack-A2", ["best for b: 5 of 6 pods, 1 short"]),
    ]


# -- size -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "max_cells", "cells", "note"),
    [
        (
            lambda: generated(10_000),
            2048,
            625,
            "10,000 nodes; bars show nvidia.com/gpu; each cell is a rack (625 of them)",
        ),
        (
            lambda: generated(1024, racks_per_block=8),
            50,
            8,
            "1,024 nodes; bars show nvidia.com/gpu; each cell is a block (8 of them)",
        ),
        (
            lambda: generated(1024, racks_per_block=8),
            4,
            2,
            "1,024 nodes; bars show nvidia.com/gpu; each cell is a zone (2 of them)",
        ),
        (
            lambda: cluster(*[node(f"n{i:03d}", 8) for i in range(100)]),
            8,
            8,
            "100 nodes; bars show nvidia.com/gpu; each cell is 13 consecutive nodes",
        ),
    ],
    ids=["10k-racks", "blocks", "zones", "runs-of-nodes"],
)
def test_large_clusters_aggregate_into_a_bounded_number_of_cells(make, max_cells, cells, note):
    cl = make()
    key = RACK if cl.domains(RACK) else None  # the flat cluster has no racks
    req = request([pod_group("w", 8, key=key)], {"w": (8, {"nvidia.com/gpu": "8"})})
    root = parse(render_svg(req, cl, place(req, cl), max_cells=max_cells))
    drawn = groups_of(root, "cell")
    assert (len(drawn), {g.get("data-kind") for g in drawn}) == (cells, {"aggregate"})
    assert texts(groups_of(root, "legend")[0])[1] == note
    assert [kind for kind, *_ in marks(root)] == ["chosen"]  # on the one cell that holds the rack (or the pods)


def test_the_drawing_is_deterministic_and_html_wraps_it():
    cl, req = two_blocks(), two_racks_gang()
    answer = place(req, cl)
    svg = render_svg(req, cl, answer)
    assert render_svg(req, cl, answer) == svg
    page = render_html(req, cl, answer)
    assert page.startswith("<!DOCTYPE html>\n")
    assert page.endswith("</html>\n")
    inline = re.search(r"<svg .*</svg>", page, re.DOTALL)
    standalone = svg.split("\n", 1)[1]
    assert ' style="max-width:' in standalone.split("\n", 1)[0]  # alone, the SVG stops growing at 1.5x
    # inline, it takes the page's width: the same drawing without that cap
    assert inline is not None
    assert inline.group(0) + "\n" == re.sub(r' style="max-width:[0-9]+px"', "", standalone, count=1)
    assert '<pre class="answer">feasible (kube-scheduler)\n- <code>cpg-root</code>: placed 10 pods' in page
    assert page.count("feasible (kube-scheduler)") == 3  # the tab title, the legend's first line, the answer
    assert "<h1>" not in page
    assert "`" not in page


def test_html_carries_the_text_it_is_given():
    cl, req = two_blocks(), two_racks_gang()
    page = render_html(req, cl, place(req, cl), text="cluster: 4 nodes\n`pg-1` <went> somewhere\n")
    assert '<pre class="answer">cluster: 4 nodes\n<code>pg-1</code> &lt;went&gt; somewhere\n</pre>' in page


def test_max_cells_must_be_positive():
    with pytest.raises(ValueError, match="max_cells must be at least 1"):
        render_svg(two_racks_gang(), two_blocks(), place(two_racks_gang(), two_blocks()), max_cells=0)


@pytest.mark.parametrize(
    ("resource", "millis", "text"),
    [
        ("cpu", 852_600, "852.6"),
        ("cpu", 100, "0.1"),
        ("cpu", 64_000, "64"),
        ("memory", 512 * 2**30 * 1000, "512Gi"),
        ("memory", 6_682_368 * 2**20 * 1000, "6.4Ti"),
        ("memory", 512 * 1000, "512"),
        ("nvidia.com/gpu", 8000, "8"),
    ],
    ids=["cpu-fraction", "cpu-milli", "cpu-whole", "memory-gi", "memory-ti", "memory-bytes", "gpus"],
)
def test_readable_quantities(resource, millis, text):
    assert readable_quantity(resource, millis) == text


def test_generated_1024_node_cluster_places_and_draws_a_gang_legibly():
    cl = Cluster.generate(1024, seed=7, racks_per_block=8)
    groups = [composite("train", 4, key=BLOCK)] + [
        pod_group(f"slice-{i}", 16, key=RACK, parent="train") for i in range(4)
    ]
    req = PlacementRequest.from_groups(
        groups, {f"slice-{i}": Pods(16, requests={"nvidia.com/gpu": "4"}) for i in range(4)}
    )
    root = parse(render_svg(req, cl, place(req, cl)))
    assert [(target, text) for _, target, _, text in marks(root)] == [
        ("block-00-0", ["train"]),
        ("rack-00-0-00", ["slice-0"]),
        ("rack-00-0-02", ["slice-2"]),
        ("rack-00-0-04", ["slice-3"]),
        ("rack-00-0-05", ["slice-1"]),
    ]
    _, _, width, height = (int(number) for number in root.get("viewBox").split())
    assert (root.get("width"), width <= 1800, height <= 900) == ("100%", True, True)
    placed = [r for r in root.iter(f"{SVG}rect") if r.get("class") == "placed"]
    assert {r.get("fill") for r in placed} == {PLACED_COLOUR}


# -- names, states and scaling ---------------------------------------------------------------------


def test_the_drawing_scales_with_its_viewbox():
    root = parse(render_svg(two_racks_gang(), two_blocks(), place(two_racks_gang(), two_blocks())))
    _, _, width, height = (int(number) for number in root.get("viewBox").split())
    assert (root.get("width"), root.get("height"), root.get("style")) == ("100%", None, f"max-width:{3 * width // 2}px")
    assert width > 0
    assert height > 0


def test_small_clusters_name_their_nodes_in_the_cells():
    root = parse(render_svg(two_racks_gang(), two_blocks(), place(two_racks_gang(), two_blocks())))
    names = [t.text for cell in groups_of(root, "cell") for t in cell.iter(f"{SVG}text") if t.get("class") == "name"]
    assert names == ["a1", "a2", "b1", "b2"]


def test_large_clusters_name_their_nodes_in_the_tooltips_only():
    cl = generated(512, hosts_per_rack=16, racks_per_block=8)
    req = rack_gang(4)
    root = parse(render_svg(req, cl, place(req, cl)))
    cells = groups_of(root, "cell")
    assert len(cells) == 512
    assert [t for cell in cells for t in cell.iter(f"{SVG}text")] == []
    assert cells[0].find(f"{SVG}title").text.split(":")[0] == "node-00000"


def test_a_node_tooltip_gives_every_resources_used_and_free_capacity():
    cl = two_blocks(a1_used="2")
    req = rack_gang(4)
    root = parse(render_svg(req, cl, place(req, cl)))
    tips = {tip.split(":")[0]: tip for tip in (cell.find(f"{SVG}title").text for cell in groups_of(root, "cell"))}
    assert tips["a2"] == (
        "a2: 1 node; nvidia.com/gpu: 0 of 5 used before, 4 placed now, 1 free\n"
        "cpu 0 used, 64 free of 64; memory 0 used, 256Gi free of 256Gi; pods 4 used, 106 free of 110; "
        "nvidia.com/gpu 4 used, 1 free of 5"
    )
    assert tips["a1"].endswith("pods 0 used, 110 free of 110; nvidia.com/gpu 2 used, 1 free of 3")


def test_a_cordoned_node_is_hatched_and_said_so():
    cl = cluster(
        node("a1", 4, rack="r1"),
        {**node("a2", 4, rack="r1"), "unschedulable": True},
        node("b1", 4, rack="r2"),
    )
    req = rack_gang(4)
    root = parse(render_svg(req, cl, place(req, cl)))
    hatched = {
        cell.find(f"{SVG}title").text.split(":")[0]
        for cell in groups_of(root, "cell")
        if any(r.get("class") == "cordoned" for r in cell.iter(f"{SVG}rect"))
    }
    tip = next(
        cell.find(f"{SVG}title").text
        for cell in groups_of(root, "cell")
        if cell.find(f"{SVG}title").text.startswith("a2")
    )
    rack = next(g.find(f"{SVG}title").text for g in groups_of(root, "domain") if g.get("data-value") == "r1")
    assert hatched == {"a2"}
    assert tip.splitlines()[1].startswith("cordoned; cpu 0 used")
    assert rack.startswith("rack r1: 2 nodes (1 cordoned); ")
    assert "cordoned" in texts(groups_of(root, "legend")[0])


def test_the_drawing_shows_no_backticks():
    req = rack_gang(6)
    svg = render_svg(req, two_blocks(), place(req, two_blocks()), title="can `w` run?")
    assert texts(groups_of(parse(svg), "legend")[0])[0] == "can w run?"
    assert "`" not in svg


def test_not_ready_and_tainted_nodes_are_marked_and_said_so():
    not_ready = [{"key": "node.kubernetes.io/not-ready", "effect": "NoExecute"}]
    tainted = [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]
    cl = cluster(
        node("a1", 4, rack="r1"),
        {**node("a2", 4, rack="r1"), "taints": not_ready},
        {**node("b1", 4, rack="r2"), "taints": tainted},
    )
    req = rack_gang(4)
    root = parse(render_svg(req, cl, place(req, cl)))
    cells = {cell.find(f"{SVG}title").text.split(":")[0]: cell for cell in groups_of(root, "cell")}
    marked = {
        name: sorted(e.get("class") for e in cell.iter() if e.get("class") in ("cordoned", "not-ready", "tainted"))
        for name, cell in cells.items()
    }
    assert marked == {"a1": [], "a2": ["not-ready"], "b1": ["tainted"]}
    assert (
        cells["b1"]
        .find(f"{SVG}title")
        .text.splitlines()[1]
        .startswith("tainted; taints nvidia.com/gpu=present:NoSchedule; cpu 0 used")
    )
    assert (
        cells["a2"]
        .find(f"{SVG}title")
        .text.splitlines()[1]
        .startswith("NotReady; taints node.kubernetes.io/not-ready:NoExecute; ")
    )
