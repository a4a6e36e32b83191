"""The polite session's download: bytes as sent, capped, never fetched twice."""

from __future__ import annotations

import gzip
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from diagramforge.builders.crawl.polite import TooLarge, download, polite_session

PAYLOAD = gzip.compress(b"\0" * 2_000_000, mtime=0)  # 2 MB of zeros in ~2 kB


class Handler(BaseHTTPRequestHandler):
    hits = 0

    def do_GET(self):  # noqa: N802
        Handler.hits += 1
        self.send_response(200)
        self.send_header("Content-Encoding", "x-gzip")  # as arXiv labels gzip e-prints
        self.send_header("Content-Length", str(len(PAYLOAD)))
        self.end_headers()
        self.wfile.write(PAYLOAD)

    def log_message(self, *a):  # noqa: ANN002
        pass


@pytest.fixture
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


def test_content_encoding_is_not_undone_and_size_is_capped(server, tmp_path):
    s = polite_session("t/1", 0.0, 1, 10)
    path = download(s, f"{server}/e-print/1", tmp_path / "a")
    assert path.read_bytes() == PAYLOAD  # stored compressed; the archive reader caps inflation
    hits = Handler.hits
    download(s, f"{server}/e-print/1", tmp_path / "a")
    assert Handler.hits == hits  # cached: not fetched twice
    with pytest.raises(TooLarge):
        download(s, f"{server}/e-print/2", tmp_path / "b", max_bytes=100)
    assert not (tmp_path / "b").exists()
