"""A loopback server that speaks arXiv's protocols over the embedded corpus.

URL shapes as on arXiv: ``/api/query`` (Atom, the ``arxiv`` package's API),
``/oai`` (OAI-PMH with ``metadataPrefix=arXiv``, paged with resumption tokens),
``/e-print/<id>v<n>`` and ``/pdf/<id>v<n>``.  Faults on request: a 503 with Retry-After
on the first OAI call, a truncated e-print on the first download of chosen papers.
"""

from __future__ import annotations

import fnmatch
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse
from xml.sax.saxutils import escape

from lxml import etree

OAI = "http://www.openarchives.org/OAI/2.0/"
AX = "http://arxiv.org/OAI/arXiv/"


@dataclass
class Paper:
    id: str
    created: str
    categories: list[str]
    title: str
    authors: list[str]
    setspec: str
    datestamp: str
    record_xml: str
    versions: dict[str, Path]
    pdfs: dict[str, Path]


@dataclass
class Faults:
    oai_503_first: bool = True
    retry_after: int = 1
    truncate_once: set[str] = field(default_factory=set)
    missing_eprints: set[str] = field(default_factory=set)


def load_corpus(root: Path) -> list[Paper]:
    tree = etree.parse(str(root / "listing.xml"))
    papers = []
    for rec in tree.iter(f"{{{OAI}}}record"):
        meta = rec.find(f".//{{{AX}}}arXiv")
        pid = meta.findtext(f"{{{AX}}}id")
        authors = [f"{a.findtext(f'{{{AX}}}forenames')} {a.findtext(f'{{{AX}}}keyname')}"
                   for a in meta.iter(f"{{{AX}}}author")]
        vers = {p.name[len(pid) + 1:].split(".")[0]: p for p in (root / "src").glob(f"{pid}v*")}
        pdfs = {p.stem[len(pid) + 1:]: p for p in (root / "pdf").glob(f"{pid}v*.pdf")}
        papers.append(Paper(
            id=pid, created=meta.findtext(f"{{{AX}}}created"),
            categories=meta.findtext(f"{{{AX}}}categories").split(),
            title=meta.findtext(f"{{{AX}}}title"), authors=authors,
            setspec=rec.findtext(f".//{{{OAI}}}setSpec"),
            datestamp=rec.findtext(f".//{{{OAI}}}datestamp"),
            record_xml=etree.tostring(rec, encoding="unicode"), versions=vers, pdfs=pdfs))
    return sorted(papers, key=lambda p: p.created)


class ArxivLoopback:
    """Start with ``with ArxivLoopback(samples/arxiv) as srv: srv.url``."""

    def __init__(self, root: Path, faults: Faults | None = None, oai_page: int = 5):
        self.papers = load_corpus(root)
        self.faults = faults or Faults()
        self.oai_page = oai_page
        self.log: list[tuple[float, str, str, int]] = []
        self._oai_calls = 0
        self._truncated: set[str] = set()
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):  # noqa: ANN002 - quiet
                pass

            def do_GET(self):  # noqa: N802 - http.server API
                started = time.monotonic()  # pacing is about when requests arrive
                status = server.handle(self)
                with server._lock:
                    server.log.append((started, self.path,
                                       self.headers.get("User-Agent", ""), status))

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def __enter__(self) -> ArxivLoopback:
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:  # noqa: ANN002
        self.httpd.shutdown()
        self.httpd.server_close()

    def requests_to(self, prefix: str) -> list[tuple[float, str, str, int]]:
        return [r for r in self.log if r[1].startswith(prefix)]

    # -- dispatch -----------------------------------------------------------------------
    def handle(self, h: BaseHTTPRequestHandler) -> int:
        url = urlparse(h.path)
        q = {k: v[0] for k, v in parse_qs(url.query).items()}
        if url.path == "/api/query":
            return self._send(h, 200, self.atom(q).encode(), "application/atom+xml")
        if url.path == "/oai":
            with self._lock:
                self._oai_calls += 1
                first = self._oai_calls == 1
            if first and self.faults.oai_503_first:
                h.send_response(503)
                h.send_header("Retry-After", str(self.faults.retry_after))
                h.send_header("Content-Length", "0")
                h.end_headers()
                return 503
            return self._send(h, 200, self.oai(q).encode(), "text/xml")
        m = re.fullmatch(r"/(e-print|pdf)/(.+)v(\d+)", url.path)
        if m:
            return self.file(h, m.group(1), m.group(2), m.group(3))
        return self._send(h, 404, b"not found", "text/plain")

    def _send(self, h: BaseHTTPRequestHandler, status: int, body: bytes, ctype: str) -> int:
        h.send_response(status)
        h.send_header("Content-Type", ctype)
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        h.wfile.write(body)
        return status

    def file(self, h: BaseHTTPRequestHandler, kind: str, pid: str, ver: str) -> int:
        paper = next((p for p in self.papers if p.id == pid), None)
        path = None
        if paper and kind == "e-print" and pid not in self.faults.missing_eprints:
            path = paper.versions.get(ver)
        elif paper and kind == "pdf":
            path = paper.pdfs.get(ver)
        if path is None:
            return self._send(h, 404, b"no such document", "text/plain")
        data = path.read_bytes()
        with self._lock:
            cut = pid in self.faults.truncate_once and pid not in self._truncated
            if cut:
                self._truncated.add(pid)
        if cut:  # promise everything, send half, hang up
            h.send_response(200)
            h.send_header("Content-Type", "application/octet-stream")
            h.send_header("Content-Length", str(len(data)))
            h.end_headers()
            h.wfile.write(data[: len(data) // 2])
            h.wfile.flush()
            h.close_connection = True
            return 200
        return self._send(h, 200, data, "application/pdf" if kind == "pdf"
                          else "application/x-eprint-tar")

    # -- arXiv API (Atom) ---------------------------------------------------------------
    def select(self, query: str) -> list[Paper]:
        cats = re.findall(r"cat:([\w.*-]+)", query)
        dates = re.search(r"submittedDate:\[(\d{8})\d* TO (\d{8})\d*\]", query)
        out = []
        for p in self.papers:
            if cats and not any(fnmatch.fnmatch(c, pat) for c in p.categories for pat in cats):
                continue
            day = p.created.replace("-", "")
            if dates and not dates.group(1) <= day <= dates.group(2):
                continue
            out.append(p)
        return out

    def atom(self, q: dict) -> str:
        hits = self.select(q.get("search_query", ""))
        start, size = int(q.get("start", 0)), int(q.get("max_results", 10))
        entries = []
        for p in hits[start:start + size]:
            v = max(p.versions, key=int) if p.versions else "1"
            authors = "".join(f"<author><name>{escape(a)}</name></author>" for a in p.authors)
            cats = "".join(f'<category term="{c}" scheme="http://arxiv.org/schemas/atom"/>'
                           for c in p.categories)
            entries.append(f"""<entry><id>http://arxiv.org/abs/{p.id}v{v}</id>
<updated>{p.created}T00:00:00Z</updated><published>{p.created}T00:00:00Z</published>
<title>{escape(p.title)}</title><summary>Sample.</summary>{authors}
<link href="http://arxiv.org/abs/{p.id}v{v}" rel="alternate" type="text/html"/>
<link title="pdf" href="http://arxiv.org/pdf/{p.id}v{v}" rel="related" type="application/pdf"/>
<arxiv:primary_category xmlns:arxiv="http://arxiv.org/schemas/atom" term="{p.categories[0]}"/>
{cats}</entry>""")
        return f"""<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/"
 xmlns:arxiv="http://arxiv.org/schemas/atom"><title>arXiv Query</title>
<id>http://arxiv.org/api/q</id><updated>2024-02-01T00:00:00Z</updated>
<opensearch:totalResults>{len(hits)}</opensearch:totalResults>
<opensearch:startIndex>{start}</opensearch:startIndex>
<opensearch:itemsPerPage>{size}</opensearch:itemsPerPage>
{"".join(entries)}</feed>"""

    # -- OAI-PMH ------------------------------------------------------------------------
    def _oai_doc(self, verb: str, body: str) -> str:
        return (f'<?xml version="1.0" encoding="UTF-8"?><OAI-PMH xmlns="{OAI}">'
                f"<responseDate>2024-02-01T00:00:00Z</responseDate>"
                f'<request verb="{verb}">{self.url}/oai</request>{body}</OAI-PMH>')

    def oai(self, q: dict) -> str:
        verb = q.get("verb", "")
        if verb == "GetRecord":
            pid = q.get("identifier", "").removeprefix("oai:arXiv.org:")
            p = next((p for p in self.papers if p.id == pid), None)
            if p is None:
                return self._oai_doc(verb, '<error code="idDoesNotExist">no such id</error>')
            return self._oai_doc(verb, f"<GetRecord>{p.record_xml}</GetRecord>")
        if verb != "ListRecords":
            return self._oai_doc(verb, '<error code="badVerb">unsupported</error>')
        if "resumptionToken" in q:
            setspec, frm, offset = q["resumptionToken"].split("|")
            offset = int(offset)
        else:
            setspec, frm, offset = q.get("set", ""), q.get("from", ""), 0
        hits = [p for p in self.papers if (not setspec or p.setspec == setspec)
                and (not frm or p.datestamp >= frm)]
        if not hits:
            return self._oai_doc(verb, '<error code="noRecordsMatch">none</error>')
        page = hits[offset:offset + self.oai_page]
        nxt = offset + self.oai_page
        token = (f'<resumptionToken completeListSize="{len(hits)}" cursor="{offset}">'
                 f"{setspec}|{frm}|{nxt}</resumptionToken>" if nxt < len(hits)
                 else f'<resumptionToken completeListSize="{len(hits)}" cursor="{offset}"/>')
        return self._oai_doc(verb, "<ListRecords>" + "".join(p.record_xml for p in page)
                             + token + "</ListRecords>")
