"""Weak labels read off real-looking code; a standalone preamble must not decide the label."""

from __future__ import annotations

import pytest

from diagramforge.classifier.weak_labels import weak_label

PREAMBLE = r"""\documentclass[border=2pt]{standalone}
\usepackage{tikz}
\usepackage{pgfplots}\pgfplotsset{compat=1.18}
\usepackage{circuitikz}
\usepackage{forest}
"""


def tikz(body: str) -> dict:
    return {"format": "tikz", "code": PREAMBLE + "\\begin{document}\n" + body +
            "\n\\end{document}\n"}


def mx(cells: str) -> dict:
    code = (f'<mxGraphModel><root><mxCell id="0"/><mxCell id="1" parent="0"/>{cells}'
            '</root></mxGraphModel>')
    return {"format": "mxgraph", "code": code}


def vertex(i: int, style: str) -> str:
    return (f'<mxCell id="v{i}" value="n{i}" style="{style}" vertex="1" parent="1">'
            f'<mxGeometry x="{i * 100}" y="0" width="80" height="40" as="geometry"/></mxCell>')


EDGE = ('<mxCell id="e1" style="edgeStyle=orthogonalEdgeStyle;endArrow=classic;" edge="1" '
        'parent="1" source="v0" target="v1"><mxGeometry relative="1" as="geometry"/></mxCell>')

CASES = [
    (tikz(r"""\begin{tikzpicture}\begin{axis}[xlabel=$n$, ylabel=time]
\addplot coordinates {(1,2) (2,3) (3,5)};\end{axis}\end{tikzpicture}"""), "plot"),
    (tikz(r"\begin{tikzpicture}\begin{loglogaxis}\addplot{x^2};\end{loglogaxis}"
          r"\end{tikzpicture}"), "plot"),
    (tikz(r"""\begin{tikzcd} A \arrow[r, "f"] \arrow[d] & B \arrow[d, "g"] \\
C \arrow[r] & D \end{tikzcd}"""), "commutative_diagram"),
    (tikz(r"""\begin{circuitikz}\draw (0,0) to[V, l=$V_s$] (0,2) to[R=$R_1$] (2,2)
to[C] (2,0) -- (0,0);\end{circuitikz}"""), "circuit"),
    (tikz(r"\begin{tikzpicture}\draw (0,0) to[R, l=$R$] (2,0);\end{tikzpicture}"), "circuit"),
    (tikz(r"\begin{forest} [VP [V] [NP [D] [N]]] \end{forest}"), "tree"),
    (tikz(r"""\begin{tikzpicture}[level distance=12mm]
  \node {root} child { node {left} child { node {leaf} } } child { node {right} };
\end{tikzpicture}"""), "tree"),
    (tikz(r"""\begin{neuralnetwork}[height=4]
  \inputlayer[count=3, bias=false] \hiddenlayer[count=4] \linklayers
  \outputlayer[count=2] \linklayers \end{neuralnetwork}"""), "neural_network"),
    (tikz(r"""\begin{tikzpicture}[node distance=1.2cm]
  \node[block] (in) {Input $x$}; \node[block, right=of in] (enc) {Encoder};
  \node[block, right=of enc] (out) {Output};
  \draw[->] (in) -- (enc); \draw[->] (enc) -- (out);
\end{tikzpicture}"""), "graph"),
    (tikz(r"""\begin{tikzpicture}
  \node[state] (q0) {$q_0$}; \node[state, right of=q0] (q1) {$q_1$};
  \path[->] (q0) edge[bend left] node {1} (q1) (q1) edge[bend left] node {0} (q0);
\end{tikzpicture}"""), "graph"),
    # geometry, a Venn diagram, a commented-out axis: the code does not say -> unsure
    (tikz(r"\begin{tikzpicture}\draw (0,0) -- (2,0) -- (1,1.5) -- cycle;\end{tikzpicture}"),
     None),
    (tikz(r"""\begin{tikzpicture}
  \fill[red, opacity=.5] (0,0) circle (1); \fill[blue, opacity=.5] (1,0) circle (1);
  % \begin{axis} \addplot {x}; \end{axis}
  \node at (0.5,0) {$A\cap B$};
\end{tikzpicture}"""), None),
    (mx(vertex(0, "rounded=1;whiteSpace=wrap;") + vertex(1, "rhombus;whiteSpace=wrap;") + EDGE),
     "flowchart"),
    (mx(vertex(0, "rounded=1;") + vertex(1, "rounded=1;") + EDGE), "flowchart"),
    (mx(vertex(0, "ellipse;shape=cloud;whiteSpace=wrap;html=1;")
        + vertex(1, "shape=cylinder3;whiteSpace=wrap;boundedLbl=1;") + EDGE), "architecture"),
    (mx(vertex(0, "sketch=0;outlineConnect=0;shape=mxgraph.aws4.resourceIcon;"
                  "resIcon=mxgraph.aws4.lambda;") + vertex(1, "rhombus;") + EDGE),
     "architecture"),
    (mx(vertex(0, "shape=umlLifeline;perimeter=lifelinePerimeter;")
        + vertex(1, "shape=umlLifeline;") + EDGE), "uml"),
    (mx(vertex(0, "rounded=1;")), None),
    (mx(vertex(0, "text;") + vertex(1, "text;")), None),
    ({"format": "svg", "code": '<svg xmlns="http://www.w3.org/2000/svg"><!-- Created with '
      'matplotlib (https://matplotlib.org/) --><g id="axes_1"/></svg>'}, "plot"),
    ({"format": "svg", "code": '<svg xmlns="http://www.w3.org/2000/svg"><rect width="9" '
      'height="9"/></svg>'}, None),
    ({"format": "raster", "code": None}, None),
    ({"format": "tikz", "code": ""}, None),
]


@pytest.mark.parametrize(("record", "expected"), CASES)
def test_weak_label(record: dict, expected: str | None) -> None:
    assert weak_label(record) == expected


def test_preamble_packages_do_not_label_the_picture() -> None:
    """Every case above shares a preamble loading pgfplots, circuitikz and forest."""
    body = r"\begin{tikzpicture}\draw (0,0) rectangle (1,1);\end{tikzpicture}"
    assert "pgfplots" in tikz(body)["code"]
    assert weak_label(tikz(body)) is None
