"""The record model: one row per diagram, one Arrow schema shared by every stage.

Every stage reads and writes the same wide schema so that a shard written by any stage can
be read by any later one; columns a stage has not filled yet are null.  Which columns are
*filled* is tracked per stage (see ``runner.StageContract``) so a mis-wired pipeline fails
before work starts.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import asdict, dataclass
from enum import StrEnum

import pyarrow as pa

from diagramforge.measure.hostfacts import scrub


class Format(StrEnum):
    """What a diagram *is*; decides which format module parses and renders it."""

    TIKZ = "tikz"
    MXGRAPH = "mxgraph"
    SVG = "svg"
    RASTER = "raster"


RECORD_SCHEMA = pa.schema(
    [
        pa.field("id", pa.string(), nullable=False),
        pa.field("format", pa.string(), nullable=False),
        pa.field("code", pa.large_string()),
        pa.field("source", pa.string()),
        pa.field("source_id", pa.string()),
        pa.field("source_url", pa.string()),
        pa.field("group", pa.string()),
        pa.field("licence", pa.string()),
        pa.field("licence_url", pa.string()),
        pa.field("attribution", pa.string()),
        pa.field("title", pa.string()),
        pa.field("caption", pa.string()),
        pa.field("label", pa.string()),
        pa.field("context", pa.string()),
        pa.field("image", pa.binary()),
        pa.field("width", pa.int32()),
        pa.field("height", pa.int32()),
        pa.field("render_status", pa.string()),
        pa.field("render_engine", pa.string()),
        pa.field("render_error", pa.string()),
        pa.field("tokens", pa.int64()),
        pa.field("colour_entropy", pa.float64()),
        pa.field("diagram_type", pa.string()),
        pa.field("diagram_family", pa.string()),
        pa.field("graph_like", pa.bool_()),
        pa.field("diagram_type_prob", pa.float64()),
        pa.field("diagram_type_source", pa.string()),
        pa.field("diagram_type_evidence", pa.string()),
        pa.field("diagram_type_image", pa.string()),
        pa.field("diagram_type_image_prob", pa.float64()),
        pa.field("diagram_type_disagree", pa.bool_()),
        pa.field("difficulty", pa.string()),
        pa.field("graph", pa.string()),
        pa.field("graph_nodes", pa.int32()),
        pa.field("graph_edges", pa.int32()),
        pa.field("graph_components", pa.int32()),
        pa.field("graph_longest_path", pa.int32()),
        pa.field("split", pa.string()),
        pa.field("dup_cluster", pa.string()),
        pa.field("contamination", pa.string()),
        pa.field("meta", pa.string()),
    ]
)
"""Arrow schema of a diagram record (DESIGN.md, "The record")."""

RECORD_COLUMNS: tuple[str, ...] = tuple(RECORD_SCHEMA.names)

SPLITS: tuple[str, ...] = ("train", "validation", "test")
"""The values of ``split``, in the order cards and configs list them."""

SOURCE_SCHEMA = pa.schema(
    [
        pa.field("id", pa.string(), nullable=False),
        pa.field("kind", pa.string(), nullable=False),
        pa.field("version", pa.string()),
        pa.field("title", pa.string()),
        pa.field("authors", pa.string()),
        pa.field("categories", pa.string()),
        pa.field("date", pa.string()),
        pa.field("licence", pa.string()),
        pa.field("licence_url", pa.string()),
        pa.field("url", pa.string()),
        pa.field("path", pa.string()),
        pa.field("pdf_path", pa.string()),
        pa.field("meta", pa.string()),
        pa.field("content", pa.large_binary()),
    ]
)
"""Arrow schema of a crawled source: an arXiv paper (``kind=arxiv``) or a repository file
(``kind=repo``), with ``path`` the local copy the extract stage reads — or, for a file
streamed from an archive (``kind=stack``) or a post of a Stack Exchange dump
(``kind=stackexchange``, its HTML body), its bytes in ``content``: the crawl shards are
then the cache, and no file per row is written."""


class SourceKind(StrEnum):
    """Where a source came from; also the ``source`` column of its records and ledger rows,
    so the funnel and the card can be read per kind."""

    ARXIV = "arxiv"
    REPO = "repo"
    PDF = "pdf"
    """A PDF (a crawled arXiv paper's, or one from ``crawl.pdf.folder``): its figures."""
    STACK = "stack"
    """A file of The Stack (a Hugging Face dataset of repository files), streamed."""
    REPO_SEARCH = "repo_search"
    """A file of a repository found by a code search (GitHub's), checked out pinned."""
    STACKEXCHANGE = "stackexchange"
    """A question or answer of a Stack Exchange site's data dump: its code blocks."""


FILE_KINDS: frozenset[str] = frozenset({SourceKind.REPO, SourceKind.STACK,
                                        SourceKind.REPO_SEARCH})
"""Kinds whose source row is one repository file that a format handler extracts."""


REJECTION_SCHEMA = pa.schema(
    [
        pa.field("id", pa.string()),
        pa.field("locator", pa.string(), nullable=False),
        pa.field("stage", pa.string(), nullable=False),
        pa.field("reason", pa.string(), nullable=False),
        pa.field("detail", pa.string()),
        pa.field("unit", pa.string(), nullable=False),
        pa.field("source", pa.string()),
    ]
)
"""Arrow schema of the rejection ledger (``source``: the :class:`SourceKind` of the input,
filled by the runner from the rows of the unit when a stage does not say)."""


class Unit(StrEnum):
    """What a rejection accounts for.

    ``input``: one row the stage read (a paper, a record).  ``candidate``: something the stage
    found inside an input (a picture in a paper) and dropped before it became a record.  The
    audit needs the distinction to prove that nothing vanished on a 1→N stage.
    """

    INPUT = "input"
    CANDIDATE = "candidate"


@dataclass(frozen=True, slots=True)
class Rejection:
    """Why an input or candidate did not go on: ``(id or locator, stage, reason, detail)``."""

    locator: str
    reason: str
    detail: str = ""
    id: str | None = None
    stage: str = ""
    unit: str = Unit.INPUT
    source: str | None = None

    def to_row(self, stage: str) -> dict:
        row = asdict(self)
        row["stage"] = stage
        # a tool's message names where it ran (temp dirs, pids…): not a fact of the input
        row["detail"] = scrub(self.detail or "")[:2000]
        row["locator"] = scrub(self.locator)
        return row


class Refusal(Exception):
    """An input refused for a stated reason: becomes a :class:`Rejection`, never a crash.

    Format and builder modules raise subclasses (archives, XML, SVG) with a reason from
    their own enum; stage code turns them into ledger rows.
    """

    def __init__(self, reason: str, detail: str):
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


_WS = re.compile(r"\s+")


def normalise_code(code: str) -> str:
    """Whitespace-insensitive form of a diagram's code, so trivial reformatting is one id."""
    return _WS.sub(" ", code).strip()


def make_id(fmt: str, code: str) -> str:
    """Stable content id: the same diagram from two papers gets the same id (exact dedup)."""
    digest = hashlib.sha256(f"{fmt}\0{normalise_code(code)}".encode()).hexdigest()
    return digest[:24]


def item_id(*parts: object) -> str:
    """Stable id of a derived item (an edit pair, a sketch, a repair) from what defines it:
    a rerun makes the same ids, so caches, pins and changelogs line up."""
    return hashlib.sha256("\0".join(map(str, parts)).encode()).hexdigest()[:24]


def derived_seed(*parts: object) -> int:
    """A 64-bit seed from the run's seed and what an item is (diagram id, task, index): each
    item draws the same randomness whatever else is in the corpus or the unit."""
    return int.from_bytes(hashlib.sha256("\0".join(map(str, parts)).encode()).digest()[:8],
                          "big")


def empty_record(**values: object) -> dict:
    """A record dict with every schema column present (unset columns are None)."""
    unknown = set(values) - set(RECORD_COLUMNS)
    if unknown:
        raise KeyError(f"unknown record columns: {sorted(unknown)}")
    row = dict.fromkeys(RECORD_COLUMNS)
    row.update(values)
    return row
