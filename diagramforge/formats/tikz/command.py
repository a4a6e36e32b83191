"""TikZ's own command beside the pipeline (the ``command`` capability: the CLI registers the
commands of every format folder holding a ``command.py``): ``tikz-table`` regenerates the
shipped table of what TeX Live's TikZ libraries and picture packages define (:mod:`.table`),
which a posted picture's missing loads are read from (:mod:`.needs`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    """Add ``tikz-table`` to the ``diagramforge`` command."""

    @app.command(name="tikz-table")
    def tikz_table(
            out: Annotated[Path | None, typer.Option(
                help="Where to write it (default: the shipped "
                     "formats/tikz/tikz_libraries.json).")] = None,
            workers: Annotated[int, typer.Option(help="LuaLaTeX runs at once.")] = 2,
            cache: Annotated[bool, typer.Option(
                help="Reuse scans of an earlier run under the same TeX Live (kept in the temp "
                     "dir).")] = True) -> None:
        """Regenerate the table of what TikZ libraries and picture packages define (keys,
        shapes, arrow tips, macros: the library or package to load) by loading each of TeX
        Live's files here and reading what it defined; a posted picture that lacks a load
        gets it from this table."""
        # lazy: loads pymupdf
        from diagramforge.formats.tikz.table import SCAN_CACHE, TABLE_PATH, generate, write_table

        table = generate(workers, progress=typer.echo, cache=SCAN_CACHE if cache else None)
        write_table(table, out or TABLE_PATH)
        sizes = ", ".join(f"{k} {len(v)}" for k, v in table["rows"].items())
        typer.echo(f"wrote {out or TABLE_PATH}: {table['scanned']} files scanned "
                   f"({len(table['failed'])} did not load), rows: {sizes}")
