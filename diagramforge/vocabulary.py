"""The diagram-type vocabulary: ACL-Fig's 19 categories plus finer kinds, each finer kind
under its ACL-Fig parent.

ACL-Fig (Karishma et al., 2023, arXiv 2301.12293) is the label set of SKETikZ's classifier,
so a real ACL-Fig-trained checkpoint maps onto these names one to one (``ACL_FIG_NAMES``).
It has no class for circuits, Feynman or commutative diagrams, flowcharts, UML…, which code
states plainly and which dataset users ask for by name, so those are *extensions*: each says
which ACL-Fig category it refines (``parent``), so "keep graphs" can mean "graphs and every
finer kind of graph" (:func:`expand`).  Value names are stable: per-config keep lists and
published rows refer to them.

Every label also has a *family* — what kind of picture it is, for curation:

* ``diagram`` — drawn structure (trees, graphs, architectures, networks, circuits…),
* ``chart`` — numerical data (line, bar, scatter, pie…),
* ``table`` — a grid of text,
* ``text`` — typeset text shown as a figure (algorithms, word clouds),
* ``image`` — a photograph or a screenshot: no diagram of any kind.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum


class Family(StrEnum):
    DIAGRAM = "diagram"
    CHART = "chart"
    TABLE = "table"
    TEXT = "text"
    IMAGE = "image"


@dataclass(frozen=True)
class Kind:
    name: str
    family: Family
    parent: str | None = None
    """The ACL-Fig category an extension refines; ``None`` for an ACL-Fig category."""


_D, _C, _T, _X, _I = Family.DIAGRAM, Family.CHART, Family.TABLE, Family.TEXT, Family.IMAGE

ACL_FIG_NAMES: dict[str, str] = {
    "algorithm": "Algorithms",
    "architecture_diagram": "Architecture/Pipeline diagrams",
    "bar_chart": "Bar charts",
    "box_plot": "Box Plots",
    "confusion_matrix": "Confusion Matrix",
    "graph": "Graph",
    "line_chart": "Line Chart",
    "map": "Maps",
    "natural_image": "Natural Images",
    "neural_network": "Neural Networks",
    "nlp_grammar": "NLP rules/grammar",
    "pie_chart": "Pie chart",
    "scatter_plot": "Scatter Plot",
    "screenshot": "Screenshots",
    "table": "Tables",
    "tree": "Trees",
    "pareto_chart": "Pareto chart",
    "venn_diagram": "Venn Diagram",
    "word_cloud": "Word Cloud",
}
"""Our name → the name on ACL-Fig's dataset card (huggingface.co/datasets/citeseerx/ACL-fig):
a checkpoint trained on ACL-Fig maps its labels with ``filter.diagram_type.label_map``."""

KINDS: dict[str, Kind] = {k.name: k for k in (
    # ACL-Fig's 19
    Kind("algorithm", _X), Kind("architecture_diagram", _D), Kind("bar_chart", _C),
    Kind("box_plot", _C), Kind("confusion_matrix", _C), Kind("graph", _D),
    Kind("line_chart", _C), Kind("map", _D), Kind("natural_image", _I),
    Kind("neural_network", _D), Kind("nlp_grammar", _D), Kind("pie_chart", _C),
    Kind("scatter_plot", _C), Kind("screenshot", _I), Kind("table", _T), Kind("tree", _D),
    Kind("pareto_chart", _C), Kind("venn_diagram", _D), Kind("word_cloud", _X),
    # finer kinds the code states and ACL-Fig lacks
    Kind("flowchart", _D, "architecture_diagram"),
    Kind("uml", _D, "architecture_diagram"),
    Kind("bpmn", _D, "architecture_diagram"),
    Kind("er_diagram", _D, "architecture_diagram"),
    Kind("network_diagram", _D, "architecture_diagram"),
    Kind("circuit", _D, "architecture_diagram"),
    Kind("block_diagram", _D, "architecture_diagram"),
    Kind("commutative_diagram", _D, "graph"),
    Kind("feynman_diagram", _D, "graph"),
    Kind("automaton", _D, "graph"),
    Kind("chemical_structure", _D, "graph"),
    Kind("geometry", _D, "graph"),
    Kind("mind_map", _D, "tree"),
    Kind("wireframe", _D, "screenshot"),
    Kind("histogram", _C, "bar_chart"),
    Kind("gantt_chart", _C, "bar_chart"),
    Kind("surface_plot", _C, "line_chart"),
    Kind("function_plot", _C, "line_chart"),
    Kind("timing_diagram", _C, "line_chart"),
    Kind("heatmap", _C, "confusion_matrix"),
    Kind("illustration", _D, "graph"),
)}
"""Every label, by name.  ``geometry`` (figures of points, lines, angles, solids) sits under
``graph`` for want of an ACL-Fig illustration class; ``wireframe`` (a drawn UI mock-up) under
``screenshot``, though it is a diagram (its family).  ``illustration`` (a drawing of a
physical thing or scene: apparatus, devices, optics set-ups, bodies with forces — a third of a
real physics collection) sits beside ``geometry`` for the same want."""

LABELS: tuple[str, ...] = tuple(KINDS)
ACL_FIG: tuple[str, ...] = tuple(ACL_FIG_NAMES)
EXTENSIONS: dict[str, str] = {k.name: k.parent for k in KINDS.values() if k.parent}
"""Finer kind → its ACL-Fig parent."""

POOL_REJECT: tuple[str, ...] = ("natural_image", "screenshot")
"""What the diagram pool itself rejects: pictures that are no diagram of any kind.  Charts
and tables are kept and labelled; which configs keep them is the per-config keep lists'
business."""


GRAPH_LIKE: tuple[str, ...] = (
    "architecture_diagram", "block_diagram", "flowchart", "uml", "bpmn", "er_diagram",
    "network_diagram", "graph", "automaton", "commutative_diagram", "tree", "mind_map",
    "neural_network")
"""The kinds whose drawing *is* a structure graph — labelled boxes joined by connectors — so
the same diagram can be written in another diagram language from its nodes and edges (the
``translation`` config's twins, ``builders/twin/gate.py``).  Left out, though some sit under a
graph-like ACL-Fig parent: ``circuit`` (components on wires: the wires are the drawing, the
components no boxes), ``feynman_diagram`` (the particles are the lines, vertices unnamed),
``chemical_structure`` and ``geometry`` (bonds, angles and lengths carry the meaning),
``venn_diagram`` (regions, not links), ``map``, ``nlp_grammar`` (rules as text),
``wireframe``, and every chart, table, text and image kind."""


def graph_like(label: str) -> bool:
    """Whether a diagram of this kind is its structure graph (:data:`GRAPH_LIKE`)."""
    return kind(label).name in GRAPH_LIKE


def picture_graph_like(record: Mapping) -> bool:
    """Whether *this picture* is its structure graph: what every graph-grounded writer (QA
    about connections, edit referents, twins, evaluation references) asks before it writes.

    The ``diagram_type`` filter decides it per picture (``graph_like``): a UML sequence
    diagram or a row of tensor blocks is not, though its kind may be.  A record typed before
    that column existed falls back on its kind; an untyped one is not graph-like — an
    unknown picture gets no graph-grounded rows."""
    value = record.get("graph_like")
    if value is not None:
        return bool(value)
    label = record.get("diagram_type")
    return bool(label) and label in KINDS and graph_like(label)


def kind(label: str) -> Kind:
    """The :class:`Kind` of ``label``; a name outside the vocabulary is an error."""
    try:
        return KINDS[label]
    except KeyError:
        raise ValueError(f"{label!r} is not a diagram type; known: {', '.join(LABELS)}") \
            from None


def family(label: str) -> Family:
    return kind(label).family


def acl_fig(label: str) -> str:
    """The ACL-Fig category of ``label`` (itself, or the category it refines)."""
    return kind(label).parent or label


def expand(labels: list[str] | tuple[str, ...]) -> list[str]:
    """``labels`` plus every finer kind under them: ``["graph"]`` also keeps commutative
    and Feynman diagrams, automata…  Order: as given, then extensions in vocabulary order."""
    out = list(dict.fromkeys(kind(lab).name for lab in labels))
    out += [n for n, p in EXTENSIONS.items() if p in out and n not in out]
    return out


def of_family(fam: Family | str, labels: tuple[str, ...] = LABELS) -> list[str]:
    return [lab for lab in labels if KINDS[lab].family == fam]
