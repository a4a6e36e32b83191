"""Compile TikZ standalone documents with pdflatex: sandboxed, batched, precompiled, cached.

Speed comes from three things (each measured in ``benchmarks/tikz_compile.py``):
a precompiled format of the shared preamble (``mylatexformat``; a document's own extra
preamble goes after ``\\endofdump``), batching every figure of one paper into one run with
one page per figure (split afterwards; any error falls back to single runs so one bad
figure cannot sink its neighbours), and a cache keyed by document hash + TeX Live version.
Safety: ``-no-shell-escape``, ``openin_any=p``/``openout_any=p``, a fresh temp dir per job,
rlimits and a process-group kill (see :mod:`diagramforge.sandbox`).
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import subprocess
import tempfile
from dataclasses import asdict, dataclass
from enum import StrEnum
from pathlib import Path

import pymupdf
from filelock import FileLock

from diagramforge import atomic
from diagramforge.cache import ContentCache
from diagramforge.formats.tikz import Standalone
from diagramforge.sandbox import run_sandboxed

CACHE_VERSION = "2"
RANDOM_SEED = 20240101
CLASS_LINE = r"\documentclass[multi=dfpage,border=2pt]{standalone}"
PAGE_ENV = "\n".join([r"\newenvironment{dfpage}{}{}", r"\standaloneenv{dfpage}"])
# Packages safe to preload into a shared format when a document loads them first, without
# options: loading them is all they do to a picture, and they are the slow part of a run.
PRELOADABLE = frozenset({
    "tikz", "pgf", "pgfplots", "amsmath", "amssymb", "amsfonts", "amsthm", "mathtools", "bm",
    "xcolor", "graphicx", "tikz-cd", "circuitikz", "forest", "array", "calc",
})
_PLAIN_PKG = re.compile(r"\\usepackage(?:\[[^\]]*\])?\{([^}]*)\}")
_PASS_OPTIONS = re.compile(r"\\PassOptionsToPackage\{[^{}]*\}\{[^{}]*\}")


def split_preloadable(blocks: list[str]) -> tuple[tuple[str, ...], list[str]]:
    """The leading run of preloadable ``\\usepackage`` blocks (and the options passed to
    them), and the rest.

    Only a *prefix* goes into the format, so the document's load order is kept exactly; a
    format is keyed by its exact blocks, options included.
    """
    k = 0
    for b in blocks:
        if _PASS_OPTIONS.fullmatch(b.strip()):
            k += 1
            continue
        m = _PLAIN_PKG.fullmatch(b.strip())
        if not m or not all(p.strip() in PRELOADABLE for p in m.group(1).split(",")):
            break
        k += 1
    return tuple(blocks[:k]), list(blocks[k:])


def format_source(head: tuple[str, ...]) -> str:
    """The preamble a format is dumped from (also the skipped prefix of each document)."""
    return "\n".join([CLASS_LINE, *head, PAGE_ENV])


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


@dataclass
class CompileResult:
    ok: bool
    pdf: bytes | None = None
    reason: str | None = None
    error: str | None = None
    seconds: float = 0.0
    cached: bool = False
    mode: str = ""  # format | plain, single | batch
    page: int | None = None  # in a batch, the page that failed


@functools.cache
def tex_version(engine: str = "pdflatex") -> str:
    """First line of ``engine --version``: part of every cache key."""
    try:
        out = subprocess.run([engine, "--version"], capture_output=True, text=True, timeout=30)
        return out.stdout.splitlines()[0].strip()
    except (OSError, subprocess.SubprocessError, IndexError):
        return "unknown"


def tex_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """Environment for every TeX run: paranoid file access, no shell escape."""
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "HOME")}
    env.update({"openin_any": "p", "openout_any": "p", "shell_escape": "f",
                "SOURCE_DATE_EPOCH": "0", "FORCE_SOURCE_DATE": "1"})
    env.update(extra or {})
    return env


_MISSING = re.compile(r"File `([^']+)' not found")


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
    if "I can't write on file" in log:
        return CompileReason.FORBIDDEN_IO, err
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


# Blocks that must stay in the preamble of a batch (packages; what only the preamble
# allows; what changes the document's defaults), as opposed to a page's own definitions,
# which go inside its page, a group, so that they cannot leak into the next page.
_GLOBAL = re.compile(
    r"^\\(?:usepackage|RequirePackage|PassOptionsToPackage|usetikzlibrary|usepgflibrary|"
    r"usepgfplotslibrary|DeclareMathOperator|DeclareUnicodeCharacter|DeclareFontFamily|"
    r"DeclareFontShape|DeclareSymbolFont|DeclareMathSymbol|DeclareMathAlphabet|"
    r"SetSymbolFont|AtBeginDocument|AtEndDocument|begin\s*\{filecontents)"
    r"|\\(?:familydefault|rmdefault|sfdefault|ttdefault|encodingdefault|seriesdefault|"
    r"shapedefault|normalsize|pgfplotsset\s*\{\s*compat)(?![A-Za-z@])")
_LIBRARY = re.compile(r"^\\use(?:tikz|pgf|pgfplots)library")


def is_global(block: str) -> bool:
    """Whether a preamble block must stay in the preamble when pages share a run."""
    return bool(_GLOBAL.search(block.strip()))


def batch_key(doc: Standalone) -> tuple[str, ...]:
    """Documents with the same key can share one run (one page each).

    The key is every global block but the TikZ libraries, in order: pages of one run share
    packages and document defaults exactly; libraries are unioned (loading one more
    library does not change a picture), and each page's own definitions stay in its page.
    """
    key = tuple(b for b in doc.blocks if is_global(b) and not _LIBRARY.match(b.strip()))
    # pages share a directory: pictures with files of their own run only with pictures
    # that have the very same files
    return key + (f"% assets {assets_digest(doc)}",) if doc.assets else key


def assets_digest(doc: Standalone) -> str:
    h = hashlib.sha256()
    for name in sorted(doc.assets):
        h.update(name.encode() + b"\0" + hashlib.sha256(doc.assets[name]).digest())
    return h.hexdigest()


def write_assets(docs: list[Standalone], job: Path) -> None:
    """The pictures' binary files, under the names their code uses (names were checked to
    stay inside the job directory at extraction; checked again here)."""
    for d in docs:
        for name, data in d.assets.items():
            target = (job / name).resolve()
            if not target.is_relative_to(job.resolve()):
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)


def union_blocks(docs: list[Standalone]) -> list[str]:
    """The global preamble blocks of several documents, each once, in first-seen order."""
    blocks: list[str] = []
    for d in docs:
        for b in d.blocks:
            if is_global(b) and b not in blocks:
                blocks.append(b)
    return blocks


PAGE_MARK = "dfpage-start "


def compose(docs: list[Standalone], head: tuple[str, ...] | None) -> str:
    """One compile document with one page per figure.

    The preamble holds the global blocks (see :func:`is_global`); each page holds its own
    definitions and then its picture, inside ``dfpage`` (a group), announced in the log so
    a failure can be traced to its page.  With ``head`` (the blocks preloaded in a format)
    the preamble up to ``\\endofdump`` is the format's source, skipped at load.
    """
    blocks = union_blocks(docs)
    # every page starts from the same random state, so a figure using rnd draws the same
    # alone, in a batch, or from the cache
    pages = "\n".join(
        f"\\typeout{{{PAGE_MARK}{k}}}\\begin{{dfpage}}\\pgfmathsetseed{{{RANDOM_SEED}}}\n"
        + "".join(b + "\n" for b in d.blocks if not is_global(b))
        + f"{d.body}\n\\end{{dfpage}}" for k, d in enumerate(docs))
    if head is not None:
        rest = blocks[len(head):]
        pre = format_source(head) + "\n\\endofdump\n" + "\n".join(rest)
    else:
        pre = "\n".join([CLASS_LINE, *blocks, PAGE_ENV])
    return f"{pre}\n\\begin{{document}}\n{pages}\n\\end{{document}}\n"


def failed_page(log: str) -> int | None:
    """The page being typeset when the first error struck (from the page marks)."""
    first = log.find("\n!")
    text = log[:first] if first >= 0 else log
    marks = re.findall(re.escape(PAGE_MARK) + r"(\d+)", text)
    return int(marks[-1]) if marks else None


class TexCompiler:
    """Compiles standalone TikZ documents; one instance per worker process."""

    def __init__(self, engine: str = "pdflatex", timeout_s: float = 30.0,
                 memory_mb: int = 2048, max_output_mb: int = 64, use_format: bool = True,
                 batch: bool = True, cache_dir: str | Path | None = None):
        self.engine = engine
        self.timeout_s = timeout_s
        self.memory_mb = memory_mb
        self.max_output_mb = max_output_mb
        self.use_format = use_format and engine == "pdflatex"
        self.batch = batch
        # absolute: TeX runs in a temp dir, where a relative TEXFORMATS would find nothing
        self.cache_dir = Path(cache_dir).resolve() if cache_dir else None
        # compiles are pure functions of (engine, TeX Live, document): the shared content
        # cache keyed by their hash (``None`` directory: no caching)
        self._cache = ContentCache(self.cache_dir / "content" if self.cache_dir else None,
                                   "tex")
        self.version = tex_version(engine)
        self._formats: dict[tuple[str, ...], Path | None] = {}

    # -- format -------------------------------------------------------------------------
    def format_dir(self, head: tuple[str, ...] = (r"\usepackage{tikz}",)) -> Path | None:
        """Build (once per head and TeX Live version, under a lock) a precompiled format."""
        if not self.use_format:
            return None
        if head in self._formats:
            return self._formats[head]
        source = format_source(head)
        key = hashlib.sha256((source + self.version).encode()).hexdigest()[:16]
        root = (self.cache_dir or Path(tempfile.gettempdir()) / "diagramforge-tex") / "formats"
        fdir = root / key
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
                        Path(tmp), tex_env(), timeout_s=120, memory_mb=self.memory_mb,
                        fsize_mb=256)
                    built = Path(tmp) / "dfpre.fmt"
                    if res.returncode != 0 or not built.exists():
                        self._formats[head] = None
                        return None
                    atomic.copy_file(built, fmt)
        self._formats[head] = fdir
        return fdir

    # -- cache --------------------------------------------------------------------------
    def cache_key(self, doc: Standalone) -> str:
        h = hashlib.sha256()
        for part in (CACHE_VERSION, self.engine, self.version, doc.code,
                     assets_digest(doc) if doc.assets else ""):
            h.update(part.encode())
            h.update(b"\0")
        return h.hexdigest()

    def cache_get(self, doc: Standalone) -> CompileResult | None:
        hit = self._cache.get(self.cache_key(doc))
        if hit is None:
            return None
        meta, pdf = hit
        if meta["ok"] and pdf is None:
            return None
        return CompileResult(ok=meta["ok"], pdf=pdf, reason=meta.get("reason"),
                             error=meta.get("error"), seconds=meta.get("seconds", 0.0),
                             cached=True, mode=meta.get("mode", ""))

    def cache_put(self, doc: Standalone, res: CompileResult) -> None:
        meta = {k: v for k, v in asdict(res).items() if k not in ("pdf", "cached")}
        self._cache.put(self.cache_key(doc), (meta, res.pdf if res.ok else None))

    # -- compile ------------------------------------------------------------------------
    def _run(self, docs: list[Standalone], use_format: bool, timeout_s: float
             ) -> tuple[CompileResult, list[bytes]]:
        """One pdflatex run over ``docs`` (one page each), with a format when possible.

        On failure, ``CompileResult.page`` is the page the error struck, when the log says.
        """
        head, _ = split_preloadable(union_blocks(docs))
        fdir = self.format_dir(head) if use_format else None
        argv = [self.engine, "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape"]
        extra_env = {}
        if fdir is not None:
            argv.append("-fmt=dfpre")
            extra_env["TEXFORMATS"] = f"{fdir}:"
        if self.engine == "lualatex":
            argv.append("--safer")
        argv.append("doc.tex")
        mode = "format" if fdir is not None else "plain"
        source = compose(docs, head if fdir is not None else None)
        n_pages = len(docs)
        with tempfile.TemporaryDirectory(prefix="dftex-") as tmp:
            job = Path(tmp) / "job"
            job.mkdir()
            (job / "doc.tex").write_text(source)
            write_assets(docs, job)
            res = run_sandboxed(argv, job, tex_env(extra_env), timeout_s=timeout_s,
                                memory_mb=self.memory_mb, fsize_mb=self.max_output_mb)
            logf = job / "doc.log"
            log = (logf.read_text(errors="replace") if logf.exists() else "") + res.stdout
            if res.timed_out:
                return CompileResult(False, reason=CompileReason.TIMEOUT,
                                     error=f"killed after {timeout_s:g}s", seconds=res.seconds,
                                     mode=mode, page=failed_page(log)), []
            if res.killed_by == 25:  # SIGXFSZ: RLIMIT_FSIZE hit
                return CompileResult(False, reason=CompileReason.OUTPUT_TOO_LARGE,
                                     error=f"output exceeded {self.max_output_mb} MB",
                                     seconds=res.seconds, mode=mode), []
            pdf = job / "doc.pdf"
            if res.returncode != 0:
                reason, err = classify(log)
                return CompileResult(False, reason=reason, error=err, seconds=res.seconds,
                                     mode=mode, page=failed_page(log)), []
            if not pdf.exists() or pdf.stat().st_size == 0:
                return CompileResult(False, reason=CompileReason.EMPTY_OUTPUT,
                                     error="no PDF written", seconds=res.seconds, mode=mode), []
            data = pdf.read_bytes()
        pages = split_pages(data)
        if len(pages) != n_pages:
            return CompileResult(False, reason=CompileReason.EMPTY_OUTPUT,
                                 error=f"expected {n_pages} page(s), got {len(pages)}",
                                 seconds=res.seconds, mode=mode), []
        return CompileResult(True, pdf=data, seconds=res.seconds, mode=mode), pages

    def compile_one(self, doc: Standalone) -> CompileResult:
        cached = self.cache_get(doc)
        if cached:
            return cached
        res, pages = self._run([doc], self.use_format, self.timeout_s)
        if not res.ok and res.mode == "format" and res.reason != CompileReason.TIMEOUT:
            # a document that fights its preloaded packages gets one plain run
            plain, pages = self._run([doc], False, self.timeout_s)
            if plain.ok or plain.reason != res.reason:
                res = plain
        if res.ok:
            res.pdf = pages[0]
        res.mode = f"{res.mode}/single"
        self.cache_put(doc, res)
        return res

    def compile_many(self, docs: list[Standalone], batch_size: int = 16
                     ) -> list[CompileResult]:
        """Compile many documents, from one paper or from many sources.

        Cache hits first; then documents that can share a run (same :func:`batch_key`) go
        in batches of ``batch_size``, one page each.  When a batch fails, the page the log
        blames is compiled alone (for its own error) and the rest of the batch runs again;
        when the log blames no page, the batch is halved.  So one bad figure costs one extra
        run, not a run per neighbour.
        """
        results: list[CompileResult | None] = [self.cache_get(d) for d in docs]
        todo = [k for k, r in enumerate(results) if r is None]
        if self.batch and len(todo) > 1:
            groups: dict[tuple[str, ...], list[int]] = {}
            for k in todo:
                groups.setdefault(batch_key(docs[k]), []).append(k)
            todo = []
            for members in groups.values():
                for i in range(0, len(members), batch_size):
                    todo += self._batch(docs, members[i:i + batch_size], results)
        for k in todo:
            results[k] = self.compile_one(docs[k])
        return [r for r in results if r is not None]

    def compile_ladders(self, ladders: list[list[Standalone]], batch_size: int = 16
                        ) -> list[tuple[CompileResult, int]]:
        """Compile each item's first document; those that fail try their next one, rung by
        rung, each rung batched across items.  Returns, per item, the result of the
        document that compiled and its index, or the first document's failure and 0 (its
        error is the one that describes the picture as extracted)."""
        out = [(r, 0) for r in self.compile_many([lad[0] for lad in ladders], batch_size)]
        level = 1
        while True:
            climb = [k for k, (res, _) in enumerate(out)
                     if not res.ok and len(ladders[k]) > level]
            if not climb:
                return out
            again = self.compile_many([ladders[k][level] for k in climb], batch_size)
            for k, res in zip(climb, again, strict=True):
                if res.ok:
                    out[k] = (res, level)
            level += 1

    def _batch(self, docs: list[Standalone], idx: list[int],
               results: list[CompileResult | None]) -> list[int]:
        """Compile ``docs[idx]`` together; return the indices left for single runs."""
        if len(idx) < 2:
            return idx
        group = [docs[k] for k in idx]
        res, pages = self._run(group, self.use_format, self.timeout_s * min(len(group), 4))
        if res.ok:
            share = res.seconds / len(group)
            for k, page in zip(idx, pages, strict=True):
                one = CompileResult(True, pdf=page, seconds=share, mode=f"{res.mode}/batch")
                self.cache_put(docs[k], one)
                results[k] = one
            return []
        p = res.page
        if p is not None and 0 <= p < len(idx):
            if res.reason == CompileReason.TIMEOUT:
                # a killed run's log may lag behind: pages before p finished, the culprit is
                # p or a later page
                return (self._batch(docs, idx[:p], results) + [idx[p]]
                        + self._batch(docs, idx[p + 1:], results))
            bad = idx[p]
            return [bad, *self._batch(docs, [k for k in idx if k != bad], results)]
        half = len(idx) // 2
        return self._batch(docs, idx[:half], results) + self._batch(docs, idx[half:], results)


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
