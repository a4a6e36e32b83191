"""A scripted loopback HTTP server (127.0.0.1, a thread) for the vendor wire protocols.

Each POST pops the next scripted ``Reply`` (or uses the server's default) and is recorded
with its path, headers and JSON body, so tests can count what really reached the "vendor".
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    status: int = 200
    body: Any = None
    """A dict is sent as JSON; a str as is."""
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0


@dataclass
class Seen:
    path: str
    headers: dict[str, str]
    body: Any


class Loopback:
    def __init__(self, default: Reply) -> None:
        self.default = default
        self.script: list[Reply] = []
        self.requests: list[Seen] = []
        self._lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output quiet
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server API
                raw = self.rfile.read(int(self.headers.get("content-length", 0)))
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = raw.decode("utf-8", "replace")
                headers = {k.lower(): v for k, v in self.headers.items()}
                with owner._lock:
                    owner.requests.append(Seen(self.path, headers, body))
                    reply = owner.script.pop(0) if owner.script else owner.default
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                data = reply.body if isinstance(reply.body, str) else json.dumps(reply.body)
                try:
                    self.send_response(reply.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data.encode())))
                    for k, v in reply.headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data.encode())
                except OSError:  # the client timed out and hung up
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.block_on_close = False
        self.thread = threading.Thread(target=self.server.serve_forever,
                                       kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> Loopback:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()


def openai_reply(content: str, prompt_tokens: int = 100, completion_tokens: int = 20,
                 finish_reason: str = "stop") -> Reply:
    """A chat.completions response in the OpenAI wire format."""
    return Reply(body={
        "id": "chatcmpl-loopback", "object": "chat.completion", "created": 0,
        "model": "gpt-loopback",
        "choices": [{"index": 0, "finish_reason": finish_reason, "logprobs": None,
                     "message": {"role": "assistant", "content": content, "refusal": None}}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    })


def openai_error(status: int, message: str, headers: dict[str, str] | None = None) -> Reply:
    return Reply(status=status, headers=headers or {}, body={
        "error": {"message": message, "type": "error", "param": None, "code": None}})


def gemini_reply(text: str, prompt_tokens: int = 100, output_tokens: int = 20,
                 finish_reason: str = "STOP") -> Reply:
    """A generateContent response in the Gemini REST wire format."""
    return Reply(body={
        "candidates": [{"content": {"role": "model", "parts": [{"text": text}]},
                        "finishReason": finish_reason, "index": 0}],
        "usageMetadata": {"promptTokenCount": prompt_tokens,
                          "candidatesTokenCount": output_tokens,
                          "totalTokenCount": prompt_tokens + output_tokens},
        "modelVersion": "gemini-loopback",
    })


def gemini_error(status: int, message: str, headers: dict[str, str] | None = None) -> Reply:
    names = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 429: "RESOURCE_EXHAUSTED",
             500: "INTERNAL", 503: "UNAVAILABLE"}
    return Reply(status=status, headers=headers or {}, body={
        "error": {"code": status, "message": message, "status": names.get(status, "UNKNOWN")}})
