"""Make and verify twins: each diagram re-expressed in each target language, compiled by
that language's real engine, kept only when the twin's structure graph equals the source's.

Two ways to a target (:func:`plan`):

* **the source engine's own SVG** (a target whose code is a drawing, ``DRAWING``: SVG):
  pdflatex's page through PyMuPDF for TikZ, draw.io's ``getSvg`` for mxGraph, Graphviz's and
  Mermaid's own SVG — the drawing itself, so it keeps ``layout+style``;
* **a writer** from the source's structure graph: the target format's twin capability
  (``formats/<name>/twin.py``, :mod:`diagramforge.formats.twin_base`), which says what it
  keeps — DOT and Mermaid the ``structure``, TikZ and mxGraph the ``layout`` too (positions,
  sizes, shapes).  A format with no ``twin.py`` (raster) is no target.

Only diagrams whose structure graph is the diagram get attempts (:mod:`.gate`: a graph-like
picture, edges all between nodes, labels that explain the text of the source's own drawing
— that drawing is the ``svg`` twin too, exported once).  A diagram the gate leaves out
(``twin_no_graph``, ``twin_type_unknown`` for an untyped picture, ``twin_not_a_graph``,
``twin_graph_incomplete``, ``twin_too_large``, ``twin_export_failed`` when its drawing
cannot be read) is one input row of the ledger.

Then every twin is rendered like any diagram of its language (through its format handler:
sanitised and rasterised, its graph built the same way), and compared
(:func:`.compare.differences`); one that is the source's graph is then measured on its own
engine's drawing at its published raster size (:mod:`.readable`: text too small, text
overlapping), so a twin that cannot be read is not written either.  Renders are batched
per target language across all the diagrams given, so a caller with many diagrams (a
benchmark) pays one pdflatex run per batch.  Every other attempt ends as a twin record or
a rejection (a candidate of its diagram) with its reason; counts go to
``attempted.<source>.<target>`` (every diagram × every other language, the gated ones
too), ``verified.<…>`` and ``failed.<…>.<reason>``.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from types import ModuleType

from diagramforge.builders.twin import gate, readable
from diagramforge.builders.twin.compare import as_text_nodes, differences
from diagramforge.formats.encoding import stored_image
from diagramforge.formats.registry import DiagramFormat
from diagramforge.formats.twin_layout import WriteError
from diagramforge.graphs.model import Graph
from diagramforge.graphs.record import graph_columns
from diagramforge.stage import Outcome
from diagramforge.store.records import Refusal, Rejection, Unit, item_id


class TwinReason(StrEnum):
    UNSUPPORTED = "twin_unsupported_format"
    NONE_VERIFIED = "twin_none_verified"
    NO_GRAPH = "twin_no_graph"
    NOT_A_GRAPH = gate.NOT_A_GRAPH
    UNTYPED = gate.UNTYPED
    INCOMPLETE = gate.INCOMPLETE
    TOO_LARGE = "twin_too_large"
    NO_EXPORT = "twin_no_svg_export"
    EXPORT = "twin_export_failed"
    RENDER = "twin_render_failed"
    GRAPH = "twin_graph_failed"
    MISMATCH = "twin_graph_mismatch"
    TOO_SMALL = readable.TOO_SMALL
    OVERLAP = readable.OVERLAP
    DANGLING = "twin_dangling_edge"
    EMPTY = "twin_empty_graph"


def writer_method(target: str) -> str:
    return f"graph-to-{target}"


def twin_unit(source: DiagramFormat | type[DiagramFormat],
              target: DiagramFormat | type[DiagramFormat]) -> float:
    """The source graph's box unit in the target writer's own: what the writers that keep
    positions scale the source's boxes by, so a twin's text fits boxes made for the
    source's (draw.io's, Mermaid's and SVG's boxes are in px, TikZ's and Graphviz's in pt:
    :attr:`~diagramforge.formats.registry.DiagramFormat.graph_unit_pt`)."""
    return source.graph_unit_pt / target.graph_unit_pt


@dataclass
class Attempt:
    row: dict
    source_graph: Graph | None
    target: str
    method: str
    preserves: str
    code: str | None = None

    @property
    def where(self) -> str:
        return f"{self.row.get('source_id') or self.row['id']}#twin-{self.target}"

    @property
    def key(self) -> str:
        return f"{self.row['id']}|{self.target}"


class Twins:
    """Makes twins for rows of the record table with the given format handlers."""

    def __init__(self, handlers: dict[str, DiagramFormat], targets: list[str],
                 max_nodes: int, locator: Callable[[dict], str],
                 min_text_share: float = gate.MIN_TEXT_SHARE,
                 min_text_px: float = readable.MIN_TEXT_PX):
        self.handlers = handlers
        self._twins: dict[str, ModuleType | None] = {}
        self.targets = [t for t in targets if t in handlers and self.twin(t) is not None]
        self.max_nodes = max_nodes
        self.locator = locator
        self.min_text_share = min_text_share
        self.min_text_px = min_text_px

    def twin(self, fmt: str) -> ModuleType | None:
        """The format's twin capability (``formats/<fmt>/twin.py``), ``None`` when it has
        none (raster: no twins into it; as a source it is neither a drawing, nor read from
        strokes, nor checked further)."""
        if fmt not in self._twins:
            h = self.handlers.get(fmt)
            self._twins[fmt] = h.capability("twin") if h is not None else None
        return self._twins[fmt]

    def _drawing(self, fmt: str) -> bool:
        """Whether the format's code is a drawing (SVG): see :mod:`~.formats.twin_base`."""
        m = self.twin(fmt)
        return m is not None and m.DRAWING

    # -- bookkeeping -------------------------------------------------------------------
    @staticmethod
    def _count(out: Outcome, key: str) -> None:
        out.extra[key] = out.extra.get(key, 0) + 1

    def _fail(self, out: Outcome, a: Attempt, reason: str, detail: str) -> None:
        self._count(out, f"failed.{a.row['format']}.{a.target}.{reason}")
        out.rejections.append(Rejection(a.where, reason, detail[:1000], id=a.row["id"],
                                        unit=Unit.CANDIDATE))

    def _refuse(self, out: Outcome, row: dict, reason: str, detail: str) -> None:
        """A diagram that gets no twin in any language, for a reason of its own (no graph,
        not a graph, an incomplete one, too large): one input row in the ledger, and each
        of its attempts counted as failed for that reason."""
        fmt = row["format"]
        for target in self.targets:
            if target != fmt:
                self._count(out, f"attempted.{fmt}.{target}")
                self._count(out, f"failed.{fmt}.{target}.{reason}")
        out.rejections.append(Rejection(self.locator(row), reason, detail[:1000],
                                        id=row["id"], unit=Unit.INPUT))

    # -- which diagrams: the gate (twin/gate.py) ------------------------------------------
    def screen(self, row: dict, out: Outcome) -> Graph | None:
        """The diagram's graph when it may be twinned before its render is read (a graph,
        graph-like, complete, not too large); else ``None``, ledgered."""
        if not row.get("graph"):
            self._refuse(out, row, TwinReason.NO_GRAPH, "the source has no structure graph "
                         "to verify a twin against")
            return None
        graph = Graph.from_json(row["graph"])
        fmt = row.get("format") or ""
        src = self.twin(fmt)
        verdict = gate.picture_check(row) or gate.structure_check(graph, None) or \
            gate.label_check(graph) or gate.icon_check(graph) or \
            gate.stroke_check(graph, src is not None and src.EDGES_FROM_STROKES) or \
            gate.code_check(fmt, row.get("code")) or gate.source_check(src, row.get("code"))
        if verdict is not None:
            self._refuse(out, row, verdict.reason, verdict.detail)
            return None
        if len(graph.nodes) > self.max_nodes:
            self._refuse(out, row, TwinReason.TOO_LARGE,
                         f"{len(graph.nodes)} nodes > twin.max_nodes {self.max_nodes}")
            return None
        return graph

    def drawn(self, rows: list[dict]) -> list[str | Refusal]:
        """Each diagram as its own engine draws it, as SVG: the text the gate reads, and
        the ``svg`` twin itself.  A diagram whose code is a drawing (SVG) is its own; the
        others are exported batched per format."""
        out: list[str | Refusal] = [""] * len(rows)
        by_fmt: dict[str, list[int]] = defaultdict(list)
        for k, row in enumerate(rows):
            if self._drawing(row["format"]):
                out[k] = row["code"]
            else:
                by_fmt[row["format"]].append(k)
        for fmt, idx in by_fmt.items():
            try:
                drawings = self.handlers[fmt].export_svg([rows[k] for k in idx])
            except NotImplementedError as exc:
                drawings = [Refusal(TwinReason.NO_EXPORT, str(exc))] * len(idx)
            for k, drawing in zip(idx, drawings, strict=True):
                out[k] = drawing
        return out

    # -- planning ------------------------------------------------------------------------
    def plan(self, row: dict, graph: Graph, drawing: str, out: Outcome) -> list[Attempt]:
        """This diagram's attempts, one per target language other than its own; those that
        cannot even be written are ledgered here."""
        fmt = row["format"]
        src = self.twin(fmt)
        todo = []
        for target in self.targets:
            if target == fmt:
                continue
            twin = self.twin(target)
            assert twin is not None  # self.targets holds formats with a twin capability
            if twin.DRAWING:  # the source engine's own drawing is the twin
                method = (src.EXPORT_METHOD if src is not None else None) \
                    or f"{fmt}-engine-svg"
                a = Attempt(row, graph, target, method, twin.preserves(graph), drawing)
            else:
                a = Attempt(row, graph, target, writer_method(target), twin.preserves(graph))
                try:
                    a.code = twin.write(graph, twin_unit(self.handlers[fmt],
                                                         self.handlers[target]))
                except WriteError as exc:
                    self._count(out, f"attempted.{fmt}.{target}")
                    self._fail(out, a, exc.reason, exc.detail)
                    continue
            self._count(out, f"attempted.{fmt}.{target}")
            todo.append(a)
        return todo

    # -- rendering and verification --------------------------------------------------------
    def make(self, rows: list[dict]) -> Outcome:
        out = Outcome()
        passed = [(row, g) for row in rows if (g := self.screen(row, out)) is not None]
        attempts: list[Attempt] = []
        for (row, graph), drawing in zip(passed, self.drawn([r for r, _ in passed]),
                                         strict=True):
            if isinstance(drawing, Refusal):
                self._refuse(out, row, TwinReason.EXPORT, "the source's own drawing, whose "
                             f"text the twin gate reads: {drawing.reason}: {drawing.detail}")
                continue
            try:
                runs = gate.drawn_texts(drawing)
            except Exception as exc:  # noqa: BLE001 - an unreadable drawing: a reason
                self._refuse(out, row, TwinReason.EXPORT, "the source's own drawing could "
                             f"not be read for its text: {exc!r}"[:300])
                continue
            verdict = gate.text_check(graph, runs, self.min_text_share)
            if verdict is not None:
                self._refuse(out, row, verdict.reason, verdict.detail)
                continue
            attempts += self.plan(row, graph, drawing, out)
        by_target: dict[str, list[Attempt]] = defaultdict(list)
        for a in attempts:
            by_target[a.target].append(a)
        for target, group in sorted(by_target.items()):
            self._render(self.handlers[target], group, out)
        return out

    def _render(self, handler: DiagramFormat, group: list[Attempt], out: Outcome) -> None:
        """Each twin's graph checked against the source's before it is drawn when the code
        gives it (a twin that cannot verify never reaches the engine), after when the
        engine does (``graphs_in_render``: TikZ, DOT, Mermaid); drawn a batch at a time, and
        only a verified twin's picture encoded."""
        step = handler.batch_size()
        for k in range(0, len(group), step):
            chunk = group[k:k + step]
            rows = [{"id": item_id(a.key), "format": handler.name, "code": a.code,
                     "source_id": a.key, "group": a.row.get("group"), "meta": None}
                    for a in chunk]
            todo: list[tuple[Attempt, dict, dict | None]] = []
            for a, row in zip(chunk, rows, strict=True):
                cols = None if handler.graphs_in_render else \
                    graph_columns(lambda r=row: handler.to_graph(r), {})
                if cols is None or self._verify(a, cols, out):
                    todo.append((a, row, cols))
            try:
                drawn = handler.draw([row for _, row, _ in todo]) if todo else Outcome()
            except Exception as exc:  # noqa: BLE001 - an engine crash fails this batch only
                for a, _, _ in todo:
                    self._fail(out, a, TwinReason.RENDER, repr(exc)[:300])
                continue
            recs = {r["source_id"]: r for r in drawn.records}
            whys = {r.id: f"{r.reason}: {r.detail}" for r in drawn.rejections}
            same: list[tuple[Attempt, dict]] = []
            for a, row, cols in todo:
                rec = recs.get(a.key)
                if rec is None:
                    self._fail(out, a, TwinReason.RENDER, whys.get(row["id"], "not rendered"))
                    continue
                if cols is not None:
                    rec.update(cols)
                elif not self._verify(a, rec, out):
                    continue
                same.append((a, rec))
            self._readable(handler, same, out)

    def _readable(self, handler: DiagramFormat, same: list[tuple[Attempt, dict]],
                  out: Outcome) -> None:
        """Keep the twins that are the source's graph *and* can be read as published
        (:mod:`.readable`, on the twin engine's own drawing); ledger the others. Only a
        twin kept has its picture encoded (issue 53)."""
        if not same:
            return
        if self._drawing(handler.name):  # the source engine's drawing is the twin's code
            drawings: list[str | Refusal] = [a.code or "" for a, _ in same]
        else:
            try:
                drawings = handler.export_svg([rec for _, rec in same])
            except Exception as exc:  # noqa: BLE001 - an engine crash fails this batch only
                drawings = [Refusal(TwinReason.EXPORT, repr(exc)[:300])] * len(same)
        for (a, rec), drawing in zip(same, drawings, strict=True):
            if isinstance(drawing, Refusal):
                self._fail(out, a, TwinReason.EXPORT, "the twin's own drawing, whose text "
                           f"is measured: {drawing.reason}: {drawing.detail}")
                continue
            try:
                why = readable.unreadable(drawing, rec["image"], self.min_text_px)
            except Exception as exc:  # noqa: BLE001 - an unreadable drawing: a reason
                why = (TwinReason.EXPORT, f"the twin's drawing could not be read: {exc!r}")
            if why is not None:
                self._fail(out, a, *why)
                continue
            rec["image"] = stored_image(rec["image"], handler.params.render.raster)
            self._count(out, f"verified.{a.row['format']}.{a.target}")
            out.records.append(self._record(a, rec))

    def _verify(self, a: Attempt, cols: dict, out: Outcome) -> bool:
        """Whether the twin's graph (``cols["graph"]``) is the source's; else ledgered."""
        if not cols.get("graph"):
            self._fail(out, a, TwinReason.GRAPH, f"the {a.target} twin rendered but "
                       "its structure graph could not be built")
            return False
        twin_graph = Graph.from_json(cols["graph"])
        assert a.source_graph is not None
        # a drawing has no nodes, only text: compared as a reader of a drawing sees it
        expected = as_text_nodes(a.source_graph) if self._drawing(a.target) \
            else a.source_graph
        diff = differences(expected, twin_graph)
        if diff:
            self._fail(out, a, TwinReason.MISMATCH, "; ".join(diff))
            return False
        return True

    @staticmethod
    def _record(a: Attempt, rec: dict) -> dict:
        src = a.row
        return {
            "id": item_id(src["id"], a.target, a.method), "diagram_id": src["id"],
            "format": src["format"], "split": src.get("split"), "config": "translation",
            "pair": f"{src['format']}->{a.target}",
            "source_language": src["format"], "target_language": a.target,
            "method": a.method, "preserves": a.preserves,
            "source_code": src["code"], "target_code": rec["code"],
            "source_image": src.get("image"), "target_image": rec["image"],
            "source_graph": src.get("graph"), "target_graph": rec["graph"],
            "meta": json.dumps({"render_engine": rec.get("render_engine")}),
        }
