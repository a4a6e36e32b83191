"""CLI commands of the cards package: ``audit licences``, ``stats`` and ``push``.

Registered on the main Typer app by ``diagramforge.cli``; heavy imports stay inside the
commands so ``diagramforge --help`` stays fast.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from diagramforge.config import Params


def published_dir(params: Params) -> Path:
    return Path(params.publish.out_dir) / params.publish.name


def previous_stats(params: Params, ref: str) -> dict:
    """Statistics of version ``ref`` (``0.1.0`` or ``v0.1.0``): from this machine's release
    history, else from the Hub repository at tag ``v<ref>``."""
    # lazy: loads datasets, huggingface_hub, licensedcode, matplotlib, pandas
    from diagramforge.cards.publish.stage import history_dir

    version = ref.removeprefix("v")
    local = history_dir(params.publish, version) / "stats.json"
    if local.exists():
        return json.loads(local.read_text())
    if params.publish.repo_id:
        # lazy: loads huggingface_hub, pandas
        from diagramforge.cards.hub.push import download_json

        data = download_json(params.publish, "stats.json", f"v{version}")
        if data is not None:
            return data
    raise FileNotFoundError(f"no statistics for version {version} (looked in {local}"
                            + (f" and {params.publish.repo_id}@v{version}"
                               if params.publish.repo_id else "") + ")")


def register(app: typer.Typer, audit_app: typer.Typer, params_fn: Callable[[], Params]) -> None:
    @audit_app.command("licences")
    def audit_licences() -> None:
        """Per licence: rows per config and split of the published version, non-commercial
        and share-alike flags, attribution completeness; then per source the evidence its
        licence was read from (file, method, ScanCode's score) and every licence conflict
        the crawl ledgered.  Exits 1 on a licence outside the allow list or a row without
        attribution."""
        # lazy: loads huggingface_hub, licensedcode, pandas
        from diagramforge.cards.publish.licence_audit import (
            audit_frames,
            format_audit,
            format_evidence,
            read_published,
            source_evidence,
        )

        p = params_fn()
        root = published_dir(p)
        if not (root / "README.md").exists():
            typer.secho(f"nothing published at {root} (run `dvc repro`)", fg="red", err=True)
            raise typer.Exit(1)
        result = audit_frames(read_published(root), p.licences.allow)
        typer.echo(format_audit(result))
        typer.echo("\n" + format_evidence(source_evidence(p)))
        if not result.ok:
            raise typer.Exit(1)

    @app.command()
    def stats(compare: Annotated[str | None, typer.Option(
            help="A previous version (e.g. v0.1.0): print what changed since.")] = None) -> None:
        """Statistics of the published version per config × split × format: rows, tokens,
        difficulty tiers, colour entropy, graph sizes, diagram types, licences."""
        # lazy: loads matplotlib, pandas
        from diagramforge.cards.publish.statistics import compare as diff

        # lazy: loads matplotlib, pandas
        from diagramforge.cards.publish.statistics import format_compare, format_stats

        p = params_fn()
        path = published_dir(p) / "stats.json"
        if not path.exists():
            typer.secho(f"no {path} (run `dvc repro`)", fg="red", err=True)
            raise typer.Exit(1)
        current = json.loads(path.read_text())
        typer.echo(format_stats(current))
        if compare:
            try:
                old = previous_stats(p, compare)
            except FileNotFoundError as exc:
                typer.secho(str(exc), fg="red", err=True)
                raise typer.Exit(1) from None
            typer.echo(format_compare(diff(old, current), compare))

    @app.command()
    def push(dry_run: Annotated[bool, typer.Option(
            "--dry-run", help="List the operations and sizes; upload nothing.")] = False,
             ) -> None:
        """Upload the published version to the Hub by hand: one commit to
        publish.repo_id, tagged v<version>, with CHANGELOG.md against the previous version
        (--dry-run lists the operations and sizes and uploads nothing). The token comes
        from the environment variable named by publish.token_env; an existing tag is never
        moved. `dvc repro` does the same upload in its hub-push stage when publish.push is
        true."""
        # lazy: loads huggingface_hub, pandas
        from diagramforge.cards.hub.push import PushError, format_plan, push_version

        p = params_fn()
        try:
            plan = push_version(p.publish, dry_run=dry_run)
        except PushError as exc:
            typer.secho(str(exc), fg="red", err=True)
            raise typer.Exit(1) from None
        typer.echo(format_plan(plan))
