"""draw.io's augment capability (:mod:`diagramforge.formats.augments`): sketches in
draw.io's built-in ``sketch=1`` style (rough.js inside the viewer), added to every vertex and
edge and drawn by the renderer the render stage uses; rule-based variations of the page's
colours, style and spacing.
"""

from __future__ import annotations

import random
from typing import Protocol

from lxml import etree

from diagramforge.formats.augments import HEX, rotate_hex
from diagramforge.formats.mxgraph.notation import cells, parse_xml

SKETCH_KIND = "drawio-sketch"
LANGUAGE = "draw.io mxGraph XML"
VARIATIONS = ("colour", "style", "layout")


class SketchSettings(Protocol):
    """What drawing by hand reads of ``augment.sketch`` (``mxgraph_style``): the augment
    stage hands its section model, which a format folder does not name."""

    @property
    def mxgraph_style(self) -> str: ...


def sketch(code: str, seed: int, settings: SketchSettings) -> str:
    """The page in draw.io's rough style (``augment.sketch.mxgraph_style``; the style is
    the same for every page, so ``seed`` is not used)."""
    return mxgraph_sketch(code, settings.mxgraph_style)


def mxgraph_sketch(code: str, style: str) -> str:
    """Every vertex and edge cell drawn with draw.io's sketch style ``style``."""
    model = parse_xml(code)
    extra = [p for p in style.split(";") if p]
    keys = {p.split("=")[0] for p in extra}
    for c in cells(model):
        if c.get("vertex") != "1" and c.get("edge") != "1":
            continue
        kept = [p for p in (c.get("style") or "").split(";") if p and p.split("=")[0] not in keys]
        c.set("style", ";".join(kept + extra) + ";")
    return etree.tostring(model, encoding="unicode")


def variation(code: str, kind: str, rng: random.Random) -> str:
    """The rule-based variation of ``kind`` (what the offline backend answers)."""
    model = parse_xml(code)
    shift = rng.choice([0.2, 0.35, 0.5, 0.65])
    f = rng.choice([1.25, 1.4])
    for c in cells(model):
        style = c.get("style") or ""
        if kind == "colour":
            c.set("style", HEX.sub(lambda m: rotate_hex(m, shift), style))
        elif kind == "style" and c.get("vertex") == "1":
            kept = [p for p in style.split(";") if p and p.split("=")[0] not in
                    ("rounded", "shadow", "strokeWidth")]
            c.set("style", ";".join(kept + ["rounded=1", "shadow=1", "strokeWidth=2"]) + ";")
        elif kind == "layout":
            g = c.find("mxGeometry")
            if g is None:
                continue
            if g.get("relative") != "1":
                for k in ("x", "y"):
                    if g.get(k):
                        g.set(k, f"{float(g.get(k)) * f:g}")
            for pt in g.iter("mxPoint"):
                if pt.get("as") == "offset":
                    continue
                for k in ("x", "y"):
                    if pt.get(k):
                        pt.set(k, f"{float(pt.get(k)) * f:g}")
    return etree.tostring(model, encoding="unicode")
