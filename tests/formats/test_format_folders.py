"""A format is one folder (issue 54): what the toolkit knows about a diagram language lives in
``diagramforge/formats/<name>/``, and a module elsewhere that names a format — a string
``"tikz"``, an import of ``formats.tikz.…`` — knows something it should ask the registry for.

Names in docstrings and comments are documentation and do not count; the registry's own list
of built-ins (``store/records.Format``) does not either. What is still outside the folders is
listed in :data:`LEFT` with its count, and the test fails both when a module not listed names
a format and when a listed module's count changes — so the table is always the true state,
and it can only shrink by someone moving the knowledge into a folder.
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

from diagramforge.formats.registry import handler_modules

PKG = Path(__file__).resolve().parents[2] / "diagramforge"
BUILT_INS = {"store/records.py"}
"""The registry's own list of built-in formats (the ``Format`` enum)."""

LEFT: dict[str, int] = {
    "builders/crawl/bulk_manifest.py": 2,
    "builders/crawl/settings.py": 7,
    "builders/crawl/stage.py": 3,
    "builders/extract/se_extract.py": 5,
    "builders/extract/settings.py": 2,
    "builders/extract/stage.py": 9,
    "builders/pdffigures/export.py": 3,
    "builders/pdffigures/extract.py": 2,
    "builders/pdffigures/model.py": 4,
    "builders/pdffigures/records.py": 3,
    "builders/pdffigures/settings.py": 1,
    "builders/pdffigures/synthetic.py": 10,
    "builders/render/settings.py": 4,
    "builders/twin/make.py": 3,
    "builders/twin/readable.py": 1,
    "builders/twin/settings.py": 6,
    "cards/publish/card.py": 8,
    "cards/publish/gallery.py": 1,
    "cards/publish/stage.py": 1,
    "cards/validate/stage.py": 2,
    "filters/filter/extremes.py": 1,
    "filters/filter/stage.py": 1,
    "formats/browser.py": 4,
    "formats/encoding.py": 13,
    "formats/grounding.py": 6,
    "formats/pdf_svg.py": 7,
    "formats/settings.py": 1,
    "selection.py": 1,
    "synth/augment/stage.py": 5,
    "synth/edit/stage.py": 3,
    "tools/realdata.py": 1,
}
"""Module → how many times it still names a format (:func:`format_names`): 413 names in 64
modules when the folders were made, 153 in 42 after edits, twins, evidence, caps, tiers,
scenes, repairs and file reading moved in. Not all of it is a format's knowledge: the
``render.raster`` settings and SVG as the drawing every engine exports (``export_svg``,
``twin_no_svg_export``) are spelled like formats; ``twin.targets``' default names the
user's choice; the PDF figure finder writes ``raster`` and ``svg`` records."""


def _formats() -> set[str]:
    return {source.parent.name for _module, source in handler_modules()} | {"drawio"}


def _names_in(source: str, names: set[str]) -> int:
    """Format names in ``source``'s code: identifiers that are a format's name (an import of
    its folder) and string literals holding one as a word — docstrings and comments left
    out."""
    word = re.compile(r"(?<![A-Za-z0-9])({})(?![A-Za-z0-9])".format("|".join(sorted(names))))
    count = 0
    statement_start = True
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type in (tokenize.COMMENT, tokenize.NL):
            continue
        if tok.type == tokenize.STRING:
            if not statement_start and word.search(tok.string):  # a docstring starts one
                count += 1
        elif tok.type == tokenize.NAME and tok.string in names:
            count += 1
        statement_start = tok.type in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT)
    return count


def format_names() -> dict[str, int]:
    """Every module outside the format folders that names a format, with its count."""
    names = _formats()
    out = {}
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG).as_posix()
        parts = rel.split("/")
        if parts[0] == "formats" and len(parts) > 2 and parts[1] in names or rel in BUILT_INS:
            continue
        n = _names_in(path.read_text("utf-8"), names)
        if n:
            out[rel] = n
    return out


def test_counting_leaves_documentation_out():
    names = {"tikz", "svg"}
    src = ('"""A TikZ and svg docstring."""\n# tikz in a comment\n'
           'def f():\n    """tikz"""\n    return fmt == "tikz"\n')
    assert _names_in(src, names) == 1
    assert _names_in("from diagramforge.formats.svg.graph import svg_read\n", names) == 1
    assert _names_in("x = export_svg(rows)\n", names) == 0


def test_format_knowledge_outside_the_folders_is_only_what_is_listed():
    found = format_names()
    new = {m: n for m, n in found.items() if m not in LEFT}
    changed = {m: (LEFT[m], found.get(m, 0)) for m in LEFT if found.get(m, 0) != LEFT[m]}
    assert not new, f"modules outside formats/<name>/ that name a format: {new}"
    assert not changed, f"counts changed (listed → now), update LEFT: {changed}"
