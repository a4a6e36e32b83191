"""Where a TikZ picture puts its nodes, worked out from the source alone.

Most real TikZ figures place nodes relative to each other (``right=of a``, ``below of=b``,
``on chain``, ``\\matrix``, a node on a path point after ``++(1,0)``): they have no
coordinates in the code, yet a reader sees them in rows and columns. The edit stage replays
every edit on the code and cannot compile each state, so the structure graph's nodes get
their place here, as TikZ would compute it: the positioning library's offsets between node
borders, old-style ``right of=`` offsets between centres, the current point of a path,
matrix cells, chains.

Sizes are estimates (text length × a typical glyph width, ``minimum width`` and friends),
good enough for the *order* of nodes and for which are level with which — never shown as
numbers. Whatever cannot be read with confidence (rotations, vector units, ``shift={…}``,
``calc`` beyond the simplest forms, macros) gives ``None``, so the node has no place and no
description by position can ever be built on it.

All values are in centimetres, TikZ's orientation (y up); centres.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

EM = 0.35
"""One em of the default 10 pt font, in cm."""
CHAR = 0.5 * EM
"""A typical glyph's width."""
INNER = 2 * 0.3333 * EM
"""Twice TikZ's default ``inner sep``."""
LINE = 0.42
"""Height of one line of text (baseline skip)."""
NODE_DISTANCE = 1.0
"""TikZ's default ``node distance``."""

_UNITS = {"cm": 1.0, "mm": 0.1, "pt": 1 / 28.4527, "bp": 2.54 / 72, "in": 2.54,
          "em": EM, "ex": 0.43 * EM, "pc": 12 / 28.4527, "sp": 1 / (28.4527 * 65536)}
_LEN = re.compile(r"\s*([-+]?(?:\d+\.?\d*|\.\d+))\s*([a-z]{2})?\s*")

Point = tuple[float, float]
Size = tuple[float, float]


_ARITH = re.compile(r"[\d.+\-*/() ]+")


def _arith(expr: str) -> float | None:
    """The value of a plain arithmetic expression (``(3-1)*2``), as PGF's math would
    compute it; ``None`` for anything else (functions, units, macros)."""
    import ast
    import operator

    ops = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.Div: operator.truediv, ast.USub: operator.neg, ast.UAdd: operator.pos}

    def ev(n: ast.AST) -> float:
        if isinstance(n, ast.Constant) and isinstance(n.value, int | float):
            return float(n.value)
        if isinstance(n, ast.BinOp) and type(n.op) in ops:
            return ops[type(n.op)](ev(n.left), ev(n.right))
        if isinstance(n, ast.UnaryOp) and type(n.op) in ops:
            return ops[type(n.op)](ev(n.operand))
        raise ValueError(n)

    if not _ARITH.fullmatch(expr) or len(expr) > 80:
        return None
    try:
        return ev(ast.parse(expr.strip(), mode="eval").body)
    except (SyntaxError, ValueError, ZeroDivisionError, RecursionError):
        return None


def length(s: str, bare: float = 1.0) -> float | None:
    """A TikZ length in cm (a bare number counts ``bare`` cm, as does a braced plain
    arithmetic expression); ``None`` if not a plain one."""
    t = s.strip()
    if t.startswith("{") and t.endswith("}"):
        v = _arith(t[1:-1])
        return None if v is None else v * bare
    m = _LEN.fullmatch(s)
    if not m:
        scaled = re.fullmatch(r"([-+]?[\d.]+)\s*([a-z]{2})\s*([*/])\s*([\d.+\-*/() ]+)", t)
        if scaled and scaled.group(2) in _UNITS:  # 80mm/2, as PGF's math reads it
            a, k = _arith(scaled.group(1)), _arith(scaled.group(4))
            if a is None or k is None or (scaled.group(3) == "/" and k == 0):
                return None
            a *= _UNITS[scaled.group(2)]
            return a * k if scaled.group(3) == "*" else a / k
        v = _arith(t)  # an unbraced expression: PGF's math reads it too
        return None if v is None else v * bare
    unit = m.group(2)
    if unit is not None and unit not in _UNITS:
        return None
    return float(m.group(1)) * (_UNITS[unit] if unit else bare)


def _kv(keys: list[str]) -> list[tuple[str, str]]:
    return [(k.partition("=")[0].strip(), k.partition("=")[2].strip()) for k in keys]


@dataclass(frozen=True)
class Frame:
    """The coordinate transformation in force: scale and shift (no rotation)."""

    sx: float = 1.0
    sy: float = 1.0
    tx: float = 0.0
    ty: float = 0.0

    def apply(self, p: Point) -> Point:
        return (self.tx + self.sx * p[0], self.ty + self.sy * p[1])


_OPAQUE = frozenset({"rotate", "shift", "cm", "xslant", "yslant", "rotate around",
                     "transform canvas", "reset cm", "turn", "x radius", "y radius"})


def frame(keys: list[str]) -> Frame | None:
    """The frame that ``keys`` (outermost first) set up; ``None`` when it cannot be read."""
    f = Frame()
    for name, val in _kv(keys):
        if name in _OPAQUE:
            return None
        if name in ("scale", "xscale", "yscale"):
            try:
                v = float(val)
            except ValueError:
                return None
            f = Frame(f.sx * (v if name != "yscale" else 1), f.sy * (v if name != "xscale" else 1),
                      f.tx, f.ty)
        elif name in ("x", "y"):
            v2 = length(val)
            if v2 is None:
                return None
            f = Frame(v2 if name == "x" else f.sx, v2 if name == "y" else f.sy, f.tx, f.ty)
        elif name in ("xshift", "yshift"):
            d = length(val)
            if d is None:
                return None
            f = Frame(f.sx, f.sy, f.tx + (d if name == "xshift" else 0),
                      f.ty + (d if name == "yshift" else 0))
    return f


def size(keys: list[str], text: str, shape: str) -> Size:
    """Estimated width and height of a node with option ``keys`` showing ``text``."""
    opts = dict(_kv(keys))
    lines = [ln for ln in text.split("\n")] or [""]
    tw = length(opts["text width"]) if "text width" in opts else None
    chars = max((len(ln) for ln in lines), default=0)
    w = (tw if tw is not None else chars * CHAR) + INNER
    if tw is not None and chars * CHAR > tw > 0:
        lines = lines * math.ceil(chars * CHAR / tw)
    h = LINE * max(1, len(lines)) + INNER - 0.1
    for key, axis in (("minimum width", 0), ("minimum height", 1), ("minimum size", 2)):
        v = length(opts[key]) if key in opts else None
        if v is not None:
            if axis in (0, 2):
                w = max(w, v)
            if axis in (1, 2):
                h = max(h, v)
    if shape == "circle":
        w = h = max(w, h) * 1.1
    elif shape == "diamond":
        w, h = w * 1.6, h * 1.6
    return (w, h)


_DIRS: dict[str, Point] = {
    "right": (1, 0), "left": (-1, 0), "above": (0, 1), "below": (0, -1),
    "above right": (1, 1), "above left": (-1, 1), "below right": (1, -1),
    "below left": (-1, -1)}


def _distances(keys: list[str]) -> tuple[float, float] | None:
    """(vertical, horizontal) ``node distance`` (the last one set wins)."""
    d: tuple[float, float] | None = (NODE_DISTANCE, NODE_DISTANCE)
    for name, val in _kv(keys):
        if name == "node distance":
            parts = [length(p) for p in re.split(r"\band\b", val)]
            d = None if not parts or any(p is None for p in parts) \
                else (parts[0], parts[-1])  # type: ignore[assignment]
    return d


def placed(keys: list[str], node_keys: list[str], own: Size,
           places: dict[str, Point], sizes: dict[str, Size]) -> Point | None | bool:
    """Where a positioning key among ``node_keys`` puts a node of size ``own`` (``keys``:
    every option in force, for ``node distance``): its centre, ``None`` when the key is
    there but cannot be followed, ``False`` when the node is not placed relative to another.
    """
    for name, val in reversed(_kv(node_keys)):
        old = name.endswith(" of") and name[:-3] in _DIRS
        if not (old or name in _DIRS and re.search(r"\bof\b", val)):
            continue
        direction = name[:-3] if old else name
        dist = _distances(keys)
        if dist is None:
            return None
        if old:
            ref, amount = val, None
        else:
            amount, _, ref = val.partition("of")
            ref = ref.strip()
            amount = amount.strip() or None
        ref = ref.strip().strip("()").split(".")[0].strip()
        if ref not in places:
            return None
        dv, dh = dist
        if amount is not None:
            parts = [length(p) for p in re.split(r"\band\b", amount)]
            if not parts or any(p is None for p in parts):
                return None
            dv, dh = parts[0], parts[-1]  # type: ignore[assignment]
        ux, uy = _DIRS[direction]
        cx, cy = places[ref]
        if old or any(k.strip() == "on grid" for k in keys + node_keys):
            if old and ux and uy:
                dv, dh = dv / math.sqrt(2), dh / math.sqrt(2)
            return (cx + ux * dh, cy + uy * dv)
        rw, rh = sizes.get(ref, (0.0, 0.0))
        return (cx + ux * (rw / 2 + dh + own[0] / 2), cy + uy * (rh / 2 + dv + own[1] / 2))
    return False


def anchor_offset(node_keys: list[str], own: Size) -> Point:
    """Shift of a node's centre from the point it is put at (``above``, ``anchor=west``…)."""
    ax = ay = 0.0
    for name, val in _kv(node_keys):
        if name == "anchor":
            v = val.replace(" ", "")
            ax = 0.5 if "west" in v else -0.5 if "east" in v else 0.0
            ay = 0.5 if "south" in v else -0.5 if "north" in v else 0.0
        elif name in _DIRS and not val:
            ux, uy = _DIRS[name]
            ax, ay = 0.5 * ux, 0.5 * uy
    return (ax * own[0], ay * own[1])


def point(coord: str, places: dict[str, Point], f: Frame | None) -> Point | None:
    """The point a coordinate names: ``x,y`` (in frame ``f``), ``angle:radius``, a node
    (any anchor counts as its centre), ``p -| q``, ``p |- q``, ``$(p)!t!(q)$``."""
    c = coord.strip()
    plus = re.fullmatch(r"\$\s*\(([^()]*)\)\s*([+-])\s*\(([^()]*)\)\s*\$", c)
    if plus:
        p = point(plus.group(1), places, f)
        d = point(plus.group(3), {}, None if f is None else Frame(f.sx, f.sy))
        if p is None or d is None:
            return None
        sign = 1 if plus.group(2) == "+" else -1
        return (p[0] + sign * d[0], p[1] + sign * d[1])
    one = re.fullmatch(r"\$\s*\(([^()]*)\)\s*\$", c)
    if one:
        return point(one.group(1), places, f)
    calc = re.fullmatch(r"\$\s*\(([^()]*)\)\s*!\s*([\d.]+)\s*!\s*\(([^()]*)\)\s*\$", c)
    if calc:
        p, q = point(calc.group(1), places, f), point(calc.group(3), places, f)
        t = float(calc.group(2)) if calc.group(2).count(".") <= 1 else None
        if p is None or q is None or t is None:
            return None
        return (p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1]))
    for op in ("-|", "|-"):
        if op in c:
            a, _, b = c.partition(op)
            p, q = point(a, places, f), point(b, places, f)
            if p is None or q is None:
                return None
            return (q[0], p[1]) if op == "-|" else (p[0], q[1])
    if "," in c:
        a, _, b = c.partition(",")
        x, y = length(a), length(b)
        if x is None or y is None or f is None:
            return None
        return f.apply((x, y))
    if ":" in c:
        a, _, r = c.partition(":")
        try:
            ang = math.radians(float(a))
        except ValueError:
            return None
        rad = length(r)
        if rad is None or f is None:
            return None
        return f.apply((rad * math.cos(ang), rad * math.sin(ang)))
    base = c.split(".")[0].strip()
    return places.get(base)


def relative(coord: str, cur: Point | None, f: Frame | None) -> Point | None:
    """``cur`` moved by the relative coordinate ``+(dx,dy)`` / ``++(dx,dy)``."""
    if cur is None or f is None:
        return None
    d = point(coord, {}, Frame(f.sx, f.sy))
    return None if d is None else (cur[0] + d[0], cur[1] + d[1])


def tree_child(parent: Point | None, index: int, count: int, keys: list[str]
               ) -> Point | None:
    """Centre of child ``index`` (from 1) of ``count`` in TikZ's default tree layout:
    ``level distance`` away in the growth direction, siblings ``sibling distance`` apart
    centred on the parent (``grow`` down, up, left or right; anything else: unknown)."""
    if parent is None:
        return None
    level, sibling, grow, flip = 1.5, 1.5, "down", False
    for name, val in _kv(keys):
        if name in ("level distance", "sibling distance"):
            v = length(val)
            if v is None:
                return None
            level, sibling = (v, sibling) if name == "level distance" else (level, v)
        elif name in ("grow", "grow'"):
            grow, flip = val.strip(), name == "grow'"
        elif name in ("grow via three points", "grow cyclic", "clockwise from",
                      "counterclockwise from", "growth function"):
            return None
    if grow not in ("down", "up", "left", "right", "south", "north", "west", "east"):
        return None
    off = (index - (count + 1) / 2) * sibling * (-1 if flip else 1)
    px, py = parent
    return {"down": (px + off, py - level), "south": (px + off, py - level),
            "up": (px + off, py + level), "north": (px + off, py + level),
            "right": (px + level, py - off), "east": (px + level, py - off),
            "left": (px - level, py - off), "west": (px - level, py - off)}[grow]


def matrix_cells(cells: dict[tuple[int, int], Size], keys: list[str], at: Point
                 ) -> dict[tuple[int, int], Point]:
    """Centres of a matrix's cells (row, column from 1): columns as wide as their widest
    cell, rows as tall as their tallest, ``row sep``/``column sep`` between; the matrix's
    centre at ``at``."""
    opts = dict(_kv(keys))
    rsep = length(opts.get("row sep", "0").split("between")[0]) or 0.0
    csep = length(opts.get("column sep", "0").split("between")[0]) or 0.0
    rows = max((r for r, _ in cells), default=0)
    cols = max((c for _, c in cells), default=0)
    widths = [max((s[0] for (_, c), s in cells.items() if c == k), default=0.0)
              for k in range(1, cols + 1)]
    heights = [max((s[1] for (r, _), s in cells.items() if r == k), default=0.0)
               for k in range(1, rows + 1)]
    xs, ys, x, y = [], [], 0.0, 0.0
    for w in widths:
        xs.append(x + w / 2)
        x += w + csep
    for h in heights:
        ys.append(y - h / 2)
        y -= h + rsep
    ox, oy = at[0] - (x - csep) / 2, at[1] - (y + rsep) / 2
    return {(r, c): (ox + xs[c - 1], oy + ys[r - 1]) for r, c in cells}
