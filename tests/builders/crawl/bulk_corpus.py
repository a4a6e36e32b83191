"""A bulk source archive generated from the embedded corpus: chunks laid out as arXiv's
(``YYMM/<id>.gz`` members holding the e-print bytes the e-print endpoint serves), their
manifest, and a metadata snapshot shaped like arXiv's public one (Kaggle JSON lines)."""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path

from diagramforge.builders.crawl.arxiv import parse_listing
from tests.conftest import SAMPLES

CHUNK_TIME = "2024-02-01 03:00:00"


def latest_eprints(root: Path = SAMPLES / "arxiv") -> dict[str, tuple[str, bytes]]:
    """``{id: (version, bytes)}`` of each paper's newest e-print in the corpus."""
    out: dict[str, tuple[str, bytes]] = {}
    for p in sorted((root / "src").iterdir()):
        pid, _, rest = p.name.partition("v")
        v = rest.split(".")[0]
        if pid not in out or int(v) > int(out[pid][0]):
            out[pid] = (v, p.read_bytes())
    return out


def snapshot_records(root: Path = SAMPLES / "arxiv") -> list[dict]:
    """The listing's papers as metadata-snapshot records, one version per e-print file."""
    entries, _ = parse_listing((root / "listing.xml").read_bytes())
    eprints = latest_eprints(root)
    recs = []
    for e in entries:
        day = datetime.fromisoformat(e.created).replace(hour=9, tzinfo=UTC)
        n = int(eprints[e.id][0]) if e.id in eprints else 1
        versions = [{"version": f"v{k}", "created": format_datetime(day + timedelta(days=k - 1),
                                                                     usegmt=True)}
                    for k in range(1, n + 1)]
        recs.append({
            "id": e.id, "submitter": e.authors[0], "authors": ", ".join(e.authors),
            "title": e.title, "comments": None, "journal-ref": None, "doi": None,
            "report-no": None, "categories": " ".join(e.categories), "license": e.licence_url,
            "abstract": "…", "versions": versions, "update_date": e.datestamp,
            "authors_parsed": [[a.split(" ", 1)[1] if " " in a else a,
                                a.split(" ", 1)[0] if " " in a else "", ""]
                               for a in e.authors],
        })
    return recs


def write_jsonl(recs: list[dict], path: Path) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path


def make_tar(members: list[tuple[str, bytes]]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as tar:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.mode = len(data), 1706745600, 0o644
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


@dataclass
class ChunkFile:
    """One chunk: its bytes, and what the manifest says of it (which tests may falsify)."""

    yymm: str
    seq: int
    members: list[tuple[str, bytes]]
    data: bytes = b""
    md5: str = ""
    size: int = 0
    first: str = ""
    last: str = ""
    timestamp: str = CHUNK_TIME

    def __post_init__(self) -> None:
        self.data = self.data or make_tar(self.members)
        self.md5 = self.md5 or hashlib.md5(self.data).hexdigest()  # noqa: S324
        self.size = self.size or len(self.data)
        keys = sorted(Path(n).name.rsplit(".", 1)[0] for n, _ in self.members
                      if n.endswith((".gz", ".pdf")))
        self.first, self.last = self.first or keys[0], self.last or keys[-1]

    @property
    def name(self) -> str:
        return f"arXiv_src_{self.yymm}_{self.seq:03d}.tar"


def paper_members(ids: list[str], eprints: dict[str, tuple[str, bytes]]
                  ) -> list[tuple[str, bytes]]:
    return [(f"{pid[:4]}/{pid}.gz", eprints[pid][1]) for pid in ids]


def manifest_xml(chunks: list[ChunkFile]) -> bytes:
    files = "".join(
        "  <file>\n"
        f"    <content_md5sum>{hashlib.md5(c.data[:512]).hexdigest()}</content_md5sum>\n"  # noqa: S324
        f"    <filename>src/{c.name}</filename>\n"
        f"    <first_item>{c.first}</first_item>\n    <last_item>{c.last}</last_item>\n"
        f"    <md5sum>{c.md5}</md5sum>\n    <num_items>{len(c.members)}</num_items>\n"
        f"    <seq_num>{c.seq}</seq_num>\n    <size>{c.size}</size>\n"
        f"    <timestamp>{c.timestamp}</timestamp>\n    <yymm>{c.yymm}</yymm>\n"
        "  </file>\n" for c in chunks)
    return (f"<?xml version='1.0' standalone='yes'?>\n<arXivSRC>\n{files}"
            "  <timestamp>Thu Feb  1 03:00:00 2024</timestamp>\n</arXivSRC>\n").encode()


def upload(s3, chunks: list[ChunkFile], prefix: str = "src") -> None:  # noqa: ANN001
    s3.put(f"{prefix}/arXiv_src_manifest.xml", manifest_xml(chunks))
    for c in chunks:
        s3.put(f"{prefix}/{c.name}", c.data)


def filler_papers(n: int, kb: int, yymm: str = "2401", start: int = 201
                  ) -> tuple[dict[str, tuple[str, bytes]], list[dict]]:
    """``n`` extra single-file e-prints of ~``kb`` KB (incompressible text, so chunks span
    several download blocks) with CC BY metadata: ``(eprints, snapshot records)``."""
    import gzip
    import random

    rnd = random.Random(n * 1000 + kb)
    eprints, recs = {}, []
    for k in range(n):
        pid = f"{yymm}.{start + k:05d}"
        words = " ".join("".join(rnd.choices("abcdefghijklmnopqrstuvwxyz", k=7))
                         for _ in range(kb * 128))
        tex = f"\\documentclass{{article}}\\begin{{document}}{words}\\end{{document}}\n"
        eprints[pid] = ("1", gzip.compress(tex.encode(), mtime=0))
        recs.append({"id": pid, "authors": "Filler Author", "title": f"Filler {k}",
                     "categories": "cs.LG", "license": "http://creativecommons.org/licenses/by/4.0/",
                     "versions": [{"version": "v1", "created": "Mon, 15 Jan 2024 09:00:00 GMT"}],
                     "update_date": "2024-01-15", "authors_parsed": [["Author", "Filler", ""]]})
    return eprints, recs
