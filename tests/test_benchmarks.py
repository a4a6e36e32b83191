"""The benchmark scripts still run (on tiny inputs): a figure nobody can reproduce is no
figure.  The numbers themselves are printed, not asserted."""

import subprocess
import sys

import pytest

from tests.conftest import REPO, needs_browser, needs_tex

pytestmark = [pytest.mark.slow, needs_tex, needs_browser]


@pytest.mark.parametrize("script, args", [
    ("tikz_compile.py", ["--papers", "2", "--per-paper", "3"]),
    ("render_mxgraph_svg.py", ["--n", "20"]),
    ("graphs.py", ["--n", "10", "--no-ocr"]),
    ("near_dup.py", ["--records", "3000", "--renders", "1000"]),
    ("code_archives.py", ["--files", "400"]),
    ("stackexchange.py", ["--posts", "300"]),
])
def test_benchmark_runs(script, args):
    res = subprocess.run([sys.executable, str(REPO / "benchmarks" / script), *args],
                         cwd=REPO / "benchmarks", capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-2000:]
    assert "/s" in res.stdout or "compile standalone" in res.stdout


def test_tikz_yield_runs_on_a_few_eprints(tmp_path):
    """The yield report over four of the sample e-prints: the samples' never-ending picture
    (compiled batched, alone and in its paper, cold) is the hostile-input tests' business,
    not this script's, and was most of its CPU (issue 41: the suite's time)."""
    src = tmp_path / "arxiv" / "src"
    src.mkdir(parents=True)
    for f in sorted((REPO / "samples" / "arxiv" / "src").iterdir())[:4]:
        (src / f.name).symlink_to(f)
    res = subprocess.run([sys.executable, str(REPO / "benchmarks" / "tikz_yield.py"),
                          str(tmp_path / "arxiv")], cwd=REPO / "benchmarks",
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-2000:]
    assert "compile standalone" in res.stdout


def test_scale_benchmark_measures_each_stage(tmp_path):
    """The scale harness on a tiny corpus, two stages: a row per stage with its rate,
    memory and disk, and the table command reads them back."""
    import json

    script = str(REPO / "benchmarks" / "scale.py")
    res = subprocess.run([sys.executable, script, "run", "--n", "40", "--root", str(tmp_path),
                          "--only", "crawl,extract"], capture_output=True, text=True,
                         timeout=900)
    assert res.returncode == 0, res.stderr[-2000:]
    out = json.loads((tmp_path / "n40" / "results.json").read_text())
    rows = {r["stage"]: r for r in out["rows"]}
    assert set(rows) == {"crawl", "extract"} and all(r["rc"] == 0 for r in rows.values())
    assert rows["crawl"]["n_in"] == 40 and rows["extract"]["n_out"] > 0
    assert rows["crawl"]["peak_pss_mb"] > 0 and rows["crawl"]["disk_mb"] > 0
    table = subprocess.run([sys.executable, script, "table",
                            str(tmp_path / "n40" / "results.json")],
                           capture_output=True, text=True, timeout=60)
    assert table.returncode == 0 and "| 40 | n40 | extract |" in table.stdout


def test_edit_referents_benchmark_runs():
    res = subprocess.run([sys.executable, str(REPO / "benchmarks" / "edit_referents.py"),
                          "--limit", "3", "--formats", "mxgraph,svg,tikz"],
                         cwd=REPO / "benchmarks", capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-2000:]
    assert "editing rows per diagram" in res.stdout and "resolving to exactly one" in res.stdout


def test_published_yield_runs_on_a_folder_of_documents(tmp_path):
    corpus = tmp_path / "corpus"
    for i, body in enumerate([r"\draw[->] (0,0) node[draw] (a) {A} -- (2,0) node[draw] {B};",
                              r"\begin{axis}\addplot {x^2};\end{axis}"]):
        d = corpus / f"fig{i}"
        d.mkdir(parents=True)
        (d / f"fig{i}.tex").write_text(
            "\\documentclass{standalone}\\usepackage{pgfplots}\\begin{document}"
            f"\\begin{{tikzpicture}}{body}\\end{{tikzpicture}}\\end{{document}}\n")
    res = subprocess.run([sys.executable, str(REPO / "benchmarks" / "published_yield.py"),
                          str(corpus), "--out", str(tmp_path / "out"), "--workers", "0"],
                         cwd=REPO, capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stderr[-2000:]
    assert "rendered 2 → published 2 (100.0 %)" in res.stdout


def test_classifier_real_runs_on_a_tiny_index(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from diagramforge.filters.classifier.negatives import negatives
    from tests.filters.classifier.conftest import diagram_records

    rows = []
    (tmp_path / "images").mkdir()
    items = [(r["code"], "graph", r["image"]) for r in diagram_records(3)] + [
        (None, lab, png) for lab, png in negatives({"chart": 2, "natural_image": 1}, 4)]
    for i, (code, label, png) in enumerate(items):
        (tmp_path / "images" / f"{i}.png").write_bytes(png)
        rows.append({"id": str(i), "corpus": "tiny", "source": "tiny:a", "name": str(i),
                     "format": "tikz" if code else "raster", "code": code, "graph": None,
                     "label": label, "rule": None, "drawn": None,
                     "image": f"images/{i}.png", "image_sha": str(i)})
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "index.parquet")
    res = subprocess.run([sys.executable, str(REPO / "benchmarks" / "classifier_real.py"),
                          "--data", str(tmp_path), "--sources", "tiny",
                          "--sheet", str(tmp_path / "sheet.png")],
                         cwd=REPO, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-2000:]
    assert "6 held-out real figures" in res.stdout and (tmp_path / "sheet.png").is_file()


@pytest.mark.parametrize("script, args, marker", [
    ("twins.py", ["--limit", "2", "--targets", "svg", "dot", "mermaid"], "coverage"),
    ("svg_twin_fidelity.py", ["--limit", "2"], "variant"),
])
def test_twin_benchmarks_run(script, args, marker):
    res = subprocess.run([sys.executable, str(REPO / "benchmarks" / script), *args],
                         cwd=REPO / "benchmarks", capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stderr[-2000:]
    assert marker in res.stdout


def test_scale_same_compares_stage_outputs_but_for_the_data_directory(tmp_path):
    """``scale.py same --stages``: a file whose rows differ only in the run's own data
    directory (the crawl's cached paths) counts as the same; any other difference does not."""
    import importlib.util

    import pyarrow as pa
    import pyarrow.parquet as pq

    spec = importlib.util.spec_from_file_location("scale", REPO / "benchmarks" / "scale.py")
    scale = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(scale)

    def write(run, name, path, label):
        d = run / "data" / "crawl" / "records"
        d.mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.table({"path": [path], "label": [label]}), d / name)

    a, b = tmp_path / "run", tmp_path / "run-dask"
    for run in (a, b):
        write(run, "part-00000.parquet", "/elsewhere/x.tex", "same")
        write(run, "part-00001.parquet", f"{run / 'data'}/cache/x.tex", "same")
    same = scale.compare_stage(a, b, "crawl")
    assert (same["files"], same["identical"], same["same_rows"], same["differ"]) == (2, 1, 1, [])
    write(b, "part-00001.parquet", f"{b / 'data'}/cache/x.tex", "other")
    write(b, "part-00002.parquet", "/elsewhere/y.tex", "same")
    differ = scale.compare_stage(a, b, "crawl")
    assert differ["differ"] == ["records/part-00001.parquet: label"]
    assert differ["only_one_side"] == ["records/part-00002.parquet"]


def test_scale_records_sets_image_bytes_aside_but_not_pixels(tmp_path):
    """``scale.py records``: two versions' records are the same when every other column is
    and each image decodes to the same pixels (a PNG and a WebP of them); one changed pixel,
    one changed column or one other rejection is a difference."""
    import importlib.util
    import io

    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq
    from PIL import Image

    sys.path.insert(0, str(REPO / "benchmarks"))
    spec = importlib.util.spec_from_file_location("scale_versions",
                                                  REPO / "benchmarks" / "scale_versions.py")
    sv = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sv)

    def enc(arr, fmt, **kw):  # noqa: ANN001, ANN003, ANN202
        buf = io.BytesIO()
        Image.fromarray(arr).save(buf, fmt, **kw)
        return buf.getvalue()

    arr = np.full((12, 16, 3), 255, np.uint8)
    arr[3:7, 4:9] = (10, 120, 200)
    other = arr.copy()
    other[0, 0] = (254, 255, 255)

    def write(run, image, op="move", rejected="edit_render_unchanged"):  # noqa: ANN001, ANN202
        for sub, table in (("records", pa.table({"id": ["e1"], "operations": [op],
                                                 "target_image": [image]})),
                           ("rejections", pa.table({"locator": ["x#edit"], "reason": [rejected],
                                                    "detail": ["ops=[]"]}))):
            d = run / "data" / "edit" / sub
            d.mkdir(parents=True, exist_ok=True)
            pq.write_table(table, d / "part-00000.parquet")

    a, b = tmp_path / "before", tmp_path / "after"
    write(a, enc(arr, "PNG"))
    write(b, enc(arr, "WEBP", lossless=True))
    c = sv.compare_records(a, b, "edit")
    assert c["same_ids"] and c["differ"] == [] and c["same_rejections"]
    assert c["images"] == {"same_bytes": 0, "same_pixels": 1, "different": 0, "absent": 0}
    write(b, enc(other, "WEBP", lossless=True), op="resize", rejected="edit_none_verified")
    c = sv.compare_records(a, b, "edit")
    assert c["images"]["different"] == 1 and c["differ"] == ["operations"]
    assert not c["same_rejections"]


def test_scale_memory_cap_stops_a_stage_that_outgrows_it():
    """``run --max-pss-mb``: a process tree over the cap is stopped (its whole session) and
    the sampler says so, instead of the machine's OOM killer choosing a victim."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("scale", REPO / "benchmarks" / "scale.py")
    scale = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(scale)
    grow = "import time\nx = bytearray(300 * 2**20)\nx[::4096] = b'1' * len(x[::4096])\n" \
           "time.sleep(60)"
    proc = subprocess.Popen([sys.executable, "-c", grow], start_new_session=True)
    with scale.TreeMemory(proc.pid, every_s=0.05, cap_mb=100) as mem:
        rc, _ = scale.reap(proc)
    assert mem.capped and rc == -9
    assert mem.peak_proc_pss > 100 * 1024 and mem.peak_pss >= mem.peak_proc_pss
    assert mem.peak_root_pss == mem.peak_proc_pss  # the one process is the root (driver)


def test_scale_variants_copies_render_the_same_picture_and_are_measured(tmp_path):
    """scale.py variants (issue 42): copies of a real figure differ in code (each its own
    e-print and cache key) and not in pixels; a tiny run measures crawl → render with the
    render's phases, and the phase table reads them back."""
    import hashlib
    import json

    sys.path.insert(0, str(REPO / "benchmarks"))
    import scale_variants

    from diagramforge.formats.rasterize import rasterize_pdf
    from diagramforge.formats.tikz.pictures import Standalone
    from diagramforge.formats.tikz.texcompile import TexCompiler

    docs = scale_variants.figures(2)
    a, b = docs[0].id, docs[1].id
    mixed = [d.id for d in scale_variants.copies(docs, 2)]
    assert mixed == [f"c000-{a}", f"c000-{b}", f"c001-{a}", f"c001-{b}"] == sorted(mixed)
    side = [d.id for d in scale_variants.copies(docs, 2, "adjacent")]
    assert side == [f"{a}-c000", f"{a}-c001", f"{b}-c000", f"{b}-c001"] == sorted(side)
    two = scale_variants.copies(docs[:1], 2)
    name = docs[0].title.rsplit("/", 1)[-1]
    codes = [d.files[name].decode() for d in two]
    assert codes[0] != codes[1]
    tex = TexCompiler(timeout_s=60, cache_dir=None)
    pngs = set()
    for code in codes:
        res = tex.compile_one(Standalone([], "", document=code))
        assert res.ok, res.error
        pngs.add(hashlib.sha256(rasterize_pdf(res.pdf, dpi=150, margin_pt=2, min_side=1,
                                              max_side=8192, max_aspect=100,
                                              min_ink=0).png).hexdigest())
    assert len(pngs) == 1

    script = str(REPO / "benchmarks" / "scale.py")
    res = subprocess.run([sys.executable, script, "variants", "--times", "1", "--figures", "3",
                          "--root", str(tmp_path), "--stages", "crawl,extract,render"],
                         capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stderr[-2000:]
    out = json.loads((tmp_path / "x1" / "results.json").read_text())
    render = next(r for r in out["rows"] if r["stage"] == "render")
    assert render["n_in"] >= 3 and "compile" in render["phases"]
    assert "| x1 | render | compile |" in res.stdout


def test_tikz_snippets_runs_on_a_tiny_corpus(tmp_path):
    """Two figures of our own, cut to their pictures: one needs automata, which the
    snippet lacks and gets; both render as their full files do."""
    corpus = tmp_path / "corpus"
    for name, lib, pic in [
            ("fsm", "automata", r"\node[state, initial] (a) {$a$};"
                                r"\node[state, accepting] (b) at (2,0) {$b$};"
                                r"\path[->] (a) edge node[above] {x} (b);"),
            ("box", "", r"\draw[->, thick] (0,0) node[draw, below] {A} -- (2,1);")]:
        (corpus / name).mkdir(parents=True)
        (corpus / name / f"{name}.tex").write_text(
            "\\documentclass{standalone}\\usepackage{tikz}"
            + (f"\\usetikzlibrary{{{lib}}}" if lib else "")
            + f"\\begin{{document}}\\begin{{tikzpicture}}{pic}\\end{{tikzpicture}}"
            "\\end{document}\n")
    res = subprocess.run([sys.executable, str(REPO / "benchmarks" / "tikz_snippets.py"),
                          "--corpus", str(corpus), "--workers", "1", "--timeout", "20"],
                         cwd=REPO / "benchmarks", capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stderr[-2000:]
    import re

    assert re.search(r"all snippets +: 2/2 = 100\.0 %", res.stdout), res.stdout
    assert re.search(r"loads alone +: 2/2 = 100\.0 %", res.stdout), res.stdout
    assert "libraries: automata 1" in res.stdout


def test_tikz_snippets_documents_mode_counts_a_picture_drawn_through_its_own_environment(
        tmp_path):
    """``--documents``: full files posted whole; a timeline drawn through the document's
    own environment renders as plain pdflatex renders its file."""
    corpus = tmp_path / "corpus" / "timeline"
    corpus.mkdir(parents=True)
    (corpus / "timeline.tex").write_text(
        "\\documentclass{article}\\usepackage{tikz}\n"
        "\\newenvironment{timeline}{\\begin{tikzpicture}\\draw[->] (0,0) -- (5,0);}"
        "{\\end{tikzpicture}}\n\\begin{document}\n\\begin{timeline}\n"
        "\\fill (1,0) circle (2pt) node[above] {1990};\n\\end{timeline}\n\\end{document}\n")
    res = subprocess.run([sys.executable, str(REPO / "benchmarks" / "tikz_snippets.py"),
                          "--corpus", str(tmp_path / "corpus"), "--workers", "1",
                          "--timeout", "20", "--documents"],
                         cwd=REPO / "benchmarks", capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stderr[-2000:]
    assert "plain pdflatex compiles 1/1; the toolkit renders ≥ 1 picture of 1/1" in res.stdout, \
        res.stdout
