"""TikZ's augment capability (:mod:`diagramforge.formats.augments`): sketches with every
drawn path decorated with ``random steps`` (seeded by ``\\pgfmathsetseed``), round joins and
caps, node text in a handwriting-like font (Zapf Chancery, ``pzc``, which TeX Live's base
fonts carry) — compiled by the same sandboxed pdflatex; rule-based variations of the
picture's colours, line style and spacing.
"""

from __future__ import annotations

import random
import re
from typing import Protocol

SKETCH_KIND = "tikz-random-steps"
LANGUAGE = "TikZ (a standalone LaTeX document)"
VARIATIONS = ("colour", "style", "layout")

_XCOLORS = ["red", "blue", "teal", "orange", "violet", "olive", "cyan", "magenta", "brown"]


class SketchSettings(Protocol):
    """What drawing by hand reads of ``augment.sketch`` (``tikz_*``): the augment
    stage hands its section model, which a format folder does not name."""

    @property
    def tikz_segment_pt(self) -> float: ...
    @property
    def tikz_amplitude_pt(self) -> float: ...
    @property
    def tikz_font(self) -> str: ...


def sketch(code: str, seed: int, settings: SketchSettings) -> str:
    """The document drawn by hand (``augment.sketch.tikz_*``)."""
    return tikz_sketch(code, seed, settings.tikz_segment_pt, settings.tikz_amplitude_pt,
                       settings.tikz_font)


def tikz_sketch(code: str, seed: int, segment_pt: float, amplitude_pt: float, font: str
                ) -> str:
    r"""The document with hand-drawn settings in its preamble: ``draw`` itself decorates (so
    only drawn paths are roughened: an undrawn node's empty path cannot be decorated)."""
    setup = (
        "\\usetikzlibrary{decorations.pathmorphing}\n"
        "\\tikzset{draw/.append code={\\tikzset{decorate, decoration={random steps, "
        f"segment length={segment_pt:g}pt, amplitude={amplitude_pt:g}pt}}}}}}, "
        "every path/.append style={line join=round, line cap=round}, "
        f"every node/.append style={{font={font}}}}}\n"
        f"\\pgfmathsetseed{{{seed % 2_000_000_000}}}\n")
    if "\\begin{document}" in code:
        return code.replace("\\begin{document}", setup + "\\begin{document}", 1)
    return setup + code


def _preamble(code: str, setup: str) -> str:
    if "\\begin{document}" in code:
        return code.replace("\\begin{document}", setup + "\n\\begin{document}", 1)
    return setup + "\n" + code


def variation(code: str, kind: str, rng: random.Random) -> str:
    """The rule-based variation of ``kind`` (what the offline backend answers)."""
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
