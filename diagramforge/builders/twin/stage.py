"""The ``twin`` stage: every split diagram in the other diagram languages, verified.

After ``split`` (like edit and augment), so a twin inherits its diagram's split and the
``translation`` config can never put a diagram and its twin on two sides; the publish
stage checks it again (``task_split_mismatch``).  One diagram per unit.  A diagram whose
structure graph is not the diagram (``builders/twin/gate.py``: ``twin_type_unknown``,
``twin_not_a_graph``, ``twin_graph_incomplete``; also ``twin_no_graph``, ``twin_too_large``)
is an input rejection with that reason; the others' attempts are candidates, ledgered with
their reason when they fail (a twin that is not the source's graph, or that cannot be read
as published: ``twin_text_too_small``, ``twin_text_overlaps``), and a diagram with no
verified twin is an input rejection (``twin_none_verified``), so the books balance.
``metrics/twin.json`` holds ``attempted.<source>.<target>``, ``verified.<…>`` and
``failed.<…>.<reason>``: the coverage matrix (``benchmarks/twins.py`` prints it on real
corpora).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Protocol

import pyarrow as pa

from diagramforge.builders.twin.make import TwinReason, Twins
from diagramforge.formats.registry import RendersFormats
from diagramforge.formats.settings import FormatSettings
from diagramforge.stage import Outcome, Stage, StageSettings, WorkUnit
from diagramforge.store.records import Rejection, Unit

if TYPE_CHECKING:
    from diagramforge.builders.twin.settings import TwinParams

TWIN_SCHEMA = pa.schema([
    pa.field("id", pa.string(), nullable=False),
    pa.field("diagram_id", pa.string(), nullable=False),
    pa.field("format", pa.string()),
    pa.field("split", pa.string()),
    pa.field("config", pa.string()),
    pa.field("pair", pa.string()),
    pa.field("source_language", pa.string()),
    pa.field("target_language", pa.string()),
    pa.field("method", pa.string()),
    pa.field("preserves", pa.string()),
    pa.field("source_code", pa.large_string()),
    pa.field("target_code", pa.large_string()),
    pa.field("source_image", pa.binary()),
    pa.field("target_image", pa.binary()),
    pa.field("source_graph", pa.string()),
    pa.field("target_graph", pa.string()),
    pa.field("meta", pa.string()),
])
"""One row per verified twin: ``pair`` is ``<source>-><target>``; ``preserves`` is
``structure``, ``layout`` (positions, sizes, shapes) or ``layout+style`` (the source
engine's own drawing)."""


class TwinStageSettings(StageSettings, FormatSettings, Protocol):
    """What the twin stage reads: its section, what the format handlers are handed, and the
    stage base's part."""

    @property
    def twin(self) -> TwinParams: ...


class TwinStage(RendersFormats, Stage):
    """Re-express every split diagram in the other languages (its engine's own SVG; DOT,
    Mermaid, TikZ and mxGraph written from its structure graph), compile each twin with
    its real engine and keep it only when its structure graph equals the source's."""

    name = "twin"
    params: TwinStageSettings
    format_capability = "twin"
    upstream = "split"
    output_schema: ClassVar[pa.Schema] = TWIN_SCHEMA
    reads = ("id", "format", "code", "image", "split", "graph", "group")
    """``diagram_type`` and ``graph_like`` too when the filters wrote them (the twin gate:
    graph-like pictures, ``vocabulary.picture_graph_like``)."""
    writes = tuple(TWIN_SCHEMA.names)
    expands = True
    funnel: ClassVar[bool] = False
    param_sections: ClassVar[tuple[str, ...]] = ("twin", "render", "formats", "graph")
    code = ("builders/twin", "formats", "notation", "graphs", "sandbox/process.py",
            "sandbox/landlock.py",
            "vocabulary.py")
    inputs = ("package-lock.json",)
    task_configs: ClassVar[tuple[str, ...]] = ("translation",)

    def units(self, rows: list[dict]) -> list[WorkUnit]:
        return [WorkUnit([r], str(r["id"])) for r in rows]

    def process(self, unit: WorkUnit) -> Outcome:
        row = unit.rows[0]
        if not row.get("code"):  # a raster figure: no code to translate
            return Outcome(rejections=[Rejection(self.locator(row), TwinReason.UNSUPPORTED,
                                                 f"{row['format']} has no code",
                                                 id=row["id"])])
        cfg = self.params.twin
        out = Twins(self.formats(), cfg.targets, cfg.max_nodes, self.locator,
                    cfg.min_text_share, cfg.min_text_px).make([row])
        if not out.records and not any(r.unit == Unit.INPUT for r in out.rejections):
            out.rejections.append(Rejection(self.locator(row), TwinReason.NONE_VERIFIED,
                                            "no twin was verified", id=row["id"]))
        return out
