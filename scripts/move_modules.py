"""Move modules of the package and rewrite every reference to them (issue 54's regroup).

A move is a table (:data:`MOVES`, old dotted name → new dotted name, relative to
``diagramforge``); the script ``git mv``s each file or folder and rewrites, in every tracked
text file but ``data/`` and ``dvc.lock``: ``from diagramforge.a import b`` imports, dotted
names (imports, ``mock.patch`` targets, ``module:Class`` specs), ``diagramforge/a/b.py`` paths
and the package-relative paths stage classes declare as code (``"crawl/arxiv.py"``).  Kept in
the repository as the record of what moved where, and to carry a branch written before the
move across it: ``move_modules.py --rewrite-only FILE…`` rewrites those files' references
without moving anything.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

from rewriting import rewrite_files

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "diagramforge"

MOVES: dict[str, str] = {
    # format folders: a format's engine, notation and structure graph beside its handler
    "formats.handlers.tikz": "formats.tikz.handler",
    "formats.handlers.mxgraph": "formats.mxgraph.handler",
    "formats.handlers.svg": "formats.svg.handler",
    "formats.handlers.dot": "formats.dot.handler",
    "formats.handlers.mermaid": "formats.mermaid.handler",
    "formats.handlers.raster": "formats.raster.handler",
    "formats.tikz": "formats.tikz.pictures",
    "formats.tikz_extract": "formats.tikz.extract",
    "formats.tikz_ladder": "formats.tikz.ladder",
    "formats.tikz_needs": "formats.tikz.needs",
    "formats.tikz_table": "formats.tikz.table",
    "formats.tikz_wrappers": "formats.tikz.wrappers",
    "formats.preamble": "formats.tikz.preamble",
    "formats.texbatch": "formats.tikz.texbatch",
    "formats.texcompile": "formats.tikz.texcompile",
    "formats.texengines": "formats.tikz.texengines",
    "formats.tex_file": "formats.tikz.tex_file",
    "graphs.tikz": "formats.tikz.graph",
    "graphs.grounding": "formats.grounding",
    "notation.latex": "formats.tikz.notation",
    "formats.svg": "formats.svg.document",
    "graphs.svg": "formats.svg.graph",
    "formats.dot": "formats.dot.engine",
    "formats.raster": "formats.rasterize",
    "formats.drawio_render": "formats.mxgraph.engine",
    "graphs.mxgraph": "formats.mxgraph.graph",
    "notation.mxgraph": "formats.mxgraph.notation",
    "formats.mermaid_render": "formats.mermaid.engine",
    # the four areas, a package per stage
    "crawl": "builders.crawl",
    "extract": "builders.extract",
    "render": "builders.render",
    "twin": "builders.twin",
    "pdffigures": "builders.pdffigures",
    "classifier": "filters.classifier",
    "filter": "filters.filter",
    "split": "filters.split",
    "synth": "synth.synth",
    "edit": "synth.edit",
    "augment": "synth.augment",
    "repair": "synth.repair",
    "llm": "synth.llm",
    "referents": "synth.referents",
    "validate": "cards.validate",
    "publish": "cards.publish",
    "hub": "cards.hub",
    "evaluate": "cards.evaluate",
    # the core, in packages named for what they are
    "atomic": "store.atomic",
    "shards": "store.shards",
    "records": "store.records",
    "cache": "store.cache",
    "paths": "store.paths",
    "stats": "measure.stats",
    "timing": "measure.timing",
    "hostfacts": "measure.hostfacts",
    "licences": "licensing.spdx",
    "licence_declared": "licensing.declared",
    "licence_detection": "licensing.detection",
    "licence_gnu": "licensing.gnu",
    "licence_match": "licensing.match",
    "licence_notes": "licensing.notes",
    "licence_repository": "licensing.repository",
    "licence_statements": "licensing.statements",
    "sandbox": "sandbox.process",
    "landlock": "sandbox.landlock",
    "realdata": "tools.realdata",
    "lockdiff": "tools.lockdiff",
    "graph_files": "tools.graph_files",
}

# files that moved with a module because it reads them beside itself
DATA_FILES = {"formats/tex_sandbox.lua": "formats/tikz/tex_sandbox.lua",
              "formats/tikz_libraries.json": "formats/tikz/tikz_libraries.json"}

NEW_PACKAGES = {
    **{f"formats/{name}": f"The {title} format: what the toolkit knows about it, in one folder "
       "(its handler registers it)."
       for name, title in (("tikz", "TikZ"), ("mxgraph", "draw.io/mxGraph"), ("svg", "SVG"),
                           ("dot", "Graphviz DOT"), ("mermaid", "Mermaid"),
                           ("raster", "raster-figure"))},
    "builders": "Builders: crawl sources, extract diagrams, render them with their real engines, "
                "write twins.",
    "filters": "Filters: type every diagram, keep what passes the filters, split without leakage.",
    "synth": "Synthesis: captions and QA, atomic edits, augmentations and repairs, with every "
             "verifiable claim computed by code.",
    "cards": "Cards: validate the dataset, write its card and audit, publish and push it.",
    "store": "Storage: records and their schema, shards, atomic writes, the cache and the data "
             "paths.",
    "measure": "Measurements of a run: statistics, timing, and the facts of the host.",
    "licensing": "Licence reading: what a repository declares, what its files say, SPDX "
                 "vocabulary and the allow-list.",
    "sandbox": "The sandbox every outside tool runs in (Landlock, limits, no network).",
    "tools": "Commands beside the pipeline: graph files scored, lock diffs, real corpora for "
             "benchmarks.",
}


def _is_package(old: str) -> bool:
    base = PKG / old.replace(".", "/")
    return not base.with_suffix(".py").is_file() and base.is_dir()


def _path(dotted: str, package: bool) -> str:
    return dotted.replace(".", "/") + ("" if package else ".py")


def plan() -> list[tuple[str, str, bool]]:
    return [(o, n, _is_package(o)) for o, n in MOVES.items()]


def rewriter(moves: list[tuple[str, str, bool]]):
    """A function text → text applying every rewrite for these moves."""
    table = {o: n for o, n, _ in moves}
    packages = {o for o, _, p in moves if p}
    # a module whose new home is a folder of the same name (formats/tikz.py → formats/tikz/)
    # must not catch the folder's own modules: ``diagramforge.formats.tikz.handler``
    shadowed = {o for o in table if table[o].startswith(o + ".")}
    names = sorted(table, key=len, reverse=True)
    alt = "|".join(re.escape(n) for n in names)
    dotted = re.compile(rf"(?<![\w.\0])diagramforge\.({alt})(?![\w])(\.handler\b)?")

    def dot_sub(m: re.Match) -> str:
        if m.group(2) and m.group(1) in shadowed:
            return m.group(0)
        return f"diagramforge.{table[m.group(1)]}{m.group(2) or ''}"

    from_import = re.compile(
        r"^(?P<ind>[ \t]*)from diagramforge(?P<mod>(?:\.\w+)*) import (?P<names>[\w, ]+?)"
        r"(?P<tail>[ \t]*(?:#.*)?)$", re.M)

    def from_sub(m: re.Match) -> str:
        base = m.group("mod")[1:] if m.group("mod") else ""
        parts = [p.strip() for p in m.group("names").split(",") if p.strip()]
        moved, kept = [], []
        for part in parts:
            name, _, alias = part.partition(" as ")
            full = f"{base}.{name.strip()}" if base else name.strip()
            (moved if full in table else kept).append((name.strip(), alias.strip(), full))
        if not moved:
            return m.group(0)
        lines = []
        ind = m.group("ind")
        if kept:
            names_ = ", ".join(f"{n} as {a}" if a else n for n, a, _ in kept)
            lines.append(f"{ind}from diagramforge{m.group('mod')} import {names_}")
        for name, alias, full in moved:
            new = table[full]
            parent, _, last = new.rpartition(".")
            as_ = alias or name
            suffix = "" if as_ == last else f" as {as_}"
            # marked so that the dotted rewrite below leaves the new name alone
            lines.append(f"{ind}from \0diagramforge.{parent} import {last}{suffix}")
        lines[-1] += m.group("tail")
        return "\n".join(lines)

    entries = [(_path(o, o in packages), _path(n, o in packages), o in packages)
               for o, n, _ in moves]
    mod_paths = {old: new for old, new, pkg in entries if not pkg}
    pkg_paths = {old: new for old, new, pkg in entries if pkg}
    all_alt = "|".join(re.escape(e) for e in sorted(list(mod_paths) + list(pkg_paths),
                                                     key=len, reverse=True))
    # ``diagramforge/<old>`` anywhere; package-relative ``<old>`` only inside quotes or
    # backticks (a stage's declared code, the docs' file names)
    full_path = re.compile(rf"(?<![\w/])diagramforge/({all_alt})(?![\w])")
    quoted = re.compile(rf"(?<=[\"'`])({all_alt})(?=[\"'`/])")

    def path_sub(m: re.Match) -> str:
        old = m.group(1)
        if old in mod_paths:
            return m.group(0).replace(old, mod_paths[old], 1)
        return m.group(0).replace(old, pkg_paths[old], 1)

    def quoted_sub(m: re.Match) -> str:
        old = m.group(1)
        if old in mod_paths:
            return mod_paths[old]
        # a bare package name in quotes is a path only when a slash follows (``"crawl/"``)
        end = m.end()
        text = m.string
        if end < len(text) and text[end] == "/":
            return pkg_paths[old]
        return old

    def rewrite(text: str) -> str:
        text = from_import.sub(from_sub, text)
        text = dotted.sub(dot_sub, text)
        text = full_path.sub(path_sub, text)
        text = quoted.sub(quoted_sub, text)
        return text.replace("\0diagramforge.", "diagramforge.")

    return rewrite


def tracked_text_files() -> list[Path]:
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout.split()
    keep = []
    for rel in out:
        if rel.startswith(("data/", "samples/", "tests/fixtures/")) or rel == "dvc.lock":
            continue
        p = ROOT / rel
        if p.suffix in (".py", ".md", ".yaml", ".yml", ".cfg", ".toml", ".txt", ".ini") \
                or rel in (".importlinter", "dev", ".ci/run"):
            keep.append(p)
    return keep


def move(moves: list[tuple[str, str, bool]]) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=ROOT, check=True)

    # a package that becomes a sub-package of a new one of its own name (synth → synth.synth,
    # sandbox.py → sandbox/) goes through a temporary name
    staged = []
    for old, new, pkg in moves:
        src = PKG / _path(old, pkg)
        tmp = PKG / (_path(old, pkg) + ".moving")
        git("mv", str(src), str(tmp))
        staged.append((tmp, PKG / _path(new, pkg)))
    for name, doc in NEW_PACKAGES.items():
        init = PKG / name / "__init__.py"
        if not init.exists():
            init.parent.mkdir(parents=True, exist_ok=True)
            init.write_text(f'"""{doc}"""\n')
            git("add", str(init))
    for tmp, dst in staged:
        dst.parent.mkdir(parents=True, exist_ok=True)
        git("mv", str(tmp), str(dst))
    for old, new in DATA_FILES.items():
        git("mv", str(PKG / old), str(PKG / new))
    git("rm", "-q", str(PKG / "formats/handlers/__init__.py"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rewrite-only", nargs="*", metavar="FILE",
                    help="rewrite references in these files (default: every tracked file) "
                         "without moving anything")
    args = ap.parse_args()
    moves = plan() if args.rewrite_only is None else [
        (o, n, (PKG / n.replace(".", "/")).is_dir()) for o, n in MOVES.items()]
    rewrite = rewriter(moves)
    if args.rewrite_only is None:
        move(moves)
        files = tracked_text_files()
    else:
        files = [Path(f) for f in args.rewrite_only] or tracked_text_files()
    changed = rewrite_files(files, rewrite)
    print(f"{len(moves)} moves, {changed} files rewritten", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
