"""The drawing in a real browser: Debian's headless chromium screenshots it, the test reads the pixels.

Skipped where ``/usr/bin/chromium`` is absent (``apt-get install chromium``
provides it). ``pytest --update-goldens`` rewrites ``docs/img/placement.png``
from the same screenshot the test compares it with.
"""

from __future__ import annotations

import struct
import subprocess
import xml.etree.ElementTree as ET
import zlib
from pathlib import Path

import pytest
from placement_helpers import BLOCK, RACK, composite, pod_group

from workloadbuilder.placement import Cluster, PlacementRequest, Pods, place
from workloadbuilder.placement.render.svg import render_html, render_svg
from workloadbuilder.placement.render.tree import PLACED_COLOUR, USED_COLOUR

CHROMIUM = Path("/usr/bin/chromium")
DOCS_PICTURE = Path(__file__).resolve().parents[3] / "docs" / "img" / "placement.png"
SVG = "{http://www.w3.org/2000/svg}"

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="needs a real browser: /usr/bin/chromium is absent (apt-get install chromium)"
)

Pixel = tuple[int, int, int]


class Png:
    """A decoded 8-bit RGB or RGBA PNG (what chromium writes): its size and its pixels."""

    def __init__(self, data: bytes) -> None:
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        chunks, at = {}, 8
        idat = b""
        while at < len(data):
            length, kind = struct.unpack(">I4s", data[at : at + 8])
            body = data[at + 8 : at + 8 + length]
            if kind == b"IDAT":
                idat += body
            else:
                chunks[kind] = body
            at += 12 + length
        self.width, self.height, depth, colour = struct.unpack(">IIBB", chunks[b"IHDR"][:10])
        assert depth == 8
        assert colour in (2, 6)
        self.channels = 3 if colour == 2 else 4
        self.rows = _unfilter(zlib.decompress(idat), self.width * self.channels, self.channels, self.height)

    def pixel(self, x: int, y: int) -> Pixel:
        """The RGB of pixel ``(x, y)``."""
        at = x * self.channels
        red, green, blue = self.rows[y][at : at + 3]
        return red, green, blue

    def rightmost_ink(self) -> int:
        """The largest x of a pixel that is not white."""
        stride = self.channels
        return max(
            (x for row in self.rows for x in range(self.width) if min(row[x * stride : x * stride + 3]) < 250),
            default=-1,
        )


def _unfilter(raw: bytes, stride: int, bpp: int, height: int) -> list[bytearray]:
    rows, previous, at = [], bytearray(stride), 0
    for _ in range(height):
        kind, line = raw[at], bytearray(raw[at + 1 : at + 1 + stride])
        at += 1 + stride
        for i in range(stride):
            left = line[i - bpp] if i >= bpp else 0
            up, corner = previous[i], previous[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 0xFF
        rows.append(line)
        previous = line
    return rows


def screenshot(page: Path, width: int, height: int, tmp_path: Path) -> bytes:
    """Chromium's screenshot of ``page`` in a ``width`` x ``height`` window, as PNG bytes."""
    shot = tmp_path / "shot.png"
    subprocess.run(
        [
            str(CHROMIUM),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--no-first-run",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            f"--user-data-dir={tmp_path / 'profile'}",
            f"--window-size={width},{height}",
            f"--screenshot={shot}",
            page.as_uri(),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    return shot.read_bytes()


def rgb(colour: str) -> Pixel:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def near(a: Pixel, b: Pixel, tolerance: int = 12) -> bool:
    return all(abs(x - y) <= tolerance for x, y in zip(a, b, strict=True))


def docs_scene() -> str:
    """The drawing docs/placement.md shows: four slices of a training job in one block of 1,024 nodes."""
    big = Cluster.generate(1024, seed=7, racks_per_block=8)
    groups = [composite("train", 4, key=BLOCK)] + [
        pod_group(f"slice-{i}", 16, key=RACK, parent="train") for i in range(4)
    ]
    pods = {f"slice-{i}": Pods(16, requests={"nvidia.com/gpu": "4"}) for i in range(4)}
    training = PlacementRequest.from_groups(groups, pods)
    return render_svg(training, big, place(training, big))


def bar_centres(svg: str, kind: str) -> list[tuple[float, float]]:
    """The centres of the node bars' ``kind`` parts (``placed``, ``used``), in the SVG's own units."""
    root = ET.fromstring(svg)
    top = float(next(g for g in root.iter(f"{SVG}g") if g.get("class") == "topology").get("transform")[12:-1])
    centres = []
    for cell in (g for g in root.iter(f"{SVG}g") if g.get("class") == "cell"):
        for rect in cell.iter(f"{SVG}rect"):
            w, h = float(rect.get("width")), float(rect.get("height"))
            if rect.get("class") == kind and w >= 6 and h >= 5:
                centres.append((8 + float(rect.get("x")) + w / 2, top + float(rect.get("y")) + h / 2))
    return centres


def test_the_docs_picture_is_this_drawing_in_a_browser(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    svg = docs_scene()
    _, _, width, height = (int(n) for n in ET.fromstring(svg).get("viewBox").split())
    page = tmp_path / "placement.svg"
    page.write_text(svg)
    shot = screenshot(page, width, height, tmp_path)
    if request.config.getoption("--update-goldens"):
        DOCS_PICTURE.write_bytes(shot)
    image, committed = Png(shot), Png(DOCS_PICTURE.read_bytes())
    assert (image.width, image.height) == (committed.width, committed.height) == (width, height)
    samples = [(4, 4), (width - 4, height - 4)]  # the white background, top left and bottom right
    placed, used = bar_centres(svg, "placed")[:5], bar_centres(svg, "used")[:5]
    samples += [(round(x), round(y)) for x, y in placed + used]
    assert [near(image.pixel(*at), committed.pixel(*at)) for at in samples] == [True] * len(samples)
    assert [image.pixel(*at) for at in samples[:2]] == [(255, 255, 255)] * 2
    assert all(near(image.pixel(round(x), round(y)), rgb(PLACED_COLOUR)) for x, y in placed)
    assert placed
    assert all(near(image.pixel(round(x), round(y)), rgb(USED_COLOUR)) for x, y in used)
    assert used


def two_zones() -> tuple[PlacementRequest, Cluster]:
    """A 16-pod rack gang on a generated 1,024-node cluster of two zones (1,780 units wide at its own size)."""
    cl = Cluster.generate(1024, seed=7, racks_per_block=8)
    gang = PlacementRequest.from_groups(
        [pod_group("workers", 16, key=RACK)], {"workers": Pods(16, requests={"nvidia.com/gpu": "4"})}
    )
    return gang, cl


def test_a_two_zone_cluster_scales_to_a_1400_pixel_window(tmp_path: Path) -> None:
    gang, cl = two_zones()
    svg = render_svg(gang, cl, place(gang, cl))
    _, _, width, _ = (int(n) for n in ET.fromstring(svg).get("viewBox").split())
    page = tmp_path / "two-zones.svg"
    page.write_text(svg)
    image = Png(screenshot(page, 1400, 900, tmp_path))
    assert width > 1400  # drawn at its own size it would be cut off
    assert (image.width, image.height) == (1400, 900)
    assert 1400 - 20 <= image.rightmost_ink() <= 1400 - 3  # scaled down to the window, its right margin kept


def test_the_page_shows_the_text_beside_the_drawing(tmp_path: Path) -> None:
    gang, cl = two_zones()
    answer = place(gang, cl)
    page = tmp_path / "two-zones.html"
    page.write_text(render_html(gang, cl, answer, text="cluster: 192 nodes\n" + answer.text))
    image = Png(screenshot(page, 1400, 900, tmp_path))

    def dark(left: int, right: int) -> bool:  # text in the top 60 rows between two columns
        return any(min(image.pixel(x, y)) < 128 for y in range(60) for x in range(left, right))

    assert (image.width, image.height) == (1400, 900)
    assert dark(0, 300)
    assert dark(900, 1400)
