"""Size and structure extremes: render.raster's scale checks, element caps per format."""

from __future__ import annotations

import json

import pytest

from diagramforge.filters.filter.base import build
from diagramforge.filters.filter.extremes import parse_counts
from tests.conftest import make_params

CAPS = {"tikz": {"max_path_commands": 3},
        "mxgraph": {"max_nodes": 3, "max_edges": 1},
        "svg": {"max_path_commands": 6, "max_nodes": 2}}


def mx(vertices: int, edges: int) -> str:
    cells = "".join(f'<mxCell id="v{i}" vertex="1" parent="1"/>' for i in range(vertices))
    cells += "".join(f'<mxCell id="e{i}" edge="1" parent="1" source="v0" target="v1"/>'
                     for i in range(edges))
    return f'<mxGraphModel><root><mxCell id="0"/><mxCell id="1" parent="0"/>{cells}</root>' \
           "</mxGraphModel>"


def tikz(statements: int) -> str:
    body = "\n".join(f"\\draw ({i},0) -- ({i},1);" for i in range(statements))
    # the preamble's \node-like macros must not count: only the body is read
    return ("\\documentclass{standalone}\\usepackage{tikz}\\newcommand\\mynode{\\node}"
            f"\\begin{{document}}\\begin{{tikzpicture}}{body}\\end{{tikzpicture}}"
            "\\end{document}")


SVG = ('<svg xmlns="http://www.w3.org/2000/svg"><path d="M0 0 L10 10 L20 0 Z"/>'
       "<path d='m5 5 h10 v10'/><polyline points=\"0,0 1,1\"/></svg>")


def test_counts_from_code():
    assert parse_counts({"format": "mxgraph", "code": mx(4, 2)}) == {"nodes": 4, "edges": 2}
    assert parse_counts({"format": "tikz", "code": tikz(5)}) == {"path_commands": 5}
    assert parse_counts({"format": "svg", "code": SVG}) == {"path_commands": 8}


def test_graph_column_wins_over_the_parse():
    graph = json.dumps({"nodes": [{"id": str(i)} for i in range(7)],
                        "edges": [{"source": "0", "target": "1"}]})
    got = parse_counts({"format": "mxgraph", "code": mx(2, 0), "graph": graph})
    assert got == {"nodes": 7, "edges": 1}
    stats = parse_counts({"format": "mxgraph", "code": mx(2, 0), "graph": graph,
                          "graph_nodes": 9, "graph_edges": 4})
    assert stats == {"nodes": 9, "edges": 4}  # the stats columns, when filled, first
    bad = parse_counts({"format": "mxgraph", "code": mx(2, 0), "graph": "{not json"})
    assert bad == {"nodes": 2, "edges": 0}  # an unreadable graph falls back to the code


def _verdict(tmp_path, record, **section):
    params = make_params(tmp_path, filter={"extremes": {"caps": CAPS, **section}})
    return build("extremes", params)({"width": 200, "height": 100, **record})


@pytest.mark.parametrize(("record", "reason"), [
    ({"format": "mxgraph", "code": mx(3, 1)}, ""),
    ({"format": "mxgraph", "code": mx(4, 1)}, "too_many_nodes"),
    ({"format": "mxgraph", "code": mx(2, 2)}, "too_many_edges"),
    ({"format": "tikz", "code": tikz(3)}, ""),
    ({"format": "tikz", "code": tikz(4)}, "too_many_path_commands"),
    ({"format": "svg", "code": SVG}, "too_many_path_commands"),
    ({"format": "svg", "code": SVG, "graph": json.dumps({"nodes": [{}] * 3, "edges": []})},
     "too_many_nodes"),
    ({"format": "raster", "code": None}, ""),  # no caps for the format: only scale
])
def test_caps(tmp_path, record, reason):
    v = _verdict(tmp_path, record)
    assert (v.keep, v.reason) == (not reason, reason)


@pytest.mark.parametrize(("w", "h", "reason"), [
    (10, 100, "extreme_scale_small"),     # render.raster.min_side_px = 16
    (5000, 400, "extreme_scale_large"),   # max_side_px = 4096
    (2000, 100, "extreme_aspect"),        # max_aspect = 12
    (300, 200, ""),
])
def test_scale_and_aspect_follow_render_raster(tmp_path, w, h, reason):
    v = _verdict(tmp_path, {"format": "raster", "width": w, "height": h})
    assert (v.keep, v.reason) == (not reason, reason)
    off = _verdict(tmp_path, {"format": "raster", "width": w, "height": h}, check_scale=False)
    assert off.keep
