"""Pictures drawn through a document's own environments and macros.

A TeX.SE answer that draws a timeline defines ``\\newenvironment{timeline}{\\begin{tikzpicture}
…}{\\end{tikzpicture}}`` in its preamble and writes ``\\begin{timeline} … \\end{timeline}`` in
its body; another defines ``\\newcommand\\mypic[1]{\\begin{tikzpicture}…#1…\\end{tikzpicture}}``
and calls ``\\mypic{3}``. The body then holds no ``tikzpicture`` at all, and the only one in
the file is half a picture inside a definition. Here such definitions are recognised (their
text opens a picture, or uses another such definition), and each *use* in the body is the
picture: its text is the use, and the minimal document brings the definition by name like any
other macro the picture uses (``preamble.closure``). Pictures found inside the definitions
themselves (a body-level ``\\newcommand`` around a ``tikzpicture``) are not pictures.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from diagramforge.formats.tikz.notation import read_group, read_optional
from diagramforge.formats.tikz.preamble import Definition, Kind, skip_groups

_DEFINERS = re.compile(
    r"\\(?:(?:re|provide)?newcommand|(?:re)?newenvironment|DeclareRobustCommand|"
    r"(?:New|Renew|Provide|Declare)Document(?:Command|Environment)|[egx]?def)\*?(?![A-Za-z@])")
_ARGS = re.compile(r"^\\[A-Za-z]+\*?\s*\{?\s*\\?[^\s{}\[]+\s*\}?\s*\[(\d)\]\s*(\[)?")


@dataclass
class Wrappers:
    """Environments and macros (without backslash) a document defines that draw a picture,
    with the number of arguments a use takes (``None``: as many groups as follow)."""

    environments: set[str] = field(default_factory=set)
    macros: dict[str, int | None] = field(default_factory=dict)
    texts: dict[str, str] = field(default_factory=dict)
    """Each wrapper's definition: what a use of it draws (its size is the picture's)."""

    def __bool__(self) -> bool:
        return bool(self.environments or self.macros)


def _opens_picture(text: str, environments: list[str], commands: list[str]) -> bool:
    envs = "|".join(re.escape(e) for e in environments)
    cmds = "|".join(re.escape(c) for c in [*commands, *(e for e in environments)])
    return re.search(rf"\\begin\s*\{{(?:{envs})\}}|\\(?:{cmds})(?![A-Za-z@])", text) is not None


def _nargs(d: Definition) -> int | None:
    m = _ARGS.match(d.text)
    if m:
        return int(m.group(1))
    if re.match(r"\\[egx]?def", d.text):
        head = d.text.split("{", 1)[0]
        return len(re.findall(r"#\d", head))
    if "Document" in d.text.split("{", 1)[0]:
        return None
    return 0


def find_wrappers(defs: list[Definition], environments: list[str],
                  commands: list[str]) -> Wrappers:
    """The definitions that draw a picture, directly or through another one (to a fixpoint)."""
    out = Wrappers()
    cands = [d for d in defs if d.kind in (Kind.ENVIRONMENT, Kind.MACRO) and d.defines]
    changed = True
    while changed:
        changed = False
        for d in cands:
            names = {n.lstrip("\\") for n in d.defines}
            if names <= out.environments | set(out.macros):
                continue
            text = d.text
            uses = (_opens_picture(text, environments, commands)
                    or any(re.search(rf"\\begin\s*\{{{re.escape(e)}\}}", text)
                           for e in out.environments)
                    or any(re.search(rf"\\{re.escape(m)}(?![A-Za-z@])", text)
                           for m in out.macros))
            if not uses:
                continue
            if d.kind == Kind.ENVIRONMENT:
                out.environments |= names
            else:
                out.macros.update({n: _nargs(d) for n in names})
            out.texts.update({n: text for n in names})
            changed = True
    return out


def macro_spans(body: str, name: str, nargs: int | None) -> list[tuple[int, int]]:
    """Spans of the uses of ``\\name`` with their arguments (``[..]`` and ``{..}`` groups)."""
    spans = []
    for m in re.finditer(rf"\\{re.escape(name)}(?![A-Za-z@])", body):
        if nargs is None:
            end = skip_groups(body, m.end())
        else:
            end = m.end()
            opt, pos = read_optional(body, end)
            end = pos if opt is not None else end
            for _ in range(nargs - (1 if opt is not None else 0)):
                g = read_group(body, end)
                if not g:
                    break
                end = g[1]
        spans.append((m.start(), end))
    return spans


def definition_spans(body: str) -> list[tuple[int, int]]:
    """Where the body defines macros and environments (``\\newcommand…{…}``): text there is
    a definition, not a picture."""
    spans = []
    for m in _DEFINERS.finditer(body):
        pos = m.end()
        if m.group(0).lstrip("\\").rstrip("*").endswith("def"):  # \def\name#1#2{…}
            mm = re.match(r"\s*\\(?:[A-Za-z@]+|.)[^{]*", body[pos:])
        else:  # \newcommand{\name}… or \newcommand\name…, \newenvironment{name}…
            mm = re.match(r"\s*(?:\{[^{}]*\}|\\(?:[A-Za-z@]+|.))", body[pos:])
        pos += mm.end() if mm else 0
        spans.append((m.start(), skip_groups(body, pos)))
    return spans


def draws_elsewhere(text: str, wrappers: Wrappers, environments: list[str],
                    commands: list[str]) -> bool:
    """Whether the document (``text``: preamble and body, comments stripped) opens a picture
    somewhere no picture was found and no known wrapper's definition accounts for: a
    ``\\sbox`` of a tikzpicture used by ``\\usebox``, a picture in ``\\AtBeginDocument``, a
    definition of a form not read here.  Such a document draws a picture the extractor
    cannot delimit; it is then taken whole (its body on the ladder's last rung), never
    ``no_diagrams``.  A wrapper defined and never used draws nothing and is not counted."""
    for own in sorted(set(wrappers.texts.values()), key=len, reverse=True):
        text = text.replace(own, "")
    return _opens_picture(text, environments, commands)
