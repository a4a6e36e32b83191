"""AugTikZ variations: a diagram's code restyled, recoloured or re-spaced by an LLM.

The request asks the model for one kind of variation (``colour``, ``style`` or ``layout``)
that keeps every node and label. The offline backend answers with the rule-based variation
computed here (carried in the request's ``context``), so the whole path — request, cache,
metering, checks, rendering — runs and is tested without a key. What comes back is only a
candidate: the stage keeps it if it renders, stays in the token window, keeps the node
texts, and is not a near-duplicate of the original or a kept sibling.
"""

from __future__ import annotations

import colorsys
import random
import re

from lxml import etree

from diagramforge.formats.mxgraph.notation import cells, parse_xml
from diagramforge.synth.llm.types import Request

KINDS = ("colour", "style", "layout")
SCHEMA = {"type": "object", "properties": {"code": {"type": "string"}},
          "required": ["code"], "additionalProperties": False}
_LANG = {"tikz": "TikZ (a standalone LaTeX document)", "mxgraph": "draw.io mxGraph XML",
         "svg": "SVG"}
_ASK = {"colour": "Recolour it with a different, coherent palette.",
        "style": "Change its drawing style (line widths, corner rounding, shadows).",
        "layout": "Change its spacing (distances between elements), not its structure."}

_XCOLORS = ["red", "blue", "teal", "orange", "violet", "olive", "cyan", "magenta", "brown"]
_HEX = re.compile(r"#([0-9a-fA-F]{6}|[0-9a-fA-F]{3})\b")


def _rotate_hex(m: re.Match, shift: float) -> str:
    h = m.group(1)
    if len(h) == 3:
        h = "".join(c * 2 for c in h)
    r, g, b = (int(h[k:k + 2], 16) / 255 for k in (0, 2, 4))
    hh, ll, ss = colorsys.rgb_to_hls(r, g, b)
    r, g, b = colorsys.hls_to_rgb((hh + shift) % 1.0, ll, ss)
    return "#" + "".join(f"{round(v * 255):02x}" for v in (r, g, b))


def _preamble(code: str, setup: str) -> str:
    if "\\begin{document}" in code:
        return code.replace("\\begin{document}", setup + "\n\\begin{document}", 1)
    return setup + "\n" + code


def tikz_variation(code: str, kind: str, rng: random.Random) -> str:
    if kind == "colour":
        perm = _XCOLORS[:]
        rng.shuffle(perm)
        table = dict(zip(_XCOLORS, perm, strict=True))
        # colour names inside option lists only ([...]), never in node text
        def opts(m: re.Match) -> str:
            return re.sub(r"\b(" + "|".join(_XCOLORS) + r")\b", lambda c: table[c.group(1)],
                          m.group(0))
        out = re.sub(r"\[[^\[\]{}]*\]", opts, code)
        out = re.sub(r"(\\definecolor\{[^}]*\}\{RGB\}\{)(\d+),(\d+),(\d+)\}",
                     lambda m: f"{m.group(1)}{m.group(4)},{m.group(2)},{m.group(3)}}}", out)
        return out
    if kind == "style":
        width = rng.choice(["0.8pt", "1.2pt"])
        return _preamble(code, "\\tikzset{every picture/.append style={line width=" + width +
                         ", rounded corners=2pt}}")
    f = rng.choice([1.3, 1.5])
    out = re.sub(r"(node distance\s*=\s*)(\d*\.?\d+)", lambda m: f"{m.group(1)}"
                 f"{float(m.group(2)) * f:g}", code)
    return _preamble(out, f"\\tikzset{{every picture/.append style={{x={f:g}cm, y={f:g}cm}}}}")


def mxgraph_variation(code: str, kind: str, rng: random.Random) -> str:
    model = parse_xml(code)
    shift = rng.choice([0.2, 0.35, 0.5, 0.65])
    f = rng.choice([1.25, 1.4])
    for c in cells(model):
        style = c.get("style") or ""
        if kind == "colour":
            c.set("style", _HEX.sub(lambda m: _rotate_hex(m, shift), style))
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


def svg_variation(code: str, kind: str, rng: random.Random) -> str:
    if kind == "colour":
        shift = rng.choice([0.2, 0.35, 0.5, 0.65])
        return _HEX.sub(lambda m: _rotate_hex(m, shift), code)
    if kind == "style":
        def widen(m: re.Match) -> str:
            return f'{m.group(1)}"{float(m.group(2)) * 2:g}"'
        out = re.sub(r'(stroke-width=)"(\d*\.?\d+)"', widen, code)
        return out if out != code else code.replace("<svg ", '<svg stroke-width="2" ', 1)
    return code  # an SVG's coordinates are its layout: no rule re-spaces it safely


RULES = {"tikz": tikz_variation, "mxgraph": mxgraph_variation, "svg": svg_variation}


def request(code: str, fmt: str, kind: str, rng: random.Random, prompt_version: str
            ) -> Request:
    """The LLM request for one variation; its context carries the rule-based answer the
    offline backend returns."""
    return Request(
        task="augment_variation",
        system=f"You vary diagrams written as {_LANG[fmt]}. Prompt {prompt_version}.",
        user=(f"{_ASK[kind]} Keep every node, edge and text label exactly as it is, and keep "
              f"the code valid {_LANG[fmt]}. Answer with the complete new code.\n\n{code}"),
        json_schema=SCHEMA, context={"code": RULES[fmt](code, kind, rng)})
