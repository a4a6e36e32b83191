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


def test_claims_by_name_and_content_say_why_not(tmp_path):
    from diagramforge.formats.registry import claim

    fmts = instantiate(make_params(tmp_path), lambda r: r["id"])
    cases = {
        ("flow.drawio", b"<mxfile/>"): "mxgraph",
        ("model.xml", b'<?xml version="1.0"?>\n<mxfile host="x"><diagram/></mxfile>'): "mxgraph",
        ("bare.xml", b"<mxGraphModel><root/></mxGraphModel>"): "mxgraph",
        ("pom.xml", b"<project><modelVersion>4</modelVersion></project>"): "not_a_diagram",
        ("a.drawio.svg", b"<svg/>"): "mxgraph",  # named as draw.io's: trusted
        ("icon.svg", b"<svg/>"): "svg",
        ("fig.tex", rb"\begin{tikzpicture}\draw (0,0)--(1,1);\end{tikzpicture}"): "tikz",
        ("cd.tex", rb"\begin{tikzcd} A \arrow[r] & B \end{tikzcd}"): "tikz",
        ("inline.tex", rb"see \tikz \draw (0,0) circle (1pt); here"): "tikz",
        ("style.tex", rb"\tikzset{every node/.style={draw}}"): "not_a_diagram",
        ("prose.tex", rb"\section{Intro} words"): "not_a_diagram",
        ("g.dot", b"digraph { a -> b }"): "dot",
        ("README.md", b"```mermaid\ngraph TD; A-->B\n```"): "mermaid",
        ("doc.md", b"```puml\nA -> B\n```\n```mermaid\ngraph TD; A-->B\n```"):
            "mermaid+plantuml",
        ("NOTES.md", b"# Notes\n\n```python\nprint(1)\n```"): "not_a_diagram",
        ("data.csv", b"a,b\n1,2\n"): "no_handler",
    }
    got = {}
    for (path, data), _ in cases.items():
        takers, why = claim(fmts, path, data)
        got[(path, data)] = "+".join(sorted(h.name for h in takers)) or why
    assert got == cases


def test_every_format_folder_is_named_as_its_format():
    """A stage finds a capability by the format's name (``formats/capabilities.of``) without
    importing the handler: that holds only while each folder is named as its format."""
    from diagramforge.formats import capabilities

    folders = {cls.__module__.split(".")[-2]: name for name, cls in handlers().items()}
    assert folders == {f: f for f in capabilities.folders()}
    assert capabilities.of("no-such-format", "evidence") is None
    assert capabilities.of("raster", "evidence") is None  # absent: pixels carry no code


def test_the_crawl_defaults_are_every_formats_sources_and_its_handler_claims_them():
    """``crawl.stack.subsets`` and ``crawl.repo_search.extensions`` default to what each
    format's ``sources`` capability lists (each once); an extension searched for is one
    its own handler claims, so what the search finds is crawled."""
    from diagramforge.config import parse_params
    from diagramforge.formats import capabilities

    crawl = parse_params({}).crawl
    sources = capabilities.every("sources")
    assert set(sources) == set(handlers()) - {"raster"}  # figures from PDFs: no files
    subsets = [x for m in sources.values() for x in m.STACK_SUBSETS]
    assert crawl.stack.subsets == list(dict.fromkeys(subsets))
    assert crawl.repo_search.extensions == [x for m in sources.values()
                                            for x in m.SEARCH_EXTENSIONS]
    for fmt, m in sources.items():
        for ext in m.SEARCH_EXTENSIONS:
            assert handlers()[fmt].claims(f"diagram.{ext}"), (fmt, ext)
