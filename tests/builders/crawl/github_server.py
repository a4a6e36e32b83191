"""A loopback server speaking the parts of GitHub's REST API that repository search uses.

``GET /search/code?q=extension:<ext> …&per_page=&page=`` (code search: needs a token,
paged with a ``Link`` header), ``GET /repos/<owner>/<name>`` (metadata); ``ETag`` on every
answer and ``304`` for a matching ``If-None-Match``; ``x-ratelimit-*`` headers; faults on
request: a primary rate limit (``403``, remaining 0, a reset time) or a secondary one
(``429`` with ``Retry-After``) the first time a given page is asked for.  Its clock is the
test's fake clock, so reset times agree with the client's.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlparse


@dataclass
class Repo:
    full_name: str
    commit: str
    files: list[str]
    stars: int = 10
    pushed_at: str = "2024-06-01T00:00:00Z"


@dataclass
class Faults:
    primary: set[tuple[str, int]] = field(default_factory=set)
    """(extension, page) answered once with a primary rate limit (reset in ``reset_in``)."""
    secondary: set[tuple[str, int]] = field(default_factory=set)
    """(extension, page) answered once with a 429 and ``Retry-After: retry_after``."""
    reset_in: int = 30
    retry_after: int = 7


class GitHubLoopback:
    def __init__(self, repos: list[Repo], token: str, clock: Callable[[], float],
                 faults: Faults | None = None):
        self.repos = {r.full_name: r for r in repos}
        self.token = token
        self.clock = clock
        self.faults = faults or Faults()
        self.log: list[dict] = []
        self._fired: set[tuple[str, str, int]] = set()
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                server._handle(self)

            def log_message(self, *a):  # noqa: ANN002
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def __enter__(self) -> GitHubLoopback:
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    # -- answers ---------------------------------------------------------------------------
    def _items(self, ext: str) -> list[dict]:
        out = []
        for r in self.repos.values():
            for path in r.files:
                if path.rsplit("/", 1)[-1].endswith(f".{ext}"):
                    out.append({"name": path.rsplit("/", 1)[-1], "path": path,
                                "sha": hashlib.sha1(path.encode()).hexdigest(),
                                "html_url": f"{self.url}/{r.full_name}/blob/{r.commit}/{path}",
                                "repository": {"full_name": r.full_name,
                                               "html_url": f"{self.url}/{r.full_name}"}})
        return out

    def _send(self, h: BaseHTTPRequestHandler, status: int, body: dict | None,
              headers: dict[str, str], entry: dict) -> None:
        raw = json.dumps(body).encode() if body is not None else b""
        etag = f'"{hashlib.sha256(raw).hexdigest()[:16]}"'
        if status == 200 and h.headers.get("If-None-Match") == etag:
            status, raw = 304, b""
        entry["status"] = status
        with self._lock:
            self.log.append(entry)
        h.send_response(status)
        for k, v in headers.items():
            h.send_header(k, v)
        if status in (200, 304):
            h.send_header("ETag", etag)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(raw)))
        h.end_headers()
        h.wfile.write(raw)

    def _handle(self, h: BaseHTTPRequestHandler) -> None:
        u = urlparse(h.path)
        q = {k: v[0] for k, v in parse_qs(u.query).items()}
        entry = {"path": u.path, "query": q, "auth": h.headers.get("Authorization"),
                 "conditional": "If-None-Match" in h.headers}
        limits = {"x-ratelimit-limit": "10", "x-ratelimit-remaining": "9",
                  "x-ratelimit-reset": str(int(self.clock()) + 60),
                  "x-ratelimit-resource": "code_search"}
        if u.path == "/search/code":
            if h.headers.get("Authorization") != f"Bearer {self.token}":
                return self._send(h, 401, {"message": "Requires authentication"}, {}, entry)
            ext = q["q"].split("extension:", 1)[1].split()[0]
            page, per = int(q.get("page", 1)), int(q.get("per_page", 30))
            entry["page"] = page
            key = (ext, page)
            for kind in ("primary", "secondary"):
                if key in getattr(self.faults, kind) and (kind, ext, page) not in self._fired:
                    self._fired.add((kind, ext, page))
                    if kind == "primary":
                        return self._send(h, 403, {"message": "API rate limit exceeded"},
                                          {**limits, "x-ratelimit-remaining": "0",
                                           "x-ratelimit-reset":
                                               str(int(self.clock()) + self.faults.reset_in)},
                                          entry)
                    return self._send(h, 429, {"message": "You have exceeded a secondary "
                                               "rate limit"},
                                      {"Retry-After": str(self.faults.retry_after)}, entry)
            items = self._items(ext)
            last = max(1, -(-len(items) // per))
            links = []
            if page < last:
                nq = {**q, "page": str(page + 1)}
                links.append(f'<{self.url}/search/code?{urlencode(nq)}>; rel="next"')
                links.append(f'<{self.url}/search/code?{urlencode({**q, "page": last})}>; '
                             'rel="last"')
            body = {"total_count": len(items), "incomplete_results": False,
                    "items": items[(page - 1) * per:page * per]}
            return self._send(h, 200, body, {**limits, **({"Link": ", ".join(links)}
                                                          if links else {})}, entry)
        if u.path.startswith("/repos/"):
            name = u.path.removeprefix("/repos/")
            r = self.repos.get(name)
            core = {**limits, "x-ratelimit-resource": "core", "x-ratelimit-limit": "5000"}
            if r is None:
                return self._send(h, 404, {"message": "Not Found"}, core, entry)
            return self._send(h, 200, {"full_name": name, "stargazers_count": r.stars,
                                       "pushed_at": r.pushed_at, "default_branch": "main",
                                       "html_url": f"{self.url}/{name}"}, core, entry)
        return self._send(h, 404, {"message": "Not Found"}, {}, entry)
