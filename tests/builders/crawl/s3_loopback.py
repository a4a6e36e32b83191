"""A loopback S3 endpoint for the bulk crawl: moto's ``ThreadedMotoServer`` (the real S3
REST protocol: signed requests, ranged GETs, HEAD, listings) behind a thin proxy on
loopback that records every request's headers (moto ignores ``x-amz-request-payer``, so the
proxy is where the test sees that the client sent it) and can cut a response body short
once, as a dropped connection would.
"""

from __future__ import annotations

import http.client
import logging
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import boto3
from moto.server import ThreadedMotoServer

KEY, SECRET, REGION = "testing", "testing", "us-east-1"
_HOP = {"connection", "keep-alive", "transfer-encoding", "proxy-connection", "te", "trailer",
        "upgrade"}


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    status: int = 0
    cut_at: int | None = None


@dataclass
class ProxyState:
    upstream: tuple[str, int]
    cuts: dict[str, list[int]] = field(default_factory=dict)
    """Object path (``/bucket/key``) → for each of its next GETs, the bytes after which the
    body is cut (a dropped connection); popped one per GET."""
    log: list[Seen] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


class _Proxy(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    state: ProxyState

    def log_message(self, *args: object) -> None:
        pass

    def _forward(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        seen = Seen(self.command, self.path, {k.lower(): v for k, v in self.headers.items()})
        with self.state.lock:
            self.state.log.append(seen)
        conn = http.client.HTTPConnection(*self.state.upstream, timeout=30)
        conn.request(self.command, self.path, body=body or None,
                     headers={k: v for k, v in self.headers.items()
                              if k.lower() not in _HOP})
        resp = conn.getresponse()
        data = resp.read()
        conn.close()
        seen.status = resp.status
        path = self.path.split("?")[0]
        cut = None
        if self.command == "GET" and resp.status in (200, 206):
            with self.state.lock:
                pending = self.state.cuts.get(path)
                cut = pending.pop(0) if pending else None
        self.send_response(resp.status)
        for k, v in resp.getheaders():
            if k.lower() not in _HOP and (k.lower() != "content-length"
                                          or self.command == "HEAD"):
                self.send_header(k, v)
        if self.command != "HEAD":
            self.send_header("Content-Length", str(len(data)))
        if cut is not None:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command == "HEAD":
            return
        if cut is None:
            self.wfile.write(data)
            return
        seen.cut_at = cut
        self.wfile.write(data[:cut])
        self.wfile.flush()
        self.close_connection = True

    do_GET = do_HEAD = do_PUT = do_POST = do_DELETE = _forward


class S3Loopback:
    """``with S3Loopback() as s3:`` — ``s3.storage_options`` for fsspec, ``s3.put`` to
    upload, ``s3.state.log`` for what the client sent, ``s3.state.cuts`` for faults."""

    def __init__(self, bucket: str = "arxiv"):
        self.bucket = bucket

    def __enter__(self) -> S3Loopback:
        logging.getLogger("werkzeug").setLevel(logging.ERROR)  # moto's access log
        self.moto = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
        self.moto.start()
        host, port = self.moto.get_host_and_port()
        self.state = ProxyState(upstream=(host, port))
        handler = type("Proxy", (_Proxy,), {"state": self.state})
        self.proxy = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.thread = threading.Thread(target=self.proxy.serve_forever, daemon=True)
        self.thread.start()
        self.endpoint = f"http://127.0.0.1:{self.proxy.server_address[1]}"
        self.client = boto3.client("s3", endpoint_url=f"http://{host}:{port}",
                                   aws_access_key_id=KEY, aws_secret_access_key=SECRET,
                                   region_name=REGION)
        self.client.create_bucket(Bucket=self.bucket)
        self.client.put_bucket_request_payment(
            Bucket=self.bucket, RequestPaymentConfiguration={"Payer": "Requester"})
        return self

    @property
    def storage_options(self) -> dict:
        return {"endpoint_url": self.endpoint, "key": KEY, "secret": SECRET,
                "client_kwargs": {"region_name": REGION}}

    def put(self, key: str, data: bytes) -> None:
        self.client.put_object(Bucket=self.bucket, Key=key, Body=data)

    def gets(self, key: str) -> list[Seen]:
        return [s for s in self.state.log
                if s.method == "GET" and s.path.split("?")[0] == f"/{self.bucket}/{key}"]

    def __exit__(self, *exc: object) -> None:
        self.proxy.shutdown()
        self.proxy.server_close()
        self.moto.stop()
