"""Generate the table of what TikZ libraries and picture packages define, from TeX Live itself.

A picture posted without its preamble names libraries and packages by their keys, shapes,
arrow tips and macros (``state`` is ``automata``'s, ``Stealth`` ``arrows.meta``'s, ``\\lstick``
quantikz's).  Which file defines which name is not written here by hand: each library
(``tikzlibrary*.code.tex``, ``pgflibrary*.code.tex``, ``pgfplotslibrary*.code.tex``) and each
package of the TikZ family (a ``.sty`` that loads TikZ, PGF or pgfplots, and the packages
those load) is loaded by LuaLaTeX, sandboxed, after TikZ, and LuaTeX lists every control
sequence defined inside a ``tikzpicture`` (``tex.hashtokens``): what is there that a run
with TikZ alone lacks is what the file brings — keys (``\\pgfk@/tikz/state/.@cmd``), shapes
(``\\pgf@sh@s@diamond``), arrow tips (``\\pgf@ar@code@Stealth``), decorations, patterns, plot
marks, pics, coordinate systems, macros, environments (and which of those open a
``tikzpicture`` themselves: ``chronology`` draws one) — and the libraries and packages it
loads (``\\tikz@library@…@loaded``, ``\\ver@….sty``).  A name several files define belongs to
the one every other loads (``\\Bmatrix`` to amsmath, not to quantikz which loads it); when
there is no such file the name is ambiguous and left out.  A few things are syntax, not
names (``($(a)!0.5!(b)$)``, ``let``, ``right=of a``): their row is the file that redefines
the macro or key TikZ itself leaves as a stub for them (:data:`SYNTAX_HOOKS`), found by the
meaning of that macro changing.

``diagramforge tikz-table`` regenerates the shipped ``tikz_libraries.json`` (a few minutes
on two cores); ``tikz_needs`` reads it.  The table records the TeX Live it was made from.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import tempfile
from collections import defaultdict
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from diagramforge.formats.tikz.needs import TABLE_PATH
from diagramforge.formats.tikz.texcompile import tex_version
from diagramforge.formats.tikz.texengines import (
    Engine,
    LuaSetup,
    engine_argv,
    file_access,
    tex_env,
)
from diagramforge.sandbox.process import run_sandboxed
from diagramforge.store import atomic

FORMAT_VERSION = 1

SYNTAX_HOOKS = {
    "calc": "tikz@parse@calculator",  # ($ (a)!0.5!(b) $): TikZ's stub says "load calc"
    "let": "tikz@let@command",  # \path let \p1 = (a) in …
    "of": "pgfk@/tikz/above/.@cmd",  # right=of a, above=1cm of b
}
"""Syntax a picture may use whose provider is the file that redefines TikZ's stub for it."""

COMPANIONS = ("amsmath", "amssymb", "amsfonts", "mathtools", "bm", "siunitx", "gensymb",
              "textcomp", "mathrsfs", "xfrac", "nicefrac", "cancel", "stmaryrd", "physics")
"""Packages outside the TikZ family that pictures' labels use without saying so (maths,
units, symbols): scanned too, so ``\\mathbb`` or ``\\SI`` in a posted picture finds its
package.  Only which files are scanned is chosen here; what they define is read from TeX."""

_LOADS_TIKZ = re.compile(
    r"\\(?:RequirePackage|usepackage)\s*(?:\[[^\]]*\])?\s*\{[^}]*\b(?:tikz|pgf|pgfplots|"
    r"pgfplotstable|circuitikz|tikz-cd|tikz-3dplot|tkz-euclide|tkz-base|forest)\b"
    r"|\\usetikzlibrary|\\input\s*\{?\s*(?:tikz|pgf)\b")
_PUBLIC = re.compile(r"[A-Za-z]+")

_DUMP_LUA = r"""
local f = io.open("dfnames.txt", "w")
for _, name in ipairs(tex.hashtokens()) do
  if token.is_defined(name) then
    local m = token.get_macro(name)
    local t = token.create(name)
    local sig = m and md5.sumhexa(m):sub(1, 8) or (t.cmdname .. ":" .. tostring(t.mode))
    -- a macro that opens or closes a picture itself (an environment drawing one: a
    -- tikzpicture, or a tikzcd matrix as quantikz's circuits are)
    if m and (m:find("tikzpicture", 1, true) or m:find("pgfpicture", 1, true)
              or m:find("tikzcd", 1, true)) then
      sig = sig .. "+"
    end
    f:write(name, "\t", sig, "\n")
  end
end
f:close()
"""


@dataclass(frozen=True)
class Provider:
    """Something a document loads: ``library:<name>`` (``\\usetikzlibrary``),
    ``pgfplotslibrary:<name>`` (``\\usepgfplotslibrary``, after pgfplots) or
    ``package:<name>`` (``\\usepackage``)."""

    kind: str
    name: str
    path: str = ""

    @property
    def id(self) -> str:
        return f"{self.kind}:{self.name}"

    def load_line(self) -> str:
        return {"library": r"\usetikzlibrary{%s}", "package": r"\usepackage{%s}",
                "pgfplotslibrary": r"\usepackage{pgfplots}\usepgfplotslibrary{%s}"
                }[self.kind] % self.name


@dataclass
class Scan:
    """What loading one provider defined (names with their meaning's signature)."""

    provider: Provider
    names: dict[str, str] = field(default_factory=dict)
    error: str = ""


def tex_trees() -> list[Path]:
    """TeX Live's trees as kpathsea sees them (``$TEXMF``), those that exist."""
    out = subprocess.run(["kpsewhich", "-expand-path", "$TEXMF"], capture_output=True,
                         text=True, timeout=30, env=tex_env()).stdout.strip()
    return [Path(p) for p in out.split(":") if p and Path(p, "tex").is_dir()]


def candidates(trees: Iterable[Path]) -> list[Provider]:
    """Every TikZ, PGF and pgfplots library, every package of the TikZ family and the
    companions, once each (the first tree kpathsea searches wins, as it does for TeX)."""
    seen: dict[str, Provider] = {}
    lib = re.compile(r"(tikz|pgf|pgfplots)library(.+)\.code\.tex")
    for tree in trees:
        for p in sorted((tree / "tex").rglob("*")):
            m = lib.fullmatch(p.name)
            if m:
                # pgfplots' libraries are TikZ libraries named pgfplots.<name>, loaded by
                # \usepgfplotslibrary{<name>} once pgfplots is
                name = m.group(2)
                plot = m.group(1) == "pgfplots" or name.startswith("pgfplots.")
                prov = Provider("pgfplotslibrary" if plot else "library",
                                name.removeprefix("pgfplots."), str(p))
            elif p.suffix == ".sty" and p.parts[len(tree.parts) + 1] in ("latex", "generic"):
                if p.stem not in COMPANIONS and not _LOADS_TIKZ.search(
                        p.read_text(errors="replace")):
                    continue
                prov = Provider("package", p.stem, str(p))
            else:
                continue
            seen.setdefault(prov.id, prov)
    return sorted(seen.values(), key=lambda p: p.id)


_DUMP = r"\directlua{dofile('dfdump.lua')}"
CONTEXTS = {"node": rf"\node {{{_DUMP}}};",
            "axis": rf"\begin{{axis}}{_DUMP}\end{{axis}}"}
"""Where TikZ and pgfplots define commands of their own only for a while (``\\nodepart`` in
a node's text, ``\\addplot`` and ``\\legend`` in an axis): names there are theirs, whatever
package also defines them globally."""


def _document(load: str, inside: str = _DUMP) -> str:
    return "\n".join([r"\documentclass{article}", r"\usepackage{tikz}", load,
                      r"\begin{document}", r"\begin{tikzpicture}", inside,
                      r"\end{tikzpicture}", r"\end{document}", ""])


def scan(load: str, lua: LuaSetup, timeout_s: float = 60, inside: str = _DUMP
         ) -> tuple[dict[str, str], str]:
    """Names defined inside a picture after ``load`` (a preamble line), with signatures of
    their meanings (``inside``: where in the picture they are read); or the first error
    when the document does not compile."""
    return _scan(load, lua, timeout_s, inside)


def _cached(cache: Path | None, parts: list[str],
            compute: Callable[[], tuple[dict[str, str], str]]) -> tuple[dict[str, str], str]:
    """A scan's result kept under ``cache`` by its document, the dump script and TeX Live's
    version: regenerating the table after a change of attribution reruns no TeX."""
    if cache is None:
        return compute()
    key = hashlib.sha256("\0".join([_DUMP_LUA, *parts, tex_version(Engine.LUALATEX)])
                         .encode()).hexdigest()[:32]
    hit = cache / f"{key}.json"
    if hit.exists():
        got = json.loads(hit.read_text())
        return got["names"], got["error"]
    names, error = compute()
    atomic.write_json(hit, {"names": names, "error": error})
    return names, error


def _scan(load: str, lua: LuaSetup, timeout_s: float, inside: str = _DUMP
          ) -> tuple[dict[str, str], str]:
    with tempfile.TemporaryDirectory(prefix="dftable-") as tmp:
        job = Path(tmp)
        (job / "doc.tex").write_text(_document(load, inside))
        (job / "dfdump.lua").write_text(_DUMP_LUA)
        res = run_sandboxed([*engine_argv(Engine.LUALATEX, lua), "doc.tex"], job,
                            tex_env(lua.env(job), job), timeout_s=timeout_s, memory_mb=2048,
                            fsize_mb=64, access=file_access(job, lua.read_roots()))
        out = job / "dfnames.txt"
        if res.returncode != 0 or not out.exists():
            log = (job / "doc.log").read_text(errors="replace") if (job / "doc.log").exists() \
                else res.stdout
            first = next((ln for ln in log.splitlines() if ln.startswith("!")),
                         "timeout" if res.timed_out else f"exit {res.returncode}")
            return {}, first[:200]
        names = {}
        for line in out.read_text(errors="replace").splitlines():
            name, _, sig = line.rpartition("\t")
            names[name] = sig
        return names, ""


def _loads(names: Iterable[str]) -> set[str]:
    """The providers a scan shows loaded: ``\\ver@x.sty``, ``\\tikz@library@x@loaded``…"""
    out = set()
    for n in names:
        if n.startswith("ver@") and n.endswith(".sty"):
            out.add("package:" + n[4:-4])
        m = re.fullmatch(r"(?:tikz|pgf)@library@(.+)@loaded", n)
        if m:
            lib = m.group(1)
            out.add("pgfplotslibrary:" + lib[9:] if lib.startswith("pgfplots.")
                    else "library:" + lib)
        # a library file read by \input, not \usetikzlibrary, leaves only its \ver@ mark
        m = re.fullmatch(r"ver@(tikz|pgf|pgfplots)library(.+)\.code\.tex", n)
        if m:
            lib = m.group(2)
            out.add("pgfplotslibrary:" + lib.removeprefix("pgfplots.")
                    if m.group(1) == "pgfplots" or lib.startswith("pgfplots.")
                    else "library:" + lib)
    return out


def classify_name(name: str) -> tuple[str, str] | None:
    """(kind, the name a picture uses) for a control sequence a file defined, or None for
    internals.  Keys are the ``/tikz/``, ``/pgf/`` and ``/pgfplots/`` keys a picture sets
    by their last part; pics are ``/tikz/pics/<name>``."""
    m = re.fullmatch(r"pgfk@/(tikz|pgf|pgfplots)/(.+?)(/\.@cmd)?", name)
    if m:
        root, rest, cmd = m.groups()
        if rest.startswith("pics/") and cmd and "/" not in rest[5:]:
            return "pic", rest[5:]
        if "/." in rest or "/" in rest or not rest.strip():
            return None
        return ("pgfplots_key" if root == "pgfplots" else "key"), rest
    for kind, pat in (("shape", r"pgf@sh@s@(.+)"), ("arrow", r"pgf@ar@(?:code|means)@(.+)"),
                      ("decoration", r"pgf@decorate@@(.+)@initial"),
                      ("pattern", r"pgf@pattern@name@(?:meta@)?(.+)"),
                      ("mark", r"pgf@plot@mark@(.+)"), ("cs", r"tikz@parse@cs@([^_].*)")):
        m = re.fullmatch(pat, name)
        if m:
            return kind, m.group(1)
    if _PUBLIC.fullmatch(name):
        return "macro", name
    return None


_REQUIRE = re.compile(r"\\(?:RequirePackage|usepackage)\s*(?:\[[^\]]*\])?\s*\{([^}]*)\}")


def required_by(trees: Iterable[Path]) -> dict[str, int]:
    """How many of TeX Live's packages and classes require each package (``package:x``
    → count): which of two files defining the same name is the one people load."""
    out: dict[str, int] = defaultdict(int)
    for tree in trees:
        for p in (tree / "tex").rglob("*"):
            if p.suffix in (".sty", ".cls"):
                for group in _REQUIRE.findall(p.read_text(errors="replace")):
                    for name in {n.strip() for n in group.split(",") if n.strip()}:
                        out[f"package:{name}"] += 1
    return dict(out)


def _closure(loads: dict[str, set[str]]) -> dict[str, set[str]]:
    out = {}
    for p in loads:
        seen, todo = set(), list(loads[p])
        while todo:
            q = todo.pop()
            if q not in seen:
                seen.add(q)
                todo += loads.get(q, ())
        out[p] = seen
    return out


def attribute(scans: list[Scan], base: dict[str, str], context: set[str] = frozenset(),
              required: dict[str, int] | None = None) -> dict:
    """The table from the scans: each name to the one provider every other provider of the
    name loads (the file that defines it); failing that, to PGF's own library (``entity``:
    ``er``, not a package that copied it), or to the provider more files load than any
    other — the scanned files, and TeX Live's packages and classes that require it
    (``required``): ``\\SI`` is siunitx's, not sistyle's; preferring a package to a library
    of its own TeX Live directory (``\\usepackage{tikz-cd}`` rather than its internal
    ``cd``).  A name TikZ or pgfplots define themselves where it is used has no row
    (``context``: ``\\legend`` in an axis is pgfplots', not a package's that defines
    one)."""
    ok = [s for s in scans if not s.error]
    by_id = {s.provider.id: s for s in ok}
    loads = {s.provider.id: _loads(set(s.names) - set(base)) - {s.provider.id} for s in ok}
    deep = _closure(loads)
    pgf = {p for p, sc in by_id.items() if _tl_dir(sc.provider.path) in ("pgf", "pgfplots")}
    users: dict[str, int] = defaultdict(int)
    for p in deep:
        for q in deep[p]:
            users[q] += 1
    for p, n in (required or {}).items():
        users[p] += n
    found: dict[tuple[str, str], set[str]] = defaultdict(set)
    for s in ok:
        new = {n for n in s.names if n not in base}
        for n in new:
            c = classify_name(n)
            if c:
                found[c].add(s.provider.id)
        envs = {n for n in new if _PUBLIC.fullmatch(n) and "end" + n in new}
        for e in envs:
            found[("environment", e)].add(s.provider.id)
            if s.names[e].endswith("+") or s.names["end" + e].endswith("+"):
                found[("picture_environment", e)].add(s.provider.id)
        for what, hook in SYNTAX_HOOKS.items():
            if hook in s.names and s.names[hook] != base.get(hook):
                found[("syntax", what)].add(s.provider.id)
    rows: dict[str, dict[str, str]] = defaultdict(dict)
    others: dict[str, dict[str, list[str]]] = defaultdict(dict)
    ambiguous: dict[str, int] = defaultdict(int)
    for (kind, name), provs in sorted(found.items()):
        root = [p for p in provs if all(p == q or p in deep[q] for q in provs)]
        if len(root) != 1:  # PGF's own library before another package's copy
            root = [p for p in provs if p in pgf]
            if len(root) != 1:
                most = max(users[p] for p in provs)
                root = [p for p in provs if users[p] == most] if most else []
            if len(root) == 1:  # the others define it too: a picture loading one is served
                others[kind][name] = sorted(provs - set(root))
        if len(root) != 1:
            ambiguous[kind] += 1
            continue
        prov = _prefer_package(root[0], provs, by_id, deep)
        if kind == "macro" and name in context:
            others[kind].pop(name, None)
            continue
        rows[kind][name] = prov
    return {"providers": {p: sorted(loads[p]) for p in sorted(loads)},
            "pgf": sorted(pgf),
            "rows": {k: dict(sorted(v.items())) for k, v in sorted(rows.items())},
            "others": {k: dict(sorted(v.items())) for k, v in sorted(others.items()) if v},
            "ambiguous": dict(sorted(ambiguous.items())),
            "failed": {s.provider.id: s.error for s in scans if s.error}}


def _tl_dir(path: str) -> str:
    """A file's TeX Live package directory (``tex/<format>/<dir>/…``)."""
    parts = Path(path).parts
    return parts[parts.index("tex") + 2] if "tex" in parts and \
        len(parts) > parts.index("tex") + 3 else ""


def _prefer_package(root: str, provs: set[str], by_id: dict[str, Scan],
                    deep: dict[str, set[str]]) -> str:
    if not root.startswith("library:"):
        return root
    home = _tl_dir(by_id[root].provider.path)
    if home in ("", "pgf"):
        return root
    own = sorted(p for p in provs if p.startswith("package:") and root in deep[p]
                 and _tl_dir(by_id[p].provider.path) == home)
    return own[0] if len(own) == 1 else root


SCAN_CACHE = Path(tempfile.gettempdir()) / "diagramforge-tex" / "table-scans"
"""Where scans are kept between runs (each keyed by its document and TeX Live's version)."""


def generate(workers: int = 2, timeout_s: float = 60,
             progress: Callable[[str], None] = lambda s: None,
             cache: Path | None = SCAN_CACHE) -> dict:
    """Scan TeX Live here and return the table (see the module's docstring)."""
    if cache is not None:
        cache.mkdir(parents=True, exist_ok=True)
    lua = LuaSetup(Path(tempfile.gettempdir()) / "diagramforge-tex" / "lua")
    lua.prepare(2048)
    base, err = _cached(cache, [_document("")], lambda: scan("", lua, timeout_s))
    if err:
        raise RuntimeError(f"TikZ alone does not compile under LuaLaTeX: {err}")
    pgfplots = r"\usepackage{pgfplots}"
    plots, err = _cached(cache, [_document(pgfplots)], lambda: scan(pgfplots, lua, timeout_s))
    if err:
        raise RuntimeError(f"pgfplots does not compile under LuaLaTeX: {err}")
    context: set[str] = set()
    for what, inside in CONTEXTS.items():
        load = pgfplots if what == "axis" else ""
        names, err = _cached(cache, [_document(load, inside)],
                             lambda load=load, inside=inside: scan(load, lua, timeout_s, inside))
        if err:
            raise RuntimeError(f"a {what} does not compile under LuaLaTeX: {err}")
        context |= set(names) - set(base) - set(plots)
    hooks = set(SYNTAX_HOOKS.values())
    todo = candidates(tex_trees())
    paths = {f"package:{p.stem}": str(p) for t in tex_trees()
             for p in (t / "tex").rglob("*.sty")}
    scans: dict[str, Scan] = {}
    while todo:
        progress(f"scanning {len(todo)} files ({len(scans)} done)")

        def one(p: Provider) -> Scan:
            def diff() -> tuple[dict[str, str], str]:
                names, error = scan(p.load_line(), lua, timeout_s)
                if p.kind == "pgfplotslibrary":  # against pgfplots: its own names stay out
                    names = {n: s for n, s in names.items() if n in base or n not in plots}
                # only what differs from TikZ alone is kept (a scan is ~30,000 names)
                return {n: s for n, s in names.items()
                        if n not in base or (n in hooks and base[n] != s)}, error

            return Scan(p, *_cached(cache, ["diff", p.kind, _document(p.load_line())], diff))

        with ThreadPoolExecutor(workers) as ex:
            for s in ex.map(one, todo):
                scans[s.provider.id] = s
        # the packages those load: scanned too, so their names are theirs, not their users'
        deps = {d for s in scans.values() for d in _loads(set(s.names) - set(base))}
        todo = [Provider("package", d.split(":", 1)[1], paths[d]) for d in sorted(deps)
                if d.startswith("package:") and d not in scans and d in paths]
    table = attribute(list(scans.values()), base, context, required_by(tex_trees()))
    return {"about": "Generated by `diagramforge tikz-table` from TeX Live's own files "
                     "(formats/tikz_table.py); do not edit by hand.",
            "format": FORMAT_VERSION, "tex": tex_version(Engine.LUALATEX),
            "scanned": len(scans), "base": sorted(_loads(base)), **table}


def write_table(table: dict, path: Path = TABLE_PATH) -> None:
    atomic.write_text(path, json.dumps(table, indent=0, sort_keys=True,
                                       ensure_ascii=False) + "\n")
