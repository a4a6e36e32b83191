"""``stack`` sources: The Stack's per-language subsets streamed, diagram files kept.

The Stack (BigCode) is a Hugging Face dataset of permissively licensed repository files,
one Parquet row per file with its repository's provenance; SVG-Stack was cut from it.  Each
subset (``data_dir``: ``data/svg``, ``data/xml``…) is opened with ``datasets`` in
streaming mode and read a batch of Arrow rows at a time, so no subset is ever downloaded
whole and memory does not grow with it.  A row becomes a crawl row (its bytes inline, its
repository, path, commit and licences from the dataset's own columns — see
:class:`~diagramforge.builders.crawl.settings.StackColumns`) when a format handler claims it; every
other row
becomes a ledger row with its reason.  A local directory in the same layout goes through
the same ``load_dataset`` call, which is how the tests and benchmarks run offline.

The Hub token (the dataset is gated) is read from the environment variable the params
name, and only handed to ``datasets``; it never appears in params, rows or logs.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from diagramforge.builders.crawl.file_sources import FileReason, RepoFile, admit
from diagramforge.builders.crawl.settings import StackColumns, StackCrawlParams
from diagramforge.formats.registry import DiagramFormat
from diagramforge.licensing.spdx import spdx_from_ids
from diagramforge.stage import StageLog
from diagramforge.store.records import Rejection, SourceKind


class StackSchemaError(ValueError):
    """The dataset lacks a column the params map (a misconfiguration, not bad input)."""


@dataclass(frozen=True)
class StackRow:
    """One dataset row in our terms."""

    repo: str
    path: str
    commit: str
    licences: tuple[str, ...]
    content: bytes | None
    blob: str | None = None
    size: int | None = None
    stars: int | None = None
    lang: str | None = None


@contextmanager
def _without_torch() -> Iterator[None]:
    """``datasets`` imports torch whenever it is installed, to share an IterableDataset's
    epoch counter with DataLoader workers — 7 s and ~400 MB of a crawl that has no
    DataLoader.  Datasets built inside this block do without (and iterate the same)."""
    from datasets import config

    before = config.TORCH_AVAILABLE
    config.TORCH_AVAILABLE = False
    try:
        yield
    finally:
        config.TORCH_AVAILABLE = before


def open_subset(cfg: StackCrawlParams, data_dir: str):  # noqa: ANN201 - IterableDataset
    """The subset as a streaming ``IterableDataset`` of only the mapped columns, yielding
    Arrow tables."""
    from datasets import load_dataset

    kwargs: dict = {"data_dir": data_dir, "split": cfg.split, "streaming": True,
                    "token": os.environ.get(cfg.token_env) or None}
    if cfg.revision:
        kwargs["revision"] = cfg.revision
    with _without_torch():
        ds = load_dataset(cfg.dataset, **kwargs)
        wanted = [c for c in cfg.columns.model_dump().values() if c]
        have = set(ds.features or {})
        missing = [c for c in wanted if c not in have]
        if missing and ds.features is not None:  # unknown features: the first batch tells
            raise StackSchemaError(f"{cfg.dataset}/{data_dir} has no column(s) {missing} "
                                   f"(crawl.stack.columns); it has {sorted(have)}")
        return ds.select_columns(wanted).with_format("arrow")


def iter_rows(ds, cols: StackColumns, batch_rows: int) -> Iterator[StackRow]:  # noqa: ANN001
    """Rows decoded a batch of Arrow rows at a time (per-row Python dicts are the slow path
    of ``datasets``; a column list per batch is not)."""
    opt = {k: getattr(cols, k) for k in ("blob", "size", "stars", "lang")}
    for table in ds.iter(batch_size=batch_rows):
        n = table.num_rows
        get = {k: table.column(c).to_pylist() if c else [None] * n
               for k, c in {"repo": cols.repo, "path": cols.path, "commit": cols.commit,
                            "licences": cols.licences, "content": cols.content,
                            **opt}.items()}
        for i in range(n):
            content = get["content"][i]
            yield StackRow(
                repo=get["repo"][i] or "", path=get["path"][i] or "",
                commit=get["commit"][i] or "", licences=tuple(get["licences"][i] or ()),
                content=content.encode("utf-8", "surrogatepass") if isinstance(content, str)
                else content,
                blob=get["blob"][i], size=get["size"][i], stars=get["stars"][i],
                lang=get["lang"][i])


def stack_rows(cfg: StackCrawlParams, formats: dict[str, DiagramFormat],
               allow: list[str], log: StageLog) -> Iterator[dict]:
    """Every row of every subset: a crawl row, or a ledger row (``log``) saying why not."""
    via = f"{cfg.dataset}@{cfg.revision}" if cfg.revision else cfg.dataset
    for data_dir in cfg.subsets:
        ds = open_subset(cfg, data_dir)
        for n, r in enumerate(iter_rows(ds, cfg.columns, cfg.batch_rows)):
            if cfg.max_rows and n >= cfg.max_rows:
                break
            log.stats.n_in += 1
            f = RepoFile(SourceKind.STACK, r.repo, r.commit, r.path, spdx_from_ids(r.licences),
                         cfg.repo_url.format(repo=r.repo), via)
            if r.content is None:
                log.reject(Rejection(f.locator, FileReason.NO_CONTENT, data_dir,
                                     source=f.kind))
                continue
            if (r.stars or 0) < cfg.min_stars:
                log.reject(Rejection(f.locator, FileReason.FEW_STARS,
                                     f"{r.stars or 0} < {cfg.min_stars}", source=f.kind))
                continue
            fmt, rej = admit(f, r.content, formats, cfg.max_file_bytes,
                             allow if cfg.skip_disallowed_licences else None)
            if rej is not None:
                log.reject(rej)
                continue
            yield f.row({"dataset": cfg.dataset, "revision": cfg.revision,
                         "subset": data_dir, "blob": r.blob, "licences": list(r.licences),
                         "stars": r.stars, "lang": r.lang, "format": fmt},
                        content=r.content)
