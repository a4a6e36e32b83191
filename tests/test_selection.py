"""Per-config selection: keep lists and token windows decide what a config takes from the
pool, named per reason; nothing about it is a rejection."""

from __future__ import annotations

import pytest

from diagramforge import selection as select
from diagramforge.config import parse_params
from diagramforge.params import ParamsError
from diagramforge.selection import ConfigSelection, Selector, TokenWindow, Why, summary, why_not
from tests.conftest import make_params

SKETCH = ConfigSelection(types=["tree", "graph"], tokens={"svg": TokenWindow(min=2000,
                                                                              max=8000)})


@pytest.mark.parametrize(("row", "why"), [
    ({"format": "tikz", "diagram_type": "tree", "tokens": 300}, None),
    ({"format": "tikz", "diagram_type": "line_chart", "tokens": 300}, Why.TYPE),
    ({"format": "svg", "diagram_type": "graph", "tokens": 1999}, Why.TOKENS_BELOW),
    ({"format": "svg", "diagram_type": "graph", "tokens": 2000}, None),
    ({"format": "svg", "diagram_type": "graph", "tokens": 8000}, None),
    ({"format": "svg", "diagram_type": "graph", "tokens": 8001}, Why.TOKENS_ABOVE),
    # a format without a window is taken whole; no type / no count: no evidence to leave out
    ({"format": "mxgraph", "diagram_type": "graph", "tokens": 50_000}, None),
    ({"format": "svg", "diagram_type": None, "tokens": 3000}, None),
    ({"format": "svg", "diagram_type": "tree", "tokens": None}, None),
])
def test_why_not(row, why):
    assert why_not(SKETCH, row) == why


def test_take_all_takes_everything():
    assert why_not(ConfigSelection(), {"format": "svg", "diagram_type": "photo",
                                       "tokens": 10**6}) is None


def test_selector_counts_misses_per_config_and_reason(tmp_path):
    params = make_params(tmp_path, select={"sketch": SKETCH.model_dump()})
    sel = Selector(params)
    counts: dict[str, int] = {}
    rows = [{"format": "tikz", "diagram_type": "bar_chart", "tokens": 100},
            {"format": "tikz", "diagram_type": "line_chart", "tokens": 100},
            {"format": "svg", "diagram_type": "tree", "tokens": 100},
            {"format": "tikz", "diagram_type": "tree", "tokens": 100}]
    taken = [sel.takes("sketch", r, counts) for r in rows]
    assert taken == [False, False, False, True]
    assert counts == {"not_selected.sketch.type": 2, "not_selected.sketch.tokens_below": 1}
    # a config nobody configured takes the pool whole
    assert all(sel.takes("qa", r) for r in rows)


def test_unknown_config_names_fail_before_work(tmp_path):
    params = make_params(tmp_path, select={"sketchs": {"types": ["tree"]}})
    with pytest.raises(ValueError, match="no config named \\['sketchs'\\]"):
        Selector(params)
    # a per-format view shares generation's selection: it cannot have its own
    with pytest.raises(ValueError, match="views of 'generation'"):
        Selector(make_params(tmp_path, select={"tikz": {}}))


def test_known_configs_are_generation_and_every_task_config():
    known = select.known_configs()
    assert known[0] == "generation"
    assert {"sketch", "degraded", "variation", "repair", "captioning", "qa",
            "editing"} <= set(known)


def test_defaults_follow_the_seeds():
    p = parse_params({})
    assert p.select["sketch"].types == ["tree", "graph", "architecture_diagram",
                                        "neural_network", "venn_diagram"]
    for config in ("sketch", "captioning", "editing"):  # VectorGym's SVG tasks
        w = p.select[config].tokens["svg"]
        assert (w.min, w.max) == (2000, 8000)
    assert p.select["generation"] == ConfigSelection()  # plots and tables stay, labelled
    assert "mxgraph" not in p.select["editing"].tokens  # every VCG-Bench tier


def test_window_bounds_are_checked():
    with pytest.raises(ParamsError, match="select.sketch.tokens.svg"):
        parse_params({"select": {"sketch": {"tokens": {"svg": {"min": 9, "max": 3}}}}})
    with pytest.raises(ParamsError, match="unknown key"):
        parse_params({"select": {"sketch": {"kinds": ["tree"]}}})


def test_summary_counts_the_pool_per_config(tmp_path):
    params = make_params(tmp_path, select={"sketch": SKETCH.model_dump()})
    rows = [{"format": "tikz", "diagram_type": "tree", "tokens": 10},
            {"format": "tikz", "diagram_type": "bar_chart", "tokens": 10},
            {"format": "svg", "diagram_type": "graph", "tokens": 9000}]
    got = summary(rows, Selector(params), ["generation", "sketch"])
    assert got["generation"] == {"pool": 3, "selected": 3, "not_selected": {}}
    assert got["sketch"] == {"pool": 3, "selected": 1,
                             "not_selected": {"tokens_above": 1, "type": 1}}


def test_describe_for_the_card():
    assert select.describe(SKETCH) == ("tree, graph", "svg 2,000–8,000")
    assert select.describe(ConfigSelection()) == ("every type", "the pool's")


def test_a_keep_list_name_keeps_its_finer_kinds_and_typos_are_errors():
    """The classifier types by the most specific kind the code states (a flowchart is an
    architecture diagram, a commutative diagram a graph): a keep list of ACL-Fig parents
    must still take them, and a name outside the vocabulary must fail at load time."""
    rule = ConfigSelection(types=["architecture_diagram", "graph"])
    assert why_not(rule, {"format": "tikz", "diagram_type": "flowchart"}) is None
    assert why_not(rule, {"format": "tikz", "diagram_type": "commutative_diagram"}) is None
    assert why_not(rule, {"format": "tikz", "diagram_type": "bar_chart"}) == Why.TYPE
    with pytest.raises(ValueError, match="not a diagram type"):
        ConfigSelection(types=["plot"])
