"""The ``extract`` stage: each crawled source → its diagram candidates.

arXiv papers give TikZ pictures (as standalone documents) and their .svg files; repository
files give mxGraph pages and SVG documents.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import ClassVar

from diagramforge.builders.pdf_extract import extract_pdf, pdf_locator
from diagramforge.builders.tikz_extract import extract_paper
from diagramforge.formats.registry import UsesFormats
from diagramforge.formats.texcompile import tex_version
from diagramforge.records import SOURCE_SCHEMA, Rejection, SourceKind, Unit
from diagramforge.stage import Outcome, Stage, WorkUnit


class ExtractStage(Stage, UsesFormats):
    """Unpack each e-print safely, flatten its LaTeX and turn every TikZ picture into a
    standalone document with the preamble definitions it uses, caption and context; split
    repository files into mxGraph pages and SVG documents; find captioned figures in PDFs
    (vector → svg, raster → raster records, with the paragraphs that cite them)."""

    name = "extract"
    upstream = "crawl"
    input_schema = SOURCE_SCHEMA
    reads = ("id", "kind", "path", "licence", "title", "authors")
    writes = ("id", "format", "code", "source", "source_id", "source_url", "group", "licence",
              "licence_url", "attribution", "title", "caption", "label", "context", "meta")
    expands = True
    param_sections: ClassVar[tuple[str, ...]] = ("extract", "formats")
    # the format handlers it dispatches to also build graphs (in render): "graphs" comes along
    code = ("builders/tikz_extract.py", "builders/archives.py", "formats", "sandbox.py", "graphs",
            "builders/pdf_extract.py", "pdffigures")

    def environment(self) -> dict:
        # which packages exist (and so are kept in standalone documents) is TeX Live's call
        return {"tex": tex_version()}

    def locator(self, row: dict) -> str:
        if row.get("kind") == SourceKind.REPO:
            return row["id"]
        if row.get("kind") == SourceKind.PDF:
            return pdf_locator(row)
        return f"arxiv:{row['id']}v{row.get('version')}"

    def process(self, unit: WorkUnit) -> Outcome:
        src = unit.rows[0]
        loc = self.locator(src)
        if src.get("kind") == SourceKind.PDF:  # read page by page by PyMuPDF, not slurped
            recs, rejs = extract_pdf(src, self.params.extract.pdf)
            return Outcome(records=recs, rejections=rejs)
        try:
            data = Path(src["path"]).read_bytes()
        except OSError as exc:
            return Outcome(rejections=[Rejection(loc, "source_unreadable", str(exc))])
        if src.get("kind") == SourceKind.REPO:
            return self._repo_file(src, data, loc)
        ex = extract_paper(data, src, self.params.extract)
        return Outcome(records=ex.records, rejections=ex.rejections)

    def _repo_file(self, src: dict, data: bytes, loc: str) -> Outcome:
        meta = json.loads(src.get("meta") or "{}")
        rel = meta.get("file") or src["title"]
        base = {
            "source": "repo", "source_id": loc,
            "source_url": f"{src['url']}@{meta.get('commit', src.get('version'))}:{rel}",
            "group": f"repo:{meta.get('repo', src['url'])}", "licence": src.get("licence"),
            "licence_url": src.get("licence_url"),
            "attribution": f"{meta.get('repo')} contributors ({src['url']} @ "
                           f"{str(meta.get('commit', ''))[:12]})",
            "title": rel,
        }
        fmt = next((h for h in self.formats().values() if h.claims(rel)), None)
        if fmt is None:
            return Outcome(rejections=[Rejection(loc, "unsupported_file", rel)])
        recs, rejs = fmt.extract_file(data, rel, base, loc, Unit.INPUT)
        return Outcome(records=recs, rejections=rejs)

