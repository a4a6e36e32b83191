import json

from diagramforge.cards.publish.audit import format_funnel, load_audit
from diagramforge.measure.stats import StageStats
from diagramforge.store.paths import metrics_path
from tests.conftest import make_params


def write(params, name, **kw):
    st = StageStats(stage=name, **kw)
    p = metrics_path(params, name)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(st.to_json()))


def test_missing_stages_are_reported(tmp_path):
    audit = load_audit(make_params(tmp_path))
    assert not audit.ok and "crawl: no metrics" in audit.errors[0]


def test_vanished_rows_are_caught(tmp_path):
    params = make_params(tmp_path)
    write(params, "crawl", n_in=3, n_out=3)
    write(params, "extract", expands=True, n_in=3, n_out=5, inputs_with_output=3)
    write(params, "render", n_in=5, n_out=4)  # one row neither kept nor rejected
    write(params, "filter", n_in=4, n_out=4)
    write(params, "split", n_in=4, n_out=4)
    audit = load_audit(params)
    assert not audit.ok
    assert any("render: 5 in but 4 out" in e for e in audit.errors)
    assert "BOOKS DO NOT BALANCE" in format_funnel(audit)


def test_the_funnel_states_each_format_s_execution_success_from_its_render_counters():
    """draw.io's Execution Success (VCG-Bench: valid and rendered, over every page given)
    is a line of the funnel, from the counters its folder names (its ``execution``
    capability); a render that was given no draw.io page prints none."""
    from diagramforge.cards.publish.audit import Audit

    render = StageStats(stage="render", n_in=10, n_out=8,
                        extra={"mxgraph_pages": 8, "mxgraph_valid": 7, "mxgraph_rendered": 6})
    text = format_funnel(Audit([render], [], 8))
    assert "mxGraph Execution Success (valid and rendered): 6/8 (75%)" in text
    bare = format_funnel(Audit([StageStats(stage="render", n_in=2, n_out=2)], [], 2))
    assert "Execution Success" not in bare
