"""The ``publish`` stage: write ``data/published/<name>/`` as a Hugging Face dataset dir.

Configs per task and format (``generation`` = image → code over every format, and ``tikz``,
``mxgraph``, ``svg``, plus one config per name any task stage declares in ``task_configs``),
train/validation/test Parquet files written by ``datasets`` (so ``*image`` columns are real
``Image`` features), the dataset card with statistics and charts, the licence/attribution
file, the licence audit, a manifest of row digests (the next version's changelog is computed
from it) and the validation report.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import pandas as pd
import pyarrow as pa

from diagramforge import selection as select
from diagramforge.cards.publish import statistics
from diagramforge.cards.publish.audit import format_funnel, load_audit
from diagramforge.cards.publish.card import CardInputs, CardSettings, render_card, render_licences
from diagramforge.cards.publish.card_columns import missing_columns
from diagramforge.cards.publish.encode import ImageEncoder
from diagramforge.cards.publish.gallery import (
    DIAGRAM_COLUMNS,
    TASK_COLUMNS,
    gallery_view,
    write_gallery,
)
from diagramforge.cards.publish.licence_audit import (
    AuditCounter,
    format_audit,
    format_evidence,
    source_evidence,
)
from diagramforge.cards.publish.manifest import KnownDigest, ManifestBuilder
from diagramforge.cards.publish.parquet_out import SplitWriter
from diagramforge.cards.publish.source_funnel import format_source_funnel, source_funnel
from diagramforge.cards.validate.empty import nothing_to_publish
from diagramforge.cards.validate.nested import convert as nested_values
from diagramforge.cards.validate.nested import feature as nested_feature
from diagramforge.cards.validate.references import digest
from diagramforge.cards.validate.tasks import INHERITED, iter_task_rows, scan_tasks, task_encoder
from diagramforge.cards.validate.tasks import features as task_features
from diagramforge.formats.encoding import kind
from diagramforge.licensing.spdx import licence_family
from diagramforge.selection import Selector
from diagramforge.stage import StageLog, StageSettings, TableStage
from diagramforge.store import atomic
from diagramforge.store.paths import read_state, stage_paths
from diagramforge.store.records import SPLITS
from diagramforge.store.shards import Upstream

if TYPE_CHECKING:
    from diagramforge.cards.publish.settings import PublishParams

GENERATION_COLUMNS = ("id", "format", "image", "code", "caption", "context", "title", "source",
                      "source_id", "source_url", "group", "licence", "licence_family",
                      "licence_url", "attribution", "tokens", "width", "height", "dup_cluster")
"""``licence_family`` is derived from ``licence`` as rows are written
(:func:`diagramforge.licensing.spdx.licence_family`), so a user filters on one column."""
OPTIONAL_COLUMNS = {"render_engine": "string",
                    "difficulty": "string", "diagram_type": "string",
                    "diagram_family": "string", "graph_like": "bool",
                    "diagram_type_prob": "float64", "diagram_type_source": "string",
                    "diagram_type_evidence": "string",
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
    """Write the image → code task from one in-memory frame: one Parquet file per split
    and format (a small-table helper; ``publish`` streams through ``SplitWriter``).

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
                    for c in columns if c not in ("image", "licence_family")}
            cols["licence_family"] = [licence_family(v) for v in part["licence"]]
            cols["image"] = [{"bytes": b, "path": None} for b in part["image"]]
            ds = Dataset.from_dict({c: cols[c] for c in columns}, features=feats)
            path = out / config / fmt / f"{split}-00000-of-00001.parquet"
            path.parent.mkdir(parents=True, exist_ok=True)
            ds.to_parquet(str(path))

    return _config_entries(df, formats, config)


class _TaskStageOutputs:
    """``PublishStage.inputs``: the output directories of the task stages, looked up when
    read, so a task stage added to the pipeline becomes a DVC dependency of publish."""

    def __get__(self, obj: object, owner: type) -> tuple[str, ...]:
        # lazy: loads datasets, licensedcode, pandas
        from diagramforge.cards.validate.tasks import task_inputs

        # data/crawl: the licence audit lists the evidence each source's licence was read from;
        # data/validate: publish refuses unless its report passed, and copies it into the card,
        # so DVC must run validate first and rerun publish when the report changes
        return ("data/crawl", "data/validate", *task_inputs())


class PublishStageSettings(StageSettings, CardSettings, Protocol):
    """What the publish stage reads: what the card reads (every section it reports; the
    publishing itself reads only ``publish``, ``licences``, ``render.raster`` and ``select``
    among them) and the stage base's part. The runner hands the loaded ``Params``."""


class PublishStage(TableStage):
    """Write data/published/<name>/: Parquet splits per config (generation, per format, and
    every task stage's configs) with Image columns, the dataset card (README.md) with charts,
    LICENSES.md, licence audit, statistics, manifest and the validation report."""

    name = "publish"
    params: PublishStageSettings
    upstream = "split"
    reads = ("id", "format", "code", "image", "split", "licence")
    output_schema = None
    funnel = False
    # augment.degrade: the card states its numbers; validate: the card lists its formats;
    # twin.targets: the card names the languages twins are written in
    # augment.webp_effort: sketches and variations are encoded here (render.raster.encode_at)
    param_sections = ("publish", "licences", "filter", "crawl", "render", "select",
                      "split", "augment.degrade", "augment.webp_effort", "validate",
                      "twin.targets")
    code = ("cards/publish/card.py", "cards/publish/audit.py", "cards/validate/tasks.py",
            "cards/publish/statistics.py",
            "cards/publish/licence_audit.py", "cards/publish/manifest.py",
            "cards/publish/gallery.py",
            "licensing/spdx.py", "selection.py", "cards/publish/source_funnel.py",
            "cards/validate/nested.py", "cards/publish/contamination.py",
            "cards/publish/parquet_out.py",
            "cards/validate/references.py", "formats/encoding.py", "formats/picture.py",
            "cards/publish/card_columns.py", "cards/publish/encode.py",
            # the gallery's graph overlay: the graph model, each format's graph unit
            "cards/publish/overlay.py", "graphs/model.py", "formats/registry.py",
            "formats", "cards/validate/empty.py")
    outputs = ("data/published",)
    inputs = _TaskStageOutputs()
    extra_metrics = ("dataset.json",)
    plots = (("plots/rows.csv", {"x": "slice", "y": "rows", "template": "bar_horizontal"}),)

    streams_input = True

    def run_table(self, table: Upstream | None, log: StageLog) -> list[dict]:
        assert table is not None
        publish(self.params, table, log, workers=self.params.runner.workers)
        splits = table.read(["split"]).column("split").to_pylist()
        log.stats.extra.update({s: splits.count(s) for s in SPLITS})
        return []


def history_dir(publish: PublishParams, version: str | None = None) -> Path:
    """Where each published version keeps its statistics and manifest for later
    comparison (``diagramforge stats --compare``), outside the DVC-managed output."""
    root = Path(publish.history_dir) / publish.name
    return root / f"v{version}" if version else root


META_COLUMNS = ("id", "format", "split", "tokens", "diagram_type", "diagram_family",
                "diagram_type_source", "graph_like", "group", "source",
                "source_url", "licence", "licence_url", "attribution")
"""The short columns publish holds for every upstream row (selection, task checks, card,
LICENSES.md); everything else — PNGs, code, graphs — streams past shard by shard."""


class _TableSource:
    """An in-memory table (tests, ``write_generation`` callers) as an ``Upstream``."""

    def __init__(self, table: pa.Table | pd.DataFrame):
        self.table = table if isinstance(table, pa.Table) else \
            pa.Table.from_pandas(table, preserve_index=False)
        self.column_names = self.table.column_names

    def tables(self, columns: list[str] | None = None):  # noqa: ANN201 - Iterator
        yield self.table if columns is None else self.table.select(columns)

    def read(self, columns: list[str]) -> pa.Table:
        return self.table.select(columns)


def _generation_encoder(columns: tuple[str, ...]):  # noqa: ANN202 - Callable
    def encode(rows: list[dict]) -> dict:
        cols = {c: nested_values(c, [None if isinstance(v, float) and v != v else v
                                     for v in (r.get(c) for r in rows)])
                for c in columns if c not in ("image", "licence_family")}
        cols["licence_family"] = [licence_family(r.get("licence")) for r in rows]
        cols["image"] = [{"bytes": r["image"], "path": None} for r in rows]
        return {c: cols[c] for c in columns}
    return encode


def _config_entries(meta: pd.DataFrame, formats: list[str], config: str = "generation"
                    ) -> list[dict]:
    def present(scope: pd.DataFrame) -> list[str]:
        return [s for s in SPLITS if (scope["split"] == s).any()]

    def sizes(scope: pd.DataFrame) -> dict[str, int]:
        return {s: int((scope["split"] == s).sum()) for s in present(scope)}

    configs = [{
        "config_name": config, "default": True, "_rows": len(meta), "_task": "image → code",
        "_split_rows": sizes(meta), "_features": config,
        "data_files": [{"split": s, "path": f"{config}/*/{s}-*.parquet"} for s in present(meta)],
    }]
    for fmt in formats:
        scope = meta[meta["format"] == fmt]
        configs.append({
            "config_name": fmt, "_rows": len(scope), "_task": f"image → {fmt} code",
            "_split_rows": sizes(scope), "_features": config, "_view": True,
            "data_files": [{"split": s, "path": f"{config}/{fmt}/{s}-*.parquet"}
                           for s in present(scope)],
        })
    return configs


class _ImageKinds:
    """Per config and image column, how many of its pictures are PNG, JPEG…
    (:func:`formats.encoding.kind`: the card says how each column is stored)."""

    def __init__(self) -> None:
        self.counts: dict[str, dict[str, Counter]] = {}

    def add(self, config: str, columns, rows: list[dict]) -> None:  # noqa: ANN001
        cols = self.counts.setdefault(config, {})
        for col in columns:
            got = cols.setdefault(col, Counter())
            got.update(k for r in rows if (k := kind(r.get(col))) is not None)

    def of(self, config: str) -> dict[str, dict[str, int]]:
        return {col: dict(sorted(c.items())) for col, c in self.counts.get(config, {}).items()}


class _Aggregates:
    """Statistics, licence audit and manifest, fed the same rows as they stream past."""

    def __init__(self, skip: set[str]):
        self.stats = statistics.Accumulator(skip)
        self.audit = AuditCounter()
        self.manifest = ManifestBuilder()

    def add(self, config: str, rows: list[dict]) -> None:
        shown = [{k: v for k, v in r.items() if k != "image"} for r in rows] \
            if config == "generation" else rows
        self.stats.add(config, shown)
        self.audit.add(config, shown)
        self.manifest.add(config, rows)


def _encoder(params: CardSettings, workers: int) -> ImageEncoder:
    """The published images' encoder: ``render.raster``, and ``augment.webp_effort`` (when
    set) for the augment stage's sketches and variations."""
    raster = params.render.raster
    effort = params.augment.webp_effort
    own = {} if effort is None else {"augment": raster.model_copy(update={"webp_effort": effort})}
    return ImageEncoder(raster, workers, own, params.publish.image_cache_dir)


def publish(params: CardSettings, upstream: Upstream | pa.Table | pd.DataFrame,
            log: StageLog | None = None, workers: int = 1) -> Path:
    """Write the dataset directory; refuses unless the validate stage passed.

    Streams: the upstream is read shard by shard, every task table row group by row group
    (a task stage's writers closed when the next stage starts), each config × split
    is written as size-capped Parquet files (``publish.max_file_bytes``/``max_file_rows``),
    and statistics, the licence audit and the manifest are running aggregates. What is held
    for every row is :data:`META_COLUMNS` and the manifest's id → digest. Images are encoded
    here, once, on ``workers`` threads (``render.raster.encode_at``, :mod:`.encode`)."""
    report = stage_paths(params, "validate").root / "report.json"
    if not read_state(params, "validate").get("complete") or not report.exists() \
            or not json.loads(report.read_text()).get("success"):
        raise RuntimeError("refusing to publish: the validate stage has not passed")
    if not isinstance(upstream, Upstream):
        upstream = _TableSource(upstream)
    pp = params.publish
    out = Path(pp.out_dir) / pp.name
    tmp = out.with_name(out.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    why = nothing_to_publish(params)
    if why is not None:  # an empty source: no dataset, a card that says why
        (tmp / "README.md").write_text(
            f"# {pp.pretty_name} v{pp.version}\n\n0 rows to publish: {why}.\n\n"
            f"```\n{format_funnel(load_audit(params))}\n```\n")
        shutil.copyfile(report, tmp / "validation_report.json")
        (tmp / "VERSION").write_text(pp.version + "\n")
        atomic.replace_dir(tmp, out)
        if log is not None:
            log.stats.extra["nothing_to_publish"] = 1
        return out
    names = list(upstream.column_names)
    meta_pool = upstream.read([c for c in META_COLUMNS if c in names]).to_pandas()
    selector = Selector(params)
    keys = [c for c in ("format", "tokens", "diagram_type") if c in meta_pool.columns]
    pool = meta_pool[keys].to_dict("records")
    selection = select.summary(pool, selector, select.known_configs())
    mask = [selector.takes(select.GENERATION, r) for r in pool] if len(pool) else []
    meta = meta_pool[mask].reset_index(drop=True) if len(meta_pool) else meta_pool
    columns = generation_columns(pd.DataFrame(columns=names))
    feats_gen = _features(columns)
    encode = _generation_encoder(columns)
    writers: dict[tuple[str, str], SplitWriter] = {}
    formats = sorted(set(meta["format"])) if len(meta) else []
    views = set(formats)
    agg = _Aggregates(views)
    gallery_ids = set(sorted(meta["id"])[:pp.gallery_max_diagrams]) if len(meta) else set()
    gallery_rows: list[dict] = []
    digests: dict[str, bytes] = {}  # id → its render's digest (validate/references.py)
    kinds = _ImageKinds()
    images = _encoder(params, workers)
    published_renders: dict[str, KnownDigest] = {}  # id → its render as published
    offset = 0
    for shard in upstream.tables():
        rows = shard.to_pylist()
        taken = [r for r, keep in zip(rows, mask[offset:offset + len(rows)], strict=True)
                 if keep]
        offset += len(rows)
        for r in taken:
            key = (r["split"], r["format"])
            if key not in writers:
                writers[key] = SplitWriter(tmp / "generation" / r["format"], r["split"],
                                           feats_gen, encode, pp.max_file_bytes,
                                           pp.max_file_rows, pp.row_group_bytes)
            if r.get("image"):  # the stored bytes: what task rows' source images repeat
                digests[str(r["id"])] = digest(r["image"])
        images.encode(taken, ("image",))
        for r in taken:
            writers[(r["split"], r["format"])].add([r])
            if r.get("image"):  # as published: what a referenced task column is digested as
                published_renders[str(r["id"])] = KnownDigest(
                    hashlib.sha256(r["image"]).digest(), len(r["image"]))
        kinds.add("generation", ("image",), taken)
        agg.add("generation", taken)
        gallery_rows += [gallery_view(r, DIAGRAM_COLUMNS) for r in taken
                         if r["id"] in gallery_ids]
    for w in writers.values():
        w.close()
    configs = _config_entries(meta, formats)
    diagrams = meta_pool[[c for c in ("id", "split", *INHERITED) if c in names]] \
        .drop_duplicates("id", keep="last").set_index("id").to_dict("index")
    scan = scan_tasks(params, diagrams, digests=digests)
    del digests
    for rej in scan.rejections:
        if log is not None:
            log.reject(rej)
    feats = {"generation": feats_gen._to_yaml_list()}
    task_writers: dict[tuple[str, str], SplitWriter] = {}
    gallery_tasks: dict[str, list[dict]] = {c: [] for c in scan.schemas}
    stage = None
    for config, rows in iter_task_rows(params, scan, diagrams):
        if scan.stage_of[config] != stage:  # a stage's configs come together: its writers
            for key in [k for k in task_writers if scan.stage_of[k[0]] == stage]:
                task_writers.pop(key).close()  # are done, and each holds a row group
            stage = scan.stage_of[config]
        schema = scan.schemas[config]
        images.encode(rows, [c for c in schema.names if c.endswith("image")], stage)
        for col in scan.references.get(config, {}):  # left out: the render, as published
            rows = [{**r, col: published_renders[str(r["diagram_id"])]}
                    if r.get(col) is not None else r for r in rows]
        for r in rows:
            key = (config, r["split"])
            if key not in task_writers:
                task_writers[key] = SplitWriter(tmp / config, r["split"],
                                                task_features(schema), task_encoder(schema),
                                                pp.max_file_bytes, pp.max_file_rows,
                                                pp.row_group_bytes)
            task_writers[key].add([r])
        kinds.add(config, [c for c in schema.names if c.endswith("image")], rows)
        agg.add(config, rows)
        gallery_tasks[config] += [gallery_view(r, TASK_COLUMNS) for r in rows
                                  if r.get("diagram_id") in gallery_ids]
    for w in task_writers.values():
        w.close()
    images.close()
    if log is not None:
        log.stats.extra.update(images_encoded=images.encoded, images_reused=images.reused)
    for config, schema in scan.schemas.items():
        splits = [s for s in SPLITS if s in scan.split_rows[config]]
        configs.append({"config_name": config,
                        "_rows": sum(scan.split_rows[config].values()), "_task": config,
                        "data_files": [{"split": s, "path": f"{config}/{s}-*.parquet"}
                                       for s in splits],
                        "_split_rows": scan.split_rows[config],
                        "_references": scan.references.get(config, {}),
                        "_unreferenced": scan.unreferenced.get(config, {})})
        feats[config] = task_features(schema)._to_yaml_list()
    for c in configs:  # dataset_info wants each split's size in bytes as well as rows
        c["_split_bytes"] = {d["split"]: sum(p.stat().st_size for p in tmp.glob(d["path"]))
                             for d in c["data_files"]}
        c["_images"] = kinds.of(c.get("_features", c["config_name"]))
    stats = agg.stats.result()
    statistics.write_metrics(stats, Path(params.project.metrics_dir))
    token_frame = meta[["tokens"]] if "tokens" in meta.columns else pd.DataFrame()
    charts = statistics.charts(stats, {"generation": token_frame}, tmp / "charts")
    audit = agg.audit.audit(params.licences.allow)
    manifest = agg.manifest.build(pp.version)
    funnel_text = f"{format_funnel(load_audit(params))}\n\n" \
                  f"{format_source_funnel(source_funnel(params))}"
    inputs = CardInputs(configs=configs, funnel=funnel_text, stats=stats,
                        audit=audit, features=feats, charts=[p.stem for p in charts],
                        missing_stages=scan.missing_stages,
                        empty_configs=scan.empty_configs, selection=selection)
    (tmp / "README.md").write_text(render_card(params, meta, configs, inputs=inputs))
    (tmp / "LICENSES.md").write_text(render_licences(meta))
    gallery_frame = pd.DataFrame(gallery_rows) if gallery_rows else \
        pd.DataFrame(columns=["id", "image"])
    write_gallery(gallery_frame,
                  {c: pd.DataFrame(r) if r else pd.DataFrame(columns=["id", "diagram_id"])
                   for c, r in gallery_tasks.items()},
                  tmp, f"{pp.pretty_name} v{pp.version}", params.render.raster.dpi)
    (tmp / "licence_audit.txt").write_text(
        f"{format_audit(audit)}\n\n{format_evidence(source_evidence(params))}\n")
    atomic.write_json(tmp / "stats.json", stats)
    atomic.write_json(tmp / "manifest.json", manifest)
    shutil.copyfile(report, tmp / "validation_report.json")
    (tmp / "VERSION").write_text(pp.version + "\n")
    # the card and the data agree, or nothing ships
    missing = missing_columns(tmp, params, {col for c in configs
                                            for col in c.get("_references", {})})
    if missing:
        raise RuntimeError(f"the dataset card names columns no published file has: "
                           f"{', '.join(missing)}")
    atomic.replace_dir(tmp, out)
    if log is not None:
        for config, cols in scan.references.items():
            for col in cols:
                log.stats.extra[f"referenced.{config}.{col}"] = 1
        for config, cols in scan.unreferenced.items():
            for col in cols:
                log.stats.extra[f"referenced.{config}.{col}"] = 0
        for config, got in selection.items():
            log.stats.extra[f"selected.{config}"] = got["selected"]
            for why, k in got["not_selected"].items():
                log.stats.extra[select.counter_key(config, why)] = k
    hist = history_dir(pp, pp.version)
    hist.mkdir(parents=True, exist_ok=True)
    for name in ("stats.json", "manifest.json"):
        shutil.copyfile(out / name, hist / name)
    return out
