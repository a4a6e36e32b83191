"""Structure graph of TikZ pictures: from the source where it resolves, from the page where not.

**Source** (:func:`tikz_source_graph`).  Statements are read in order, with scopes and
simple ``\\foreach`` loops expanded (literal lists, ``a/b`` pairs, ``1,...,n`` ranges):

* nodes: ``\\node[opts] (name) at (x,y) {text};``, ``\\node (name) [opts] {text}``, nodes
  inside paths (``(0,0) node (a) {A}``), ``\\matrix`` cells (``matrix of nodes`` cells are
  named ``m-r-c``; a plain matrix's own ``\\node`` statements are read), tree ``child``
  nodes.  A node's shape comes from its options (styles expanded).  Named coordinates are
  waypoints, never nodes.
* edges: consecutive points of a drawn path (``--``, ``to``, ``-|``, ``|-``, ``..``) that
  are nodes, with waypoints in between skipped (``(a) -- ++(1,0) |- (b)`` is one edge
  ``a→b``); every ``edge`` operation (from the current point, which it does not move);
  ``child`` links in trees.  A point is a node when it names one, with or without an anchor
  (``(a)``, ``(a.east)``, ``(a.30)``, ``(a.north east)``); ``(a -| b)``, ``($(a)!.5!(b)$)``
  and numbers are waypoints.  ``\\path`` without ``draw`` draws nothing (its ``edge``
  operations do).
* labels: a node between an operation and its target, or after a target with ``midway``/
  ``pos=``/``near …``/``sloped``, labels that segment; ``"quoted"`` labels in edge options.
* direction: arrow specs in the options of the picture, scopes, the statement and the
  operation, and in the styles they use (``every edge``, ``edge from parent``, user
  styles): ``->``, ``<-``, ``<->``, ``-latex``, ``-stealth``, ``-{Stealth[…]}``, ``>=…`` is
  only a tip choice.  A tip at the end only: forward; at the start only: backward; both or
  none (or dots and bars: ``*-*``, ``|-|``): undirected.

**Geometry** (:func:`pdf_graph`): text lines and drawn paths of the compiled page
(PyMuPDF), through the same rules as SVG (:mod:`diagramforge.graphs.geometry`).

**Merge** (:func:`merge_graphs`): the source graph is kept when it has edges and at least
``tikz_source_share`` of the edges the page shows; its nodes take their bbox from the page
nodes whose text matches.  Otherwise (macros, ``\\pgfmathsetmacro`` loops, packages drawing
for the author) the page graph serves alone.  When the source skipped statements it could
not read, page edges between two matched nodes that the source lacks are added.  The
source's edges with a free end (an arrow from a bare point: axes) count as edges: the graph
keeps them free (incomplete) rather than taking the page's reading of them.  Node texts are
then those typeset (:func:`typeset_texts`: the page's text lines in each node's box), so a
counter, a macro or math reads as the page shows it ("ball 1", not "ball").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import pymupdf

from diagramforge.formats import latex
from diagramforge.graphs.tikz import layout as lay
from diagramforge.graphs.geometry import PathItem, TextItem, _dedupe, bbox, build_graph
from diagramforge.graphs.model import Edge, Graph, Node
from diagramforge.graphs.params import GraphParams

# -- lexical helpers --------------------------------------------------------------------



def strip_comments(code: str) -> str:
    return latex.strip_line_comments(code)


def read_balanced(s: str, i: int, open_: str, close: str) -> tuple[str, int] | None:
    """``s[i]`` must be ``open_``; returns (inner text, index after the close)."""
    return latex.read_balanced(s, i, open_, close, brace_safe=True)


def split_top(s: str, sep: str = ",") -> list[str]:
    """Split at ``sep`` outside braces, brackets and parentheses."""
    out, depth, cur = [], 0, []
    i = 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s):
            cur.append(s[i:i + 2])
            i += 2
            continue
        if c in "{[(":
            depth += 1
        elif c in "}])":
            depth -= 1
        if c == sep and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    out.append("".join(cur))
    return [p.strip() for p in out if p.strip()]


def _unbrace(s: str) -> str:
    s = s.strip()
    while s.startswith("{") and s.endswith("}"):
        g = read_balanced(s, 0, "{", "}")
        if g is None or g[1] != len(s):
            break
        s = g[0].strip()
    return s


# -- LaTeX text -------------------------------------------------------------------------

_SYMBOLS = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ϵ", "varepsilon": "ε",
    "zeta": "ζ", "eta": "η", "theta": "θ", "vartheta": "ϑ", "iota": "ι", "kappa": "κ",
    "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π", "rho": "ρ", "sigma": "σ",
    "tau": "τ", "upsilon": "υ", "phi": "ϕ", "varphi": "φ", "chi": "χ", "psi": "ψ",
    "omega": "ω", "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ",
    "Pi": "Π", "Sigma": "Σ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω", "times": "×",
    "cdot": "·", "ldots": "…", "dots": "…", "cdots": "⋯", "to": "→", "rightarrow": "→",
    "leftarrow": "←", "Rightarrow": "⇒", "Leftarrow": "⇐", "leftrightarrow": "↔", "pm": "±",
    "leq": "≤", "geq": "≥", "le": "≤", "ge": "≥", "neq": "≠", "infty": "∞", "in": "∈",
    "sum": "∑", "prod": "∏", "int": "∫", "partial": "∂", "nabla": "∇", "approx": "≈",
    "sim": "∼", "cup": "∪", "cap": "∩", "emptyset": "∅", "forall": "∀", "exists": "∃",
    "neg": "¬", "wedge": "∧", "vee": "∨", "lor": "∨", "land": "∧", "lnot": "¬",
    "mapsto": "↦", "subset": "⊂", "subseteq": "⊆", "mid": "∣", "ell": "ℓ", "hbar": "ℏ",
    "top": "⊤", "bot": "⊥", "vdots": "⋮", "ddots": "⋱", "star": "⋆", "ast": "∗",
    "oplus": "⊕", "otimes": "⊗", "circ": "∘",
    "textbackslash": "\\", "&": "&", "%": "%", "_": "_", "#": "#", "$": "$", "{": "{",
    "}": "}", "textendash": "–", "textemdash": "—", "S": "§", "ss": "ß", "euro": "€",
}
_SYMBOLS.update({"textasciicircum": "^", "textasciitilde": "~", "^": "^", "~": "~",
                 "textminus": "\u2212"})
_ESCAPED = {c: chr(0xE000 + k) for k, c in enumerate("_{}^~&$%#\\")}
"""Characters that are markup when bare and text when escaped (``\\_``, ``\\{``…), held
as private-use marks while the markup is stripped."""
_DROP_WITH_ARG = ("color", "label", "nodepart", "pgfuseimage", "pgfimage", "usebox", "vspace",
                  "hspace", "includegraphics", "ref", "cite", "setlength", "rule", "raisebox",
                  "tikz", "phantom", "hphantom", "vphantom", "pgfmathparse",
                  "pgfmathprintnumber")


def latex_text(s: str) -> str:
    """Readable text of a node's LaTeX: commands dropped, arguments kept, ``\\\\`` a line."""
    # a fraction reads "2/10" (not "210"): numerator and denominator as groups or tokens
    frac = r"\\[dt]?frac\s*(\{[^{}]*\}|\\?[A-Za-z0-9])\s*(\{[^{}]*\}|\\?[A-Za-z0-9])"
    s = re.sub(frac, lambda m: f"{_unbrace(m.group(1))}/{_unbrace(m.group(2))}", s)
    s = re.sub(r"\\\\(\s*\[[^\]]*\])?", "\n", s)
    s = re.sub(r"\\(?:newline|linebreak|par)\b", "\n", s)
    s = re.sub(r"\\textcolor\s*\{[^{}]*\}", "", s)
    s = re.sub(r"\\(?:" + "|".join(_DROP_WITH_ARG) + r")\*?\s*(\[[^\]]*\])?\s*\{[^{}]*\}",
               "", s)
    s = re.sub(r"\\(?:begin|end)\s*\{[^{}]*\}(\{[^{}]*\}|\[[^\]]*\])*", " ", s)

    def cs(m: re.Match) -> str:
        name = m.group(1)
        if name in _SYMBOLS:
            # an escaped character is text: kept from the markup clean-up below
            return _ESCAPED.get(_SYMBOLS[name], _SYMBOLS[name])
        return " " if name in ("quad", "qquad", ",", ";", ":", "!", " ") else ""

    s = re.sub(r"\\([A-Za-z]+|.)\s*", cs, s)
    s = s.replace("~", " ").replace("$", "").replace("{", "").replace("}", "")
    s = s.replace("^", "").replace("_", "").replace("&", " ")
    for char, mark in _ESCAPED.items():
        s = s.replace(mark, char)
    lines = [" ".join(line.split()) for line in s.split("\n")]
    return "\n".join(line for line in lines if line)


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
    and size in cm, TikZ's orientation (see :mod:`.tikz_layout`)."""


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


def _skip_ws(s: str, i: int) -> int:
    while i < len(s) and s[i].isspace():
        i += 1
    return i


def _statement_end(s: str, i: int) -> int:
    """Index of the ``;`` ending the statement that starts at ``i`` (or the end)."""
    depth = 0
    while i < len(s):
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth < 0:
                return i
        elif c == ";" and depth == 0:
            return i
        i += 1
    return len(s)


def _foreach_items(text: str) -> list[str] | None:
    items = split_top(text)
    out: list[str] = []
    for k, it in enumerate(items):
        if it in ("...", "…"):
            try:
                a = float(items[k - 2]) if k >= 2 else None
                b = float(items[k - 1])
                end = float(items[k + 1])
            except (ValueError, IndexError):
                return None
            step = (b - a) if a is not None else (1.0 if end >= b else -1.0)
            if step == 0 or abs((end - b) / step) > 1000:
                return None
            v = b + step
            while (step > 0 and v < end) or (step < 0 and v > end):
                out.append(_fmt(v))
                v += step
            continue
        if "\\" in it and not it.startswith("{"):
            return None
        out.append(_unbrace(it))  # {(0,2)/a}: a braced item keeps its commas
    return out


def _fmt(v: float) -> str:
    return str(int(v)) if abs(v - round(v)) < 1e-9 else f"{v:g}"


# -- paths ------------------------------------------------------------------------------

def _tokens(s: str) -> list[tuple[str, str]]:
    """Path tokens: ("opt", …), ("coord", …), ("rel", …), ("group", …), ("op", …),
    ("kw", word), ("cs", …)."""
    out: list[tuple[str, str]] = []
    i, n = 0, len(s)
    while i < n:
        c = s[i]
        if c.isspace():
            i += 1
            continue
        if c == "[":
            g = read_balanced(s, i, "[", "]")
            if g is None:
                break
            out.append(("opt", g[0]))
            i = g[1]
            continue
        if c == "(":
            g = read_balanced(s, i, "(", ")")
            if g is None:
                break
            kind = "coord"
            if out and out[-1][0] == "plus":
                out.pop()
                kind = "rel"
            out.append((kind, g[0]))
            i = g[1]
            continue
        if c == "{":
            g = read_balanced(s, i, "{", "}")
            if g is None:
                break
            out.append(("group", g[0]))
            i = g[1]
            continue
        if s.startswith("--", i) or s.startswith("-|", i) or s.startswith("|-", i) \
                or s.startswith("..", i):
            out.append(("op", s[i:i + 2]))
            i += 2
            continue
        if c == "+":
            out.append(("plus", "+"))
            i += 2 if s.startswith("++", i) else 1
            continue
        if c.isalpha():
            m = re.match(r"[A-Za-z]+(?: (?:from parent|anchor|also|box))?", s[i:])
            word = m.group(0) if m else c
            out.append(("kw", word))
            i += len(word)
            continue
        if c == "\\":
            m = re.match(r"\\[A-Za-z@]+|\\.", s[i:])
            out.append(("cs", m.group(0) if m else c))
            i += len(m.group(0)) if m else 1
            continue
        if c == '"':
            j = s.find('"', i + 1)
            out.append(("quote", s[i + 1:j] if j > 0 else ""))
            i = j + 1 if j > 0 else n
            continue
        i += 1
    return out


_LABEL_POS = re.compile(r"^(?:midway|pos|near start|near end|very near start|very near end|"
                        r"at start|at end|sloped|auto|swap|')\b")


@dataclass
class _Point:
    node: str | None  # the node it names, or None for a waypoint
    xy: tuple[float, float] | None = None  # where it is, when the source says


@dataclass
class _Picture:
    nodes: dict[str, Node] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)
    coordinates: set[str] = field(default_factory=set)
    declared: set[str] = field(default_factory=set)
    anon: int = 0
    places: dict[str, tuple[float, float]] = field(default_factory=dict)
    sizes: dict[str, tuple[float, float]] = field(default_factory=dict)
    chain: str | None = None  # the last node put ``on chain``


_INITIAL_KEYS = {"initial", "initial by arrow", "initial left", "initial right",
                 "initial above", "initial below"}


class _PathReader:
    """Reads the statements of one picture into nodes and edges."""

    def __init__(self, reader: _Reader, pic: _Picture) -> None:
        self.r = reader
        self.pic = pic
        self.in_force: list[str] = []   # the statement's inherited options
        self.frame: lay.Frame | None = lay.Frame()
        self.at: str | None = None      # the last node's ``at`` coordinate
        self.unplaced = False           # nodes read now get no place (matrix bodies)
        self.depth = 0                  # tree level being read

    # -- nodes ---------------------------------------------------------------------------
    def _new_node(self, name: str | None, keys: list[str], text: str,
                  here: tuple[float, float] | None = None) -> str | None:
        styles = self.r.styles
        shape = _shape(keys, styles)
        if shape == "coordinate":
            if name:
                self.pic.coordinates.add(name)
            return None
        label = latex_text(text)
        if name is None:
            if not label:
                return None
            self.pic.anon += 1
            name = f"_{self.pic.anon}"
        self.pic.nodes[name] = Node(id=name, text=label, shape=shape)
        self._initial(name, keys)
        if not self.unplaced:
            self._place(name, keys, label, shape, here)
        return name

    def _place(self, name: str, keys: list[str], label: str, shape: str,
               here: tuple[float, float] | None) -> None:
        """Where the node lands: a positioning key, else its ``at``, else ``here`` (the
        path's current point); shifted by its anchor."""
        nk = _expand(keys, self.r.styles)
        allk = _expand(self.in_force, self.r.styles) + nk
        own = lay.size(allk, label, shape)
        if any(k.strip() == "on chain" or k.strip().startswith("on chain=") for k in nk):
            going = "right"
            for k in allk:
                m = re.search(r"start chain\s*=.*going\s+(above|below|left|right)", k)
                if m:
                    going = m.group(1)
            if self.pic.chain is not None:
                nk = nk + [f"{going}=of {self.pic.chain}"]
            self.pic.chain = name
        p = lay.placed(allk, nk, own, self.pic.places, self.pic.sizes)
        if p is False:
            p = lay.point(self._expand_macros(self.at), self.pic.places, self.frame) \
                if self.at is not None else here
            if p is not None:
                off = lay.anchor_offset(nk, own)
                p = (p[0] + off[0], p[1] + off[1])
        if p is None:
            return
        shift = lay.frame([k for k in nk if k.strip().startswith(("xshift", "yshift"))])
        if shift is None:
            return
        self.pic.places[name] = shift.apply(p)
        self.pic.sizes[name] = own

    def _expand_macros(self, coord: str) -> str:
        """A coordinate with the document's constant macros (``\\newcommand{\\n}{3}``)
        written out, so ``{(\\n-1)*2}`` can be computed."""
        if "\\" not in coord:
            return coord
        return re.sub(r"\\([A-Za-z@]+)", lambda m: self.r.macros.get(m.group(1), m.group(0)),
                      coord)

    def _initial(self, name: str, keys: list[str]) -> None:
        """An automaton state with ``initial`` has the arrow TikZ draws into it, from the
        ``initial text`` ("start" unless set): a text and a connector on the page, so a node
        and an edge of the graph, as in every other picture."""
        opts = {k.partition("=")[0].strip(): k.partition("=")[2].strip()
                for k in _expand(keys, self.r.styles)}
        if not _INITIAL_KEYS & set(opts):
            return
        text = latex_text(_unbrace(opts.get("initial text", "start")))
        if text:
            self.pic.nodes[f"{name}:initial"] = Node(id=f"{name}:initial", text=text,
                                                     shape="text")
            self.pic.edges.append(Edge(source=f"{name}:initial", target=name))

    def resolve(self, coord: str) -> str | None:
        c = coord.strip()
        if c.startswith("$") or "-|" in c or "|-" in c or "intersection" in c:
            return None
        known = self.pic.nodes.keys() | self.pic.declared
        if c in known:
            return c
        if "." in c:
            for base in (c.rsplit(".", 1)[0].strip(), c.split(".", 1)[0].strip()):
                if base in known:
                    return base
        return None

    def _read_node(self, toks: list[tuple[str, str]], k: int
                   ) -> tuple[str | None, list[str], str, int, bool]:
        """From just after ``node``: (name, option keys, text, next index, has text)."""
        name: str | None = None
        keys: list[str] = []
        text = ""
        has_text = False
        at = False
        self.at = None
        while k < len(toks):
            kind, val = toks[k]
            if kind == "opt":
                keys += split_top(val)
            elif kind == "coord":
                if not at:
                    name = val.strip()
                else:
                    self.at = val
                at = False
            elif kind == "kw" and val == "at":
                at = True
            elif kind == "kw" and val in ("foreach",):
                break
            elif kind == "group":
                text, has_text = val, True
                k += 1
                break
            elif kind == "cs":
                pass
            else:
                break
            k += 1
        return name, keys, text, k, has_text

    # -- statements ----------------------------------------------------------------------
    def declare(self, stmts: list[_Stmt]) -> None:
        """First pass: node names, so a path may name a node declared later."""
        for st in stmts:
            toks = _tokens(st.text)
            for k, (kind, val) in enumerate(toks):
                if kind == "kw" and val == "node" or (k == 0 and st.cmd == "node"):
                    j = k + 1 if kind == "kw" else k
                    name, keys, _, _, _ = self._read_node(toks, j)
                    if name and _shape(st.opts.keys + keys, self.r.styles) != "coordinate":
                        self.pic.declared.add(name)

    def statement(self, st: _Stmt) -> None:
        styles = self.r.styles
        toks = _tokens(st.text)
        self.in_force = st.opts.keys
        self.frame = lay.frame(st.opts.keys)
        if st.cmd in ("graph", "pic", "scoped", "skip"):
            self.r.info.unresolved += 1
            return
        if st.cmd == "matrix":
            self._matrix(st, toks)
            return
        if st.cmd in ("node", "coordinate"):
            toks = [("kw", st.cmd)] + toks
        base = st.opts.keys[:]
        lead = 0
        while lead < len(toks) and toks[lead][0] == "opt":
            base += split_top(toks[lead][1])
            lead += 1
        drawn = st.cmd in ("draw", "filldraw", "shadedraw") or _drawn(base, styles)
        self._path(toks[lead:], base, drawn, parent=None)

    def _matrix(self, st: _Stmt, toks: list[tuple[str, str]]) -> None:
        name, keys, text, _, _ = self._read_node([("kw", "node")] + toks, 1)
        keys = st.opts.keys + keys
        expanded = _expand(keys, self.r.styles)
        if not any(k.strip().startswith(("matrix of nodes", "matrix of math nodes"))
                   for k in expanded):
            sub: list[_Stmt] = []
            self.r.statements(text.replace("&", " ").replace("\\\\", " "), st.opts, sub)
            self.declare(sub)
            self.unplaced = True  # cells of a matrix of statements: places not worked out
            try:
                for s in sub:
                    self.statement(s)
            finally:
                self.unplaced = False
            return
        at = self.at
        cells: dict[tuple[int, int], str] = {}
        for r, row in enumerate(re.split(r"\\\\(?:\s*\[[^\]]*\])?", text), start=1):
            if not row.strip():
                continue
            for c, cell in enumerate(split_top(row, "&") if "&" in row else [row], start=1):
                cell = re.sub(r"^\s*\|[^|]*\|", "", cell).strip()
                if cell and name:
                    self.unplaced = True
                    try:
                        if self._new_node(f"{name}-{r}-{c}", ["rectangle"], cell):
                            cells[(r, c)] = f"{name}-{r}-{c}"
                    finally:
                        self.unplaced = False
        self._place_matrix(cells, keys, at)

    def _place_matrix(self, cells: dict[tuple[int, int], str], keys: list[str],
                      at: str | None) -> None:
        """Cells in columns and rows around the matrix's place (its ``at``, else the
        origin; a positioning key on a matrix is not followed)."""
        allk = _expand(self.in_force + keys, self.r.styles)
        if not cells or any(k.strip() == "anchor" or k.strip().startswith("anchor=")
                            for k in allk) or lay.placed(allk, allk, (0, 0), {}, {}) \
                is not False:
            return
        centre = lay.point(at, self.pic.places, self.frame) if at is not None \
            else (self.frame.apply((0.0, 0.0)) if self.frame else None)
        if centre is None:
            return
        sizes = {rc: lay.size(allk, self.pic.nodes[n].text, "rectangle")
                 for rc, n in cells.items()}
        for rc, xy in lay.matrix_cells(sizes, allk, centre).items():
            self.pic.places[cells[rc]] = xy
            self.pic.sizes[cells[rc]] = sizes[rc]

    def _path(self, toks: list[tuple[str, str]], keys: list[str], drawn: bool,
              parent: str | None, origin: tuple[float, float] | None | str = "frame"
              ) -> str | None:
        """Read one path; returns the first node it created (a tree child's node).
        ``origin``: where a node placed before any coordinate lands (a tree child's
        place; ``"frame"``: the origin of the frame in force)."""
        first_node: str | None = None
        n_children = sum(1 for t in toks if t == ("kw", "child"))
        child_k = 0
        start: _Point | None = None      # where the current chain of segments started
        cur: _Point | None = None        # the current point
        path_first: _Point | None = None
        pending: tuple[str, list[str]] | None = None  # an operation waiting for its target
        labels: list[str] = []
        last_edge: Edge | None = None
        shape_arg = False                # the next coordinate is a shape's argument
        reached: tuple | None = None     # the segment that led to the current waypoint
        k = 0
        while k < len(toks):
            kind, val = toks[k]
            if kind == "opt":
                if pending is not None:
                    for item in split_top(val):
                        q = re.match(r'^"(.*)"', item, re.S)
                        if q:
                            labels.append(latex_text(q.group(1)))
                        else:
                            pending[1].append(item)
                k += 1
                continue
            if kind == "quote" and pending is not None:
                labels.append(latex_text(val))
                k += 1
                continue
            if kind == "kw" and val in ("node", "coordinate") or kind == "kw" and val == "pic":
                if val == "pic":
                    self.r.info.unresolved += 1
                    k += 1
                    continue
                name, nkeys, text, k, has_text = self._read_node(toks, k + 1)
                nkeys = [kk for kk in nkeys]
                on_segment = any(_LABEL_POS.match(x) for x in nkeys)
                is_label = pending is not None or (last_edge is not None and on_segment)
                if val == "coordinate":
                    if name:
                        self.pic.coordinates.add(name)
                    continue
                if is_label and not name:
                    lab = latex_text(text)
                    if lab:
                        if pending is not None:
                            labels.append(lab)
                        elif last_edge is not None:
                            last_edge.label = "\n".join(x for x in (last_edge.label, lab) if x)
                    continue
                if on_segment or pending is not None:
                    here = None
                elif cur is not None:
                    here = cur.xy
                elif origin != "frame":
                    here = origin  # type: ignore[assignment]
                else:  # a path's first node with no coordinate: the origin
                    here = self.frame.apply((0.0, 0.0)) if self.frame else None
                created = self._new_node(name, nkeys, text, here) if has_text or name \
                    else None
                if created and first_node is None:
                    first_node = created
                if created and cur is not None and cur.node is None and pending is None \
                        and not on_segment:
                    cur.node = created  # a node placed on a waypoint: the path reaches it
                    if reached is not None:
                        r_op, r_start, r_labels = reached
                        last_edge = self._reach(r_op, keys, drawn, r_start, cur, r_labels)
                        start = cur
                        reached = None
                if created and cur is None:
                    cur = start = path_first = _Point(created, self.pic.places.get(created))
                continue
            if kind == "kw" and val == "child":
                child_k += 1
                k = self._child(toks, k + 1, keys, cur.node if cur else None,
                                (cur.xy if cur else None, child_k, n_children))
                continue
            if kind == "kw" and val == "edge from parent":
                k += 1  # read by _child, with its options and label node
                while k < len(toks) and toks[k][0] == "opt":
                    k += 1
                if k < len(toks) and toks[k] == ("kw", "node"):
                    k = self._read_node(toks, k + 1)[3]
                continue
            if kind == "op":
                if val == "..":
                    # .. controls (c1) and (c2) .. (target)
                    k += 1
                    while k < len(toks) and toks[k] != ("op", ".."):
                        k += 1
                pending = (val, [])
                labels = []
                k += 1
                continue
            if kind == "kw" and val in ("to", "edge"):
                pending = (val, [])
                labels = []
                k += 1
                continue
            if kind == "kw" and val == "cycle":
                if pending is not None and path_first is not None:
                    self._reach(pending, keys, drawn, start, path_first, labels)
                pending = None
                reached = None  # closed: a shape, no free end
                k += 1
                continue
            if kind == "kw" and val in ("circle", "ellipse", "arc", "sin", "cos", "parabola",
                                        "grid", "rectangle", "plot"):
                shape_arg = val in ("circle", "ellipse", "arc")
                if val in ("rectangle", "grid", "sin", "cos", "parabola"):
                    pending = ("shape", [])
                start = None
                reached = None  # a chain that turns into a shape has no free end
                k += 1
                continue
            if kind == "kw" and val == "let":
                while k < len(toks) and toks[k] != ("kw", "in"):
                    k += 1
                k += 1
                continue
            if kind in ("coord", "rel"):
                if shape_arg:
                    shape_arg = False
                    k += 1
                    continue
                node = self.resolve(val) if kind == "coord" else None
                if kind == "coord" and not val.strip() and cur is not None:
                    node = cur.node  # "()" in a loop: the current node again
                if kind == "coord" and node is None and any(
                        ch in val for ch in "\\") and not val.strip().startswith("$"):
                    self.r.info.unresolved += 1
                if kind == "rel":
                    xy = lay.relative(val, cur.xy if cur else None, self.frame)
                elif node is not None:
                    xy = self.pic.places.get(node)
                else:
                    xy = lay.point(self._expand_macros(val), self.pic.places, self.frame)
                pt = _Point(node, xy)
                if pending is None:
                    self._free_end(reached, keys, drawn)
                    cur = start = pt
                    reached = None
                    if path_first is None:
                        path_first = pt
                elif pending[0] == "edge":
                    last_edge = self._reach(pending, keys, True, cur, pt, labels,
                                            every="every edge")
                else:
                    reached = None
                    if pending[0] != "shape":
                        last_edge = self._reach(pending, keys, drawn, start, pt, labels)
                        if node is not None or start is None:
                            start = pt
                        else:
                            reached = (pending, start, labels)
                    else:
                        start = pt
                    cur = pt
                pending = None
                labels = []
                k += 1
                continue
            if kind == "kw" and val == "foreach":
                self.r.info.unresolved += 1
                break
            k += 1
        self._free_end(reached, keys, drawn)
        return first_node

    def _free_end(self, reached: tuple | None, keys: list[str], drawn: bool) -> None:
        """A chain that left a node and ended at a bare point (``(a) -- ++(1,0)``: an
        output arrow to nowhere) is an edge with a free end when an arrow tip says it
        connects — as an arrow from a bare point into a node is; a plain stroke is not."""
        if reached is None or not drawn:
            return
        (_, okeys), start, labels = reached
        if start is None or start.node is None:
            return
        ts, te = _direction(keys + okeys, self.r.styles)
        if not (ts or te):
            return
        label = "\n".join(x for x in labels if x)
        self.pic.edges.append(
            Edge(source=None, target=start.node, label=label, unattached=["source"])
            if ts and not te else Edge(source=start.node, target=None, label=label,
                                       directed=ts != te, both_heads=ts and te,
                                       unattached=["target"]))

    def _reach(self, pending: tuple[str, list[str]], keys: list[str], drawn: bool,
               start: _Point | None, pt: _Point, labels: list[str], every: str | None = None
               ) -> Edge | None:
        """A segment (or an ``edge``) from ``start`` to ``pt``; an edge when both are nodes."""
        if start is None or pt.node is None and start.node is None:
            return None
        op, okeys = pending
        allkeys = keys + ([every] if every else []) + okeys
        if every == "every edge":
            drawn = _drawn(allkeys, self.r.styles) or drawn
        if not drawn:
            return None
        if pt.node is None:
            return None  # a waypoint: the chain goes on from start
        ts, te = _direction(allkeys, self.r.styles)
        label = "\n".join(x for x in labels if x)
        if start.node is None:  # from a bare point: only an arrow makes it a connection
            if not (te or ts):
                return None
            e = (Edge(source=pt.node, target=None, label=label, unattached=["target"])
                 if ts and not te else Edge(source=None, target=pt.node, label=label,
                                            directed=te != ts, both_heads=ts and te,
                                            unattached=["source"]))
            self.pic.edges.append(e)
            return e
        if start.node == pt.node and op != "edge" and op != "to":
            return None
        a, b = start.node, pt.node
        if ts and not te:
            a, b = b, a
        e = Edge(source=a, target=b, directed=ts != te, both_heads=ts and te, label=label)
        self.pic.edges.append(e)
        return e

    def _child(self, toks: list[tuple[str, str]], k: int, keys: list[str],
               parent: str | None,
               slot: tuple[tuple[float, float] | None, int, int] = (None, 1, 1)) -> int:
        """A ``child``; ``slot``: (parent's place, which child, of how many)."""
        ckeys: list[str] = []
        while k < len(toks) and toks[k][0] == "opt":
            ckeys += split_top(toks[k][1])
            k += 1
        if k >= len(toks) or toks[k][0] != "group":
            return k
        body = _tokens(toks[k][1])
        # edge from parent [opts] node {label} inside the child
        ekeys: list[str] = []
        elabel = ""
        for j, (kind, val) in enumerate(body):
            if kind == "kw" and val == "edge from parent":
                m = j + 1
                while m < len(body) and body[m][0] == "opt":
                    ekeys += split_top(body[m][1])
                    m += 1
                if m < len(body) and body[m] == ("kw", "node"):
                    _, _, text, _, _ = self._read_node(body, m + 1)
                    elabel = latex_text(text)
        self.depth += 1
        level = [f"level {self.depth}"] if f"level {self.depth}" in self.r.styles else []
        generic = split_top(self.r.styles.get("level", "").replace("#1", str(self.depth)))
        here = lay.tree_child(slot[0], slot[1], slot[2], _expand(
            self.in_force + keys + generic + level + ckeys, self.r.styles))
        try:
            child = self._path(body, keys + ckeys, True, parent, origin=here)
        finally:
            self.depth -= 1
        missing = any(x.strip() == "missing" for x in ckeys)
        allkeys = keys + ["edge from parent"] + ckeys + ekeys
        hidden = any(x.replace(" ", "") in ("draw=none", "edgefromparentpath={}")
                     for x in _expand(allkeys, self.r.styles))
        if parent and child and not missing and not hidden:
            ts, te = _direction(allkeys, self.r.styles)
            a, b = (child, parent) if ts and not te else (parent, child)
            self.pic.edges.append(Edge(source=a, target=b, directed=ts != te,
                                       both_heads=ts and te, label=elabel))
        return k + 1


# -- pictures ---------------------------------------------------------------------------

def _pictures(code: str) -> list[tuple[str, str]]:
    """(options, body) of each outermost ``tikzpicture`` and ``\\tikz`` command."""
    out: list[tuple[int, str, str]] = []
    spans: list[tuple[int, int]] = []
    pat = re.compile(r"\\(begin|end)\s*\{tikzpicture\}")
    depth, start, opts, body_start = 0, 0, "", 0
    for m in pat.finditer(code):
        if m.group(1) == "begin":
            if depth == 0:
                start = m.start()
                k = _skip_ws(code, m.end())
                og = read_balanced(code, k, "[", "]") if code.startswith("[", k) else None
                opts, body_start = (og[0], og[1]) if og else ("", m.end())
            depth += 1
        elif depth > 0:
            depth -= 1
            if depth == 0:
                out.append((start, opts, code[body_start:m.start()]))
                spans.append((start, m.end()))
    for m in re.finditer(r"\\tikz(?![A-Za-z@])", code):
        if any(a <= m.start() < b for a, b in spans):
            continue
        k = _skip_ws(code, m.end())
        opts = ""
        if code.startswith("[", k):
            og = read_balanced(code, k, "[", "]")
            if og:
                opts, k = og[0], _skip_ws(code, og[1])
        if code.startswith("{", k):
            g = read_balanced(code, k, "{", "}")
            if g:
                out.append((m.start(), opts, g[0]))
                spans.append((m.start(), g[1]))
        else:
            end = _statement_end(code, k)
            out.append((m.start(), opts, code[k:end + 1]))
            spans.append((m.start(), end + 1))
    out.sort()
    return [(o, b) for _, o, b in out]


# -- tikz-cd --------------------------------------------------------------------------

_CD_DIR = re.compile(r"^[udlr]+$")
_CD_ARROW = re.compile(r"\\(?:arrow|ar)(?![A-Za-z@])")
_CD_UNDIRECTED = re.compile(r"(?:^|,)\s*(?:dash|no head|-)\s*(?:,|$)")


def _cd_cells(body: str) -> list[list[str]]:
    """Rows (``\\\\``) and cells (``&``) of a tikz-cd body, split outside braces."""
    rows: list[list[str]] = [[]]
    cur: list[str] = []
    depth, i = 0, 0
    while i < len(body):
        c = body[i]
        if body.startswith("\\\\", i) and depth == 0:
            rows[-1].append("".join(cur))
            cur = []
            rows.append([])
            i += 2
            continue
        if c == "\\" and i + 1 < len(body):
            cur.append(body[i:i + 2])
            i += 2
            continue
        depth += c in "{[" and 1 or (-1 if c in "}]" else 0)
        if c == "&" and depth == 0:
            rows[-1].append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    rows[-1].append("".join(cur))
    return [r for r in rows if any(x.strip() for x in r)]


def _cd_arrow(cell: str, k: int) -> tuple[str, str, bool, int] | None:
    """(direction, label, directed, end) of the ``\\arrow[...]`` starting at ``k``, in the
    key-value form (``[r, "f"']``) or the old one (``{r}{f}``)."""
    j = _skip_ws(cell, k)
    if cell.startswith("[", j):
        g = read_balanced(cell, j, "[", "]")
        if g is None:
            return None
        opts = split_top(g[0])
        dirs = next((o for o in opts if _CD_DIR.match(o)), "")
        quoted = next((o for o in opts if o.startswith('"')), "")
        label = latex_text(quoted[1:quoted.rfind('"')]) if quoted.count('"') >= 2 else ""
        return dirs, label, not _CD_UNDIRECTED.search(g[0]), g[1]
    if cell.startswith("{", j):
        g = read_balanced(cell, j, "{", "}")
        if g is None:
            return None
        end, label = g[1], ""
        k2 = _skip_ws(cell, end)
        if cell.startswith("{", k2):
            g2 = read_balanced(cell, k2, "{", "}")
            if g2:
                label, end = latex_text(g2[0]), g2[1]
        return g[0].strip(), label, True, end
    return None


def tikzcd_graphs(code: str, macros: dict[str, str] | None = None) -> list[Graph]:
    """One graph per ``tikzcd`` environment: non-empty cells are nodes (``r<i>c<j>``), each
    ``\\arrow[<udlr…>, "label"]`` an edge to the cell that many rows/columns away (plain
    ``dash``/``no head`` arrows undirected).  Arrows to empty cells get text-less nodes.
    ``macros`` (argument-less ``\\newcommand``/``\\DeclareMathOperator``) are expanded in
    cell text, so ``\\Hom(B, C)`` reads as the page shows it."""
    macros = macros or {}

    def text_of(tex: str) -> str:
        if macros:
            tex = re.sub(r"\\([A-Za-z@]+)(?![A-Za-z@])",
                         lambda mm: macros.get(mm.group(1), mm.group(0)), tex)
        return latex_text(tex)

    out = []
    for m in re.finditer(r"\\begin\s*\{tikzcd\}", code):
        end = code.find("\\end{tikzcd}", m.end())
        if end < 0:
            continue
        body = code[m.end():end]
        k = _skip_ws(body, 0)
        if body.startswith("[", k):
            g = read_balanced(body, k, "[", "]")
            body = body[g[1]:] if g else body
        nodes: dict[tuple[int, int], Node] = {}
        edges: list[Edge] = []
        for r, row in enumerate(_cd_cells(body)):
            for c, cell in enumerate(row):
                first = _CD_ARROW.search(cell)
                text = text_of(cell[:first.start()] if first else cell)
                if text:
                    nodes[(r, c)] = Node(id=f"r{r}c{c}", text=text)
                for a in _CD_ARROW.finditer(cell):
                    arrow = _cd_arrow(cell, a.end())
                    if arrow is None or not _CD_DIR.match(arrow[0] or "-"):
                        continue
                    dirs, label, directed, _ = arrow
                    tr = r + dirs.count("d") - dirs.count("u")
                    tc = c + dirs.count("r") - dirs.count("l")
                    edges.append(Edge(source=f"r{r}c{c}", target=f"r{tr}c{tc}", label=label,
                                      directed=directed))
        ids = {n.id for n in nodes.values()}
        extra = [Node(id=i) for e in edges for i in (e.source, e.target) if i not in ids]
        seen: set[str] = set()
        extra = [n for n in extra if not (n.id in seen or seen.add(n.id))]
        out.append(Graph(nodes=list(nodes.values()) + extra, edges=edges))
    return out


def tikz_source_graphs(code: str, params: GraphParams | None = None
                       ) -> tuple[list[Graph], SourceInfo]:
    """One graph per picture of ``code`` (a document, a picture, or bare statements)."""
    params = params or GraphParams()
    code = strip_comments(code)
    reader = _Reader(params)
    # styles defined anywhere in the document (preamble \tikzset, \tikzstyle); the
    # preamble's plain keys (\tikzset{->, >=stealth}) are every picture's options
    preamble = code.split("\\begin{document}", 1)[0] if "\\begin{document}" in code else ""
    defaults: list[str] = []
    for m in re.finditer(r"\\tikzset\s*\{", code):
        g = read_balanced(code, m.end() - 1, "{", "}")
        if g:
            _parse_styles(g[0], reader.styles)
            if m.start() < len(preamble):
                defaults += [k for k in split_top(g[0]) if "/." not in k and "/" not in
                             k.split("=", 1)[0]]
    for m in re.finditer(r"\\tikzstyle\s*\{([^{}]*)\}\s*\+?=\s*\[", code):
        g = read_balanced(code, m.end() - 1, "[", "]")
        if g:
            reader.styles[m.group(1).strip()] = g[0]
    for m in re.finditer(r"\\(?:newcommand\*?|renewcommand\*?|def)\s*\{?\\([A-Za-z@]+)\}?"
                         r"\s*\{([^{}#]*)\}", code):
        reader.macros[m.group(1)] = m.group(2).strip()
    pics = _pictures(code)
    if not pics and re.search(r"\\(?:node|draw|path)\b", code):
        pics = [("", code)]
    graphs: list[Graph] = []
    for opts, body in pics:
        _parse_styles(opts, reader.styles)
        stmts: list[_Stmt] = []
        reader.statements(body, _Opts(list(defaults)).plus(opts), stmts)
        reader.info.statements += len(stmts)
        pic = _Picture()
        pr = _PathReader(reader, pic)
        pr.declare(stmts)
        for st in stmts:
            pr.statement(st)
        graphs.append(Graph(nodes=list(pic.nodes.values()), edges=pic.edges))
        reader.info.places = {n: (*xy, *pic.sizes[n]) for n, xy in pic.places.items()
                              if n in pic.nodes}
    operators = {m.group(1): m.group(2).strip() for m in re.finditer(
        r"\\DeclareMathOperator\*?\s*\{?\\([A-Za-z@]+)\}?\s*\{([^{}#]*)\}", code)}
    cds = tikzcd_graphs(code, {**reader.macros, **operators})
    graphs += cds
    reader.info.pictures = len(pics) + len(cds)
    return graphs, reader.info


def tikz_source_graph(code: str, params: GraphParams | None = None) -> Graph:
    """All pictures of ``code`` as one graph (ids prefixed ``p<k>:`` when there are several)."""
    graphs, _ = tikz_source_graphs(code, params)
    return combine(graphs)


def tikz_source_layout(code: str, params: GraphParams | None = None
                       ) -> dict[str, tuple[float, float, float, float]]:
    """Node id → (centre x, centre y, width, height) in cm on the page (y down) for the
    nodes whose place the source determines (:mod:`.tikz_layout`); empty when the code has
    several pictures (their relative places on the page are unknown)."""
    graphs, info = tikz_source_graphs(code, params)
    if len(graphs) != 1:
        return {}
    return {n: (x, -y, w, h) for n, (x, y, w, h) in info.places.items()}


def combine(graphs: list[Graph]) -> Graph:
    if len(graphs) == 1:
        return graphs[0]
    nodes: list[Node] = []
    edges: list[Edge] = []
    for k, g in enumerate(graphs, start=1):
        pre = f"p{k}:"
        nodes += [n.model_copy(update={"id": pre + n.id}) for n in g.nodes]
        edges += [e.model_copy(update={"source": pre + e.source if e.source else None,
                                       "target": pre + e.target if e.target else None})
                  for e in g.edges]
    return Graph(nodes=nodes, edges=edges)


# -- geometry of the compiled page ---------------------------------------------------------

def page_primitives(page: pymupdf.Page) -> tuple[list[TextItem], list[PathItem]]:
    """Text lines and drawn paths of one PDF page (points, y down)."""
    texts: list[TextItem] = []
    for block in page.get_text("dict").get("blocks", []):
        for line in block.get("lines", []):
            spans = [s for s in line.get("spans", []) if s.get("text", "").strip()]
            if not spans:
                continue
            text = " ".join("".join(s["text"] for s in line["spans"]).split())
            size = max(s.get("size", 10.0) for s in spans)
            x0, y0, x1, y1 = line["bbox"]
            texts.append(TextItem(text, [x0, y0, x1 - x0, y1 - y0], size))
    paths: list[PathItem] = []
    for d in page.get_drawings():
        filled = "f" in (d.get("type") or "")
        subs: list[tuple[list[tuple[float, float]], list[tuple[float, float]], list[str],
                         bool]] = []
        for item in d.get("items", []):
            op = item[0]
            if op == "re":
                r = item[1]
                subs.append(([(r.x0, r.y0), (r.x1, r.y0), (r.x1, r.y1), (r.x0, r.y1)], [],
                              ["re"], True))
                continue
            if op == "qu":
                q = item[1]
                subs.append(([(p.x, p.y) for p in (q.ul, q.ur, q.lr, q.ll)], [], ["qu"], True))
                continue
            pts = [(p.x, p.y) for p in item[1:]]
            a, b = pts[0], pts[-1]
            if subs and not subs[-1][3] and subs[-1][0] and \
                    abs(subs[-1][0][-1][0] - a[0]) < 0.05 and abs(subs[-1][0][-1][1] - a[1]) < 0.05:
                on, ext, ops, _ = subs[-1]
            else:
                on, ext, ops = [a], [], []
                subs.append((on, ext, ops, False))
            on.append(b)
            ext += pts[1:-1]
            ops.append(op)
        for idx, (on, ext, ops, closed) in enumerate(subs):
            if len(on) < 2:
                continue
            if not closed:
                closed = (bool(d.get("closePath")) and idx == len(subs) - 1) or (
                    len(on) > 3 and abs(on[0][0] - on[-1][0]) < 0.05
                    and abs(on[0][1] - on[-1][1]) < 0.05)
            kind = {"re": "rectangle", "qu": "polygon"}.get(ops[0] if ops else "", "path")
            curved = bool(ops) and all(o == "c" for o in ops)
            if kind == "path" and closed:
                kind = "ellipse" if curved else "polygon"
            paths.append(PathItem(on, closed=closed, filled=filled, curved=curved,
                                  extent=bbox(on + ext), kind=kind,
                                  straight=ops == ["l"]))
    return texts, paths


def pdf_pages(pdf: bytes, params: GraphParams | None = None
              ) -> list[tuple[Graph, list[TextItem]]]:
    """Per page of a PDF (a standalone TikZ file: one per picture): its geometric graph and
    its text lines, as typeset (what :func:`typeset_texts` gives the source's nodes)."""
    params = params or GraphParams()
    doc = pymupdf.open("pdf", pdf)
    try:
        out = []
        for page in doc:
            texts, paths = page_primitives(page)
            out.append((build_graph(texts, paths, params), texts))
        return out
    finally:
        doc.close()


def pdf_graphs(pdf: bytes, params: GraphParams | None = None) -> list[Graph]:
    """One geometric graph per page of a PDF (a standalone TikZ file: one per picture)."""
    return [g for g, _ in pdf_pages(pdf, params)]


def pdf_graph(pdf: bytes, params: GraphParams | None = None) -> Graph:
    return combine(pdf_graphs(pdf, params))


# -- merge ------------------------------------------------------------------------------

def match_by_text_and_structure(source: Graph, geometry: Graph, threshold: float
                                ) -> dict[str, str]:
    """Source id → page id.  Texts that occur once on each side match first; repeated
    texts (three "+" nodes in a parse tree) go, one at a time, to the candidate whose page
    neighbours are the counterparts of the source node's matched neighbours (ties: the most
    similar text, then reading order).  Last, a source node whose text matched nothing takes
    the free page node adjacent to most of its matched neighbours' counterparts, if one
    stands out (by count, then clearly by text similarity)."""
    from diagramforge.graphs.score import candidates, similarity

    cand = candidates(source, geometry, threshold)
    back: dict[str, set[str]] = {}
    for s, gs in cand.items():
        for g in gs:
            back.setdefault(g, set()).add(s)
    snodes = {n.id: n for n in source.nodes}
    gnodes = {n.id: n for n in geometry.nodes}
    gorder = {n.id: k for k, n in enumerate(geometry.nodes)}

    def adjacency(g: Graph) -> dict[str, set[str]]:
        adj: dict[str, set[str]] = {}
        for e in g.attached_edges():
            adj.setdefault(e.source, set()).add(e.target)
            adj.setdefault(e.target, set()).add(e.source)
        return adj

    sadj, gadj = adjacency(source), adjacency(geometry)
    m: dict[str, str] = {}
    for s, gs in cand.items():
        if len(gs) == 1:
            g = next(iter(gs))
            if len(back[g]) == 1:
                m[s] = g
    used = set(m.values())
    while True:
        best: tuple | None = None
        for s in snodes:
            if s in m:
                continue
            for g in cand[s] - used:
                support = sum(1 for t in sadj.get(s, ()) if t in m and m[t] in gadj.get(g, ()))
                key = (support, similarity(snodes[s], gnodes[g]), -gorder[g])
                if best is None or key > best[0]:
                    best = (key, s, g)
        if best is None:
            break
        m[best[1]] = best[2]
        used.add(best[2])
    # nodes whose text never matched (display math, macros): a page node that is the only
    # free neighbour of their matched neighbours' counterparts is theirs
    while True:
        found = False
        for s in snodes:
            if s in m:
                continue
            support: dict[str, int] = {}
            for t in sadj.get(s, ()):
                if t in m:
                    for g in gadj.get(m[t], ()):
                        if g not in used:
                            support[g] = support.get(g, 0) + 1
            if not support:
                continue
            top = max(support.values())
            winners = [g for g, v in support.items() if v == top]
            if len(winners) > 1:  # the texts, too dissimilar to match, may still decide
                sims = sorted(((similarity(snodes[s], gnodes[g]), g) for g in winners),
                              reverse=True)
                if sims[0][0] > sims[1][0] + 0.1:
                    winners = [sims[0][1]]
            if len(winners) == 1:
                m[s] = winners[0]
                used.add(winners[0])
                found = True
        if not found:
            return m


@dataclass
class MergeReport:
    method: str  # "source", "geometry", "none"
    source_nodes: int = 0
    source_edges: int = 0
    geometry_nodes: int = 0
    geometry_edges: int = 0
    matched_nodes: int = 0
    confirmed_edges: int = 0
    """Source edges the page also shows (a page edge between the two matched nodes)."""
    added_edges: int = 0


def _key(text: str) -> str:
    from diagramforge.graphs.score import normalise_text

    return normalise_text(text).replace(" ", "")


def _in_order(short: str, long: str) -> bool:
    """Every character of ``short`` occurs in ``long``, in order (``ball`` in ``ball1``,
    ``inputx∈d`` in ``inputx∈rd``): what the source resolved is all there, the rest is what
    it could not (a counter, a macro, ``\\mathbb``)."""
    it = iter(long)
    return all(c in it for c in short)


def _related(a: str, b: str) -> bool:
    return bool(a) and bool(b) and (_in_order(a, b) or _in_order(b, a))


def typeset_texts(g: Graph, lines: list[TextItem], tolerance: float = 1.0) -> Graph:
    """The source's nodes with the texts the page shows for them: ``ball \\theballcount``
    in a ``\\foreach`` typesets as "ball 1", ``$\\R^d$`` as "Rd" — what a reader of the
    drawing reads, and what a twin of it must say.

    Each text line of the page goes to the smallest node box (from the page, see
    :func:`merge_graphs`) that holds its centre.  A node's lines replace its text when they
    spell it with more (the source's resolved characters in order, :func:`_in_order`); a
    line that spells another node's text or an edge label instead (an edge label drawn
    inside a container's box) is not the node's.  Nodes without a box, or whose lines say
    something else, or that also spell another node's text or an edge label, keep the
    source's text."""
    boxed = [n for n in g.nodes if n.bbox and len(n.bbox) == 4]
    if not boxed or not lines:
        return g
    own: dict[str, list[TextItem]] = {}
    for t in _dedupe(lines):  # a label overprinted (bold, a shadow) is one label
        cx, cy = t.box[0] + t.box[2] / 2, t.box[1] + t.box[3] / 2
        inside = [n for n in boxed
                  if n.bbox[0] - tolerance <= cx <= n.bbox[0] + n.bbox[2] + tolerance  # type: ignore[index]
                  and n.bbox[1] - tolerance <= cy <= n.bbox[1] + n.bbox[3] + tolerance]  # type: ignore[index]
        if inside:
            best = min(inside, key=lambda n: n.bbox[2] * n.bbox[3])  # type: ignore[index]
            own.setdefault(best.id, []).append(t)
    if not own:
        return g
    labels = [(n.id, _key(n.text)) for n in g.nodes] + [
        (None, _key(e.label)) for e in g.edges]
    nodes = []
    for n in g.nodes:
        mine = own.get(n.id)
        k = _key(n.text)
        if mine:
            others = [o for i, o in labels if i != n.id and o]
            kept = [t for t in mine if _related(_key(t.text), k)
                    or not any(_related(_key(t.text), o) for o in others)]
            text = "\n".join(t.text for t in kept)
            new = _key(text)
            # a line PyMuPDF joined across two boxes ("subproject 1 subproject 2") spells a
            # neighbour's text too: not this node's alone
            joined = any(len(o) > 1 and new.count(o) > k.count(o) for o in others)
            if kept and new != k and _in_order(k, new) and not joined:
                n = n.model_copy(update={"text": text})
        nodes.append(n)
    return g.model_copy(update={"nodes": nodes})


def merge_graphs(source: Graph, geometry: Graph, info: SourceInfo | None = None,
                 params: GraphParams | None = None, lines: list[TextItem] | None = None
                 ) -> tuple[Graph, MergeReport]:
    """Source names where they resolve, page geometry where the source is too macro-heavy.

    The source's edges count with their free ends (an arrow from a bare point to a node,
    axes): an edge the source cannot attribute to two nodes stays such an edge — the graph
    is incomplete there — rather than the page's geometry joining the labels it ends near
    (three axes from an unlabelled origin are not a triangle of x, y and z).  With the
    page's ``lines``, node texts are those typeset (:func:`typeset_texts`)."""
    params = params or GraphParams()
    s_edges, g_edges = source.attached_edges(), geometry.attached_edges()
    rep = MergeReport(method="none", source_nodes=len(source.nodes),
                      source_edges=len(s_edges), geometry_nodes=len(geometry.nodes),
                      geometry_edges=len(g_edges))
    m = match_by_text_and_structure(source, geometry, params.match_threshold)
    rep.matched_nodes = len(m)
    use_source = bool(source.nodes) and (
        (source.edges and len(source.edges) >= params.tikz_source_share * len(g_edges))
        or (not g_edges and len(source.nodes) >= len(geometry.nodes) * params.tikz_source_share))
    if not use_source:
        rep.method = "geometry" if geometry.nodes else ("source" if source.nodes else "none")
        return (geometry if geometry.nodes or not source.nodes else source), rep
    rep.method = "source"
    boxes = {n.id: n.bbox for n in geometry.nodes}
    nodes = [n.model_copy(update={"bbox": boxes.get(m[n.id])}) if n.id in m else n
             for n in source.nodes]
    back = {v: k for k, v in m.items()}
    pairs = {frozenset((e.source, e.target)) for e in g_edges}
    rep.confirmed_edges = sum(1 for e in s_edges
                              if e.source in m and e.target in m
                              and frozenset((m[e.source], m[e.target])) in pairs)
    edges = list(source.edges)
    if info is not None and info.unresolved:
        have = {frozenset((e.source, e.target)) for e in s_edges}
        for e in g_edges:
            a, b = back.get(e.source or ""), back.get(e.target or "")
            if a and b and a != b and frozenset((a, b)) not in have:
                edges.append(Edge(source=a, target=b, directed=e.directed,
                                  both_heads=e.both_heads, label=e.label))
                have.add(frozenset((a, b)))
                rep.added_edges += 1
    merged = Graph(nodes=nodes, edges=edges)
    return (typeset_texts(merged, lines) if lines else merged), rep


def tikz_graph(code: str, pdf: bytes | None = None, params: GraphParams | None = None
               ) -> Graph:
    """Graph of a TikZ source, cross-checked with its compiled PDF when given."""
    return tikz_graph_report(code, pdf, params)[0]


def tikz_graph_report(code: str, pdf: bytes | None = None, params: GraphParams | None = None
                      ) -> tuple[Graph, MergeReport]:
    params = params or GraphParams()
    graphs, info = tikz_source_graphs(code, params)
    source = combine(graphs) if graphs else Graph()
    if pdf is None:
        a = source.attached_edges()
        return source, MergeReport(method="source" if source.nodes else "none",
                                   source_nodes=len(source.nodes), source_edges=len(a))
    pages = pdf_pages(pdf, params)
    if len(pages) == len(graphs) and len(graphs) > 1:
        merged = [merge_graphs(s, g, info, params, lines)
                  for s, (g, lines) in zip(graphs, pages, strict=True)]
        rep = MergeReport(method="+".join(sorted({r.method for _, r in merged})))
        for _, r in merged:
            for f in ("source_nodes", "source_edges", "geometry_nodes", "geometry_edges",
                      "matched_nodes", "confirmed_edges", "added_edges"):
                setattr(rep, f, getattr(rep, f) + getattr(r, f))
        return combine([g for g, _ in merged]), rep
    # several pages as one: their coordinates overlap, so no line can be placed in a node
    return merge_graphs(source, combine([g for g, _ in pages]), info, params,
                        pages[0][1] if len(pages) == 1 else None)


def compile_tikz(code: str, timeout_s: float = 60.0) -> bytes | None:
    """Compile a TikZ document (or a bare picture) with the toolkit's sandboxed compiler;
    the document's own preamble is kept (its packages, libraries, styles and macros)."""
    from diagramforge.formats.texcompile import TexCompiler
    from diagramforge.formats.tikz import Standalone

    code = strip_comments(code)
    if "\\begin{document}" in code:
        pre, _, rest = code.partition("\\begin{document}")
        body = rest.rsplit("\\end{document}", 1)[0]
        pre = re.sub(r"\\documentclass\s*(\[[^\]]*\])?\s*\{[^}]*\}", "", pre)
        blocks = [pre.strip()] if pre.strip() else []
    else:
        blocks, body = [r"\usetikzlibrary{arrows,arrows.meta,positioning,shapes,calc,fit,"
                        r"backgrounds}"], code
    if not re.search(r"\\usepackage\s*(\[[^\]]*\])?\s*\{[^}]*(tikz|pgfplots|circuitikz)",
                     "\n".join(blocks)):
        blocks.insert(0, r"\usepackage{tikz}")
    res = TexCompiler(timeout_s=timeout_s, use_format=False, batch=False).compile_one(
        Standalone(blocks=blocks, body=body))
    return res.pdf if res.ok else None
