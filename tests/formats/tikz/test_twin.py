"""TikZ's twin capability: as a writer, text set so the TikZ reader gives it back and boxes
sized from their text; as a source, fractions its reader cannot spell keep it out."""

from __future__ import annotations

import pytest

from diagramforge.builders.twin.compare import differences
from diagramforge.formats.grounding import INCOMPLETE
from diagramforge.formats.registry import instantiate
from diagramforge.formats.tikz.twin import source_check, write
from diagramforge.formats.twin_layout import WriteError
from diagramforge.graphs.model import Edge, Graph, Node
from tests.conftest import make_params, needs_tex
from tests.formats.twins import rendered_graph


@pytest.fixture(scope="module")
def tikz(tmp_path_factory):
    hs = instantiate(make_params(tmp_path_factory.mktemp("w")), lambda r: r["id"])
    yield hs["tikz"]
    for h in hs.values():
        h.close()


def test_a_character_pdflatex_has_no_glyph_for_is_refused_not_altered():
    with pytest.raises(WriteError) as e:  # no glyph in pdflatex's fonts, no math command
        write(Graph(nodes=[Node(id="a", text="日本")]))
    assert e.value.reason == "twin_text_unexpressible"


@needs_tex
def test_a_line_that_opens_with_a_bracket_is_text_in_tikz(tikz):
    """"JWTAuthenticator / [Structured Authn]": after a bare ``\\\\`` the bracket would
    open its optional length (PGF: "Unknown function `Structured'")."""
    g = Graph(nodes=[Node(id="a", text="JWTAuthenticator\n[Structured Authn]"),
                     Node(id="b", text="Issuer")],
              edges=[Edge(source="a", target="b", label="calls\n[every 5 min]")])
    twin, _ = rendered_graph(tikz, write(g))
    assert differences(g, twin) == []


@needs_tex
def test_a_wide_layout_twin_sizes_its_boxes_from_their_text(tikz):
    """A draw.io row far wider than a page: the TikZ twin keeps the text at its size and
    its boxes around it (scaling the picture to a page's width while the text kept its
    size set labels over their neighbours)."""
    from diagramforge.builders.twin.readable import image_width, measure

    steps = [f"Process step no. {k}" for k in range(24)]  # rows of 8, 1040 px wide
    row = Graph(nodes=[Node(id=f"s{k}", text=t, bbox=[k % 8 * 130, k // 8 * 60, 90, 30])
                       for k, t in enumerate(steps)],
                edges=[Edge(source=f"s{k}", target=f"s{k + 1}") for k in range(23)
                       if k % 8 != 7])  # along each row
    code = write(row)
    twin, rec = rendered_graph(tikz, code)
    assert differences(row, twin) == []
    svg = tikz.export_svg([rec])[0]
    reading = measure(svg, image_width(rec["image"]))
    assert reading.overlaps == [] and reading.smallest_px >= 15
    first = sorted(n.bbox for n in twin.nodes if n.text in steps[:8])  # apart, in order
    assert all(a[0] + a[2] <= b[0] for a, b in zip(first, first[1:], strict=False))


@pytest.mark.parametrize(("code", "refused"), [
    (r"\begin{tikzpicture}\node (a) {$\nicefrac{8}{10}$};\end{tikzpicture}", True),
    (r"\begin{tikzpicture}\node {$A~\frac{1}{3}$};\end{tikzpicture}", True),
    (r"\begin{tikzpicture}\node {$\binom{n}{k}$};\end{tikzpicture}", True),
    (r"\begin{tikzpicture}\node {$1/3$};\end{tikzpicture}", False),  # a slash is spelled
    ("\\begin{tikzpicture}\\node {A}; % \\frac in a comment\n\\end{tikzpicture}", False),
    (r"\frac{1}{2}\begin{document}\begin{tikzpicture}\node {A};\end{tikzpicture}", False),
])
def test_fractions_the_reader_cannot_spell_keep_a_source_out(code: str, refused: bool) -> None:
    v = source_check(code)
    assert (v is not None) == refused
    assert v is None or v.reason == INCOMPLETE
