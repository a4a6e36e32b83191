"""Graphviz DOT: files split into graphs as written, what reads files refused on the
engine's own parse, the real engine's layout read back as the structure graph."""

from __future__ import annotations

import shutil

import pytest

from diagramforge.formats.dot import engine as dot

pytestmark = pytest.mark.skipif(shutil.which("dot") is None,
                                reason="graphviz not installed (./dev setup installs it)")


def test_a_file_splits_into_its_graphs_whatever_the_braces_in_strings_and_comments():
    text = ('// a file with two graphs\n'
            'digraph A { a -> b [label="}"]; c [label=<<b>x{</b>>]; /* } */ }\n'
            '# 1 "preprocessor line {"\n'
            'strict graph "B" { x -- y }\n')
    assert dot.split_graphs(text) == [
        'digraph A { a -> b [label="}"]; c [label=<<b>x{</b>>]; /* } */ }',
        'strict graph "B" { x -- y }']
    assert dot.split_graphs("just text { }") == []


def test_html_strings_are_told_from_quoted_ones():
    assert dot.html_strings('digraph { a [label="<img src=x>"]; b [label=<<b>x</b>>] }') \
        == ["<<b>x</b>>"]


@pytest.mark.parametrize("code", [
    'digraph { a [image="/etc/passwd"] }',
    'digraph { a [shape=custom, shapefile="/etc/passwd"] }',
    'digraph { imagepath="/etc"; a }',
    'digraph { fontpath="/etc"; a }',
    'digraph { stylesheet="file:///etc/passwd"; a }',
    'digraph { node [image="/etc/hostname"]; a }',
    'digraph { b [label=<<TABLE><TR><TD><IMG SRC="/etc/hostname"/></TD></TR></TABLE>>] }',
])
def test_what_reads_files_is_refused(code):
    with pytest.raises(dot.DotError) as e:
        dot.check(code, dot.Caps())
    assert e.value.reason == dot.DotReason.UNSAFE


def test_a_quoted_label_that_mentions_an_image_is_just_text():
    doc = dot.check('digraph { a [label="<img src=x> hi"] }', dot.Caps())
    assert dot.structure_graph(doc).nodes[0].text == "<img src=x> hi"


def test_a_path_slipping_past_the_checks_is_still_not_read(tmp_path):
    """The engine runs in Graphviz's web-server mode: even unchecked, an image path outside
    the (empty) allowed directory is never opened, so nothing of it reaches the SVG."""
    secret = tmp_path / "secret.svg"
    secret.write_text('<svg xmlns="http://www.w3.org/2000/svg"><text>TOP SECRET</text></svg>')
    out = dot.run_dot(f'digraph {{ a [image="{secret}", label=""] }}', ("svg",))
    assert b"TOP SECRET" not in out["svg"] and str(secret).encode() not in out["svg"]


def test_caps_and_malformed_input():
    with pytest.raises(dot.DotError) as e:
        dot.check("digraph {" + "".join(f"n{i};" for i in range(30)) + "}",
                  dot.Caps(max_nodes=20))
    assert e.value.reason == dot.DotReason.TOO_LARGE
    with pytest.raises(dot.DotError) as e:
        dot.check("x" * 50, dot.Caps(max_bytes=10))
    assert e.value.reason == dot.DotReason.TOO_LARGE
    with pytest.raises(dot.DotError) as e:
        dot.check("digraph { a -> }", dot.Caps())
    assert e.value.reason == dot.DotReason.MALFORMED
    with pytest.raises(dot.DotError) as e:
        dot.check("digraph a { b } digraph c { d }", dot.Caps())
    assert e.value.reason == dot.DotReason.MALFORMED


def test_an_endless_layout_is_killed():
    big = "digraph {" + "".join(f"n{i} -> n{(i * 7) % 3000};" for i in range(3000)) + "}"
    with pytest.raises(dot.DotError) as e:
        dot.run_dot(big, ("json",), timeout_s=0.5)
    assert e.value.reason == dot.DotReason.TIMEOUT


def test_the_graph_is_what_graphviz_drew():
    g = dot.render('digraph { rankdir=LR; a [label="Load\\ndata", shape=box]; b; c; d;'
                   ' a -> b [label="yes"]; b -> c [dir=back]; c -> d [dir=both];'
                   ' d -> a [arrowhead=none]; subgraph cluster_x { label="Group"; c; d } '
                   ' subgraph cluster_y { b } }', dot.Caps()).graph
    nodes = {n.id: n for n in g.nodes}
    assert nodes["a"].text == "Load\ndata" and nodes["a"].shape == "rectangle"
    assert nodes["b"].text == "b"  # \N, the default label
    assert nodes["cluster:cluster_x"].text == "Group"
    assert nodes["cluster:cluster_x"].shape == "container"
    assert "cluster:cluster_y" not in nodes  # no label, no container node
    edges = [(e.source, e.target, e.directed, e.label) for e in g.edges]
    assert edges == [("a", "b", True, "yes"), ("c", "b", True, ""), ("c", "d", False, ""),
                     ("d", "a", False, "")]
    assert [e.both_heads for e in g.edges] == [False, False, True, False]  # dir=both
    # boxes in points, y down, inside the drawing
    x, y, w, h = nodes["a"].bbox
    assert w > 0 and h > 0 and x >= 0 and y >= 0


def test_undirected_graphs_have_undirected_edges():
    g = dot.render("graph { a -- b; b -- c [dir=forward] }", dot.Caps()).graph
    assert [(e.directed, e.source, e.target) for e in g.edges] == [(False, "a", "b"),
                                                                   (True, "b", "c")]
