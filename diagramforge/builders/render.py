"""The ``render`` stage: compile each diagram with its real tool and rasterize it.

TikZ records of one paper are compiled together (one pdflatex run, one page per figure);
a record that does not render is rejected with the compiler's reason and first error line.
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import ClassVar

from diagramforge.formats.raster import rasterize_pdf
from diagramforge.formats.texcompile import CompileResult, TexCompiler
from diagramforge.formats.tikz import Standalone
from diagramforge.records import Format, Rejection
from diagramforge.runner import Outcome, Stage, WorkUnit


def _standalone(record: dict) -> Standalone:
    meta = json.loads(record.get("meta") or "{}")
    if "blocks" in meta and "body" in meta:
        return Standalone(blocks=meta["blocks"], body=meta["body"])
    # a document from elsewhere: compile it as it is, preamble and all
    code = record["code"]
    head, _, rest = code.partition(r"\begin{document}")
    body = rest.rsplit(r"\end{document}", 1)[0]
    blocks = [ln for ln in head.splitlines() if ln.strip() and "documentclass" not in ln]
    return Standalone(blocks=blocks, body=body.strip())


class RenderStage(Stage):
    name = "render"
    upstream = "extract"
    reads = ("id", "format", "code", "group")
    writes = ("image", "width", "height", "render_status", "render_engine", "render_error")
    param_sections: ClassVar[tuple[str, ...]] = ("render",)

    _tex: TexCompiler | None = None

    def _compiler(self) -> TexCompiler:
        if self._tex is None:
            t = self.params.render.tikz
            self._tex = TexCompiler(engine=t.engine, timeout_s=t.timeout_s,
                                    memory_mb=t.memory_mb, max_output_mb=t.max_output_mb,
                                    use_format=t.use_format, batch=t.batch,
                                    cache_dir=t.cache_dir)
        return self._tex

    def prepare(self) -> None:
        self._compiler().format_dir()  # build the shared format once, before the workers

    def units(self, rows: list[dict]) -> list[WorkUnit]:
        """One unit per (format, group): a paper's TikZ figures compile in one run."""
        groups: dict[tuple[str, str], list[dict]] = defaultdict(list)
        for r in rows:
            groups[(r["format"], r.get("group") or r["id"])].append(r)
        return [WorkUnit(rs, f"{f}:{g}") for (f, g), rs in groups.items()]

    def process(self, unit: WorkUnit) -> Outcome:
        fmt = unit.rows[0]["format"]
        if fmt == Format.TIKZ:
            docs = [_standalone(r) for r in unit.rows]
            results = self._compiler().compile_many(docs)
            return self._rasterize(unit.rows, results, f"{self.params.render.tikz.engine}")
        return Outcome(rejections=[
            Rejection(self.locator(r), "unsupported_format", f"no renderer for {fmt}", id=r["id"])
            for r in unit.rows])

    def _rasterize(self, rows: list[dict], results: list[CompileResult], engine: str
                   ) -> Outcome:
        rp = self.params.render.raster
        out = Outcome()
        for row, res in zip(rows, results, strict=True):
            if not res.ok or res.pdf is None:
                out.rejections.append(Rejection(self.locator(row), f"compile_{res.reason}",
                                                res.error or "", id=row["id"]))
                continue
            ras = rasterize_pdf(res.pdf, dpi=rp.dpi, margin_pt=rp.margin_pt,
                                min_side=rp.min_side_px, max_side=rp.max_side_px,
                                max_aspect=rp.max_aspect, min_ink=rp.min_ink_fraction)
            if ras.png is None:
                out.rejections.append(Rejection(self.locator(row), str(ras.reason), ras.detail,
                                                id=row["id"]))
                continue
            # timings and compile modes depend on the machine and the cache, so they go to
            # the metrics; records stay byte-identical across reruns and resumes
            out.records.append({
                **row, "image": ras.png, "width": ras.width, "height": ras.height,
                "render_status": "ok", "render_engine": engine, "render_error": None,
            })
            for key in ("cache_hits" if res.cached else "compiled", f"mode_{res.mode}"):
                out.extra[key] = out.extra.get(key, 0) + 1
            out.extra["compile_ms"] = out.extra.get("compile_ms", 0) + int(res.seconds * 1000)
        return out
