"""The ``publish`` stage: write ``data/published/<name>/`` as a Hugging Face dataset dir.

Configs per task and format (``generation`` = image → code over every format, and ``tikz``,
``mxgraph``, ``svg``, plus one config per name any task stage declares in ``task_configs``),
train/validation/test Parquet files written by ``datasets`` (so ``*image`` columns are real
``Image`` features), the dataset card with statistics and charts, the licence/attribution
file, the licence audit, a manifest of row digests (the next version's changelog is computed
from it) and the validation report.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pyarrow as pa

from diagramforge import atomic
from diagramforge.cards import statistics
from diagramforge.cards.audit import format_funnel, load_audit
from diagramforge.cards.card import CardInputs, render_card, render_licences
from diagramforge.cards.gallery import write_gallery
from diagramforge.cards.licence_audit import audit_frames, format_audit
from diagramforge.cards.manifest import build_manifest
from diagramforge.cards.nested import convert as nested_values
from diagramforge.cards.nested import feature as nested_feature
from diagramforge.cards.source_funnel import format_source_funnel, source_funnel
from diagramforge.cards.tasks import TaskTables, load_tasks, write_task_config
from diagramforge.cards.tasks import features as task_features
from diagramforge.curation import select
from diagramforge.curation.select import Selector
from diagramforge.params import Params
from diagramforge.paths import read_state, stage_paths
from diagramforge.records import SPLITS
from diagramforge.stage import StageLog, TableStage

GENERATION_COLUMNS = ("id", "format", "image", "code", "caption", "context", "title", "source",
                      "source_id", "source_url", "group", "licence", "licence_url",
                      "attribution", "tokens", "width", "height", "dup_cluster")
OPTIONAL_COLUMNS = {"difficulty": "string", "diagram_type": "string",
                    "diagram_type_prob": "float64", "diagram_type_source": "string",
                    "diagram_type_image": "string", "diagram_type_disagree": "bool",
                    "colour_entropy": "float64",
                    "graph": "string", "graph_nodes": "int32", "graph_edges": "int32",
                    "graph_components": "int32", "graph_longest_path": "int32",
                    "contamination": "string"}
"""Filter and graph columns, published when the record schema has them (they land as the
stages that fill them do); null where a stage could not compute them."""


def generation_columns(df: pd.DataFrame | None = None) -> tuple[str, ...]:
    extra = [c for c in OPTIONAL_COLUMNS if df is None or c in df.columns]
    return GENERATION_COLUMNS + tuple(extra)


def _features(columns: tuple[str, ...] = GENERATION_COLUMNS):  # noqa: ANN202 - Features
    from datasets import Features, Image, Value

    types = {"tokens": Value("int64"), "width": Value("int32"), "height": Value("int32"),
             **{c: nested_feature(c) or Value(t) for c, t in OPTIONAL_COLUMNS.items()}}
    return Features({c: Image() if c == "image" else types.get(c, Value("string"))
                     for c in columns})


def write_generation(df: pd.DataFrame, out: Path, config: str = "generation") -> list[dict]:
    """Write the image → code task: one Parquet file per split and format.

    Configs: ``generation`` (every format, the default) and one per format (``tikz``,
    ``mxgraph``, ``svg``) over the same files, so nothing is stored twice.
    """
    from datasets import Dataset
    from datasets.utils.logging import disable_progress_bar

    disable_progress_bar()  # one bar per Parquet file is noise in a stage's output
    columns = generation_columns(df)
    feats = _features(columns)
    formats = sorted(set(df["format"]))
    for split in SPLITS:
        for fmt in formats:
            part = df[(df["split"] == split) & (df["format"] == fmt)]
            if not len(part):  # a split a format does not reach (its sources went elsewhere)
                continue
            cols = {c: nested_values(c, [None if isinstance(v, float) and v != v else v
                                         for v in part[c]])
                    for c in columns if c != "image"}
            cols["image"] = [{"bytes": b, "path": None} for b in part["image"]]
            ds = Dataset.from_dict({c: cols[c] for c in columns}, features=feats)
            path = out / config / fmt / f"{split}-00000-of-00001.parquet"
            path.parent.mkdir(parents=True, exist_ok=True)
            ds.to_parquet(str(path))

    def present(scope: pd.DataFrame) -> list[str]:
        return [s for s in SPLITS if (scope["split"] == s).any()]

    def sizes(scope: pd.DataFrame) -> dict[str, int]:
        return {s: int((scope["split"] == s).sum()) for s in present(scope)}

    configs = [{
        "config_name": config, "default": True, "_rows": len(df), "_task": "image → code",
        "_split_rows": sizes(df), "_features": config,
        "data_files": [{"split": s, "path": f"{config}/*/{s}-*.parquet"} for s in present(df)],
    }]
    for fmt in formats:
        scope = df[df["format"] == fmt]
        configs.append({
            "config_name": fmt, "_rows": len(scope), "_task": f"image → {fmt} code",
            "_split_rows": sizes(scope), "_features": config, "_view": True,
            "data_files": [{"split": s, "path": f"{config}/{fmt}/{s}-*.parquet"}
                           for s in present(scope)],
        })
    return configs


class _TaskStageOutputs:
    """``PublishStage.inputs``: the output directories of the task stages, looked up when
    read, so a task stage added to the pipeline becomes a DVC dependency of publish."""

    def __get__(self, obj: object, owner: type) -> tuple[str, ...]:
        from diagramforge.cards.tasks import task_inputs

        return task_inputs()


class PublishStage(TableStage):
    """Write data/published/<name>/: Parquet splits per config (generation, per format, and
    every task stage's configs) with Image columns, the dataset card (README.md) with charts,
    LICENSES.md, licence audit, statistics, manifest and the validation report."""

    name = "publish"
    upstream = "split"
    reads = ("id", "format", "code", "image", "split", "licence")
    output_schema = None
    funnel = False
    param_sections = ("publish", "licences", "filter", "crawl", "render", "select",
                      "split")
    code = ("cards/card.py", "cards/audit.py", "cards/tasks.py", "cards/statistics.py",
            "cards/licence_audit.py", "cards/manifest.py", "cards/gallery.py",
            "licences.py", "curation/select.py", "cards/source_funnel.py",
            "cards/nested.py", "cards/contamination.py")
    outputs = ("data/published",)
    inputs = _TaskStageOutputs()
    extra_metrics = ("dataset.json",)
    plots = (("plots/rows.csv", {"x": "slice", "y": "rows", "template": "bar_horizontal"}),)

    def run_table(self, table: pa.Table | None, log: StageLog) -> list[dict]:
        assert table is not None
        publish(self.params, table.to_pandas(), log)
        df_splits = table.column("split").to_pylist()
        log.stats.extra.update({s: df_splits.count(s) for s in SPLITS})
        return []


def _frames(df: pd.DataFrame, tasks: TaskTables) -> dict[str, pd.DataFrame]:
    return {"generation": df, **tasks.frames}


def history_dir(params: Params, version: str | None = None) -> Path:
    """Where each published version keeps its statistics and manifest for later
    comparison (``diagramforge stats --compare``), outside the DVC-managed output."""
    root = Path(params.publish.history_dir) / params.publish.name
    return root / f"v{version}" if version else root


def publish(params: Params, df: pd.DataFrame, log: StageLog | None = None) -> Path:
    """Write the dataset directory; refuses unless the validate stage passed."""
    report = stage_paths(params, "validate").root / "report.json"
    if not read_state(params, "validate").get("complete") or not report.exists() \
            or not json.loads(report.read_text()).get("success"):
        raise RuntimeError("refusing to publish: the validate stage has not passed")
    out = Path(params.publish.out_dir) / params.publish.name
    tmp = out.with_name(out.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    selector = Selector(params)
    keys = [c for c in ("format", "tokens", "diagram_type") if c in df.columns]
    pool = df[keys].to_dict("records")
    selection = select.summary(pool, selector, select.known_configs())
    pool_df, df = df, df[[selector.takes(select.GENERATION, r) for r in pool]] if len(df) else df
    configs = write_generation(df, tmp)
    tasks = load_tasks(params, pool_df)
    for rej in tasks.rejections:
        if log is not None:
            log.reject(rej)
    feats = {"generation": _features(generation_columns(df))._to_yaml_list()}
    for config, frame in tasks.frames.items():
        entry = write_task_config(config, frame, tasks.schemas[config], tmp)
        entry["_split_rows"] = {s: int((frame["split"] == s).sum())
                                for s in SPLITS if (frame["split"] == s).any()}
        configs.append(entry)
        feats[config] = task_features(tasks.schemas[config])._to_yaml_list()
    for c in configs:  # dataset_info wants each split's size in bytes as well as rows
        c["_split_bytes"] = {d["split"]: sum(p.stat().st_size for p in tmp.glob(d["path"]))
                             for d in c["data_files"]}
    frames = _frames(df.drop(columns=["image"]), tasks)
    views = {c["config_name"] for c in configs if c.get("_view")}
    stats = statistics.compute(frames, skip=views)
    statistics.write_metrics(stats, Path(params.project.metrics_dir))
    charts = statistics.charts(stats, frames, tmp / "charts")
    audit = audit_frames({c: f for c, f in frames.items()}, params.licences.allow)
    manifest = build_manifest(_frames(df, tasks), params.publish.version)
    funnel_text = f"{format_funnel(load_audit(params))}\n\n" \
                  f"{format_source_funnel(source_funnel(params))}"
    inputs = CardInputs(configs=configs, funnel=funnel_text, stats=stats,
                        audit=audit, features=feats, charts=[p.stem for p in charts],
                        missing_stages=tasks.missing_stages,
                        empty_configs=tasks.empty_configs, selection=selection)
    (tmp / "README.md").write_text(render_card(params, df, configs, inputs=inputs))
    (tmp / "LICENSES.md").write_text(render_licences(df))
    write_gallery(df, tasks.frames, tmp, f"{params.publish.pretty_name} "
                                         f"v{params.publish.version}")
    (tmp / "licence_audit.txt").write_text(format_audit(audit) + "\n")
    atomic.write_json(tmp / "stats.json", stats)
    atomic.write_json(tmp / "manifest.json", manifest)
    shutil.copyfile(report, tmp / "validation_report.json")
    (tmp / "VERSION").write_text(params.publish.version + "\n")
    atomic.replace_dir(tmp, out)
    if log is not None:
        for config, got in selection.items():
            log.stats.extra[f"selected.{config}"] = got["selected"]
            for why, k in got["not_selected"].items():
                log.stats.extra[select.counter_key(config, why)] = k
    hist = history_dir(params, params.publish.version)
    hist.mkdir(parents=True, exist_ok=True)
    for name in ("stats.json", "manifest.json"):
        shutil.copyfile(out / name, hist / name)
    return out
