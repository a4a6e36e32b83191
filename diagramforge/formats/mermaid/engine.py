"""Render Mermaid with Mermaid's own library, offline, in the same locked-down headless
Chromium as draw.io: SVG, PNG and the structure graph from Mermaid's own parse.

The npm package ``mermaid`` ships one self-contained browser bundle
(``dist/mermaid.min.js``); it is served read-only by the same kind of loopback package
server as draw.io's viewer (:class:`~.drawio_render.PackageServer`), which is also the
browser's only proxy: anything else a page asks for is refused and recorded
(:attr:`MermaidRenderer.blocked`).  No CDN is ever named.

Security.  Mermaid runs with ``securityLevel: "strict"`` (labels sanitised by DOMPurify,
``click`` callbacks off, ``javascript:`` links blanked) and ``htmlLabels: false`` (labels are
SVG ``<text>``, never ``<foreignObject>`` HTML); both — and the size limits ``maxTextSize``
and ``maxEdges`` — are in Mermaid's ``secure`` list, so a diagram's own ``%%{init}%%``
directive or front matter cannot turn them back.  The SVG is drawn to PNG as an image (no
script, no fetch), as draw.io's is.

Structure.  Mermaid's own parse (``mermaidAPI.getDiagramFromText``) gives the graph exactly.
Flowcharts: vertices with the text as drawn and their shape, edges with their arrowheads
(``-->`` forward, ``---`` none, ``<-->`` both: undirected with ``both_heads``, ``~~~``
invisible: no edge) and subgraphs (``container`` nodes, as draw.io groups), bboxes from the
drawn SVG.  Sequence
diagrams: participants and messages (notes, loops and activations are not edges); state
diagrams: states (nested ones too; ``[*]`` an empty circle) and transitions; class diagrams:
classes and relations (the arrow points at the end with a head); ER diagrams: entities and
undirected relationships.  These have no boxes.  Other types (pie, gantt, mindmap…) render
with no graph (``null``).
"""

from __future__ import annotations

import atexit
import base64
import json
from dataclasses import dataclass
from pathlib import Path

from diagramforge.formats.browser import (
    SEEDED_RANDOM,
    BrowserOutcome,
    LockedBrowser,
    find_package,
)

SECURE_KEYS = ["secure", "securityLevel", "startOnLoad", "maxTextSize", "maxEdges",
               "suppressErrorRendering", "htmlLabels", "deterministicIds",
               "deterministicIDSeed"]
"""Config keys no diagram directive may change (Mermaid's defaults plus ours)."""

_PAGE = r"""<!DOCTYPE html><html><head><meta charset="utf-8">
<script src="/mermaid.min.js"></script></head><body>
<div id="host" style="position:absolute;left:0;top:0;visibility:hidden"></div><script>
// layouts that jitter (cytoscape's) use Math.random: seeded per diagram, renders repeat
""" + SEEDED_RANDOM + r"""var host = document.getElementById("host");

function dfMap(m) { return m instanceof Map ? Array.from(m.values()) : Object.values(m || {}); }

function dfBox(svg, el) {
  if (!el) return null;
  var r = el.getBoundingClientRect(), s = svg.getBoundingClientRect();
  var vb = svg.viewBox.baseVal, kx = vb.width / s.width, ky = vb.height / s.height;
  return [(r.left - s.left) * kx + vb.x, (r.top - s.top) * ky + vb.y, r.width * kx,
          r.height * ky].map(function (v) { return Math.round(v * 100) / 100; });
}

function dfFind(svg, domId) {
  var all = svg.querySelectorAll("[id]");
  for (var i = 0; i < all.length; i++) {
    var id = all[i].id;
    if (id === domId || id.endsWith("-" + domId)) return all[i];
  }
  return null;
}

function dfPlain(text) {  // a label's words as drawn (line breaks and markup are not text)
  // Mermaid keeps entity codes (#34; #quot;) encoded in its parse until it draws
  var s = String(text || "").replace(/\uFB02\u00B0\u00B0/g, "&#").replace(/\uFB02\u00B0/g, "&")
    .replace(/\u00B6\u00DF/g, ";").replace(/<br\s*\/?>/gi, "\n");
  var d = document.createElement("div");
  d.innerHTML = s;
  return (d.textContent || "").trim();
}

function dfDrawn(el) {  // the text an element draws, a line per outer tspan
  if (!el) return null;
  var texts = el.querySelectorAll("text");
  if (!texts.length) return null;
  var lines = [];
  texts.forEach(function (t) {
    var outer = t.querySelectorAll(":scope > tspan.text-outer-tspan");
    if (outer.length) outer.forEach(function (o) { lines.push(o.textContent); });
    else lines.push(t.textContent);
  });
  return lines.map(function (l) { return l.trim(); }).filter(Boolean).join("\n");
}

function dfLabelOf(svg, id) {
  var el = svg.querySelector('g.edgeLabel [data-id="' + CSS.escape(id) + '"]') ||
    svg.querySelector('g.label[data-id="' + CSS.escape(id) + '"]');
  return el;
}

var ARROWS = {arrow_point: [true, false], arrow_cross: [true, false],
              arrow_circle: [true, false], arrow_open: [false, false]};
function dfFlowGraph(db, svg) {
  // texts as drawn (Mermaid's own label processing), Mermaid's parse where nothing is drawn
  var nodes = dfMap(db.getVertices()).map(function (v) {
    var el = dfFind(svg, v.domId), drawn = dfDrawn(el);
    return {id: String(v.id), text: drawn == null ? dfPlain(v.text) : drawn,
            shape: String(v.type || "square"), bbox: dfBox(svg, el)};
  });
  (db.getSubGraphs() || []).forEach(function (s) {
    var el = dfFind(svg, s.id), label = el && el.querySelector(".cluster-label");
    var drawn = dfDrawn(label);
    nodes.push({id: "subgraph:" + s.id, text: drawn == null ? dfPlain(s.title) : drawn,
                shape: "container", bbox: dfBox(svg, el)});
  });
  var edges = [];
  (db.getEdges() || []).forEach(function (e) {
    if (e.stroke === "invisible") return;  // ~~~ lays out, draws nothing
    var t = String(e.type || "arrow_point"), both = t.indexOf("double_") === 0;
    var directed = both ? false : (ARROWS[t] || [true])[0];
    var drawn = e.id ? dfDrawn(dfLabelOf(svg, e.id)) : null;
    edges.push({source: String(e.start), target: String(e.end),
                label: drawn == null ? dfPlain(e.text) : drawn, directed: directed,
                both_heads: both});
  });
  return {nodes: nodes, edges: edges};
}

// Other diagram types: their elements and relations from Mermaid's parse (no boxes).
var SEQ_MESSAGES = {0: true, 1: true, 3: true, 4: true, 5: false, 6: false, 24: true,
                    25: true, 33: null, 34: null};  // directed? (null: both heads)
function dfSequenceGraph(db) {
  var nodes = dfMap(db.getActors()).map(function (a) {
    return {id: String(a.name), text: dfPlain(a.description || a.name), shape: "actor"};
  });
  var edges = [];
  (db.getMessages() || []).forEach(function (m) {
    if (!(m.type in SEQ_MESSAGES) || m.from == null || m.to == null) return;
    edges.push({source: String(m.from), target: String(m.to), label: dfPlain(m.message),
                directed: SEQ_MESSAGES[m.type] === true,
                both_heads: SEQ_MESSAGES[m.type] === null});
  });
  return {nodes: nodes, edges: edges};
}

function dfStateGraph(db) {
  var nodes = {}, edges = [];
  function state(s) {
    var id = String(s.id);
    if (!(id in nodes)) {
      var pseudo = /_start$|_end$/.test(id) || s.start !== undefined;
      nodes[id] = {id: id, text: pseudo ? "" : dfPlain(s.description || id),
                   shape: pseudo ? "ellipse" : "rounded"};
    } else if (s.description && nodes[id].text === id) {
      nodes[id].text = dfPlain(s.description);
    }
    return id;
  }
  function walk(doc) {
    (doc || []).forEach(function (st) {
      if (st.stmt === "relation") {
        edges.push({source: state(st.state1), target: state(st.state2),
                    label: dfPlain(st.description || ""), directed: true});
      } else if (st.stmt === "state") {
        state(st);
        walk(st.doc);
      }
    });
  }
  walk((db.getRootDocV2() || {}).doc);
  return {nodes: Object.values(nodes), edges: edges};
}

function dfClassGraph(db) {
  var nodes = dfMap(db.getClasses()).map(function (c) {
    return {id: String(c.id), text: dfPlain(c.label || c.id), shape: "rectangle"};
  });
  var edges = (db.getRelations() || []).map(function (r) {
    var a = r.relation.type1 !== "none", b = r.relation.type2 !== "none";
    var rev = a && !b;  // a head at the first class only: the relation points at it
    return {source: String(rev ? r.id2 : r.id1), target: String(rev ? r.id1 : r.id2),
            label: dfPlain(r.title || ""), directed: a !== b};
  });
  return {nodes: nodes, edges: edges};
}

function dfErGraph(db) {
  var ids = {}, nodes = dfMap(db.getEntities()).map(function (e) {
    ids[e.id] = String(e.label);
    return {id: String(e.label), text: dfPlain(e.alias || e.label), shape: "rectangle"};
  });
  var edges = (db.getRelationships() || []).map(function (r) {
    return {source: ids[r.entityA] || String(r.entityA),
            target: ids[r.entityB] || String(r.entityB), label: dfPlain(r.roleA || ""),
            directed: false};
  });
  return {nodes: nodes, edges: edges};
}

function dfGraphOf(diag, svg) {
  var t = String(diag.type);
  if (t.indexOf("flowchart") === 0 || t === "graph") return dfFlowGraph(diag.db, svg);
  if (t === "sequence") return dfSequenceGraph(diag.db);
  if (t.indexOf("stateDiagram") === 0) return dfStateGraph(diag.db);
  if (t.indexOf("classDiagram") === 0) return dfClassGraph(diag.db);
  if (t === "er") return dfErGraph(diag.db);
  return null;
}

function dfInk(ctx, w, h) {
  var px = new Uint32Array(ctx.getImageData(0, 0, w, h).data.buffer), n = 0;
  for (var k = 0; k < px.length; k++) {
    var p = px[k];
    if ((p & 255) < 245 || ((p >>> 8) & 255) < 245 || ((p >>> 16) & 255) < 245) n++;
  }
  return n / (w * h);
}

async function dfPng(text, w, h, opts) {
  var scale = opts.scale, side = Math.max(w, h);
  if (side * scale > opts.maxSide) scale = opts.maxSide / side;
  var pw = Math.max(1, Math.round(w * scale)), ph = Math.max(1, Math.round(h * scale));
  var img = new Image();
  img.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(text);
  await img.decode();
  var canvas = document.createElement("canvas");
  canvas.width = pw; canvas.height = ph;
  var ctx = canvas.getContext("2d", {alpha: false, willReadFrequently: true});
  ctx.fillStyle = "#ffffff"; ctx.fillRect(0, 0, pw, ph);
  ctx.drawImage(img, 0, 0, pw, ph);
  var ink = dfInk(ctx, pw, ph);
  var url = canvas.toDataURL("image/png");
  return {png: url.slice(url.indexOf(",") + 1), width: pw, height: ph, ink: ink,
          scale: scale};
}

window.dfRender = async function (texts, opts) {
  var out = [];
  for (var i = 0; i < texts.length; i++) {
    dfSeed = 1;
    try {
      var diag = await mermaid.mermaidAPI.getDiagramFromText(texts[i]);
      var r = await mermaid.render("mermaid-df", texts[i]);
      host.innerHTML = r.svg;
      var svg = host.querySelector("svg");
      var vb = svg.viewBox.baseVal;
      var w = Math.ceil(vb.width), h = Math.ceil(vb.height);
      if (!(w > 0 && h > 0)) throw new Error("empty drawing");
      svg.setAttribute("width", w); svg.setAttribute("height", h);
      svg.style.maxWidth = "";
      var graph = dfGraphOf(diag, svg);
      var text = new XMLSerializer().serializeToString(svg);
      var res = {ok: true, type: diag.type, svg: text, width: w, height: h, graph: graph};
      if (opts.png) Object.assign(res, await dfPng(text, w, h, opts));
      out.push(res);
    } catch (e) {
      out.push({ok: false, error: String(e && e.message || e).slice(0, 500)});
    } finally {
      host.innerHTML = "";
      // a failed render may leave its scratch element behind
      document.querySelectorAll("body > [id^='dmermaid-df']").forEach(function (n) { n.remove(); });
    }
  }
  return JSON.stringify(out);
};
window.dfInit = function (cfg) { mermaid.initialize(cfg); window.dfReady = true; };
</script></body></html>"""


def find_mermaid(start: Path | None = None) -> Path | None:
    """The mermaid package's ``dist`` directory (env ``DIAGRAMFORGE_MERMAID`` or
    node_modules)."""
    return find_package("DIAGRAMFORGE_MERMAID", "mermaid/dist", "mermaid.min.js", start)


def mermaid_version(dist: Path | None = None) -> str | None:
    dist = dist or find_mermaid()
    if dist is None:
        return None
    return json.loads((dist.parent / "package.json").read_text()).get("version")


@dataclass
class MermaidOutcome(BrowserOutcome):
    """Mermaid's verdict on one diagram, with what its parse says."""

    kind: str | None = None
    """Mermaid's diagram type (``flowchart-v2``, ``sequence``, ``classDiagram``…)."""
    graph: dict | None = None


class MermaidRenderer(LockedBrowser):
    """One Chromium with one page running Mermaid.  Not thread-safe; one per process."""

    package_hint = "mermaid"

    def __init__(self, dist: Path | None = None, chromium: str | None = None,
                 timeout_s: float = 60.0, max_text_size: int = 50_000, max_edges: int = 500):
        super().__init__(dist or find_mermaid(), chromium, timeout_s)
        self.config = {
            "startOnLoad": False, "securityLevel": "strict", "htmlLabels": False,
            "flowchart": {"htmlLabels": False}, "maxTextSize": max_text_size,
            "maxEdges": max_edges, "suppressErrorRendering": True, "deterministicIds": True,
            "deterministicIDSeed": "df", "secure": SECURE_KEYS}
        self._page = None

    @property
    def dist(self) -> Path | None:
        return self.package_dir

    def start(self) -> None:
        if self._page is not None:
            return
        self._launch({"/render.html": _PAGE})
        self._page = self._open("/render.html")
        try:
            self._page.evaluate("c => window.dfInit(c)", self.config)
        except Exception as exc:
            self.close()
            raise RuntimeError(f"mermaid page did not load: {exc}") from None
        atexit.register(self.close)

    def render_many(self, texts: list[str], *, png: bool = True, scale: float = 1.0,
                    max_side: int = 16384) -> list[MermaidOutcome]:
        """Render each diagram: its SVG (plain ``<text>``), its graph (flowcharts), and with
        ``png`` a PNG at ``scale`` PNG px per SVG px, scaled down to fit ``max_side``.  A
        diagram that fails fails alone, with Mermaid's message."""
        if not texts:
            return []
        self.start()
        assert self._page is not None
        raw = json.loads(self._page.evaluate(
            "([t, o]) => window.dfRender(t, o)",
            [texts, {"png": png, "scale": scale, "maxSide": max_side}]))
        out = []
        for r in raw:
            if not r.get("ok"):
                out.append(MermaidOutcome(False, error=r.get("error") or "not rendered"))
                continue
            out.append(MermaidOutcome(
                True, svg=r["svg"], png=base64.b64decode(r["png"]) if r.get("png") else None,
                width=r.get("width", 0.0), height=r.get("height", 0.0), ink=r.get("ink", 0.0),
                kind=r.get("type"), graph=r.get("graph")))
        return out

    def _forget_pages(self) -> None:
        self._page = None
