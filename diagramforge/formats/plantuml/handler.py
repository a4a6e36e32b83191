"""PlantUML (``.puml``, ``.plantuml``, ``.pu``, and ```` ```plantuml ````/```` ```puml ````
blocks in Markdown): each ``@startuml … @enduml`` is a diagram, refused before the engine
when it reaches outside its text (``source.py``), drawn by PlantUML itself on a headless
JRE, sandboxed and offline, several per JVM (``engine.py``), its graph from PlantUML's own
model (``graph.py``), its SVG rasterised like any SVG."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, ClassVar

from pydantic import Field

from diagramforge.formats import markdown
from diagramforge.formats.plantuml import engine, source
from diagramforge.formats.plantuml.engine import PumlError, PumlReason
from diagramforge.formats.plantuml.graph import model_graph
from diagramforge.formats.registry import DiagramFormat, Locator, register
from diagramforge.formats.svg import document as svgfmt
from diagramforge.graphs.record import graph_columns
from diagramforge.notation.declarations import UNSAFE_XML, declaration
from diagramforge.params import FormatSection
from diagramforge.stage import Outcome
from diagramforge.store.records import Refusal, Rejection, Unit, empty_record, make_id

if TYPE_CHECKING:
    from diagramforge.formats.settings import FormatSettings
    from diagramforge.graphs.model import Graph


class PlantUmlParams(FormatSection):
    """``formats.plantuml``: PlantUML's limits (hostile input: huge or endless diagrams)."""

    max_bytes: Annotated[int, Field(ge=1)] = 200_000
    max_lines: Annotated[int, Field(ge=1)] = 5_000
    timeout_s: Annotated[float, Field(gt=0)] = 20.0
    """CPU seconds per diagram; the JVM is killed past it and the rest of its batch is
    drawn again in a new one."""
    memory_mb: Annotated[int, Field(ge=256)] = 1536
    """The JVM's address space (its heap is a third of it)."""
    batch_size: Annotated[int, Field(ge=1)] = 32
    """Diagrams per JVM: its start (~0.45 CPU-s) is paid once per batch."""
    cache_dir: str | None = "data/cache/plantuml"
    """Where each diagram drawn alone is kept, content-addressed (keyed by the code, the
    limits and the engine's own bytes; ``engine.draw_many`` says why not a batch's), for
    the stages that draw the same code again (edit, twin, synth) and a rerun, as TeX's
    compiles are in ``render.tikz.cache_dir``; ``None``: not kept."""


def _decode(data: bytes) -> str | None:
    if b"\0" in data[:4096]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")  # PlantUML's -charset default on old systems


@register
class PlantUmlFormat(DiagramFormat):
    name = "plantuml"
    title = "PlantUML"
    suffixes = source.SUFFIXES
    fences = ("plantuml", "puml")
    params_model = PlantUmlParams
    graphs_in_render: ClassVar[bool] = True  # the model comes from the run that drew it

    def __init__(self, params: FormatSettings, locator: Locator):
        super().__init__(params, locator)
        s: PlantUmlParams = self.section  # type: ignore[assignment]
        # the engine's, so the edit module's reads (which see no params) share it
        engine.use_cache(Path(s.cache_dir) if s.cache_dir else None)

    @property
    def caps(self) -> source.Caps:
        s: PlantUmlParams = self.section  # type: ignore[assignment]
        return source.Caps(s.max_bytes, s.max_lines)

    def fence_diagrams(self, block: str) -> list[str]:
        return source.fence_diagrams(block)

    def vet(self, code: str) -> Refusal | None:
        try:
            source.check(code, self.caps)
        except PumlError as exc:
            return Refusal(exc.reason, exc.detail)
        why = declaration(code)  # labels may hold markup: refused as in every format
        return None if why is None else Refusal(UNSAFE_XML, why)

    def extract_file(self, data: bytes, path: str, base: dict, locator: str, unit: Unit
                     ) -> tuple[list[dict], list[Rejection]]:
        """Each ``@start … @end`` of a PlantUML file (Markdown: the registry's
        ``extract``)."""
        if markdown.named(path):
            return super().extract_file(data, path, base, locator, unit)
        text = _decode(data)
        if text is None:
            return [], [Rejection(locator, PumlReason.NOT_TEXT, path, unit=unit)]
        blocks = source.split_diagrams(text)
        if not blocks:
            return [], [Rejection(locator, PumlReason.NO_BLOCKS, path, unit=unit)]
        many = len(blocks) > 1
        out, rejections = [], []
        for k, code in enumerate(blocks):
            where = f"{locator}#diagram{k + 1}" if many else locator
            refused = self.vet(code)
            if refused is not None:
                rejections.append(Rejection(where, refused.reason, refused.detail,
                                            unit=Unit.CANDIDATE if many else unit))
                continue
            out.append(empty_record(**{
                **base, "id": make_id(self.name, code), "format": self.name, "code": code,
                "source_id": f"{base['source_id']}#diagram{k + 1}" if many
                else base["source_id"],
                "meta": json.dumps({"file": path, "diagram": k, "diagrams": len(blocks)}),
            }))
        if many and not out:  # the file as a whole yields nothing: one input
            rejections.append(Rejection(locator, "no_diagrams", f"{len(blocks)} diagrams, "
                                        "none usable", unit=unit))
        return out, rejections

    def batch_size(self) -> int:
        return self.section.batch_size  # type: ignore[attr-defined]

    def unit_timeout(self) -> float | None:
        s: PlantUmlParams = self.section  # type: ignore[assignment]
        return s.timeout_s * s.batch_size + 30

    def _draw(self, rows: list[dict]) -> list[engine.Drawn]:
        """Each row drawn (checked again: a row may come from elsewhere than extract)."""
        s: PlantUmlParams = self.section  # type: ignore[assignment]
        drawn: list[engine.Drawn | None] = []
        todo: list[int] = []
        for k, row in enumerate(rows):
            try:
                source.check(row["code"], self.caps)
            except PumlError as exc:
                drawn.append(engine.Drawn(error=exc))
                continue
            drawn.append(None)
            todo.append(k)
        done = engine.draw_many([rows[k]["code"] for k in todo], s.timeout_s, s.memory_mb)
        for k, d in zip(todo, done, strict=True):
            drawn[k] = d
        return [d for d in drawn if d is not None]

    def render(self, rows: list[dict]) -> Outcome:
        """PlantUML's SVG rasterised (the pipeline's dpi, shrunk to fit ``max_side``); the
        graph from PlantUML's model of the same run."""
        # lazy: loads pymupdf
        from diagramforge.formats.svg.handler import png_record

        out = Outcome()
        for row, d in zip(rows, self._draw(rows), strict=True):
            try:
                if d.error is not None:
                    raise d.error
                cleaned = svgfmt.clean(d.svg).code
            except (PumlError, svgfmt.SvgError) as exc:
                out.rejections.append(Rejection(self.locator(row), exc.reason, exc.detail,
                                                id=row["id"]))
                continue
            rp, size = self.params.render.raster, svgfmt.declared_size(cleaned)
            scale = rp.dpi / 96.0
            if size and max(size) * scale > rp.max_side_px:
                scale = rp.max_side_px / max(size) * 0.999
            before = len(out.records)
            png_record(row, cleaned, f"plantuml:{d.kind.lower()}", self.params, self.locator,
                       out, scale=scale)
            if len(out.records) > before:
                out.records[-1].update(graph_columns(
                    lambda d=d: model_graph(d.kind, d.model, d.svg), out.extra))
        return out

    def export_svg(self, rows: list[dict]) -> list[str | Refusal]:
        """PlantUML's own SVG (sanitised)."""
        out: list[str | Refusal] = []
        for d in self._draw(rows):
            if d.error is not None:
                out.append(d.error)
                continue
            try:
                out.append(svgfmt.clean(d.svg).code)
            except svgfmt.SvgError as exc:
                out.append(exc)
        return out

    def to_graph(self, record: dict, rendered: bytes | None = None) -> Graph | None:
        """From PlantUML's own model of the code."""
        d = self._draw([record])[0]
        if d.error is not None:
            raise d.error
        return model_graph(d.kind, d.model, d.svg)

    def environment(self) -> dict:
        from importlib.metadata import version

        return {**engine.versions(), "sandbox": engine.sandbox_level(),
                "resvg": version("resvg")}
