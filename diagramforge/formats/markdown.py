"""Diagram blocks fenced in Markdown, for every format that a Markdown file may carry
(```` ```mermaid ````, ```` ```plantuml ````): one reading of CommonMark's fences, so a format
added later takes its blocks the same way (an unclosed fence runs to the end of the
document; the fence's own indentation is taken off each line)."""

from __future__ import annotations

import re


def fence(*languages: str) -> re.Pattern[str]:
    """The opening fence of a block in one of ``languages`` (its info string's first word,
    any case), up to three spaces indented, of backticks or tildes."""
    names = "|".join(re.escape(n) for n in languages)
    return re.compile(rf"^(?P<indent> {{0,3}})(?P<fence>`{{3,}}|~{{3,}})[ \t]*(?:{names})\b"
                      r"[^\n]*\n", re.M | re.I)


def fenced_blocks(text: str, opening: re.Pattern[str]) -> list[str]:
    """The contents of the blocks ``opening`` (see :func:`fence`) begins, in order, each
    with its fence's indentation taken off and blank lines around it trimmed; empty blocks
    included (the caller decides what an empty block is)."""
    out, pos = [], 0
    while True:
        m = opening.search(text, pos)
        if not m:
            return out
        mark = m.group("fence")
        close = re.compile(rf"^ {{0,3}}{re.escape(mark[0])}{{{len(mark)},}}[ \t]*$", re.M)
        c = close.search(text, m.end())
        end = c.start() if c else len(text)
        indent = len(m.group("indent"))
        lines = [ln[min(indent, len(ln) - len(ln.lstrip(" "))):]
                 for ln in text[m.end():end].splitlines()]
        out.append("\n".join(lines).strip("\n"))
        pos = c.end() if c else len(text)
