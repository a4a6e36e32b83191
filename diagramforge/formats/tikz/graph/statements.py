"""The statement reader: a picture's body as a list of drawing statements with the options
in force, scopes and simple ``\\foreach`` loops expanded, definitions and unknown macros
skipped (and counted as unresolved in :class:`SourceInfo`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from diagramforge.formats.tikz.graph.lexer import (
    _foreach_items,
    _skip_ws,
    _statement_end,
    read_balanced,
)
from diagramforge.formats.tikz.graph.options import _Opts, _parse_styles
from diagramforge.graphs.settings import GraphParams

# -- statements ---------------------------------------------------------------------------

_PATH_CMDS = {"node": "node", "draw": "draw", "path": "path", "fill": "fill",
              "filldraw": "filldraw", "shade": "shade", "shadedraw": "shadedraw",
              "clip": "clip", "coordinate": "coordinate", "matrix": "matrix", "pic": "pic",
              "graph": "graph", "useasboundingbox": "path", "pattern": "fill",
              "scoped": "scoped", "nodepart": "skip"}
_SKIP_ARGS = {"def", "gdef", "edef", "xdef", "newcommand", "renewcommand", "providecommand",
              "pgfmathsetmacro", "pgfmathtruncatemacro", "pgfmathparse", "let",
              "tikzset", "tikzstyle", "usetikzlibrary", "definecolor", "colorlet",
              "pgfdeclarelayer", "pgfsetlayers", "setlength", "pgfkeys", "pgfmathsetseed",
              "pgfmathsetlengthmacro", "newlength", "tikzmath", "pgfplotsset"}


_DEFINITIONS = {"def", "gdef", "edef", "xdef"}


@dataclass
class _Stmt:
    cmd: str
    text: str
    opts: _Opts


@dataclass
class SourceInfo:
    """What the source reader could and could not read."""

    statements: int = 0
    unresolved: int = 0
    """Statements or macro calls it could not turn into nodes and edges (custom macros,
    loops over computed lists, ``\\graph``, ``\\pic``)."""
    pictures: int = 0
    places: dict[str, tuple[float, float, float, float]] = field(default_factory=dict)
    """Per node of the (last) picture whose place the source determines: estimated centre
    and size in cm, TikZ's orientation (see :mod:`.layout`)."""


class _Reader:
    def __init__(self, params: GraphParams) -> None:
        self.params = params
        self.styles: dict[str, str] = {"every edge": "draw"}
        self.macros: dict[str, str] = {}  # argument-less \newcommand/\def: loop bounds
        self.info = SourceInfo()

    # -- statements --------------------------------------------------------------------
    def statements(self, body: str, opts: _Opts, out: list[_Stmt], depth: int = 0) -> None:
        i, n = 0, len(body)
        stack = [opts]
        while i < n:
            if len(out) >= self.params.tikz_max_statements:
                self.info.unresolved += 1
                return
            c = body[i]
            if c.isspace() or c == ";":
                i += 1
                continue
            if c == "{":
                g = read_balanced(body, i, "{", "}")
                if g is None:
                    return
                self.statements(g[0], stack[-1], out, depth + 1)
                i = g[1]
                continue
            if c != "\\":
                i += 1
                continue
            m = re.match(r"\\([A-Za-z@]+)\*?", body[i:])
            if not m:
                i += 2
                continue
            name, j = m.group(1), i + m.end()
            if name in ("begin", "end"):
                g = read_balanced(body, _skip_ws(body, j), "{", "}")
                if g is None:
                    i = j
                    continue
                j = g[1]
                if name == "begin":
                    extra = None
                    k = _skip_ws(body, j)
                    if body.startswith("[", k):
                        og = read_balanced(body, k, "[", "]")
                        if og:
                            extra, j = og[0], og[1]
                    if extra:
                        _parse_styles(extra, self.styles)
                    stack.append(stack[-1].plus(extra))
                elif len(stack) > 1:
                    stack.pop()
                i = j
                continue
            if name == "foreach":
                i = self._foreach(body, j, stack[-1], out, depth)
                continue
            if name == "tikzset":
                g = read_balanced(body, _skip_ws(body, j), "{", "}")
                if g:
                    _parse_styles(g[0], self.styles)
                    i = g[1]
                else:
                    i = j
                continue
            if name == "tikzstyle":
                m2 = re.match(r"\s*\{([^{}]*)\}\s*\+?=\s*", body[j:])
                if m2:
                    k = j + m2.end()
                    og = read_balanced(body, k, "[", "]")
                    if og:
                        self.styles[m2.group(1).strip()] = og[0]
                        i = og[1]
                        continue
                i = j
                continue
            if name in _PATH_CMDS:
                end = _statement_end(body, j)
                out.append(_Stmt(_PATH_CMDS[name], body[j:end], stack[-1]))
                i = end + 1
                continue
            # a definition or an unknown macro: skip it and its arguments
            k = j
            groups = 0
            while True:
                k2 = _skip_ws(body, k)
                if k2 < n and body[k2] in "[{":
                    g = read_balanced(body, k2, body[k2], "]" if body[k2] == "[" else "}")
                    if g is None:
                        break
                    k = g[1]
                    groups += body[k2] == "{"
                    if name in _DEFINITIONS and groups == 1 and k > j + 1 \
                            and body[j:k2].strip().startswith("\\"):
                        break  # \def\name{body}: the body was the last argument
                elif name in _SKIP_ARGS and not groups and k2 < n and body[k2] == "\\" \
                        and k2 == _skip_ws(body, j):
                    m3 = re.match(r"\\[A-Za-z@]+|\\.", body[k2:])
                    k = k2 + (m3.end() if m3 else 1)  # \def\name, \let\a\b
                elif name in _SKIP_ARGS and not groups and k2 < n and body[k2] in "=#0123456789":
                    k = k2 + 1  # parameter text of \def, = of \let
                else:
                    break
            if name not in _SKIP_ARGS and k > j:
                self.info.unresolved += 1  # a macro call with arguments may draw
            i = max(k, j)

    def _foreach(self, body: str, j: int, opts: _Opts, out: list[_Stmt], depth: int) -> int:
        m = re.match(r"\s*((?:\\[A-Za-z@]+\s*/?\s*)+)\s*(\[[^\]]*\])?\s*in\s*", body[j:])
        if not m:
            self.info.unresolved += 1
            return _statement_end(body, j) + 1
        names = re.findall(r"\\([A-Za-z@]+)", m.group(1))
        k = j + m.end()
        g = read_balanced(body, k, "{", "}")
        if g is None:  # a macro list: cannot expand
            self.info.unresolved += 1
            return _statement_end(body, k) + 1
        listing = g[0]
        for _ in range(3):  # \newcommand{\n}{3} ... \foreach \i in {1,...,\n}
            listing = re.sub(r"\\([A-Za-z@]+)(?![A-Za-z@])",
                             lambda mm: self.macros.get(mm.group(1), mm.group(0)), listing)
        items, k = _foreach_items(listing), g[1]
        k = _skip_ws(body, k)
        if body.startswith("{", k):
            bg = read_balanced(body, k, "{", "}")
            if bg is None:
                return len(body)
            loop, end = bg[0], bg[1]
        else:
            stop = _statement_end(body, k)
            loop, end = body[k:stop + 1], stop + 1
        if items is None or (m.group(2) and re.search(r"evaluate|remember", m.group(2))):
            self.info.unresolved += 1
            return end
        for item in items:
            values = [v.strip() for v in item.split("/")] if len(names) > 1 else [item.strip()]
            text = loop
            for nm, v in zip(names, values + [values[-1]] * len(names), strict=False):
                text = re.sub(r"\\" + nm + r"(?![A-Za-z@])", lambda _m, v=v: v, text)
            self.statements(text, opts, out, depth + 1)
            if len(out) >= self.params.tikz_max_statements:
                break
        return end
