"""The ``render`` stage: render each diagram with its real tool and rasterize it.

TikZ: pdflatex, a paper's figures in one run.  mxGraph: validated, then drawn by draw.io's
own engine in headless Chromium.  SVG: resvg (or cairosvg).  A diagram that does not
render is rejected with the tool's reason; for mxGraph, what is kept is exactly what is
valid ∧ rendered (VCG-Bench's Execution Success), counted in the metrics.
"""

from __future__ import annotations

import json
import subprocess
from collections import defaultdict
from typing import ClassVar

from diagramforge.formats import mxgraph
from diagramforge.formats.drawio_render import DrawioRenderer, find_chromium, find_drawio
from diagramforge.formats.raster import check_extremes, rasterize_pdf
from diagramforge.formats.svg import SvgError, png_ink, render_png
from diagramforge.formats.texcompile import CompileResult, TexCompiler, batch_key, tex_version
from diagramforge.formats.tikz import Standalone
from diagramforge.records import Format, Rejection, make_id
from diagramforge.stage import Outcome, Stage, WorkUnit
from diagramforge.stats import RenderCounter as RC


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
    """Compile every diagram with its real tool (sandboxed pdflatex for TikZ, batched
    across sources; draw.io's own engine for mxGraph; resvg for SVG) and rasterize it,
    rejecting failures, blanks and extreme scales."""

    name = "render"
    upstream = "extract"
    reads = ("id", "format", "code", "group")
    writes = ("image", "width", "height", "render_status", "render_engine", "render_error")
    param_sections: ClassVar[tuple[str, ...]] = ("render",)
    code = ("formats", "sandbox.py")
    inputs = ("package-lock.json",)

    _tex: TexCompiler | None = None
    _renderer: DrawioRenderer | None = None

    def _compiler(self) -> TexCompiler:
        if self._tex is None:
            t = self.params.render.tikz
            self._tex = TexCompiler(engine=t.engine, timeout_s=t.timeout_s,
                                    memory_mb=t.memory_mb, max_output_mb=t.max_output_mb,
                                    use_format=t.use_format, batch=t.batch,
                                    cache_dir=t.cache_dir)
        return self._tex

    def environment(self) -> dict:
        from importlib.metadata import version

        drawio = find_drawio()
        chromium = find_chromium()
        return {
            "tex": tex_version(self.params.render.tikz.engine),
            "drawio": json.loads((drawio / "package.json").read_text()).get("version")
            if drawio else None,
            "chromium": subprocess.run([chromium, "--version"], capture_output=True,
                                       text=True, timeout=30).stdout.strip()
            if chromium else None,
            "resvg": version("resvg"), "cairosvg": version("cairosvg"),
            "pymupdf": version("pymupdf"),
        }

    def prepare(self) -> None:
        self._compiler().format_dir()  # build the shared format once, before the workers

    def units(self, rows: list[dict]) -> list[WorkUnit]:
        """TikZ: pictures that can share a pdflatex run (same packages, whatever their
        source) in units of ``render.tikz.batch_size``, so one figure per source batches as
        well as one paper with many.  mxGraph: chunks of a repository's pages, one draw.io
        call each.  SVG: small chunks, for parallelism."""
        groups: dict[tuple[str, str], list[dict]] = defaultdict(list)
        for r in rows:
            if r["format"] == Format.TIKZ:
                key = "\n".join(batch_key(_standalone(r)))
            elif r["format"] == Format.SVG:
                key = "svg"
            else:
                key = r.get("group") or r["id"]
            groups[(r["format"], key)].append(r)
        size = {Format.MXGRAPH: self.params.render.mxgraph.batch_size, Format.SVG: 16,
                Format.TIKZ: self.params.render.tikz.batch_size}
        # a draw.io call cannot be interrupted from Python: the unit's deadline is the batch's
        limit = {Format.MXGRAPH: self.params.render.mxgraph.timeout_s}
        units = []
        for (f, g), rs in groups.items():
            step = size.get(f, len(rs))
            units += [WorkUnit(rs[k:k + step], f"{f}:{g}:{k}", limit.get(f))
                      for k in range(0, len(rs), step)]
        return units

    def process(self, unit: WorkUnit) -> Outcome:
        fmt = unit.rows[0]["format"]
        if fmt == Format.TIKZ:
            rows, results = self._ladder(unit.rows)
            return self._rasterize(rows, results, f"{self.params.render.tikz.engine}")
        if fmt == Format.MXGRAPH:
            return self._mxgraph(unit.rows)
        if fmt == Format.SVG:
            return self._svg(unit.rows)
        return Outcome(rejections=[
            Rejection(self.locator(r), "unsupported_format", f"no renderer for {fmt}", id=r["id"])
            for r in unit.rows])

    # -- SVG and mxGraph ------------------------------------------------------------------
    def _png_record(self, row: dict, svg_text: str, engine: str, out: Outcome) -> None:
        """Rasterize a source SVG and check its extremes."""
        rp = self.params.render.raster
        try:
            png = render_png(svg_text, rp.dpi / 96.0, self.params.render.svg.engine,
                             max_side=rp.max_side_px)
        except SvgError as exc:
            out.rejections.append(Rejection(self.locator(row), exc.reason, exc.detail,
                                            id=row["id"]))
            return
        w, h, ink = png_ink(png)
        bad = check_extremes(w, h, ink, min_side=rp.min_side_px, max_side=rp.max_side_px,
                             max_aspect=rp.max_aspect, min_ink=rp.min_ink_fraction)
        if bad:
            out.rejections.append(Rejection(self.locator(row), bad[0], bad[1], id=row["id"]))
            return
        out.records.append({**row, "image": png, "width": w, "height": h, "render_status": "ok",
                            "render_engine": engine, "render_error": None})

    def _svg(self, rows: list[dict]) -> Outcome:
        out = Outcome()
        for row in rows:
            self._png_record(row, row["code"], self.params.render.svg.engine, out)
        return out

    def _drawio(self) -> DrawioRenderer:
        if self._renderer is None:
            self._renderer = DrawioRenderer(timeout_s=self.params.render.mxgraph.timeout_s)
        return self._renderer

    def _mxgraph(self, rows: list[dict]) -> Outcome:
        """Validate, render with draw.io (SVG and PNG in the browser), check: the records
        kept are exactly the pages that are valid ∧ rendered (Execution Success).

        A drawing larger than ``max_side_px`` at the pipeline's DPI is scaled down to fit,
        not rejected; what is still degenerate after that (too thin, blank) is rejected by
        the shared extremes policy."""
        rp = self.params.render.raster
        out = Outcome(extra={RC.MXGRAPH_PAGES: len(rows)})
        valid: list[dict] = []
        for row in rows:
            errs = mxgraph.validate(mxgraph.parse_xml(row["code"]))
            if errs:
                out.rejections.append(Rejection(self.locator(row), "mxgraph_invalid",
                                                "; ".join(errs[:5]), id=row["id"]))
            else:
                valid.append(row)
        out.extra[RC.MXGRAPH_VALID] = len(valid)
        size = self.params.render.mxgraph.batch_size
        rendered = 0
        for k in range(0, len(valid), size):
            batch = valid[k:k + size]
            try:
                results = self._drawio().render_many(
                    [mxgraph.for_render(r["code"]) for r in batch], svg=False, png=True,
                    scale=rp.dpi / 96.0, max_side=rp.max_side_px,
                    ink_enough=rp.min_ink_fraction)
            except Exception as exc:  # noqa: BLE001 - a dead browser fails this batch only
                self._close_drawio()
                out.rejections += [Rejection(self.locator(r), "mxgraph_render_failed",
                                             repr(exc)[:300], id=r["id"]) for r in batch]
                continue
            for row, res in zip(batch, results, strict=True):
                if not res.ok or not res.png:
                    out.rejections.append(Rejection(self.locator(row), "mxgraph_render_failed",
                                                    res.error or "no PNG", id=row["id"]))
                    continue
                w, h = int(res.width), int(res.height)
                bad = check_extremes(w, h, res.ink, min_side=rp.min_side_px,
                                     max_side=rp.max_side_px, max_aspect=rp.max_aspect,
                                     min_ink=rp.min_ink_fraction)
                if bad:
                    out.rejections.append(Rejection(self.locator(row), bad[0], bad[1],
                                                    id=row["id"]))
                    continue
                out.records.append({**row, "image": res.png, "width": w, "height": h,
                                    "render_status": "ok", "render_engine": "drawio",
                                    "render_error": None})
                rendered += 1
        out.extra[RC.MXGRAPH_RENDERED] = rendered
        return out

    def _close_drawio(self) -> None:
        if self._renderer is not None:
            self._renderer.close()
        self._renderer = None

    def _ladder(self, rows: list[dict]) -> tuple[list[dict], list[CompileResult]]:
        """Compile each picture's minimal document; those that fail climb their preamble
        ladder (the source's preamble verbatim, then with the body-level setup), rung by
        rung, batched.  A picture that compiles on a higher rung becomes that document: its
        code, id and ``preamble_mode`` change, so code and image always match."""
        metas = [json.loads(r.get("meta") or "{}") for r in rows]
        ladders = [[_standalone(r)] + [Standalone(blocks=g["blocks"], body=g["body"])
                                      for g in m.get("ladder", [])]
                   for r, m in zip(rows, metas, strict=True)]
        compiled = self._compiler().compile_ladders(ladders,
                                                    self.params.render.tikz.batch_size)
        rows = list(rows)
        results = []
        for k, (res, rung) in enumerate(compiled):
            results.append(res)
            if res.ok and rung > 0:
                doc = ladders[k][rung]
                meta = {**metas[k], "blocks": doc.blocks, "body": doc.body,
                        "preamble_mode": metas[k]["ladder"][rung - 1]["mode"]}
                rows[k] = {**rows[k], "code": doc.code, "id": make_id(Format.TIKZ, doc.code),
                           "meta": json.dumps(meta)}
        return rows, results

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
            keys = [RC.CACHE_HITS] if res.cached else [RC.COMPILED, f"{RC.MODE}{res.mode}"]
            mode = json.loads(row.get("meta") or "{}").get("preamble_mode")
            if mode:
                keys.append(f"{RC.PREAMBLE_MODE}{mode}")
            for key in keys:
                out.extra[key] = out.extra.get(key, 0) + 1
            ms = int(res.seconds * 1000)
            out.extra[RC.COMPILE_MS] = out.extra.get(RC.COMPILE_MS, 0) + ms
        return out
