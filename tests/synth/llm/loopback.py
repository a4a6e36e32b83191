"""Scripted loopback HTTP servers (127.0.0.1, a thread) for the vendor wire protocols.

Each request pops the next scripted ``Reply`` (or uses the server's default) and is recorded
with its method, path, headers and JSON body, so tests can count what really reached the
"vendor". ``OpenAIBatchServer`` adds the stateful Files and Batches endpoints.
"""

from __future__ import annotations

import email.policy
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from email.parser import BytesParser
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    status: int = 200
    body: Any = None
    """A dict is sent as JSON; a str or bytes as is."""
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0


@dataclass
class Seen:
    path: str
    headers: dict[str, str]
    body: Any
    method: str = "POST"


class Loopback:
    """Scripted replies to every POST (and GET); subclasses route by path in ``reply``."""

    def __init__(self, default: Reply) -> None:
        self.default = default
        self.script: list[Reply] = []
        self.requests: list[Seen] = []
        self._lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output quiet
                pass

            def _serve(self, method: str) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length", 0) or 0))
                headers = {k.lower(): v for k, v in self.headers.items()}
                try:
                    body: Any = json.loads(raw) if raw else None
                except ValueError:
                    body = raw
                with owner._lock:
                    owner.requests.append(Seen(self.path, headers, body, method))
                    reply = owner.reply(method, self.path, headers, raw)
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                if isinstance(reply.body, bytes):
                    data, ctype = reply.body, "application/octet-stream"
                else:
                    text = reply.body if isinstance(reply.body, str) else json.dumps(reply.body)
                    data, ctype = text.encode(), "application/json"
                try:
                    self.send_response(reply.status)
                    self.send_header("content-type", ctype)
                    self.send_header("content-length", str(len(data)))
                    for k, v in reply.headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:  # the client timed out and hung up
                    pass

            def do_POST(self) -> None:  # noqa: N802 - http.server API
                self._serve("POST")

            def do_GET(self) -> None:  # noqa: N802 - http.server API
                self._serve("GET")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.block_on_close = False
        self.thread = threading.Thread(target=self.server.serve_forever,
                                       kwargs={"poll_interval": 0.05}, daemon=True)

    def reply(self, method: str, path: str, headers: dict[str, str], raw: bytes) -> Reply:
        """The next scripted reply, else the default (called under the lock)."""
        return self.script.pop(0) if self.script else self.default

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


Answer = Callable[[str, dict[str, Any]], tuple[int, dict[str, Any]]]


def _default_answer(custom_id: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    return 200, openai_reply('{"caption": "A login flow", "kind": "flowchart", "nodes": 4}').body


class OpenAIBatchServer(Loopback):
    """The OpenAI Files and Batches endpoints, with state: an uploaded JSONL becomes a batch
    that moves validating → in_progress → finalizing → ``final`` one step per retrieve, then
    has an output file (status 200 lines) and an error file (the rest), each line answered
    by ``answer(custom_id, request_body)``. ``answered`` limits how many lines get a result
    (an expired batch keeps what it finished). A scripted reply, when present, wins (faults).
    Chat completions posted directly are answered by ``answer`` too (the repair calls)."""

    STEPS = ("validating", "in_progress", "finalizing")

    def __init__(self, answer: Answer = _default_answer, final: str = "completed",
                 answered: int | None = None) -> None:
        super().__init__(default=Reply())
        self.answer, self.final, self.answered = answer, final, answered
        self.files: dict[str, tuple[str, bytes]] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.polls: dict[str, int] = {}

    def _file(self, content: bytes, purpose: str, name: str) -> dict[str, Any]:
        fid = f"file-{len(self.files) + 1}"
        self.files[fid] = (purpose, content)
        return {"id": fid, "object": "file", "bytes": len(content), "created_at": 0,
                "filename": name, "purpose": purpose, "status": "processed"}

    def reply(self, method: str, path: str, headers: dict[str, str], raw: bytes) -> Reply:
        if self.script:
            return self.script.pop(0)
        if method == "POST" and path == "/v1/files":
            form = _multipart(headers["content-type"], raw)
            purpose = form["purpose"][1].decode()
            return Reply(body=self._file(form["file"][1], purpose, form["file"][0] or "upload"))
        if method == "POST" and path == "/v1/batches":
            req = json.loads(raw)
            if req["input_file_id"] not in self.files:
                return openai_error(404, "no such file")
            bid = f"batch_{len(self.batches) + 1}"
            self.batches[bid] = {
                "id": bid, "object": "batch", "endpoint": req["endpoint"],
                "input_file_id": req["input_file_id"],
                "completion_window": req["completion_window"], "status": "validating",
                "created_at": 0, "metadata": req.get("metadata"),
                "request_counts": {"total": 0, "completed": 0, "failed": 0}}
            self.polls[bid] = 0
            return Reply(body=self.batches[bid])
        if path.startswith("/v1/batches/"):
            bid = path.split("/")[3]
            batch = self.batches.get(bid)
            if batch is None:
                return openai_error(404, "no such batch")
            if method == "POST" and path.endswith("/cancel"):
                batch["status"] = "cancelled"
                return Reply(body=batch)
            if batch["status"] in self.STEPS:
                self.polls[bid] += 1
                step = self.polls[bid]
                if step < len(self.STEPS):
                    batch["status"] = self.STEPS[step]
                else:
                    self._finish(batch)
            return Reply(body=batch)
        if method == "GET" and path.startswith("/v1/files/") and path.endswith("/content"):
            fid = path.split("/")[3]
            if fid not in self.files:
                return openai_error(404, "no such file")
            return Reply(body=self.files[fid][1])
        if method == "POST" and path == "/v1/chat/completions":
            status, body = self.answer("", json.loads(raw))
            return Reply(status=status, body=body)
        return openai_error(404, f"no route {method} {path}")

    def _finish(self, batch: dict[str, Any]) -> None:
        lines = [json.loads(x) for x in self.files[batch["input_file_id"]][1].splitlines()
                 if x.strip()]
        if self.final == "failed":  # failed validation: no output, the reasons in ``errors``
            batch["status"] = "failed"
            batch["errors"] = {"object": "list", "data": [
                {"code": "invalid_request", "message": "the model does not support batches",
                 "line": 1, "param": "body.model"}]}
            return
        limit = len(lines) if self.answered is None else self.answered
        out, err = [], []
        for n, line in enumerate(lines[:limit]):
            status, body = self.answer(line["custom_id"], line["body"])
            rec = {"id": f"batch_req_{n}", "custom_id": line["custom_id"], "error": None,
                   "response": {"status_code": status, "request_id": f"req_{n}",
                                "body": body}}
            (out if status == 200 else err).append(json.dumps(rec))
        batch["status"] = self.final
        batch["request_counts"] = {"total": len(lines), "completed": len(out),
                                   "failed": len(err)}
        for name, rows in (("output_file_id", out), ("error_file_id", err)):
            if rows:
                batch[name] = self._file(("\n".join(rows) + "\n").encode(), "batch_output",
                                         f"{batch['id']}_{name}.jsonl")["id"]


def _multipart(content_type: str, raw: bytes) -> dict[str, tuple[str | None, bytes]]:
    """``{field: (filename, bytes)}`` of a multipart/form-data body (stdlib email parser)."""
    msg = BytesParser(policy=email.policy.HTTP).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + raw)
    out: dict[str, tuple[str | None, bytes]] = {}
    for part in msg.iter_parts():
        name = part.get_param("name", header="content-disposition")
        out[str(name)] = (part.get_filename(), part.get_payload(decode=True) or b"")
    return out
