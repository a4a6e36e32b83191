"""A pgfplots chart's own data, read from its source: what chart QA is computed from
(issue 50), as ChartQA and PlotQA compute theirs from the table behind the chart.

:func:`read_charts` gives one :class:`~diagramforge.formats.charts.Chart` per ``axis``
environment (``axis``, ``semilogxaxis``, ``semilogyaxis``, ``loglogaxis``): its axis labels
and title, its legend (``\\legend{…}``, ``\\addlegendentry{…}``, ``legend entries={…}``) and
its series, one per ``\\addplot`` (``\\addplot3`` is a surface: counted, never read), each
with

* the points it draws, when the source says them: ``coordinates {(x,y) …}`` (symbolic x
  coordinates kept as text), an inline ``table {…}`` or a table file the picture carries
  (``meta.assets``), columns chosen by ``x=``/``y=`` (or the first two);
* or its expression (``{x^2}``, ``{1/(1+exp(-x))}``) with its domain (pgfplots' default
  ``-5:5``), evaluated only by :func:`evaluate` — a restricted parser of pgfmath's
  arithmetic (pyparsing's infix grammar; ``+ - * / ^``, parentheses, ``x``/``\\x``, ``pi``,
  ``e`` and a fixed set of functions, trigonometry in degrees as pgfmath does it), never
  Python's ``eval``: anything else is not evaluable, and the series has no values (each
  series carries :func:`evaluate` as its ``evaluator``).

Nothing is guessed: a key the reader does not understand leaves that part unknown (no
question is asked of it), never filled in.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Mapping
from functools import lru_cache

import pyparsing as pp

from diagramforge.formats.charts import Chart, Series
from diagramforge.formats.tikz.graph.lexer import _unbrace, read_balanced, split_top, strip_comments
from diagramforge.formats.tikz.graph.text import latex_text

_AXIS = re.compile(r"\\begin\s*\{(axis|semilogxaxis|semilogyaxis|loglogaxis)\}")
_ADDPLOT = re.compile(r"\\addplot(3)?\s*(\+)?")
_LEGEND = re.compile(r"\\legend\s*\{|\\addlegendentry\s*(\[[^\]]*\])?\s*\{")
DEFAULT_DOMAIN = (-5.0, 5.0)
"""pgfplots' domain when a plot and its axis name none."""


def _label(tex: str) -> str:
    """A label's text on one line: a chart's axis label broken with ``\\`` is one answer."""
    return " ".join(latex_text(tex).split())


def _options(text: str, k: int) -> tuple[list[str], int]:
    """Option keys of the ``[…]`` groups at ``k`` (whitespace skipped) and the index after."""
    keys: list[str] = []
    while True:
        j = k
        while j < len(text) and text[j].isspace():
            j += 1
        if j < len(text) and text[j] == "[":
            g = read_balanced(text, j, "[", "]")
            if g is None:
                return keys, j
            keys += split_top(g[0])
            k = g[1]
        else:
            return keys, k


def _kv(keys: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for key in keys:
        name, _, value = key.partition("=")
        out[" ".join(name.split())] = _unbrace(value.strip())
    return out


def _number(text: str) -> float | None:
    try:
        v = float(text.strip())
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def _bound(value: str | None) -> float | None:
    """An axis limit (``xmax=pi``, ``ymin=-1``): a number or a pgfmath constant expression."""
    return evaluate(value) if value else None


def _domain(value: str | None) -> tuple[float, float] | None:
    if not value or ":" not in value:
        return None
    a, b = (evaluate(p) for p in value.split(":", 1))
    return (a, b) if a is not None and b is not None and a < b else None


def _coordinates(body: str) -> list[tuple[float | str, float]]:
    out: list[tuple[float | str, float]] = []
    for m in re.finditer(r"\(([^()]*)\)", body):
        parts = split_top(m.group(1))
        if len(parts) != 2:
            return []  # 3-D points, error bars: not a plain x-y series
        y = _number(parts[1])
        if y is None:
            return []
        x = _number(parts[0])
        out.append((x if x is not None else latex_text(parts[0]), y))
    return out


def _table(text: str, opts: dict[str, str]) -> list[tuple[float | str, float]]:
    """Rows of a table's text: columns by ``x=``/``y=`` name (or ``x index``/``y index``),
    else the first two; ``col sep=comma`` or whitespace; a header row when its cells are
    not numbers."""
    sep = opts.get("col sep", "space")
    text = text.replace("\\\\", "\n")
    if sep == "comma":
        rows = list(csv.reader(io.StringIO(text)))
    elif sep in ("semicolon", "tab"):
        rows = list(csv.reader(io.StringIO(text), delimiter=";" if sep == "semicolon"
                               else "\t"))
    else:
        rows = [ln.split() for ln in text.splitlines()]
    rows = [[c.strip() for c in r] for r in rows if r and any(c.strip() for c in r)
            and not r[0].lstrip().startswith(("%", "#"))]
    if not rows:
        return []
    header = rows[0] if any(_number(c) is None for c in rows[0]) else None
    data = rows[1:] if header else rows

    def column(axis: str, default: int) -> int | None:
        name = opts.get(axis)
        if name is not None:
            if header is None or name not in header:
                return None
            return header.index(name)
        idx = opts.get(f"{axis} index")
        if idx is not None:
            v = _number(idx)
            return int(v) if v is not None else None
        return default

    xi, yi = column("x", 0), column("y", 1)
    if xi is None or yi is None:
        return []
    out: list[tuple[float | str, float]] = []
    for r in data:
        if max(xi, yi) >= len(r):
            return []
        y = _number(r[yi])
        if y is None:
            return []
        x = _number(r[xi])
        out.append((x if x is not None else r[xi], y))
    return out


def _series(body: str, k: int, surface: bool, assets: Mapping[str, bytes],
            axis_domain: tuple[float, float] | None) -> tuple[Series, int]:
    keys, k = _options(body, k)
    opts = _kv(keys)
    s = Series(surface=surface, forget="forget plot" in opts, evaluator=evaluate)
    rest = body[k:].lstrip()
    k = len(body) - len(rest)
    if rest.startswith("coordinates"):
        j = body.find("{", k)
        g = read_balanced(body, j, "{", "}") if j >= 0 else None
        if g is not None:
            s.points = _coordinates(g[0])
            return s, g[1]
    elif rest.startswith("table"):
        tkeys, j = _options(body, k + len("table"))
        j = body.find("{", j)
        g = read_balanced(body, j, "{", "}") if j >= 0 else None
        if g is not None:
            topts = _kv(tkeys)
            name = g[0].strip()
            if "\n" not in name and "\\\\" not in name and " " not in name.strip():
                data = assets.get(name)
                s.points = _table(data.decode("utf-8", "replace"), topts) if data else []
            else:
                s.points = _table(g[0], topts)
            return s, g[1]
    elif rest.startswith("{"):
        g = read_balanced(body, k, "{", "}")
        if g is not None:
            s.expression = g[0].strip()
            s.domain = _domain(opts.get("domain")) or axis_domain or DEFAULT_DOMAIN
            return s, g[1]
    return s, k


def read_charts(code: str, assets: Mapping[str, bytes] | None = None) -> list[Chart]:
    """One :class:`Chart` per axis environment of ``code`` (a document or a picture)."""
    code = strip_comments(code)
    assets = assets or {}
    out = []
    for m in _AXIS.finditer(code):
        end = code.find(f"\\end{{{m.group(1)}}}", m.end())
        if end < 0:
            continue
        keys, k = _options(code, m.end())
        opts = _kv(keys)
        chart = Chart(xlabel=_label(opts.get("xlabel", "")),
                      ylabel=_label(opts.get("ylabel", "")),
                      title=_label(opts.get("title", "")),
                      ymin=_bound(opts.get("ymin")), ymax=_bound(opts.get("ymax")),
                      xmin=_bound(opts.get("xmin")), xmax=_bound(opts.get("xmax")))
        if "legend entries" in opts:
            chart.legend = [_label(_unbrace(e)) for e in split_top(opts["legend entries"])]
        body = code[k:end]
        axis_domain = _domain(opts.get("domain"))
        pos = 0
        while True:
            p = _ADDPLOT.search(body, pos)
            q = _LEGEND.search(body, pos)
            if q is not None and (p is None or q.start() < p.start()):
                g = read_balanced(body, q.end() - 1, "{", "}")
                if g is None:
                    break
                entries = split_top(g[0]) if q.group(0).startswith("\\legend") else [g[0]]
                chart.legend += [_label(_unbrace(e)) for e in entries]
                pos = g[1]
                continue
            if p is None:
                break
            s, pos = _series(body, p.end(), bool(p.group(1)), assets, axis_domain)
            pos = max(pos, p.end())
            chart.series.append(s)
        out.append(chart)
    return out


# -- pgfmath arithmetic, restricted -----------------------------------------------------------

def _deg(f):  # noqa: ANN001, ANN202 - a math function of radians, given degrees
    return lambda v: f(math.radians(v))


FUNCTIONS = {
    "sin": _deg(math.sin), "cos": _deg(math.cos), "tan": _deg(math.tan),
    "asin": lambda v: math.degrees(math.asin(v)), "acos": lambda v: math.degrees(math.acos(v)),
    "atan": lambda v: math.degrees(math.atan(v)),
    "deg": math.degrees, "rad": math.radians, "exp": math.exp, "ln": math.log,
    "log10": math.log10, "log2": math.log2, "sqrt": math.sqrt, "abs": abs,
    "sinh": math.sinh, "cosh": math.cosh, "tanh": math.tanh, "floor": math.floor,
    "ceil": math.ceil, "round": round, "max": max, "min": min, "pow": math.pow,
    "mod": math.fmod, "veclen": lambda a, b: math.hypot(a, b),
}
"""pgfmath's functions the evaluator knows (trigonometry in degrees, as pgfmath does)."""
CONSTANTS = {"pi": math.pi, "e": math.e}


@lru_cache(maxsize=1)
def _grammar() -> pp.ParserElement:
    expr = pp.Forward()
    number = pp.Regex(r"(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")
    name = pp.Regex(r"\\?[A-Za-z][A-Za-z0-9]*")
    call = pp.Group(name + pp.Suppress("(") + pp.Group(pp.DelimitedList(expr))
                    + pp.Suppress(")"))("call")
    atom = call | number | name | pp.Group(pp.Suppress("(") + expr + pp.Suppress(")"))
    expr <<= pp.infix_notation(atom, [
        ("^", 2, pp.OpAssoc.RIGHT),
        (pp.one_of("- +"), 1, pp.OpAssoc.RIGHT),
        (pp.one_of("* /"), 2, pp.OpAssoc.LEFT),
        (pp.one_of("+ -"), 2, pp.OpAssoc.LEFT),
    ])
    return expr


class _NotEvaluable(Exception):
    pass


def _value(t: object, x: float | None) -> float:
    if isinstance(t, str):
        if re.fullmatch(r"(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", t):
            return float(t)
        name = t.lstrip("\\")
        if name == "x" and x is not None:
            return x
        if name in CONSTANTS:
            return CONSTANTS[name]
        raise _NotEvaluable(t)
    items = list(t)  # type: ignore[call-overload]
    if isinstance(t, pp.ParseResults) and t.get_name() == "call" and len(items) == 2 \
            and isinstance(items[0], str) and isinstance(items[1], pp.ParseResults):
        fn = FUNCTIONS.get(items[0].lstrip("\\"))
        if fn is None:
            raise _NotEvaluable(items[0])
        return float(fn(*[_value(a, x) for a in items[1]]))
    if len(items) == 1:
        return _value(items[0], x)
    if len(items) == 2 and items[0] in ("-", "+"):
        v = _value(items[1], x)
        return -v if items[0] == "-" else v
    if len(items) >= 3 and items[1] == "^":  # right-associative
        v = _value(items[-1], x)
        for base in reversed(items[:-1:2]):
            v = math.pow(_value(base, x), v)
        return v
    v = _value(items[0], x)
    for op, rhs in zip(items[1::2], items[2::2], strict=True):
        r = _value(rhs, x)
        v = v + r if op == "+" else v - r if op == "-" else v * r if op == "*" else v / r
    return v


def evaluate(expression: str, x: float | None = None) -> float | None:
    """The value of a pgfmath expression at ``x`` — ``None`` when it is not one this
    restricted grammar reads (an unknown function or macro, a comparison, a conditional) or
    its value is not a finite number."""
    try:
        tree = _grammar().parse_string(expression.strip(), parse_all=True)
        v = _value(tree, x)
    except (pp.ParseException, _NotEvaluable, ValueError, ZeroDivisionError, OverflowError,
            TypeError, RecursionError):
        return None
    return v if math.isfinite(v) else None
