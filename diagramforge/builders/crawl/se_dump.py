"""A Stack Exchange data dump, read as tables of rows without ever holding a file.

The dump of a site is one ``.7z`` archive of XML files (``Posts.xml``, ``Users.xml``,
``PostHistory.xml``…), each a ``<row .../>`` per record with the fields as attributes.  The
archive is read with libarchive (PyPI ``libarchive-c`` over Debian's ``libarchive13``), member
by member and block by block, from a local path or any fsspec URL (a seekable file: a 7z
archive's index sits at its end); each member is parsed with ``lxml.etree.iterparse``, every
row cleared once read — memory stays flat whatever the size of the file.  (``py7zr`` was
measured too: it hands data to a writer object rather than letting a parser pull it, and on
a 141 MB ``Posts.xml`` its peak RSS was 232 MB against libarchive's 39 MB.)  A directory of
the extracted XML files, local or remote, is read the same way, and so is the dump published
as a dataset (one table per file), streamed with ``datasets``.

Rows come out as ``{attribute: text}`` dicts in the order the source holds them: the caller
must not assume Users before Posts (an archive lists its members alphabetically).
"""

from __future__ import annotations

import io
import os
import posixpath
from collections.abc import Iterable, Iterator
from datetime import date, datetime

from lxml import etree

from diagramforge.builders.crawl.settings import StackExchangeParams

TABLES = {"Posts.xml": "posts", "Users.xml": "users", "PostHistory.xml": "post_history"}
"""The dump's files this source reads, and their table names."""
BLOCK_BYTES = 1 << 20


class DumpError(Exception):
    """A dump (or one of its files) that cannot be read on: its reason and detail are
    ledgered, the run goes on with what was read."""

    def __init__(self, reason: str, detail: str):
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


class _Blocks(io.RawIOBase):
    """A stream over an iterator of byte blocks, for a parser that pulls."""

    def __init__(self, blocks: Iterable[bytes]):
        self._it = iter(blocks)
        self._buf = memoryview(b"")

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:  # noqa: ANN001 - a writable buffer
        while not len(self._buf):
            chunk = next(self._it, None)
            if chunk is None:
                return 0
            self._buf = memoryview(chunk)
        n = min(len(b), len(self._buf))
        b[:n] = self._buf[:n]
        self._buf = self._buf[n:]
        return n


def xml_rows(stream: io.IOBase, name: str) -> Iterator[dict[str, str]]:
    """The ``<row>`` elements of one dump file as attribute dicts, each element freed once
    read.  No DTD, no entities beyond XML's own, no network: the file is a stranger's."""
    parser = etree.iterparse(stream, events=("end",), tag="row", resolve_entities=False,
                             load_dtd=False, no_network=True, remove_comments=True)
    try:
        for _, el in parser:
            yield dict(el.attrib)
            el.clear()
            while el.getprevious() is not None:
                del el.getparent()[0]
    except etree.XMLSyntaxError as exc:
        raise DumpError("dump_corrupt", f"{name}: {exc}") from exc


def _wanted(member: str) -> str | None:
    return TABLES.get(posixpath.basename(member.replace("\\", "/")))


def _archive_tables(f: io.IOBase, where: str) -> Iterator[tuple[str, Iterator[dict]]]:
    import libarchive
    from libarchive.exception import ArchiveError

    try:
        with libarchive.stream_reader(f, block_size=BLOCK_BYTES) as archive:
            for entry in archive:
                table = _wanted(entry.pathname or "")
                if table is None or not entry.isfile:
                    continue
                yield table, xml_rows(io.BufferedReader(_Blocks(entry.get_blocks()),
                                                        BLOCK_BYTES), entry.pathname)
    except ArchiveError as exc:
        raise DumpError("dump_unreadable", f"{where}: not a readable archive ({exc})") from exc


def dump_tables(cfg: StackExchangeParams) -> Iterator[tuple[str, Iterator[dict]]]:
    """``(table, rows)`` for each dump file this source reads, in the source's order; each
    ``rows`` must be read (or dropped) before the next is asked for."""
    if cfg.dataset:
        yield from _dataset_tables(cfg)
        return
    import fsspec

    fs, path = fsspec.core.url_to_fs(cfg.dump, **cfg.storage_options)
    if not fs.exists(path):
        raise FileNotFoundError(f"crawl.stackexchange.dump {cfg.dump} does not exist")
    if fs.isdir(path):
        for name in ("Users.xml", "PostHistory.xml", "Posts.xml"):
            p = posixpath.join(path, name)
            if fs.exists(p):
                with fs.open(p, "rb", block_size=BLOCK_BYTES) as f:
                    yield TABLES[name], xml_rows(f, name)
        return
    with fs.open(path, "rb", block_size=BLOCK_BYTES) as f:
        yield from _archive_tables(f, posixpath.basename(path))


def _text(v: object) -> str | None:
    """A dataset cell as the dump's attribute text (timestamps in the dump's spelling)."""
    if v is None:
        return None
    if isinstance(v, datetime):
        return v.replace(tzinfo=None).isoformat(timespec="milliseconds")
    if isinstance(v, date):
        return v.isoformat()
    return str(v)


def _dataset_tables(cfg: StackExchangeParams) -> Iterator[tuple[str, Iterator[dict]]]:
    from datasets import load_dataset

    # lazy: loads datasets, licensedcode
    from diagramforge.builders.crawl.stack import _without_torch as without_torch

    kwargs: dict = {"split": cfg.split, "streaming": True,
                    "token": os.environ.get(cfg.token_env) or None}
    if cfg.revision:
        kwargs["revision"] = cfg.revision
    t = cfg.tables
    for table, data_dir in (("users", t.users), ("post_history", t.post_history),
                            ("posts", t.posts)):
        if not data_dir:
            continue
        with without_torch():
            ds = load_dataset(cfg.dataset, data_dir=data_dir, **kwargs).with_format("arrow")
        yield table, _arrow_rows(ds, cfg.batch_rows)


def _arrow_rows(ds, batch_rows: int) -> Iterator[dict]:  # noqa: ANN001 - IterableDataset
    for batch in ds.iter(batch_size=batch_rows):
        cols = {name: batch.column(name).to_pylist() for name in batch.column_names}
        for i in range(batch.num_rows):
            yield {k: s for k, v in cols.items() if (s := _text(v[i])) is not None}
