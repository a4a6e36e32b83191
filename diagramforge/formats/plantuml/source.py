"""PlantUML text: the diagrams of a file or of a Markdown document, and what is refused
before the engine ever sees it.

A ``.puml`` file may hold several diagrams, each ``@startuml … @enduml`` (or another kind's
pair: ``@startmindmap``, ``@startgantt``…); each is a record.  Markdown holds them in
```` ```plantuml ```` or ```` ```puml ```` fences, with or without the ``@start`` line (the
renderers people write for — GitLab, Kroki, MkDocs — accept both); a fence without one is
given ``@startuml``/``@enduml``.

Safety.  PlantUML's preprocessor reaches outside the text: ``!include`` (files, URLs, the
standard library), ``!includeurl``, ``!includesub``, ``!includedef``, ``!import`` (a jar or
zip), ``%getenv``/``!getenv`` (the environment), ``%filename``/``%dirpath`` (where it runs),
``%file_exists``, ``%load_json`` (newer versions), ``%date`` (the clock: a render must be a
function of the text), ``!dump_memory``, ``!theme … from`` (newer versions), images and
sprites from files or URLs (``<img:…>``, ``<img src=…>``, ``sprite $x path``), and raw DOT
(``@startdot``, or a ``digraph`` inside ``@startuml``: Graphviz's ``image``/``shapefile``
read files).  Each is refused here with a reason that names it.  The one include kept is
the standard library shipped inside the jar (``!include <tupadr3/…>``): it reads nothing
but the jar.  This is the first wall; the engine runs with PlantUML's own safe mode
(``driver.py``) and inside the sandbox (``engine.py``), which refuses files and network
whatever the text manages.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from diagramforge.formats.plantuml.engine import PumlError, PumlReason

SUFFIXES = (".puml", ".plantuml", ".pu")
"""The names PlantUML files go by (``.iuml`` include fragments hold no diagram of their own
and are left out)."""

_START = re.compile(r"^[ \t]*@start(?P<kind>[a-z]+)\b[^\n]*$", re.M | re.I)


def split_diagrams(text: str) -> list[str]:
    """The diagrams of a PlantUML file, each from its ``@start<kind>`` line to the matching
    ``@end<kind>`` (a missing end: to the next start or the end of the file), as written."""
    out: list[str] = []
    pos = 0
    while True:
        m = _START.search(text, pos)
        if not m:
            return out
        kind = m.group("kind").lower()
        end = re.compile(rf"^[ \t]*@end{kind}\b[^\n]*$", re.M | re.I).search(text, m.end())
        nxt = _START.search(text, m.end())
        if end is None or (nxt is not None and nxt.start() < end.start()):
            stop = nxt.start() if nxt else len(text)
            body = text[m.start():stop].rstrip() + f"\n@end{kind}\n"
            pos = stop
        else:
            body = text[m.start():end.end()] + "\n"
            pos = end.end()
        out.append(body.lstrip(" \t"))


def fence_diagrams(block: str) -> list[str]:
    """The diagrams of one PlantUML fenced block of a Markdown document, each whole
    (``@startuml``/``@enduml`` added when the block has no ``@start`` line); none when it
    is blank."""
    if not block.strip():
        return []
    return split_diagrams(block) or [f"@startuml\n{block}\n@enduml\n"]


@dataclass(frozen=True)
class Caps:
    max_bytes: int = 200_000
    max_lines: int = 5_000


_STDLIB = re.compile(r"^<[A-Za-z0-9_][\w./-]*>$")
_RULES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^\s*!include(?:url|sub|def|_many|_once)?\b[ \t]*(?P<arg>[^\n]*)", re.M | re.I),
     "include"),
    (re.compile(r"^\s*!import\b", re.M | re.I), "!import reads a jar or zip file"),
    (re.compile(r"%(?:get_?env|getenv)\s*\(|^\s*!getenv\b", re.M | re.I),
     "%getenv reads the environment"),
    (re.compile(r"%(?:load_json|file_exists|filename|dirpath|get_all_\w+)\s*\(", re.I),
     "reads files or names where it runs"),
    (re.compile(r"%date\s*\(|%now\s*\(", re.I), "%date draws the clock (not a function of "
                                                "the text)"),
    (re.compile(r"^\s*!dump_memory\b", re.M | re.I), "!dump_memory writes the preprocessor's "
                                                     "memory out"),
    (re.compile(r"^\s*!theme\b[^\n]*\bfrom\b", re.M | re.I), "!theme … from reads a file or URL"),
    (re.compile(r"<\s*img\s*:", re.I), "<img:…> embeds an image file or URL"),
    (re.compile(r"<\s*img\s+src\s*=", re.I), "<img src=…> embeds an image file or URL"),
    (re.compile(r"^\s*!pragma\s+(?:svek_trace|graphviz_dot\s+(?!smetana\b|jdot\b|vizjs\b)\S)",
                re.M | re.I), "!pragma that writes trace files or names a program"),
    (re.compile(r"^\s*skinparam\s+(?:svgLinkTarget|dotExecutable)\b", re.M | re.I),
     "skinparam that names a program"),
    (re.compile(r"^\s*@startdot\b|^\s*@startuml[^\n]*\n(?:\s*(?:'[^\n]*)?\n)*\s*"
                r"(?:strict\s+)?(?:di)?graph\b[^\n{]*\{", re.M | re.I),
     "raw Graphviz DOT (its image and shapefile attributes read files): Graphviz's "
     "language, not PlantUML's"),
]
_SPRITE = re.compile(r"^\s*sprite\s+\$?[\w-]+\s+(?P<rest>[^\n]*)$", re.M | re.I)
_SPRITE_INLINE = re.compile(r"^(?:\[\d+x\d+(?:/\d+z?)?\]\s*)?(?:\{.*|[A-Za-z0-9_$\-]+)?\s*$")
_URL = re.compile(r"\b(?:https?|ftp|file|jar):", re.I)


def check(code: str, caps: Caps = Caps()) -> None:
    """Refuse a diagram PlantUML should not run: too large, or reaching outside its text
    (:class:`PumlError`, ``plantuml_too_large`` / ``plantuml_unsafe``, the detail naming
    the construct and its line)."""
    size = len(code.encode("utf-8"))
    if size > caps.max_bytes:
        raise PumlError(PumlReason.TOO_LARGE, f"{size} bytes > {caps.max_bytes}")
    lines = code.count("\n") + 1
    if lines > caps.max_lines:
        raise PumlError(PumlReason.TOO_LARGE, f"{lines} lines > {caps.max_lines}")
    hits = sorted(((m.start(), k, m) for k, (pattern, _) in enumerate(_RULES)
                   for m in pattern.finditer(code)), key=lambda h: (h[0], h[1]))
    for _, k, m in hits:  # the first construct in the text is the one named
        why = _RULES[k][1]
        if why == "include":
            arg = m.group("arg").strip()
            directive = m.group(0).strip().split()[0]
            if directive.lower() == "!include" and _STDLIB.match(arg) and ".." not in arg:
                continue  # the standard library inside the jar
            raise PumlError(PumlReason.UNSAFE, f"{directive} {arg[:80]!r} (line "
                            f"{_line(code, m.start())}): reads a file or URL")
        raise PumlError(PumlReason.UNSAFE, f"{why} (line {_line(code, m.start())}: "
                        f"{_excerpt(code, m.start())!r})")
    for m in _SPRITE.finditer(code):
        rest = m.group("rest").strip()
        if _URL.search(rest) or not _SPRITE_INLINE.match(rest):
            raise PumlError(PumlReason.UNSAFE, f"sprite from a file or URL (line "
                            f"{_line(code, m.start())}: {_excerpt(code, m.start())!r})")


def _line(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1 + (text[pos:pos + 1] == "\n")


def _excerpt(text: str, pos: int) -> str:
    lo = text.rfind("\n", 0, pos + 1) + 1 if text[pos:pos + 1] != "\n" else pos + 1
    hi = text.find("\n", lo)
    return text[lo:hi if hi >= 0 else len(text)].strip()[:100]
