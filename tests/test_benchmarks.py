"""The benchmark scripts still run (on tiny inputs): a figure nobody can reproduce is no
figure.  The numbers themselves are printed, not asserted."""

import subprocess
import sys

import pytest

from tests.conftest import REPO, needs_browser, needs_tex

pytestmark = [pytest.mark.slow, needs_tex, needs_browser]


@pytest.mark.parametrize("script, args", [
    ("tikz_compile.py", ["--papers", "2", "--per-paper", "3"]),
    ("tikz_yield.py", []),
    ("render_mxgraph_svg.py", ["--n", "20"]),
    ("graphs.py", ["--n", "10", "--no-ocr"]),
    ("near_dup.py", ["--records", "3000", "--renders", "1000"]),
    ("code_archives.py", ["--files", "400"]),
])
def test_benchmark_runs(script, args):
    res = subprocess.run([sys.executable, str(REPO / "benchmarks" / script), *args],
                         cwd=REPO / "benchmarks", capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-2000:]
    assert "/s" in res.stdout or "compile standalone" in res.stdout


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
    assert table.returncode == 0 and "| 40 | local full | extract |" in table.stdout
def test_edit_referents_benchmark_runs():
    res = subprocess.run([sys.executable, str(REPO / "benchmarks" / "edit_referents.py"),
                          "--limit", "3", "--formats", "mxgraph,svg,tikz"],
                         cwd=REPO / "benchmarks", capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-2000:]
    assert "editing rows per diagram" in res.stdout and "resolving to exactly one" in res.stdout
