"""The ``validate`` stage: a Great Expectations 1.x suite on the final table.

A failed expectation fails the stage (non-zero exit), so ``dvc repro`` stops before a
broken dataset is published.  The full GX result is kept as the validation report.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from diagramforge.cards.validate.empty import empty_reason
from diagramforge.cards.validate.gx_batches import BatchedValidation
from diagramforge.filters.filter.tokens import TokenFilterParams
from diagramforge.licensing.spdx import allowed
from diagramforge.stage import StageLog, StageSettings, TableStage
from diagramforge.store import atomic
from diagramforge.store.paths import ProjectSettings, read_state, stage_paths
from diagramforge.store.records import SPLITS
from diagramforge.store.shards import ShardSet, Upstream

if TYPE_CHECKING:
    from diagramforge.cards.validate.settings import ValidateParams
    from diagramforge.filters.filter.settings import FilterParams
    from diagramforge.formats.settings import RenderSettings
    from diagramforge.params import LicenceParams

READS = ("id", "format", "code", "image", "licence", "group", "split", "source_id", "width",
         "height", "dup_cluster")
NOT_NULL = ("id", "format", "code", "licence", "group", "split", "source_id", "width", "height")


class ValidateSettings(ProjectSettings, Protocol):
    """What validating reads of the params: its section, the licences allowed, the token
    windows (``filter.tokens``), the raster limits (``render.raster``), and where the
    outputs are (``project``). The loaded ``Params`` is one."""

    @property
    def validate_(self) -> ValidateParams: ...
    @property
    def licences(self) -> LicenceParams: ...
    @property
    def filter(self) -> FilterParams: ...
    @property
    def render(self) -> RenderSettings: ...


class ValidateStageSettings(StageSettings, ValidateSettings, Protocol):
    """What the validate stage reads: validating's sections and the stage base's part."""


class ValidationFailed(RuntimeError):
    """The final table broke an expectation; the report says which."""


def build_suite(gx, params: ValidateSettings):  # noqa: ANN001, ANN201 - gx module and suite
    """The expectations every published table must meet."""
    E = gx.expectations
    rp = params.render.raster
    tk = params.filter.tokens
    exps = [
        E.ExpectTableRowCountToBeBetween(min_value=params.validate_.min_rows),
        E.ExpectColumnValuesToBeUnique(column="id"),
        E.ExpectColumnValuesToBeInSet(column="split", value_set=list(SPLITS)),
        E.ExpectColumnValuesToBeInSet(column="format",
                                      value_set=params.validate_.format_names()),
        E.ExpectColumnValuesToBeInSet(column="licence_allowed", value_set=[True]),
        E.ExpectColumnValuesToBeBetween(column="width", min_value=rp.min_side_px,
                                        max_value=rp.max_side_px),
        E.ExpectColumnValuesToBeBetween(column="height", min_value=rp.min_side_px,
                                        max_value=rp.max_side_px),
        E.ExpectColumnValuesToBeBetween(column="image_bytes", min_value=1),
        E.ExpectColumnValuesToBeBetween(column="splits_per_group", min_value=1, max_value=1),
        E.ExpectColumnValuesToBeBetween(column="splits_per_dup_cluster", min_value=1,
                                        max_value=1),
        E.ExpectColumnValuesToBeBetween(column="code_chars", min_value=1),
    ]
    if tk.enabled:  # each format's own window (filter.tokens.formats)
        exps.append(E.ExpectColumnValuesToBeInSet(column="tokens_in_window", value_set=[True]))
    exps += [E.ExpectColumnValuesToNotBeNull(column=c) for c in NOT_NULL]
    suite = gx.ExpectationSuite(name="diagramforge_final")
    for e in exps:
        suite.add_expectation(e)
    return suite


def frame(table: pa.Table, allow: list[str], tokens: TokenFilterParams | None = None,
          table_wide: pd.DataFrame | None = None) -> pd.DataFrame:
    """The final table (or one shard of it) as validated: images replaced by their sizes,
    plus leakage columns (and ``tokens_in_window`` against each format's window, given the
    tokens filter). ``table_wide``: the shard's rows of :func:`leakage` over the whole
    table (their splits per group and per near-duplicate family); without it, this table's."""
    df = table.drop_columns(["image"]).to_pandas()
    if tokens is not None:
        df["tokens_in_window"] = [  # a null count (the filter did not run) is not checked
            t is None or t != t or tokens.window(str(f))[0] <= t <= tokens.window(str(f))[1]
            for t, f in zip(df["tokens"], df["format"], strict=True)]
    df["image_bytes"] = _sizes(table.column("image")).to_numpy() if len(df) else []
    # SPDX expressions ("Apache-2.0 AND MIT") are judged as the licence filter judges them
    df["licence_allowed"] = [allowed(lic, allow) for lic in df["licence"]]
    wide = leakage(df) if table_wide is None else table_wide
    for col in LEAKAGE:
        df[col] = wide[col].to_numpy() if len(df) else []
    df["code_chars"] = [len(c.strip()) if isinstance(c, str) else 0 for c in df["code"]]
    return df


BATCH_ROWS = 2048
"""Rows per Great Expectations batch: measured frames (images replaced by their sizes) of
consecutive shards are validated together, since GX costs ≈ 0.4 s per batch whatever its
size (8 batches of the sample's 38 rows: 3.3 s). Not a dataset number: the results are the
whole table's for any value (:mod:`diagramforge.cards.validate.gx_batches`)."""

LEAKAGE = ("splits_per_group", "splits_per_dup_cluster")
KEYS = ("id", "group", "split", "dup_cluster")
"""The small columns the table-wide checks read in a first pass (no image, no code)."""


def leakage(df: pd.DataFrame) -> pd.DataFrame:
    """Splits per group and per near-duplicate family of every row of ``df`` (the whole
    table's small columns): a group or family must not straddle splits."""
    out = pd.DataFrame(index=df.index)
    out["splits_per_group"] = df.groupby("group")["split"].transform("nunique") \
        if len(df) else []
    # a near-duplicate family must not straddle splits either (a singleton is its own family)
    cluster = df["dup_cluster"].fillna(df["id"]) if "dup_cluster" in df else df["id"]
    out["splits_per_dup_cluster"] = df.groupby(cluster)["split"].transform("nunique") \
        if len(df) else []
    return out


def duplicated(values: pd.Series) -> set:
    """Values that occur more than once (nulls aside): the unique-id expectation's
    table-wide answer."""
    v = values.dropna()
    return set(v[v.duplicated()].tolist())


def task_frame(df: pd.DataFrame, allow: list[str]) -> pd.DataFrame:
    """A task config as validated: the sizes of its images (``*image_bytes``, which
    :func:`_sized` computed in Arrow, so no PNG becomes a Python object here), the lengths
    of its code, plus the derived columns its expectations read (licence allowed, answer
    among the options)."""
    out = pd.DataFrame({"id": df["id"], "split": df["split"]})
    out["licence_allowed"] = [allowed(x, allow) for x in df.get("licence", [None] * len(df))]
    for col in df.columns:
        if col.endswith("image"):  # a binary one is an unsized image; text is not an image
            if any(isinstance(v, bytes | bytearray) for v in df[col]):
                raise TypeError(f"task_frame reads image sizes: pass the table through "
                                f"_sized first ({col!r} is raw)")
            continue
        if col.endswith("image_bytes"):
            out[col] = df[col].fillna(0).astype("int64")
        elif col.endswith("code"):
            out[f"{col}_chars"] = [len(c.strip()) if isinstance(c, str) else 0 for c in df[col]]
    if "answer" in df and "options" in df:
        out["answer_in_options"] = [
            opts is None or (hasattr(opts, "__len__") and len(opts) == 0) or a in list(opts)
            for a, opts in zip(df["answer"], df["options"], strict=True)]
    return out


def build_task_suite(gx, config: str, frame: pd.DataFrame,  # noqa: ANN001, ANN201
                     every_column: bool = False):
    """Expectations of one published task config: unique ids, known splits, allowed
    licences, no empty code or image, QA answers among their options; an ``editing``
    config's target must have rendered. ``every_column``: check every code and image
    column, filled or not (a config validated part by part learns which columns it fills
    only at the end: :func:`task_filled` keeps those results)."""
    E = gx.expectations
    exps = [E.ExpectColumnValuesToBeUnique(column="id"),
            E.ExpectColumnValuesToBeInSet(column="split",
                                          value_set=list(SPLITS)),
            E.ExpectColumnValuesToBeInSet(column="licence_allowed", value_set=[True])]
    # a task table holds several configs, so a column one config leaves empty is not its
    # own; a code or image column the config fills must be filled on every row — and an
    # editing item's target always (an edit whose target did not render is not an edit)
    must = {"target_image_bytes", "target_code_chars"} if config == "editing" else set()
    filled = [c for c in frame.columns if c.endswith(("code_chars", "image_bytes"))
              and (every_column or c in must or (frame[c] > 0).any())]
    exps += [E.ExpectColumnValuesToBeBetween(column=c, min_value=1) for c in filled]
    if "answer_in_options" in frame:
        exps.append(E.ExpectColumnValuesToBeInSet(column="answer_in_options", value_set=[True]))
    suite = gx.ExpectationSuite(name=f"diagramforge_{config}")
    for e in exps:
        suite.add_expectation(e)
    return suite


def _drop_key(obj: object, key: str) -> None:
    """Remove ``key`` wherever it appears in a JSON-like tree."""
    if isinstance(obj, dict):
        obj.pop(key, None)
        for v in obj.values():
            _drop_key(v, key)
    elif isinstance(obj, list):
        for v in obj:
            _drop_key(v, key)


class _TaskStageOutputs:
    """The task stages' outputs are validated too: DVC deps looked up when read."""

    def __get__(self, obj: object, owner: type) -> tuple[str, ...]:
        # lazy: loads datasets, licensedcode, pandas
        from diagramforge.cards.validate.tasks import task_inputs

        return task_inputs()


class ValidateStage(TableStage):
    """Run the Great Expectations suite on the final table; any failed expectation fails
    the stage (and so `dvc repro`).

    It streams: a first pass reads the small key columns of every shard for the
    table-wide checks (duplicate ids, splits per group and family, the diagrams task items
    are checked against); the second validates one shard of the split table, and one row
    group of a task table, at a time, images measured and dropped, and GX's per-part
    results fold into the whole table's (:mod:`diagramforge.cards.validate.gx_batches`).  The
    command's help is the first paragraph."""

    name = "validate"
    params: ValidateStageSettings
    upstream = "split"
    reads = READS
    output_schema = None
    funnel = False
    streams_input = True
    param_sections = ("validate", "licences", "filter.tokens", "render.raster")
    code = ("licensing/spdx.py", "cards/validate/tasks.py", "cards/validate/empty.py",
            "cards/validate/nested.py",
            "cards/validate/gx_batches.py", "filters/filter/tokens.py", "selection.py",
            "formats/capabilities.py", "formats/*/caps.py",  # the token windows' defaults
            "tokenizer.py",
            "cards/validate/references.py")
    inputs = _TaskStageOutputs()

    def run_table(self, table: Upstream | None, log: StageLog) -> list[dict]:
        report = validate_upstream(self.params, table)
        log.stats.extra.update({"expectations": len(report["results"]),
                                "failed": sum(not r["success"] for r in report["results"])})
        return []


def _small(up: Upstream, columns: Sequence[str]) -> pd.DataFrame:
    """The named small columns of every row, read shard by shard (never the images)."""
    cols = [c for c in columns if c in up.column_names]
    parts = [t.to_pandas() for t in up.tables(cols)]
    return pd.concat(parts, ignore_index=True) if parts else \
        up.schema.empty_table().select(cols).to_pandas()


def _task_parts(params: ProjectSettings, by_id: pd.DataFrame, columns: Sequence[str] | None = None
                ) -> Iterator[tuple[str, pd.DataFrame]]:
    """(config, items) of each task stage's table, row group by row group: the items
    publish would keep (:func:`diagramforge.cards.validate.tasks.load_tasks`), with the inherited
    columns decided on the whole table (:func:`~diagramforge.cards.validate.tasks.carried_columns`),
    as publish decides them."""
    # lazy: loads datasets, licensedcode, pandas
    from diagramforge.cards.validate.tasks import (
        INHERITED,
        _stage_classes,
        carried_columns,
        config_part,
        task_stages,
    )

    classes = _stage_classes()
    for stage, configs in task_stages(classes).items():
        schema = classes[stage].output_schema
        if not read_state(params, stage).get("complete") or schema is None:
            continue
        cols = None if columns is None else [c for c in columns if c in schema.names]
        shards = ShardSet(stage_paths(params, stage).records, schema)
        inherits = not getattr(classes[stage], "items_stand_alone", False) \
            and (cols is None or bool(set(cols) & set(INHERITED)))
        carried = carried_columns(shards, configs, by_id, stage) if inherits else {}
        for _, table in shards.iter_groups(cols):
            df = _sized(table).to_pandas()
            for config in configs:
                part = config_part(df, config, classes[stage], by_id, stage, [],
                                   carried.get(config))
                if len(part):
                    yield config, part


def _sizes(images: pa.ChunkedArray) -> pa.ChunkedArray:
    """Each binary value's length, 0 for a null: sizes without Python bytes objects."""
    return pc.fill_null(pc.binary_length(images), 0).cast(pa.int64())


def _sized(table: pa.Table) -> pa.Table:
    """``table`` with each binary ``*image`` column replaced by ``*image_bytes`` (its sizes,
    0 for none), computed in Arrow: the checks read only sizes, and turning an augment
    shard's PNGs into Python bytes (262 MB of them at 1k sources) and copying them per
    config made validate's peak 2.9 GB."""
    for name in [f.name for f in table.schema
                 if f.name.endswith("image")
                 and (pa.types.is_binary(f.type) or pa.types.is_large_binary(f.type))]:
        at = table.schema.get_field_index(name)
        table = table.remove_column(at).add_column(at, f"{name}_bytes",
                                                   _sizes(table.column(name)))
    return table


def validate_upstream(params: ValidateSettings, up: Upstream) -> dict:
    """Validate the split table and every task config shard by shard; write the report
    (:func:`validate_table`'s), raise if any expectation failed.

    An empty table is not broken data: a corpus that yields no diagram (a site dump whose
    posts hold no picture, a listing that matched nothing) has nothing to validate. The
    report then says so, with the reason from the funnel (``nothing_to_publish``), and
    publish writes no dataset; no expectation fails."""
    # lazy: loads datasets, licensedcode, pandas
    from diagramforge.cards.validate.tasks import INHERITED

    allow = params.licences.allow
    keys = _small(up, KEYS + INHERITED)
    if not len(keys):
        report = {"success": True, "rows": 0, "nothing_to_publish": empty_reason(params),
                  "results": [], "configs": {}}
        atomic.write_json(stage_paths(params, "validate").root / "report.json", report)
        return report
    wide = leakage(keys)
    by_id = keys.set_index("id") if len(keys) else pd.DataFrame()
    dups = {"id": duplicated(keys["id"])}
    task_ids: dict[str, list[pd.Series]] = {}
    for config, part in _task_parts(params, by_id, ("id", "config", "diagram_id", "split")):
        task_ids.setdefault(config, []).append(part["id"])
    task_dups = {c: {"id": duplicated(pd.concat(v, ignore_index=True))}
                 for c, v in task_ids.items()}
    del keys, task_ids

    def records(val: BatchedValidation) -> None:
        offset = 0
        for t in up.tables():
            if t.num_rows:
                val.add(frame(t, allow, params.filter.tokens,
                              wide.iloc[offset:offset + t.num_rows]))
                offset += t.num_rows
        if not val.seen:  # no row at all: the empty table is still validated
            val.add(frame(up.schema.empty_table(), allow, params.filter.tokens))

    def tasks(source, gx) -> dict[str, dict]:  # noqa: ANN001 - GX datasource, module
        runs: dict[str, BatchedValidation] = {}
        filled: dict[str, set[str]] = {}
        for config, part in _task_parts(params, by_id):
            tf = task_frame(part, allow)
            if config not in runs:
                runs[config] = BatchedValidation(
                    source, f"config_{config}", build_task_suite(gx, config, tf, True),
                    task_dups.get(config), BATCH_ROWS)
                filled[config] = set()
            filled[config] |= {c for c in tf.columns
                               if c.endswith(("code_chars", "image_bytes")) and (tf[c] > 0).any()}
            runs[config].add(tf)
        return {c: task_filled(c, v.result(), filled[c]) for c, v in runs.items()}

    return validate_table(params, records, tasks, dups)


def task_filled(config: str, result: dict, filled: set[str]) -> dict:
    """Keep the code and image checks of the columns ``config`` fills (an ``editing``
    item's target always): the whole-table suite of :func:`build_task_suite`."""
    must = {"target_image_bytes", "target_code_chars"} if config == "editing" else set()
    keep = []
    for r in result["results"]:
        col = r["expectation_config"]["kwargs"].get("column", "")
        if r["expectation_config"]["type"] == "expect_column_values_to_be_between" and \
                col.endswith(("code_chars", "image_bytes")) and col not in must | filled:
            continue
        keep.append(r)
    result["results"] = keep
    result["success"] = all(r["success"] for r in keep)
    return result


def validate_table(params: ValidateSettings, df: pd.DataFrame | Callable,
                   tasks: dict[str, pd.DataFrame] | Callable | None = None,
                   duplicates: dict[str, set] | None = None) -> dict:
    """Validate the final table and each task config's frame (:func:`task_frame`), write
    ``data/validate/report.json``; raise if any expectation failed.

    ``df`` and ``tasks`` are whole frames, or callables that feed a
    :class:`BatchedValidation` shard by shard (``duplicates``: the table-wide duplicated
    values of its unique columns) and return each config's merged result."""
    import great_expectations as gx
    from great_expectations.data_context.types.base import ProgressBarsConfig

    # GX sets INFO on one of its own loggers at import; its chatter is not ours to show
    logging.getLogger("great_expectations.data_context.types.base").setLevel(logging.WARNING)

    ctx = gx.get_context(mode="ephemeral")
    ctx.variables.progress_bars = ProgressBarsConfig(globally=False)
    source = ctx.data_sources.add_pandas("final")

    val = BatchedValidation(source, "records", build_suite(gx, params), duplicates,
                            BATCH_ROWS)
    if callable(df):
        df(val)
    else:
        val.add(df)
    report = val.result()
    report["configs"] = {}
    if callable(tasks):
        subs = tasks(source, gx)
    else:
        subs = {}
        for config, tf in (tasks or {}).items():
            sub = BatchedValidation(source, f"config_{config}",
                                    build_task_suite(gx, config, tf))
            sub.add(tf)
            subs[config] = sub.result()
    for config, sub in sorted(subs.items()):
        for r in sub["results"]:
            r["config"] = config
        report["results"] += sub["results"]
        report["configs"][config] = sub["success"]
        report["success"] = report["success"] and sub["success"]
    # the report is a stage output: no wall-clock stamp, so reruns give identical bytes
    _drop_key(report, "ge_load_time")
    failed = [r.get("config", "") + ":" + r["expectation_config"]["type"] + ":" + json.dumps(
        r["expectation_config"]["kwargs"].get("column", "")) for r in report["results"]
        if not r["success"]]
    out = stage_paths(params, "validate").root
    atomic.write_json(out / "report.json", report)
    if failed:
        raise ValidationFailed(f"{len(failed)} expectation(s) failed: {failed}; "
                               f"see {Path(out / 'report.json')}")
    return report
