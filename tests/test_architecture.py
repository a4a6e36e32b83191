"""The house stays standing (docs/ARCHITECTURE.md): imports only look down the layers of
``.importlinter``, no module imports itself back through others, and every stage has its own
package with a ``stage.py``, named as the stage is in ``dvc.yaml``.

Import graphs are read by grimp (import-linter's engine) from the source, imports inside
function bodies included: a lazy import does not hide an upward one or a circle.
"""

from __future__ import annotations

import configparser
import re
import subprocess
import sys
from pathlib import Path

import grimp
import networkx as nx

from diagramforge.pipeline import STAGES, stage_name

REPO = Path(__file__).resolve().parent.parent

PACKAGE_OF = {"classifier-train": "classifier", "hub-push": "hub"}
"""Stages whose package has a shorter name than the stage."""


def _graph() -> grimp.ImportGraph:
    """Every import, those only a type checker runs (``if TYPE_CHECKING:``) included, as the
    contract counts them."""
    return grimp.build_graph("diagramforge", include_external_packages=False,
                             exclude_type_checking_imports=False)


def test_imports_look_down_the_layers():
    """``lint-imports`` keeps the contract: on the code before issue 39 it broke on
    ``params → filters.base``, ``hub → cards.manifest``, ``classifier → filters.base``…"""
    lint = Path(sys.executable).parent / "lint-imports"
    run = subprocess.run([str(lint), "--no-cache"], cwd=REPO, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]


def _layers() -> list[list[str]]:
    """``.importlinter``'s layers, top first: each a list of its members."""
    cfg = configparser.ConfigParser()
    cfg.read(REPO / ".importlinter")
    lines = cfg["importlinter:contract:layers"]["layers"].split("\n")
    return [[m.strip() for m in line.split(":")] for line in lines if line.strip()]


def _layer_of(module: str, layers: list[list[str]]) -> int:
    name = module.removeprefix("diagramforge.")
    for i, members in enumerate(layers):
        if any(name == m or name.startswith(m + ".") for m in members):
            return i
    raise AssertionError(f"{module} is in no layer")


def test_below_config_no_module_names_the_whole_params():
    """A module below ``config`` is handed the sections it reads — its section's model, or a
    protocol naming them (``store.paths.ProjectSettings``, ``stage.StageSettings``,
    ``formats.settings.FormatSettings``…) — never the whole ``Params``: none imports
    ``diagramforge.config``, not even under ``TYPE_CHECKING``, and the contract counts
    type-only imports. Before issue 54 39 such imports broke the layers unseen (34 modules
    naming ``Params``, format folders naming a stage's settings), hidden by
    ``exclude_type_checking_imports = True``."""
    cfg = configparser.ConfigParser()
    cfg.read(REPO / ".importlinter")
    assert cfg.getboolean("importlinter", "exclude_type_checking_imports") is False
    layers = _layers()
    config = _layer_of("diagramforge.config", layers)
    below = sorted(m for m in _graph().find_modules_that_directly_import("diagramforge.config")
                   if _layer_of(m, layers) > config)
    assert below == []


def test_no_module_imports_itself_back():
    """No import circle between modules (function-body and type-only imports count), however
    long."""
    g = _graph()
    edges = nx.DiGraph((m, i) for m in g.modules for i in g.find_modules_directly_imported_by(m))
    circles = [c for c in nx.strongly_connected_components(edges) if len(c) > 1]
    assert circles == []


AREA_OF = {"crawl": "builders", "extract": "builders", "render": "builders", "twin": "builders",
           "classifier-train": "filters", "filter": "filters", "split": "filters",
           "synth": "synth", "edit": "synth", "augment": "synth", "repair": "synth",
           "validate": "cards", "publish": "cards", "hub-push": "cards"}
"""The brief's four areas and the stages each holds (issue 54)."""


def test_each_stage_has_its_package_and_stage_module():
    """``diagramforge.<area>.<stage>.stage`` holds the stage class (``classifier-train`` →
    ``filters.classifier``, ``hub-push`` → ``cards.hub``): where a newcomer looks for a stage
    — under the area the brief names it in — is where it is."""
    wrong = []
    for spec in STAGES:
        module = spec.partition(":")[0]
        name = stage_name(spec)
        want = f"diagramforge.{AREA_OF[name]}.{PACKAGE_OF.get(name, name)}.stage"
        if module != want:
            wrong.append((name, module, want))
    assert wrong == []
    assert len(STAGES) == 14 == len(AREA_OF)


def test_the_root_holds_the_areas_formats_and_a_small_core():
    """The package's top level is the four areas, ``formats`` and the core packages, and a
    few modules that hold them together; a new loose module at the root needs a reason
    here."""
    top = {p.stem for p in (REPO / "diagramforge").glob("*.py")}
    packages = {p.name for p in (REPO / "diagramforge").iterdir()
                if (p / "__init__.py").is_file()}
    assert packages == {"builders", "filters", "synth", "cards", "formats", "graphs",
                        "notation", "executors", "store", "measure", "licensing", "sandbox",
                        "tools"}
    assert top == {"__init__", "__main__", "cli", "commands", "config", "params", "pipeline",
                   "runner", "stage", "selection", "tokenizer", "vocabulary"}


def test_params_imports_no_plugin_registry():
    """The settings base imports no other part of diagramforge: the plug-in sections are
    checked by their registries after loading, and the sections are composed, in
    ``config.py``."""
    g = _graph()
    assert g.find_modules_directly_imported_by("diagramforge.params") == set()


# Third-party packages heavy enough (import time, memory: torch alone is ≈ 180 MB in every
# forked worker) that a module may import the toolkit's code needing them inside a function,
# so that a process which never calls it never loads them (issue 39, point 1).
HEAVY = {"torch", "transformers", "licensedcode", "scancode", "typecode", "playwright",
         "datasets", "pandas", "great_expectations", "dask", "distributed", "matplotlib",
         "albumentations", "cv2", "openai", "google", "huggingface_hub", "skimage", "scipy",
         "sklearn", "pymupdf", "tiktoken"}


def _function_body_imports() -> list[tuple[str, int, str, str]]:
    """(file, line, imported diagramforge module, the comment line above it)."""
    import ast

    out = []
    for f in sorted((REPO / "diagramforge").rglob("*.py")):
        src = f.read_text()
        lines = src.splitlines()
        for fn in ast.walk(ast.parse(src)):
            if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for n in ast.walk(fn):
                mods = ([n.module] if isinstance(n, ast.ImportFrom) and n.module else
                        [a.name for a in n.names] if isinstance(n, ast.Import) else [])
                for m in mods:
                    if m.startswith("diagramforge"):
                        above = lines[n.lineno - 2].strip() if n.lineno > 1 else ""
                        out.append((str(f.relative_to(REPO)), n.lineno, m, above))
    return sorted(set(out))


def test_an_import_in_a_function_body_is_for_a_heavy_dependency_and_says_which():
    """A toolkit import inside a function is kept only where the module it imports loads a
    heavy third-party package, and the comment above it names such a package truly
    (``# lazy: loads torch, transformers``, checked against grimp's graph): anything else
    belongs at the top of its module, where the layers and the reader see it."""
    graph = grimp.build_graph("diagramforge", include_external_packages=True,
                              exclude_type_checking_imports=True)
    wrong = []
    for file, line, module, above in _function_body_imports():
        loads = {m.split(".")[0] for m in graph.find_upstream_modules(module) | {module}}
        heavy = loads & HEAVY
        named = set(re.findall(r"[\w.]+", above.removeprefix("# lazy: loads"))) \
            if above.startswith("# lazy: loads") else set()
        if not heavy:
            wrong.append(f"{file}:{line} {module}: loads nothing heavy, import it at the top")
        elif not named or not named <= heavy:
            wrong.append(f"{file}:{line} {module}: say which heavy packages it loads "
                         f"(# lazy: loads {', '.join(sorted(heavy))})")
    assert not wrong, "\n".join(wrong)
