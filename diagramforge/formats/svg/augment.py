"""SVG's augment capability (:mod:`diagramforge.formats.augments`): sketches with every
shape redrawn as a jittered polyline sampled along its outline (seeded), twice, like
rough.js's double stroke, and text slanted — rendered by resvg like any SVG; rule-based
variations of its colours and stroke widths (an SVG's coordinates are its layout: no rule
re-spaces it safely).
"""

from __future__ import annotations

import math
import random
import re
from typing import Protocol

from lxml import etree

from diagramforge.formats.augments import HEX, rotate_hex

SKETCH_KIND = "svg-rough"
LANGUAGE = "SVG"
VARIATIONS = ("colour", "style")

SVG_NS = "http://www.w3.org/2000/svg"
_SHAPES = {"rect", "circle", "ellipse", "line", "polyline", "polygon", "path"}
_PRESENTATION = ("fill", "stroke", "stroke-width", "stroke-dasharray", "stroke-opacity",
                 "fill-opacity", "opacity", "style", "transform", "class", "marker-start",
                 "marker-end", "marker-mid", "marker", "clip-path", "id")


class SketchSettings(Protocol):
    """What drawing by hand reads of ``augment.sketch`` (``svg_*``): the augment
    stage hands its section model, which a format folder does not name."""

    @property
    def svg_roughness(self) -> float: ...
    @property
    def svg_step(self) -> float: ...
    @property
    def svg_double_stroke(self) -> bool: ...


def sketch(code: str, seed: int, settings: SketchSettings) -> str:
    """The drawing roughened (``augment.sketch.svg_*``)."""
    return svg_sketch(code, seed, settings.svg_roughness, settings.svg_step,
                      settings.svg_double_stroke)


def _f(el: etree._Element, k: str) -> float:
    try:
        return float(el.get(k) or 0)
    except ValueError:
        return 0.0


def _outline(el: etree._Element, step: float) -> list[tuple[list[tuple[float, float]], bool]]:
    """Sampled sub-paths ``(points, closed)`` of a shape in its own coordinates."""
    t = etree.QName(el).localname
    if t == "rect":
        x, y, w, h = (_f(el, k) for k in ("x", "y", "width", "height"))
        return [([(x, y), (x + w, y), (x + w, y + h), (x, y + h)], True)] if w and h else []
    if t in ("circle", "ellipse"):
        rx = _f(el, "r") if t == "circle" else _f(el, "rx")
        ry = _f(el, "r") if t == "circle" else _f(el, "ry")
        cx, cy = _f(el, "cx"), _f(el, "cy")
        n = max(12, int(2 * math.pi * max(rx, ry) / step))
        return [([(cx + rx * math.cos(2 * math.pi * k / n), cy + ry * math.sin(2 * math.pi * k / n))
                  for k in range(n)], True)] if rx and ry else []
    if t == "line":
        return [([(_f(el, "x1"), _f(el, "y1")), (_f(el, "x2"), _f(el, "y2"))], False)]
    if t in ("polyline", "polygon"):
        nums = [float(v) for v in re.findall(r"-?\d*\.?\d+(?:e-?\d+)?", el.get("points") or "")]
        pts = list(zip(nums[::2], nums[1::2], strict=False))
        return [(pts, t == "polygon")] if len(pts) > 1 else []
    import svgelements

    try:
        path = svgelements.Path(el.get("d") or "")
    except Exception:  # noqa: BLE001 - unreadable path data: leave the element as it is
        return []
    out = []
    for sub in path.as_subpaths():
        sp = svgelements.Path(sub)
        length = sp.length(error=1e-2) if len(sp) else 0
        if not length:
            continue
        n = max(2, int(length / step))
        pts = [sp.point(k / n) for k in range(n + 1)]
        closed = bool(sp) and isinstance(sp[-1], svgelements.Close)
        out.append(([(p.x, p.y) for p in pts], closed))
    return out


def _densify(pts: list[tuple[float, float]], closed: bool, step: float
             ) -> list[tuple[float, float]]:
    ring = pts + [pts[0]] if closed else pts
    out = []
    for (x0, y0), (x1, y1) in zip(ring, ring[1:], strict=False):
        n = max(1, int(math.hypot(x1 - x0, y1 - y0) / step))
        out += [(x0 + (x1 - x0) * k / n, y0 + (y1 - y0) * k / n) for k in range(n)]
    out.append(ring[-1])
    return out


def _rough_d(subpaths: list, rng: random.Random, amp: float, step: float) -> str:
    parts = []
    for pts, closed in subpaths:
        dense = _densify(pts, closed, step)
        jit = [(x + rng.gauss(0, amp), y + rng.gauss(0, amp)) for x, y in dense]
        if closed:  # a hand closes a shape a little past where it started
            jit.append((dense[1][0] + rng.gauss(0, amp), dense[1][1] + rng.gauss(0, amp))
                       if len(dense) > 1 else jit[0])
        parts.append("M" + " L".join(f"{x:.1f},{y:.1f}" for x, y in jit))
    return " ".join(parts)


def svg_sketch(code: str, seed: int, roughness: float, step: float, double: bool) -> str:
    """Every shape replaced by its jittered outline (fill kept on the first pass)."""
    parser = etree.XMLParser(resolve_entities=False, no_network=True)
    root = etree.fromstring(code.encode(), parser)
    rng = random.Random(seed)
    skip = {"defs", "marker", "symbol", "clipPath", "mask", "pattern"}
    for el in list(root.iter()):
        if not isinstance(el.tag, str):
            continue
        name = etree.QName(el).localname
        if name == "text":
            el.set("font-style", "italic")
            continue
        if name not in _SHAPES or any(isinstance(a.tag, str) and etree.QName(a).localname
                                      in skip for a in el.iterancestors()):
            continue
        subpaths = _outline(el, step)
        if not subpaths:
            continue
        g = etree.Element(f"{{{SVG_NS}}}g")
        for k in ("transform", "class", "id", "opacity", "clip-path"):
            if el.get(k) is not None:
                g.set(k, el.get(k))
        first = etree.SubElement(g, f"{{{SVG_NS}}}path", d=_rough_d(subpaths, rng, roughness,
                                                                     step))
        for k in _PRESENTATION:
            if k not in ("transform", "class", "id", "opacity", "clip-path") and \
                    el.get(k) is not None:
                first.set(k, el.get(k))
        if name in ("line", "polyline") and first.get("fill") is None:
            first.set("fill", "none")
        if double:
            second = etree.SubElement(g, f"{{{SVG_NS}}}path",
                                      d=_rough_d(subpaths, rng, roughness, step), fill="none")
            for k in ("stroke", "stroke-width", "style"):
                if el.get(k) is not None:
                    second.set(k, el.get(k))
            if second.get("style"):  # the second pass only strokes
                second.set("style", re.sub(r"fill\s*:[^;]*;?", "", second.get("style")))
            second.set("fill", "none")
        el.getparent().replace(el, g)
    return etree.tostring(root, encoding="unicode")


def variation(code: str, kind: str, rng: random.Random) -> str:
    """The rule-based variation of ``kind`` (what the offline backend answers)."""
    if kind == "colour":
        shift = rng.choice([0.2, 0.35, 0.5, 0.65])
        return HEX.sub(lambda m: rotate_hex(m, shift), code)
    if kind == "style":
        def widen(m: re.Match) -> str:
            return f'{m.group(1)}"{float(m.group(2)) * 2:g}"'
        out = re.sub(r'(stroke-width=)"(\d*\.?\d+)"', widen, code)
        return out if out != code else code.replace("<svg ", '<svg stroke-width="2" ', 1)
    return code  # an SVG's coordinates are its layout: no rule re-spaces it safely
