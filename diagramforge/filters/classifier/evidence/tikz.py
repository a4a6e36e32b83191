"""TikZ evidence: environments, package commands and drawing structure of the picture's body.

Only the document *body* is read: a paper's preamble loads pgfplots, circuitikz and tikz-cd
for all its pictures, so it says nothing about this one.  Rules run in order, most specific
first (a pgfplots axis inside a circuit paper is still a chart; a ``child`` tree drawn with
layer words is a neural network only if the tree rule did not fire first…), and the first
that fires decides.  Each is a regular expression or a small predicate over counted features,
named ``tikz.<name>`` in ``diagram_type_source``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from diagramforge.filters.classifier.evidence import tikz_shape
from diagramforge.filters.classifier.evidence.base import Evidence, matched
from diagramforge.formats.tikz.notation import split_document, strip_comments
from diagramforge.vocabulary import GRAPH_LIKE

R = re.compile

# -- charts: pgfplots and friends ------------------------------------------------------------
_AXIS = R(r"\\begin\{(?:semilogx|semilogy|loglog|polar|ternary|smithchart)?axis\}"
          r"|\\begin\{groupplot\}|\\addplot3?\b|\\nextgroupplot\b")
_PGFPLOTS_KINDS: list[tuple[str, str, re.Pattern[str]]] = [
    # a surface seen from straight above, or coloured square marks: pgfplots' heatmap idioms
    ("heatmap", "pgfplots_matrix",
     R(r"\bmatrix plot\b|\bview\s*=\s*\{\s*0\s*\}\s*\{\s*90\s*\}|"
       r"\bmark\s*=\s*square\*[^;]*?\bpoint meta\b|\bpoint meta\b[^;]*?\bmark\s*=\s*square\*")),
    ("surface_plot", "pgfplots_3d",
     R(r"\bsurf\b|\bmesh\b|\bpatch\b|\\addplot3\b(?![^;]*\bsamples y\s*=\s*0\b)")),
    ("box_plot", "pgfplots_boxplot", R(r"\bboxplot\b")),
    ("histogram", "pgfplots_hist", R(r"\bhist\s*[=/{,\]]|\bybar interval\b")),
    ("bar_chart", "pgfplots_bar", R(r"\b[xy]bar\b|\b[xy]comb\b")),
    ("pie_chart", "pgfplots_polar_pie", R(r"\\pie\b")),
    ("scatter_plot", "pgfplots_scatter", R(r"\bonly marks\b|\bscatter\b")),
]

_CIRCUIT_PARTS = (
    r"\bto\s*\[\s*(?:short|open|R|C|L|V|I|D|vR|cV|cI|"
    r"sV|battery1?|resistor|capacitor|inductor|vsource|isource|diode|lamp|switch|nos|ncs|"
    r"ammeter|voltmeter|european resistor|american resistor|generic|fuse|led|leD|"
    r"cute inductor|Do|sDo|zDo|pC|eC|spst)\s*[,\]=]|"
    r"node\s*\[\s*(?:op amp|fd op amp|ground|rground|sground|nmos|pmos|npn|pnp|nfet|pfet|"
    r"nigfete|pigfete|(?:american |european |ieee)?(?:and|or|not|xor|nand|nor|xnor) port|"
    r"transformer|vcc|vee|bulb)\b")
"""circuitikz's components: its bipoles drawn ``to[R]`` and its node shapes."""
_COMPONENT = R(_CIRCUIT_PARTS + r"|\bto\s*\[[^\]]*?(?:diode|resistor|capacitor|inductor|source|"
               r"battery|lamp|switch|fuse|meter|thyristor|triac|resistor|transistor)")
"""A component drawn: without one, a ``circuitikz`` environment is only a canvas (a
transformer's windings drawn line by line are an illustration, not a circuit)."""

# -- one package or environment says it all --------------------------------------------------
_PACKAGE_RULES: list[tuple[str | None, str, re.Pattern[str]]] = [
    ("commutative_diagram", "tikzcd",
     R(r"\\begin\{tikzcd\}|\\xymatrix\b|\\begin\{CD\}|\\begin\{codi\}|\\obj\s*\{")),
    ("feynman_diagram", "feynman",
     R(r"\\begin\{feynman\}|\\feynmandiagram\b|\\begin\{fmf(?:graph\*?|file)\}|"
       r"\\begin\{feynhand\}|\\propag\s*\[|\\diagram\*?\s*\{[^;]*\[\s*(?:anti\s+)?"
       r"(?:fermion|photon|gluon|scalar|boson|charged scalar|ghost)\b")),
    ("circuit", "circuitikz", R(r"\\begin\{circuitikz\}|\\ctikzset\b|" + _CIRCUIT_PARTS)),
    ("circuit", "circuit_library",
     R(r"\bcircuit (?:ee|logic)(?: IEC| US| CDH)?\b|\b(?:and|or|nand|nor|xor|xnor|not) gate\b"
       r"|\bresistor\s*=\s*\{|\bcapacitor\s*=\s*\{|\bbattery\s*=\s*\{")),
    ("circuit", "quantum_circuit",
     R(r"\\begin\{quantikz\}|\\Qcircuit\b|\\begin\{yquant\*?\}|\\qw\b|\\ctrl\{|\\targ\{")),
    ("circuit", "ladder_logic", R(r"\\begin\{ladder\}|\\(?:tikzladder|lad[A-Z]\w+)\b")),
    ("timing_diagram", "tikz_timing",
     R(r"\\texttiming\b|\\timing\s*(?:\[[^\]]*\])?\s*(?:at|with|\{)|"
       r"\\begin\{tikztimingtable\}|\\tikztiming\b|\\timingD\b")),
    ("gantt_chart", "pgfgantt", R(r"\\begin\{ganttchart\}")),
    ("pie_chart", "pie", R(r"\\pie\s*(?:\[[^\]]*\])?\s*\{|\\wheelchart\b")),
    ("line_chart", "datavisualization", R(r"\\datavisualization\b")),
    ("mind_map", "mindmap",
     R(r"\bmindmap\b|\[\s*concept\b|\bconcept color\b|"
       r"\\smartdiagram\s*\[\s*(?:bubble|constellation) diagram")),
    ("tree", "tree_package",
     R(r"\\begin\{forest\}|\\Tree\s*\[|\\begin\{genealogypicture\}|\\genealogytree\b|"
       r"\\binarytree\b|\\begin\{prooftree\}")),
    ("tree", "child", R(r"\bchild\s*(?:\[[^\]]*\]\s*)?\{|\bedge from parent\b|\bgrow\s*=")),
    ("nlp_grammar", "dependency", R(r"\\begin\{dependency\}|\\depedge\b|\\deproot\b")),
    ("neural_network", "nn_package",
     R(r"\\begin\{neuralnetwork\}|\\(?:input|hidden|output)layer\b|\\begin\{nndraw\}|"
       r"\{\s*(?:Box|RightBandedBox|Ball)\s*=\s*\{")),
    ("venn_diagram", "venndiagram", R(r"\\begin\{venndiagram[23]sets\}|\\begin\{venn\}")),
    ("uml", "uml_package",
     R(r"\\begin\{(?:sequencediagram|umlseqdiag|class|abstractclass|interface|object|"
       r"umlsystem|call|callself|messcall)\}|\\uml(?:class|simpleclass|abstract|interface|"
       r"state|actor|usecase|inherit|assoc|uniassoc|compo|aggreg|impl|dep|note|basiccomponent|"
       r"component|fpart|port|transition|statefinal|stateinitial|cpackage|package)\b|"
       r"\\newthread\b|\\newinst\b|\\(?:aggregation|composition|unidirectionalAssociation|"
       r"association|inherit|implement)\s*\{")),
    ("er_diagram", "er", R(r"node\s*\[\s*(?:entity|relationship|weak entity|key attribute)\b"
                           r"|\\begin\{orm\}|\\(?:entity|ormEntity)\b")),
    ("automaton", "automata",
     R(r"\[[^\]]*\bstate\b[^\]]*\b(?:initial|accepting)\b|"
       r"\[[^\]]*\b(?:initial|accepting)\b[^\]]*\bstate\b|\bstate with output\b")),
    ("chemical_structure", "chemfig",
     R(r"\\chemfig\b|\\schemestart\b|\\setchemfig\b|\\(?:glucose|fructose|ribose|"
       r"carbohydrate|chemname|lewis|Lewis)\b")),
    ("illustration", "orbitals", R(r"\\orbital\s*[\[{]|\\atom\s*\[|\\begin\{MOdiagram\}")),
    ("block_diagram", "block_package",
     R(r"\\sb(?:Entree|Bloc|Relier|Sortie|Comp|Noeud)\w*\b|\\bX(?:Input|Bloc|Link|Output|"
       r"Comp|Sum|Branchy?)\w*\b")),
    ("flowchart", "flowchart_styles",
     R(r"\\smartdiagram\s*\[\s*(?:flow|circular|descriptive|priority descriptive|sequence)"
       r" diagram|node\s*\[\s*(?:decision|startstop|predproc|storage)\b|"
       r"(?:\|\[|nodes\s*=\s*\{)\s*(?:decision|startstop|terminal)\b")),
    (None, "timeline",
     R(r"\\(?:timeline|addmilestone|initialphase)\b|\\begin\{chronology\}|\\chronoevent\b")),
    ("graph", "graph_package",
     R(r"\\(?:Vertex|Vertices|Edge|Edges|SetVertexStyle|SetGraphUnit|GraphInit|SetUpEdge|"
       r"SetVertexSimple)\b|\\gr[A-Z]\w+|\\graph\s*(?:\[[^\]]*\])?\s*\{")),
    ("graph", "bayesnet",
     R(r"\\(?:factor|plate|factoredge)\b|node\s*\[\s*(?:latent|obs|det|const)\s*[,\]]|"
       r"\\edge\s*(?:\[[^\]]*\])?\s*\{")),
    ("geometry", "geometry_package",
     R(r"\\tkz(?:Def|Draw|Mark|Label|Get|Init|Clip|Fill|Interx|Calc)\w*|\\tdplotsetmaincoords"
       r"|\btdplot_(?:main|rotated)_coords\b|\\tdplotdraw\w*|\\blochsphere\b|"
       r"\\begin\{blochsphere\}|\bpic\s*(?:\[[^\]]*\])?\s*\{\s*(?:right\s+)?angle\s*=|"
       r"canvas is [xyz]{2} plane")),
    ("table", "table_package",
     R(r"\\tkzTab\w*|\\begin\{NiceTabular\}|\\pgfplotstabletypeset\b|\\pgfPT\b|"
       r"\\DTLdisplay(?:long)?db\b")),
    ("bar_chart", "bchart", R(r"\\begin\{bchart\}|\\bcbar\b")),
]

# -- structure: what is drawn, counted -------------------------------------------------------
_ARROW = R(r"<->|->|<-|-\s*(?:latex|stealth|Stealth|Latex|To|Triangle|Kite|Straight Barb|"
           r"triangle \d+|angle \d+|>|\{\s*[A-Z][a-z]+)|\\arrow\b|\bedge\s*\[[^\]]*->")
_TEXT_NODE = R(r"node\b\s*(?:\([^)]*\))?\s*(?:\[[^\]]*\])?\s*(?:\([^)]*\))?\s*(?:at\s*\([^)]*\)"
               r"\s*)?\{[^{}]*[A-Za-z0-9][^{}]*\}")
_NAMED_EDGE = R(r"\(\s*[A-Za-z][\w.\- ]*\)\s*(?:--|->|edge\b|to\b|\|-|-\|)[^;(]*?"
                r"\(\s*[A-Za-z][\w.\- ]*\)")
_PLOT_OP = R(r"\bplot\s*(?:\[[^\]]*\]\s*)?(?:\(\s*\{?\s*\\[A-Za-z]+\b|\(\s*\{[^{}]*\\[A-Za-z]|"
             r"coordinates\b|"
             r"function\b|file\b)|\\tzfn\w*\b|\\tzplotcurve\b|\\psplot\b")
_AXIS_LABEL = R(r"node\s*(?:\[[^\]]*\])?\s*\{\s*\$?\s*(?:[xyzt]|[xy]_?\{?\d?\}?|f\s*\(\s*x\s*\)"
                r"|\\omega|\\varphi|\\theta)\s*\$?\s*\}")
_GRID = R(r"\bgrid\b\s*(?:\[[^\]]*\])?\s*\(|matrix of (?:math )?nodes")
_TABULAR = R(r"\\begin\{(?:tabular[x*]?|array|longtable)\}")
_MATRIX = R(r"\\matrix\b|matrix of (?:math )?nodes")
_CELL_SEP = R(r"(?<!\\)&|\\pgfmatrixnextcell")
_RASTER = R(r"\\includegraphics\b|\\pgfimage\b|\\pgfdeclareimage\b")
_LAYER_WORDS = R(r"\b(?:layers?|conv(?:olution(?:al)?)?\d*|pool(?:ing)?|max[- ]?pool|relu|"
                 r"softmax|lstm|gru|rnn|cnn|mlp|embedding|hidden|neurons?|perceptron|dense|"
                 r"fully[- ]connected|fc\d*|dropout|batch[- ]?norm|sigmoid|tanh|"
                 r"feature maps?|kernel|stride|attention|transformer|encoder|decoder)\b", re.I)
_FULLY_CONNECTED = R(r"\\foreach\s*\\(\w+)[^;]*?\\foreach\s*\\(\w+)[^;]*?\\(?:draw|path)[^;]*"
                     r"\(\s*([A-Za-z][\w-]*?)-?\\\1[^)]*\)\s*(?:--|edge|to)[^;]*"
                     r"\(\s*([A-Za-z][\w-]*?)-?\\\2[^)]*\)")
_CIRCLE = R(r"\bcircle\b")
_NODE_OPTIONS = R(r"node\b\s*(?:\([^)]*\)\s*|at\s*\([^)]*\)\s*)*\[([^\]]*)\]")
_SUM_NODE = R(r"node\b[^;{]*\{[^{}]*\\(?:Sigma|sum)\b")
_WEIGHT = R(r"\$\s*w_")
_NEURON_WORD = R(r"neuron", re.I)
"""A ``\\neuron`` macro or ``neuron`` style: the nodes the loops join are neurons."""
_VENN_FILL = R(r"\bfill opacity\b|\bopacity\s*=|\beven odd rule\b|\\clip\b[^;]*\bcircle\b|"
               r"\bblend (?:group|mode)\b")
_BOXY = R(r"\brectangle\b|\brounded corners\b|\bminimum (?:width|height)\b|\btext width\b|"
          r"\bblock\b|\bbox\b|\bprocess\b")
_ROUND = R(r"\bcircle\b|\bellipse\b|\bstate\b|\bvertex\b|\bshape\s*=\s*coordinate\b")
_DIAMOND = R(r"node\s*\[[^\]]*\bdiamond\b|\bshape\s*=\s*diamond\b")


@dataclass
class Body:
    """A picture's body with the counts the structural rules read."""

    text: str

    @cached_property
    def arrows(self) -> int:
        return len(_ARROW.findall(self.text))

    @cached_property
    def text_nodes(self) -> int:
        return len(_TEXT_NODE.findall(self.text))

    @cached_property
    def named_edges(self) -> int:
        return len(_NAMED_EDGE.findall(self.text))

    @cached_property
    def axis_labels(self) -> int:
        return len(_AXIS_LABEL.findall(self.text))


def _fully_connected(b: Body) -> bool:
    """Two nested ``\\foreach`` loops joining every node of one column to every node of the
    next (two name prefixes, ``(I-\\i) -- (H-\\j)``): the usual hand-drawn multilayer
    perceptron; one prefix joined to itself is a complete graph."""
    m = _FULLY_CONNECTED.search(b.text)
    return m is not None and m.group(3) != m.group(4) and (
        _CIRCLE.search(b.text) is not None or _NEURON_WORD.search(b.text) is not None)


def _layer_chain(b: Body) -> bool:
    """Nodes named or styled like layers (conv, pool, ReLU, LSTM, hidden…: a node's text or
    a style it is drawn in, ``node[conv-layer]``), joined by edges."""
    said = " ".join(_TEXT_NODE.findall(b.text) + _NODE_OPTIONS.findall(b.text))
    names = {m.lower() for m in _LAYER_WORDS.findall(said)}
    return len(names) >= 2 and (b.arrows + b.named_edges) >= 2


def _summing_unit(b: Body) -> bool:
    """A node that sums (``$\\Sigma$``, ``$\\sum$``) what arrives on edges weighted
    ``$w_i$``: the textbook picture of an artificial neuron, not a graph."""
    return _SUM_NODE.search(b.text) is not None and len(_WEIGHT.findall(b.text)) >= 2


_ARROW_DRAW = r"\\draw\s*\[[^\]]*(?:->|-\s*(?:latex|stealth|Stealth|Latex|to|>|\{))[^\]]*\]\s*"
_ARROW_X = R(_ARROW_DRAW + r"\(\s*[^,()]+,\s*0\s*\)\s*--\s*\(\s*[^,()]+,\s*0\s*\)")
_ARROW_Y = R(_ARROW_DRAW + r"\(\s*0\s*,[^()]+\)\s*--\s*\(\s*0\s*,[^()]+\)")
"""Arrows drawn along ``y = 0`` and ``x = 0``: axes drawn by hand (one alone is a number
line: a topology figure maps it onto a circle, no function is plotted)."""
_EXPR_PLOT = R(r"\bplot\s*(?:\[[^\]]*\]\s*)?\(\s*\\\w+\s*,\s*\{")
"""``plot (\\x, {f(\\x)})``: an expression's curve."""
_TICK_MARKS = R(r"\\draw\b[^;]*?\(\s*[^,()]+,\s*-?[\d.]*\s*pt\s*\)\s*--\s*"
                r"\(\s*[^,()]+,\s*-?[\d.]*\s*pt\s*\)\s*node")
"""A tick drawn across the x axis (``(x,3pt) -- (x,-3pt) node[below] {…}``)."""
_HIDDEN_AXIS = R(r"\bhide (?:x |y )?axis\b|\baxis lines?\s*=\s*none\b|"
                 r"\baxis x line\s*=\s*none\b[^\]]*\baxis y line\s*=\s*none\b")
"""A pgfplots axis that draws no axis."""
_NO_TICKS = R(r"\bticks\s*=\s*none\b")
_IN_AXIS = R(r"\\(?:draw|fill|filldraw)\b[^;]*\baxis cs\s*:")
_STROKE = R(r"\\(?:draw|fill|filldraw|path)\b")
"""An axis that plots nothing but is drawn in (``\\draw (a) -- (b) -- cycle`` between nodes
placed at ``axis cs``) is a canvas."""
_POINT_NODE = R(r"\\node\b[^;]*\baxis cs\s*:")


def _function_plot(b: Body) -> bool:
    """A ``plot`` of a function or coordinates on axes (labelled, or arrows drawn along
    ``x = 0`` and ``y = 0``): a chart drawn by hand."""
    if _EXPR_PLOT.search(b.text) and len(_TICK_MARKS.findall(b.text)) >= 3:
        return True  # f(\x) plotted over an axis marked with ticks (modes of a string)
    return _PLOT_OP.search(b.text) is not None and (
        b.axis_labels >= 1 or (_ARROW_X.search(b.text) is not None
                               and _ARROW_Y.search(b.text) is not None))


def _table(b: Body) -> bool:
    """A ``tabular`` or a matrix of text cells, with next to nothing else drawn."""
    cells = len(_CELL_SEP.findall(b.text))
    if cells < 2 or b.arrows or b.named_edges:
        return False
    return bool(_TABULAR.search(b.text)) or (
        bool(_MATRIX.search(b.text)) and not re.search(r"\\draw\b|\\path\b[^;]*--", b.text))


def _venn(b: Body) -> bool:
    """Two or more translucent or clipped circles, no arrows, no named-node edges."""
    return (len(_CIRCLE.findall(b.text)) >= 2 and _VENN_FILL.search(b.text) is not None
            and not b.arrows and not b.named_edges and not _PLOT_OP.search(b.text))


def _flowchart(b: Body) -> bool:
    """Decision diamonds among text boxes joined by arrows."""
    return _DIAMOND.search(b.text) is not None and b.arrows >= 2 and b.text_nodes >= 3


_BACKGROUND_GRID = R(r"\\draw\s*\[[^\]]*(?:gray|help lines|very thin|ultra thin|dotted)[^\]]*\]"
                     r"[^;]*?\bgrid\b\s*(?:\[[^\]]*\]\s*)?\(")
"""A grid drawn faintly (gray, ``help lines``, very thin, dotted): the squared paper under a
figure, not cells of a diagram."""


def _grid_with_arrows(b: Body) -> bool:
    """Grids or arrays of cells with arrows and labels (convolution windows, memory layouts,
    attention maps drawn by hand), no plotted data and no labelled axes: a diagram, but of
    no kind the code states (by eye: tables, networks' layers, memory layouts…)."""
    grids = len(_GRID.findall(b.text))
    if grids and grids == len(_BACKGROUND_GRID.findall(b.text)):
        return False  # only a coordinate grid behind a figure (gray, help lines)
    return (grids > 0 and b.arrows >= 1 and b.text_nodes >= 1
            and not _PLOT_OP.search(b.text) and not b.axis_labels)


def _node_link(b: Body) -> str | None:
    """Text nodes joined by edges: boxes make an architecture diagram, round nodes a graph."""
    if b.text_nodes < 2 or b.named_edges < 2:
        return None
    boxy, round_ = len(_BOXY.findall(b.text)), len(_ROUND.findall(b.text))
    return "architecture_diagram" if boxy > round_ else "graph"


_PARTICLE = R(r"\[[^\]]*\b(?:fermion|anti fermion|photon|gluon|boson|charged scalar|ghost|"
              r"majorana)\b[^\]]*\]")


def _particle_lines(b: Body) -> bool:
    """Two lines or more drawn in particle styles (``[fermion]``, ``[photon]``…) defined by the
    author or tikz-feynman: a Feynman diagram drawn with plain TikZ."""
    return len(_PARTICLE.findall(b.text)) >= 2


_STRUCTURE_RULES: list[tuple[str, str, Callable[[Body], bool]]] = [
    ("feynman_diagram", "particle_lines", _particle_lines),
    ("neural_network", "fully_connected", _fully_connected),
    ("neural_network", "layer_chain", _layer_chain),
    ("neural_network", "summing_unit", _summing_unit),
    ("function_plot", "function_plot", _function_plot),
    ("table", "tabular", _table),
    ("venn_diagram", "overlapping_circles", _venn),
    ("flowchart", "decision_diamonds", _flowchart),
]
"""Patterns of a picture's body that name a kind whatever its links."""

_ADDPLOT = R(r"\\addplot3?\+?")
_DATA = R(r"\s*(?:coordinates|table|file|graphics|fill\s+between)\b")
_FUNCTION = R(r"\s*(?:expression|gnuplot|shell)\b|\s*\(|\s*\{")
_NOT_GRAPH_LIKE = R(r"\\begin\{(?:sequencediagram|umlseqdiag)\}|\\newthread\b|\\newinst\b|"
                    r"\\begin\{(?:call|callself|messcall)\}|\{\s*(?:Box|RightBandedBox|Ball)"
                    r"\s*=\s*\{")
"""Package kinds whose picture is no node-link drawing: pgf-umlsd's sequence diagrams
(lifelines and messages in time order) and PlotNeuralNet's tensor blocks."""


def plotted(body: str) -> tuple[int, int]:
    """How many ``\\addplot`` draw an expression, and how many draw data (coordinates, a
    table, a file): ``\\addplot {x^2}`` and ``\\addplot (t, {sin(t)})`` are functions."""
    functions, data, _ = _plots(body)
    return functions, data


_SHAPE_PLOT = R(r"\bcycle\b")
_CLOSED = R(r"--\s*cycle\b")
"""A region closed by the path (``\\closedcycle`` is not: it fills an area chart down to the
axis)."""
_POINTS = R(r"\(\s*([^()]+?)\s*\)")
_FILLED = R(r"\bpattern\s*=|(?<!mark options=\{)\bfill\s*=|[\[,]\s*fill\s*[,\]]")
_MARKED = R(r"\bmark\s*=\s*(?!none\b)|\bonly marks\b")
_BARS = R(r"\b[xy]bar|\bhist\b|\bhistogram\b|\barea\b|\bstack(?:ed)?\b|\bconst plot\b")
"""Filled plots of a bar chart, a histogram or an area chart are data, whatever their fill."""


def _plots(body: str) -> tuple[int, int, int]:
    """Expressions, data and *shapes* among the ``\\addplot`` of ``body``: a shape is a closed
    region (``smooth cycle``, ``closed cycle``, a coordinate list ending where it began) or
    a single marked point — what a figure drawn in a coordinate plane plots.  A segment (two
    points) counts as neither."""
    functions = data = shapes = 0
    bars = _BARS.search(body) is not None
    for m in _ADDPLOT.finditer(body):
        i = m.end()
        while i < len(body) and body[i].isspace():
            i += 1
        opts = ""
        if i < len(body) and body[i] == "[":
            depth, start = 0, i
            while i < len(body):
                depth += {"[": 1, "]": -1}.get(body[i], 0)
                i += 1
                if depth == 0:
                    break
            opts = body[start:i]
        rest = body[i:i + 40]
        if _DATA.match(rest):
            stmt = body[i:body.find(";", i) if ";" in body[i:] else None]
            points = _POINTS.findall(stmt)
            if _CLOSED.search(stmt):
                opts += " cycle"
            if len(points) >= 3 and _FILLED.search(opts) and "closedcycle" not in stmt \
                    and not bars and not _MARKED.search(opts):
                opts += " cycle"  # a region filled or hatched: a shape, not an area chart
            if len(points) == 2 and not _SHAPE_PLOT.search(opts):
                continue  # a segment: a chart's two points or a figure's line, neither
            if _SHAPE_PLOT.search(opts) or (len(points) == 1 and "mark" in opts) or (
                    len(points) > 2 and points[0].replace(" ", "") ==
                    points[-1].replace(" ", "")):
                shapes += 1
            else:
                data += 1
        elif _FUNCTION.match(rest):
            functions += 1
    return functions, data, shapes


def _axis_canvas(b: Body) -> bool:
    """A pgfplots axis used as a canvas: it hides its axes or its ticks, or every plot is a
    shape (a region, a closed polyline, a point), and no plot is an expression — a figure in
    the plane (an open square, a neighbourhood), not a chart of values."""
    functions, data, shapes = _plots(b.text)
    if functions:
        return False
    hidden = _HIDDEN_AXIS.search(b.text) or _NO_TICKS.search(b.text)
    drawn = _IN_AXIS.search(b.text) is not None or (
        _ADDPLOT.search(b.text) is None and _STROKE.search(b.text) is not None)
    return not data and bool(hidden or shapes or drawn)


def body_of(code: str) -> str:
    """The document body (comments and verbatim blocks removed); the whole text without one."""
    text = strip_comments(code)
    parts = split_document(text)
    return parts[1] if parts else text


def _pgfplots(b: Body) -> Evidence:
    """An axis: a function plot when every plot draws an expression (even as bars: a Riemann
    sum is a function's picture), else the first pgfplots kind its plots name, else a line
    chart."""
    functions, data = plotted(b.text)
    for label, name, pattern in _PGFPLOTS_KINDS:
        line = matched(pattern, b.text)
        if line and not (functions and not data and label not in ("surface_plot", "heatmap")):
            return Evidence(label, f"tikz.{name}", line=line, graph_like=False)
    line = matched(_AXIS, b.text)
    if _ADDPLOT.search(b.text) is None and len(_POINT_NODE.findall(b.text)) >= 3:
        return Evidence("scatter_plot", "tikz.pgfplots_points",
                        line=matched(_POINT_NODE, b.text), graph_like=False)
    if functions and not data:
        return Evidence("function_plot", "tikz.pgfplots_expression",
                        line=f"{functions} \\addplot of expressions: {line}", graph_like=False)
    return Evidence("line_chart", "tikz.pgfplots_axis", line=line, graph_like=False)


def evidence(code: str) -> Evidence:
    """The first rule that fires on the body of ``code``; ``tikz.silent`` when none does
    (with the family ``diagram`` when it draws without axes or plotted data)."""
    b = Body(body_of(code))
    drawn = _RASTER.search(b.text) is None
    ev = _evidence(code, b)
    return Evidence(ev.label, ev.rule, drawn, ev.line, ev.family, ev.graph_like)


def _evidence(code: str, b: Body) -> Evidence:
    if _AXIS.search(b.text) and not _axis_canvas(b):
        return _pgfplots(b)
    for label, name, pattern in _PACKAGE_RULES:
        line = matched(pattern, b.text)
        if line and name == "circuitikz" and not _COMPONENT.search(b.text):
            continue  # circuitikz as a canvas: a transformer's windings drawn line by line
        if line and label == "geometry":
            cue = tikz_shape.physical(tikz_shape.read(code, b.text), b.text)
            if cue:
                return Evidence("illustration", f"tikz.{name}_physical", line=cue,
                                graph_like=False)
        if line and label is None:  # a kind with no name here: unknown, a diagram
            return Evidence(None, f"tikz.{name}", line=line, family="diagram",
                            graph_like=False)
        if line:
            plain = _NOT_GRAPH_LIKE.search(b.text) is None
            return Evidence(label, f"tikz.{name}", line=line,
                            graph_like=None if plain else False)
    for label, name, test in _STRUCTURE_RULES:
        if test(b):
            return Evidence(label, f"tikz.{name}", line=None,
                            graph_like=None if label in GRAPH_LIKE else False)
    shape = tikz_shape.read(code, b.text)
    if shape.node_link:
        label, name = tikz_shape.node_link_kind(shape, b.text)
        return Evidence(label, f"tikz.{name}", line=shape.summary(), graph_like=True)
    if _grid_with_arrows(b):
        return Evidence(None, "tikz.grid_with_arrows", line=matched(_GRID, b.text),
                        family="diagram", graph_like=False)
    if tikz_shape.drawing(shape) and not tikz_shape.chart_like(b.text):
        cue = tikz_shape.physical(shape, b.text)
        if cue:
            return Evidence("illustration", "tikz.physical_drawing", line=cue,
                            graph_like=False)
        return Evidence("geometry", "tikz.drawing", line=shape.summary(), graph_like=False)
    family = None if _PLOT_OP.search(b.text) or tikz_shape.chart_like(b.text) else "diagram"
    return Evidence(None, "tikz.silent", line=shape.summary(), family=family,
                    graph_like=False)
