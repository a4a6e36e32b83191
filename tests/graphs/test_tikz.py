from __future__ import annotations

from diagramforge.graphs.tikz import tikz_graph

SRC = r"""
\begin{tikzpicture}
\node[draw] (in) at (0,0) {Input \\ \textbf{image}};
\node[draw, right=of in] (enc) {Encoder};
\node (dec) [draw] at (4,0) {Decoder}; % (in) -- (dec) in a comment
\draw[->] (in) -- (enc) -- node[above] {$z$} (dec.west);
\draw[<-, thick] (in) to (dec);
\draw (enc) edge[->] (dec) edge (in);
\draw (0,0) -- (1,1);
\end{tikzpicture}
"""


def test_named_nodes_and_connections() -> None:
    g = tikz_graph(SRC)
    assert [(n.id, n.text) for n in g.nodes] == [("in", "Input\nimage"), ("enc", "Encoder"),
                                                 ("dec", "Decoder")]
    got = [(e.source, e.target, e.directed, e.label) for e in g.edges]
    assert got == [
        ("in", "enc", True, ""),     # chain: in -> enc
        ("enc", "dec", True, "z"),   # ... -> dec (anchor .west resolves), labelled
        ("dec", "in", True, ""),     # <- reverses
        ("enc", "dec", True, ""),    # edge[->] from enc
        ("enc", "in", False, ""),    # second edge still starts at enc, no arrow
    ]  # the comment and the coordinate-only line add nothing


def test_score_files_reads_tex_and_svg(tmp_path) -> None:  # noqa: ANN001
    from diagramforge.graphs.score import score_files

    (tmp_path / "a.tex").write_text(SRC)
    svg = ("<svg xmlns='http://www.w3.org/2000/svg'>"
           "<rect x='0' y='0' width='80' height='40'/><text x='5' y='20'>Encoder</text>"
           "<rect x='200' y='0' width='80' height='40'/><text x='205' y='20'>Decoder</text>"
           "<line x1='80' y1='20' x2='200' y2='20' marker-end='url(#m)'/></svg>")
    (tmp_path / "b.svg").write_text(svg)
    s = score_files(tmp_path / "b.svg", tmp_path / "a.tex")
    # pred: Encoder→Decoder; ref has 3 nodes and 5 edges, two of them enc→dec
    assert (s["node_tp"], s["node_pred"], s["node_ref"]) == (2, 2, 3)
    assert (s["edge_tp"], s["edge_pred"], s["edge_ref"]) == (1, 1, 5)
