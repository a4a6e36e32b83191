"""A static HTML gallery of a published version: a thumbnail grid per config, filters by
format, difficulty, diagram type and licence, and a detail view with the code, the render
and the item's task rows (edits, QA, captions).

Everything it shows is in the directory: the data is a ``data.js`` script (a page opened
from disk may not ``fetch`` JSON), images are files beside it, and the page loads nothing
from the network.  Diagram code and captions come from strangers, so the page only ever
puts them into the document as text (``textContent``), never as markup.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pandas as pd
from PIL import Image

from diagramforge.formats.encoding import kind

THUMB_PX = 160
TASK_FIELDS = ("instruction", "question", "answer", "options", "caption", "text",
               "target_code", "difficulty", "pair", "method")
FILTERS = ("format", "difficulty", "diagram_type", "licence")


def _thumb(png: bytes) -> bytes:
    with Image.open(io.BytesIO(png)) as im:
        im = im.convert("RGB")
        im.thumbnail((THUMB_PX, THUMB_PX))
        buf = io.BytesIO()
        im.save(buf, "PNG", optimize=True)
    return buf.getvalue()


def _text(v: object) -> str | None:
    if v is None or (isinstance(v, float) and v != v):
        return None
    if hasattr(v, "tolist"):
        v = v.tolist()
    return v if isinstance(v, str) else json.dumps(v, default=str)


ITEM_FIELDS = ("id", "split", "format", "difficulty", "diagram_type", "licence", "caption",
               "attribution", "source_url")
DIAGRAM_COLUMNS = (*ITEM_FIELDS, "code", "image")
"""What the gallery reads of a diagram row: publish keeps only these of the gallery's rows
(not graphs or other columns), so the gallery costs a bounded few MB, not whole rows."""
TASK_COLUMNS = ("id", "diagram_id", *TASK_FIELDS)
"""What the gallery reads of a task row (no images: a task is shown beside its diagram)."""


def gallery_view(row: dict, columns: tuple[str, ...]) -> dict:
    """The part of ``row`` the gallery reads."""
    return {k: row[k] for k in columns if k in row}


def _item(row: dict) -> dict:
    return {k: _text(row.get(k)) for k in ITEM_FIELDS}


def write_gallery(df: pd.DataFrame, tasks: dict[str, pd.DataFrame], out: Path,
                  title: str) -> Path:
    """Write ``<out>/gallery/`` and return its ``index.html``."""
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
        item["tasks"] = []
        diagrams[row["id"]] = item
    configs = {"generation": sorted(diagrams)}
    for config, frame in sorted(tasks.items()):
        ids = []
        for r in frame.sort_values("id").to_dict("records"):
            d = diagrams.get(r.get("diagram_id"))
            if d is None:
                continue
            d["tasks"].append({"config": config, "id": _text(r.get("id")),
                               **{k: _text(r.get(k)) for k in TASK_FIELDS if k in r}})
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
#detail .task{border-top:1px solid #ddd;font-size:13px;padding:4px 0}
</style></head>
<body>
<header><h1 id="title"></h1><nav id="configs"></nav>
<div id="filters"></div><span id="count"></span></header>
<main id="grid"></main>
<section id="detail" role="dialog"><button id="close">close</button>
<h2 id="d-id"></h2><div id="d-meta"></div><img id="d-img" alt="render">
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
  document.getElementById("d-img").src = "img/" + (d.img || id + ".png");
  document.getElementById("d-code").textContent = d.code;
  const tasks = document.getElementById("d-tasks");
  tasks.replaceChildren();
  if (!d.tasks.length) tasks.appendChild(el("div", "none", "task"));
  for (const t of d.tasks) {
    const parts = Object.entries(t).filter(([k, v]) => v !== null && k !== "id")
      .map(([k, v]) => k + ": " + v);
    tasks.appendChild(el("div", parts.join(" — "), "task"));
  }
  document.getElementById("detail").classList.add("open");
}
document.getElementById("close").addEventListener("click",
  () => document.getElementById("detail").classList.remove("open"));
document.getElementById("title").textContent = G.title;
buildConfigs();
buildFilters();
render();
</script></body></html>
"""
