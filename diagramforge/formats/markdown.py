"""Markdown as a container of diagrams: its fenced code blocks, read by a CommonMark parser
(markdown-it-py), so a block inside a list item or a blockquote counts as GitHub shows it and
a fence shown inside another fence (a README explaining how to write one) does not.

A format whose diagrams people fence in Markdown declares the blocks' languages
(:attr:`~diagramforge.formats.registry.DiagramFormat.fences`); one Markdown file may hold
several formats' blocks, each taken by its own format (``registry.extract``)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from markdown_it import MarkdownIt

SUFFIXES = (".md", ".markdown")
"""The names Markdown files go by (lower-case suffixes)."""

_PARSER = MarkdownIt("commonmark")
_LANGUAGE = re.compile(r"\w[\w+#-]*")


@dataclass(frozen=True)
class Fence:
    """One fenced code block of a document."""

    language: str
    """The info string's first word, lower-case (``mermaid`` of ```` ```Mermaid {x} ````);
    empty when the fence names none."""
    code: str
    """Its content, the fence's indentation (and a blockquote's ``>``) taken off and blank
    lines around it trimmed; an unclosed fence runs to the end of its container."""
    lines: tuple[int, int]
    """The first and last line (1-based) of the block in the file, fences included."""


def named(path: str) -> bool:
    """Whether a file of this name is Markdown."""
    return path.lower().endswith(SUFFIXES)


def fences(text: str) -> tuple[Fence, ...]:
    """Every fenced block of a Markdown document, in the document's order. A document
    without a run of three backticks or tildes holds none and is not parsed: archives hold
    millions of READMEs, almost none with a block."""
    if "```" not in text and "~~~" not in text:
        return ()
    return _fences(text)


@lru_cache(maxsize=4)
def _fences(text: str) -> tuple[Fence, ...]:
    # kept for the few calls on one document: every format's claim, then the extract
    out = []
    for token in _PARSER.parse(text):
        if token.type != "fence" or token.map is None:
            continue
        lang = _LANGUAGE.match(token.info.strip())
        out.append(Fence(lang.group(0).lower() if lang else "", token.content.strip("\n"),
                         (token.map[0] + 1, token.map[1])))
    return tuple(out)


def decode(data: bytes) -> str | None:
    """A Markdown file's text (UTF-8, as every renderer people write it for reads it), or
    ``None`` when it is not text."""
    if b"\0" in data[:4096]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def holds(data: bytes, languages: tuple[str, ...]) -> bool:
    """Whether a Markdown file holds a block in one of ``languages`` (a claim: bytes that
    are not UTF-8 are read with replacements, and refused by the extract). A file that
    never names a language is not parsed: parsing costs ~0.6 ms per KiB, and most READMEs
    with code blocks name none of a diagram's."""
    text = data.decode("utf-8", "replace")
    lowered = text.lower()
    if not any(lang in lowered for lang in languages):
        return False
    return any(f.language in languages for f in fences(text))
