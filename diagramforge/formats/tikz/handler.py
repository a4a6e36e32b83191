"""TikZ: standalone documents compiled by sandboxed TeX, batched across sources, each
climbing its ladder of documents (minimal preamble … the source document as written) and of
engines (the one its preamble asks for, else pdfLaTeX → LuaLaTeX → XeLaTeX) until one
compiles; the PDF page rasterised."""

from __future__ import annotations

import base64
import json
from typing import TYPE_CHECKING

from diagramforge.formats.picture import Picture
from diagramforge.formats.rasterize import keep_render, rasterize_pdf
from diagramforge.formats.registry import DiagramFormat, Finish, register
from diagramforge.formats.svg import document as svgfmt
from diagramforge.formats.tikz import snippet
from diagramforge.formats.tikz.pictures import Standalone
from diagramforge.formats.tikz.texcompile import (
    Attempt,
    CompileResult,
    TexCompiler,
    batch_key,
    tex_version,
)
from diagramforge.formats.tikz.texengines import Engine, allowed, choose_engines, sandbox_level
from diagramforge.graphs.record import graph_columns
from diagramforge.measure.stats import RenderCounter as RC
from diagramforge.stage import Outcome
from diagramforge.store.records import Format, Refusal, Rejection, Unit, make_id

ADDED_META = ("added_packages", "added_libraries", "added_for")
"""What a record's ``meta`` says was added to its document for its names (``tikz_needs``)."""

if TYPE_CHECKING:  # the graph layer loads only when a graph is built (not in extract)
    from diagramforge.graphs.model import Graph


def assets(meta: dict) -> dict[str, bytes]:
    """The binary files extraction carried with the picture (base64 in ``meta``)."""
    return {k: base64.b64decode(v) for k, v in (meta.get("assets") or {}).items()}


def standalone(record: dict) -> Standalone:
    """The record's standalone document: its blocks and body from extraction (or the whole
    source document it climbed to), or — for a document from elsewhere — its code read into
    whole preamble constructs and a body, with the files its ``meta`` carries from its
    picture (``formats.encoding.carried_meta``; see :func:`rungs` for the code kept whole)."""
    meta = json.loads(record.get("meta") or "{}")
    if meta.get("document") is not None:
        return Standalone([], "", document=meta["document"], assets=assets(meta))
    if "blocks" in meta and "body" in meta:
        return Standalone(blocks=meta["blocks"], body=meta["body"], assets=assets(meta))
    return Standalone.from_document(record["code"], assets(meta))


def rungs(record: dict, meta: dict) -> list[Standalone]:
    """The documents a record may compile as, in order: its own, then its ladder from
    extraction; a document from elsewhere (an edit, a repair, another source) is also
    tried as it is written, class and all — even when its parts print the same text: the
    first rung is compiled as a batch composes it (a preloaded format, the global blocks in
    the preamble, the rest in the page's group), which is not the document as written."""
    first = standalone(record)
    out = [first]
    for g in meta.get("ladder", []):
        extra = {k: base64.b64decode(v) for k, v in (g.get("assets") or {}).items()}
        if g.get("document") is not None:
            out.append(Standalone([], "", document=g["document"],
                                  assets={**assets(meta), **extra}))
        else:
            out.append(Standalone(blocks=g["blocks"], body=g["body"], assets=assets(meta)))
    code = record.get("code") or ""
    if not meta.get("ladder") and first.document is None and "\\documentclass" in code:
        out.append(Standalone([], "", document=code, assets=first.assets))
    return out


def attempts(docs: list[Standalone], engines: list[Engine]) -> list[Attempt]:
    """The ladder times the engines: every rung with the first engine; with each other
    engine, the smallest document and the source document (DaTikZ tries whole documents
    with pdfLaTeX, LuaLaTeX, XeLaTeX; the rungs between are preamble variants that a
    change of engine does not mend)."""
    out: list[Attempt] = [(d, engines[0]) for d in docs]
    ends = [0] if len(docs) == 1 else [0, len(docs) - 1]
    for e in engines[1:]:
        out += [(docs[k], e) for k in ends]
    return out


@register
class TikzFormat(DiagramFormat):
    name = Format.TIKZ
    title = "TikZ"
    graphs_in_render = True
    batch_amortised = True  # one pdflatex run for a batch of pictures
    graph_unit_pt = 1.0  # boxes in pt
    suffixes = (".tex",)
    """A repository's (or code archive's) TeX file with a picture in it; arXiv e-prints go
    through ``formats/tikz/extract.py`` whole."""
    _tex: TexCompiler | None = None

    def claims_file(self, path: str, data: bytes) -> bool:
        """A ``.tex`` file that opens one of the picture environments or commands (the test
        a posted code block's claim makes, :func:`~.snippet.claims`)."""
        return self.claims(path) and snippet.claims(data, self.params.extract)

    def extract_file(self, data: bytes, path: str, base: dict, locator: str, unit: Unit
                     ) -> tuple[list[dict], list[Rejection]]:
        # the paper extractor, on a file instead of an e-print (loaded when a file comes)
        # lazy: loads pymupdf
        from diagramforge.formats.tikz.tex_file import tex_file_records

        return tex_file_records(data, path, base, locator, unit, self.params.extract)

    def compiler(self) -> TexCompiler:
        if self._tex is None:
            t = self.params.render.tikz
            self._tex = TexCompiler(engine=t.engines[0], timeout_s=t.timeout_s,
                                    memory_mb=t.memory_mb, max_output_mb=t.max_output_mb,
                                    use_format=t.use_format, batch=t.batch,
                                    cache_dir=t.cache_dir)
        return self._tex

    def prepare(self) -> None:
        self.compiler().format_dir()  # build the shared format once, before the workers

    def environment(self) -> dict:
        from importlib.metadata import version

        return {"tex": {e: tex_version(e) for e in self.params.render.tikz.engines},
                "tex_sandbox": sandbox_level(), "pymupdf": version("pymupdf")}

    def to_graph(self, record: dict, rendered: bytes | None = None) -> Graph | None:
        """Source statements cross-checked with the compiled page's geometry
        (``graphs.tikz``); the source alone when no PDF is given."""
        # lazy: loads pymupdf, scipy
        from diagramforge.formats.tikz.graph import tikz_graph

        return tikz_graph(record["code"], rendered, self.params.graph)

    def export_svg(self, rows: list[dict]) -> list[str | Refusal]:
        """The compiled page (from the compile cache when it rendered) as SVG with text as
        ``<text>``, cropped as the render is (``formats/tikz/pdf_svg.py`` says why PyMuPDF)."""
        # lazy: loads pymupdf
        from diagramforge.formats.tikz.pdf_svg import pdf_svg

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
        return self._rasterize(rows, results)

    def draw(self, rows: list[dict], finish: Finish | None = None) -> Outcome:
        """:meth:`render` with PyMuPDF's pixels instead of a PNG (none is encoded)."""
        rows, results = self._ladder(rows)
        return self._rasterize(rows, results, pixels=True, finish=finish)

    def _ladder(self, rows: list[dict]) -> tuple[list[dict], list[CompileResult]]:
        """Compile each picture's minimal document; those that fail climb their ladder
        (preamble variants, then the source document as written; then other engines),
        attempt by attempt, batched.  A picture that compiles on a higher rung becomes that
        document: its code, id and ``preamble_mode`` change, so code and image always
        match; ``engine`` says which engine compiled it."""
        permitted = list(self.params.render.tikz.engines)
        metas = [json.loads(r.get("meta") or "{}") for r in rows]
        docs = [rungs(r, m) for r, m in zip(rows, metas, strict=True)]
        plans = []
        for r, m, d in zip(rows, metas, docs, strict=True):
            order = m.get("engines") or choose_engines(r.get("code") or "")
            plans.append(attempts(d, allowed([Engine(e) for e in order], permitted)))
        compiled = self.compiler().compile_ladders(plans, self.batch_size())
        rows = list(rows)
        results = []
        for k, (res, step) in enumerate(compiled):
            results.append(res)
            if not res.ok:
                continue
            doc = plans[k][step][0]
            rung = docs[k].index(doc)
            meta = {**metas[k], "engine": str(res.engine)}
            if rung > 0:
                ladder = metas[k].get("ladder", [])
                meta["preamble_mode"] = ladder[rung - 1]["mode"] if ladder else "source"
                # the loads added for its names are the rung's own (none on the source rung)
                for key in ADDED_META:
                    meta.pop(key, None)
                    if ladder and ladder[rung - 1].get(key):
                        meta[key] = ladder[rung - 1][key]
                if doc.document is not None:
                    meta.update(document=doc.document, blocks=[], body="")
                else:
                    meta.update(blocks=doc.blocks, body=doc.body)
                if doc.assets:
                    meta["assets"] = {n: base64.b64encode(v).decode()
                                      for n, v in doc.assets.items()}
            rows[k] = {**rows[k], "code": doc.code, "id": make_id(Format.TIKZ, doc.code),
                       "meta": json.dumps(meta)}
        return rows, results

    def _rasterize(self, rows: list[dict], results: list[CompileResult], pixels: bool = False,
                   finish: Finish | None = None) -> Outcome:
        """Each compiled page rasterised, checked, its graph built from the PDF: a PNG per
        record, or with ``pixels`` (:meth:`draw`) a picture of its pixels, handed to
        ``finish``."""
        rp = self.params.render.raster
        out = Outcome()
        for row, res in zip(rows, results, strict=True):
            if not res.ok or res.pdf is None:
                out.rejections.append(Rejection(self.locator(row), f"compile_{res.reason}",
                                                res.error or "", id=row["id"]))
                continue
            ras = rasterize_pdf(res.pdf, dpi=rp.dpi, margin_pt=rp.margin_pt,
                                min_side=rp.min_side_px, max_side=rp.max_side_px,
                                max_aspect=rp.max_aspect, min_ink=rp.min_ink_fraction,
                                png=not pixels)
            # the PDF is at hand only here: the graph is built now, not after render
            # timings and compile modes depend on the machine and the cache, so they go to
            # the metrics; records stay byte-identical across reruns and resumes
            image = ras.png if ras.pixels is None else Picture.of_pixels(ras.pixels)
            rec = keep_render(out, self.locator(row), row,
                              None if ras.ok else (str(ras.reason), ras.detail),
                              ras.width, ras.height, str(res.engine), image,
                              lambda r, pdf=res.pdf: graph_columns(
                                  lambda: self.to_graph(r, pdf), out.extra))
            if rec is None:
                continue
            if finish is not None:
                finish(rec)
            keys = [RC.CACHE_HITS] if res.cached else [RC.COMPILED, f"{RC.MODE}{res.mode}"]
            meta = json.loads(row.get("meta") or "{}")
            if meta.get("preamble_mode"):
                keys.append(f"{RC.PREAMBLE_MODE}{meta['preamble_mode']}")
            keys.append(f"{RC.ENGINE}{res.engine}")
            for key in keys:
                out.extra[key] = out.extra.get(key, 0) + 1
            ms = int(res.seconds * 1000)
            out.extra[RC.COMPILE_MS] = out.extra.get(RC.COMPILE_MS, 0) + ms
        return out
