"""Which pictures may have graph-grounded rows: the shared check
(:mod:`diagramforge.formats.grounding`) with the picture's own render read for its text.

An edit instruction that names "the node labelled "model"", a question about how many
connections "β" has, are true of the picture only when the picture is a graph and its
structure graph explains what was drawn (issue 50).  The render's text is read from the
picture's engine's own SVG (:meth:`~diagramforge.formats.registry.DiagramFormat.export_svg`:
the PDF page through PyMuPDF for TikZ — from the compile cache when it rendered — draw.io's
``getSvg``, Graphviz's and Mermaid's SVG, an SVG's own text), batched per format, only for
the pictures that pass the checks that need no render.  A picture whose drawing cannot be
read (a raster figure, an export that fails) is not grounded: its graph cannot be checked.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from diagramforge.formats import capabilities
from diagramforge.formats.grounding import (
    INCOMPLETE,
    MIN_TEXT_SHARE,
    Verdict,
    drawn_texts,
    letters,
    picture_check,
    text_check,
)
from diagramforge.formats.registry import DiagramFormat
from diagramforge.graphs.model import Graph
from diagramforge.store.records import Refusal

NO_GRAPH = "no_graph"
NO_DRAWING = "no_drawing"


def _is_drawing(fmt: str) -> bool:
    """Whether a format's code *is* its drawing (SVG), as its ``twin`` capability declares
    (``DRAWING``, :mod:`diagramforge.formats.twin_base`): such a picture is read as written."""
    twin = capabilities.of(fmt, "twin")
    return twin is not None and bool(twin.DRAWING)


def drawings(handlers: Mapping[str, DiagramFormat], rows: Sequence[Mapping]
             ) -> list[str | Refusal]:
    """Each picture as its own engine draws it, as SVG (a picture whose code is a drawing is
    its own), exported batched per format; a
    :class:`~diagramforge.store.records.Refusal` where it cannot be."""
    out: list[str | Refusal] = [""] * len(rows)
    by_fmt: dict[str, list[int]] = defaultdict(list)
    own = {fmt: _is_drawing(fmt) for fmt in {str(row.get("format")) for row in rows}}
    for k, row in enumerate(rows):
        if own[str(row.get("format"))] and row.get("code"):
            out[k] = str(row["code"])
        else:
            by_fmt[str(row.get("format"))].append(k)
    for fmt, idx in by_fmt.items():
        handler = handlers.get(fmt)
        try:
            if handler is None:
                raise NotImplementedError(f"no handler for {fmt!r}")
            svgs: list = handler.export_svg([dict(rows[k]) for k in idx])
        except NotImplementedError as exc:
            svgs = [Refusal(NO_DRAWING, str(exc))] * len(idx)
        except Exception as exc:  # noqa: BLE001 - an engine failing leaves these unread
            svgs = [Refusal(NO_DRAWING, repr(exc)[:300])] * len(idx)
        for k, drawing in zip(idx, svgs, strict=True):
            out[k] = drawing
    return out


@dataclass
class Reading:
    """What a picture's render says, for the writers that need more than its graph: the
    text runs drawn (``None`` when the drawing could not be read)."""

    runs: list[str] | None

    def shows(self, text: str) -> bool:
        """Whether ``text`` is on the render (its letters, in one run or across runs)."""
        if self.runs is None:
            return False
        key = letters(text)
        return bool(key) and key in "".join(letters(r) for r in self.runs)


def read_drawings(handlers: Mapping[str, DiagramFormat], rows: Sequence[Mapping]
                  ) -> list[Reading]:
    """Each picture's :class:`Reading` (its drawing exported and read for its text)."""
    out = []
    for drawing in drawings(handlers, rows):
        runs = None
        if isinstance(drawing, str) and drawing:
            try:
                runs = drawn_texts(drawing)
            except Exception:  # noqa: BLE001, S110 - an unreadable drawing: no reading
                runs = None
        out.append(Reading(runs))
    return out


def verdicts(handlers: Mapping[str, DiagramFormat], rows: Sequence[Mapping],
             graphs: Sequence[Graph | None], min_share: float = MIN_TEXT_SHARE,
             readings: Sequence[Reading | None] | None = None) -> list[Verdict | None]:
    """Per picture, ``None`` when its graph may ground rows about the picture, else why
    not.  ``readings`` already made are reused; the others are read here, only for the
    pictures that pass the checks that need no render."""
    out: list[Verdict | None] = []
    for row, g in zip(rows, graphs, strict=True):
        out.append(Verdict(NO_GRAPH, "no structure graph") if g is None
                   else picture_check(row, g))
    readings = list(readings) if readings is not None else [None] * len(rows)
    todo = [k for k, v in enumerate(out) if v is None and readings[k] is None]
    for k, r in zip(todo, read_drawings(handlers, [rows[k] for k in todo]), strict=True):
        readings[k] = r
    for k, v in enumerate(out):
        if v is not None:
            continue
        reading, g = readings[k], graphs[k]
        assert g is not None and reading is not None
        if reading.runs is None:
            out[k] = Verdict(INCOMPLETE, "the picture's drawing could not be read for its "
                             "text, so its graph cannot be checked against it")
        else:
            out[k] = text_check(g, reading.runs, min_share)
    return out
