"""The ``snippet`` capability: TikZ code shown alone — a Stack Exchange post's code block —
as a source of pictures.

A stage holding code blocks (the crawl reading a dump, the extract stage reading a post)
asks every format with this capability whether a block is its (:func:`claims`) and for the
block's records (:func:`records`); it names no format.

Each block goes through the path a repository's TeX file takes
(:func:`~diagramforge.formats.tikz.tex_file.tex_file_records`: the paper extractor, so the
standalone documents, the preamble ladder and the unsafe-code check are the arXiv ones).  A
complete document (``\\documentclass``…) is taken as written; a fragment — most answers show
just the ``tikzpicture``, often after the ``\\usepackage``/``\\usetikzlibrary`` lines it
needs — is put in the smallest document, with those lines moved to its preamble, where
they take effect (in the body a package cannot load, and the extractor keeps only the
body's styles and macros).
"""

from __future__ import annotations

import re
from functools import cache
from typing import TYPE_CHECKING

from diagramforge.formats.tikz.pictures import find_pictures
from diagramforge.formats.tikz.preamble import Kind, parse_preamble
from diagramforge.store.records import Rejection, Unit

if TYPE_CHECKING:
    from diagramforge.formats.settings import ExtractSettings, TikzExtractParams

SECTIONS = ("extract.tikz",)
"""The settings :func:`claims` reads (which environments and commands make a picture): a
stage that keeps or drops a post by its claim depends on them."""

_HOISTED = (Kind.PACKAGE, Kind.LIBRARY)


@cache
def _marks(environments: tuple[str, ...], tikz_commands: bool, commands: tuple[str, ...]
           ) -> re.Pattern[bytes]:
    names = [rf"begin\s*\{{{re.escape(e)}\}}" for e in environments]
    if tikz_commands:  # \tikz, not \tikzset or \tikzstyle
        names += [rf"{re.escape(c)}(?![A-Za-z@])" for c in commands]
    return re.compile(rb"\\(?:" + "|".join(names).encode() + rb")")


def marks(t: TikzExtractParams) -> re.Pattern[bytes]:
    """What opens a picture: one of ``extract.tikz``'s environments, or (with
    ``tikz_commands``) one of its commands — the test a ``.tex`` file's claim makes too."""
    return _marks(tuple(t.environments), t.tikz_commands, tuple(t.commands))


def claims(code: bytes, params: ExtractSettings) -> bool:
    """Whether the code opens a picture (a block, or a whole post's HTML as a cheap first
    look: no picture anywhere, none in any of its blocks)."""
    return marks(params.tikz).search(code) is not None


def as_document(code: str, params: ExtractSettings) -> str:
    """A code block as a document: itself when it has a class, else the smallest document
    around it with its package and library lines in the preamble (packages first, as
    ``\\usepackage[dvipsnames]{xcolor}`` must come before TikZ loads xcolor)."""
    if "\\documentclass" in code or "\\documentstyle" in code:
        return code
    t = params.tikz
    outside, pos = [], 0
    for pic in find_pictures(code, t.environments, t.tikz_commands, t.commands):
        outside.append(code[pos:pic.start])
        pos = pic.end
    outside.append(code[pos:])
    body, packages, libraries = code, [], []
    for d in parse_preamble("\n".join(outside)):
        if d.kind in _HOISTED and d.text in body:
            body = body.replace(d.text, "", 1)
            (packages if d.kind == Kind.PACKAGE else libraries).append(d.text)
    return "\n".join(["\\documentclass{article}", *packages, "\\usepackage{tikz}", *libraries,
                      "\\begin{document}", body.strip("\n"), "\\end{document}", ""])


def records(code: str, name: str, base: dict, where: str, params: ExtractSettings
            ) -> tuple[list[dict], list[Rejection]]:
    """The block's pictures as records with ``base``'s provenance (``name``: the block's,
    ``code3``); the block is a candidate in the ledger when none is left."""
    # the paper extractor, which a claim does not need
    # lazy: loads pymupdf
    from diagramforge.formats.tikz.tex_file import tex_file_records

    return tex_file_records(as_document(code, params).encode(), f"{name}.tex", base, where,
                            Unit.CANDIDATE, params)
