from diagramforge.formats.registry import DiagramFormat, handlers, instantiate
from tests.conftest import make_params


def test_every_format_is_registered_and_claims_its_files():
    assert {"tikz", "mxgraph", "svg", "raster", "dot", "mermaid"} <= set(handlers())
    claims = {p: [n for n, h in handlers().items() if h.claims(p)]
              for p in ("a.drawio", "b.drawio.svg", "c.svg", "d.DRAWIO.PNG", "e.txt")}
    assert claims == {"a.drawio": ["mxgraph"], "b.drawio.svg": ["mxgraph"],
                      "c.svg": ["svg"], "d.DRAWIO.PNG": ["mxgraph"], "e.txt": []}


def test_handlers_are_instances_with_the_protocol(tmp_path):
    fmts = instantiate(make_params(tmp_path), lambda r: r["id"])
    assert all(isinstance(h, DiagramFormat) for h in fmts.values())
    assert fmts["tikz"].batch_size() == 16 and fmts["mxgraph"].unit_timeout() == 60.0
    empty = fmts["svg"].to_graph({"code": "<svg xmlns='http://www.w3.org/2000/svg'/>"})
    assert empty is not None and empty.nodes == [] and empty.edges == []
