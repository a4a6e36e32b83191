"""Colour names a person would use, for the colours diagrams are drawn in.

A fill is named by the nearest *anchor* of a fixed palette of basic colour terms (Berlin and
Kay's eleven, with light and dark variants and draw.io's pastel swatches as the "light"
anchors), by CIEDE2000 distance in CIELAB (scikit-image). A colour that sits between two
families (a salmon between pink and light red, an off-white between white and light grey)
is not confidently one name: :func:`shade` keeps every anchor within ``margin`` of the
nearest, and a description may use a colour only when all of them share one family — the
resolver, in turn, lets such a colour match any of its plausible names, so an ambiguous
hue can only make a description *less* unique, never wrongly unique.

Colour specifications read here: ``#rgb``/``#rrggbb(aa)``, ``rgb()``/``rgba()``, CSS/SVG
names (``webcolors``), draw.io's ``none``/``default``, and xcolor expressions
(``blue!20``, ``red!50!black``, ``green!30!blue!60``) over xcolor's base names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import webcolors

RGB = tuple[float, float, float]

ANCHORS: dict[str, tuple[str, ...]] = {
    "white": ("#ffffff",), "light grey": ("#d9d9d9",),
    "grey": ("#9e9e9e", "#808080", "#666666"), "dark grey": ("#4d4d4d",),
    "black": ("#000000",),
    "red": ("#e51400", "#ff0000", "#b85450"), "light red": ("#f8cecc", "#ffcccc"),
    "dark red": ("#8b0000", "#a20025"),
    "pink": ("#ff8fb1", "#f472d0", "#d80073"), "light pink": ("#ffd6e5",),
    "orange": ("#ff8c00", "#d79b00", "#f0a30a", "#fa6800"), "light orange": ("#ffe6cc",),
    "dark orange": ("#b85c00",),
    "yellow": ("#ffe135", "#ffff00", "#e3c800", "#d6b656"), "light yellow": ("#fff2cc", "#ffff99"),
    "dark yellow": ("#9c8700",),
    "green": ("#2ea043", "#00c000", "#60a917", "#82b366", "#008a00"),
    "light green": ("#d5e8d4", "#ccffcc"), "dark green": ("#005f00",),
    "blue": ("#1e64dc", "#0000ff", "#0050ef", "#6c8ebf"),
    "light blue": ("#dae8fc", "#ccccff", "#cce5ff"),
    "dark blue": ("#00206b", "#000080"),
    "cyan": ("#1ba1e2", "#00ffff"), "light cyan": ("#cdf2f7",), "teal": ("#008080", "#00aba9"),
    "purple": ("#8b3fb0", "#9673a6", "#aa00ff", "#6a00ff", "#76608a", "#800080"),
    "light purple": ("#e1d5e7", "#e5ccff"), "dark purple": ("#4b0066",),
    "brown": ("#8b5a2b", "#a0522d", "#825a2c"), "light brown": ("#d2b48c",),
}
"""Name → sRGB anchors (basic terms, plus draw.io's own swatches under the name a person
gives them). A name's *family* is its last word (``light blue`` → ``blue``); ``teal``
counts as cyan."""

FAMILY_OF: dict[str, str] = {n: ("cyan" if n == "teal" else n.split()[-1]) for n in ANCHORS}
FAMILIES = frozenset(FAMILY_OF.values())
MODIFIERS = ("light", "dark", "pale", "bright", "deep")
"""Words that may precede a colour family in a description (``pale`` reads as light,
``bright``/``deep`` as the plain or dark variant: the resolver matches them by family)."""
SYNONYMS = {"gray": "grey", "violet": "purple", "magenta": "pink", "turquoise": "cyan",
            "aqua": "cyan", "navy": "blue", "lilac": "purple", "beige": "brown",
            "gold": "yellow", "lime": "green", "crimson": "red", "salmon": "pink",
            "teal": "cyan", "tan": "brown"}
"""Other colour words a reworded instruction may use, by the family they belong to."""

_XCOLOR: dict[str, RGB] = {
    "red": (1, 0, 0), "green": (0, 1, 0), "blue": (0, 0, 1), "cyan": (0, 1, 1),
    "magenta": (1, 0, 1), "yellow": (1, 1, 0), "black": (0, 0, 0), "white": (1, 1, 1),
    "gray": (.5, .5, .5), "darkgray": (.25, .25, .25), "lightgray": (.75, .75, .75),
    "brown": (.75, .5, .25), "lime": (.75, 1, 0), "olive": (.5, .5, 0),
    "orange": (1, .5, 0), "pink": (1, .75, .75), "purple": (.75, 0, .25),
    "teal": (0, .5, .5), "violet": (.5, 0, .5),
}
"""xcolor's base colours (its own definitions, which differ from CSS for some names)."""


@dataclass(frozen=True)
class Shade:
    """The names a colour plausibly goes by; ``names is None`` means *unknown* (the code
    does not say, e.g. a TikZ style we cannot expand): it matches any colour word."""

    names: frozenset[str] | None

    @property
    def unknown(self) -> bool:
        return self.names is None

    @property
    def families(self) -> frozenset[str]:
        return frozenset(FAMILY_OF[n] for n in self.names or ())

    @property
    def family(self) -> str | None:
        """The one family every plausible name shares, else ``None`` (not nameable)."""
        f = self.families
        return next(iter(f)) if len(f) == 1 else None

    @property
    def name(self) -> str | None:
        """The one plausible full name (``light blue``), else ``None``."""
        return next(iter(self.names)) if self.names and len(self.names) == 1 else None

    def matches(self, word: str) -> bool:
        """Whether a colour word (``red``, ``light red``, ``pale blue``) may mean this."""
        if self.names is None:
            return True
        w = colour_word(word)
        if w is None:
            return False
        if w in ANCHORS and " " in w:  # a full name: that variant exactly
            return w in self.names
        return w.split()[-1] in self.families


UNKNOWN = Shade(None)


def colour_word(text: str) -> str | None:
    """A colour word or phrase in canonical form (``Light  Gray`` → ``light grey``,
    ``pale blue`` → ``light blue``, ``navy`` → ``blue``), else ``None``."""
    words = text.casefold().split()
    if not words or len(words) > 2:
        return None
    head = SYNONYMS.get(words[-1], words[-1])
    if head not in FAMILIES:
        return None
    if len(words) == 1:
        return head
    mod = {"pale": "light", "bright": "", "deep": "dark"}.get(words[0], words[0])
    if mod not in ("light", "dark", ""):
        return None
    full = f"{mod} {head}".strip()
    return full if full in ANCHORS else head


def _hex(v: str) -> RGB | None:
    h = v.lstrip("#")
    if len(h) in (3, 4):
        h = "".join(c * 2 for c in h[:3])
    elif len(h) in (6, 8):
        h = h[:6]
    else:
        return None
    try:
        return tuple(int(h[i:i + 2], 16) / 255 for i in (0, 2, 4))  # type: ignore[return-value]
    except ValueError:
        return None


_RGB_FN = re.compile(r"rgba?\(\s*([\d.]+%?)\s*[, ]\s*([\d.]+%?)\s*[, ]\s*([\d.]+%?)"
                     r"(?:\s*[,/]\s*([\d.]+%?))?\s*\)")


def _xcolor(expr: str) -> RGB | None:
    """``c1!p1!c2!p2!c3`` as xcolor mixes it: p1 % of c1 with c2, that p2 % with c3, …; a
    missing last colour is white."""
    parts = [p.strip() for p in expr.split("!")]
    if not parts or parts[0].startswith("-"):
        return None
    cur = _XCOLOR.get(parts[0].casefold()) or _named(parts[0])
    if cur is None:
        return None
    rest = parts[1:]
    while rest:
        try:
            pct = float(rest[0]) / 100
        except ValueError:
            return None
        other_name = rest[1] if len(rest) > 1 else "white"
        other = _XCOLOR.get(other_name.casefold()) or _named(other_name)
        if other is None:
            return None
        cur = tuple(pct * a + (1 - pct) * b for a, b in zip(cur, other, strict=True))
        rest = rest[2:]
    return cur


def _named(v: str) -> RGB | None:
    try:
        c = webcolors.name_to_rgb(v.strip().casefold())
    except ValueError:
        return None
    return c.red / 255, c.green / 255, c.blue / 255


def parse(spec: str | None, tex: bool = False) -> RGB | None:
    """sRGB (0–1) of a colour specification, or ``None`` when it is none, transparent or
    not understood (the caller decides which: :func:`shade_of`). ``tex``: a bare name is
    xcolor's before CSS's (``violet`` is #800080 in TikZ, #ee82ee in SVG)."""
    if spec is None:
        return None
    v = spec.strip()
    if not v or v.casefold() in ("none", "transparent", "inherit", "currentcolor"):
        return None
    if v.startswith("#"):
        return _hex(v)
    m = _RGB_FN.fullmatch(v.casefold())
    if m:
        if m.group(4) is not None:
            a = float(m.group(4).rstrip("%")) / (100 if m.group(4).endswith("%") else 1)
            if a < 0.5:
                return None
        return tuple(float(g.rstrip("%")) / (100 if g.endswith("%") else 255)
                     for g in m.groups()[:3])  # type: ignore[return-value]
    if "!" in v:
        return _xcolor(v)
    if tex:
        return _XCOLOR.get(v.casefold()) or _named(v)
    return _named(v) or _XCOLOR.get(v.casefold())


@lru_cache(maxsize=1)
def _anchor_lab() -> tuple[list[str], np.ndarray]:
    from skimage.color import rgb2lab

    names = [n for n, hexes in ANCHORS.items() for _ in hexes]
    rgb = np.array([[_hex(h) for hexes in ANCHORS.values() for h in hexes]], dtype=float)
    return names, rgb2lab(rgb)[0]


@lru_cache(maxsize=4096)
def _shade(rgb: RGB, margin: float) -> Shade:
    from skimage.color import deltaE_ciede2000, rgb2lab

    names, labs = _anchor_lab()
    lab = rgb2lab(np.array([[rgb]], dtype=float))[0, 0]
    d = deltaE_ciede2000(np.broadcast_to(lab, labs.shape), labs)
    best = float(d.min())
    return Shade(frozenset(n for n, x in zip(names, d, strict=True) if x <= best + margin))


def shade(rgb: RGB, margin: float = 3.0) -> Shade:
    """The plausible names of an sRGB colour: every anchor within ``margin`` (ΔE2000) of
    the nearest one."""
    key = tuple(round(min(1.0, max(0.0, c)), 3) for c in rgb)
    return _shade(key, margin)  # type: ignore[arg-type]


def unpainted(spec: str | None) -> bool:
    """Whether a paint written in the code (a fill, a stroke) says *no paint*: ``none``,
    ``transparent`` or empty (``None``, not written at all, is not: the format's default
    paints)."""
    return spec is not None and spec.strip().casefold() in ("none", "", "transparent")


def shade_of(spec: str | None, margin: float = 3.0, tex: bool = False) -> Shade | None:
    """A specification's :class:`Shade`; ``None`` for no fill (none, transparent);
    :data:`UNKNOWN` for a colour the code names but we cannot read."""
    if spec is None or spec.strip().casefold() in ("", "none", "transparent"):
        return None
    rgb = parse(spec, tex)
    return UNKNOWN if rgb is None else shade(rgb, margin)
