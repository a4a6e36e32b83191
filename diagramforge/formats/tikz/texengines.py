"""The TeX engines papers use — pdfLaTeX, LuaLaTeX, XeLaTeX — and how each runs sandboxed.

Which engine a document needs is read from its preamble, the way an author's editor or
build script knows it: a ``% !TEX program = xelatex`` line, packages that exist only for
one engine (the tree TeX Live installs them in: ``tex/lualatex``, ``tex/xelatex``), packages
that need a Unicode engine (``fontspec``, ``unicode-math``…), engine primitives. A document
with no such sign is tried in DaTikZ's order: pdfLaTeX, then LuaLaTeX, then XeLaTeX.

Every engine runs with ``-no-shell-escape`` and ``openin_any=p``/``openout_any=p``, and —
where the kernel has Landlock — may read only TeX Live's trees, the system's fonts and its
job directory, and write only the latter (:mod:`diagramforge.sandbox.landlock`). LuaLaTeX needs
more: Lua's ``io``, ``os`` and ``lfs`` ignore ``openin_any``, and ``--safer`` cannot be used
because luaotfload refuses to run under it (every LuaLaTeX document loads luaotfload, so
``--safer`` fails them all). Instead a Lua initialisation script (``--lua``), run before the
format and any document code, gives Lua the same rules — reads inside the allowed trees,
writes inside the job directory, no program execution, no native libraries, no bytecode
from the job directory, no debug access to the originals it wraps — and ``--nosocket``
takes the network away.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from enum import StrEnum
from pathlib import Path

from filelock import FileLock

from diagramforge.sandbox.landlock import FileAccess, abi_version
from diagramforge.sandbox.process import run_sandboxed
from diagramforge.store import atomic


class Engine(StrEnum):
    PDFLATEX = "pdflatex"
    LUALATEX = "lualatex"
    XELATEX = "xelatex"


DEFAULT_ORDER = (Engine.PDFLATEX, Engine.LUALATEX, Engine.XELATEX)

# Packages that need a Unicode engine although TeX Live files them under tex/latex.
UNICODE_PACKAGES = frozenset({
    "fontspec", "unicode-math", "polyglossia", "realscripts", "fontsetup", "mathspec",
    "xltxtra", "xunicode", "luaotfload", "luatexbase", "luacode", "libertinus-otf",
    "newcomputermodern", "fontawesome5-otf", "emoji", "ctex",
})
FONT_COMMANDS = re.compile(r"\\(?:setmainfont|setsansfont|setmonofont|setmathfont|"
                           r"newfontfamily|newfontface|defaultfontfeatures|setmainlanguage|"
                           r"setotherlanguage)(?![A-Za-z@])")
_LUA_SIGNS = re.compile(r"\\(?:directlua|luaexec|luadirect|luafunction|begin\s*\{luacode\*?\})"
                        r"|\\ifluatex\b")
_XE_SIGNS = re.compile(r"\\XeTeX[A-Za-z]+")
_MAGIC = re.compile(r"^\s*%\s*!\s*TE?X\s+(?:TS-)?program\s*=\s*(\w+)", re.I | re.M)
_PACKAGES = re.compile(r"\\(?:usepackage|RequirePackage)\s*(?:\[[^\]]*\])?\s*\{([^}]*)\}")
_CLASS = re.compile(r"\\documentclass\s*(?:\[[^\]]*\])?\s*\{([^}]*)\}")


@functools.cache
def package_tree(name: str) -> str:
    """``lualatex``/``luatex``, ``xelatex``/``xetex`` when TeX Live keeps ``name.sty`` (or
    ``.cls``) in a tree only that engine reads; else ``""``."""
    for ext in (".sty", ".cls"):
        try:
            out = subprocess.run(["kpsewhich", name + ext], capture_output=True, text=True,
                                 timeout=20).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""
        m = re.search(r"/tex/(lualatex|luatex|xelatex|xetex)/", out)
        if out:
            return m.group(1) if m else ""
    return ""


def choose_engines(text: str, magic: str | None = None) -> list[Engine]:
    """The engines to try for a document, most likely first.

    ``text`` is the preamble (or the whole document); ``magic`` the root file as written,
    for ``% !TEX program = …`` lines (comments are stripped from ``text``).
    """
    m = _MAGIC.search(magic or "")
    if m:
        name = m.group(1).lower().replace("pdftex", "pdflatex").replace("luatex", "lualatex")
        name = name.replace("xetex", "xelatex")
        if name in {e.value for e in Engine}:
            first = Engine(name)
            return [first, *[e for e in DEFAULT_ORDER if e != first]]
    names = {n.strip() for group in _PACKAGES.findall(text) for n in group.split(",")}
    names |= {c.strip() for c in _CLASS.findall(text)}
    trees = {package_tree(n) for n in names if n}
    if trees & {"xelatex", "xetex"} or _XE_SIGNS.search(text):
        return [Engine.XELATEX, Engine.LUALATEX]
    if trees & {"lualatex", "luatex"} or _LUA_SIGNS.search(text):
        return [Engine.LUALATEX, Engine.XELATEX]
    if names & UNICODE_PACKAGES or FONT_COMMANDS.search(text):
        return [Engine.LUALATEX, Engine.XELATEX]
    return list(DEFAULT_ORDER)


def allowed(order: list[Engine], permitted: list[str]) -> list[Engine]:
    """``order`` restricted to the engines ``permitted`` (params), never empty."""
    out = [e for e in order if e in permitted]
    return out or [Engine(permitted[0])]


# -- what a TeX run may touch -------------------------------------------------------------

_NO_JOB = Path("/nonexistent/diagramforge-tex-job")
"""Where the per-job trees would be when only the shape of the environment is wanted (the
read roots): no such directory exists, so nothing of it becomes readable."""


def job_trees(job: Path) -> dict[str, str]:
    """kpathsea's per-user trees, HOME and the temp dir, all inside the job directory.

    By default kpathsea reads and writes ``~/texmf`` and ``~/.texlive2022/texmf-{var,config}``
    and its ``mktexpk``/``mktextfm`` scripts make bitmap fonts in ``$TMPDIR/mtNNNN.tmp``
    before moving them to ``$TEXMFVAR``. A machine where an unsandboxed ``pdflatex`` once ran
    has such fonts in HOME and compiles what a new machine cannot (``mkdir: cannot create
    directory '/tmp/mt1234.tmp'``). Pointing every one of them into the job makes a compile a
    function of the document and the system's TeX Live: a font the document needs that has no
    Type 1 version is made by METAFONT inside the job, every time, the same bytes on every
    machine, and no document can plant a font another document reads.
    """
    job = Path(job).absolute()
    return {"HOME": str(job), "TMPDIR": str(job), "TEXMFHOME": str(job / "texmf-home"),
            "TEXMFVAR": str(job / "texmf-var"), "TEXMFCONFIG": str(job / "texmf-config")}


def tex_env(extra: dict[str, str] | None = None, job: Path | None = None) -> dict[str, str]:
    """Environment for every TeX run: paranoid file access, no shell escape, nothing read
    from or written to the user's HOME (:func:`job_trees`; ``job`` is the run's working
    directory, which the caller owns and removes)."""
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL")}
    env.update(job_trees(job if job is not None else _NO_JOB))
    env.update({"openin_any": "p", "openout_any": "p", "shell_escape": "f",
                "SOURCE_DATE_EPOCH": "0", "FORCE_SOURCE_DATE": "1"})
    env.update(extra or {})
    return env


_SYSTEM_READ = ("/etc/texmf", "/etc/fonts", "/usr/local/etc/fonts", "/etc/ld.so.cache",
                "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime", "/etc/papersize",
                "/etc/alternatives", "/var/cache/fontconfig", "/usr/local/share/fonts",
                "/dev/null", "/dev/zero", "/dev/urandom", "/dev/random")
_SYSTEM_EXEC = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")


def _kpse_var(name: str) -> list[str]:
    """``$name`` as a TeX run sees it (the per-user trees moved into a job, not HOME)."""
    try:
        out = subprocess.run(["kpsewhich", f"-expand-braces=${name}"], capture_output=True,
                             text=True, timeout=20, env=tex_env()).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return []
    return [p.lstrip("!") for p in re.split(r"[:;]", out) if p.strip("!")]


@functools.cache
def tex_read_roots() -> tuple[str, ...]:
    """Trees any TeX run may read: ``/usr``, TeX Live's system trees (configuration,
    distribution, local, var, caches), the system's fonts, and the few system files programs
    need to start. Nothing under HOME: a run's per-user trees are inside its job directory,
    which it may read and write anyway."""
    # /usr holds the programs, libraries, fonts and data every engine runs on: installed
    # packages, nothing private (that lives in /etc, /home, /root, /tmp, /var, /proc…)
    roots = ["/usr", *_kpse_var("TEXMF"), *_kpse_var("TEXMFCNF"), *_kpse_var("TEXMFCACHE"),
             *_kpse_var("OSFONTDIR"), "/usr/share/fonts", *_SYSTEM_READ]
    out: list[str] = []
    for r in roots:
        for p in (r, os.path.realpath(r)):
            if p and p not in out and os.path.exists(p) and not p.startswith(str(_NO_JOB)):
                out.append(p)
    return tuple(out)


def file_access(job: Path, extra_read: tuple[str, ...] = (),
                extra_write: tuple[str, ...] = ()) -> FileAccess | None:
    """The Landlock rules of one run (None where the kernel has no Landlock)."""
    if abi_version() < 1:
        return None
    return FileAccess(read=tex_read_roots() + extra_read, execute=_SYSTEM_EXEC,
                      write=(str(job), "/dev/null", *extra_write))


def sandbox_level() -> str:
    """What confines TeX here, for the environment record and the dataset card."""
    abi = abi_version()
    return f"landlock-abi{abi}+openin_any=p" if abi else "openin_any=p (no landlock)"


# -- LuaTeX's Lua ---------------------------------------------------------------------------

LUA_SANDBOX = Path(__file__).with_name("tex_sandbox.lua")
"""The Lua initialisation script (``{ROOTS}`` is replaced by the readable trees)."""


def _lua_string(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def lua_sandbox_source(roots: tuple[str, ...]) -> str:
    table = "{" + ", ".join(map(_lua_string, roots)) + "}"
    return LUA_SANDBOX.read_text().replace("{ROOTS}", table)


class LuaSetup:
    """The per-machine files a LuaLaTeX run needs: the sandbox script and luaotfload's
    caches (font names database, parsed fonts), built once by a trusted run and then only
    read by documents (a document that could write them could plant bytecode there)."""

    WARMUP = "\n".join([
        r"\documentclass{article}", r"\usepackage{fontspec}", r"\usepackage{unicode-math}",
        r"\setmainfont{DejaVu Sans}", r"\setsansfont{DejaVu Sans}",
        r"\setmonofont{DejaVu Sans Mono}", r"\newfontfamily\lm{lmroman10-regular.otf}",
        r"\begin{document}x \lm x \textbf{x} \textit{x} $x+y=\sum_i \alpha_i$ \end{document}",
        ""])

    def __init__(self, root: Path):
        self.root = root.resolve()
        self.cache = self.root / "luatex-cache"
        self.source = lua_sandbox_source(self.read_roots_lua())
        key = hashlib.sha256(self.source.encode()).hexdigest()[:12]
        self.script = self.root / f"sandbox-{key}.lua"

    def read_roots_lua(self) -> tuple[str, ...]:
        return (*tex_read_roots(), str(self.cache))

    def env(self, job: Path | None = None) -> dict[str, str]:
        """luaotfload insists on a writable cache: a run writes into its own job directory
        and reads what the warm-up cached (the first path is the writable one)."""
        if job is None:
            return {"TEXMFCACHE": str(self.cache)}
        return {"TEXMFCACHE": f"{job / 'dflua-cache'}:{self.cache}"}

    def read_roots(self) -> tuple[str, ...]:
        return (str(self.script), str(self.cache))

    def prepare(self, memory_mb: int) -> None:
        """Write the script and warm luaotfload's caches (under a lock, once)."""
        self.root.mkdir(parents=True, exist_ok=True)
        with FileLock(str(self.root / ".lock")):
            if not self.script.exists():
                atomic.write_text(self.script, self.source)
            stamp = self.cache / ".warm"
            if stamp.exists() or shutil.which("lualatex") is None:
                return
            self.cache.mkdir(parents=True, exist_ok=True)
            with tempfile.TemporaryDirectory(prefix="dflua-") as tmp:
                (Path(tmp) / "warm.tex").write_text(self.WARMUP)
                res = run_sandboxed(
                    ["lualatex", "-interaction=nonstopmode", "-no-shell-escape", "--nosocket",
                     f"--lua={self.script}", "warm.tex"], Path(tmp),
                    tex_env({**self.env(), "DIAGRAMFORGE_LUA_WRITABLE": str(self.cache)},
                            job=Path(tmp)),
                    timeout_s=600, memory_mb=memory_mb, fsize_mb=512,
                    access=file_access(Path(tmp), (str(self.script),), (str(self.cache),)))
            if res.returncode == 0:
                stamp.touch()


def engine_argv(engine: Engine, lua: LuaSetup | None) -> list[str]:
    """The command line of one run, up to the document's name."""
    argv = [str(engine), "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape"]
    if engine == Engine.LUALATEX:
        assert lua is not None
        argv += ["--nosocket", f"--lua={lua.script}"]
    return argv
