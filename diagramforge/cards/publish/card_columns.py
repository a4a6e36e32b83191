"""The card and the data agree: every column the dataset card names is a column of the
published Parquet files.

The card names columns in backticks (`render_engine`, `dup_cluster`).  It also backticks
other words — config, split and format names, filters, source kinds, a few values — so a
backticked identifier counts as a column unless it is one of those, which are read from the
registries and params rather than listed here (a new config or format does not need this
module), or one of :data:`NOT_COLUMNS`.  Publish runs :func:`missing_columns` on the
directory it just wrote and refuses a card that names a column the data lacks (the card
once said each record's engine was "its `render_engine`", a column no row had).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import pyarrow.parquet as pq
import yaml

from diagramforge.formats.registry import format_titles
from diagramforge.pipeline import STAGES, stage_name
from diagramforge.store.records import SPLITS, SourceKind

if TYPE_CHECKING:
    from diagramforge.builders.crawl.settings import CrawlParams
    from diagramforge.filters.filter.settings import FilterParams

NOT_COLUMNS = frozenset({
    "datasets",    # the library
    "other",       # the Hub's licence value for mixed licences
    "structure", "layout",  # what a twin preserves (values of `preserves`)
    "select", "params",     # params.yaml's keep lists, params.yaml itself
})
"""Backticked words of the card that are values or names, not columns, and that no
registry or params section provides."""

_IDENTIFIER = re.compile(r"`([a-z][a-z0-9_]*)`")


class ColumnsSettings(Protocol):
    """What telling columns from other words reads: the pinned repositories (``crawl``)
    and the filters (``filter``: their names, the token encoding)."""

    @property
    def crawl(self) -> CrawlParams: ...
    @property
    def filter(self) -> FilterParams: ...


def vocabulary(params: ColumnsSettings, configs: list[str]) -> set[str]:
    """Words the card may backtick that are not columns: configs (published and declared),
    splits, formats, filters, stages, source kinds, the Hub's licence ids, the values of
    ``licence_family``, the token encoding, :data:`NOT_COLUMNS`."""
    # lazy: loads datasets, huggingface_hub, licensedcode, matplotlib, pandas
    from diagramforge.cards.publish.card import HUB_LICENCES

    # lazy: loads datasets, licensedcode, pandas
    from diagramforge.cards.validate.tasks import task_stages

    # lazy: loads licensedcode
    from diagramforge.licensing.spdx import FAMILIES

    tasks = task_stages()
    declared = {c for cs in tasks.values() for c in cs}
    repos = params.crawl.repos.repositories
    return ({*configs, *declared, *tasks, *SPLITS, *format_titles(), *params.filter.order,
             *(stage_name(s) for s in STAGES), *(k.value for k in SourceKind),
             *HUB_LICENCES.values(), *FAMILIES, params.filter.tokens.encoding,
             *(r.ref for r in repos), *(r.name for r in repos if r.name)} | NOT_COLUMNS)


_RECORD_ID = re.compile(r"[0-9a-f]{24}")
"""A record id (``records.make_id``: 24 hex digits), which the card backticks where it names
an item (the decontamination table's test and train items) — a value, not a column."""


def named_columns(card: str, params: ColumnsSettings) -> set[str]:
    """The columns the card names: backticked identifiers outside code blocks and the YAML
    front matter that are not in :func:`vocabulary`."""
    meta, body = "", card
    if card.startswith("---"):
        _, meta, body = card.split("---", 2)
    configs = [c["config_name"] for c in (yaml.safe_load(meta) or {}).get("configs", [])]
    body = re.sub(r"```.*?```", "", body, flags=re.S)
    return {w for w in _IDENTIFIER.findall(body) if not _RECORD_ID.fullmatch(w)} \
        - vocabulary(params, configs)


def published_columns(root: Path) -> set[str]:
    """Every column of every Parquet file under ``root`` (schemas only: no data read)."""
    return {name for p in sorted(root.rglob("*.parquet")) for name in pq.read_schema(p).names}


def missing_columns(root: Path, params: ColumnsSettings,
                    referenced: set[str] | frozenset[str] = frozenset()) -> list[str]:
    """Columns the card of the dataset at ``root`` names that no published file has.
    ``referenced`` are columns a config publishes as a reference to ``generation``'s
    (``cards/validate/references.py``): the card names them to say where they are, and no file
    holds them under that name."""
    card = (root / "README.md").read_text(encoding="utf-8")
    return sorted(named_columns(card, params) - published_columns(root) - set(referenced))
