"""The ``validate`` stage: a Great Expectations 1.x suite on the final table.

A failed expectation fails the stage (non-zero exit), so ``dvc repro`` stops before a
broken dataset is published.  The full GX result is kept as the validation report.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pandas as pd
import pyarrow as pa

from diagramforge import atomic
from diagramforge.filters.tokens import TokenFilterParams
from diagramforge.licences import allowed
from diagramforge.params import Params
from diagramforge.paths import stage_paths
from diagramforge.records import SPLITS
from diagramforge.stage import StageLog, TableStage

READS = ("id", "format", "code", "image", "licence", "group", "split", "source_id", "width",
         "height", "dup_cluster")
NOT_NULL = ("id", "format", "code", "licence", "group", "split", "source_id", "width", "height")


class ValidationFailed(RuntimeError):
    """The final table broke an expectation; the report says which."""


def build_suite(gx, params: Params):  # noqa: ANN001, ANN201 - gx module and suite
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


def frame(table: pa.Table, allow: list[str], tokens: TokenFilterParams | None = None
          ) -> pd.DataFrame:
    """The final table as validated: images replaced by their sizes, plus leakage columns
    (and ``tokens_in_window`` against each format's window, given the tokens filter)."""
    df = table.drop_columns(["image"]).to_pandas()
    if tokens is not None:
        df["tokens_in_window"] = [  # a null count (the filter did not run) is not checked
            t is None or t != t or tokens.window(str(f))[0] <= t <= tokens.window(str(f))[1]
            for t, f in zip(df["tokens"], df["format"], strict=True)]
    df["image_bytes"] = [len(b) if b else 0 for b in table.column("image").to_pylist()]
    # SPDX expressions ("Apache-2.0 AND MIT") are judged as the licence filter judges them
    df["licence_allowed"] = [allowed(lic, allow) for lic in df["licence"]]
    df["splits_per_group"] = df.groupby("group")["split"].transform("nunique") if len(df) else []
    # a near-duplicate family must not straddle splits either (a singleton is its own family)
    cluster = df["dup_cluster"].fillna(df["id"]) if "dup_cluster" in df else df["id"]
    df["splits_per_dup_cluster"] = df.groupby(cluster)["split"].transform("nunique") \
        if len(df) else []
    df["code_chars"] = [len(c.strip()) if isinstance(c, str) else 0 for c in df["code"]]
    return df


def task_frame(df: pd.DataFrame, allow: list[str]) -> pd.DataFrame:
    """A task config as validated: binary columns replaced by their sizes, plus the derived
    columns its expectations read (licence allowed, answer among the options)."""
    out = pd.DataFrame({"id": df["id"], "split": df["split"]})
    out["licence_allowed"] = [allowed(x, allow) for x in df.get("licence", [None] * len(df))]
    for col in df.columns:
        if col.endswith("image"):
            out[f"{col}_bytes"] = [len(b) if isinstance(b, bytes | bytearray) else 0
                                   for b in df[col]]
        elif col.endswith("code"):
            out[f"{col}_chars"] = [len(c.strip()) if isinstance(c, str) else 0 for c in df[col]]
    if "answer" in df and "options" in df:
        out["answer_in_options"] = [
            opts is None or (hasattr(opts, "__len__") and len(opts) == 0) or a in list(opts)
            for a, opts in zip(df["answer"], df["options"], strict=True)]
    return out


def build_task_suite(gx, config: str, frame: pd.DataFrame):  # noqa: ANN001, ANN201
    """Expectations of one published task config: unique ids, known splits, allowed
    licences, no empty code or image, QA answers among their options; an ``editing``
    config's target must have rendered."""
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
              and (c in must or (frame[c] > 0).any())]
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
        from diagramforge.cards.tasks import task_inputs

        return task_inputs()


class ValidateStage(TableStage):
    """Run the Great Expectations suite on the final table; any failed expectation fails
    the stage (and so `dvc repro`)."""

    name = "validate"
    upstream = "split"
    reads = READS
    output_schema = None
    funnel = False
    param_sections = ("validate", "licences", "filter.tokens", "render.raster")
    code = ("licences.py", "cards/tasks.py", "cards/nested.py",
            "filters/tokens.py")
    inputs = _TaskStageOutputs()

    def run_table(self, table: pa.Table | None, log: StageLog) -> list[dict]:
        from diagramforge.cards.tasks import load_tasks

        allow = self.params.licences.allow
        tasks = load_tasks(self.params, table.drop_columns(["image"]).to_pandas())
        report = validate_table(self.params, frame(table, allow, self.params.filter.tokens),
                                {c: task_frame(f, allow) for c, f in tasks.frames.items()})
        log.stats.extra.update({"expectations": len(report["results"]),
                                "failed": sum(not r["success"] for r in report["results"])})
        return []


def validate_table(params: Params, df: pd.DataFrame,
                   tasks: dict[str, pd.DataFrame] | None = None) -> dict:
    """Validate the final table and each task config's frame (:func:`task_frame`), write
    ``data/validate/report.json``; raise if any expectation failed."""
    import great_expectations as gx
    from great_expectations.data_context.types.base import ProgressBarsConfig

    # GX sets INFO on one of its own loggers at import; its chatter is not ours to show
    logging.getLogger("great_expectations.data_context.types.base").setLevel(logging.WARNING)

    ctx = gx.get_context(mode="ephemeral")
    ctx.variables.progress_bars = ProgressBarsConfig(globally=False)
    source = ctx.data_sources.add_pandas("final")

    def run(name: str, frame_: pd.DataFrame, suite) -> dict:  # noqa: ANN001 - GX suite
        batch = (source.add_dataframe_asset(name).add_batch_definition_whole_dataframe("all")
                 .get_batch(batch_parameters={"dataframe": frame_}))
        return batch.validate(suite).to_json_dict()

    report = run("records", df, build_suite(gx, params))
    report["configs"] = {}
    for config, tf in sorted((tasks or {}).items()):
        sub = run(f"config_{config}", tf, build_task_suite(gx, config, tf))
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
