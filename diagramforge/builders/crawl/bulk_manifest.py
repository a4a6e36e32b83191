"""arXiv's bulk source manifest and the names inside its chunks.

``arXiv_src_manifest.xml`` lists every chunk (``src/arXiv_src_YYMM_NNN.tar``, ~500 MB) with
its md5, size, first and last item, item count, sequence number, creation time and month.
A chunk holds one member per paper, ``YYMM/<id>.gz`` (a gzipped tar or a gzipped single
file, byte for byte what the e-print endpoint serves) or ``YYMM/<id>.pdf`` for papers with
no source; old-style ids lose their slash (``0001/astro-ph0001001.gz``). Nothing here reads
the network; the parser refuses entities, DTDs and huge trees like every other XML reader.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import asdict, dataclass

from lxml import etree

_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)
_OLD_KEY = re.compile(r"^(?P<archive>[a-z-]+(?:\.[A-Z]{2})?)(?P<num>\d{7})$")
_NEW_KEY = re.compile(r"^\d{4}\.\d{4,5}$")


@dataclass(frozen=True)
class Chunk:
    """One ``<file>`` of the manifest."""

    filename: str
    md5sum: str
    size: int
    first_item: str
    last_item: str
    num_items: int
    seq_num: int
    timestamp: str
    yymm: str
    content_md5sum: str = ""

    @property
    def name(self) -> str:
        return posixpath.basename(self.filename)

    def to_dict(self) -> dict:
        return asdict(self)


def parse_manifest(xml: bytes) -> list[Chunk]:
    """Every chunk of a manifest, in manifest order; raise ValueError on a malformed one."""
    root = etree.fromstring(xml, _PARSER)
    chunks = []
    for node in root.iter("file"):
        f = {c.tag: (c.text or "").strip() for c in node if isinstance(c.tag, str)}
        try:
            chunks.append(Chunk(
                filename=f["filename"], md5sum=f["md5sum"].lower(), size=int(f["size"]),
                first_item=f["first_item"], last_item=f["last_item"],
                num_items=int(f.get("num_items") or 0), seq_num=int(f.get("seq_num") or 0),
                timestamp=f.get("timestamp", ""), yymm=f["yymm"],
                content_md5sum=f.get("content_md5sum", "")))
        except (KeyError, ValueError) as exc:
            raise ValueError(f"manifest entry {f.get('filename', '?')}: {exc!r}") from None
    return chunks


def _month_order(yymm: str) -> str:
    """``9108`` sorts before ``0001``: arXiv's two-digit years start in 1991."""
    return ("19" if yymm[:2] >= "91" else "20") + yymm


def select(chunks: list[Chunk], yymm_from: str | None, yymm_until: str | None,
           max_chunks: int = 0) -> list[Chunk]:
    """The chunks of the months in ``[yymm_from, yymm_until]``, in time order."""
    lo = _month_order(yymm_from) if yymm_from else ""
    hi = _month_order(yymm_until) if yymm_until else "9999"
    out = sorted((c for c in chunks if lo <= _month_order(c.yymm) <= hi),
                 key=lambda c: (_month_order(c.yymm), c.seq_num, c.filename))
    return out[:max_chunks] if max_chunks else out


def key_of(arxiv_id: str) -> str:
    """The form an id takes in chunk names: ``astro-ph/0001001`` → ``astro-ph0001001``."""
    return arxiv_id.replace("/", "")


def id_of(key: str) -> str | None:
    """The arXiv id behind a chunk key, or None if the key is no arXiv id."""
    if _NEW_KEY.match(key):
        return key
    m = _OLD_KEY.match(key)
    return f"{m['archive']}/{m['num']}" if m else None


def yymm_of(arxiv_id: str) -> str:
    """The month an id was issued in (``2301.00001`` → ``2301``, ``hep-th/9108001`` →
    ``9108``)."""
    return arxiv_id.split("/")[-1][:4]


def member_key(name: str) -> tuple[str, str] | None:
    """``(key, extension)`` of a chunk member (``2301/2301.00001.gz`` → ``('2301.00001',
    'gz')``), or None for anything that is not one paper's e-print."""
    base = posixpath.basename(name)
    stem, dot, ext = base.rpartition(".")
    if not dot or ext not in ("gz", "pdf"):
        return None
    return (stem, ext) if id_of(stem) else None
