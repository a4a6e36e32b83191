"""Parse a LaTeX preamble into definitions and pick the ones a picture needs, transitively.

A picture lifted out of a paper compiles alone only if it brings the packages, TikZ
libraries, styles, colours and macros it uses — and whatever *those* use.  Each preamble
statement becomes a :class:`Definition` with the names it defines and the names it
mentions; :func:`closure` walks from the picture's own names to a fixpoint.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum

from diagramforge.formats.tikz.notation import (
    control_sequences,
    read_group,
    read_optional,
    split_top,
    words,
)


class Kind(StrEnum):
    PACKAGE = "package"
    LIBRARY = "library"
    SETTING = "setting"  # global settings that affect every picture (always kept)
    STYLE = "style"
    COLOUR = "colour"
    MACRO = "macro"
    ENVIRONMENT = "environment"
    STATEMENT = "statement"  # a picture-family statement we do not model (\tdplotset…)
    OTHER = "other"


@dataclass
class Definition:
    kind: Kind
    text: str
    defines: set[str] = field(default_factory=set)
    uses: set[str] = field(default_factory=set)
    packages: tuple[str, ...] = ()
    inner: str = ""  # the text whose names this definition needs (for the closure)


# Packages that only shape the page, bibliography or links: a standalone picture never needs
# them, and several (geometry, hyperref, conference styles) break or slow the standalone class.
SKIP_PACKAGES = frozenset(
    [
        "hyperref",
        "geometry",
        "fancyhdr",
        "natbib",
        "biblatex",
        "cleveref",
        "lineno",
        "authblk",
        "titlesec",
        "caption",
        "subcaption",
        "subfig",
        "float",
        "wrapfig",
        "import",
        "subfiles",
        "showframe",
        "background",
        "draftwatermark",
        "hyperxmp",
        "bookmark",
        "microtype",
        "cite",
        "url",
        "balance",
        "multicol",
        "setspace",
        "booktabs",
        "fullpage",
        "times-nothing",
        "appendix",
        "enumitem",
        "tocloft",
        "titling",
        "abstract",
        "footmisc",
        "placeins",
        "afterpage",
        "etoc",
        "minitoc",
        "nomencl",
        "glossaries",
        "makeidx",
        "index",
        "hypcap",
        "doi",
        "orcidlink",
        # preview/standalone shape pages: the standalone class loads preview itself, and a
        # second load with `active` swallows every page that is not a preview environment
        "preview",
        "standalone",
        # packages that refuse to load without shell escape (code listings, Python,
        # Inkscape/gnuplot calls): the sandbox never grants it, and pictures do not use them
        "minted",
        "pythontex",
        "svg",
        "gnuplottex",
        "shellesc",
    ]
)
# Commands whose statement globally configures pictures; kept whenever present.
SETTING_COMMANDS = frozenset(
    [
        "pgfplotsset",
        "PassOptionsToPackage",
        "pgfkeyssetvalue",
        "tikzcdset",
        "ctikzset",
        "forestset",
        "pgfdeclarelayer",
        "pgfsetlayers",
        "usepgfplotslibrary",
        "usepgflibrary",
        "pgfkeys",
    ]
)
_DEF_COMMANDS = {
    "newcommand",
    "renewcommand",
    "providecommand",
    "DeclareRobustCommand",
    "NewDocumentCommand",
    "RenewDocumentCommand",
    "ProvideDocumentCommand",
    "DeclareDocumentCommand",
}
# "\cmd[opt]{name}{...}..." statements whose first group is the name they define: a random
# list, a shading, an image, a pattern, a shape, a plot cycle list is used by that name
_NAMED_BY_FIRST_GROUP = {
    "pgfmathdeclarefunction": Kind.MACRO,
    "newenvironment": Kind.ENVIRONMENT,
    "renewenvironment": Kind.ENVIRONMENT,
    "NewDocumentEnvironment": Kind.ENVIRONMENT,
    "RenewDocumentEnvironment": Kind.ENVIRONMENT,
    "ProvideDocumentEnvironment": Kind.ENVIRONMENT,
    "DeclareDocumentEnvironment": Kind.ENVIRONMENT,
    # the environ package's (a TeX.SE idiom: \NewEnviron{timeline}{\begin{tikzpicture}\BODY…})
    "NewEnviron": Kind.ENVIRONMENT,
    "RenewEnviron": Kind.ENVIRONMENT,
    "pgfmathdeclarerandomlist": Kind.MACRO,
    "pgfdeclareradialshading": Kind.STYLE,
    "pgfdeclarehorizontalshading": Kind.STYLE,
    "pgfdeclareverticalshading": Kind.STYLE,
    "pgfdeclarefunctionalshading": Kind.STYLE,
    "pgfdeclareimage": Kind.MACRO,
    "pgfdeclaremask": Kind.MACRO,
    "pgfdeclarepatternformonly": Kind.STYLE,
    "pgfdeclarepatterninherentlycolored": Kind.STYLE,
    "pgfdeclareshape": Kind.STYLE,
    "pgfdeclaredecoration": Kind.STYLE,
    "pgfdeclaremetadecoration": Kind.STYLE,
    "pgfdeclareplotmark": Kind.STYLE,
    "pgfplotscreateplotcyclelist": Kind.STYLE,
    "newcounter": Kind.MACRO,
}
# Statements of these families configure pictures even when we do not model them
# (\tdplotsetmaincoords, \pgfdeclarearrow, \tikzfading…): kept as settings, never dropped.
_PICTURE_FAMILIES = re.compile(r"(?:pgf|tikz|tdplot|tkz|ctikz|forest|pgfplots)[A-Za-z@]*")
_TEX_DEFS = {"def", "gdef", "edef", "xdef"}
_STYLE_KEY = re.compile(
    r"^\s*([^=/]+?)\s*/\.(?:style|append style|prefix style|code|pic|"
    r"style 2 args|style n args|estyle)"
)


def _cs_name(text: str, pos: int) -> tuple[str | None, int]:
    """Read ``{\\name}`` or ``\\name`` at pos."""
    g = read_group(text, pos)
    if g:
        m = re.match(r"\s*\\([A-Za-z@]+|.)", g[0])
        return (m.group(1) if m else None), g[1]
    m = re.match(r"\s*\\([A-Za-z@]+|.)", text[pos:])
    return (m.group(1), pos + m.end()) if m else (None, pos)


def skip_groups(text: str, pos: int, max_groups: int = 6) -> int:
    """Consume following ``[..]``/``{..}`` groups (for statements we do not model)."""
    for _ in range(max_groups):
        opt = read_group(text, pos, "[", "]")
        if opt:
            pos = opt[1]
            continue
        g = read_group(text, pos)
        if not g:
            break
        pos = g[1]
    return pos


def _uses(text: str) -> set[str]:
    return {"\\" + c for c in control_sequences(text)} | words(text)


def _make(
    kind: Kind,
    text: str,
    defines: set[str],
    inner: str | None = None,
    packages: tuple[str, ...] = (),
) -> Definition:
    body = inner if inner is not None else text
    return Definition(
        kind=kind,
        text=text.strip(),
        defines=defines,
        uses=_uses(body) - defines,
        packages=packages,
        inner=body,
    )


def _depths(text: str) -> Callable[[int], int]:
    """Brace depth at each position (escaped braces ignored), computed once per text: an
    unmodelled statement is a setting only at top level, never inside a macro's body."""
    depth, marks = 0, [0] * (len(text) + 1)
    prev = ""
    for k, ch in enumerate(text):
        marks[k] = depth
        if prev != "\\":
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth = max(0, depth - 1)
        prev = ch if not (prev == "\\" and ch == "\\") else ""
    marks[len(text)] = depth
    return marks.__getitem__


def parse_preamble(preamble: str) -> list[Definition]:
    """Turn preamble text into an ordered list of definitions."""
    defs: list[Definition] = []
    i, n = 0, len(preamble)
    depth_at = _depths(preamble)
    while i < n:
        j = preamble.find("\\", i)
        if j < 0:
            break
        m = re.match(r"\\([A-Za-z@]+)(\*?)", preamble[j:])
        if not m:
            i = j + 2
            continue
        cmd = m.group(1)
        pos = j + m.end()
        start = j
        if cmd == "documentclass":
            i = skip_groups(preamble, pos)
            continue
        if cmd in ("usepackage", "RequirePackage"):
            opt, pos = read_optional(preamble, pos)
            g = read_group(preamble, pos)
            if not g:
                i = pos
                continue
            pos = g[1]
            pos = read_optional(preamble, pos)[1]  # [date]
            names = tuple(p.strip() for p in g[0].split(",") if p.strip())
            kept = tuple(p for p in names if p not in SKIP_PACKAGES)
            if kept:
                text = f"\\usepackage{'[' + opt + ']' if opt else ''}{{{','.join(kept)}}}"
                defs.append(Definition(Kind.PACKAGE, text, packages=kept))
        elif cmd in ("usetikzlibrary",):
            g = read_group(preamble, pos)
            pos = g[1] if g else pos
            defs.append(Definition(Kind.LIBRARY, preamble[start:pos].strip()))
        elif cmd == "tikzset":
            g = read_group(preamble, pos)
            if not g:
                i = pos
                continue
            pos = g[1]
            if ".cd" in g[0]:
                # a path change (`pics/.cd, …`) scopes every entry after it: one statement
                defs.append(_make(Kind.SETTING, preamble[start:pos], set()))
                i = max(pos, j + 1)
                continue
            for entry in split_top(g[0]):
                mk = _STYLE_KEY.match(entry)
                if mk and not mk.group(1).strip().startswith("every "):
                    name = mk.group(1).strip()
                    value = entry.split("=", 1)[1] if "=" in entry else ""
                    defs.append(_make(Kind.STYLE, f"\\tikzset{{{entry.strip()}}}", {name}, value))
                else:
                    defs.append(_make(Kind.SETTING, f"\\tikzset{{{entry.strip()}}}", set()))
        elif cmd == "tikzstyle":
            g = read_group(preamble, pos)
            if not g:
                i = pos
                continue
            pos = g[1]
            mm = re.match(r"\s*\+?=\s*", preamble[pos:])
            if mm:
                pos += mm.end()
                opt = read_group(preamble, pos, "[", "]")
                pos = opt[1] if opt else pos
            name = g[0].strip()
            # "every node", "every state"…: applied implicitly, so always needed
            kind = Kind.SETTING if name.startswith("every ") else Kind.STYLE
            defines = set() if kind == Kind.SETTING else {name}
            defs.append(_make(kind, preamble[start:pos], defines, preamble[g[1] : pos]))
        elif cmd in ("definecolor", "colorlet", "providecolor"):
            pos = read_optional(preamble, pos)[1]
            g = read_group(preamble, pos)
            if not g:
                i = pos
                continue
            end = skip_groups(preamble, g[1], 2 if cmd != "colorlet" else 1)
            defs.append(
                _make(Kind.COLOUR, preamble[start:end], {g[0].strip()}, preamble[g[1] : end])
            )
            pos = end
        elif cmd in _DEF_COMMANDS or cmd == "DeclareMathOperator":
            name, pos2 = _cs_name(preamble, pos)
            end = skip_groups(preamble, pos2)
            if name:
                defs.append(
                    _make(Kind.MACRO, preamble[start:end], {"\\" + name}, preamble[pos2:end])
                )
            pos = end
        elif cmd in _TEX_DEFS:
            mm = re.match(r"\s*\\([A-Za-z@]+|.)([^{]*)", preamble[pos:])
            if not mm:
                i = pos
                continue
            g = read_group(preamble, pos + mm.end())
            end = g[1] if g else pos + mm.end()
            defs.append(
                _make(
                    Kind.MACRO,
                    preamble[start:end],
                    {"\\" + mm.group(1)},
                    preamble[pos + mm.end() : end],
                )
            )
            pos = end
        elif cmd == "let":
            mm = re.match(r"\s*\\([A-Za-z@]+|.)\s*=?\s*\\([A-Za-z@]+|.)", preamble[pos:])
            if not mm:
                i = pos
                continue
            end = pos + mm.end()
            defs.append(
                _make(Kind.MACRO, preamble[start:end], {"\\" + mm.group(1)}, "\\" + mm.group(2))
            )
            pos = end
        elif cmd in _NAMED_BY_FIRST_GROUP:
            pos = read_optional(preamble, pos)[1]
            g = read_group(preamble, pos)
            if not g:
                i = pos
                continue
            end = skip_groups(preamble, g[1])
            kind = _NAMED_BY_FIRST_GROUP[cmd]
            name = g[0].strip()
            defines = {name}
            if cmd == "newcounter":  # used as \value{name}, \thename, \arabic{name}…
                end = read_optional(preamble, g[1])[1]
                defines |= {"\\the" + name, "\\c@" + name}
            defs.append(_make(kind, preamble[start:end], defines, preamble[g[1] : end]))
            pos = end
        elif cmd in SETTING_COMMANDS:
            end = skip_groups(preamble, pos)
            defs.append(_make(Kind.SETTING, preamble[start:end], set()))
            pos = end
        elif cmd in (
            "pgfmathsetmacro",
            "newlength",
            "setlength",
            "setcounter",
            "newif",
            "pgfmathsetlengthmacro",
            "newsavebox",
        ):
            name, pos2 = _cs_name(preamble, pos)
            if cmd == "setcounter":
                g = read_group(preamble, pos)
                name = g[0].strip() if g else None
            end = skip_groups(preamble, pos2 if cmd != "setcounter" else pos)
            if cmd == "newif" and name and name.startswith("if"):
                defines = {"\\" + name, "\\" + name[2:] + "true", "\\" + name[2:] + "false"}
            else:
                defines = {"\\" + name} if name else set()
            defs.append(_make(Kind.MACRO, preamble[start:end], defines, preamble[pos2:end]))
            pos = end
        elif _PICTURE_FAMILIES.fullmatch(cmd) and depth_at(j) == 0:
            end = skip_groups(preamble, pos)
            defs.append(_make(Kind.STATEMENT, preamble[start:end], set()))
            pos = end
        else:
            pos = skip_groups(preamble, pos)
        i = max(pos, j + 1)
    return defs


ALWAYS_KEPT = frozenset({Kind.PACKAGE, Kind.LIBRARY, Kind.SETTING, Kind.STATEMENT})


def closure(defs: list[Definition], picture: str) -> list[Definition]:
    """The definitions a picture needs, in preamble order.

    Packages, libraries and settings are always kept (their effects are global and cannot
    be traced by name); styles, colours, macros and environments only when one of their
    names occurs in the picture or in a definition already kept.  Names are searched in the
    text itself, not in a tokenisation of it, because TikZ names may hold spaces, ``+``,
    ``-`` or digits (``\\tikzstyle{case 2048+}``).
    """
    text = picture
    chosen: set[int] = set()
    changed = True
    while changed:
        changed = False
        for k, d in enumerate(defs):
            if k in chosen:
                continue
            keep = d.kind in ALWAYS_KEPT or any(
                _mentions(text, name) for name in d.defines)
            if keep:
                chosen.add(k)
                text += "\n" + (d.inner or d.text)
                changed = True
    return [d for k, d in enumerate(defs) if k in chosen]


def _mentions(text: str, name: str) -> bool:
    return _name_pattern(name).search(text) is not None


@functools.lru_cache(maxsize=4096)
def _name_pattern(name: str) -> re.Pattern[str]:
    if name.startswith("\\"):
        return re.compile(re.escape(name) + r"(?![A-Za-z@])")
    parts = [re.escape(p) for p in name.split()]
    return re.compile(r"(?<![A-Za-z0-9@])" + r"\s+".join(parts) + r"(?![A-Za-z0-9@])")
