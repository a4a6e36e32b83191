"""The ``publish`` stage: write ``data/published/<name>/`` as a Hugging Face dataset dir.

Configs per task and format (``generation`` = image → code over every format, and ``tikz``,
``mxgraph``, ``svg``), train/validation/test Parquet files written by ``datasets`` (so the
``image`` column is a real ``Image`` feature), the
dataset card, the licence/attribution file and the validation report.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pyarrow as pa

from diagramforge import atomic
from diagramforge.cards.audit import format_funnel, load_audit
from diagramforge.cards.card import render_card, render_licences
from diagramforge.params import Params
from diagramforge.paths import read_state, stage_paths
from diagramforge.stage import StageLog, TableStage

SPLITS = ("train", "validation", "test")
GENERATION_COLUMNS = ("id", "format", "image", "code", "caption", "context", "title", "source",
                      "source_id", "source_url", "group", "licence", "licence_url",
                      "attribution", "tokens", "width", "height", "dup_cluster")


def _features():  # noqa: ANN202 - datasets.Features
    from datasets import Features, Image, Value

    types = {"tokens": Value("int64"), "width": Value("int32"), "height": Value("int32")}
    return Features({c: Image() if c == "image" else types.get(c, Value("string"))
                     for c in GENERATION_COLUMNS})


def write_generation(df: pd.DataFrame, out: Path, config: str = "generation") -> list[dict]:
    """Write the image → code task: one Parquet file per split and format.

    Configs: ``generation`` (every format, the default) and one per format (``tikz``,
    ``mxgraph``, ``svg``) over the same files, so nothing is stored twice.
    """
    from datasets import Dataset

    feats = _features()
    formats = sorted(set(df["format"]))
    for split in SPLITS:
        for fmt in formats:
            part = df[(df["split"] == split) & (df["format"] == fmt)]
            if not len(part):  # a split a format does not reach (its sources went elsewhere)
                continue
            cols = {c: part[c].tolist() for c in GENERATION_COLUMNS if c != "image"}
            cols["image"] = [{"bytes": b, "path": None} for b in part["image"]]
            ds = Dataset.from_dict({c: cols[c] for c in GENERATION_COLUMNS}, features=feats)
            path = out / config / fmt / f"{split}-00000-of-00001.parquet"
            path.parent.mkdir(parents=True, exist_ok=True)
            ds.to_parquet(str(path))

    def present(scope: pd.DataFrame) -> list[str]:
        return [s for s in SPLITS if (scope["split"] == s).any()]

    configs = [{
        "config_name": config, "default": True, "_rows": len(df), "_task": "image → code",
        "data_files": [{"split": s, "path": f"{config}/*/{s}-*.parquet"} for s in present(df)],
    }]
    for fmt in formats:
        scope = df[df["format"] == fmt]
        configs.append({
            "config_name": fmt, "_rows": len(scope), "_task": f"image → {fmt} code",
            "data_files": [{"split": s, "path": f"{config}/{fmt}/{s}-*.parquet"}
                           for s in present(scope)],
        })
    return configs


class PublishStage(TableStage):
    """Write data/published/<name>/: Parquet splits per config with an Image column, the
    dataset card (README.md), LICENSES.md and the validation report."""

    name = "publish"
    upstream = "split"
    reads = ("id", "format", "code", "image", "split", "licence")
    output_schema = None
    funnel = False
    param_sections = ("publish",)
    code = ("cards/card.py", "cards/audit.py")
    outputs = ("data/published",)

    def run_table(self, table: pa.Table | None, log: StageLog) -> list[dict]:
        assert table is not None
        publish(self.params, table.to_pandas())
        df_splits = table.column("split").to_pylist()
        log.stats.extra.update({s: df_splits.count(s) for s in SPLITS})
        return []


def publish(params: Params, df: pd.DataFrame) -> Path:
    """Write the dataset directory; refuses unless the validate stage passed."""
    report = stage_paths(params, "validate").root / "report.json"
    if not read_state(params, "validate").get("complete") or not report.exists() \
            or not json.loads(report.read_text()).get("success"):
        raise RuntimeError("refusing to publish: the validate stage has not passed")
    out = Path(params.publish.out_dir) / params.publish.name
    tmp = out.with_name(out.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    configs = write_generation(df, tmp)
    funnel = format_funnel(load_audit(params))
    (tmp / "README.md").write_text(render_card(params, df, configs, funnel))
    (tmp / "LICENSES.md").write_text(render_licences(df))
    shutil.copyfile(report, tmp / "validation_report.json")
    (tmp / "VERSION").write_text(params.publish.version + "\n")
    atomic.replace_dir(tmp, out)
    return out
