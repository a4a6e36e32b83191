"""A model's output through the same path as a crawled file: extract, then render.

Model outputs are hostile input.  A prediction is handed to its format's handler exactly as
a repository file would be (``extract_file``: the SVG sanitiser, the mxGraph decoder's
limits, the TeX extractor's package and input checks), then rendered by the same
``render`` (sandboxed pdflatex with its timeout and memory caps, draw.io in headless
Chromium, resvg) and its structure graph built as the render stage builds it.  There is no
second, weaker compile path: whatever the pipeline refuses, evaluation refuses with the
same reason, and anything else that goes wrong is a per-item reason, never a crash.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from diagramforge.formats.grounding import Verdict
from diagramforge.formats.registry import DiagramFormat, instantiate
from diagramforge.graphs.model import Graph
from diagramforge.graphs.record import graph_columns
from diagramforge.store.records import Unit
from diagramforge.synth.referents.grounded import verdicts

if TYPE_CHECKING:
    from diagramforge.formats.settings import FormatSettings


class CompileReason:
    NO_PREDICTION = "no_prediction"
    EMPTY = "empty_prediction"
    UNSUPPORTED = "unsupported_format"
    NOT_EXTRACTED = "not_extracted"
    """The format's extractor produced neither a diagram nor a reason."""
    NOT_RENDERED = "not_rendered"
    CRASH = "evaluator_error"
    """A handler raised: a bug to report, contained to this item."""


@dataclass
class Compiled:
    """One prediction after extract and render: the image and graph, or why not."""

    ok: bool
    reason: str | None = None
    detail: str = ""
    code: str | None = None
    """The code as extracted (sanitised SVG, the TeX document that was compiled)."""
    image: bytes | None = None
    graph: Graph | None = None
    extra_diagrams: int = 0
    """Further diagrams the output held (a second picture or page): not scored."""


def _fail(reason: str, detail: str = "") -> Compiled:
    return Compiled(ok=False, reason=reason, detail=detail[:500])


class Compiler:
    """Handlers made once (they hold a TeX format, a browser page) and closed with
    :meth:`close`; use as a context manager."""

    def __init__(self, params: FormatSettings):
        self.params = params
        self._formats: dict[str, DiagramFormat] | None = None
        self._grounded: dict[str, Verdict | None] = {}

    def reference_verdict(self, ref: dict, graph: Graph) -> Verdict | None:
        """``None`` when the reference's structure graph may be scored against: the
        picture is graph-like and the graph explains its render
        (:func:`diagramforge.synth.referents.grounded.verdicts`, its drawing exported once per
        reference); else why not — a chart's tick labels are no reference for SciFlow's or
        DiagramEval's node and edge scores (issue 50)."""
        key = str(ref.get("id"))
        if key not in self._grounded:
            self._grounded[key] = verdicts(self.formats(), [ref], [graph])[0]
        return self._grounded[key]

    def formats(self) -> dict[str, DiagramFormat]:
        if self._formats is None:
            self._formats = instantiate(self.params, lambda r: str(r.get("source_id") or "?"))
        return self._formats

    def __enter__(self) -> Compiler:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        for h in (self._formats or {}).values():
            h.close()
        self._formats = None

    def compile(self, item_id: str, fmt: str, output: str | None) -> Compiled:
        if output is None:
            return _fail(CompileReason.NO_PREDICTION)
        if not output.strip():
            return _fail(CompileReason.EMPTY)
        handler = self.formats().get(fmt)
        if handler is None or not handler.suffixes:
            return _fail(CompileReason.UNSUPPORTED, f"no handler extracts {fmt!r} files")
        try:
            return self._compile(handler, item_id, output)
        except Exception as exc:  # noqa: BLE001 - one item's failure, never the run's
            return _fail(CompileReason.CRASH, f"{type(exc).__name__}: {exc}")

    def _compile(self, h: DiagramFormat, item_id: str, output: str) -> Compiled:
        name = f"prediction{h.suffixes[0]}"
        base = {"source": "prediction", "source_id": item_id, "group": item_id, "title": name}
        recs, rejs = h.extract_file(output.encode("utf-8", "surrogatepass"), name, base,
                                    item_id, Unit.INPUT)
        if not recs:
            return _fail(rejs[0].reason, rejs[0].detail) if rejs \
                else _fail(CompileReason.NOT_EXTRACTED)
        out = h.render([recs[0]])
        if not out.records:
            return _fail(out.rejections[0].reason, out.rejections[0].detail) \
                if out.rejections else _fail(CompileReason.NOT_RENDERED)
        rec = out.records[0]
        if not h.graphs_in_render:
            rec.update(graph_columns(lambda: h.to_graph(rec), {}))
        graph = Graph.from_json(rec["graph"]) if rec.get("graph") else None
        return Compiled(ok=True, code=rec["code"], image=rec["image"], graph=graph,
                        extra_diagrams=len(recs) - 1)
