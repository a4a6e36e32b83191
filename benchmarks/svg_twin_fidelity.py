#!/usr/bin/env python3
"""Which SVG for a TikZ picture?  PyMuPDF's SVG of the compiled PDF or dvisvgm, text kept as
text or drawn as glyph outlines — measured on a real corpus.

For each of ``--limit`` documents spread over the corpus (default: the shared TikZ corpus
``../shared/corpora/latex-examples/tikz``), the first picture is extracted and compiled the
way the render stage does, then turned into SVG four ways:

pymupdf_text   the PDF page through PyMuPDF, ``text_as_path=False`` (cropped as rendered)
pymupdf_paths  the same with ``text_as_path=True``
dvisvgm_text   the picture compiled again by ``latex`` (DVI, pgf's dvisvgm driver), then
               ``dvisvgm --exact-bbox`` (text as ``<text>`` with embedded fonts)
dvisvgm_paths  the same with ``--no-fonts`` (glyph outlines)

Each SVG goes through the project's sanitiser and renderer (resvg) like any SVG, and is
scored on: converts (sanitised and renders), pixel agreement with the PDF's own render (mean
absolute grey difference over the ink boxes aligned and resized, and the relative difference
of their aspect ratios), structure graph equal to the source's (``graph`` of the record: the
TikZ source checked against its page) and to the page geometry's, text kept (share of the
PDF's words found in ``<text>`` elements), seconds and bytes.

Usage: .venv/bin/python benchmarks/svg_twin_fidelity.py [--corpus DIR] [--limit 80]
"""

from __future__ import annotations

import argparse
import io
import json
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import pymupdf
from lxml import etree

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from corpus_latex import DEFAULT_CORPUS, agreement, documents, extract  # noqa: E402

from diagramforge.builders.twin.compare import differences  # noqa: E402
from diagramforge.formats.rasterize import drawn_clip, rasterize_pdf  # noqa: E402
from diagramforge.formats.svg import document as svgfmt  # noqa: E402
from diagramforge.formats.svg.graph import svg_graph  # noqa: E402
from diagramforge.formats.tikz.graph import pdf_graph, tikz_graph  # noqa: E402
from diagramforge.formats.tikz.pdf_svg import pdf_svg  # noqa: E402
from diagramforge.formats.tikz.pictures import Standalone  # noqa: E402
from diagramforge.formats.tikz.texcompile import TexCompiler, tex_env  # noqa: E402
from diagramforge.graphs.settings import GraphParams  # noqa: E402
from diagramforge.sandbox.process import run_sandboxed  # noqa: E402

DPI = 150
BIG = svgfmt.Caps(max_bytes=20_000_000, max_elements=200_000, max_path_chars=5_000_000)


def pymupdf_paths(pdf: bytes) -> str:
    doc = pymupdf.open("pdf", pdf)
    page = doc[0]
    page.set_cropbox(drawn_clip(page, 2.0))
    return svgfmt.clean(page.get_svg_image(text_as_path=True), BIG).code


def dvisvgm(code: str, fonts: bool) -> str | None:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "d.tex").write_text("\\def\\pgfsysdriver{pgfsys-dvisvgm.def}\n" + code)
        run_sandboxed(["latex", "-interaction=nonstopmode", "-halt-on-error",
                       "-no-shell-escape", "d.tex"], work, tex_env(job=work), 60)
        if not (work / "d.dvi").exists():
            return None
        argv = ["dvisvgm", "--exact-bbox", *([] if fonts else ["--no-fonts"]), "-o", "d.svg",
                "d.dvi"]
        run_sandboxed(argv, work, tex_env(job=work), 60)
        out = work / "d.svg"
        return svgfmt.clean(out.read_text(), BIG).code if out.exists() else None


def words_kept(pdf: bytes, svg: str) -> float | None:
    words = [re.sub(r"\s+", "", w[4]) for w in pymupdf.open("pdf", pdf)[0].get_text("words")]
    if not words:
        return None
    root = etree.fromstring(svg.encode())
    text = "".join("".join(el.itertext()) for el in root.iter()
                   if isinstance(el.tag, str) and etree.QName(el).localname == "text")
    text = re.sub(r"\s+", "", text)
    return sum(w in text for w in words) / len(words)


VARIANTS = {
    "pymupdf_text": lambda code, pdf: pdf_svg(pdf),
    "pymupdf_paths": lambda code, pdf: pymupdf_paths(pdf),
    "dvisvgm_text": lambda code, pdf: dvisvgm(code, True),
    "dvisvgm_paths": lambda code, pdf: dvisvgm(code, False),
}


def measure(code: str, pdf: bytes, ref_png: bytes, graphs: dict, gp: GraphParams) -> dict:
    out = {}
    for name, make in VARIANTS.items():
        if name.startswith("dvisvgm") and not shutil.which("dvisvgm"):
            continue
        t0 = time.perf_counter()
        try:
            svg = make(code, pdf)
            if svg is None:
                raise svgfmt.SvgError("no_svg", "the tool wrote no SVG")
            # PyMuPDF writes pt; dvisvgm writes pt too: the PDF render's scale
            png = svgfmt.render_png(svg, DPI / 72, max_side=8000)
        except svgfmt.SvgError as exc:
            out[name] = {"ok": False, "why": exc.reason}
            continue
        secs = time.perf_counter() - t0
        ag = agreement(png, io.BytesIO(ref_png))
        g = svg_graph(svg, gp)
        out[name] = {"ok": True, "seconds": secs, "bytes": len(svg),
                     "aspect": ag[0] if ag else None, "mad": ag[1] if ag else None,
                     "text_kept": words_kept(pdf, svg),
                     **{f"graph_equal_{k}": v is not None and not differences(v, g)
                        for k, v in graphs.items()}}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--limit", type=int, default=80)
    ap.add_argument("--json", type=Path, help="also write every row here")
    args = ap.parse_args()
    docs = documents(args.corpus)
    docs = docs[::max(1, len(docs) // args.limit)][:args.limit]
    gp = GraphParams()
    rows = []
    with tempfile.TemporaryDirectory() as cache:
        tc = TexCompiler(timeout_s=30, cache_dir=cache)
        for doc in docs:
            _, recs, _ = extract(str(doc))
            if not recs:
                continue
            meta = json.loads(recs[0]["meta"])
            sd = Standalone(meta["blocks"], meta["body"])
            res = tc.compile_one(sd)
            if not res.ok or res.pdf is None:
                continue
            ras = rasterize_pdf(res.pdf, dpi=DPI, margin_pt=2.0, min_side=1, max_side=8000,
                                max_aspect=100, min_ink=0)
            if ras.png is None:
                continue
            graphs = {}
            for key, build, argv in (("source", tikz_graph, (sd.code, res.pdf, gp)),
                                     ("page", pdf_graph, (res.pdf, gp))):
                try:
                    graphs[key] = build(*argv)
                except Exception:  # noqa: BLE001 - a figure the extractor cannot read
                    graphs[key] = None
            rows.append({"doc": doc.parent.name,
                         **measure(sd.code, res.pdf, ras.png, graphs, gp)})
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    print(f"{len(rows)} compiled figures of {len(docs)} documents from {args.corpus}\n")
    print(f"{'variant':<14} {'converts':>9} {'MAD':>7} {'aspect':>7} {'text':>6} "
          f"{'=source':>8} {'=page':>6} {'ms':>7} {'KB':>6}")
    for name in VARIANTS:
        got = [r[name] for r in rows if name in r]
        if not got:
            continue
        ok = [x for x in got if x["ok"]]

        def mean(k: str, xs: list = ok) -> float:
            v = [x[k] for x in xs if x.get(k) is not None]
            return statistics.mean(v) if v else float("nan")

        print(f"{name:<14} {len(ok):>4}/{len(got):<4} {mean('mad'):>7.4f} "
              f"{mean('aspect'):>7.4f} {mean('text_kept'):>6.2f} "
              f"{sum(x['graph_equal_source'] for x in ok):>8} "
              f"{sum(x['graph_equal_page'] for x in ok):>6} {1000 * mean('seconds'):>7.0f} "
              f"{statistics.median([x['bytes'] for x in ok]) / 1024:>6.1f}")
    print("\nMAD: mean absolute grey difference from the PDF's render over the aligned ink "
          "boxes (0 = identical);\ntext: share of the PDF's words in <text> elements; "
          "=source / =page: SVG graph equal to the record's\ngraph / to the page geometry's "
          "(node texts, edge count and direction).")


if __name__ == "__main__":
    main()
