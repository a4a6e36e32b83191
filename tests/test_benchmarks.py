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
])
def test_benchmark_runs(script, args):
    res = subprocess.run([sys.executable, str(REPO / "benchmarks" / script), *args],
                         cwd=REPO / "benchmarks", capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-2000:]
    assert "/s" in res.stdout or "compile standalone" in res.stdout


@pytest.mark.parametrize("script, args, marker", [
    ("twins.py", ["--limit", "2", "--targets", "svg", "dot", "mermaid"], "coverage"),
    ("svg_twin_fidelity.py", ["--limit", "2"], "variant"),
])
def test_twin_benchmarks_run(script, args, marker):
    res = subprocess.run([sys.executable, str(REPO / "benchmarks" / script), *args],
                         cwd=REPO / "benchmarks", capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stderr[-2000:]
    assert marker in res.stdout
