"""Parse a LaTeX preamble into definitions and pick the ones a picture needs, transitively.

A picture lifted out of a paper compiles alone only if it brings the packages, TikZ
libraries, styles, colours and macros it uses — and whatever *those* use.  Each preamble
statement becomes a :class:`Definition` with the names it defines and the names it
mentions; :func:`closure` walks from the picture's own names to a fixpoint.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum

from diagramforge.formats.latex import control_sequences, read_group, read_optional, words


class Kind(StrEnum):
    PACKAGE = "package"
    LIBRARY = "library"
    SETTING = "setting"  # global settings that affect every picture (always kept)
    STYLE = "style"
    COLOUR = "colour"
    MACRO = "macro"
    ENVIRONMENT = "environment"
    OTHER = "other"


@dataclass
class Definition:
    kind: Kind
    text: str
    defines: set[str] = field(default_factory=set)
    uses: set[str] = field(default_factory=set)
    packages: tuple[str, ...] = ()


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
# "\cmd{name}{...}..." statements whose first group is the name they define
_NAMED_BY_FIRST_GROUP = {
    "pgfmathdeclarefunction": Kind.MACRO,
    "newenvironment": Kind.ENVIRONMENT,
    "renewenvironment": Kind.ENVIRONMENT,
    "NewDocumentEnvironment": Kind.ENVIRONMENT,
}
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


def _skip_groups(text: str, pos: int, max_groups: int = 6) -> int:
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


def _split_top(text: str) -> list[str]:
    """Split on commas at brace/bracket depth 0."""
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return [p for p in parts if p.strip()]


def _uses(text: str) -> set[str]:
    return {"\\" + c for c in control_sequences(text)} | words(text)


def _make(
    kind: Kind,
    text: str,
    defines: set[str],
    inner: str | None = None,
    packages: tuple[str, ...] = (),
) -> Definition:
    return Definition(
        kind=kind,
        text=text.strip(),
        defines=defines,
        uses=_uses(inner if inner is not None else text) - defines,
        packages=packages,
    )


def parse_preamble(preamble: str) -> list[Definition]:
    """Turn preamble text into an ordered list of definitions."""
    defs: list[Definition] = []
    i, n = 0, len(preamble)
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
            i = _skip_groups(preamble, pos)
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
            for entry in _split_top(g[0]):
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
            end = _skip_groups(preamble, g[1], 2 if cmd != "colorlet" else 1)
            defs.append(
                _make(Kind.COLOUR, preamble[start:end], {g[0].strip()}, preamble[g[1] : end])
            )
            pos = end
        elif cmd in _DEF_COMMANDS or cmd == "DeclareMathOperator":
            name, pos2 = _cs_name(preamble, pos)
            end = _skip_groups(preamble, pos2)
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
            g = read_group(preamble, pos)
            if not g:
                i = pos
                continue
            end = _skip_groups(preamble, g[1])
            kind = _NAMED_BY_FIRST_GROUP[cmd]
            defs.append(_make(kind, preamble[start:end], {g[0].strip()}, preamble[g[1] : end]))
            pos = end
        elif cmd in SETTING_COMMANDS:
            end = _skip_groups(preamble, pos)
            defs.append(_make(Kind.SETTING, preamble[start:end], set()))
            pos = end
        elif cmd in (
            "pgfmathsetmacro",
            "newlength",
            "setlength",
            "newcounter",
            "setcounter",
            "newif",
            "pgfmathsetlengthmacro",
            "newsavebox",
        ):
            name, pos2 = _cs_name(preamble, pos)
            if cmd in ("newcounter", "setcounter"):
                g = read_group(preamble, pos)
                name = g[0].strip() if g else None
            end = _skip_groups(preamble, pos2 if cmd not in ("newcounter", "setcounter") else pos)
            if cmd == "newif" and name and name.startswith("if"):
                defines = {"\\" + name, "\\" + name[2:] + "true", "\\" + name[2:] + "false"}
            else:
                defines = {"\\" + name} if name else set()
            defs.append(_make(Kind.MACRO, preamble[start:end], defines, preamble[pos2:end]))
            pos = end
        else:
            pos = _skip_groups(preamble, pos)
        i = max(pos, j + 1)
    return defs


def closure(defs: list[Definition], picture: str) -> list[Definition]:
    """The definitions a picture needs, in preamble order.

    Packages, libraries and settings are always kept (their effects are global and cannot
    be traced by name); styles, colours, macros and environments only when reached.
    """
    needed = _uses(picture)
    chosen: set[int] = set()
    changed = True
    while changed:
        changed = False
        for k, d in enumerate(defs):
            if k in chosen:
                continue
            keep = d.kind in (Kind.PACKAGE, Kind.LIBRARY, Kind.SETTING) or bool(d.defines & needed)
            if keep:
                chosen.add(k)
                needed |= d.uses
                changed = True
    return [d for k, d in enumerate(defs) if k in chosen]
