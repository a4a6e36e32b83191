"""The stage graph, declared once.

Each stage's name, upstream, params sections, code modules and extra inputs/outputs are class
attributes of its stage class (``diagramforge.stage``); :data:`STAGES` lists the classes in
pipeline order. From that single declaration come the CLI subcommands, the audit funnel,
``dvc.yaml`` (``diagramforge dvc-yaml`` writes it; a test fails on any drift) and the
runner's rebuild fingerprint — so DVC and the runner agree on when a stage is stale: when its
own code, the spine, its params or its inputs change, and not when an unrelated module does.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib
from pathlib import Path

import yaml

from diagramforge.stage import Stage

PACKAGE_DIR = Path(__file__).resolve().parent

STAGES: tuple[str, ...] = (
    "diagramforge.builders.crawl.stage:CrawlStage",
    "diagramforge.builders.extract.stage:ExtractStage",
    "diagramforge.builders.render.stage:RenderStage",
    "diagramforge.filters.classifier.stage:ClassifierTrainStage",
    "diagramforge.filters.filter.stage:FilterStage",
    "diagramforge.filters.split.stage:SplitStage",
    "diagramforge.synth.edit.stage:EditStage",
    "diagramforge.synth.augment.stage:AugmentStage",
    "diagramforge.synth.repair.stage:RepairStage",
    "diagramforge.builders.twin.stage:TwinStage",
    "diagramforge.synth.synth.stage:SynthStage",
    "diagramforge.cards.validate.stage:ValidateStage",
    "diagramforge.cards.publish.stage:PublishStage",
    "diagramforge.cards.hub.stage:PushStage",
)
"""``module:Class`` of every stage, in pipeline order (imported lazily: the CLI stays fast)."""

SPINE: tuple[str, ...] = ("runner.py", "stage.py", "store/paths.py", "params.py", "config.py",
                          "store/records.py", "store/shards.py", "measure/stats.py",
                          "store/atomic.py", "store/cache.py",
                          "pipeline.py", "executors", "filters/filter/base.py",
                          "formats/registry.py",
                          "graphs/model.py", "vocabulary.py", "measure/hostfacts.py",
                          "measure/timing.py")
"""Modules every stage's output depends on (package-relative). ``config.py``,
``filters/filter/base.py`` and ``formats/registry.py`` (with the graph model its protocol names) are
here because loading params checks the filters' and the format handlers' sections through
them, and ``vocabulary.py`` because it checks the diagram types params name.  The modules
defining the sections a stage reads are its deps too (:func:`settings_files`)."""

SECTION_HOMES: dict[str, str] = {"project": "params.py", "runner": "params.py",
                                 "licences": "params.py", "graph": "graphs/settings.py",
                                 "select": "selection.py"}
"""Where a top-level section of ``params.yaml`` is defined, where that is not
``<section>/settings.py`` of the package of that name, at the top or in one of the four areas
(docs/ARCHITECTURE.md, "Settings")."""

AREAS: tuple[str, ...] = ("builders", "filters", "synth", "cards")
"""The toolkit's four areas, each a package of stage packages (docs/ARCHITECTURE.md)."""


def _settings_file(section: str) -> Path:
    top = section.partition(".")[0]
    if top in SECTION_HOMES:
        return PACKAGE_DIR / SECTION_HOMES[top]
    for home in ("", *AREAS):
        p = PACKAGE_DIR / home / top / "settings.py"
        if p.is_file():
            return p
    return PACKAGE_DIR / top / "settings.py"  # does not exist: settings_files says so


def settings_files(sections: tuple[str, ...]) -> set[Path]:
    """The modules defining the params ``sections`` (``render``, ``extract.tikz``): each
    section's own settings module and, read from its source, the settings modules it
    composes its sub-sections from (``builders/render/settings.py`` → ``formats/settings.py`` →
    ``params.py``).  A default changed there changes what a stage that reads the section is
    given, so they are its code deps; another stage's section is not."""
    todo = [_settings_file(s) for s in sections]
    seen: set[Path] = set()
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        if not p.is_file():
            raise FileNotFoundError(f"params section defined in {p}, which does not exist: "
                                    "add the section's home to pipeline.SECTION_HOMES")
        seen.add(p)
        for node in ast.parse(p.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                rel = node.module.removeprefix("diagramforge.").replace(".", "/") + ".py"
                if node.module == "diagramforge.params" or rel.endswith("/settings.py"):
                    todo.append(PACKAGE_DIR / rel)
    return {p.resolve() for p in seen}


def load(spec: str) -> type:
    module, _, attr = spec.partition(":")
    return getattr(importlib.import_module(module), attr)


@functools.cache
def stage_classes() -> dict[str, type]:
    """Stage name → class, in pipeline order."""
    classes = [load(s) for s in STAGES]
    return {c.name: c for c in classes}


def funnel() -> tuple[str, ...]:
    """Stages the audit funnel counts (every input kept or rejected with a reason)."""
    return tuple(n for n, c in stage_classes().items() if c.funnel)


def code_files(stage_cls: type) -> list[Path]:
    """Source files a stage's output depends on: the spine, the stage's own module, the
    modules defining the params sections it reads, and the modules and packages it declares
    in ``code``."""
    own = Path(importlib.import_module(stage_cls.__module__).__file__).resolve()
    names = list(SPINE) + list(stage_cls.code)
    files = {own} | settings_files(stage_cls.param_sections)
    for n in names:
        for p in _declared(stage_cls, n):
            if p.is_dir():
                files.update(q.resolve() for q in p.rglob("*.py"))
            else:
                files.add(p.resolve())
    return sorted(files)


def _declared(stage_cls: type, name: str) -> list[Path]:
    """The files or packages a ``code`` entry names: one path, or for a glob — a capability
    every format may have, ``formats/*/evidence.py`` — every match with what it imports from
    its own folder (:func:`folder_imports`: a stage finds a format's capability by name, so
    no entry names a format, nor the modules beside it that the capability reads)."""
    if any(c in name for c in "*?["):
        found = sorted({q for p in PACKAGE_DIR.glob(name) for q in folder_imports(p)})
    else:
        found = [PACKAGE_DIR / name] if (PACKAGE_DIR / name).exists() else []
    if not found:
        raise FileNotFoundError(f"{stage_cls.name}: declared code dep {name} does not exist")
    return found


def folder_imports(path: Path) -> list[Path]:
    """``path`` and what it imports from its format's folder (``formats/<name>/``), read from
    the sources (lazy imports too), transitively: each a module, or a subpackage as a whole
    (``formats/tikz/graph``, so a new module in it is covered).  Outside a format folder,
    just ``path``; imports outside the folder are declared by the stage itself."""
    rel = path.resolve().relative_to(PACKAGE_DIR).parts
    if len(rel) < 3 or rel[0] != "formats":
        return [path]
    folder = PACKAGE_DIR / "formats" / rel[1]
    prefix = f"{PACKAGE_DIR.name}.formats.{rel[1]}."
    seen: set[Path] = set()
    todo = [path]
    while todo:
        unit = todo.pop()
        if unit in seen:
            continue
        seen.add(unit)
        for src in sorted(unit.rglob("*.py")) if unit.is_dir() else [unit]:
            for node in ast.walk(ast.parse(src.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    mods = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
                elif isinstance(node, ast.Import):
                    mods = [a.name for a in node.names]
                else:
                    continue
                for m in mods:
                    if not m.startswith(prefix):
                        continue
                    first = folder / m.removeprefix(prefix).split(".")[0]
                    for hit in (first, first.with_suffix(".py")):
                        if hit.exists() and hit not in seen and hit.resolve() != unit:
                            todo.append(hit)
    return sorted(seen)


def code_fingerprint(stage_cls: type) -> str:
    h = hashlib.sha256()
    for p in code_files(stage_cls):
        name = p.relative_to(PACKAGE_DIR.parent) if p.is_relative_to(PACKAGE_DIR.parent) \
            else p.name  # a stage defined outside the repository (a plugin, a test)
        h.update(str(name).encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def _dvc_dep(p: Path) -> str:
    return p.relative_to(PACKAGE_DIR.parent).as_posix()


def dvc_deps(stage_cls: type) -> list[str]:
    """DVC deps of a stage's code: the same declaration as :func:`code_files`, with declared
    packages left as directories (so a new module in them is covered)."""
    own = Path(importlib.import_module(stage_cls.__module__).__file__).resolve()
    names = [p for n in (*SPINE, *stage_cls.code) for p in _declared(stage_cls, n)] + [own]
    names += sorted(settings_files(stage_cls.param_sections))
    return sorted({_dvc_dep(p) for p in names})


def dvc_yaml(data_dir: str = "data", metrics_dir: str = "metrics") -> str:
    """``dvc.yaml`` generated from the stage declarations."""
    stages = {}
    for name, cls in stage_classes().items():
        deps = [f"{data_dir}/{cls.upstream}"] if cls.upstream else []
        deps += list(cls.inputs) + dvc_deps(cls)
        entry: dict = {"cmd": f"diagramforge {name}", "deps": deps,
                       "params": sorted(set(cls.param_sections) | {"runner.shard_size"})}

        # a mapped stage resumes from its committed shards: DVC must not delete them first
        outs: list = [{f"{data_dir}/{name}": {"persist": True}} if issubclass(cls, Stage)
                      else f"{data_dir}/{name}"]
        outs += list(cls.outputs)
        entry["outs"] = outs
        entry["metrics"] = [{f"{metrics_dir}/{m}": {"cache": False}}
                            for m in (f"{name}.json", *cls.extra_metrics)]
        if cls.plots:
            entry["plots"] = [{f"{metrics_dir}/{f}": {"cache": False, **props}}
                              for f, props in cls.plots]
        stages[name] = entry
    header = ("# GENERATED by `diagramforge dvc-yaml` from the stage declarations "
              "(diagramforge/pipeline.py);\n# edit the stage classes, not this file. Stage "
              "outputs persist so a killed stage resumes\n# from its last committed shard (the "
              "runner itself wipes them when params, inputs or code change).\n")
    return header + yaml.safe_dump({"stages": stages}, sort_keys=False, width=100)


@functools.cache
def _class_ast(spec: str) -> ast.ClassDef:
    """The stage class's syntax tree, read without importing its module (the CLI's help
    must not import TeX, Chromium or pandas machinery)."""
    import importlib.util

    module, _, attr = spec.partition(":")
    origin = importlib.util.find_spec(module).origin
    tree = ast.parse(Path(origin).read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == attr:
            return node
    raise LookupError(f"{spec}: no such class")


def format_capability(spec: str) -> str | None:
    """The stage's ``format_capability`` declaration, read from its source (``None`` when it
    declares none): the CLI's help names formats without importing a stage or a handler."""
    value = _class_value(spec, "format_capability")
    return None if value is None else ast.literal_eval(value)


def _class_value(spec: str, attr: str) -> ast.expr | None:
    """The value the stage class assigns to ``attr`` in its body (``attr = …`` or
    ``attr: T = …``), unevaluated; ``None`` when it assigns none."""
    for node in _class_ast(spec).body:
        target = node.target if isinstance(node, ast.AnnAssign) else \
            node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else None
        if isinstance(target, ast.Name) and target.id == attr and node.value:
            return node.value
    return None


def stage_name(spec: str) -> str:
    for node in _class_ast(spec).body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "name" for t in node.targets):
            return ast.literal_eval(node.value)
    raise LookupError(f"{spec}: the class declares no name")


def is_mapped(spec: str) -> bool:
    return any(isinstance(b, ast.Name) and b.id == "Stage" for b in _class_ast(spec).bases)


def task_configs(spec: str) -> tuple[str, ...]:
    """The config names the stage class declares in ``task_configs`` (none if it declares
    none), read from its source like the other declarations.

    Why not ``stage_classes()``: the driver of a stage that checks ``select`` names needs
    every task stage's configs, and importing every stage's module for them put pandas and
    torch (publish, validate) into that driver — and, forked, into each of its workers.
    The tuple's items are strings, or names bound to strings at module level in the stage's
    module or in a module it imports (``captioning.CONFIG``)."""
    value = _class_value(spec, "task_configs")
    if value is None:
        return ()
    if not isinstance(value, ast.Tuple):
        raise LookupError(f"{spec}: task_configs is not a tuple literal")
    return tuple(_constant(spec.partition(":")[0], e) for e in value.elts)


def _module_ast(module: str) -> ast.Module:
    import importlib.util

    return ast.parse(Path(importlib.util.find_spec(module).origin).read_text(
        encoding="utf-8"))


def _constant(module: str, node: ast.expr) -> str:
    """The string ``node`` (a literal, ``NAME`` or ``mod.NAME``) stands for in ``module``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    tree = _module_ast(module)
    if isinstance(node, ast.Name):
        for n in tree.body:
            if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == node.id
                                                 for t in n.targets):
                return _constant(module, n.value)
            if isinstance(n, ast.ImportFrom) and n.module and n.level == 0:
                for a in n.names:
                    if (a.asname or a.name) == node.id:
                        return _constant(n.module, ast.Name(a.name))
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        for n in tree.body:
            if isinstance(n, ast.ImportFrom) and n.module and n.level == 0:
                for a in n.names:
                    if (a.asname or a.name) == node.value.id:
                        return _constant(f"{n.module}.{a.name}", ast.Name(node.attr))
            if isinstance(n, ast.Import):
                for a in n.names:
                    if a.asname == node.value.id:
                        return _constant(a.name, ast.Name(node.attr))
    raise LookupError(f"{module}: {ast.unparse(node)} is not a string it defines or imports")


def defines(spec: str, method: str) -> bool:
    """Whether the stage class itself defines ``method`` (e.g. ``dry_run``: the CLI then
    offers ``--dry-run``), read from its source like the other declarations."""
    return any(isinstance(n, ast.FunctionDef) and n.name == method
               for n in _class_ast(spec).body)


def docstring(spec: str) -> str:
    """The stage's help: the first paragraph of its class docstring (what a user runs it
    for; the paragraphs after it are notes for developers)."""
    doc = ast.get_docstring(_class_ast(spec)) or ""
    return " ".join(doc.split("\n\n")[0].split())
