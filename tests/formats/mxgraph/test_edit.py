"""The fourteen operations on mxGraph pages shaped like real ones (tests/fixtures/edits/mxgraph:
floating edge ends, swimlanes/containers/groups/ports, styles as draw.io writes them,
layers and object wrappers): every proposed edit verifies, and each class is handled the
way the page means it, not skipped."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from lxml import etree

from diagramforge.formats.edits import EditError, Op
from diagramforge.formats.mxgraph.edit import apply_edit, candidates
from diagramforge.formats.mxgraph.graph import mxgraph_graph
from diagramforge.formats.mxgraph.notation import cell_id, cells, parse_xml, validate
from diagramforge.formats.registry import instantiate
from diagramforge.store.records import empty_record, make_id
from diagramforge.synth.edit.pixels import changed_pixels
from diagramforge.synth.edit.sampler import FORMATS, compose, verify_step
from tests.conftest import needs_browser

FIX = Path(__file__).resolve().parent.parent.parent / "fixtures" / "edits" / "mxgraph"
PAGES = {p.name.removesuffix(".drawio.xml"): p.read_text() for p in sorted(FIX.glob("*.xml"))}
FE = FORMATS["mxgraph"]


def _cands(code: str, seed: int, op: str | None = None) -> list[dict]:
    return [c for c in candidates(code, random.Random(seed)) if op in (None, c["op"])]


def _one(code: str, op: str, target: str, seed: int = 0) -> dict:
    return next(c for c in _cands(code, seed, op) if c["target"]["id"] == target)


def _verified(code: str, ed: dict) -> str:
    after = apply_edit(code, ed)
    assert verify_step(FE, code, FE.graph(code), ed, after) is None, ed
    return after


def _cell(code: str, cid: str) -> etree._Element:
    return next(c for c in cells(parse_xml(code)) if cell_id(c) == cid)


@pytest.mark.parametrize("name", sorted(PAGES))
def test_every_proposed_edit_verifies(name: str) -> None:
    code = PAGES[name]
    before = FE.graph(code)
    for seed in range(4):
        for ed in _cands(code, seed):
            try:
                after = apply_edit(code, ed)
            except EditError:
                continue
            assert verify_step(FE, code, before, ed, after) is None, (ed, name)


def test_all_fourteen_operations_are_proposed_on_these_pages() -> None:
    seen = {c["op"] for code in PAGES.values() for c in _cands(code, 0)}
    assert seen == {str(o) for o in Op}


@pytest.mark.parametrize("name", sorted(PAGES))
def test_long_compositions_verify(name: str) -> None:
    for seed in range(6):
        res = compose(PAGES[name], "mxgraph", 6, random.Random(seed))
        assert res.ok, (seed, res.failed_op, res.reason, res.detail)


# -- floating edge ends ----------------------------------------------------------------
def test_an_unattached_end_is_not_a_missing_node() -> None:
    """e3 floats free at both ends: a diff of a graph with itself must be empty, and an
    edit elsewhere must not read e3 as broken."""
    code = PAGES["floating_ends"]
    assert _verified(code, _one(code, "node_text", "a"))


def test_a_moved_node_takes_its_floating_ends_along() -> None:
    code = PAGES["floating_ends"]
    ed = _one(code, "move_node", "a")
    after = _verified(code, ed)
    x, y, w, h = ed["params"]["bbox"]
    pt = _cell(after, "e1").find("mxGeometry/mxPoint[@as='sourcePoint']")
    assert x <= float(pt.get("x")) <= x + w and y <= float(pt.get("y")) <= y + h


def test_a_resized_node_keeps_an_end_beside_it() -> None:
    code = PAGES["floating_ends"]
    ed = _one(code, "node_size", "b")
    after = _verified(code, ed)
    x, y, w, h = ed["params"]["bbox"]
    pt = _cell(after, "e1").find("mxGeometry/mxPoint[@as='targetPoint']")
    assert float(pt.get("x")) == pytest.approx(x - 5) and y <= float(pt.get("y")) <= y + h


def test_deleting_a_node_deletes_the_edges_that_end_on_it_by_a_point() -> None:
    """e2 ends on Disk by its target point, inside Zone: left behind, it would fall
    through to Zone."""
    code = PAGES["floating_ends"]
    after = _verified(code, _one(code, "delete_node", "d"))
    ids = {cell_id(c) for c in cells(parse_xml(after))}
    assert "e2" not in ids and "e5" not in ids and "e1" in ids


def test_moves_and_new_nodes_never_land_on_a_loose_end() -> None:
    code = PAGES["floating_ends"]
    for seed in range(10):
        for ed in _cands(code, seed, "move_node") + _cands(code, seed, "add_node"):
            assert verify_step(FE, code, FE.graph(code), ed, apply_edit(code, ed)) is None


# -- containers, swimlanes, groups, ports ----------------------------------------------
def test_moving_a_swimlane_moves_what_it_holds() -> None:
    code = PAGES["containers"]
    ed = _one(code, "move_node", "pool")
    assert ed["params"]["carried"] == ["port", "t1", "t2"]
    after = _verified(code, ed)
    # children keep their geometry: it is relative to the lane
    assert _cell(after, "t1").find("mxGeometry").get("x") == "20"


def test_deleting_a_container_keeps_its_children_where_they_are() -> None:
    code = PAGES["containers"]
    after = _verified(code, _one(code, "delete_node", "pool"))
    t1 = _cell(after, "t1")
    g = t1.find("mxGeometry")
    assert t1.get("parent") == "1" and (g.get("x"), g.get("y")) == ("60", "100")
    # the edge drawn in the lane's coordinates is rewritten in the page's
    pt = _cell(after, "f1").find("mxGeometry/Array/mxPoint")
    assert (pt.get("x"), pt.get("y")) == ("240", "190")
    assert validate(parse_xml(after)) == []


def test_deleting_a_node_with_a_port_lifts_the_port_as_absolute_geometry() -> None:
    code = PAGES["containers"]
    after = _verified(code, _one(code, "delete_node", "t1"))
    g = _cell(after, "port").find("mxGeometry")
    assert g.get("relative") is None and (g.get("x"), g.get("y")) == ("135", "85")


def test_a_port_moves_by_its_offset() -> None:
    code = PAGES["containers"]
    _verified(code, _one(code, "move_node", "port"))


def test_groups_are_not_nodes_their_children_are() -> None:
    g = mxgraph_graph(PAGES["containers"])
    assert "grp" not in {n.id for n in g.nodes} and {"g1", "g2"} <= {n.id for n in g.nodes}


def test_edge_path_points_are_written_in_the_edges_parent_coordinates() -> None:
    code = PAGES["containers"]
    ed = _one(code, "edge_path", "f1")
    after = _verified(code, ed)
    pt = _cell(after, "f1").find("mxGeometry/Array/mxPoint")
    (x, y), = ed["params"]["points"]
    assert (float(pt.get("x")), float(pt.get("y"))) == (x - 40, y - 40)


# -- styles ----------------------------------------------------------------------------
def test_style_edits_keep_a_named_style_that_shares_a_key_name() -> None:
    code = PAGES["styles"]
    after = _verified(code, _one(code, "node_colour", "pc"))
    assert _cell(after, "pc").get("style").startswith("image;")


def test_style_edits_always_change_something() -> None:
    code = PAGES["styles"]
    for seed in range(20):
        for op in ("edge_style", "edge_arrow"):
            for ed in _cands(code, seed, op):
                cid = ed["target"]["id"]
                before = _cell(code, cid).get("style")
                assert _cell(apply_edit(code, ed), cid).get("style") != before, ed


def test_a_new_shape_on_a_text_box_is_drawn() -> None:
    """A text box has no stroke and no fill: its new shape gets draw.io's default stroke,
    else the edit changes nothing on the page."""
    code = PAGES["styles"].replace('style="rounded=1;whiteSpace=wrap;html=1;" vertex="1" '
                                   'parent="1">\n      <mxGeometry x="220"',
                                   'style="text;html=1;align=center;" vertex="1" '
                                   'parent="1">\n      <mxGeometry x="220"')
    assert "text;html=1;align=center;" in code
    after = _verified(code, {**_one(code, "node_shape", "api"), "params": {
        "node": "api", "shape": "ellipse"}})
    assert "strokeColor=#000000" in _cell(after, "api").get("style")
    framed = _verified(PAGES["styles"], _one(PAGES["styles"], "node_shape", "api"))
    assert "strokeColor" not in _cell(framed, "api").get("style")


def test_an_image_is_coloured_by_its_background() -> None:
    code = PAGES["styles"]
    ed = _one(code, "node_colour", "pc")
    after = _verified(code, ed)
    assert f"imageBackground={ed['params']['colour']}" in _cell(after, "pc").get("style")


def test_a_new_node_keeps_a_wide_page_from_becoming_a_strip() -> None:
    """The page is wider than tall: the new node goes below it, not to its right."""
    code = PAGES["floating_ends"]
    x, y, w, h = _cands(code, 0, "add_node")[0]["params"]["bbox"]
    assert y >= 480 and x <= 40


def test_a_backwards_edge_is_redirected_at_its_graph_target() -> None:
    """s3 is drawn db → api with its only arrow at the start: the graph reads api → db, so
    pointing it elsewhere moves the cell's *source*."""
    code = PAGES["styles"]
    ed = _one(code, "redirect_edge", "s3")
    after = _verified(code, ed)
    assert _cell(after, "s3").get("source") == ed["params"]["new_target"]


# -- layers, wrappers, edges on edges -------------------------------------------------
def test_new_cells_go_on_the_pages_first_layer() -> None:
    code = PAGES["layers_objects"]
    for op in ("add_node", "add_edge"):
        after = _verified(code, _one(code, op, _cands(code, 0, op)[0]["target"]["id"]))
        new = _cands(code, 0, op)[0]["target"]["id"]
        assert _cell(after, new).get("parent") == "bg-layer"


def test_placeholders_read_as_drawn() -> None:
    assert mxgraph_graph(PAGES["layers_objects"]).nodes[0].text == "Billing v2"


def test_deleting_an_edge_another_edge_starts_on_leaves_that_end_floating() -> None:
    code = PAGES["layers_objects"]
    after = _verified(code, _one(code, "delete_edge", "w1"))
    w2 = _cell(after, "w2")
    assert w2.get("source") is None and validate(parse_xml(after)) == []
    after = _verified(code, _one(code, "delete_node", "svc"))
    assert _cell(after, "w2").get("source") is None


# -- seen in the render ----------------------------------------------------------------
@pytest.mark.slow
@needs_browser
def test_shape_and_colour_edits_change_the_render(params) -> None:  # noqa: ANN001
    """A text box's new shape and an image's new colour are drawn: draw.io's render of
    the target differs from the source's (the edit stage keeps only such pairs)."""
    text_box = PAGES["styles"].replace('style="rounded=1;whiteSpace=wrap;html=1;" vertex="1" '
                                       'parent="1">\n      <mxGeometry x="220"',
                                       'style="text;html=1;strokeColor=none;fillColor=none;" '
                                       'vertex="1" parent="1">\n      <mxGeometry x="220"')
    edits = [(text_box, {"op": "node_shape", "target": {"id": "api", "text": "", "kind": "node"},
                         "params": {"node": "api", "shape": "hexagon"}}),
             (PAGES["styles"], {"op": "node_colour", "target": {"id": "pc", "text": "",
                                                                "kind": "node"},
                                "params": {"node": "pc", "colour": "#b85450"}})]
    handler = instantiate(params, lambda r: r["source_id"])["mxgraph"]
    try:
        for code, ed in edits:
            rows = [empty_record(id=make_id("mxgraph", c), format="mxgraph", code=c,
                                 split="train", source_id=f"t:{k}")
                    for k, c in enumerate((code, apply_edit(code, ed)))]
            out = handler.render(rows)
            assert len(out.records) == 2, out.rejections
            assert changed_pixels(out.records[0]["image"], out.records[1]["image"]) > 0, ed
    finally:
        handler.close()
