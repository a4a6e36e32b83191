"""Task configs: every stage that declares ``task_configs`` gets one published config per name.

A task stage (edit, augment, synth…) writes one table holding items of several tasks, told
apart by the ``config`` column.  Publishing does not know the stages by name: it asks the
pipeline which stages declare ``task_configs``, so a new task stage appears in the dataset
without touching this module.  Each item is checked against the published diagrams: an item
whose diagram was not published, or that sits in another split than its diagram (leakage),
is ledgered rather than published.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd
import pyarrow as pa

from diagramforge.cards.validate.nested import convert as nested_values
from diagramforge.cards.validate.nested import feature as nested_feature
from diagramforge.cards.validate.references import ReferenceCheck
from diagramforge.licensing.spdx import licence_family
from diagramforge.pipeline import stage_classes
from diagramforge.store.paths import read_state, stage_paths
from diagramforge.store.records import SPLITS, Rejection, Unit
from diagramforge.store.shards import ShardSet

if TYPE_CHECKING:
    from diagramforge.store.paths import ProjectSettings

INHERITED = ("format", "licence", "licence_url", "attribution")
"""Columns a task item takes from its diagram when its stage did not write them, so every
published row carries its own licence and whom to credit."""


class TaskReason:
    ORPHAN = "task_diagram_not_published"
    SPLIT_MISMATCH = "task_split_mismatch"


@dataclass
class TaskTables:
    """Rows per config, the Arrow schema they came with, and what was left out."""

    frames: dict[str, pd.DataFrame] = field(default_factory=dict)
    schemas: dict[str, pa.Schema] = field(default_factory=dict)
    stage_of: dict[str, str] = field(default_factory=dict)
    missing_stages: list[str] = field(default_factory=list)
    empty_configs: list[str] = field(default_factory=list)
    """Declared configs with no rows this version: left out of the card's configs (a config
    without data files is one the Hub and ``datasets`` cannot load)."""
    rejections: list[Rejection] = field(default_factory=list)


def _stage_classes() -> Mapping[str, type]:
    return stage_classes()


def task_stages(classes: Mapping[str, type] | None = None) -> dict[str, tuple[str, ...]]:
    """Stage name → config names it publishes, for every stage declaring ``task_configs``."""
    classes = _stage_classes() if classes is None else classes
    return {n: tuple(c.task_configs) for n, c in classes.items()
            if getattr(c, "task_configs", ())}


def task_inputs(data_dir: str = "data") -> tuple[str, ...]:
    """DVC deps of publish beyond its upstream: the output directory of each task stage."""
    return tuple(f"{data_dir}/{n}" for n in task_stages())


def load_tasks(params: ProjectSettings, diagrams: pd.DataFrame,
               classes: Mapping[str, type] | None = None) -> TaskTables:
    """Read each task stage's table and cut it into configs (``config == name``).

    A task stage that has not run leaves its configs out (recorded in ``missing_stages``): the
    card says so instead of the publish failing, since generation data is useful alone.
    """
    classes = _stage_classes() if classes is None else classes
    out = TaskTables()
    by_id = diagrams.set_index("id") if len(diagrams) else pd.DataFrame()
    for stage, configs in task_stages(classes).items():
        schema = classes[stage].output_schema
        if not read_state(params, stage).get("complete") or schema is None:
            out.missing_stages.append(stage)
            continue
        table = ShardSet(stage_paths(params, stage).records, schema).read_all()
        df = table.to_pandas()
        for config in configs:
            part = config_part(df, config, classes[stage], by_id, stage, out.rejections)
            if not len(part):
                out.empty_configs.append(config)
                continue
            # one table serves several configs: a config publishes the columns it fills
            used = [c for c in schema.names
                    if c in _KEYS or (c in part.columns and part[c].notna().any())]
            out.frames[config] = part
            out.schemas[config] = _schema(pa.schema([schema.field(c) for c in used]), part)
            out.stage_of[config] = stage
    return out


def _check(part: pd.DataFrame, by_id: pd.DataFrame, stage: str,
           rejections: list[Rejection]) -> pd.DataFrame:
    keep = []
    for i, r in part.iterrows():
        did = r["diagram_id"]
        if did not in by_id.index:
            rejections.append(Rejection(str(r["id"]), TaskReason.ORPHAN,
                                        f"{stage}: diagram {did} is not published",
                                        id=str(r["id"]), unit=Unit.CANDIDATE))
        elif by_id.at[did, "split"] != r["split"]:
            rejections.append(Rejection(str(r["id"]), TaskReason.SPLIT_MISMATCH,
                                        f"{stage}: item in {r['split']}, diagram {did} in "
                                        f"{by_id.at[did, 'split']}",
                                        id=str(r["id"]), unit=Unit.CANDIDATE))
        else:
            keep.append(i)
    return part.loc[keep].reset_index(drop=True)


def config_part(df: pd.DataFrame, config: str, cls: type, by_id: pd.DataFrame, stage: str,
                rejections: list[Rejection], carried: set[str] | None = None
                ) -> pd.DataFrame:
    """The items of a task table (or one row group of it) that ``config`` publishes: its
    rows, checked against the published diagrams and given their inherited columns — the
    rule ``load_tasks`` (whole tables) and validate (row group by row group) apply, and
    publish's ``_kept`` row by row. ``carried``: the inherited columns the config's items
    carry anywhere in the table (:func:`carried_columns`); without it, decided on ``df``."""
    part = df[df["config"] == config].reset_index(drop=True)
    if getattr(cls, "items_stand_alone", False):
        # items that are diagrams of their own (a repaired picture whose original never
        # rendered): they carry their licence and split themselves
        return part[part["split"].isin(SPLITS)].reset_index(drop=True)
    return _inherit(_check(part, by_id, stage, rejections), by_id, carried)


def _inherit(part: pd.DataFrame, by_id: pd.DataFrame, carried: set[str] | None = None
             ) -> pd.DataFrame:
    part = part.copy()
    for col in INHERITED:
        own = col in part.columns and part[col].notna().any() if carried is None \
            else col in carried
        if col in by_id.columns and not own:
            part[col] = [by_id.at[d, col] for d in part["diagram_id"]] if len(part) else []
    return part


def carried_columns(shards: ShardSet, configs: Sequence[str], by_id: pd.DataFrame,
                    stage: str) -> dict[str, set[str]]:
    """Per config, the inherited columns (licence, attribution…) its kept items carry
    somewhere in the whole table. Publish inherits a column only where no item carries it
    (:func:`scan_tasks`), so a reader going row group by row group must decide on the
    table, not on the group it holds; only the key and inherited columns are read."""
    own = [c for c in INHERITED if c in shards.schema.names]
    out: dict[str, set[str]] = {c: set() for c in configs}
    if not own:
        return out
    for _, table in shards.iter_groups([*_KEYS, *own]):
        df = table.to_pandas()
        for config in configs:
            part = _check(df[df["config"] == config].reset_index(drop=True), by_id, stage, [])
            out[config] |= {c for c in own if part[c].notna().any()}
    return out


def _schema(schema: pa.Schema, part: pd.DataFrame) -> pa.Schema:
    fields = list(schema)
    for col in INHERITED:
        if col in part.columns and col not in schema.names:
            fields.append(pa.field(col, pa.string()))
    if "licence" in {f.name for f in fields} and "licence_family" not in schema.names:
        fields.append(pa.field("licence_family", pa.string()))  # filled from licence
    return pa.schema(fields)


_KEYS = ("id", "diagram_id", "config", "split")


def _missing(value: object) -> bool:
    """pandas turns a null of a numeric or mixed column into NaN; it must stay a null
    (as the string ``"nan"`` it would be published as text)."""
    return value is None or (isinstance(value, float) and value != value)


def features(schema: pa.Schema):  # noqa: ANN201 - datasets.Features
    """Hub features of a task table: its Arrow types, with ``*image`` binary columns as
    ``Image`` so the viewer and ``load_dataset`` decode them, and the JSON text columns as
    nested lists and records (:mod:`diagramforge.cards.validate.nested`)."""
    from datasets import Features, Image

    feats = Features.from_arrow_schema(schema)
    for name in schema.names:
        t = schema.field(name).type
        if name.endswith("image") and (pa.types.is_binary(t) or pa.types.is_large_binary(t)):
            feats[name] = Image()
        elif (nested := nested_feature(name)) is not None and pa.types.is_string(t):
            feats[name] = nested
    return feats


def write_task_config(config: str, df: pd.DataFrame, schema: pa.Schema, out: Path) -> dict:
    """Write ``<out>/<config>/<split>-00000-of-00001.parquet`` and return its card entry."""
    from datasets import Dataset, Image

    feats = features(schema)
    splits = []
    for split in SPLITS:
        part = df[df["split"] == split]
        if not len(part):
            continue
        cols = {}
        for name in schema.names:
            values = ([None if _missing(v) else v for v in part[name].tolist()]
                      if name in part.columns else [None] * len(part))
            if isinstance(feats[name], Image):
                values = [None if b is None else {"bytes": b, "path": None} for b in values]
            elif nested_feature(name) is not None:
                values = nested_values(name, values)
            cols[name] = values
        path = out / config / f"{split}-00000-of-00001.parquet"
        path.parent.mkdir(parents=True, exist_ok=True)
        Dataset.from_dict(cols, features=feats).to_parquet(str(path))
        splits.append(split)
    return {"config_name": config, "_rows": len(df), "_task": config,
            "data_files": [{"split": s, "path": f"{config}/{s}-*.parquet"} for s in splits]}



# -- streaming: the task tables read row group by row group (publish) ----------------------


@dataclass
class TaskScan:
    """What a first pass over the task tables decided, holding no task rows: per config its
    published schema, its stage, rows per split, the columns it inherits from its diagram,
    and the rejections (orphans, split mismatches) in the order ``load_tasks`` gives."""

    schemas: dict[str, pa.Schema] = field(default_factory=dict)
    stage_of: dict[str, str] = field(default_factory=dict)
    split_rows: dict[str, dict[str, int]] = field(default_factory=dict)
    inherit: dict[str, list[str]] = field(default_factory=dict)
    missing_stages: list[str] = field(default_factory=list)
    empty_configs: list[str] = field(default_factory=list)
    rejections: list[Rejection] = field(default_factory=list)
    references: dict[str, dict[str, str]] = field(default_factory=dict)
    """Per config, the columns left out because every row's value is its diagram's
    ``generation`` render (column → the ``generation`` column; :mod:`.references`)."""
    unreferenced: dict[str, dict[str, str]] = field(default_factory=dict)
    """Per config, referenceable columns it publishes whole, with the first row that is not
    its diagram's render."""


def _kept(rows: list[dict], config: str, stand_alone: bool, diagrams: Mapping[str, dict],
          stage: str, rejections: list[Rejection]) -> list[dict]:
    """The rows of one row group that ``config`` publishes (``_check``'s rule, row by
    row)."""
    out = []
    for r in rows:
        if r.get("config") != config:
            continue
        if stand_alone:
            if r.get("split") in SPLITS:
                out.append(r)
            continue
        did = r.get("diagram_id")
        d = diagrams.get(did)
        if d is None:
            rejections.append(Rejection(str(r["id"]), TaskReason.ORPHAN,
                                        f"{stage}: diagram {did} is not published",
                                        id=str(r["id"]), unit=Unit.CANDIDATE))
        elif d["split"] != r.get("split"):
            rejections.append(Rejection(str(r["id"]), TaskReason.SPLIT_MISMATCH,
                                        f"{stage}: item in {r.get('split')}, diagram {did} in "
                                        f"{d['split']}", id=str(r["id"]), unit=Unit.CANDIDATE))
        else:
            out.append(r)
    return out


def scan_tasks(params: ProjectSettings, diagrams: Mapping[str, dict],
               classes: Mapping[str, type] | None = None,
               digests: Mapping[str, bytes] | None = None) -> TaskScan:
    """First pass of :func:`iter_task_rows`: ``diagrams`` maps each candidate diagram's id
    to its ``split`` and :data:`INHERITED` values (a few short strings per diagram);
    ``digests`` each ``generation`` row's render digest (:func:`.references.digest`), by
    which a config's ``source_image`` is found to repeat it — ``None``: every column is
    published as it is."""
    classes = _stage_classes() if classes is None else classes
    out = TaskScan()
    check = ReferenceCheck(digests) if digests is not None else None
    known = set(INHERITED) & set(next(iter(diagrams.values()), {}))
    for stage, configs in task_stages(classes).items():
        schema = classes[stage].output_schema
        if not read_state(params, stage).get("complete") or schema is None:
            out.missing_stages.append(stage)
            continue
        stand_alone = getattr(classes[stage], "items_stand_alone", False)
        shards = ShardSet(stage_paths(params, stage).records, schema)
        rejected: dict[str, list[Rejection]] = {c: [] for c in configs}
        seen: dict[str, set[str]] = {c: set() for c in configs}
        inherited_seen: dict[str, set[str]] = {c: set() for c in configs}
        splits: dict[str, dict[str, int]] = {c: {} for c in configs}
        for _, table in shards.iter_groups():
            rows = table.to_pylist()
            for config in configs:
                for r in _kept(rows, config, stand_alone, diagrams, stage, rejected[config]):
                    splits[config][r["split"]] = splits[config].get(r["split"], 0) + 1
                    seen[config].update(k for k, v in r.items() if not _missing(v))
                    if not stand_alone:
                        d = diagrams[r["diagram_id"]]
                        inherited_seen[config].update(c for c in known if not _missing(d[c]))
                        if check is not None:
                            check.add(config, r)
        for config in configs:
            out.rejections += rejected[config]
            if not splits[config]:
                out.empty_configs.append(config)
                continue
            inherit = [] if stand_alone else [c for c in INHERITED if c in known
                                              and c not in seen[config]]
            nonnull = (seen[config] - set(inherit)) | (inherited_seen[config] & set(inherit))
            refs = check.referenced(config) if check is not None else {}
            if refs:
                out.references[config] = refs
            if check is not None and check.kept(config):
                out.unreferenced[config] = check.kept(config)
            used = [c for c in schema.names if (c in _KEYS or c in nonnull) and c not in refs]
            fields = [schema.field(c) for c in used]
            fields += [pa.field(c, pa.string()) for c in INHERITED
                       if c in inherit and c not in schema.names]
            if "licence" in {f.name for f in fields} and "licence_family" not in used:
                fields.append(pa.field("licence_family", pa.string()))  # from licence
            out.schemas[config] = pa.schema(fields)
            out.stage_of[config] = stage
            out.inherit[config] = inherit
            out.split_rows[config] = {s: splits[config][s] for s in SPLITS
                                      if s in splits[config]}
    return out


def iter_task_rows(params: ProjectSettings, scan: TaskScan, diagrams: Mapping[str, dict],
                   classes: Mapping[str, type] | None = None
                   ) -> Iterator[tuple[str, list[dict]]]:
    """``(config, rows)`` per task row group and config: the rows ``load_tasks`` would
    give the config (every column of the stage's table plus the inherited ones), one row group of
    one stage in memory at a time (:meth:`ShardSet.iter_groups`: an augment shard of PNGs
    is hundreds of MB, a row group at most about ``shards.ROW_GROUP_BYTES``)."""
    classes = _stage_classes() if classes is None else classes
    for stage in dict.fromkeys(scan.stage_of.values()):
        configs = [c for c, s in scan.stage_of.items() if s == stage]
        stand_alone = getattr(classes[stage], "items_stand_alone", False)
        shards = ShardSet(stage_paths(params, stage).records, classes[stage].output_schema)
        for _, table in shards.iter_groups():
            rows = table.to_pylist()
            for config in configs:
                kept = _kept(rows, config, stand_alone, diagrams, stage, [])
                for r in kept:
                    for col in scan.inherit[config]:
                        r[col] = diagrams[r["diagram_id"]][col]
                if kept:
                    yield config, kept


def task_encoder(schema: pa.Schema):  # noqa: ANN201 - Callable[[list[dict]], dict]
    """Rows → the column dict ``write_task_config`` builds for ``Dataset.from_dict``."""
    from datasets import Image

    feats = features(schema)

    def encode(rows: list[dict]) -> dict:
        cols = {}
        for name in schema.names:
            if name == "licence_family":  # every published row: one line of `datasets` away
                cols[name] = [licence_family(r.get("licence")) for r in rows]
                continue
            values = [None if _missing(r.get(name)) else r.get(name) for r in rows]
            if isinstance(feats[name], Image):
                values = [None if b is None else {"bytes": b, "path": None} for b in values]
            elif nested_feature(name) is not None:
                values = nested_values(name, values)
            cols[name] = values
        return cols

    return encode
