"""Move test files so that ``tests/`` mirrors the package (issue 54), rewriting references.

Each test module goes beside what it tests (:func:`plan`: ``tests/<area>/<stage>/``,
``tests/formats/<name>/``, ``tests/store/``…); ``from tests.a.b import`` lines, dotted names
and ``tests/a/b.py`` paths are rewritten, and a moved module's ``Path(__file__).parents[N]``
(or ``.parent.parent``) is deepened by as many levels as it went down, so that what it
reaches (the repository root, ``tests/fixtures``) stays the same.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from rewriting import rewrite_files

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"

DIRS = {  # a whole folder (with its conftest and helpers)
    "builders": "builders/crawl",
    "twins": "builders/twin",
    "pdffigures": "builders/pdffigures",
    "classifier": "filters/classifier",
    "referents": "synth/referents",
    "hub": "cards/hub",
    "evaluate": "cards/evaluate",
}
FILES = {
    "builders/test_render.py": "builders/render/test_render.py",
    "formats/handlers/test_dot.py": "formats/dot/test_handler.py",
    "formats/handlers/test_mermaid.py": "formats/mermaid/test_handler.py",
    "formats/test_dot.py": "formats/dot/test_engine.py",
    "formats/test_drawio_render.py": "formats/mxgraph/test_engine.py",
    "formats/test_mermaid_render.py": "formats/mermaid/test_engine.py",
    "formats/test_svg.py": "formats/svg/test_document.py",
    "formats/test_raster.py": "formats/test_rasterize.py",
    "formats/test_preamble.py": "formats/tikz/test_preamble.py",
    "formats/test_tex_file.py": "formats/tikz/test_tex_file.py",
    "formats/test_texbatch.py": "formats/tikz/test_texbatch.py",
    "formats/test_texcompile.py": "formats/tikz/test_texcompile.py",
    "formats/test_texcompile_paths.py": "formats/tikz/test_texcompile_paths.py",
    "formats/test_texengines.py": "formats/tikz/test_texengines.py",
    "formats/test_tikz.py": "formats/tikz/test_pictures.py",
    "formats/test_tikz_ladder.py": "formats/tikz/test_ladder.py",
    "formats/test_tikz_needs.py": "formats/tikz/test_needs.py",
    "formats/test_tikz_table.py": "formats/tikz/test_table.py",
    "formats/test_tikz_wrappers.py": "formats/tikz/test_wrappers.py",
    "formats/test_extract.py": "formats/tikz/test_extract.py",
    "graphs/test_mxgraph.py": "formats/mxgraph/test_graph.py",
    "graphs/test_svg.py": "formats/svg/test_graph.py",
    "graphs/test_tikz.py": "formats/tikz/test_graph.py",
    "graphs/test_tikz_layout.py": "formats/tikz/test_graph_layout.py",
    "notation/test_latex.py": "formats/tikz/test_notation.py",
    "notation/test_mxgraph.py": "formats/mxgraph/test_notation.py",
    "filters/test_licence_declared.py": "licensing/test_declared.py",
    "curation/test_select.py": "test_selection.py",
    "edits/conftest.py": "synth/conftest.py",
    "edits/test_augment.py": "synth/augment/test_augment.py",
    "edits/test_repair.py": "synth/repair/test_repair.py",
    "test_cache.py": "store/test_cache.py",
    "test_records.py": "store/test_records.py",
    "test_shards.py": "store/test_shards.py",
    "test_timing.py": "measure/test_timing.py",
    "test_hostfacts.py": "measure/test_hostfacts.py",
    "test_landlock.py": "sandbox/test_landlock.py",
    "test_sandbox.py": "sandbox/test_sandbox.py",
    "test_lockdiff.py": "tools/test_lockdiff.py",
}
VALIDATE = ("test_nested.py", "test_references.py", "test_tasks.py", "test_validate.py",
            "test_validate_streaming.py")
SPLIT = ("test_split.py", "test_split_eval.py", "test_split_stream.py")


def plan() -> dict[str, str]:
    """Old → new path (relative to ``tests/``) of every file that moves."""
    moves: dict[str, str] = {}
    # the synth stage's tests first: the edit tests' conftest takes its place
    for f in sorted((TESTS / "synth").glob("*")):
        if f.is_file() and f.suffix == ".py" and f.name != "__init__.py":
            moves[f"synth/{f.name}"] = f"synth/synth/{f.name}"
    for old, new in DIRS.items():
        for f in sorted((TESTS / old).rglob("*")):
            if f.is_file() and "__pycache__" not in f.parts:
                rel = f.relative_to(TESTS).as_posix()
                moves[rel] = new + rel[len(old):]
    moves.update(FILES)
    for f in sorted((TESTS / "cards").glob("test_*.py")):
        sub = "validate" if f.name in VALIDATE else "publish"
        moves[f"cards/{f.name}"] = f"cards/{sub}/{f.name}"
    for f in sorted((TESTS / "filters").glob("test_*.py")):
        if f"filters/{f.name}" in moves:
            continue
        sub = "split" if f.name in SPLIT else "filter"
        moves[f"filters/{f.name}"] = f"filters/{sub}/{f.name}"
    for f in sorted((TESTS / "curation").glob("test_*.py")):
        moves.setdefault(f"curation/{f.name}", f"filters/split/{f.name}")
    for f in sorted((TESTS / "edits").glob("test_*.py")):
        moves.setdefault(f"edits/{f.name}", f"synth/edit/{f.name}")
    return moves


def _dotted(rel: str) -> str:
    return "tests." + rel.removesuffix(".py").replace("/", ".")


def rewriter(moves: dict[str, str]):
    table = {_dotted(o): _dotted(n) for o, n in moves.items() if o.endswith(".py")}
    names = sorted(table, key=len, reverse=True)
    dotted = re.compile(r"(?<![\w.])({})(?![\w])".format("|".join(re.escape(n) for n in names)))
    paths = {f"tests/{o}": f"tests/{n}" for o, n in moves.items()}
    path_re = re.compile(r"(?<![\w/])({})(?![\w])".format("|".join(
        re.escape(p) for p in sorted(paths, key=len, reverse=True))))

    def rewrite(text: str) -> str:
        text = dotted.sub(lambda m: table[m.group(1)], text)
        return path_re.sub(lambda m: paths[m.group(1)], text)

    return rewrite


def deepen(text: str, by: int) -> str:
    """``parents[N]`` → ``parents[N+by]``, ``.parent.parent`` chains from ``__file__`` one
    ``.parent`` longer per level."""
    if by == 0:
        return text
    text = re.sub(r"(__file__\)(?:\.resolve\(\))?\.parents\[)([1-9]\d*)\]",
                  lambda m: f"{m.group(1)}{int(m.group(2)) + by}]", text)
    # a single ``.parent`` is the module's own folder, which moved with it when it matters
    return re.sub(r"(__file__\)(?:\.resolve\(\))?)((?:\.parent){2,})(?!s)",
                  lambda m: m.group(1) + m.group(2) + ".parent" * by, text)


def main() -> int:
    moves = plan()
    rewrite = rewriter(moves)

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=ROOT, check=True)

    for old, new in moves.items():
        dst = TESTS / new
        dst.parent.mkdir(parents=True, exist_ok=True)
        for d in [dst.parent, *dst.parent.parents]:
            if d == TESTS or TESTS not in d.parents:
                break
            init = d / "__init__.py"
            if not init.exists():
                init.write_text("")
                git("add", str(init))
        if (TESTS / old).name == "__init__.py" and dst.exists():
            git("rm", "-q", str(TESTS / old))
            continue
        git("mv", str(TESTS / old), str(dst))
        by = new.count("/") - old.count("/")
        if dst.suffix == ".py":
            dst.write_text(deepen(dst.read_text("utf-8"), by), "utf-8")
    for d in ("curation", "edits", "notation", "formats/handlers", "twins", "pdffigures",
              "referents", "hub", "evaluate"):
        init = TESTS / d / "__init__.py"
        if init.exists():
            git("rm", "-q", str(init))
    files = subprocess.run(["git", "ls-files", "tests", "benchmarks", "scripts", "docs",
                            "README.md", "pyproject.toml", "dev", ".ci"], cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout.split()
    changed = rewrite_files((ROOT / rel for rel in files
                             if (ROOT / rel).suffix in (".py", ".md", ".toml", "")
                             and not rel.startswith("tests/fixtures/")), rewrite)
    print(f"{len(moves)} test files moved, {changed} files rewritten", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
