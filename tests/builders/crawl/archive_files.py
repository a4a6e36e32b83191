"""Small real diagram files (and non-diagrams) that the code-archive tests put in archives
and repositories."""

DRAWIO = """<mxfile host="app.diagrams.net"><diagram name="Page-1" id="p1"><mxGraphModel dx="800"
dy="600" grid="1"><root><mxCell id="0"/><mxCell id="1" parent="0"/>
<mxCell id="2" value="{a}" style="rounded=1;whiteSpace=wrap;" vertex="1" parent="1">
<mxGeometry x="40" y="40" width="120" height="60" as="geometry"/></mxCell>
<mxCell id="3" value="{b}" style="ellipse;" vertex="1" parent="1">
<mxGeometry x="240" y="40" width="120" height="60" as="geometry"/></mxCell>
<mxCell id="4" edge="1" source="2" target="3" parent="1" style="endArrow=classic;">
<mxGeometry relative="1" as="geometry"/></mxCell></root></mxGraphModel></diagram></mxfile>
"""

SVG = """<svg xmlns="http://www.w3.org/2000/svg" width="220" height="100" viewBox="0 0 220 100">
<rect x="10" y="20" width="80" height="50" fill="#dae8fc" stroke="#000"/>
<text x="25" y="50" font-family="sans-serif" font-size="14">{a}</text>
<path d="M90 45 L130 45" stroke="#000" marker-end="url(#m)"/>
<rect x="130" y="20" width="80" height="50" fill="#d5e8d4" stroke="#000"/>
<text x="145" y="50" font-family="sans-serif" font-size="14">{b}</text></svg>
"""

TEX = r"""\documentclass{article}
\usepackage{tikz}
\begin{document}
\begin{tikzpicture}
  \node[draw, rounded corners] (a) at (0,0) {%s};
  \node[draw, circle] (b) at (3,0) {%s};
  \draw[->, thick] (a) -- (b);
\end{tikzpicture}
\end{document}
"""

POM = """<?xml version="1.0"?><project><modelVersion>4.0.0</modelVersion></project>"""
PLAIN_TEX = r"""\documentclass{article}\begin{document}Only words here.\end{document}"""
DOT = "digraph G { a -> b; b -> c; }\n"
MERMAID_MD = "# Flow\n\n```mermaid\ngraph TD; A-->B;\n```\n"


def drawio(a: str = "Start", b: str = "End") -> str:
    return DRAWIO.format(a=a, b=b)


def svg(a: str = "In", b: str = "Out") -> str:
    return SVG.format(a=a, b=b)


def tex(a: str = "Input", b: str = "Output") -> str:
    return TEX % (a, b)


def drawio_chain(labels: list[str]) -> str:
    """A draw.io page of boxes in a row joined by arrows (a different shape of diagram)."""
    cells = ['<mxCell id="0"/><mxCell id="1" parent="0"/>']
    for k, text in enumerate(labels):
        x, y = 40 + 170 * k, 60 + 30 * (k % 2)
        cells.append(f'<mxCell id="n{k}" value="{text}" style="shape=hexagon;fillColor=#ffe6cc;'
                     f'" vertex="1" parent="1"><mxGeometry x="{x}" y="{y}"'
                     f' width="130" height="70" as="geometry"/></mxCell>')
        if k:
            cells.append(f'<mxCell id="e{k}" edge="1" source="n{k - 1}" target="n{k}" parent="1" '
                         f'style="endArrow=block;dashed=1;"><mxGeometry relative="1" '
                         f'as="geometry"/></mxCell>')
    return (f'<mxfile><diagram name="chain" id="c"><mxGraphModel><root>{"".join(cells)}'
            f'</root></mxGraphModel></diagram></mxfile>\n')
