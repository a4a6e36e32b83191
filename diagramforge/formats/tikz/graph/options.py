"""TikZ options: styles (``/.style``, ``\\tikzset``), and what a list of keys in force says
about arrows (direction), drawing and a node's shape."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from diagramforge.formats.tikz.graph.lexer import _unbrace, split_top

# -- options, styles and arrows -----------------------------------------------------------

_TIP_WORDS = (
    r"latex'?|stealth'?|to|to reversed|triangle \d+|open triangle \d+|angle \d+|"
    r"diamond|open diamond|square|open square|circle|open circle|implies|"
    r"right to|left to|hooks?|right hook|left hook|serif cm|"
    r"Latex|Stealth|Triangle|Kite|Straight Barb|Arc Barb|Tee Barb|Classical TikZ Rightarrow|"
    r"Computer Modern Rightarrow|Implies|Rays|Hooks|Fast Triangle|Fast Round|"
    r"Triangle Cap|Round Cap|Butt Cap|Bar|Bracket|Parenthesis|Circle|Square|Rectangle|"
    r"Diamond|Ellipse|Turned Square|Glyph|Arrow|Latex Rounded|Stealth Rounded")
_TIP = re.compile(rf"(?:[<>|*o()\[\]]|(?:{_TIP_WORDS})(?:\s*\[[^\]]*\])?|\s|\.)*")
_NON_DIRECTIONAL = re.compile(
    r"^(?:[|*o()\[\]\s.]|Bar|Bracket|Parenthesis|Circle|Square|Rectangle|Diamond|Ellipse|"
    r"Turned Square|Round Cap|Butt Cap|Triangle Cap|Tee Barb|circle|open circle|square|"
    r"open square|diamond|open diamond|(?:\s*\[[^\]]*\]))*$")


def _tips(key: str) -> tuple[bool, bool] | None:
    """(start points, end points) when ``key`` is an arrow spec (``->``, or the ``arrows=``
    key's value: ``arrows={-latex}``), else None."""
    m = re.match(r"^\s*arrows\s*=\s*(.+)$", key, re.S)
    if m:
        return _tips(_unbrace(m.group(1)))
    flat = re.sub(r"\[[^\]]*\]", "", key.strip().replace("{", "").replace("}", ""))
    if "=" in flat or "-" not in flat or flat.startswith("arrows"):
        return None
    # the separating dash is the one not inside a tip name (tip names have no dash)
    for i, c in enumerate(flat):
        if c != "-":
            continue
        a, b = flat[:i], flat[i + 1:]
        if _TIP.fullmatch(a) and _TIP.fullmatch(b):
            return _points(a), _points(b)
    return None


def _points(tip: str) -> bool:
    tip = tip.strip()
    return bool(tip) and not _NON_DIRECTIONAL.fullmatch(tip)


def _parse_styles(opts: str, styles: dict[str, str]) -> None:
    for item in split_top(opts):
        m = re.match(r"^(.+?)/\.(style|append style|prefix style|estyle|default)\s*=\s*(.*)$",
                     item, re.S)
        if m:
            name, how, value = m.group(1).strip(), m.group(2), _unbrace(m.group(3))
            if how in ("append style", "prefix style") and name in styles:
                styles[name] = styles[name] + "," + value
            elif how != "default":
                styles[name] = value


@dataclass
class _Opts:
    """Options in force, outermost first, with the styles defined so far."""

    keys: list[str] = field(default_factory=list)

    def plus(self, opts: str | None) -> _Opts:
        return _Opts(self.keys + (split_top(opts) if opts else []))


def _expand(keys: list[str], styles: dict[str, str], depth: int = 0) -> list[str]:
    out: list[str] = []
    for k in keys:
        name = k.split("=", 1)[0].strip()
        if name in styles and depth < 6 and "/." not in k:
            out += _expand(split_top(styles[name]), styles, depth + 1)
        out.append(k)
    return out


def _direction(keys: list[str], styles: dict[str, str]) -> tuple[bool, bool]:
    start = end = False
    for k in _expand(keys, styles):
        t = _tips(k)
        if t is not None:
            start, end = t
    return start, end


def _drawn(keys: list[str], styles: dict[str, str]) -> bool:
    drawn = False
    for k in _expand(keys, styles):
        name, _, value = k.partition("=")
        name = name.strip()
        if name == "draw":
            drawn = value.strip() != "none"
        elif name in ("double",):
            drawn = True
    return drawn


_SHAPES = ("circle split", "rectangle split", "rounded rectangle", "regular polygon",
           "circle", "ellipse", "rectangle", "diamond", "trapezium", "cylinder", "star",
           "cloud", "signal", "tape", "single arrow", "double arrow", "kite", "dart",
           "isosceles triangle", "semicircle", "chamfered rectangle", "document", "coordinate")


def _shape(keys: list[str], styles: dict[str, str]) -> str:
    shape = "rectangle"
    rounded = False
    for k in _expand(keys, styles):
        name, _, value = k.partition("=")
        name = name.strip()
        if name == "shape":
            shape = value.strip()
        elif name in _SHAPES:
            shape = name
        elif name == "state" and not value:  # the automata library's states are circles
            shape = "circle"
        elif name == "rounded corners":
            rounded = True
    return "rounded" if rounded and shape == "rectangle" else shape
