"""How the pipeline scales: items/s, peak memory and disk per stage at N sources.

    .venv/bin/python benchmarks/scale.py run --n 1000 --root /tmp/scale
    .venv/bin/python benchmarks/scale.py run --n 10000 --root /tmp/scale
    .venv/bin/python benchmarks/scale.py run --n 100000 --root /tmp/scale --stages nodraw \\
        --donor /tmp/scale/n10000
    .venv/bin/python benchmarks/scale.py run --n 1000 --root /tmp/scale --executor dask \\
        --corpus /tmp/scale/n1000/corpus
    .venv/bin/python benchmarks/scale.py corpus --n 100000 --out /tmp/scale/c100000
    .venv/bin/python benchmarks/scale.py table /tmp/scale/*/results.json
    .venv/bin/python benchmarks/scale.py same /tmp/scale/n1000 /tmp/scale/n1000-dask

``run`` generates N sources from real templates (``scale_corpus.py``: TikZ papers in a bulk
source archive read through ``file://``, draw.io and SVG files in git repositories), then
runs each stage as its own process, ``python -m diagramforge <stage>``, exactly as
``dvc repro`` would, sampling the memory of the whole process tree (the stage, its pool or
Dask workers, pdflatex, Chromium) every 0.2 s. Memory is PSS — shared pages split among the
processes sharing them, so Chromium's dozen processes are not counted a dozen times — with
the RSS sum beside it. Disk is what the data directory (outputs and caches) grew by.

``--stages nodraw`` runs only the stages that neither typeset nor draw; ``render`` is then
a stand-in (``scale_standin.py``) built from a smaller run's real renders (``--donor``), and
the diagram-type filter reads the shipped checkpoint. ``--executor dask`` starts an
external scheduler and two single-threaded workers (``dask scheduler``/``dask worker``, each
in its own working directory) and points ``runner.dask.address`` at it; their memory counts.

``table`` prints N × stage × items/s × peak memory × disk, and for each pair of runs 10×
apart whether the targets hold: peak memory at 10× the input ≤ 1.5× and items/s per worker
within 20 % — with the two-point split of CPU time into a marginal cost per item and a
fixed (start-up) cost, which is what a rate that "fails" at small N is made of. ``same``
says whether two runs published identical bytes (``--stages``: and whether the named
stages' records and rejections are the same).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

FULL = ("crawl", "extract", "render", "classifier-train", "filter", "split", "edit",
        "augment", "repair", "synth", "validate", "publish")
SHIPPED_CHECKPOINT = REPO / "diagramforge" / "classifier" / "checkpoint"
NODRAW = ("crawl", "extract", "render*", "filter", "split", "synth", "validate", "publish")
"""``render*``: the stand-in. Skipped at this size: render, classifier-train (the filter
reads the shipped checkpoint instead), edit, augment and repair (each draws or typesets every
item)."""


def parallel_stages() -> set[str]:
    """Stages whose items run on ``runner.workers`` processes: the mapped ones, and the
    crawl (its bulk chunks); the others run in one process."""
    from diagramforge.pipeline import STAGES, is_mapped, stage_name

    return {stage_name(s) for s in STAGES if is_mapped(s)} | {"crawl"}


# -- memory of a process tree --------------------------------------------------------------

def _pss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            for line in fh:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


class TreeMemory:
    """Peak PSS and RSS sums over a process, its descendants and ``extra`` processes, and
    the peak PSS of the largest single process: a stage whose workers are not all busy at
    small N (one bulk chunk at 1k, seven at 10k) grows in the sum but not per process."""

    def __init__(self, pid: int, extra: list[int] | None = None, every_s: float = 0.2,
                 cap_mb: float = 0.0):
        self.roots = [pid, *(extra or [])]
        self.every = every_s
        self.cap_kb, self.capped = cap_mb * 1024, False
        self.peak_pss = self.peak_rss = self.peak_proc_pss = self.peak_root_pss = 0
        self._cpu: dict[int, float] = {}
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._run, daemon=True)

    def _procs(self) -> list[psutil.Process]:
        out = []
        for pid in self.roots:
            try:
                p = psutil.Process(pid)
                out += [p, *p.children(recursive=True)]
            except psutil.NoSuchProcess:
                continue
        return out

    @property
    def cpu_s(self) -> float:
        """CPU seconds of every process of the tree seen (each at its last sample): unlike
        ``wait4``'s, it counts processes no one reaps through the tree (a browser closed
        by Playwright's driver)."""
        return sum(self._cpu.values())

    def _run(self) -> None:
        while not self._stop.is_set():
            pss = rss = 0
            for p in self._procs():
                try:
                    t = p.cpu_times()
                    self._cpu[p.pid] = t.user + t.system
                    rss += p.memory_info().rss // 1024
                    one = _pss_kb(p.pid)
                    pss += one
                    self.peak_proc_pss = max(self.peak_proc_pss, one)
                    if p.pid == self.roots[0]:  # the stage's driver (a mapped stage's
                        # workers, chromium and TeX are its descendants)
                        self.peak_root_pss = max(self.peak_root_pss, one)
                except psutil.Error:
                    continue
            self.peak_pss, self.peak_rss = max(self.peak_pss, pss), max(self.peak_rss, rss)
            if self.cap_kb and pss > self.cap_kb and not self.capped:
                # a whole-table stage at 10× its measured size can outgrow a shared machine:
                # stop it (its process group) and record where it was, not the machine's OOM
                self.capped = True
                with contextlib.suppress(OSError):  # the root leads its own session
                    os.killpg(self.roots[0], signal.SIGKILL)
            self._stop.wait(self.every)

    def __enter__(self) -> TreeMemory:
        self._t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._t.join()


def reap(proc: subprocess.Popen) -> tuple[int, float]:
    """Wait for ``proc``; its exit code and the CPU seconds it and every descendant it
    waited for used (``wait4``'s rusage: pool workers, pdflatex, the browser)."""
    _, status, ru = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, ru.ru_utime + ru.ru_stime


def _own_cpu() -> float:
    import resource

    a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(
        resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime


def du(path: Path) -> int:
    res = subprocess.run(["du", "-sb", str(path)], capture_output=True, text=True)
    return int(res.stdout.split()[0]) if res.returncode == 0 else 0


# -- an external Dask cluster --------------------------------------------------------------

class ExternalDask:
    """``dask scheduler`` and two ``dask worker`` processes, each in a directory of its own."""

    def __init__(self, root: Path, env: dict, workers: int = 2):
        self.root, self.env, self.n = root, env, workers
        self.procs: list[subprocess.Popen] = []
        self.address = ""

    def __enter__(self) -> ExternalDask:
        dask = str(Path(sys.executable).parent / "dask")
        sfile = self.root / "scheduler.json"
        sfile.unlink(missing_ok=True)
        (self.root / "scheduler").mkdir(parents=True, exist_ok=True)
        log = open(self.root / "dask.log", "a")  # noqa: SIM115 - lives as long as the cluster
        self.procs.append(subprocess.Popen(
            [dask, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
             "--scheduler-file", str(sfile)], cwd=self.root / "scheduler", env=self.env,
            stdout=log, stderr=log))
        for _ in range(300):
            if sfile.exists() and json.loads(sfile.read_text() or "{}").get("address"):
                break
            time.sleep(0.1)
        self.address = json.loads(sfile.read_text())["address"]
        for k in range(self.n):
            wd = self.root / f"worker-{k}"
            wd.mkdir(exist_ok=True)
            self.procs.append(subprocess.Popen(
                [dask, "worker", self.address, "--nworkers", "1", "--nthreads", "1",
                 "--no-dashboard", "--memory-limit", "0", "--local-directory", str(wd)],
                cwd=wd, env=self.env, stdout=log, stderr=log))
        from distributed import Client

        with Client(self.address, timeout=60) as c:
            c.wait_for_workers(self.n, timeout=120)
        self.cpu_delta()  # start-up is not any stage's work
        return self

    @property
    def pids(self) -> list[int]:
        return [p.pid for p in self.procs]

    def cpu_delta(self) -> float:
        """CPU seconds the scheduler and workers (and their children) used since last asked:
        they outlive every stage, so no rusage reports them."""
        total = 0.0
        for p in self.procs:
            try:
                for q in [psutil.Process(p.pid), *psutil.Process(p.pid).children(True)]:
                    t = q.cpu_times()
                    total += t.user + t.system + t.children_user + t.children_system
            except psutil.Error:
                continue
        delta, self._cpu = total - getattr(self, "_cpu", 0.0), total
        return delta

    def __exit__(self, *exc: object) -> None:
        for p in reversed(self.procs):
            p.terminate()
        for p in self.procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()


# -- a run ---------------------------------------------------------------------------------

def run_params(run: Path, corpus: dict, args: argparse.Namespace) -> dict:
    base = yaml.safe_load((REPO / "params.yaml").read_text())
    data, cache = run / "data", run / "data" / "cache"
    base["project"].update(name=f"scale-{args.n}", data_dir=str(data),
                           metrics_dir=str(run / "metrics"))
    base["runner"].update(workers=args.workers, progress=False, executor=args.executor)
    a = base["crawl"]["arxiv"]
    a.update(source="", categories=[], from_date=None, until_date=None, max_papers=10**9,
             download_pdfs=False, cache_dir=str(cache / "arxiv"))
    a["bulk"].update(url=corpus["arxiv_url"], metadata=corpus["metadata"],
                     requester_pays=False)
    base["crawl"]["repos"].update(repositories=[{"url": r, "ref": "v1"}
                                                for r in corpus["repos"]],
                                  cache_dir=str(cache / "repos"))
    base["crawl"]["pdf"]["from_arxiv"] = False
    for source in ("stack", "repo_search", "stackexchange"):  # the generated corpus only
        base["crawl"][source]["enabled"] = False
    base["render"]["tikz"]["cache_dir"] = str(cache / "tex")
    base["synth"]["cache_dir"] = str(cache / "content")
    base["augment"]["llm"]["cache_dir"] = str(cache / "content")
    base["publish"].update(name=f"scale-{args.n}", out_dir=str(data / "published"),
                           history_dir=str(data / "releases"))
    if args.stages == "nodraw":
        # No classifier-train stage runs here: the filter reads the shipped checkpoint, the
        # one `classifier.train: false` (the default) would copy. The donor's own checkpoint
        # may predate the type vocabulary (its labels then read "not a diagram type").
        base["filter"]["diagram_type"]["checkpoint"] = str(SHIPPED_CHECKPOINT)
    return base


def _env(code: Path = REPO) -> dict:
    """The stages' environment: ``code``'s diagramforge (this checkout's by default)."""
    env = {**os.environ, "PYTHONPATH": str(code), "DVC_NO_ANALYTICS": "1",
           "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
           "NO_ALBUMENTATIONS_UPDATE": "1"}
    env.setdefault("TIKTOKEN_CACHE_DIR", str(REPO / ".venv" / "tiktoken-cache"))
    return env


def _stage_row(stage: str, run: Path, wall: float, mem: TreeMemory, disk: int, rc: int,
               workers: int, load: float) -> dict:
    m_path = run / "metrics" / f"{stage}.json"
    m = json.loads(m_path.read_text()) if m_path.exists() else {}
    n_in = m.get("in", 0)
    parallel = workers if stage in parallel_stages() and workers else 1
    return {"stage": stage, "rc": rc, "n_in": n_in, "n_out": m.get("out", 0),
            "wall_s": round(wall, 2), "stage_s": m.get("seconds"),
            "items_per_s": round(n_in / wall, 2) if wall else None,
            "items_per_s_per_worker": round(n_in / wall / parallel, 2) if wall else None,
            "workers": parallel, "peak_pss_mb": round(mem.peak_pss / 1024, 1),
            "peak_rss_mb": round(mem.peak_rss / 1024, 1),
            "peak_proc_pss_mb": round(mem.peak_proc_pss / 1024, 1),
            "peak_driver_pss_mb": round(mem.peak_root_pss / 1024, 1),
            "disk_mb": round(disk / 2**20, 1),
            "load_before": round(load, 2), "rejected": m.get("rejected", {}),
            "phases": m.get("phases")}


def measure_stage(stage: str, run: Path, pfile: Path, env: dict, workers: int, data: Path,
                  cluster: ExternalDask | None = None, max_pss_mb: float = 0.0) -> dict:
    """Run one stage as ``python -m diagramforge --params pfile stage`` (in ``run``, its log
    in ``run/<stage>.log``) and return its row: wall and CPU time of the whole process tree,
    peak memory, disk growth of ``data``, the stage's metrics (counts, phases)."""
    before, load, t = du(data), os.getloadavg()[0], time.perf_counter()
    argv = [sys.executable, "-m", "diagramforge", "--params", str(pfile), stage]
    with open(run / f"{stage}.log", "w") as log:
        proc = subprocess.Popen(argv, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=run,
                                start_new_session=True)
        try:
            with TreeMemory(proc.pid, cluster.pids if cluster else None,
                            cap_mb=max_pss_mb) as mem:
                rc, cpu = reap(proc)
        except BaseException:  # the harness stopped: so does the stage it ran
            os.killpg(proc.pid, signal.SIGKILL)
            raise
    cpu += cluster.cpu_delta() if cluster else 0.0
    row = _stage_row(stage, run, time.perf_counter() - t, mem, du(data) - before, rc,
                     workers, load)
    row["cpu_s"] = round(cpu, 1)
    row["tree_cpu_s"] = round(mem.cpu_s, 1)
    row["load_after"] = round(os.getloadavg()[0], 2)
    if mem.capped:
        row["capped_at_mb"] = max_pss_mb
    row["items_per_cpu_s"] = round(row["n_in"] / cpu, 2) if cpu else None
    return row


def _stop(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def cmd_run(args: argparse.Namespace) -> None:
    signal.signal(signal.SIGTERM, _stop)
    from scale_corpus import generate

    name = (f"n{args.n}" + ("-nodraw" if args.stages == "nodraw" else "")
            + ("-dask" if args.executor == "dask" else ""))
    run = Path(args.root) / name
    if run.exists() and not args.keep:
        shutil.rmtree(run)
    run.mkdir(parents=True, exist_ok=True)
    results: dict = {"n": args.n, "executor": args.executor, "workers": args.workers,
                     "stages": args.stages, "cpus": os.cpu_count(), "rows": []}
    if args.keep and (run / "results.json").exists():  # a run continued stage by stage
        results["rows"] = json.loads((run / "results.json").read_text())["rows"]
    t0 = time.perf_counter()
    if args.corpus:
        corpus = json.loads((Path(args.corpus) / "corpus.json").read_text())
    else:
        corpus = generate(args.n, run / "corpus", Path(args.root) / "template-cache")
        (run / "corpus" / "corpus.json").write_text(json.dumps(corpus, indent=1))
    results["corpus"] = {**corpus, "seconds": round(time.perf_counter() - t0, 1),
                         "bytes": du(Path(args.corpus or run / "corpus"))}
    print(f"corpus: {json.dumps(results['corpus'])}", flush=True)
    pfile = run / "params.yaml"
    pfile.write_text(yaml.safe_dump(run_params(run, corpus, args), sort_keys=False))
    env = _env()
    stages = FULL if args.stages == "full" else NODRAW
    if args.only:
        stages = tuple(s for s in stages if s.rstrip("*") in args.only.split(","))
    cluster = ExternalDask(run / "dask", env) if args.executor == "dask" else None
    if cluster:
        cluster.__enter__()
        params = yaml.safe_load(pfile.read_text())
        params["runner"]["dask"]["address"] = cluster.address
        pfile.write_text(yaml.safe_dump(params, sort_keys=False))
    try:
        for stage in stages:
            if stage == "render*":
                from scale_standin import write_standin

                before, load, t = du(run / "data"), os.getloadavg()[0], time.perf_counter()
                r0 = _own_cpu()
                with TreeMemory(os.getpid()) as mem:
                    write_standin(run / "data", run / "metrics",
                                  Path(args.donor) / "data" / "render" / "records",
                                  args.workers)
                row = _stage_row("render", run, time.perf_counter() - t, mem,
                                 du(run / "data") - before, 0, args.workers, load)
                row["cpu_s"] = round(_own_cpu() - r0, 1)
                row["items_per_cpu_s"] = round(row["n_in"] / row["cpu_s"], 2) \
                    if row["cpu_s"] else None
                row["stage"] = stage
            else:
                row = measure_stage(stage, run, pfile, env, args.workers, run / "data",
                                    cluster, args.max_pss_mb)
            results["rows"] = [r for r in results["rows"] if r["stage"] != stage] + [row]
            print(json.dumps(row), flush=True)
            (run / "results.json").write_text(json.dumps(results, indent=1))
            if row["rc"] != 0:
                print(f"{stage} failed (exit {row['rc']}); see {run / (stage + '.log')}",
                      flush=True)
                if stage in ("crawl", "extract", "render", "render*", "split"):
                    break
    finally:
        if cluster:
            cluster.__exit__()
    results["published_digest"] = published_digest(run)
    (run / "results.json").write_text(json.dumps(results, indent=1))


# -- reports -------------------------------------------------------------------------------

def published_digest(run: Path) -> str | None:
    out = run / "data" / "published"
    if not out.exists():
        return None
    h = hashlib.sha256()
    for p in sorted(q for q in out.rglob("*") if q.is_file()):
        h.update(p.relative_to(out).as_posix().encode())
        h.update(p.read_bytes())
    return h.hexdigest()


def _normalised(table, run: Path):
    """``table`` with the run's own data directory in its string columns replaced by
    ``<data>``: records keep local paths (the crawl's cached copy of a source), which name
    the data directory, so two runs of one corpus in two directories differ there (and, when
    the stages are deterministic, nowhere else). Only the data directory: a corpus may live
    inside one run's directory and be read by the other."""
    import pyarrow as pa
    import pyarrow.compute as pc

    root = str((run / "data").resolve()) + "/"
    cols = []
    for name in table.column_names:
        col = table[name]
        if pa.types.is_string(col.type) or pa.types.is_large_string(col.type):
            col = pc.replace_substring(col, root, "<data>/")
        cols.append(col)
    return pa.table(cols, names=table.column_names)


def compare_stage(a: Path, b: Path, stage: str) -> dict:
    """How one stage's outputs (records and rejections) of runs ``a`` and ``b`` compare,
    file by file: identical bytes, the same rows once each run's own directory is taken out
    of path strings, or different (with the columns that differ)."""
    import pyarrow.parquet as pq

    out: dict = {"stage": stage, "files": 0, "identical": 0, "same_rows": 0, "differ": [],
                 "only_one_side": []}
    for sub in ("records", "rejections"):
        da, db = a / "data" / stage / sub, b / "data" / stage / sub
        fa = {p.name for p in da.glob("*.parquet")} if da.exists() else set()
        fb = {p.name for p in db.glob("*.parquet")} if db.exists() else set()
        out["only_one_side"] += [f"{sub}/{f}" for f in sorted(fa ^ fb)]
        for f in sorted(fa & fb):
            out["files"] += 1
            if (da / f).read_bytes() == (db / f).read_bytes():
                out["identical"] += 1
                continue
            ta, tb = _normalised(pq.read_table(da / f), a), _normalised(pq.read_table(db / f), b)
            if ta.schema == tb.schema and ta.equals(tb):
                out["same_rows"] += 1
                continue
            cols = sorted(c for c in set(ta.column_names) | set(tb.column_names)
                          if c not in ta.column_names or c not in tb.column_names
                          or not ta[c].equals(tb[c]))
            out["differ"].append(f"{sub}/{f}: {', '.join(cols) or 'schema'}")
    return out


def cmd_same(args: argparse.Namespace) -> None:
    a, b = Path(args.a), Path(args.b)
    ok, by_path = True, 0
    for stage in [s for s in args.stages.split(",") if s]:
        c = compare_stage(a, b, stage.rstrip("*"))
        same = not c["differ"] and not c["only_one_side"] and c["files"] > 0
        ok &= same
        by_path += c["same_rows"]
        print(f"{c['stage']}: {c['files']} files; {c['identical']} identical bytes, "
              f"{c['same_rows']} the same rows but for the data directory in paths, "
              f"{len(c['differ'])} differ, {len(c['only_one_side'])} only on one side"
              f" -> {'same' if same else 'NOT the same'}")
        for line in (c["differ"] + c["only_one_side"])[:10]:
            print("  ", line)
    if not args.stages or (a / "data" / "published").exists():
        pa_, pb = a / "data" / "published", b / "data" / "published"
        fa = sorted(p.relative_to(pa_).as_posix() for p in pa_.rglob("*") if p.is_file())
        fb = sorted(p.relative_to(pb).as_posix() for p in pb.rglob("*") if p.is_file())
        differ = [f for f in fa if f in fb and (pa_ / f).read_bytes() != (pb / f).read_bytes()]
        only = sorted(set(fa) ^ set(fb))
        print(f"published: {len(fa)} vs {len(fb)} files; {len(differ)} differ; "
              f"{len(only)} only on one side")
        for f in (differ + only)[:20]:
            print("  ", f)
        ok &= not differ and not only and bool(fa)
    print("NOT the same" if not ok else "identical bytes" if not by_path else
          f"the same ({by_path} files differ only in the data directory named in paths)")
    sys.exit(0 if ok else 1)


def _num(x: float | None) -> str:
    return "" if x is None else f"{x:.0f}"


def _labels(paths: list[str]) -> list[str]:
    """Each results file's run directory, relative to the runs' common root: the name a
    reader finds the run under (``n1000-nodraw``, ``quiet/n1000-nodraw``)."""
    dirs = [Path(p).resolve().parent for p in paths]
    if len(dirs) == 1:
        return [dirs[0].name]
    root = Path(os.path.commonpath(dirs))
    return [d.relative_to(root).as_posix() if d != root else d.name for d in dirs]


def _target_rows(small: dict, big: dict) -> list[str]:
    """The target check between a run at N and one at 10N: peak PSS ratio, rate change
    (per CPU-second when both have CPU time), and the two-point marginal/fixed CPU split."""
    lines = []
    bigs = {s["stage"].rstrip("*"): s for s in big["rows"]}
    for s in small["rows"]:
        st = s["stage"].rstrip("*")
        b = bigs.get(st)
        rate = "items_per_cpu_s" if s.get("items_per_cpu_s") and b and \
            b.get("items_per_cpu_s") else "items_per_s_per_worker"
        if not b or b["rc"] or s["rc"] or not s["peak_pss_mb"] or not s.get(rate) \
                or not b.get(rate):
            continue
        mem = b["peak_pss_mb"] / s["peak_pss_mb"]
        speed = b[rate] / s[rate] - 1
        ok = mem <= 1.5 and abs(speed) <= 0.2
        basis = "per CPU-s" if rate == "items_per_cpu_s" else "per worker, wall"
        marginal = fixed = ""
        if s.get("cpu_s") and b.get("cpu_s") and b["n_in"] > s["n_in"]:
            m = (b["cpu_s"] - s["cpu_s"]) / (b["n_in"] - s["n_in"])
            marginal, fixed = f"{m * 1000:.1f}", f"{s['cpu_s'] - m * s['n_in']:.1f}"
        lines.append(f"| {small['_label']} → {big['_label']} | {s['stage']} | "
                     f"{small['n']:,} → {big['n']:,} | {mem:.2f} | {speed:+.0%} ({basis}) | "
                     f"{'yes' if ok else 'NO'} | {marginal} | {fixed} |")
    return lines


def cmd_table(args: argparse.Namespace) -> None:
    runs = [json.loads(Path(p).read_text()) for p in args.results]
    for r, label in zip(runs, _labels(args.results), strict=True):
        r["_label"] = label
    runs.sort(key=lambda r: (r["executor"], r["stages"], r["n"], r["_label"]))
    print("| N | run | stage | in | out | wall s | items/s | CPU s | items/CPU-s | "
          "peak PSS MB | peak RSS MB | largest process PSS MB | disk MB | load |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in runs:
        for s in r["rows"]:
            print(f"| {r['n']:,} | {r['_label']} | {s['stage']} | {s['n_in']:,} | "
                  f"{s['n_out']:,} | {s['wall_s']:.0f} | {s['items_per_s']} | "
                  f"{s.get('cpu_s', '')} | {s.get('items_per_cpu_s', '')} | "
                  f"{s['peak_pss_mb']:.0f} | "
                  f"{s['peak_rss_mb']:.0f} | {_num(s.get('peak_proc_pss_mb'))} | "
                  f"{s['disk_mb']:.0f} | {s['load_before']:.0f} |"
                  + ("" if s["rc"] == 0 else f" exit {s['rc']}")
                  + (f" stopped over {s['capped_at_mb']:.0f} MB" if s.get("capped_at_mb")
                     else ""))
    print("\n| runs | stage | N → 10N | peak PSS ×(≤1.5) | rate Δ (±20 %) | holds | "
          "marginal CPU ms/item | fixed CPU s |")
    print("|---|---|---|---|---|---|---|---|")
    for small in runs:
        for big in runs:
            if (big["executor"], big["stages"], big["n"]) == \
                    (small["executor"], small["stages"], small["n"] * 10):
                print("\n".join(_target_rows(small, big)))
    if any(s.get("phases") for r in runs for s in r["rows"]):  # runs since issue 42
        print("\nWhere each stage's time went (metrics/<stage>.json's phases):\n")
        cmd_phases(argparse.Namespace(results=args.results, stages=""))


VARIANT_STAGES = ("crawl", "extract", "render", "classifier-train", "filter", "split",
                  "augment")
"""What the copies run through: render, and augment (whose upstream is split)."""


def cmd_variants(args: argparse.Namespace) -> None:
    """The real TikZ collection at each ``--times`` (``scale_variants.py``), each run alone,
    stage by stage, measured as ``run`` measures; the rows carry each stage's phases."""
    signal.signal(signal.SIGTERM, _stop)
    import scale_variants

    stages = [s for s in args.stages.split(",") if s] if args.stages else VARIANT_STAGES
    env = _env()
    for times in args.times:
        run = Path(args.root) / f"x{times}"
        if run.exists() and not args.keep:
            shutil.rmtree(run)
        run.mkdir(parents=True, exist_ok=True)
        cfile = run / "corpus" / "corpus.json"
        if cfile.exists():
            corpus = json.loads(cfile.read_text())
        else:
            corpus = scale_variants.generate(times, run / "corpus", args.figures, args.order)
            cfile.write_text(json.dumps(corpus, indent=1))
        pfile = run / "params.yaml"
        pfile.write_text(yaml.safe_dump(scale_variants.params(run, corpus, args.workers),
                                        sort_keys=False))
        rfile = run / "results.json"
        results = json.loads(rfile.read_text()) if args.keep and rfile.exists() else {
            "n": corpus["eprints"], "times": times, "figures": corpus["figures"],
            "executor": "local", "workers": args.workers, "stages": "variants",
            "cpus": os.cpu_count(), "corpus": corpus, "rows": []}
        for stage in stages:
            row = measure_stage(stage, run, pfile, env, args.workers, run / "data")
            results["rows"] = [r for r in results["rows"] if r["stage"] != stage] + [row]
            rfile.write_text(json.dumps(results, indent=1))
            print(json.dumps({k: v for k, v in row.items() if k != "phases"}), flush=True)
            if row["rc"] != 0:
                print(f"{stage} failed (exit {row['rc']}); see {run / (stage + '.log')}",
                      flush=True)
                break
    cmd_phases(argparse.Namespace(results=[str(Path(args.root) / f"x{t}" / "results.json")
                                           for t in args.times], stages="render,augment"))


PHASE_ORDER = ("setup", "driver", "wait", "compile", "cache", "rasterise", "checks", "graph",
               "render", "compare", "encode", "degrade", "llm", "worker_other")


def cmd_phases(args: argparse.Namespace) -> None:
    """Per run and stage: where the seconds went (``metrics/<stage>.json``'s ``phases``),
    per item, and each run's per-item figures against the smallest run of the same kind."""
    runs = [json.loads(Path(p).read_text()) for p in args.results]
    for r, label in zip(runs, _labels(args.results), strict=True):
        r["_label"] = label
    runs.sort(key=lambda r: (r["executor"], r["stages"], r["n"], r["_label"]))
    want = set(args.stages.split(",")) if args.stages else None
    print("| run | stage | in | wall s | wall ms/item | CPU s | CPU ms/item | peak PSS MB | "
          "largest process MB | load before/after |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in runs:
        for s in r["rows"]:
            if want and s["stage"].rstrip("*") not in want or not s["n_in"]:
                continue
            print(f"| {r['_label']} | {s['stage']} | {s['n_in']:,} | {s['wall_s']:.0f} | "
                  f"{1000 * s['wall_s'] / s['n_in']:.0f} | {s.get('cpu_s', '')} | "
                  f"{1000 * s.get('cpu_s', 0) / s['n_in']:.0f} | {s['peak_pss_mb']:.0f} | "
                  f"{_num(s.get('peak_proc_pss_mb'))} | {s['load_before']:.1f}/"
                  f"{s.get('load_after', float('nan')):.1f} |")
    print("\n| run | stage | phase | summed s | CPU s | wall s | summed ms/item | "
          "CPU ms/item | wall ms/item | ×smallest (summed/item) | entered /item |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    events = []
    first: dict[tuple, dict] = {}
    for r in runs:
        for s in r["rows"]:
            st = s["stage"].rstrip("*")
            if want and st not in want or not s.get("phases") or not s["n_in"]:
                continue
            base = first.setdefault((r["executor"], r["stages"], st), {**s, "_n": s["n_in"]})
            names = [p for p in PHASE_ORDER if p in s["phases"]] + sorted(
                set(s["phases"]) - set(PHASE_ORDER) - {"counts"})
            if s["phases"].get("counts"):
                events.append(f"| {r['_label']} | {st} | " + ", ".join(
                    f"{k} {v:,} ({v / s['n_in']:.2f}/item)"
                    for k, v in s["phases"]["counts"].items()) + " |")
            for p in names:
                ph, n = s["phases"][p], s["n_in"]
                b = base["phases"].get(p)
                entered = f"{ph['count'] / n:.2f}" if "count" in ph else ""
                ratio = (ph["summed_s"] / n) / (b["summed_s"] / base["_n"]) \
                    if b and b["summed_s"] > 0 and base is not s else None
                print(f"| {r['_label']} | {st} | {p} | {ph['summed_s']:.1f} | "
                      f"{ph['cpu_s']:.1f} | {ph['wall_s']:.1f} | "
                      f"{1000 * ph['summed_s'] / n:.1f} | {1000 * ph['cpu_s'] / n:.1f} | "
                      f"{1000 * ph['wall_s'] / n:.1f} | "
                      f"{'' if ratio is None else f'{ratio:.2f}'} | {entered} |")
    if events:
        print("\n| run | stage | events |\n|---|---|---|")
        print("\n".join(events))


def cmd_corpus(args: argparse.Namespace) -> None:
    from scale_corpus import generate

    out = Path(args.out)
    t0 = time.perf_counter()
    info = generate(args.n, out, Path(args.root) / "template-cache")
    (out / "corpus.json").write_text(json.dumps(info, indent=1))
    print(json.dumps({**info, "seconds": round(time.perf_counter() - t0, 1)}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--n", type=int, required=True)
    r.add_argument("--root", default="/tmp/diagramforge-scale")
    r.add_argument("--stages", choices=("full", "nodraw"), default="full")
    r.add_argument("--only", default="", help="comma-separated stages of the set to run")
    r.add_argument("--donor", help="a smaller full run (for --stages nodraw)")
    r.add_argument("--executor", choices=("local", "dask"), default="local")
    r.add_argument("--workers", type=int, default=2)
    r.add_argument("--corpus", help="reuse the corpus of an earlier run (its corpus/ dir)")
    r.add_argument("--max-pss-mb", type=float, default=0.0,
                   help="stop a stage whose process tree's PSS exceeds this (0: never); "
                        "the row records the cap and the stage counts as failed")
    r.add_argument("--keep", action="store_true",
                   help="continue a run: keep its directory and its measured stages")
    c = sub.add_parser("corpus", help="only generate a corpus (for run --corpus)")
    c.add_argument("--n", type=int, required=True)
    c.add_argument("--out", required=True)
    c.add_argument("--root", default="/tmp/diagramforge-scale")
    t = sub.add_parser("table")
    t.add_argument("results", nargs="+")
    s = sub.add_parser("same")
    s.add_argument("a")
    s.add_argument("b")
    s.add_argument("--stages", default="",
                   help="also compare these stages' records and rejections, e.g. "
                        "crawl,extract,render,filter (runs stopped before publish)")
    v = sub.add_parser("variants", help="a real TikZ collection at 1×, 10×, 30× "
                                        "(scale_variants.py): render and augment per item")
    v.add_argument("--times", type=int, nargs="+", default=[1, 10, 30])
    v.add_argument("--root", default="/tmp/diagramforge-variants")
    v.add_argument("--figures", type=int, default=112)
    v.add_argument("--workers", type=int, default=2)
    v.add_argument("--order", choices=("interleaved", "adjacent"), default="interleaved",
                   help="copy k of every figure before copy k+1 (the default: every stretch "
                        "of the listing holds the 1× mix), or a figure's copies side by side")
    v.add_argument("--stages", default="",
                   help=f"comma-separated, in order (default: {','.join(VARIANT_STAGES)})")
    v.add_argument("--keep", action="store_true",
                   help="continue runs: keep their directories, corpora and measured stages")
    vs = sub.add_parser("versions", help="one corpus, several versions of the code, stage by "
                                         "stage side by side (scale_versions.py)")
    vs.add_argument("--corpus", choices=("drawio", "drawio-varied", "samples"),
                    required=True)
    vs.add_argument("--code", action="append", required=True, metavar="NAME=DIR",
                    help="a version: its name and checkout (repeat; '.' is this one)")
    vs.add_argument("--root", default="/tmp/diagramforge-versions")
    vs.add_argument("--stages", required=True, help="comma-separated, in order")
    vs.add_argument("--workers", type=int, default=2)
    vs.add_argument("--keep", action="store_true",
                    help="continue: keep the versions' directories and measured stages")
    rc = sub.add_parser("records", help="the same records (images by pixels) and rejections "
                                        "in two runs' stages?")
    rc.add_argument("a")
    rc.add_argument("b")
    rc.add_argument("--stages", required=True)
    by = sub.add_parser("bytes", help="MB per published diagram of versions' runs")
    by.add_argument("runs", nargs="+", help="scale.py versions run directories (published)")
    tk = sub.add_parser("tikz", help="versions' TikZ render after its compile (a warm cache)")
    tk.add_argument("runs", nargs="+", help="scale.py versions run directories")
    tk.add_argument("--rounds", type=int, default=3)
    p = sub.add_parser("phases", help="the phase table of runs' results.json")
    p.add_argument("results", nargs="+")
    p.add_argument("--stages", default="", help="only these stages (comma-separated)")
    args = ap.parse_args()
    if args.cmd == "run" and args.stages == "nodraw" and not args.donor:
        ap.error("--stages nodraw needs --donor (a full run's directory)")
    if args.cmd in ("versions", "records", "tikz", "bytes"):
        import scale_versions

        if args.cmd == "records":
            scale_versions.cmd_records(args)
        elif args.cmd == "bytes":
            scale_versions.cmd_bytes(args)
        elif args.cmd == "tikz":
            scale_versions.cmd_tikz(args, _env)
        else:
            signal.signal(signal.SIGTERM, _stop)
            scale_versions.cmd_versions(args, measure_stage, _env)
        return
    {"run": cmd_run, "corpus": cmd_corpus, "table": cmd_table, "same": cmd_same,
     "variants": cmd_variants, "phases": cmd_phases}[args.cmd](args)


if __name__ == "__main__":
    main()
