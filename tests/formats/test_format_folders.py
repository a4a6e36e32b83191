"""A format is one folder (issue 54): what the toolkit knows about a diagram language lives in
``diagramforge/formats/<name>/``, and a module elsewhere that names a format — a string
``"tikz"``, an import of ``formats.tikz.…`` — knows something it should ask the registry for.

Names in docstrings and comments are documentation and do not count; the registry's own list
of built-ins (``store/records.Format``) does not either. Every other name is in one of two
tables, with its count: :data:`LEFT`, a format's knowledge still outside its folder, and
:data:`WORDS`, a name spelled like a format that is not one's knowledge (a ``params.yaml``
key users have, SVG as the drawing every engine exports, the ``render.raster``
rasterisation settings), each with the reason. The test fails when a module in neither
names a format and when a listed module's count changes — so the tables are always the true
state, :data:`LEFT` can only shrink by someone moving the knowledge into a folder, and a
word is only one by the reason written beside it.
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
    "formats/settings.py": 7,
    "tools/realdata.py": 1,
}
"""Module → how many times it still names a format as that format's knowledge
(:func:`format_names`): 413 names in 64 modules when the folders were made, 154 in 42 after
edits, twins, evidence, caps, tiers, scenes, repairs and file reading moved in (words and
knowledge counted together then), 8 in 2 now. What is left: the TikZ, SVG and mxGraph
extract/render settings models and the ``\\tikz`` command default in ``formats/settings.py``
(six of its seven are the ``params.yaml`` keys the formats' protocols name), and
``render.tikz.cache_dir`` read by the real-data tool."""

WORDS: dict[str, tuple[int, str]] = {
    "builders/crawl/bulk_manifest.py": (
        2, "`dot` is the '.' that `rpartition` splits a file name at"),
    "builders/extract/settings.py": (
        2, "the params.yaml keys `extract.tikz` and `extract.svg` users have (their models "
           "are the formats', in formats/settings.py)"),
    "builders/pdffigures/export.py": (
        3, "the PDF figure finder's own output: a vector figure clipped as SVG, checked by "
           "the SVG sanitiser before it is an `svg` record"),
    "builders/pdffigures/extract.py": (
        2, "the figure finder's record kinds: a figure is a `raster` or an `svg` one"),
    "builders/pdffigures/model.py": (
        4, "the figure finder's reasons (`svg_invalid`, `svg_blank`, `raster_failed`: "
           "ledger values users have) and a figure's `svg` field"),
    "builders/pdffigures/records.py": (
        3, "the figure finder's record kinds made records: `raster` and `svg`"),
    "builders/pdffigures/settings.py": (
        1, "a setting's description: the image share that makes a figure a raster one"),
    "builders/pdffigures/synthetic.py": (
        10, "the finder's test papers: LaTeX documents drawing TikZ pictures, compiled in "
            "the TeX environment of formats/tikz/texcompile (content, not how the toolkit "
            "reads TikZ), and their figures' expected kinds (`raster_above`, `raster`)"),
    "builders/render/settings.py": (
        4, "the params.yaml keys `render.tikz`, `render.mxgraph`, `render.svg`, "
           "`render.raster` users have (their models are in formats/settings.py)"),
    "builders/twin/make.py": (
        3, "SVG as the drawing every engine exports (`twin_no_svg_export`, a ledger "
           "reason; the `<fmt>-engine-svg` method) and the `render.raster` settings"),
    "builders/twin/readable.py": (
        1, "the `<svg>` root of the twin engine's own drawing, every engine's export"),
    "formats/browser.py": (
        4, "the SVG drawing Chromium's engines export, sanitised by the SVG cleaner"),
    "formats/encoding.py": (
        19, "`raster`: the `render.raster` settings (`RasterParams`) a stored image is "
            "encoded with"),
    "formats/grounding.py": (
        3, "the text an engine's SVG export sets, read by the SVG reader (`drawn_texts`)"),
    "cards/publish/card.py": (
        8, "`raster`: the `render.raster` settings the card states (dpi, size, PNG level)"),
    "cards/publish/gallery.py": (
        1, "the gallery page's JavaScript draws its overlay in an `svg` element"),
    "cards/publish/encode.py": (
        9, "`raster`: the `render.raster` settings the published images are encoded with"),
    "cards/publish/stage.py": (
        5, "`raster`: the `render.raster` settings the published images are encoded with"),
    "cards/validate/stage.py": (
        2, "`raster`: the `render.raster` settings (and their key) validate checks images by"),
    "filters/filter/extremes.py": (
        1, "`raster`: the `render.raster` settings (the image size caps are read from)"),
    "filters/filter/stage.py": (
        1, "the params key `render.raster` the filter stage declares it reads"),
    "selection.py": (
        1, "a `select` preset's token window for the `svg` task (the VectorGym split's "
           "default, a user's choice like `twin.targets`)"),
    "synth/augment/stage.py": (
        5, "`raster`: the `render.raster` settings sketches and variations are drawn at"),
    "synth/edit/stage.py": (
        3, "`raster`: the `render.raster` settings edit targets are drawn at"),
}
"""Module → (count, why): names spelled like a format that are not a format's knowledge.
Counted as exactly as :data:`LEFT`, so a format's knowledge cannot hide among them."""


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


def test_a_word_counts_as_knowledge_does_until_a_reason_lists_it():
    """The counter does not guess which names are words: a literal, a ledger reason or a
    settings attribute spelled like a format counts, and only :data:`WORDS`' reasons tell
    it from a format's knowledge."""
    names = {"raster", "svg"}
    assert _names_in('kind = "raster"\n', names) == 1
    assert _names_in("dpi = params.render.raster.dpi\n", names) == 1
    assert _names_in('NO_EXPORT = "twin_no_svg_export"\n', names) == 1
    assert _names_in('fmt = "rasterize"\n', names) == 0


def test_format_knowledge_outside_the_folders_is_only_what_is_listed():
    found = format_names()
    listed = {**LEFT, **{m: n for m, (n, _why) in WORDS.items()}}
    new = {m: n for m, n in found.items() if m not in listed}
    changed = {m: (listed[m], found.get(m, 0)) for m in listed
               if found.get(m, 0) != listed[m]}
    assert not new, f"modules outside formats/<name>/ that name a format: {new}"
    assert not changed, f"counts changed (listed → now), update LEFT or WORDS: {changed}"


def test_a_module_is_knowledge_or_words_with_a_reason():
    assert not set(LEFT) & set(WORDS), "a module is in LEFT or in WORDS, not both"
    assert all(why.strip() for _n, why in WORDS.values())
