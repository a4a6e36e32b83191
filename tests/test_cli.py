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


def test_check_params_prints_effective_values(tmp_path):
    good = tmp_path / "params.yaml"
    good.write_text("split:\n  seed: 7\n")
    res = runner.invoke(app, ["--params", str(good), "check-params"])
    assert res.exit_code == 0 and "seed: 7" in res.output
