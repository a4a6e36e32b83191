"""The ``diagramforge`` command: one subcommand per pipeline stage, plus small utilities.

``dvc repro`` calls these in order (see ``dvc.yaml``); each can also be run by hand.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from diagramforge.cards.evaluate.registry import help_text
from diagramforge.cards.evaluate.report import markdown, write
from diagramforge.cards.publish.audit import format_funnel, load_audit
from diagramforge.cards.publish.source_funnel import format_source_funnel, source_funnel
from diagramforge.cards.validate.empty import nothing_to_publish
from diagramforge.config import Params, load_params
from diagramforge.formats import capabilities
from diagramforge.formats.registry import format_titles
from diagramforge.params import ParamsError
from diagramforge.pipeline import (
    STAGES,
    defines,
    docstring,
    format_capability,
    funnel,
    is_mapped,
    load,
    stage_name,
)
from diagramforge.pipeline import dvc_yaml as generate
from diagramforge.store import atomic
from diagramforge.store.paths import stage_paths
from diagramforge.store.records import REJECTION_SCHEMA
from diagramforge.store.shards import ShardSet
from diagramforge.tools.lockdiff import Verdict, compare_files, report


def _top_help() -> str:
    """The top-level help, from the format and stage registries (read without importing
    any handler or stage: ``--help`` stays fast)."""
    code = format_titles(code_only=True)
    other = [t for k, t in format_titles().items() if k not in code]
    formats = ", ".join(code.values()) + (f"; also {', '.join(other)}" if other else "")
    stages = " → ".join(stage_name(s) for s in STAGES)
    return (f"Build and curate datasets of diagrams as code ({formats}).\n\n"
            f"Stages, in pipeline order: {stages}. `dvc repro` runs them all, each is also "
            "a command below; `diagramforge audit` shows the funnel.")


app = typer.Typer(help=_top_help(), no_args_is_help=True, pretty_exceptions_enable=False,
                  add_completion=False)
_state: dict[str, Path] = {"params": Path("params.yaml")}

ParamsOpt = Annotated[Path, typer.Option("--params", "-p", help="Path to params.yaml.")]
WorkersOpt = Annotated[int | None, typer.Option(help="Worker processes (default: params).")]
DryRunOpt = Annotated[bool, typer.Option(
    "--dry-run", help="Print the calls the stage would make and their estimated cost; "
    "send nothing, write nothing.")]


@app.callback()
def main(params: ParamsOpt = Path("params.yaml"),
         verbose: Annotated[bool, typer.Option(
             "--verbose", "-v", help="Log each step (INFO).")] = False) -> None:
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    _state["params"] = params


def _params() -> Params:
    try:
        return load_params(_state["params"])
    except ParamsError as exc:
        typer.secho(str(exc), fg="red", err=True)
        raise typer.Exit(2) from None


def _report(name: str, stats) -> None:  # noqa: ANN001 - StageStats
    reasons = ", ".join(f"{k}={v}" for k, v in sorted(stats.by_reason.items()))
    typer.echo(f"{name}: in={stats.n_in} out={stats.n_out} rejected={stats.n_rejected}"
               f"{' (' + reasons + ')' if reasons else ''} in {stats.seconds:.2f}s")


def _stage_command(name: str, spec: str, mapped: bool) -> None:
    """Register ``diagramforge <name>`` for a stage declared in ``pipeline.STAGES``.

    The help text is the stage class's docstring; the class is imported only when the
    command runs, so ``--help`` stays fast."""
    def run_it(workers: int | None = None, dry_run: bool = False) -> None:
        # lazy: loads distributed
        from diagramforge.runner import run_stage

        stage = load(spec)(_params())
        if dry_run:  # what the stage would do and cost; nothing is sent or written
            import json

            typer.echo(json.dumps(stage.dry_run(), indent=2, sort_keys=True))
            return
        try:
            _report(name, run_stage(stage, workers=workers))
            if name in ("validate", "publish"):
                why = nothing_to_publish(stage.params)
                if why is not None:  # an empty source: said plainly, not an error
                    typer.echo(f"0 rows to publish: {why}")
        except RuntimeError as exc:
            # only validate raises it: its module (pandas) is not imported for every stage,
            # whose forked workers would each carry it
            validate = sys.modules.get("diagramforge.cards.validate.stage")
            if validate is None or not isinstance(exc, validate.ValidationFailed):
                raise
            typer.secho(str(exc), fg="red", err=True)
            raise typer.Exit(1) from None

    if mapped:
        def command(workers: WorkersOpt = None) -> None:
            run_it(workers)
    elif defines(spec, "dry_run"):
        def command(dry_run: DryRunOpt = False) -> None:
            run_it(dry_run=dry_run)
    else:
        def command() -> None:
            run_it()
    command.__doc__ = docstring(spec) + _formats_line(spec)
    app.command(name=name)(command)


def _formats_line(spec: str) -> str:
    """The formats a stage takes (its ``format_capability``: every format for extract and
    render, those with an ``edit.py`` for edit…), from the folders, without importing a
    handler: a format added as a folder is in the help with no line written for it."""
    cap = format_capability(spec)
    if cap is None:
        return ""
    return _formats_with(cap)


def _formats_with(capability: str) -> str:
    """`` Formats: …`` — the titles of the formats whose folder holds ``capability``
    (``handler``: every format), found by the file, without importing it."""
    titles = [t for n, t in format_titles().items() if capabilities.has(n, capability)]
    return " Formats: " + ", ".join(titles) + "."


def _register_stages() -> None:
    for spec in STAGES:
        _stage_command(stage_name(spec), spec, is_mapped(spec))


_register_stages()

classifier_app = typer.Typer(help="The diagram-type classifier (the diagram_type filter's "
                             "default checkpoint).", no_args_is_help=True)
app.add_typer(classifier_app, name="classifier")


@classifier_app.command(name="train")
def classifier_train() -> None:
    """Train the diagram-type classifier: `diagramforge classifier-train`, the DVC stage."""
    # lazy: loads matplotlib, skimage, torch, transformers
    from diagramforge.filters.classifier.stage import ClassifierTrainStage

    # lazy: loads distributed
    from diagramforge.runner import run_stage

    _report(ClassifierTrainStage.name, run_stage(ClassifierTrainStage(_params())))


audit_app = typer.Typer(no_args_is_help=False, pretty_exceptions_enable=False)
app.add_typer(audit_app, name="audit")


@audit_app.callback(invoke_without_command=True)
def audit(
    ctx: typer.Context,
    reason: Annotated[str | None, typer.Option(help="List the rejections with this reason.")]
    = None,
    limit: Annotated[int, typer.Option(help="Rows to list with --reason.")] = 20,
) -> None:
    """Print the funnel: per stage, in / out / rejected per reason, and check that every
    input was kept or rejected with a reason.  Exits 1 if the books do not balance.
    `diagramforge audit licences` audits the published licences instead."""
    if ctx.invoked_subcommand:
        return

    p = _params()
    a = load_audit(p)
    typer.echo(format_funnel(a))
    typer.echo("\n" + format_source_funnel(source_funnel(p)))
    if reason:
        for name in funnel():
            t = ShardSet(stage_paths(p, name).rejections, REJECTION_SCHEMA).read_all()
            for r in t.to_pylist():
                if r["reason"] == reason and limit > 0:
                    typer.echo(f"  [{name}] {r['locator']}: {r['detail']}")
                    limit -= 1
    if not a.ok:
        raise typer.Exit(1)


from diagramforge.commands import register as _register_cards  # noqa: E402

_register_cards(app, audit_app, _params)


def _score_help(fn: Callable) -> Callable:
    """``score``'s help with the formats whose folder reads a file's graph (a
    ``file_graph.py``; found without importing it)."""
    fn.__doc__ = (fn.__doc__ or "") + _formats_with("file_graph")
    return fn


@app.command()
@_score_help
def score(pred: Annotated[Path, typer.Argument(help="Predicted graph JSON or diagram file.")],
          ref: Annotated[Path, typer.Argument(help="Reference graph JSON or diagram file.")],
          threshold: Annotated[float | None, typer.Option(
              help="Text similarity a node pair must exceed to match, for every metric "
              "(default: evaluate.scores in params.yaml, 0.8).")] = None,
          compile_tikz: Annotated[bool, typer.Option(
              help="Also compile TikZ files and read the page's geometry.")] = False,
          ) -> None:
    """Score a predicted diagram against a reference: node, edge and path alignment
    (DiagramEval) and SciFlow-Bench's node/edge precision, recall and F1, with nodes matched
    one-to-one. Either side may be graph JSON, a compiled page (PDF) or a diagram file of a
    format that reads one (told by its name, else its content). Prints the scores as
    JSON."""
    import json

    # lazy: loads scipy
    from diagramforge.tools.graph_files import score_files

    try:
        row = score_files(pred, ref, threshold=threshold, params=_params(),
                          compile_tikz=compile_tikz)
    except (ValueError, OSError) as exc:
        typer.secho(str(exc), fg="red", err=True)
        raise typer.Exit(2) from None
    typer.echo(json.dumps(row, indent=2, sort_keys=True))


def _evaluate_help() -> str:
    return ("Score a model's outputs on a published config and split with the seeds' "
            "metrics, computed by code; writes results.json and results.md (means over all "
            "items and over executed items). Code outputs are compiled and rendered in the "
            "pipeline's sandbox; a bad row or output is that item's zero with a reason, "
            "never the run's end. --judge adds the model-judged metrics in their own "
            "table.\n\nConfigs and their metrics:\n\n" + help_text())


@app.command(help=_evaluate_help())
def evaluate(
        predictions: Annotated[Path, typer.Argument(
            help="JSON lines (or a JSON array, or Parquet): `id` and `prediction` (or "
            "`output`) per item.")],
        config: Annotated[str, typer.Option(
            help="Published config to score (listed above).")],
        split: Annotated[str, typer.Option(help="train, validation or test.")] = "test",
        published: Annotated[Path | None, typer.Option(
            help="The published dataset directory (default: publish.out_dir / "
            "publish.name of params.yaml).")
        ] = None,
        out: Annotated[Path | None, typer.Option(
            help="Where results.json and results.md go (default: next to PREDICTIONS).")
        ] = None,
        judge: Annotated[bool | None, typer.Option(
            "--judge/--no-judge", help="Add the model-judged metrics (decomposed "
            "requirements, style consistency) through the LLM of evaluate.judge "
            "(default: evaluate.judge.enabled).")] = None,
        judge_dry_run: Annotated[bool, typer.Option(
            "--judge-dry-run", help="Write the judge's exact requests to "
            "judge-requests.jsonl in the output dir with their estimated cost; send "
            "nothing.")] = False) -> None:
    # lazy: loads datasets
    from diagramforge.cards.evaluate.inputs import InputError

    # lazy: loads datasets, google, openai, tiktoken, torch, transformers
    from diagramforge.cards.evaluate.run import evaluate as run_evaluate

    out_dir = out or predictions.with_name(f"{predictions.stem}.eval-{config}-{split}")
    requests = None
    if judge_dry_run:
        # lazy: loads datasets, google, openai, tiktoken
        from diagramforge.cards.evaluate.judge import REQUESTS_FILE

        out_dir.mkdir(parents=True, exist_ok=True)
        requests = out_dir / REQUESTS_FILE
    try:
        result = run_evaluate(_params(), predictions, config, split, published, judge=judge,
                              judge_requests=requests)
    except (InputError, OSError) as exc:
        typer.secho(str(exc), fg="red", err=True)
        raise typer.Exit(2) from None
    js, md = write(result, out_dir)
    typer.echo(markdown(result))
    typer.echo(f"wrote {js} and {md}")


@app.command(name="dvc-yaml")
def dvc_yaml(check: Annotated[bool, typer.Option(
        help="Exit 1 if dvc.yaml differs from the stage declarations.")] = False) -> None:
    """Write dvc.yaml from the stage declarations (diagramforge/pipeline.py)."""
    text = generate()
    path = Path("dvc.yaml")
    if check:
        if not path.exists() or path.read_text() != text:
            typer.secho("dvc.yaml is out of date: run `diagramforge dvc-yaml`", fg="red",
                        err=True)
            raise typer.Exit(1)
        typer.echo("dvc.yaml matches the stage declarations")
        return

    atomic.write_text(path, text)
    typer.echo(f"wrote {path}")


for _commands in capabilities.every("command").values():
    _commands.register(app)  # a format's own commands (formats/<name>/command.py)


@app.command(name="lock-diff")
def lock_diff(
        other: Annotated[Path, typer.Argument(help="The dvc.lock of another run or clone.")],
        against: Annotated[Path, typer.Option(help="The lock to compare with.")] = Path(
            "dvc.lock")) -> None:
    """Compare two dvc.lock files stage by stage: a stage with the same inputs must have the
    same data/ outputs (exit 1 if not); a stage whose inputs changed is reported stale."""
    diffs = compare_files(against, other)
    typer.echo(report(diffs))
    if any(d.verdict == Verdict.DIFFERS for d in diffs):
        raise typer.Exit(1)


@app.command(name="check-params")
def check_params() -> None:
    """Validate params.yaml and print the effective values (defaults filled in)."""
    import yaml

    typer.echo(yaml.safe_dump(_params().model_dump(by_alias=True), sort_keys=False))


def user_text(text: str) -> str:
    """A docstring as help: paragraphs kept, lines within one joined (the terminal wraps
    them), reST literals (````x````) shown as `x`."""
    import inspect
    import re

    paras = [" ".join(p.split()) for p in re.split(r"\n\s*\n", inspect.cleandoc(text))
             if p.strip()]
    return re.sub(r"``([^`]+)``", r"`\1`", "\n\n".join(paras))


def _tidy_help(t: typer.Typer) -> None:
    """Every command's and group's help through :func:`user_text`, once all are
    registered."""
    for c in t.registered_commands:
        doc = c.help or (c.callback.__doc__ if c.callback else None)
        if doc:
            c.help = user_text(doc)
    infos = [*t.registered_groups, *([t.registered_callback] if t.registered_callback else [])]
    for g in infos:
        doc = g.help or (g.callback.__doc__ if g.callback else None)
        if isinstance(doc, str) and doc:
            g.help = user_text(doc)
        if g is not t.registered_callback and isinstance(g.typer_instance, typer.Typer):
            _tidy_help(g.typer_instance)
    if isinstance(t.info.help, str) and t.info.help:
        t.info.help = user_text(t.info.help)


_tidy_help(app)


def run() -> None:  # pragma: no cover - console entry
    sys.exit(app())
