"""The ``diagramforge`` command: one subcommand per pipeline stage, plus small utilities.

``dvc repro`` calls these in order (see ``dvc.yaml``); each can also be run by hand.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Annotated

import typer

from diagramforge.params import Params, ParamsError, load_params

app = typer.Typer(
    help="Build and curate datasets of diagrams as code (TikZ, mxGraph, SVG).\n\n"
    "Stages, in pipeline order: crawl → extract → render → filter → split → validate → "
    "publish.  `dvc repro` runs them all; `diagramforge audit` shows the funnel.",
    no_args_is_help=True, pretty_exceptions_enable=False, add_completion=False,
)
_state: dict[str, Path] = {"params": Path("params.yaml")}

ParamsOpt = Annotated[Path, typer.Option("--params", "-p", help="Path to params.yaml.")]
WorkersOpt = Annotated[int | None, typer.Option(help="Worker processes (default: params).")]


@app.callback()
def main(params: ParamsOpt = Path("params.yaml"),
         verbose: Annotated[bool, typer.Option("--verbose", "-v")] = False) -> None:
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


def _run_mapped(stage_cls, workers: int | None) -> None:  # noqa: ANN001 - Stage subclass
    from diagramforge.runner import run_stage

    stage = stage_cls(_params())
    _report(stage.name, run_stage(stage, workers=workers))


@app.command()
def crawl() -> None:
    """List arXiv papers (OAI-PMH, with licences), check scope and licence, fetch e-prints
    and PDFs into the cache.  Reads samples/arxiv by default, so it runs offline."""
    from diagramforge.builders.crawl import run_crawl

    _report("crawl", run_crawl(_params()))


@app.command()
def extract(workers: WorkersOpt = None) -> None:
    """Unpack each e-print safely, flatten its LaTeX and turn every TikZ picture into a
    standalone document with the preamble definitions it uses, caption and context."""
    from diagramforge.builders.extract import ExtractStage

    _run_mapped(ExtractStage, workers)


@app.command()
def render(workers: WorkersOpt = None) -> None:
    """Compile every diagram with its real tool (sandboxed pdflatex for TikZ, one batched
    run per paper) and rasterize it, rejecting failures, blanks and extreme scales."""
    from diagramforge.builders.render import RenderStage

    _run_mapped(RenderStage, workers)


@app.command(name="filter")
def filter_(workers: WorkersOpt = None) -> None:
    """Apply the filters listed in params (filter.order): licence allow-list, token count
    (tiktoken cl100k_base, offline), … Each rejection is ledgered with its reason."""
    from diagramforge.filters.stage import FilterStage

    _run_mapped(FilterStage, workers)


@app.command()
def split() -> None:
    """Remove exact duplicates, then assign train/validation/test per paper or repository
    (seeded hash), so no source is in two splits."""
    from diagramforge.filters.split import run_split

    _report("split", run_split(_params()))


@app.command()
def validate() -> None:
    """Run the Great Expectations suite on the final table; any failed expectation fails
    the stage (and so `dvc repro`)."""
    from diagramforge.cards.validate import ValidationFailed, run_validate

    try:
        report = run_validate(_params())
    except ValidationFailed as exc:
        typer.secho(str(exc), fg="red", err=True)
        raise typer.Exit(1) from None
    typer.echo(f"validate: {len(report['results'])} expectations passed")


@app.command()
def publish() -> None:
    """Write data/published/<name>/: Parquet splits per config with an Image column, the
    dataset card (README.md), LICENSES.md and the validation report."""
    from diagramforge.cards.publish import run_publish

    out = run_publish(_params())
    typer.echo(f"publish: wrote {out}")


@app.command()
def audit(
    reason: Annotated[str | None, typer.Option(help="List the rejections with this reason.")]
    = None,
    limit: Annotated[int, typer.Option(help="Rows to list with --reason.")] = 20,
) -> None:
    """Print the funnel: per stage, in / out / rejected per reason, and check that every
    input was kept or rejected with a reason.  Exits 1 if the books do not balance."""
    from diagramforge.cards.audit import format_funnel, load_audit

    p = _params()
    a = load_audit(p)
    typer.echo(format_funnel(a))
    if reason:
        from diagramforge.cards.audit import PIPELINE
        from diagramforge.records import REJECTION_SCHEMA
        from diagramforge.runner import stage_paths
        from diagramforge.shards import ShardSet

        for name in PIPELINE:
            t = ShardSet(stage_paths(p, name).rejections, REJECTION_SCHEMA).read_all()
            for r in t.to_pylist():
                if r["reason"] == reason and limit > 0:
                    typer.echo(f"  [{name}] {r['locator']}: {r['detail']}")
                    limit -= 1
    if not a.ok:
        raise typer.Exit(1)


@app.command(name="check-params")
def check_params() -> None:
    """Validate params.yaml and print the effective values (defaults filled in)."""
    import yaml

    typer.echo(yaml.safe_dump(_params().model_dump(by_alias=True), sort_keys=False))


def run() -> None:  # pragma: no cover - console entry
    sys.exit(app())
