"""The stage graph is declared once: dvc.yaml, the CLI, the audit and the fingerprint agree."""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import pytest
import typer.main

from diagramforge.cli import _formats_line, app, user_text
from diagramforge.formats.registry import format_titles
from diagramforge.pipeline import (
    PACKAGE_DIR,
    STAGES,
    code_files,
    docstring,
    dvc_yaml,
    folder_imports,
    funnel,
    stage_classes,
    task_configs,
)

REPO = PACKAGE_DIR.parent


def test_dvc_yaml_is_generated_from_the_declarations():
    assert (REPO / "dvc.yaml").read_text() == dvc_yaml(), \
        "dvc.yaml drifted from the stage declarations: run `diagramforge dvc-yaml`"


def _module_file(name: str) -> Path | None:
    base = REPO / name.replace(".", "/")
    for p in (base.with_suffix(".py"), base / "__init__.py"):
        if p.exists():
            return p.resolve()
    return None


def _type_checking_only(tree: ast.Module) -> set[int]:
    """ids of the nodes under ``if TYPE_CHECKING:``: imports only a type checker runs (the
    whole ``Params`` from ``config``, which composes every section) are no part of what a
    stage runs, as the import contract (``exclude_type_checking_imports``) holds too."""
    return {id(n) for i in ast.walk(tree)
            if isinstance(i, ast.If) and ast.unparse(i.test) == "TYPE_CHECKING"
            for n in ast.walk(i)}


def _imports(path: Path) -> set[Path]:
    """Package modules a module imports (imports inside functions included, those only
    type checkers run left out)."""
    out = set()
    tree = ast.parse(path.read_text())
    skip = _type_checking_only(tree)
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        names = []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        for n in names:
            if n.startswith("diagramforge") and (f := _module_file(n)) is not None:
                out.add(f)
    return out


def _closure(start: Path) -> set[Path]:
    seen, todo = set(), [start]
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        todo += [q for q in _imports(p) if q not in seen]
    return seen


@pytest.mark.parametrize("name", list(stage_classes()))
def test_every_module_a_stage_imports_is_a_declared_code_dep(name):
    """A fix in a module a stage uses must rebuild that stage (DVC and the runner)."""
    cls = stage_classes()[name]
    module = Path(importlib.import_module(cls.__module__).__file__).resolve()
    # a capability a stage finds by name (``formats/*/evidence.py``) is imported by no
    # statement: what it imports must be declared too
    found = [p.resolve() for n in cls.code if any(c in n for c in "*?[")
             for p in PACKAGE_DIR.glob(n) if p.suffix == ".py"]
    used = {p for q in [module, *found] for p in _closure(q) if p.name != "__init__.py"}
    missing = sorted(str(p.relative_to(PACKAGE_DIR)) for p in used - set(code_files(cls)))
    assert not missing, f"stage {name} imports {missing} but does not declare them in `code`"


def test_a_capability_glob_brings_what_it_imports_from_its_own_folder():
    """``formats/*/evidence.py`` names no format, yet TikZ's evidence reads its picture's
    shape through the folder's graph reader: the glob brings each match's folder imports
    (a subpackage whole), found from the sources — and nothing of another folder."""
    tikz = [p.relative_to(PACKAGE_DIR).as_posix()
            for p in folder_imports(PACKAGE_DIR / "formats" / "tikz" / "evidence.py")]
    assert tikz == ["formats/tikz/evidence.py", "formats/tikz/graph", "formats/tikz/notation.py",
                    "formats/tikz/shape.py"]
    dot = PACKAGE_DIR / "formats" / "dot" / "evidence.py"
    assert folder_imports(dot) == [dot]
    assert folder_imports(PACKAGE_DIR / "formats" / "grounding.py") == [
        PACKAGE_DIR / "formats" / "grounding.py"]  # not a folder's: itself


def test_unrelated_modules_do_not_rebuild_a_stage():
    render = {p.relative_to(PACKAGE_DIR).as_posix() for p in code_files(stage_classes()["render"])}
    assert not any(p.startswith(("cards/publish/", "cards/validate/", "filters/filter/",
    "synth/synth/")) for p in render
                   if p != "filters/filter/base.py")  # the spine finds filters through it
    assert "cards/publish/card.py" in {p.relative_to(PACKAGE_DIR).as_posix()
                               for p in code_files(stage_classes()["publish"])}


def test_cli_has_exactly_one_command_per_stage_plus_utilities():
    commands = typer.main.get_command(app).commands
    stages = list(stage_classes())
    assert set(stages) <= set(commands)
    assert set(commands) - set(stages) == {"audit", "check-params", "dvc-yaml", "lock-diff",
                                           "score", "evaluate",
                                           "classifier",  # `classifier train`
                                           "stats", "push",
                                           "tikz-table"}  # the generated TikZ table
    for spec, name in zip(STAGES, stages, strict=True):
        # the help is the docstring's first paragraph, reST literals as `x`, and for a stage
        # that dispatches to the formats, the formats the registry finds
        assert commands[name].help == user_text(docstring(spec) + _formats_line(spec)) != ""
    # every format for extract and render; for edit, those whose folder holds edits
    for name in ("extract", "render"):
        assert all(t in commands[name].help for t in format_titles().values()), name
    assert "Formats: " in commands["edit"].help and "raster" not in commands["edit"].help
    assert ("workers" in [p.name for p in commands["render"].params]) is True
    assert ("workers" in [p.name for p in commands["split"].params]) is False


def test_audit_funnel_is_the_stages_that_account_for_every_input():
    assert funnel() == ("crawl", "extract", "render", "filter", "split")


def test_task_configs_read_from_source_are_the_classes_own():
    """``pipeline.task_configs`` reads each stage's ``task_configs`` without importing it
    (literals, module constants, ``captioning.CONFIG``): the imported classes are the
    reference."""
    classes = stage_classes()
    for spec in STAGES:
        cls = classes[next(n for n, c in classes.items()
                           if f"{c.__module__}:{c.__name__}" == spec)]
        assert task_configs(spec) == tuple(getattr(cls, "task_configs", ())), spec
    assert task_configs("diagramforge.synth.synth.stage:SynthStage") == ("captioning", "qa",
                                                                   "editing")


# sections every stage may read without declaring them: where its data lives and how its
# work is spread (neither changes what it writes; runner.shard_size, which does, is declared)
_FRAMEWORK = {"project", "runner"}


def _section_reads(path: Path) -> set[str]:
    """The sections read as ``params.<section>`` or ``self.params.<section>`` in ``path``."""
    reads = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Attribute):
            continue
        base = node.value
        named = isinstance(base, ast.Name) and base.id == "params" or \
            isinstance(base, ast.Attribute) and base.attr == "params"
        if named:
            reads.add(node.attr.rstrip("_"))
    return reads


@pytest.mark.parametrize("name", list(stage_classes()))
def test_every_params_section_a_stage_reads_is_declared(name):
    """A stage's output depends on every section its code reads: undeclared, a changed value
    in params.yaml would not rebuild the stage under DVC (publish read augment.degrade and
    validate for its card, and a change to either left a stale card)."""
    cls = stage_classes()[name]
    declared = {s.split(".")[0] for s in cls.param_sections} | _FRAMEWORK
    reads = {}
    own = Path(inspect.getfile(cls)).resolve().parent  # the stage's own package
    for f in code_files(cls):
        if f.is_relative_to(own):
            for section in _section_reads(f):
                reads.setdefault(section, f.relative_to(PACKAGE_DIR).as_posix())
    known = set(importlib.import_module("diagramforge.config").Params.model_fields) | {"validate"}
    missing = {s: f for s, f in reads.items() if s in known and s not in declared}
    assert not missing, f"stage {name} reads params sections it does not declare: {missing}"
