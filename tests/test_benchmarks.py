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


def test_edit_referents_benchmark_runs():
    res = subprocess.run([sys.executable, str(REPO / "benchmarks" / "edit_referents.py"),
                          "--limit", "3", "--formats", "mxgraph,svg,tikz"],
                         cwd=REPO / "benchmarks", capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-2000:]
    assert "editing rows per diagram" in res.stdout and "resolving to exactly one" in res.stdout
