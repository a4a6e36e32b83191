"""arXiv metadata: parse OAI-PMH ``arXiv``-format records (which carry ``<license>``).

The ``arxiv`` API package does not return licences; OAI-PMH with ``metadataPrefix=arXiv``
does, so listings are read as OAI-PMH whether they come from a file in ``samples/`` or
from an endpoint (:mod:`diagramforge.builders.crawl.arxiv_http`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

from lxml import etree
from sickle.models import Record

from diagramforge.licensing.spdx import allowed, spdx_from_url
from diagramforge.store.records import Rejection

if TYPE_CHECKING:
    from diagramforge.builders.crawl.settings import CrawlSettings

OAI_NS = "http://www.openarchives.org/OAI/2.0/"
ARXIV_NS = "http://arxiv.org/OAI/arXiv/"
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)


@dataclass
class Entry:
    """One paper as listed by OAI-PMH."""

    id: str
    title: str
    authors: list[str]
    categories: list[str]
    created: str
    licence_url: str | None
    datestamp: str

    @property
    def licence(self) -> str:
        return spdx_from_url(self.licence_url)

    def in_scope(self, categories: list[str], from_date: str | None,
                 until_date: str | None) -> str | None:
        """Why the entry is out of the configured scope, or None."""
        if categories and not any(c == want or c.startswith(want + ".") or
                                  c.split(".")[0] == want for c in self.categories
                                  for want in categories):
            return f"categories {self.categories} not in {categories}"
        if from_date and self.created < from_date:
            return f"created {self.created} before {from_date}"
        if until_date and self.created > until_date:
            return f"created {self.created} after {until_date}"
        return None

    def to_row(self, version: str | None, path: str | None, pdf_path: str | None) -> dict:
        vid = f"{self.id}v{version}" if version else self.id
        return {
            "id": self.id, "kind": "arxiv", "version": version, "title": self.title,
            "authors": json.dumps(self.authors), "categories": " ".join(self.categories),
            "date": self.created, "licence": self.licence, "licence_url": self.licence_url,
            "url": f"https://arxiv.org/abs/{vid}", "path": path,
            "pdf_path": pdf_path, "meta": json.dumps({"datestamp": self.datestamp}),
        }


def _text(el: etree._Element | None) -> str:
    return " ".join("".join(el.itertext()).split()) if el is not None else ""


def parse_record(node: etree._Element) -> Entry | None:
    """An :class:`Entry` from an OAI ``<record>`` element (None for deleted records)."""
    rec = Record(node)
    if rec.deleted:
        return None
    meta = node.find(f".//{{{ARXIV_NS}}}arXiv")
    if meta is None:
        return None
    authors = []
    for a in meta.findall(f"{{{ARXIV_NS}}}authors/{{{ARXIV_NS}}}author"):
        fore = _text(a.find(f"{{{ARXIV_NS}}}forenames"))
        key = _text(a.find(f"{{{ARXIV_NS}}}keyname"))
        authors.append(f"{fore} {key}".strip())
    lic = meta.find(f"{{{ARXIV_NS}}}license")
    return Entry(
        id=_text(meta.find(f"{{{ARXIV_NS}}}id")),
        title=_text(meta.find(f"{{{ARXIV_NS}}}title")),
        authors=authors,
        categories=_text(meta.find(f"{{{ARXIV_NS}}}categories")).split(),
        created=_text(meta.find(f"{{{ARXIV_NS}}}created")),
        licence_url=_text(lic) or None,
        datestamp=rec.header.datestamp,
    )


def parse_listing(xml: bytes) -> tuple[list[Entry], str | None]:
    """Entries of one ListRecords response and its resumption token (None at the end)."""
    root = etree.fromstring(xml, _PARSER)
    err = root.find(f"{{{OAI_NS}}}error")
    if err is not None and err.get("code") != "noRecordsMatch":
        raise ValueError(f"OAI-PMH error {err.get('code')}: {_text(err)}")
    entries = [e for n in root.iter(f"{{{OAI_NS}}}record") if (e := parse_record(n))]
    tok = root.find(f".//{{{OAI_NS}}}resumptionToken")
    return entries, (tok.text.strip() if tok is not None and tok.text else None)


def local_versions(directory: Path, arxiv_id: str) -> dict[str, Path]:
    """``{version: path}`` of the e-prints (or PDFs) of one paper in a local corpus."""
    out = {}
    safe = arxiv_id.replace("/", "_")
    for p in directory.glob(f"{safe}v*"):
        v = p.name[len(safe) + 1:].split(".")[0]
        if v.isdigit():
            out[v] = p
    return dict(sorted(out.items(), key=lambda kv: int(kv[0])))


class CrawlReason(StrEnum):
    OUT_OF_SCOPE = "out_of_scope"
    OVER_MAX = "over_max_papers"
    LICENCE = "licence_not_allowed"
    NO_EPRINT = "eprint_missing"
    DOWNLOAD = "download_failed"
    CLONE = "clone_failed"
    TOO_LARGE = "file_too_large"


def licence_refusal(entry: Entry, params: CrawlSettings) -> Rejection | None:
    """arXiv metadata carries the licence, so a paper the licence filter would drop is
    refused here, before anything is downloaded (``crawl.arxiv.skip_disallowed_licences``)."""
    if params.crawl.arxiv.skip_disallowed_licences and not allowed(entry.licence,
                                                                    params.licences.allow):
        return Rejection(f"arxiv:{entry.id}", CrawlReason.LICENCE,
                         f"{entry.licence} ({entry.licence_url})")
    return None
