"""The ``paper`` capability: the TikZ pictures (and the SVG files) of a paper's source, an
arXiv e-print, and what that extraction depends on outside the code.

The extract stage hands every paper to each format with this capability
(``formats/<name>/paper.py``: :func:`extract`, :func:`environment`) and names none; the
extraction itself is :func:`~diagramforge.formats.tikz.extract.extract_paper`.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from diagramforge.formats.tikz.needs import table
from diagramforge.formats.tikz.texcompile import tex_version
from diagramforge.store.records import Rejection

if TYPE_CHECKING:
    from diagramforge.formats.settings import ExtractSettings

log = logging.getLogger(__name__)


def extract(data: bytes, paper: dict, params: ExtractSettings
            ) -> tuple[list[dict], list[Rejection]]:
    """The paper's pictures as records, or why there are none (the ledger's rows)."""
    # the extractor reads TeX's package list too
    # lazy: loads pymupdf
    from diagramforge.formats.tikz.extract import extract_paper

    ex = extract_paper(data, paper, params)
    return ex.records, ex.rejections


def environment() -> dict:
    """Which packages exist (and so are kept in standalone documents) is TeX Live's call;
    so is what the shipped table of library names says (it records its TeX Live, and the
    stage declares its file, ``tikz_libraries.json``, among its code): both in the stage's
    rebuild key."""
    tex, made_from = tex_version(), table().tex
    if made_from != tex:
        log.warning("formats/tikz/tikz_libraries.json was generated from %r, TeX Live here "
                    "is %r: regenerate it with `diagramforge tikz-table`", made_from, tex)
    return {"tex": tex, "tikz_table": made_from}
