#!/usr/bin/env python3
"""The toolkit against plain pdflatex on a real corpus of standalone TikZ figures.

For every ``<dir>/<name>.tex`` document of the corpus (default: the shared development
corpus ``../shared/corpora/latex-examples/tikz``, MIT, with the author's reference PNGs):

plain:   ``pdflatex`` on the document as its author wrote it, in a copy of its directory
         (data files beside it), sandboxed like the toolkit, one run per document;
toolkit: the directory as a source archive → :func:`extract_paper` (minimal standalone
         document per picture, with its ladder up to the source document as written) →
         compile the way the render stage does (pictures of all sources grouped by batch
         key, units of ``--batch-size``, ladder rungs and engines for failures), cold cache
         → :func:`rasterize_pdf`.

Prints the yield of each (and of plain pdfLaTeX → LuaLaTeX → XeLaTeX, DaTikZ's builder),
the toolkit/plain ratios, the documents plain pdflatex compiles and the toolkit does not
(reason and first error line), the rung and engine that compiled, wall times and the
speed-up, render agreement with the reference PNGs (ink-box aspect within 2 %, a pixel
difference score), and for heavy figures the split of plain time into start-up and
typesetting, against the toolkit's time for the same figure.

Usage: .venv/bin/python benchmarks/corpus_latex.py [--corpus DIR] [--limit N] [--workers 2]
"""

from __future__ import annotations

import argparse
import io
import json
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
from PIL import Image

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from diagramforge.builders.extract.settings import ExtractParams  # noqa: E402
from diagramforge.formats.rasterize import rasterize_pdf  # noqa: E402
from diagramforge.formats.settings import RasterParams  # noqa: E402
from diagramforge.formats.tikz.extract import extract_paper  # noqa: E402
from diagramforge.formats.tikz.handler import attempts, rungs  # noqa: E402
from diagramforge.formats.tikz.pictures import Standalone  # noqa: E402
from diagramforge.formats.tikz.texcompile import (  # noqa: E402
    TexCompiler,
    batch_key,
    classify,
    tex_env,
)
from diagramforge.formats.tikz.texengines import DEFAULT_ORDER, Engine, allowed  # noqa: E402

# ../shared from the main checkout, ../../shared from a worktree under wt/
_SHARED = next((p for p in (REPO.parent / "shared", REPO.parent.parent / "shared")
                if p.exists()), REPO.parent / "shared")
DEFAULT_CORPUS = _SHARED / "corpora" / "latex-examples" / "tikz"
_DOCCLASS = re.compile(rb"^\s*\\documentclass", re.M)
HEAVY_S = 3.0
RUNG_ORDER = ["minimal", "preamble", "setup", "source"]


def documents(corpus: Path) -> list[Path]:
    return sorted(p for p in corpus.glob("*/*.tex") if _DOCCLASS.search(p.read_bytes()))


def plain(tex: str, timeout_s: float = 120, engine: str = "pdflatex") -> dict:
    """``engine`` on the author's document, in a copy of its directory."""
    src = Path(tex)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "w"
        shutil.copytree(src.parent, work)
        t0 = time.perf_counter()
        try:
            res = subprocess.run([engine, "-interaction=nonstopmode", "-halt-on-error",
                                  "-no-shell-escape", src.name], cwd=work, env=tex_env(job=work),
                                 capture_output=True, timeout=timeout_s)
            ok = res.returncode == 0 and (work / src.with_suffix(".pdf").name).exists()
            log = work / src.with_suffix(".log").name
            err = "" if ok else classify(log.read_text(errors="replace")
                                         if log.exists() else "")[1]
        except subprocess.TimeoutExpired:
            ok, err = False, f"timeout after {timeout_s:g}s"
        return {"ok": ok, "seconds": time.perf_counter() - t0, "error": err}


def plain_engines(tex: str, timeout_s: float = 120) -> dict:
    """DaTikZ's builder on the author's document: pdfLaTeX, then LuaLaTeX, then XeLaTeX."""
    first = plain(tex, timeout_s)
    if first["ok"]:
        return {**first, "engine": "pdflatex"}
    for engine in ("lualatex", "xelatex"):
        res = plain(tex, timeout_s, engine)
        if res["ok"]:
            return {**res, "engine": engine}
    return {**first, "engine": None}


def plain_startup(tex: str) -> float:
    """Plain time of the same document with an empty body: start-up and preamble."""
    src = Path(tex)
    text = src.read_text(errors="replace")
    head = text.split("\\begin{document}")[0]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "w"
        shutil.copytree(src.parent, work)
        (work / "empty.tex").write_text(head + "\\begin{document}\\null\\end{document}\n")
        t0 = time.perf_counter()
        subprocess.run(["pdflatex", "-interaction=nonstopmode", "-no-shell-escape",
                        "empty.tex"], cwd=work, env=tex_env(job=work), capture_output=True,
                       timeout=120)
        return time.perf_counter() - t0


def source_archive(tex: Path) -> bytes:
    """The document's directory as an e-print: its root, the files it inputs, its data.
    Other documents of the same directory (each a root of its own) stay out."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as t:
        for p in sorted(tex.parent.iterdir()):
            # the author's own outputs (<name>.png/.pdf) stay out; images the figure
            # includes are part of its source
            if not p.is_file() or (p.stem == tex.stem and p.suffix.lower() in (".png", ".pdf")):
                continue
            if p.suffix == ".tex" and p != tex and _DOCCLASS.search(p.read_bytes()):
                continue
            t.add(p, arcname=p.name)
    return buf.getvalue()


def extract(tex: str) -> tuple[str, list[dict], list[str]]:
    path = Path(tex)
    ex = extract_paper(source_archive(path), {"id": path.stem, "version": "1",
                                              "authors": "[]"}, ExtractParams())
    recs = [r for r in ex.records if r["format"] == "tikz"]
    return tex, recs, [f"{r.reason}: {r.detail[:100]}" for r in ex.rejections]


_TC: TexCompiler | None = None


def _init(cache: str, timeout_s: float) -> None:
    global _TC
    _TC = TexCompiler(timeout_s=timeout_s, cache_dir=cache)


def compile_unit(unit: list[dict]) -> list[dict]:
    """What the render stage does with one unit: every picture's ladder of documents and
    engines (the TikZ handler's plan), batched step by step, then the raster."""
    assert _TC is not None
    rp = RasterParams()
    metas = [json.loads(r["meta"]) for r in unit]
    docs = [rungs(r, m) for r, m in zip(unit, metas, strict=True)]
    plans = [attempts(d, allowed([Engine(e) for e in m.get("engines", DEFAULT_ORDER)],
                                 [str(e) for e in DEFAULT_ORDER]))
             for d, m in zip(docs, metas, strict=True)]
    compiled = _TC.compile_ladders(plans)
    out = []
    for rec, m, d, plan, (res, step) in zip(unit, metas, docs, plans, compiled, strict=True):
        rung = d.index(plan[step][0])
        mode = "minimal" if rung == 0 else m["ladder"][rung - 1]["mode"]
        row = {"tex": rec["tex"], "ok": res.ok, "reason": res.reason, "error": res.error,
               "mode": mode, "engine": str(res.engine), "batch": res.mode, "png": None,
               "seconds": res.seconds}
        if res.ok and res.pdf:
            ras = rasterize_pdf(res.pdf, dpi=rp.dpi, margin_pt=rp.margin_pt,
                                min_side=rp.min_side_px, max_side=rp.max_side_px,
                                max_aspect=rp.max_aspect, min_ink=rp.min_ink_fraction)
            row["png"] = ras.png
            if ras.png is None:
                row.update(ok=False, reason=ras.reason, error=ras.detail)
        out.append(row)
    return out


def ink_box(img: Image.Image) -> tuple[np.ndarray, tuple[int, int, int, int]] | None:
    """Grey pixels on white and their ink bounding box (transparent counts as white)."""
    rgba = np.asarray(img.convert("RGBA"), dtype=np.float32) / 255.0
    grey = rgba[..., :3].mean(axis=2) * rgba[..., 3] + (1 - rgba[..., 3])
    ys, xs = np.nonzero(grey < 0.9)
    if len(xs) == 0:
        return None
    return grey, (xs.min(), ys.min(), xs.max() + 1, ys.max() + 1)


def agreement(ours: bytes, reference: Path) -> tuple[float, float] | None:
    """(relative difference of the ink boxes' aspect ratios, mean absolute pixel difference
    of the ink boxes resized to the reference's), or None when either is blank."""
    a = ink_box(Image.open(io.BytesIO(ours)))
    b = ink_box(Image.open(reference))
    if a is None or b is None:
        return None
    (ga, (x0, y0, x1, y1)), (gb, (u0, v0, u1, v1)) = a, b
    ra, rb = (x1 - x0) / (y1 - y0), (u1 - u0) / (v1 - v0)
    crop_a = Image.fromarray((ga[y0:y1, x0:x1] * 255).astype(np.uint8))
    crop_b = gb[v0:v1, u0:u1]
    resized = np.asarray(crop_a.resize((u1 - u0, v1 - v0), Image.Resampling.BILINEAR),
                         dtype=np.float32) / 255.0
    return abs(ra - rb) / rb, float(np.abs(resized - crop_b).mean())


def in_documents(root: Path, timeout_s: float) -> None:
    """Multi-file documents with TikZ in the text: does a picture that compiles inside its
    document compile standalone?  (The document itself is compiled plainly first.)"""
    print(f"\nmulti-file documents under {root}:")
    total = ok = 0
    for d in sorted(p for p in root.iterdir() if p.is_dir()):
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w") as t:
            for f in sorted(d.rglob("*")):
                built = f.suffix.lower() == ".pdf" and f.with_suffix(".tex").exists()
                if f.is_file() and not built:  # included images are sources; outputs not
                    t.add(f, arcname=f.relative_to(d).as_posix())
        ex = extract_paper(buf.getvalue(), {"id": d.name, "version": "1", "authors": "[]"},
                           ExtractParams())
        recs = [r for r in ex.records if r["format"] == "tikz"]
        root_tex = json.loads(recs[0]["meta"])["root"] if recs else None
        inside = plain(str(d / root_tex), timeout_s)["ok"] if root_tex else False
        if not recs:
            print(f"  {d.name}: no TikZ pictures")
            continue
        with tempfile.TemporaryDirectory() as cache:
            _init(cache, timeout_s)
            rows = compile_unit([{**r, "tex": d.name} for r in recs])
        n_ok = sum(r["ok"] for r in rows)
        print(f"  {d.name} ({root_tex}): document compiles: {inside}; pictures standalone "
              f"{n_ok}/{len(rows)}; rungs {dict(Counter(r['mode'] for r in rows if r['ok']))}"
              f"; engines {dict(Counter(r['engine'] for r in rows if r['ok']))}"
              + "".join(f"\n    {r['reason']}: {(r['error'] or '')[:120]}"
                        for r in rows if not r["ok"]))
        if inside:
            total += len(rows)
            ok += n_ok
    if total:
        print(f"  of pictures in documents that compile: {ok}/{total} standalone "
              f"({100 * ok / total:.1f} %)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--json", type=Path, help="write the per-document results here")
    a = ap.parse_args()
    if not a.corpus.exists():
        print(f"corpus {a.corpus} not found: nothing to measure")
        return
    docs = documents(a.corpus)[: a.limit or None]
    names = [str(d) for d in docs]
    print(f"{len(docs)} documents under {a.corpus}, {a.workers} workers")

    t0 = time.perf_counter()
    with ProcessPoolExecutor(a.workers) as ex:
        base = dict(zip(names, ex.map(plain, names), strict=True))
    t_plain = time.perf_counter() - t0
    # DaTikZ's builder would go on with LuaLaTeX, then XeLaTeX, where pdfLaTeX fails
    failed = [t for t in names if not base[t]["ok"]]
    with ProcessPoolExecutor(a.workers) as ex:
        rescued = dict(zip(failed, ex.map(plain_engines, failed), strict=True))

    t0 = time.perf_counter()
    with ProcessPoolExecutor(a.workers) as ex:
        extracted = list(ex.map(extract, names))
    t_extract = time.perf_counter() - t0
    records, no_pictures = [], {}
    for tex, recs, rejections in extracted:
        if not recs:
            no_pictures[tex] = "; ".join(rejections) or "no pictures"
        records += [{**r, "tex": tex} for r in recs]
    groups: dict[tuple[str, ...], list[dict]] = defaultdict(list)
    for r in records:
        m = json.loads(r["meta"])
        groups[batch_key(Standalone(m["blocks"], m["body"]))].append(r)
    units = [g[k:k + a.batch_size] for g in groups.values()
             for k in range(0, len(g), a.batch_size)]
    with tempfile.TemporaryDirectory() as cache:
        t0 = time.perf_counter()
        with ProcessPoolExecutor(a.workers, initializer=_init,
                                 initargs=(cache, a.timeout)) as ex:
            rows = [row for unit in ex.map(compile_unit, units) for row in unit]
        t_tool = time.perf_counter() - t0

    per_doc: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        per_doc[row["tex"]].append(row)
    tool_ok = {t: bool(per_doc.get(t)) and all(r["ok"] for r in per_doc[t]) for t in names}
    plain_ok = [t for t in names if base[t]["ok"]]
    any_ok = plain_ok + [t for t, r in rescued.items() if r["ok"]]
    both = [t for t in plain_ok if tool_ok[t]]
    n_tool = sum(tool_ok.values())
    n = len(names)
    print(f"\nplain pdflatex, per document : {len(plain_ok):4d}/{n} compile "
          f"({100 * len(plain_ok) / n:.1f} %)  {t_plain:7.1f} s")
    print(f"plain pdflatex→lualatex→xelatex: {len(any_ok):4d}/{n} compile "
          f"({100 * len(any_ok) / n:.1f} %); rescued by "
          f"{dict(Counter(r['engine'] for r in rescued.values() if r['ok']))}")
    print(f"toolkit, every picture renders: {n_tool:4d}/{n} documents "
          f"({100 * n_tool / n:.1f} %)  {t_tool:7.1f} s compile+raster, "
          f"{t_extract:.1f} s extraction")
    print(f"toolkit / plain pdflatex = {n_tool}/{len(plain_ok)} = "
          f"{100 * n_tool / max(1, len(plain_ok)):.1f} %; toolkit / plain with engines = "
          f"{n_tool}/{len(any_ok)} = {100 * n_tool / max(1, len(any_ok)):.1f} %")
    print(f"of the documents plain pdflatex compiles, the toolkit renders "
          f"{len(both)}/{len(plain_ok)} = {100 * len(both) / max(1, len(plain_ok)):.1f} %")
    doc_rung = {t: max((r["mode"] for r in per_doc[t]), key=RUNG_ORDER.index)
                for t in names if tool_ok[t]}
    doc_engine = {t: sorted({r["engine"] for r in per_doc[t]}) for t in names if tool_ok[t]}
    print(f"documents by highest rung needed: {dict(Counter(doc_rung.values()))}; "
          f"by engine: {dict(Counter('+'.join(e) for e in doc_engine.values()))}")
    print(f"pictures: {len(rows)} in {len(units)} units; rendered "
          f"{sum(r['ok'] for r in rows)}; by rung: "
          f"{dict(Counter(r['mode'] for r in rows if r['ok']))}; by engine: "
          f"{dict(Counter(r['engine'] for r in rows if r['ok']))}; runs: "
          f"{dict(Counter(r['batch'] for r in rows if r['ok']))}")
    print(f"speed: plain {n / t_plain:.2f} doc/s, toolkit {len(rows) / t_tool:.2f} pictures/s"
          f" (cold cache, formats built inside): {t_plain / t_tool:.1f}x")

    ordinary = [t for t in both if base[t]["seconds"] < HEAVY_S]
    t_p = sum(base[t]["seconds"] for t in ordinary)
    t_k = max(sum(r["seconds"] for t in ordinary for r in per_doc[t]), 1e-9)
    print(f"ordinary figures (plain < {HEAVY_S:g} s, {len(ordinary)} documents): plain "
          f"{t_p:.1f} s of pdflatex, toolkit {t_k:.1f} s of pdflatex runs: {t_p / t_k:.1f}x; "
          f"heavy figures: {len(both) - len(ordinary)} documents, plain "
          f"{sum(base[t]['seconds'] for t in both) - t_p:.1f} s")

    misses = [t for t in plain_ok if not tool_ok[t]]
    print(f"\nplain compiles, toolkit does not ({len(misses)}):")
    causes = Counter()
    for t in misses:
        rel = Path(t).relative_to(a.corpus)
        if t in no_pictures:
            causes["no picture extracted"] += 1
            print(f"  {rel}: no picture extracted ({no_pictures[t][:120]})")
            continue
        for r in per_doc[t]:
            if not r["ok"]:
                causes[str(r["reason"])] += 1
                print(f"  {rel}: {r['reason']}: {(r['error'] or '')[:150]}")
    print(f"  by cause: {dict(causes)}")
    extra = [t for t in names if tool_ok[t] and not base[t]["ok"]]
    print(f"toolkit renders, plain does not: {len(extra)} "
          f"(e.g. {', '.join(Path(t).parent.name for t in extra[:5])})")

    aspects, diffs = [], []
    for t in both:
        ref = Path(t).with_suffix(".png")
        if len(per_doc[t]) != 1 or not ref.exists():
            continue
        got = agreement(per_doc[t][0]["png"], ref)
        if got:
            aspects.append(got[0])
            diffs.append(got[1])
    if aspects:
        arr = np.array(aspects)
        print(f"\nrender agreement with the author's PNGs ({len(arr)} single-picture documents):"
              f" ink-box aspect within 2 %: {100 * (arr <= 0.02).mean():.1f} %, median "
              f"aspect difference {100 * np.median(arr):.2f} %; pixel difference (mean |Δ| of "
              f"grey, 0..1): median {np.median(diffs):.3f}, p90 {np.quantile(diffs, 0.9):.3f}")

    heavy = [t for t in both if base[t]["seconds"] >= HEAVY_S and len(per_doc[t]) == 1]
    if heavy:
        print(f"\nheavy figures (plain ≥ {HEAVY_S:g} s): plain = start-up + typesetting; "
              f"toolkit alone, cold")
        for t in heavy:
            start = plain_startup(t)
            rec = next(r for r in records if r["tex"] == t)
            m = json.loads(rec["meta"])
            with tempfile.TemporaryDirectory() as cache:
                tc = TexCompiler(timeout_s=a.timeout * 2, cache_dir=cache)
                tc.format_dir()
                doc = Standalone(m["blocks"], m["body"])
                t0 = time.perf_counter()
                tc.compile_one(doc)
                t_one = time.perf_counter() - t0
            typeset = base[t]["seconds"] - start
            print(f"  {Path(t).parent.name}: plain {base[t]['seconds']:.2f} s = "
                  f"{start:.2f} start-up + {typeset:.2f} typesetting; toolkit {t_one:.2f} s "
                  f"= {t_one / max(typeset, 1e-6):.2f}x typesetting alone")
    pubs = a.corpus.parent / "publications"
    if pubs.exists():
        in_documents(pubs, a.timeout)
    if a.json:
        a.json.write_text(json.dumps({t: {"plain": base[t], "engines": rescued.get(t),
                                          "toolkit": tool_ok[t],
                                          "pictures": [{k: v for k, v in r.items()
                                                        if k != "png"} for r in per_doc[t]]}
                                      for t in names}, indent=1))


if __name__ == "__main__":
    main()
