"""The house stays standing (docs/ARCHITECTURE.md): imports only look down the layers of
``.importlinter``, no module imports itself back through others, and every stage has its own
package with a ``stage.py``, named as the stage is in ``dvc.yaml``.

Import graphs are read by grimp (import-linter's engine) from the source, imports inside
function bodies included: a lazy import does not hide an upward one or a circle.
"""

from __future__ import annotations

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
    return grimp.build_graph("diagramforge", include_external_packages=False,
                             exclude_type_checking_imports=True)


def test_imports_look_down_the_layers():
    """``lint-imports`` keeps the contract: on the code before issue 39 it broke on
    ``params → filters.base``, ``hub → cards.manifest``, ``classifier → filters.base``…"""
    lint = Path(sys.executable).parent / "lint-imports"
    run = subprocess.run([str(lint), "--no-cache"], cwd=REPO, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]


def test_no_module_imports_itself_back():
    """No import circle between modules (function-body imports count), however long."""
    g = _graph()
    edges = nx.DiGraph((m, i) for m in g.modules for i in g.find_modules_directly_imported_by(m))
    circles = [c for c in nx.strongly_connected_components(edges) if len(c) > 1]
    assert circles == []


def test_each_stage_has_its_package_and_stage_module():
    """``diagramforge.<stage>.stage`` holds the stage class (``classifier-train`` →
    ``classifier``, ``hub-push`` → ``hub``): where a newcomer looks for a stage is where it is."""
    wrong = []
    for spec in STAGES:
        module = spec.partition(":")[0]
        name = stage_name(spec)
        want = f"diagramforge.{PACKAGE_OF.get(name, name)}.stage"
        if module != want:
            wrong.append((name, module, want))
    assert wrong == []
    assert len(STAGES) == 14


def test_params_imports_no_plugin_registry():
    """The settings base imports only the bottom layer (the diagram-type vocabulary): the
    plug-in sections are checked by their registries after loading (``config.py``)."""
    g = _graph()
    assert g.find_modules_directly_imported_by("diagramforge.params") == {
        "diagramforge.vocabulary"}
