"""A static HTML gallery of a published version: a thumbnail grid per config, filters by
format, difficulty, diagram type and licence, and a detail view with the code, the render
with its structure graph laid over it (node boxes, edges, edge labels: :mod:`.overlay`),
its type and the evidence that decided it, and the item's task rows (edits, QA, captions)
with its twins' renders — so a person sees at once whether the graph that QA and twins were
written from explains the picture.

Everything it shows is in the directory: the data is a ``data.js`` script (a page opened
from disk may not ``fetch`` JSON), images are files beside it, and the page loads nothing
from the network.  Diagram code and captions come from strangers, so the page only ever
puts them into the document as text (``textContent``), never as markup.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pandas as pd
from PIL import Image

from diagramforge.cards.publish.overlay import overlay
from diagramforge.formats.encoding import kind
from diagramforge.formats.registry import handlers
from diagramforge.graphs.model import Graph

THUMB_PX = 160
TWIN_PX = 480
"""Longest side of a twin's render in the detail view (a copy: the dataset has the full
one)."""
TASK_FIELDS = ("instruction", "question", "answer", "options", "caption", "text",
               "target_code", "difficulty", "pair", "method")
FILTERS = ("format", "difficulty", "diagram_type", "licence")


def _thumb(png: bytes, side: int = THUMB_PX) -> bytes:
    with Image.open(io.BytesIO(png)) as im:
        im = im.convert("RGB")
        im.thumbnail((side, side))
        buf = io.BytesIO()
        im.save(buf, "PNG", optimize=True)
    return buf.getvalue()


def _text(v: object) -> str | None:
    if v is None or (isinstance(v, float) and v != v):
        return None
    if hasattr(v, "tolist"):
        v = v.tolist()
    return v if isinstance(v, str) else json.dumps(v, default=str)


ITEM_FIELDS = ("id", "split", "format", "difficulty", "diagram_type", "diagram_type_source",
               "diagram_type_evidence", "licence", "caption", "attribution", "source_url")
DIAGRAM_COLUMNS = (*ITEM_FIELDS, "code", "image", "graph")
"""What the gallery reads of a diagram row: publish keeps only these of the gallery's rows
(not other columns), so the gallery costs a bounded few MB, not whole rows."""
TASK_COLUMNS = ("id", "diagram_id", *TASK_FIELDS, "target_image")
"""What the gallery reads of a task row: its fields, and a twin's render (shown small
beside its diagram; other task images are the diagram's own)."""


def gallery_view(row: dict, columns: tuple[str, ...]) -> dict:
    """The part of ``row`` the gallery reads."""
    return {k: row[k] for k in columns if k in row}


def _item(row: dict) -> dict:
    return {k: _text(row.get(k)) for k in ITEM_FIELDS}


def _graph_overlay(row: dict, dpi: float) -> dict | None:
    """The row's structure graph in its render's pixels, or ``None`` (no graph, no boxes,
    no place on the render, a format without a graph reader)."""
    text, image = _text(row.get("graph")), row.get("image")
    fmt = handlers().get(str(row.get("format")))
    if not text or not image or fmt is None:
        return None
    try:
        return overlay(Graph.from_json(text), image, fmt.graph_unit_pt, dpi)
    except Exception:  # noqa: BLE001 - a graph that cannot be drawn is not shown, no more
        return None


def write_gallery(df: pd.DataFrame, tasks: dict[str, pd.DataFrame], out: Path,
                  title: str, dpi: float = 150.0) -> Path:
    """Write ``<out>/gallery/`` and return its ``index.html``; ``dpi`` is the renders'
    (``render.raster.dpi``), which places each structure graph on its render."""
    root = out / "gallery"
    (root / "img").mkdir(parents=True, exist_ok=True)
    (root / "thumb").mkdir(parents=True, exist_ok=True)
    diagrams = {}
    for row in df.sort_values("id").to_dict("records"):
        item = _item(row)
        item["code"] = _text(row.get("code")) or ""
        if row.get("image"):
            # the render as stored (lossless WebP or PNG), named by what its bytes are
            item["img"] = f"{row['id']}.{kind(row['image']) or 'png'}"
            (root / "img" / item["img"]).write_bytes(row["image"])
            (root / "thumb" / f"{row['id']}.png").write_bytes(_thumb(row["image"]))
        item["overlay"] = _graph_overlay(row, dpi)
        item["tasks"] = []
        diagrams[row["id"]] = item
    configs = {"generation": sorted(diagrams)}
    for config, frame in sorted(tasks.items()):
        ids = []
        for r in frame.sort_values("id").to_dict("records"):
            d = diagrams.get(r.get("diagram_id"))
            if d is None:
                continue
            task = {"config": config, "id": _text(r.get("id")),
                    **{k: _text(r.get(k)) for k in TASK_FIELDS if k in r}}
            if isinstance(r.get("target_image"), bytes) and r["target_image"]:
                (root / "twin").mkdir(exist_ok=True)
                task["img"] = re.sub(r"[^A-Za-z0-9_.-]", "_", str(r["id"])) + ".png"
                (root / "twin" / task["img"]).write_bytes(_thumb(r["target_image"], TWIN_PX))
            d["tasks"].append(task)
            if r["diagram_id"] not in ids:
                ids.append(r["diagram_id"])
        configs[config] = ids
    data = {"title": title, "filters": list(FILTERS), "configs": configs,
            "diagrams": diagrams}
    (root / "data.js").write_text("const GALLERY = " + json.dumps(data, sort_keys=True)
                                  + ";\n")
    (root / "index.html").write_text(PAGE.replace("{{title}}", _escape(title)))
    return root / "index.html"


def _escape(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy"
 content="default-src 'none'; img-src 'self'; script-src 'self' 'unsafe-inline';
          style-src 'unsafe-inline'">
<title>{{title}}</title>
<style>
body{font-family:sans-serif;margin:0;background:#f6f6f6}
header{background:#243447;color:#fff;padding:10px 16px}
header h1{font-size:18px;margin:0 0 8px}
nav button{margin-right:4px}
nav button.on{font-weight:bold;background:#ffd54f}
#filters label{margin-right:12px;font-size:13px}
#count{font-size:13px;margin-left:8px}
#grid{display:flex;flex-wrap:wrap;gap:10px;padding:12px}
.card{background:#fff;border:1px solid #ccc;width:176px;padding:6px;cursor:pointer}
.card img{width:160px;height:160px;object-fit:contain;display:block;margin:auto}
.card .meta{font-size:11px;color:#444;overflow:hidden;white-space:nowrap}
#detail{position:fixed;inset:5%;background:#fff;border:2px solid #243447;overflow:auto;
        padding:12px;display:none}
#detail.open{display:block}
#detail pre{background:#f0f0f0;padding:8px;max-height:40vh;overflow:auto;font-size:12px}
#detail img{max-width:100%;max-height:40vh;border:1px solid #ddd}
#d-figure{position:relative;display:inline-block;line-height:0}
#d-graph{position:absolute;left:0;top:0;width:100%;height:100%;pointer-events:none}
#d-graph rect{fill:rgba(229,57,53,.08);stroke:#e53935;stroke-width:2}
#d-graph line,#d-graph circle{stroke:#1e88e5;stroke-width:2;fill:none}
#d-graph text{fill:#0d47a1;stroke:#fff;stroke-width:3;paint-order:stroke;font-size:13px}
#d-type{font-size:13px;margin:4px 0}
#detail .task{border-top:1px solid #ddd;font-size:13px;padding:4px 0}
#detail .task img{display:block;max-height:20vh;margin-top:4px}
</style></head>
<body>
<header><h1 id="title"></h1><nav id="configs"></nav>
<div id="filters"></div><span id="count"></span></header>
<main id="grid"></main>
<section id="detail" role="dialog"><button id="close">close</button>
<h2 id="d-id"></h2><div id="d-meta"></div><div id="d-type"></div>
<label id="d-graph-toggle"><input type="checkbox" id="d-show-graph" checked>
 structure graph over the render (<span id="d-graph-count"></span>)</label><br>
<div id="d-figure"><img id="d-img" alt="render"></div>
<h3>Code</h3><pre id="d-code"></pre><h3>Task items</h3><div id="d-tasks"></div></section>
<script src="data.js"></script>
<script>
"use strict";
const G = GALLERY;
let config = "generation";
const chosen = {};
function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}
function values(key) {
  const s = new Set();
  for (const d of Object.values(G.diagrams)) s.add(d[key] || "(none)");
  return [...s].sort();
}
function buildFilters() {
  const box = document.getElementById("filters");
  for (const key of G.filters) {
    const label = el("label", key + " ");
    const sel = el("select");
    sel.id = "filter-" + key;
    sel.appendChild(el("option", "all"));
    for (const v of values(key)) sel.appendChild(el("option", v));
    sel.addEventListener("change", () => { chosen[key] = sel.value; render(); });
    label.appendChild(sel);
    box.appendChild(label);
  }
}
function buildConfigs() {
  const nav = document.getElementById("configs");
  for (const c of Object.keys(G.configs)) {
    const b = el("button", c + " (" + G.configs[c].length + ")");
    b.dataset.config = c;
    b.addEventListener("click", () => { config = c; render(); });
    nav.appendChild(b);
  }
}
function visible(d) {
  return G.filters.every(k => !chosen[k] || chosen[k] === "all" ||
                              (d[k] || "(none)") === chosen[k]);
}
function render() {
  for (const b of document.querySelectorAll("#configs button"))
    b.classList.toggle("on", b.dataset.config === config);
  const grid = document.getElementById("grid");
  grid.replaceChildren();
  let n = 0;
  for (const id of G.configs[config]) {
    const d = G.diagrams[id];
    if (!visible(d)) continue;
    n++;
    const card = el("div", null, "card");
    card.dataset.id = id;
    const img = el("img");
    img.src = "thumb/" + id + ".png";
    img.alt = d.caption || id;
    card.appendChild(img);
    card.appendChild(el("div", [d.format, d.split, d.difficulty || "-"].join(" · "), "meta"));
    card.appendChild(el("div", d.licence, "meta"));
    card.addEventListener("click", () => open(id));
    grid.appendChild(card);
  }
  document.getElementById("count").textContent = n + " shown";
}
function open(id) {
  const d = G.diagrams[id];
  document.getElementById("d-id").textContent = id;
  document.getElementById("d-meta").textContent = ["format " + d.format, "split " + d.split,
    "difficulty " + (d.difficulty || "-"), "type " + (d.diagram_type || "-"),
    "licence " + d.licence, "credit " + (d.attribution || "-"), d.caption || ""].join(" | ");
  document.getElementById("d-type").textContent = "type: " + (d.diagram_type || "unknown") +
    (d.diagram_type_source ? " — decided by " + d.diagram_type_source : "") +
    (d.diagram_type_evidence ? " — evidence: " + d.diagram_type_evidence : "");
  document.getElementById("d-img").src = "img/" + (d.img || id + ".png");
  drawGraph(d.overlay);
  document.getElementById("d-code").textContent = d.code;
  const tasks = document.getElementById("d-tasks");
  tasks.replaceChildren();
  if (!d.tasks.length) tasks.appendChild(el("div", "none", "task"));
  for (const t of d.tasks) {
    const parts = Object.entries(t).filter(([k, v]) => v !== null && k !== "id" && k !== "img")
      .map(([k, v]) => k + ": " + v);
    const row = el("div", parts.join(" — "), "task");
    if (t.img) {
      const im = el("img");
      im.src = "twin/" + t.img;
      im.alt = t.pair || "twin";
      row.appendChild(im);
    }
    tasks.appendChild(row);
  }
  document.getElementById("detail").classList.add("open");
}
const SVGNS = "http://www.w3.org/2000/svg";
function svgEl(tag, attrs) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}
// the structure graph in the render's pixels: node boxes, edges between them, edge labels
// (texts go in as textContent only, like everything else from the data)
function drawGraph(ov) {
  const old = document.getElementById("d-graph");
  if (old) old.remove();
  const count = document.getElementById("d-graph-count");
  if (!ov) { count.textContent = "none to show"; return; }
  count.textContent = ov.nodes.length + " nodes, " + ov.edges.length + " edges";
  const svg = svgEl("svg", {id: "d-graph", viewBox: "0 0 " + ov.size[0] + " " + ov.size[1],
                            preserveAspectRatio: "none"});
  const defs = svgEl("defs", {});
  const marker = svgEl("marker", {id: "d-head", viewBox: "0 0 10 10", refX: "10",
                                  refY: "5", markerWidth: "7", markerHeight: "7",
                                  orient: "auto-start-reverse"});
  marker.appendChild(svgEl("path", {d: "M0,0 L10,5 L0,10 z", fill: "#1e88e5"}));
  defs.appendChild(marker);
  svg.appendChild(defs);
  for (const [x, y, w, h, text] of ov.nodes) {
    const r = svgEl("rect", {x: x, y: y, width: w, height: h});
    const title = svgEl("title", {});
    title.textContent = text;
    r.appendChild(title);
    svg.appendChild(r);
  }
  for (const [x1, y1, x2, y2, label, arrow] of ov.edges) {
    if (x1 === x2 && y1 === y2) {
      svg.appendChild(svgEl("circle", {cx: x1, cy: y1 - 10, r: 10}));
    } else {
      const line = svgEl("line", {x1: x1, y1: y1, x2: x2, y2: y2});
      if (arrow) line.setAttribute("marker-end", "url(#d-head)");
      if (arrow === "<>") line.setAttribute("marker-start", "url(#d-head)");
      svg.appendChild(line);
    }
    if (label) {
      const loop = x1 === x2 && y1 === y2;
      const t = svgEl("text", {x: (x1 + x2) / 2, y: (y1 + y2) / 2 - (loop ? 24 : 0),
                               "text-anchor": "middle"});
      t.textContent = label;
      svg.appendChild(t);
    }
  }
  svg.style.display = document.getElementById("d-show-graph").checked ? "" : "none";
  document.getElementById("d-figure").appendChild(svg);
}
document.getElementById("d-show-graph").addEventListener("change", (ev) => {
  const svg = document.getElementById("d-graph");
  if (svg) svg.style.display = ev.target.checked ? "" : "none";
});
document.getElementById("close").addEventListener("click",
  () => document.getElementById("detail").classList.remove("open"));
document.getElementById("title").textContent = G.title;
buildConfigs();
buildFilters();
render();
</script></body></html>
"""
