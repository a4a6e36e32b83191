"""A repository's TeX file as a source of TikZ pictures: the paper extractor, run on one file.

Code archives and repositories hold ``.tex`` files one by one — a whole document, or a
picture meant to be ``\\input`` by one.  Each goes through the same extraction as an arXiv
e-print (standalone documents with the definitions each picture uses, the preamble ladder),
and its records then carry the file's provenance (repository, commit, path, licence)
instead of a paper's.  A bare picture file gets the smallest document around it
(``article`` + TikZ); whether that compiles is the render stage's call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from diagramforge.formats.tikz.extract import extract_paper
from diagramforge.store.records import Rejection, Unit

if TYPE_CHECKING:
    from diagramforge.formats.settings import ExtractSettings

_PAPER_ID = "file"
_ROOT = "main.tex"
_WRAP = (b"\\documentclass{article}\n\\usepackage{tikz}\n\\begin{document}\n",
         b"\n\\end{document}\n")
PROVENANCE = ("source", "source_url", "group", "licence", "licence_url", "attribution",
              "title")


def as_document(data: bytes) -> bytes:
    """The file itself when it is a document, else the file inside the smallest one."""
    head = data[:20000]
    if b"\\documentclass" in head or b"\\documentstyle" in head:
        return data
    return _WRAP[0] + data + _WRAP[1]


def _local(loc: str, locator: str) -> str:
    """An extractor locator (``arxiv:file/main.tex#3``) as one under this file's locator."""
    rest = loc.removeprefix(f"arxiv:{_PAPER_ID}")
    rest = rest.removeprefix(f"/{_ROOT}")
    return locator + rest


def tex_file_records(data: bytes, path: str, base: dict, locator: str, unit: Unit,
                     params: ExtractSettings) -> tuple[list[dict], list[Rejection]]:
    """The pictures of one TeX file as TikZ records with ``base``'s provenance; the file is
    rejected (``unit``) when none is left, pictures dropped on the way are candidates."""
    paper = {"id": _PAPER_ID, "version": None, "title": base.get("title"), "authors": None,
             "licence": base.get("licence"), "licence_url": base.get("licence_url")}
    ex = extract_paper(as_document(data), paper, params)
    records = []
    for rec in ex.records:
        _, _, k = (rec.get("source_id") or "").rpartition("#")
        records.append({**rec, **{c: base.get(c) for c in PROVENANCE},
                        "source_id": f"{base['source_id']}#{k}" if k else base["source_id"]})
    rejections = [Rejection(_local(r.locator, locator), r.reason, r.detail, id=r.id,
                            unit=unit if r.unit == Unit.INPUT else r.unit)
                  for r in ex.rejections]
    return records, rejections
