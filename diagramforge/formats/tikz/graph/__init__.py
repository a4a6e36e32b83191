"""Structure graph of TikZ pictures: from the source where it resolves, from the page where not.

**Source** (:func:`tikz_source_graph`).  Statements are read in order, with scopes and
simple ``\\foreach`` loops expanded (literal lists, ``a/b`` pairs, ``1,...,n`` ranges):

* nodes: ``\\node[opts] (name) at (x,y) {text};``, ``\\node (name) [opts] {text}``, nodes
  inside paths (``(0,0) node (a) {A}``), ``\\matrix`` cells (``matrix of nodes`` cells are
  named ``m-r-c``; a plain matrix's own ``\\node`` statements are read), tree ``child``
  nodes.  A node's shape comes from its options (styles expanded).  Named coordinates are
  waypoints, never nodes.
* edges: consecutive points of a drawn path (``--``, ``to``, ``-|``, ``|-``, ``..``) that
  are nodes, with waypoints in between skipped (``(a) -- ++(1,0) |- (b)`` is one edge
  ``a→b``); every ``edge`` operation (from the current point, which it does not move);
  ``child`` links in trees.  A point is a node when it names one, with or without an anchor
  (``(a)``, ``(a.east)``, ``(a.30)``, ``(a.north east)``); ``(a -| b)``, ``($(a)!.5!(b)$)``
  and numbers are waypoints.  ``\\path`` without ``draw`` draws nothing (its ``edge``
  operations do).
* labels: a node between an operation and its target, or after a target with ``midway``/
  ``pos=``/``near …``/``sloped``, labels that segment; ``"quoted"`` labels in edge options.
* direction: arrow specs in the options of the picture, scopes, the statement and the
  operation, and in the styles they use (``every edge``, ``edge from parent``, user
  styles): ``->``, ``<-``, ``<->``, ``-latex``, ``-stealth``, ``-{Stealth[…]}``, ``>=…`` is
  only a tip choice.  A tip at the end only: forward; at the start only: backward; both or
  none (or dots and bars: ``*-*``, ``|-|``): undirected.

**Geometry** (:func:`pdf_graph`): text lines and drawn paths of the compiled page
(PyMuPDF), through the same rules as SVG (:mod:`diagramforge.graphs.geometry`).

**Merge** (:func:`merge_graphs`): the source graph is kept when it has edges and at least
``tikz_source_share`` of the edges the page shows; its nodes take their bbox from the page
nodes whose text matches.  Otherwise (macros, ``\\pgfmathsetmacro`` loops, packages drawing
for the author) the page graph serves alone.  When the source skipped statements it could
not read, page edges between two matched nodes that the source lacks are added.  The
source's edges with a free end (an arrow from a bare point: axes) count as edges: the graph
keeps them free (incomplete) rather than taking the page's reading of them.  Node texts are
then those typeset (:func:`typeset_texts`: the page's text lines in each node's box), so a
counter, a macro or math reads as the page shows it ("ball 1", not "ball").

The package, one purpose a module, in reading order: :mod:`.lexer` (comments, balanced
groups, statement ends, path tokens), :mod:`.text` (a node's LaTeX as read text),
:mod:`.options` (styles, arrows, shapes), :mod:`.statements` (a body as statements, scopes
and loops expanded), :mod:`.path_reader` (statements into nodes and edges),
:mod:`.layout` (node places from the source), :mod:`.tikzcd`, :mod:`.source` (the
document's pictures), :mod:`.page` (the compiled page's geometry) and :mod:`.merge`
(source and page together).  Compiling a picture is the format's business
(:func:`diagramforge.formats.tikz.texcompile.compile_tikz`).
"""

from diagramforge.formats.tikz.graph.lexer import read_balanced, split_top, strip_comments
from diagramforge.formats.tikz.graph.merge import (
    MergeReport,
    match_by_text_and_structure,
    merge_graphs,
    tikz_graph,
    tikz_graph_report,
    typeset_texts,
)
from diagramforge.formats.tikz.graph.page import page_primitives, pdf_graph, pdf_graphs, pdf_pages
from diagramforge.formats.tikz.graph.source import (
    combine,
    tikz_source_graph,
    tikz_source_graphs,
    tikz_source_layout,
)
from diagramforge.formats.tikz.graph.statements import SourceInfo
from diagramforge.formats.tikz.graph.text import SYMBOLS, latex_text
from diagramforge.formats.tikz.graph.tikzcd import tikzcd_graphs

__all__ = [
    "SYMBOLS", "MergeReport", "SourceInfo", "combine", "latex_text",
    "match_by_text_and_structure", "merge_graphs", "page_primitives", "pdf_graph", "pdf_graphs",
    "pdf_pages", "read_balanced", "split_top", "strip_comments", "tikz_graph",
    "tikz_graph_report", "tikz_source_graph", "tikz_source_graphs", "tikz_source_layout",
    "tikzcd_graphs", "typeset_texts",
]
