"""Compile TikZ standalone documents with TeX: sandboxed, batched, precompiled, cached.

Speed comes from three things (each measured in ``benchmarks/tikz_compile.py``):
a precompiled format of the shared preamble (``mylatexformat``; a document's own extra
preamble goes after ``\\endofdump``), batching every figure of one paper into one run with
one page per figure (:mod:`texbatch`; split afterwards; any error falls back to single runs
so one bad figure cannot sink its neighbours), and a cache keyed by document hash, engine
and TeX Live version.  Safety: ``-no-shell-escape``, ``openin_any=p``/``openout_any=p``, a
fresh temp dir per job, rlimits, a process-group kill (see :mod:`diagramforge.sandbox.process`),
Landlock where the kernel has it, and for LuaLaTeX a Lua sandbox (:mod:`texengines`).

Each picture climbs a ladder of documents (minimal preamble … the source document itself)
and engines (:meth:`TexCompiler.compile_ladders`); the first that compiles is kept.
"""

from __future__ import annotations

import functools
import hashlib
import re
import subprocess
import tempfile
from dataclasses import asdict, dataclass
from enum import StrEnum
from pathlib import Path

import pymupdf
from filelock import FileLock

from diagramforge.formats.tikz import notation as latex
from diagramforge.formats.tikz.pictures import Standalone
from diagramforge.formats.tikz.texbatch import (
    PAGE_MARK,
    RANDOM_SEED,
    assets_digest,
    batch_key,
    compose,
    failed_page,
    format_source,
    pages_begun,
    split_preloadable,
    union_blocks,
    write_assets,
)
from diagramforge.formats.tikz.texengines import (
    Engine,
    LuaSetup,
    engine_argv,
    file_access,
    tex_env,
    tex_read_roots,
)
from diagramforge.measure.timing import CACHE, COMPILE, count, in_phase
from diagramforge.sandbox.process import run_sandboxed, timeout_detail
from diagramforge.store import atomic
from diagramforge.store.cache import ContentCache

__all__ = ["RANDOM_SEED", "CompileReason", "CompileResult", "TexCompiler", "batch_key",
           "classify", "compose", "split_preloadable", "tex_env", "tex_version",
           "union_blocks"]

CACHE_VERSION = "3"


class CompileReason(StrEnum):
    """Why a document did not compile (the taxonomy of the yield report)."""

    TIMEOUT = "timeout"
    MISSING_PACKAGE = "missing_package"
    MISSING_CLASS = "missing_class"
    MISSING_FILE = "missing_file"
    FORBIDDEN_IO = "forbidden_io"
    UNDEFINED_CONTROL_SEQUENCE = "undefined_control_sequence"
    TEX_CAPACITY = "tex_capacity"
    TIKZ_ERROR = "tikz_error"
    LATEX_ERROR = "latex_error"
    OUTPUT_TOO_LARGE = "output_too_large"
    EMPTY_OUTPUT = "empty_output"
    TEX_ERROR = "tex_error"


# Failures no other rung or engine can mend, and that are costly or hostile to repeat: the
# ladder jumps to the source document of the same engine and tries no other engine.
HARD_FAILURES = frozenset({CompileReason.TIMEOUT, CompileReason.OUTPUT_TOO_LARGE,
                           CompileReason.FORBIDDEN_IO})


@dataclass
class CompileResult:
    ok: bool
    pdf: bytes | None = None
    reason: str | None = None
    error: str | None = None
    seconds: float = 0.0
    cached: bool = False
    mode: str = ""  # format | plain | document, single | batch
    page: int | None = None  # in a batch, the page that failed
    engine: str = Engine.PDFLATEX


@functools.cache
def tex_version(engine: str = "pdflatex") -> str:
    """First line of ``engine --version``: part of every cache key."""
    try:
        out = subprocess.run([engine, "--version"], capture_output=True, text=True, timeout=30)
        return out.stdout.splitlines()[0].strip()
    except (OSError, subprocess.SubprocessError, IndexError):
        return "unknown"


_MISSING = re.compile(r"File `([^']+)' not found")
_SANDBOX_LINE = re.compile(r"diagramforge sandbox: not [^\n]*")
# the kernel (Landlock) refusing a file: the engine reports the errno and stops
_DENIED = re.compile(r"^[^\n]*: Permission denied[^\n]*$", re.M)
# a Lua error stops LuaTeX with "==> Fatal error occurred"; the Lua message says why
_LUA_ERROR = re.compile(r"^(?:\[\\directlua\]|\S+\.lua):\d+: [^\n]*$", re.M)
# an absolute or parent path in an error about a file (what the kernel refused to open)
_PATH_IN_ERROR = re.compile(r"[`'\"(<\s]((?:/|\.\./)[^\s'`\")>]+)")
_FILE_ERROR = re.compile(r"not found|can(?:no|')t (?:find|open)|[Uu]nable to (?:load|open)|"
                         r"[Pp]ermission denied|not loadable")


def _outside(path: str) -> bool:
    """Whether a path lies outside the job directory and TeX's own trees."""
    if path.startswith("../") or "/../" in path:
        return True
    return path.startswith("/") and not any(
        path == r or path.startswith(r.rstrip("/") + "/") for r in tex_read_roots())


def classify(log: str) -> tuple[CompileReason, str]:
    """Reason and first error line (with its ``l.NN`` context) from a TeX log."""
    lines = log.splitlines()
    first = next((k for k, ln in enumerate(lines) if ln.startswith("!")), None)
    err = ""
    if first is not None:
        ctx = [lines[first]]
        for ln in lines[first + 1 : first + 8]:
            if ln.startswith("l."):
                ctx.append(ln.strip())
                break
        err = " | ".join(ctx)
    forbidden = [ln for ln in lines if re.search(r"Not (reading from|writing to) ", ln)
                 and "/dev/null" not in ln]
    if forbidden:
        return CompileReason.FORBIDDEN_IO, forbidden[0].strip()
    sandboxed = _SANDBOX_LINE.search(log)
    if sandboxed:
        return CompileReason.FORBIDDEN_IO, sandboxed.group(0).strip()
    denied = _DENIED.search(log)
    if denied:
        return CompileReason.FORBIDDEN_IO, denied.group(0).strip()
    lua = _LUA_ERROR.search(log)
    if lua and (not err or "Fatal error occurred" in err):
        err = lua.group(0).strip()
    if "I can't write on file" in log:
        return CompileReason.FORBIDDEN_IO, err
    if _FILE_ERROR.search(err):
        outside = [p for p in _PATH_IN_ERROR.findall(" " + err) if _outside(p)]
        if outside:
            return CompileReason.FORBIDDEN_IO, f"{err} (outside the job directory)"
    m = _MISSING.search(log)
    if m:
        name = m.group(1)
        if name.endswith(".sty"):
            return CompileReason.MISSING_PACKAGE, err
        if name.endswith(".cls"):
            return CompileReason.MISSING_CLASS, err
        return CompileReason.MISSING_FILE, err
    if "TeX capacity exceeded" in log:
        return CompileReason.TEX_CAPACITY, err
    if "Undefined control sequence" in err:
        return CompileReason.UNDEFINED_CONTROL_SEQUENCE, err
    if re.search(r"! Package (tikz|pgf|pgfkeys|pgfplots|tikz-cd|forest|circuitikz) Error", log):
        return CompileReason.TIKZ_ERROR, err
    if "! LaTeX Error" in log:
        return CompileReason.LATEX_ERROR, err
    return CompileReason.TEX_ERROR, err or (lines[-1] if lines else "")


Attempt = tuple[Standalone, str]
"""One step of a ladder: a document and the engine to compile it with."""


class TexCompiler:
    """Compiles standalone TikZ documents; one instance per worker process."""

    def __init__(self, engine: str = "pdflatex", timeout_s: float = 30.0,
                 memory_mb: int = 2048, max_output_mb: int = 64, use_format: bool = True,
                 batch: bool = True, cache_dir: str | Path | None = None):
        self.engine = Engine(engine)  # the default, for documents given without one
        self.timeout_s = timeout_s
        self.memory_mb = memory_mb
        self.max_output_mb = max_output_mb
        self.use_format = use_format
        self.batch = batch
        # absolute: TeX runs in a temp dir, where a relative TEXFORMATS would find nothing
        self.cache_dir = Path(cache_dir).resolve() if cache_dir else None
        self.root = self.cache_dir or Path(tempfile.gettempdir()) / "diagramforge-tex"
        # compiles are pure functions of (engine, TeX Live, document): the shared content
        # cache keyed by their hash (``None`` directory: no caching)
        self._cache = ContentCache(self.cache_dir / "content" if self.cache_dir else None,
                                   "tex")
        self.version = tex_version(self.engine)
        self._formats: dict[tuple[str, ...], Path | None] = {}
        self._lua: LuaSetup | None = None

    # -- per-engine setup -----------------------------------------------------------------
    def format_dir(self, head: tuple[str, ...] = (r"\usepackage{tikz}",)) -> Path | None:
        """Build (once per head and TeX Live version, under a lock) a precompiled format
        (pdfLaTeX only: the engine nearly every picture uses)."""
        if not self.use_format:
            return None
        if head in self._formats:
            return self._formats[head]
        source = format_source(head)
        key = hashlib.sha256((source + tex_version("pdflatex")).encode()).hexdigest()[:16]
        fdir = self.root / "formats" / key
        fmt = fdir / "dfpre.fmt"
        fdir.mkdir(parents=True, exist_ok=True)
        with FileLock(str(fdir / ".lock")):
            if not fmt.exists():
                with tempfile.TemporaryDirectory() as tmp:
                    (Path(tmp) / "dfpre.tex").write_text(
                        source + "\n\\begin{document}\n\\end{document}\n")
                    res = run_sandboxed(
                        ["pdflatex", "-ini", "-interaction=nonstopmode", "-jobname=dfpre",
                         "&pdflatex", "mylatexformat.ltx", "dfpre.tex"],
                        Path(tmp), tex_env(job=Path(tmp)), timeout_s=120, memory_mb=self.memory_mb,
                        fsize_mb=256, access=file_access(Path(tmp)))
                    built = Path(tmp) / "dfpre.fmt"
                    if res.returncode != 0 or not built.exists():
                        self._formats[head] = None
                        return None
                    atomic.copy_file(built, fmt)
        self._formats[head] = fdir
        return fdir

    def lua(self) -> LuaSetup:
        """LuaLaTeX's sandbox script and warm font caches (built on first use)."""
        if self._lua is None:
            # per machine, not per cache: its font caches describe this machine's fonts
            lua = LuaSetup(Path(tempfile.gettempdir()) / "diagramforge-tex" / "lua")
            lua.prepare(self.memory_mb)
            self._lua = lua
        return self._lua

    # -- cache --------------------------------------------------------------------------
    @property
    def limits(self) -> list[float]:
        """The limits a compile ran under: CPU seconds per page, memory, output size."""
        return [float(self.timeout_s), float(self.memory_mb), float(self.max_output_mb)]

    def _reusable(self, meta: dict) -> bool:
        """Whether a cached result is what a run under this compiler's limits would give.

        A result is a function of the document, the engine, TeX Live *and the limits it ran
        under*, which are not in the key: raising a timeout must not recompile every picture
        that compiled.  So a success is reused under limits at least as large (it would
        succeed again), a failure only under the very same limits — a timeout at 8 CPU-s
        says nothing of 10, and its ledger text names its budget, so reusing it under another
        would write a detail a cold run never writes (``data/`` depending on the cache's
        history).  Entries from before limits were recorded are misses."""
        cached = meta.get("limits")
        if not isinstance(cached, list) or len(cached) != 3:
            return False
        now = self.limits
        if meta["ok"]:
            return all(c <= n for c, n in zip(cached, now, strict=True))
        return cached == now

    def cache_key(self, doc: Standalone, engine: str | None = None) -> str:
        engine = Engine(engine or self.engine)
        h = hashlib.sha256()
        for part in (CACHE_VERSION, engine, tex_version(engine), doc.code,
                     assets_digest(doc) if doc.assets else ""):
            h.update(part.encode())
            h.update(b"\0")
        return h.hexdigest()

    @in_phase(CACHE)
    def cache_get(self, doc: Standalone, engine: str | None = None) -> CompileResult | None:
        hit = self._cache.get(self.cache_key(doc, engine))
        if hit is None:
            return None
        meta, pdf = hit
        if meta["ok"] and pdf is None or not self._reusable(meta):
            return None
        return CompileResult(ok=meta["ok"], pdf=pdf, reason=meta.get("reason"),
                             error=meta.get("error"), seconds=meta.get("seconds", 0.0),
                             cached=True, mode=meta.get("mode", ""),
                             engine=meta.get("engine", engine or self.engine))

    @in_phase(CACHE)
    def cache_put(self, doc: Standalone, res: CompileResult, engine: str | None = None
                  ) -> None:
        meta = {k: v for k, v in asdict(res).items() if k not in ("pdf", "cached")}
        meta["limits"] = self.limits
        self._cache.put(self.cache_key(doc, engine), (meta, res.pdf if res.ok else None))

    # -- compile ------------------------------------------------------------------------
    @in_phase(COMPILE)
    def _run(self, docs: list[Standalone], use_format: bool, timeout_s: float,
             engine: Engine) -> tuple[CompileResult, list[bytes]]:
        """One run of ``engine`` over ``docs`` (one page each), with a format when possible.

        ``timeout_s`` is each page's deadline: a batch of *n* pages runs until one page
        (or the preamble) takes longer than that, or the whole run longer than *n* + 1
        times that — so a batch of sixteen copies of one heavy picture is not stopped for
        its size, and a page that never ends costs one page's deadline, not the batch's
        (issue 42: a batch once had 4 × ``timeout_s`` whatever its size).

        On failure, ``CompileResult.page`` is the page the error struck, when the log says;
        for a run stopped on its deadline it is the page that ran out, for certain (its
        mark reached the watchdog before it ran)."""
        whole = len(docs) == 1 and docs[0].document is not None
        head, _ = split_preloadable(union_blocks(docs)) if not whole else ((), [])
        fdir = (self.format_dir(head) if use_format and engine == Engine.PDFLATEX
                and not whole else None)
        lua = self.lua() if engine == Engine.LUALATEX else None
        argv = engine_argv(engine, lua)
        extra_env: dict[str, str] = {}
        extra_read: tuple[str, ...] = ()
        if fdir is not None:
            argv.append("-fmt=dfpre")
            extra_env["TEXFORMATS"] = f"{fdir}:"
            extra_read += (str(fdir),)
        if lua is not None:
            extra_read += lua.read_roots()
        argv.append("doc.tex")
        mode = "document" if whole else "format" if fdir is not None else "plain"
        source = compose(docs, head if fdir is not None else None)
        n_pages = len(docs)

        def fail(reason: str, error: str, page: int | None = None) -> tuple[CompileResult,
                                                                              list[bytes]]:
            return CompileResult(False, reason=reason, error=error, seconds=res.seconds,
                                 mode=mode, page=page, engine=engine), []

        with tempfile.TemporaryDirectory(prefix="dftex-") as tmp:
            job = Path(tmp) / "job"
            job.mkdir()
            (job / "doc.tex").write_text(source)
            write_assets(docs, job)
            if lua is not None:
                extra_env.update(lua.env(job))
            # a batch marks each page as it starts, flushed to the terminal before the page
            # runs (texbatch.compose): each page has timeout_s of its own (the watchdog's
            # step), the preamble too, so the whole run has (pages + 1) × timeout_s; a
            # single document has timeout_s, as written or composed
            batch = n_pages > 1 and not whole
            limit = timeout_s * (n_pages + 1) if batch else timeout_s
            res = run_sandboxed(argv, job, tex_env(extra_env, job), timeout_s=limit,
                                memory_mb=self.memory_mb, fsize_mb=self.max_output_mb,
                                access=file_access(job, extra_read),
                                step=(PAGE_MARK.encode(), timeout_s) if batch else None)
            logf = job / "doc.log"
            text = (logf.read_text(errors="replace") if logf.exists() else "") + res.stdout
            count("tex_pages", n_pages)  # pages given to TeX; and those it began on:
            count("tex_pages_begun", len(pages_begun(res.stdout)) if batch else n_pages)
            if res.timed_out:
                count("tex_timeouts")
                # the page that began last is the one that ran out (none: the preamble)
                return fail(CompileReason.TIMEOUT, timeout_detail(res, limit, timeout_s),
                            failed_page(text))
            if res.killed_by == 25 or (res.returncode != 0 and self._hit_size_limit(job)):
                # SIGXFSZ: RLIMIT_FSIZE hit (by the engine, or by the driver it pipes to:
                # xdvipdfmx dies, XeTeX fails on the broken pipe)
                return fail(CompileReason.OUTPUT_TOO_LARGE,
                            f"output exceeded {self.max_output_mb} MB")
            pdf = job / "doc.pdf"
            if res.returncode != 0:
                reason, err = classify(text)
                return fail(reason, err, failed_page(text))
            refused = _SANDBOX_LINE.search(text)
            if refused:  # the Lua sandbox refused a reach outside, and the code carried on
                return fail(CompileReason.FORBIDDEN_IO, refused.group(0).strip(),
                            failed_page(text[:refused.start()]))
            if not pdf.exists() or pdf.stat().st_size == 0:
                return fail(CompileReason.EMPTY_OUTPUT, "no PDF written")
            data = pdf.read_bytes()
        pages = split_pages(data)
        if len(pages) != n_pages:
            return fail(CompileReason.EMPTY_OUTPUT,
                        f"expected {n_pages} page(s), got {len(pages)}")
        return CompileResult(True, pdf=data, seconds=res.seconds, mode=mode,
                             engine=engine), pages

    def _hit_size_limit(self, job: Path) -> bool:
        limit = self.max_output_mb * 1024 * 1024
        return any(p.is_file() and p.stat().st_size >= limit - 65536 for p in job.rglob("*"))

    def compile_one(self, doc: Standalone, engine: str | None = None) -> CompileResult:
        engine = Engine(engine or self.engine)
        cached = self.cache_get(doc, engine)
        if cached:
            return cached
        res, pages = self._run([doc], self.use_format, self.timeout_s, engine)
        if not res.ok and res.mode == "format" and res.reason != CompileReason.TIMEOUT:
            # a document that fights its preloaded packages gets one plain run
            plain, pages = self._run([doc], False, self.timeout_s, engine)
            if plain.ok or plain.reason != res.reason:
                res = plain
        if res.ok:
            res.pdf = pages[0]
        res.mode = f"{res.mode}/single"
        self.cache_put(doc, res, engine)
        return res

    def compile_many(self, docs: list[Standalone], batch_size: int = 16,
                     engines: list[str] | None = None) -> list[CompileResult]:
        """Compile many documents, from one paper or from many sources (``engines``: one
        per document; default: the compiler's engine).

        Cache hits first; then documents that can share a run (same engine and
        :func:`batch_key`) go in batches of ``batch_size``, one page each.  When a batch
        fails, the page the log blames (or the page that ran past its own ``timeout_s``:
        each page of a batch has that to itself) is compiled alone, for its own verdict,
        and the rest of the batch runs again, the pages typeset before the failure last
        (so a good page is typeset at most twice, however many bad pages share its batch);
        when no page began (the shared preamble ran out of time) each page runs alone; when
        the log blames no page, the batch is halved.  So one bad figure costs one extra
        run, not a run per neighbour, and a document is only ever rejected for the error of
        its own single run: never for a neighbour's.
        """
        engs = [Engine(e) for e in engines] if engines else [self.engine] * len(docs)
        results: list[CompileResult | None] = [self.cache_get(d, e)
                                               for d, e in zip(docs, engs, strict=True)]
        todo = [k for k, r in enumerate(results) if r is None]
        if self.batch and len(todo) > 1:
            groups: dict[tuple[str, ...], list[int]] = {}
            for k in todo:
                groups.setdefault((engs[k], *batch_key(docs[k])), []).append(k)
            todo = []
            for members in groups.values():
                for i in range(0, len(members), batch_size):
                    todo += self._batch(docs, members[i:i + batch_size], results,
                                        engs[members[0]])
        for k in todo:
            results[k] = self.compile_one(docs[k], engs[k])
        return [r for r in results if r is not None]

    def compile_ladders(self, ladders: list[list[Attempt | Standalone]], batch_size: int = 16
                        ) -> list[tuple[CompileResult, int]]:
        """Compile each item's first attempt; those that fail try their next one, step by
        step, each step batched across items (and engines).  Returns, per item, the result
        of the attempt that compiled and its index, or the first attempt's failure and 0
        (its error is the one that describes the picture as extracted).

        After a failure no rung can mend (:data:`HARD_FAILURES`: a timeout, a disk bomb,
        a forbidden file), an item skips to the next whole document of the same engine (the
        source document as written: the yield guarantee) and tries no other engine.
        A bare document in a ladder is an attempt with the compiler's engine.
        """
        ladders = [[a if isinstance(a, tuple) else (a, self.engine) for a in lad]
                   for lad in ladders]
        first = self.compile_many([lad[0][0] for lad in ladders], batch_size,
                                  [lad[0][1] for lad in ladders])
        out = [(r, 0) for r in first]
        nxt = [self._next(lad, 0, r) for lad, r in zip(ladders, first, strict=True)]
        while True:
            climb = [k for k, (res, _) in enumerate(out) if not res.ok and nxt[k] is not None]
            if not climb:
                return out
            steps = {k: nxt[k] for k in climb}
            again = self.compile_many([ladders[k][steps[k]][0] for k in climb], batch_size,
                                      [ladders[k][steps[k]][1] for k in climb])
            for k, res in zip(climb, again, strict=True):
                if res.ok:
                    out[k] = (res, steps[k])
                nxt[k] = self._next(ladders[k], steps[k], res)

    @staticmethod
    def _next(ladder: list[Attempt], k: int, res: CompileResult) -> int | None:
        if res.ok:
            return None
        if res.reason not in HARD_FAILURES:
            return k + 1 if k + 1 < len(ladder) else None
        engine = ladder[k][1]
        return next((j for j in range(k + 1, len(ladder))
                     if ladder[j][1] == engine and ladder[j][0].document is not None), None)

    def _batch(self, docs: list[Standalone], idx: list[int],
               results: list[CompileResult | None], engine: Engine) -> list[int]:
        """Compile ``docs[idx]`` together; return the indices left for single runs."""
        if len(idx) < 2:
            return idx
        group = [docs[k] for k in idx]
        res, pages = self._run(group, self.use_format, self.timeout_s, engine)
        if res.ok:
            share = res.seconds / len(group)
            for k, page in zip(idx, pages, strict=True):
                one = CompileResult(True, pdf=page, seconds=share, mode=f"{res.mode}/batch",
                                    engine=engine)
                self.cache_put(docs[k], one, engine)
                results[k] = one
            return []
        count("tex_batch_failures")
        p = res.page
        if p is None and res.reason == CompileReason.TIMEOUT:
            # no page began: the preamble the pages share ran out of time; each page runs
            # alone once, as unbatched (halving would run that preamble at every level)
            return list(idx)
        if p is not None and 0 <= p < len(idx):
            # p is the page that failed or ran out of its budget (its mark is flushed
            # before it runs); it runs alone for its verdict. The pages before p were
            # typeset: they go last in the one rerun, so that another bad page among the
            # rest stops the rerun before they are typeset again (a batch of copies of one
            # broken picture typeset its good pages once per copy)
            return [idx[p], *self._batch(docs, idx[p + 1:] + idx[:p], results, engine)]
        half = len(idx) // 2
        return (self._batch(docs, idx[:half], results, engine)
                + self._batch(docs, idx[half:], results, engine))


def split_pages(pdf: bytes) -> list[bytes]:
    """One single-page PDF per page of ``pdf``."""
    src = pymupdf.open("pdf", pdf)
    if src.page_count == 1:
        return [pdf]
    out = []
    for i in range(src.page_count):
        one = pymupdf.open()
        one.insert_pdf(src, from_page=i, to_page=i)
        out.append(one.tobytes(garbage=3, deflate=True))
    return out


@functools.cache
def package_available(name: str) -> bool:
    """Whether TeX Live here has ``name.sty`` (or ``name`` itself when it has an extension,
    such as a babel language's ``ngerman.ldf``; kpsewhich, cached per process)."""
    try:
        out = subprocess.run(["kpsewhich", name if "." in name else f"{name}.sty"],
                             capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return True  # cannot tell: keep the package and let the compile decide
    return bool(out.stdout.strip())


def compile_tikz(code: str, timeout_s: float = 60.0) -> bytes | None:
    """Compile a TikZ document (or a bare picture) with the toolkit's sandboxed compiler;
    the document's own preamble is kept (its packages, libraries, styles and macros).
    ``diagramforge score --compile-tikz`` and the graph benchmarks use it to give
    :func:`~diagramforge.formats.tikz.graph.tikz_graph` the page it cross-checks the source with."""
    code = latex.strip_line_comments(code)
    if "\\begin{document}" in code:
        # its preamble's constructs, each whole (as one block, a preamble that opens with a
        # \newcommand went into the page and its \usepackage failed there)
        doc = Standalone.from_document(code)
        blocks, body = doc.blocks, doc.body
    else:
        blocks, body = [r"\usetikzlibrary{arrows,arrows.meta,positioning,shapes,calc,fit,"
                        r"backgrounds}"], code
    if not re.search(r"\\usepackage\s*(\[[^\]]*\])?\s*\{[^}]*(tikz|pgfplots|circuitikz)",
                     "\n".join(blocks)):
        blocks.insert(0, r"\usepackage{tikz}")
    tex = TexCompiler(timeout_s=timeout_s, use_format=False, batch=False)
    res = tex.compile_one(Standalone(blocks=blocks, body=body))
    if not res.ok and "\\documentclass" in code:  # the yield guarantee: as it is written
        res = tex.compile_one(Standalone([], "", document=code))
    return res.pdf if res.ok else None
