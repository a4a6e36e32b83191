from typer.testing import CliRunner

from diagramforge.cli import app

runner = CliRunner()


def test_help_lists_every_stage():
    out = runner.invoke(app, ["--help"]).output
    for stage in ("crawl", "extract", "render", "filter", "split", "validate", "publish",
                  "audit"):
        assert stage in out
    sub = runner.invoke(app, ["render", "--help"]).output
    assert "pdflatex" in sub


def test_bad_params_exit_2_naming_the_key(tmp_path):
    bad = tmp_path / "params.yaml"
    bad.write_text("render:\n  raster:\n    dpi: lots\n")
    res = runner.invoke(app, ["--params", str(bad), "check-params"])
    assert res.exit_code == 2
    assert "render.raster.dpi" in res.output


def test_a_missing_params_file_is_an_error_naming_file_and_directory(tmp_path, monkeypatch):
    """A mistyped -p, or a stage run outside a project, used to build with the defaults."""
    res = runner.invoke(app, ["--params", str(tmp_path / "nope.yaml"), "check-params"])
    assert res.exit_code == 2
    assert "nope.yaml not found" in res.output and str(tmp_path) in res.output
    monkeypatch.chdir(tmp_path)
    res = runner.invoke(app, ["crawl"])
    assert res.exit_code == 2
    assert "params.yaml not found" in res.output and "project directory" in res.output
    assert not (tmp_path / "data").exists()


def test_check_params_prints_effective_values(tmp_path):
    good = tmp_path / "params.yaml"
    good.write_text("split:\n  seed: 7\n")
    res = runner.invoke(app, ["--params", str(good), "check-params"])
    assert res.exit_code == 0 and "seed: 7" in res.output


def test_score_two_graph_files(tmp_path):
    import json

    ref = {"nodes": [{"id": "a", "text": "Start", "shape": "rect", "bbox": None},
                     {"id": "b", "text": "End", "shape": "rect", "bbox": None}],
           "edges": [{"source": "a", "target": "b", "label": "", "directed": True,
                      "unattached": []}]}
    pred = {"nodes": ref["nodes"][:1], "edges": []}
    (tmp_path / "ref.json").write_text(json.dumps(ref))
    (tmp_path / "pred.json").write_text(json.dumps(pred))
    res = runner.invoke(app, ["score", str(tmp_path / "pred.json"), str(tmp_path / "ref.json")])
    assert res.exit_code == 0, res.output
    scores = json.loads(res.output)
    assert scores["node_precision"] == 1.0 and scores["node_recall"] == 0.5
    assert scores["edge_recall"] == 0.0
