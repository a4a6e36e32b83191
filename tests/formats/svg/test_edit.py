"""The fourteen operations on SVG drawings shaped like real ones (tests/fixtures/edits/svg:
Graphviz's transformed groups, curved connectors with separate arrowheads and multi-text
labels; Inkscape's style attributes, tspan lines, stylesheet classes and symbols): the
elements behind each node and edge are the ones edited, and every edit verifies."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from lxml import etree

from diagramforge.formats.edits import EditError, Op
from diagramforge.formats.svg import document as svg
from diagramforge.formats.svg.edit import apply_edit, candidates, settle
from diagramforge.synth.edit.sampler import FORMATS, compose, verify_step

FIX = Path(__file__).resolve().parent.parent.parent / "fixtures" / "edits" / "svg"
PAGES = {p.stem: svg.clean(p.read_bytes()).code for p in sorted(FIX.glob("*.svg"))}
FE = FORMATS["svg"]
NS = {"s": "http://www.w3.org/2000/svg"}


def _cands(code: str, seed: int, op: str | None = None) -> list[dict]:
    return [c for c in candidates(code, random.Random(seed)) if op in (None, c["op"])]


def _node(code: str, text: str) -> str:
    return next(n.id for n in FE.graph(code).nodes if n.text == text)


def _one(code: str, op: str, **match: str) -> dict:
    return next(c for c in _cands(code, 0, op)
                if all(c["params"].get(k) == v for k, v in match.items()))


def _verified(code: str, ed: dict) -> etree._Element:
    after = apply_edit(code, ed)
    assert verify_step(FE, code, FE.graph(code), ed, after) is None, ed
    return etree.fromstring(after.encode())


@pytest.mark.parametrize("name", sorted(PAGES))
def test_every_proposed_edit_verifies(name: str) -> None:
    code = PAGES[name]
    before = FE.graph(code)
    for seed in range(3):
        for ed in _cands(code, seed):
            try:
                ed = settle(code, before, ed)
                after = apply_edit(code, ed)
            except EditError:
                continue
            assert verify_step(FE, code, before, ed, after) is None, (ed, name)


def test_all_fourteen_operations_are_proposed_on_these_drawings() -> None:
    seen = {c["op"] for code in PAGES.values() for c in _cands(code, 0)}
    assert seen == {str(o) for o in Op}


@pytest.mark.parametrize("name", sorted(PAGES))
def test_long_compositions_verify(name: str) -> None:
    for seed in range(4):
        res = compose(PAGES[name], "svg", 6, random.Random(seed))
        assert res.ok, (seed, res.failed_op, res.reason, res.detail)


# -- Graphviz: transformed groups, curved connectors, arrowhead polygons -----------------
def test_curved_connectors_in_a_transformed_group_are_edited() -> None:
    code = PAGES["graphviz_style"]
    ed = _one(code, "edge_colour", source=_node(code, "parse"))
    root = _verified(code, ed)
    edge = root.xpath("//s:g[@id='edge1']", namespaces=NS)[0]
    path, head = edge.find("s:path", NS), edge.find("s:polygon", NS)
    assert f"stroke:{ed['params']['colour']}" in path.get("style")
    assert f"fill:{ed['params']['colour']}" in head.get("style")


def test_moving_a_node_moves_its_connector_ends_and_arrowheads() -> None:
    code = PAGES["graphviz_style"]
    check = _node(code, "check\ntypes")
    ed = _one(code, "move_node", node=check)
    root = _verified(code, ed)
    dx = ed["params"]["bbox"][0] - ed["params"]["old_bbox"][0]
    dy = ed["params"]["bbox"][1] - ed["params"]["old_bbox"][1]
    # parse -> check ends on check: its arrowhead went along
    head = root.xpath("//s:g[@id='edge1']/s:polygon", namespaces=NS)[0]
    assert head.get("transform").startswith(f"translate({dx:.6g},{dy:.6g})")


def test_a_two_line_label_becomes_one() -> None:
    code = PAGES["graphviz_style"]
    check = _node(code, "check\ntypes")
    ed = settle(code, FE.graph(code), _one(code, "node_text", node=check))
    root = _verified(code, ed)
    texts = root.xpath("//s:g[@id='node2']/s:text", namespaces=NS)
    assert [t.text for t in texts] == [ed["params"]["text"]]


def test_arrows_come_and_go() -> None:
    code = PAGES["graphviz_style"]
    emit, link = _node(code, "emit"), _node(code, "link")
    root = _verified(code, _one(code, "edge_arrow", source=emit, target=link))
    path = root.xpath("//s:g[@id='edge4']/s:path", namespaces=NS)[0]
    assert "marker-end:url(#df-arrow)" in path.get("style")
    parse = _node(code, "parse")
    root = _verified(code, _one(code, "edge_arrow", source=parse))
    assert root.xpath("//s:g[@id='edge1']/s:polygon", namespaces=NS) == []


# -- Inkscape: style attributes, tspans, classes, symbols --------------------------------
def test_stroke_style_goes_where_it_wins() -> None:
    """``stroke-dasharray:none`` in the style attribute would beat a presentation
    attribute: the dash is written into the style."""
    code = PAGES["inkscape_style"]
    ed = _one(code, "edge_style", source=_node(code, "Sensor"), target=_node(code, "Filter"))
    root = _verified(code, ed)
    path = root.xpath("//s:path[starts-with(@d, 'M 60,40')]", namespaces=NS)[0]
    style = path.get("style")
    assert f"stroke-dasharray:{ed['params']['dash']}" in style and "dasharray:none" not in style


def test_a_class_painted_shape_is_recoloured_inline() -> None:
    code = PAGES["inkscape_style"]
    ed = _one(code, "node_colour", node=_node(code, "Filter"))
    root = _verified(code, ed)
    rect = root.xpath("//s:rect[@id='r2']", namespaces=NS)[0]
    assert f"fill:{ed['params']['colour']}" in rect.get("style")


def test_a_new_label_keeps_its_tspan_and_anchor() -> None:
    code = PAGES["inkscape_style"]
    ed = settle(code, FE.graph(code), _one(code, "node_text", node=_node(code, "Sensor")))
    root = _verified(code, ed)
    span = root.xpath("//s:tspan[@x='40']", namespaces=NS)[0]
    assert span.text == ed["params"]["text"] and "text-anchor:middle" in span.get("style")


def test_a_symbol_node_moves_as_its_use() -> None:
    code = PAGES["inkscape_style"]
    ed = settle(code, FE.graph(code), _one(code, "move_node", node=_node(code, "Store")))
    root = _verified(code, ed)
    assert root.xpath("//s:use", namespaces=NS)[0].get("transform", "").startswith(
        "translate(")
