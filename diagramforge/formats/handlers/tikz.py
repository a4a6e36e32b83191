"""TikZ: standalone documents compiled by sandboxed pdflatex, batched across sources, each
climbing its preamble ladder when the minimal document fails; the PDF page rasterised."""

from __future__ import annotations

import base64
import json
from typing import TYPE_CHECKING

from diagramforge.formats.raster import rasterize_pdf
from diagramforge.formats.registry import DiagramFormat, register
from diagramforge.formats.texcompile import CompileResult, TexCompiler, batch_key, tex_version
from diagramforge.formats.tikz import Standalone
from diagramforge.records import Format, Refusal, Rejection, make_id
from diagramforge.stage import Outcome
from diagramforge.stats import RenderCounter as RC

if TYPE_CHECKING:  # the graph layer loads only when a graph is built (not in extract)
    from diagramforge.graphs.model import Graph


def assets(meta: dict) -> dict[str, bytes]:
    """The binary files extraction carried with the picture (base64 in ``meta``)."""
    return {k: base64.b64decode(v) for k, v in (meta.get("assets") or {}).items()}


def standalone(record: dict) -> Standalone:
    """The record's standalone document: its blocks and body from extraction, or — for a
    document from elsewhere — the code as it is, preamble and all."""
    meta = json.loads(record.get("meta") or "{}")
    if "blocks" in meta and "body" in meta:
        return Standalone(blocks=meta["blocks"], body=meta["body"], assets=assets(meta))
    code = record["code"]
    head, _, rest = code.partition(r"\begin{document}")
    body = rest.rsplit(r"\end{document}", 1)[0]
    blocks = [ln for ln in head.splitlines() if ln.strip() and "documentclass" not in ln]
    return Standalone(blocks=blocks, body=body.strip())


@register
class TikzFormat(DiagramFormat):
    name = Format.TIKZ
    graphs_in_render = True
    _tex: TexCompiler | None = None

    def compiler(self) -> TexCompiler:
        if self._tex is None:
            t = self.params.render.tikz
            self._tex = TexCompiler(engine=t.engine, timeout_s=t.timeout_s,
                                    memory_mb=t.memory_mb, max_output_mb=t.max_output_mb,
                                    use_format=t.use_format, batch=t.batch,
                                    cache_dir=t.cache_dir)
        return self._tex

    def prepare(self) -> None:
        self.compiler().format_dir()  # build the shared format once, before the workers

    def environment(self) -> dict:
        from importlib.metadata import version

        return {"tex": tex_version(self.params.render.tikz.engine),
                "pymupdf": version("pymupdf")}

    def to_graph(self, record: dict, rendered: bytes | None = None) -> Graph | None:
        """Source statements cross-checked with the compiled page's geometry
        (``graphs.tikz``); the source alone when no PDF is given."""
        from diagramforge.graphs.tikz import tikz_graph

        return tikz_graph(record["code"], rendered, self.params.graph)

    def export_svg(self, rows: list[dict]) -> list[str | Refusal]:
        """The compiled page (from the compile cache when it rendered) as SVG with text as
        ``<text>``, cropped as the render is (``formats/pdf_svg.py`` says why PyMuPDF)."""
        from diagramforge.formats import svg as svgfmt
        from diagramforge.formats.pdf_svg import pdf_svg

        results = self.compiler().compile_many([standalone(r) for r in rows],
                                               self.batch_size())
        out: list[str | Refusal] = []
        for res in results:
            if not res.ok or res.pdf is None:
                out.append(Refusal(f"compile_{res.reason}", res.error or ""))
                continue
            try:
                out.append(pdf_svg(res.pdf, self.params.render.raster.margin_pt))
            except svgfmt.SvgError as exc:
                out.append(exc)
        return out

    def batch_key(self, record: dict) -> str:
        """Pictures that can share a pdflatex run (same packages, whatever their source)."""
        return "\n".join(batch_key(standalone(record)))

    def batch_size(self) -> int:
        return self.params.render.tikz.batch_size

    def render(self, rows: list[dict]) -> Outcome:
        rows, results = self._ladder(rows)
        return self._rasterize(rows, results, self.params.render.tikz.engine)

    def _ladder(self, rows: list[dict]) -> tuple[list[dict], list[CompileResult]]:
        """Compile each picture's minimal document; those that fail climb their preamble
        ladder (the source's preamble verbatim, then with the body-level setup), rung by
        rung, batched.  A picture that compiles on a higher rung becomes that document: its
        code, id and ``preamble_mode`` change, so code and image always match."""
        metas = [json.loads(r.get("meta") or "{}") for r in rows]
        ladders = [[standalone(r)] + [Standalone(blocks=g["blocks"], body=g["body"],
                                                assets=assets(m))
                                     for g in m.get("ladder", [])]
                   for r, m in zip(rows, metas, strict=True)]
        compiled = self.compiler().compile_ladders(ladders, self.batch_size())
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
            rec = {**row, "image": ras.png, "width": ras.width, "height": ras.height,
                   "render_status": "ok", "render_engine": engine, "render_error": None}
            # the PDF is at hand only here: the graph is built now, not after render
            from diagramforge.graphs.record import graph_columns

            rec.update(graph_columns(lambda r=rec, pdf=res.pdf: self.to_graph(r, pdf),
                                     out.extra))
            out.records.append(rec)
            keys = [RC.CACHE_HITS] if res.cached else [RC.COMPILED, f"{RC.MODE}{res.mode}"]
            mode = json.loads(row.get("meta") or "{}").get("preamble_mode")
            if mode:
                keys.append(f"{RC.PREAMBLE_MODE}{mode}")
            for key in keys:
                out.extra[key] = out.extra.get(key, 0) + 1
            ms = int(res.seconds * 1000)
            out.extra[RC.COMPILE_MS] = out.extra.get(RC.COMPILE_MS, 0) + ms
        return out
