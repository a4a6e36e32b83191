"""The ``extract`` stage: each crawled source → its diagram candidates.

Every source goes to the formats that take its kind, found by what their folders hold: a
paper (an arXiv e-print) to each format with a ``paper`` capability, a Stack Exchange post's
code blocks to each with a ``snippet`` one, a repository file to the handler that claims it,
a PDF to the figure finder.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Protocol

from diagramforge.builders.extract.pdf_extract import extract_pdf, pdf_locator
from diagramforge.builders.extract.se_extract import post_records
from diagramforge.formats import capabilities
from diagramforge.formats.registry import UsesFormats, claim, extract
from diagramforge.formats.settings import FormatSettings
from diagramforge.stage import Outcome, Reason, Stage, StageSettings, WorkUnit
from diagramforge.store.records import (
    FILE_KINDS,
    SOURCE_SCHEMA,
    Rejection,
    SourceKind,
    Unit,
)

if TYPE_CHECKING:
    from diagramforge.builders.extract.settings import ExtractParams

SMALL_KINDS = FILE_KINDS | {SourceKind.STACKEXCHANGE}
"""Sources small enough to go in runs of ``extract.files_per_unit``: files and posts."""


class ExtractStageSettings(StageSettings, FormatSettings, Protocol):
    """What the extract stage reads: its section (whole: the extractors' and its own
    ``files_per_unit``), what the format handlers are handed, and the stage base's part."""

    @property
    def extract(self) -> ExtractParams: ...


class ExtractStage(Stage, UsesFormats):
    """Unpack each e-print safely, flatten its LaTeX and turn every TikZ picture into a
    standalone document with the preamble definitions it uses, caption and context; split
    repository files into diagrams by their format's handler (a draw.io file into its pages,
    a Markdown file into its diagram blocks); find captioned figures in PDFs (vector →
    SVG, raster → raster figures from PDFs, with the paragraphs that cite them); take the
    pictures from Stack Exchange posts' code blocks."""

    name = "extract"
    params: ExtractStageSettings
    format_capability = "handler"
    upstream = "crawl"
    input_schema = SOURCE_SCHEMA
    reads = ("id", "kind", "path", "licence", "licence_url", "title", "authors", "url",
             "meta", "content")
    writes = ("id", "format", "code", "source", "source_id", "source_url", "group", "licence",
              "licence_url", "attribution", "title", "caption", "label", "context", "meta")
    expands = True
    param_sections: ClassVar[tuple[str, ...]] = ("extract", "formats")
    # the format handlers it dispatches to also build graphs (in render): "graphs" comes along
    # the formats' generated tables (what TikZ libraries define) are data, not modules: named
    # here so a regenerated table rebuilds the stage
    code = ("formats", "formats/*/*.json", "notation", "sandbox/process.py",
            "sandbox/landlock.py",
            "graphs", "builders/extract/pdf_extract.py", "builders/pdffigures",
            "builders/extract/se_extract.py",
            "builders/crawl/se_posts.py")

    def environment(self) -> dict:
        """What the papers' extraction depends on outside the code (TeX Live's packages),
        as each format with a ``paper`` capability says."""
        out: dict = {}
        for paper in capabilities.every("paper").values():
            out.update(paper.environment())
        return out

    def locator(self, row: dict) -> str:
        if row.get("kind") in SMALL_KINDS:
            return row["id"]
        if row.get("kind") == SourceKind.PDF:
            return pdf_locator(row)
        return f"arxiv:{row['id']}v{row.get('version')}"

    def units(self, rows: list[dict]) -> list[WorkUnit]:
        """One unit per paper or PDF; repository files and Stack Exchange posts — small, and
        by the hundred thousand from an archive — in runs of ``extract.files_per_unit``, so
        the workers are not kept waiting on a round trip per file (a run that times out is
        ledgered whole)."""
        size = self.params.extract.files_per_unit
        out: list[WorkUnit] = []
        run: list[dict] = []
        for r in rows:
            if r.get("kind") in SMALL_KINDS:
                run.append(r)
                if len(run) < size:
                    continue
            if run:
                out.append(WorkUnit(run, str(run[0].get("id"))))
                run = []
            if r.get("kind") not in SMALL_KINDS:
                out.append(WorkUnit([r], str(r.get("id"))))
        if run:
            out.append(WorkUnit(run, str(run[0].get("id"))))
        return out

    def process(self, unit: WorkUnit) -> Outcome:
        out = Outcome(inputs_with_output=0)
        for src in unit.rows:
            if len(unit.rows) == 1:
                one = self._source(src)  # the runner ledgers what escapes
            else:
                try:
                    one = self._source(src)
                except Exception as exc:  # noqa: BLE001 - one file must not sink its run
                    one = Outcome(rejections=[Rejection(self.locator(src), Reason.ERROR,
                                                        repr(exc)[:500])])
            out.records += one.records
            out.inputs_with_output += bool(one.records)
            out.rejections += one.rejections
            for k, v in one.extra.items():
                out.extra[k] = out.extra.get(k, 0) + v
        return out

    def _source(self, src: dict) -> Outcome:
        loc = self.locator(src)
        if src.get("kind") == SourceKind.PDF:  # read page by page by PyMuPDF, not slurped
            recs, rejs = extract_pdf(src, self.params.extract.pdf)
            return Outcome(records=recs, rejections=rejs)
        if src.get("kind") == SourceKind.STACKEXCHANGE:  # the HTML body came along
            recs, rejs = post_records(src, self.params.extract,
                                      list(capabilities.every("snippet").values()))
            return Outcome(records=recs, rejections=rejs)
        if src.get("content") is not None:  # streamed from an archive: the bytes came along
            data = src["content"]
        else:
            try:
                data = Path(src["path"]).read_bytes()
            except OSError as exc:
                return Outcome(rejections=[Rejection(loc, "source_unreadable", str(exc))])
        if src.get("kind") in FILE_KINDS:
            return self._repo_file(src, data, loc)
        out = Outcome()
        for paper in capabilities.every("paper").values():
            recs, rejs = paper.extract(data, src, self.params.extract)
            out.records += recs
            out.rejections += rejs
        if not out.records and not out.rejections:  # nothing is lost: no format reads papers
            out.rejections.append(Rejection(loc, "no_paper_format", "no format has a paper "
                                            "capability (formats/<name>/paper.py)"))
        return out

    def _repo_file(self, src: dict, data: bytes, loc: str) -> Outcome:
        """A repository file (pinned, found by search, or streamed from The Stack): the
        format that claims it (by name and content) extracts it — a Markdown file, every
        format whose blocks it holds; its records are grouped by repository and carry the
        file's licence and whom to credit."""
        meta = json.loads(src.get("meta") or "{}")
        rel = meta.get("file") or src["title"]
        base = {
            "source": src["kind"], "source_id": loc,
            "source_url": meta.get("file_url")
            or f"{src['url']}@{meta.get('commit', src.get('version'))}:{rel}",
            "group": f"repo:{meta.get('repo', src['url'])}", "licence": src.get("licence"),
            "licence_url": src.get("licence_url"),
            "attribution": meta.get("attribution")
            or f"{meta.get('repo')} contributors ({src['url']} @ "
               f"{str(meta.get('commit', ''))[:12]})",
            "title": rel,
        }
        takers, why = claim(self.formats(), rel, data)
        if not takers:
            return Outcome(rejections=[Rejection(loc, why, rel)])
        recs, rejs = extract(takers, data, rel, base, loc, Unit.INPUT)
        return Outcome(records=recs, rejections=rejs)

