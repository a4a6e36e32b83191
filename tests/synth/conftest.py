"""Diagrams to edit: the pipeline's sample split (a snapshot, tests/fixtures/edits) plus
richer hand-written ones that exercise every operation (a third node, named TikZ nodes)."""

from __future__ import annotations

import json
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "edits"

MX_RICH = (FIXTURES / "rich.drawio.xml").read_text()
SVG_RICH = (FIXTURES / "rich.svg").read_text()
TIKZ_RICH = (FIXTURES / "rich.tex").read_text()


def samples() -> list[dict]:
    rows = [json.loads(line) for line in (FIXTURES / "samples.jsonl").read_text().splitlines()]
    return rows + [{"id": "mx-rich", "format": "mxgraph", "code": MX_RICH},
                   {"id": "svg-rich", "format": "svg", "code": SVG_RICH},
                   {"id": "tikz-rich", "format": "tikz", "code": TIKZ_RICH}]
