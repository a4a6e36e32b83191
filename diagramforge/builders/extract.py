"""The ``extract`` stage: each crawled paper → its TikZ pictures as standalone documents."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from diagramforge.builders.tikz_extract import extract_paper
from diagramforge.records import SOURCE_SCHEMA, Rejection
from diagramforge.runner import Outcome, Stage, WorkUnit


class ExtractStage(Stage):
    name = "extract"
    upstream = "crawl"
    input_schema = SOURCE_SCHEMA
    reads = ("id", "path", "licence", "title", "authors")
    writes = ("id", "format", "code", "source", "source_id", "source_url", "group", "licence",
              "licence_url", "attribution", "title", "caption", "label", "context", "meta")
    expands = True
    param_sections: ClassVar[tuple[str, ...]] = ("extract",)

    def locator(self, row: dict) -> str:
        return f"arxiv:{row['id']}v{row.get('version')}"

    def process(self, unit: WorkUnit) -> Outcome:
        paper = unit.rows[0]
        try:
            data = Path(paper["path"]).read_bytes()
        except OSError as exc:
            return Outcome(rejections=[Rejection(self.locator(paper), "eprint_unreadable",
                                                 str(exc))])
        ex = extract_paper(data, paper, self.params.extract)
        return Outcome(records=ex.records, rejections=ex.rejections)
