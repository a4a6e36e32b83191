"""Diagram types read off the code, no model: the classifier's training labels.

A picture's code often says what it is: a pgfplots ``axis`` is a plot, ``tikzcd`` a
commutative diagram, ``circuitikz`` a circuit, ``child {`` a tree.  These labels are weak
(a rule, not a human), so every rule is conservative and anything ambiguous returns ``None``
and is simply not used for training.  For TikZ only the document *body* is read: a standalone
file's preamble loads pgfplots or circuitikz for every picture of its paper, not this one.
"""

from __future__ import annotations

import re

from diagramforge.formats.latex import split_document, strip_comments

_TIKZ_RULES: list[tuple[str, re.Pattern[str]]] = [
    ("plot", re.compile(r"\\begin\{(?:semilogx|semilogy|loglog|polar|ternary|smithchart)?axis\}"
                        r"|\\begin\{groupplot\}|\\addplot\b|\\datavisualization\b")),
    ("commutative_diagram", re.compile(r"\\begin\{tikzcd\}|\\xymatrix\b|\\begin\{CD\}")),
    ("circuit", re.compile(r"\\begin\{circuitikz\}|\bto\s*\[\s*(?:R|C|L|V|I|D|battery1?|"
                           r"resistor|capacitor|inductor|vsource|isource|diode|short)\s*[,\]=]")),
    ("neural_network", re.compile(r"\\begin\{neuralnetwork\}|\\(?:input|hidden|output)layer\b")),
    ("tree", re.compile(r"\\begin\{forest\}|\bchild\s*\{|\\Tree\s*\[|edge from parent")),
]

_TEXT_NODE = re.compile(r"\\node\b[^;]*?\{[^{}]*[A-Za-z0-9$][^{}]*\}")
_NAMED_EDGE = re.compile(r"\(\s*[A-Za-z][\w.\- ]*\)\s*(?:--|->|edge\b|to\b)[^;(]*?"
                         r"\(\s*[A-Za-z][\w.\- ]*\)")

_MX_STYLE = re.compile(r'\bstyle="([^"]*)"')
_MX_PROVIDER = re.compile(r"mxgraph\.(?:aws\w*|azure\w*|gcp\w*|cisco\w*|network\w*|kubernetes|"
                          r"ibm\w*|alibaba\w*|openstack|rack|citrix|veeam\w*|salesforce)|"
                          r"img/lib/(?:aws|azure|gcp|cisco|ibm|kubernetes|clip_art/networking)",
                          re.I)
_MX_INFRA = re.compile(r"shape=(?:cloud|cylinder\d?|datastore)\b|(?:^|;)cloud(?:;|$)")
_MX_UML = re.compile(r"umlLifeline|shape=umlActor|shape=umlFrame|shape=umlBoundary|"
                     r"childLayout=stackLayout|shape=module|shape=component")
_MX_FLOW = re.compile(r"(?:^|;)rhombus(?:;|$)|shape=process\b|mxgraph\.flowchart|"
                      r"(?:^|;)ellipse(?:;|$)|shape=parallelogram|shape=document\b")

_SVG_PLOT = re.compile(r"Created with matplotlib|<g id=\"axes_\d|class=\"(?:x|y)?tick\b|"
                       r"gnuplot|plotly|highcharts|class=\"(?:x|y)axis\b", re.I)


def tikz_label(code: str) -> str | None:
    """Label a TikZ/LaTeX picture by its body; ``graph`` for text nodes joined by edges."""
    text = strip_comments(code)
    parts = split_document(text)
    body = parts[1] if parts else text
    for label, pattern in _TIKZ_RULES:
        if pattern.search(body):
            return label
    if "\\graph" in body and re.search(r"\\graph\s*(\[[^\]]*\])?\s*\{", body):
        return "graph"
    if len(_TEXT_NODE.findall(body)) >= 2 and len(_NAMED_EDGE.findall(body)) >= 2:
        return "graph"
    return None


def mxgraph_label(code: str) -> str | None:
    """Cloud/network stencils → architecture, UML shapes → uml, other boxes+edges → flowchart."""
    styles = _MX_STYLE.findall(code)
    edges = len(re.findall(r'\bedge="1"', code))
    vertices = len(re.findall(r'\bvertex="1"', code))
    if vertices < 2:
        return None
    if any(_MX_PROVIDER.search(s) for s in styles):
        return "architecture"
    if any(_MX_UML.search(s) for s in styles):
        return "uml"
    infra = sum(1 for s in styles if _MX_INFRA.search(s))
    decisions = sum(1 for s in styles if re.search(r"(?:^|;)rhombus(?:;|$)", s))
    if infra and not decisions:
        return "architecture"
    if edges >= 1:
        return "flowchart"
    return None


def svg_label(code: str) -> str | None:
    """Only plotting-library output is recognisable in SVG; everything else is unsure."""
    return "plot" if _SVG_PLOT.search(code[:20000]) else None


def weak_label(record: dict) -> str | None:
    """The diagram type a record's code declares, or ``None`` when the code does not say."""
    code = record.get("code") or ""
    fmt = record.get("format")
    if not code:
        return None
    if fmt == "tikz":
        return tikz_label(code)
    if fmt == "mxgraph":
        return mxgraph_label(code)
    if fmt == "svg":
        return svg_label(code)
    return None
