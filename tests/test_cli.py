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


# -- help generated from the registries, for users (issue 36) -------------------------------

def _help(*args: str, width: int = 80) -> str:
    res = runner.invoke(app, [*args, "--help"], env={"COLUMNS": str(width)})
    assert res.exit_code == 0, res.output
    return res.output


def _flat(text: str) -> str:
    """Help text without the panel borders and line breaks rich adds."""
    return " ".join(text.replace("│", " ").split())


def _commands() -> list[tuple[str, ...]]:
    """Every command path: top-level commands and each group's subcommands."""
    import typer

    from diagramforge.cli import app as top

    out: list[tuple[str, ...]] = []
    for c in top.registered_commands:
        out.append((c.name or c.callback.__name__.replace("_", "-"),))
    for g in top.registered_groups:
        out.append((g.name,))
        if isinstance(g.typer_instance, typer.Typer):
            out += [(g.name, c.name or c.callback.__name__.replace("_", "-"))
                    for c in g.typer_instance.registered_commands]
    return out


def test_top_level_help_names_every_registered_format_and_stage():
    """The formats and stages come from the registries: a format handler or a stage added
    without the help knowing fails here (read by importing them, not the way the help's
    own reader does)."""
    from diagramforge.formats.registry import handlers
    from diagramforge.pipeline import stage_classes

    head = _flat(_help(width=200).split("Options")[0])
    for fmt, cls in handlers().items():
        assert cls.title and cls.title in head, fmt
    stages = list(stage_classes())
    assert " → ".join(stages) in head
    assert "(TikZ, mxGraph, SVG)" not in head


def test_per_format_help_names_every_format():
    """extract, render and score handle every format with code; their help says so."""
    from diagramforge.formats.registry import handlers

    titles = [c.title for c in handlers().values() if c.has_code]
    for cmd in ("extract", "render", "score"):
        text = _flat(_help(cmd, width=200))
        missing = [t for t in titles if t not in text]
        assert not missing, (cmd, missing)


def test_no_internal_notes_or_cut_words_in_any_help():
    """User help holds no issue numbers or reST markup, and at 80 columns no option's
    text is cut off with an ellipsis (long unbreakable words were)."""
    import re

    paths = _commands()
    assert len(paths) > 20
    for path in paths:
        text = _help(*path)
        assert not re.search(r"\bissue \d+|:(mod|func|class|meth|attr):|``", text), path
        assert "…" not in text, (path, [ln for ln in text.splitlines() if "…" in ln])


def test_push_and_hub_push_say_when_to_use_each():
    push, stage = _flat(_help("push", width=200)), _flat(_help("hub-push", width=200))
    assert "hub-push" in push and "dvc repro" in push and "--dry-run" in push
    assert "diagramforge push" in stage and "publish.push" in stage
    assert push != stage


def test_a_failed_validation_exits_1_and_other_errors_propagate(tmp_path, monkeypatch):
    """The validate module (pandas) is no longer imported for every stage; its failure is
    still a clean exit 1 with the report's message, and any other error still raises."""
    import diagramforge.runner
    from diagramforge.cards.validate.stage import ValidationFailed

    good = tmp_path / "params.yaml"
    good.write_text("split:\n  seed: 7\n")

    def fails(stage, workers=None):  # noqa: ANN001, ANN202
        raise ValidationFailed("expect_column_values_to_be_unique: id")

    monkeypatch.setattr(diagramforge.runner, "run_stage", fails)
    res = runner.invoke(app, ["--params", str(good), "validate"])
    assert res.exit_code == 1 and "expect_column_values_to_be_unique" in res.output

    def breaks(stage, workers=None):  # noqa: ANN001, ANN202
        raise RuntimeError("accounting error")

    monkeypatch.setattr(diagramforge.runner, "run_stage", breaks)
    res = runner.invoke(app, ["--params", str(good), "validate"])
    assert isinstance(res.exception, RuntimeError) and "accounting" in str(res.exception)
