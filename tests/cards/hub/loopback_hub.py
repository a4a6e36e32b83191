"""A loopback server speaking the slice of the Hugging Face Hub HTTP API that
``huggingface_hub``'s client uses to create a dataset repo, commit to it, tag it and
download from it — so ``diagramforge push`` is tested through the real client, offline.

Why not a package: PyPI's ``hf-local-hub`` (3.0.0) is a thin client around a server binary it
does not ship (it looks one up on PATH), so it cannot run here; nothing else on the index
serves the Hub API.  Storage is in memory: commits are full trees (path → bytes) with a
parent, branches and tags point at commits.  Uploads are ``regular`` (base64 inside the
commit's NDJSON), which the client supports for any file; writes need the bearer token.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlparse


def git_blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@dataclass
class Repo:
    commits: dict[str, tuple[str | None, dict[str, bytes], str]] = field(default_factory=dict)
    """sha → (parent, tree, summary)."""
    branches: dict[str, str] = field(default_factory=dict)
    tags: dict[str, str] = field(default_factory=dict)
    private: bool = False

    def commit(self, parent: str | None, tree: dict[str, bytes], summary: str) -> str:
        h = hashlib.sha1(json.dumps([parent, summary, sorted(
            (p, git_blob_id(b)) for p, b in tree.items())]).encode()).hexdigest()
        self.commits[h] = (parent, tree, summary)
        return h

    def resolve(self, rev: str) -> str | None:
        if rev in self.commits:
            return rev
        return self.branches.get(rev) or self.tags.get(rev)


class HubState:
    def __init__(self, token: str):
        self.token = token
        self.repos: dict[str, Repo] = {}
        self.lock = threading.Lock()
        self.requests: list[tuple[str, str]] = []


def _listing(tree: dict[str, bytes], sub: str, recursive: bool) -> list[dict]:
    """The Hub's tree entries under folder ``sub``: files and folders, one level unless
    ``recursive``."""
    prefix = sub.rstrip("/") + "/" if sub else ""
    files, dirs = {}, set()
    for p, b in tree.items():
        if not p.startswith(prefix):
            continue
        parts = p[len(prefix):].split("/")
        for k in range(1, len(parts)):
            dirs.add(prefix + "/".join(parts[:k]))
        if recursive or len(parts) == 1:
            files[p] = b
    if not recursive:
        dirs = {d for d in dirs if "/" not in d[len(prefix):]}
    out = [{"type": "directory", "path": d, "oid": hashlib.sha1(d.encode()).hexdigest()}
           for d in dirs]
    out += [{"type": "file", "path": p, "size": len(b), "oid": git_blob_id(b)}
            for p, b in files.items()]
    return sorted(out, key=lambda e: e["path"])


def _handler(state: HubState) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:  # quiet
            pass

        def _send(self, code: int, body: object = None, headers: dict | None = None,
                  raw: bytes | None = None, head: bool = False) -> None:
            data = raw if raw is not None else json.dumps(body or {}).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/octet-stream" if raw is not None
                             else "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            if not head:
                self.wfile.write(data)

        def _error(self, code: int, code_name: str, msg: str) -> None:
            self._send(code, {"error": msg}, {"X-Error-Code": code_name, "X-Error-Message": msg},
                       head=self.command == "HEAD")  # a HEAD answer has no body

        def _body(self) -> bytes:
            n = int(self.headers.get("Content-Length") or 0)
            return self.rfile.read(n) if n else b""

        def _authorized(self) -> bool:
            return self.headers.get("Authorization") == f"Bearer {state.token}"

        def _repo(self, parts: list[str]) -> tuple[str, Repo | None]:
            rid = f"{parts[0]}/{parts[1]}"
            return rid, state.repos.get(rid)

        # -- dispatch ---------------------------------------------------------------
        def do_HEAD(self) -> None:  # noqa: N802
            self._route("HEAD")

        def do_GET(self) -> None:  # noqa: N802
            self._route("GET")

        def do_POST(self) -> None:  # noqa: N802
            self._route("POST")

        def _route(self, method: str) -> None:
            url = urlparse(self.path)
            parts = [unquote(p) for p in url.path.strip("/").split("/")]
            state.requests.append((method, url.path))
            with state.lock:
                if parts[:3] == ["api", "repos", "create"] and method == "POST":
                    return self._create(json.loads(self._body()))
                if parts[:2] == ["api", "validate-yaml"]:
                    self._body()
                    return self._send(200, {"errors": [], "warnings": []})
                if len(parts) >= 5 and parts[:2] == ["api", "datasets"]:
                    return self._api(method, parts[2:], parse_qs(url.query))
                if len(parts) >= 6 and parts[0] == "datasets" and parts[3] == "resolve":
                    return self._resolve(method, parts[1:3], parts[4], "/".join(parts[5:]))
            self._error(404, "EntryNotFound", f"no route {method} {url.path}")

        # -- handlers ---------------------------------------------------------------
        def _create(self, body: dict) -> None:
            if not self._authorized():
                return self._error(401, "Unauthorized", "invalid token")
            rid = f"{body.get('organization') or 'user'}/{body['name']}"
            if rid in state.repos:
                return self._send(409, {"error": "You already created this dataset repo",
                                        "url": f"/datasets/{rid}"})
            repo = Repo(private=bool(body.get("private")))
            attrs = b"*.parquet filter=lfs diff=lfs merge=lfs -text\n"
            repo.branches["main"] = repo.commit(None, {".gitattributes": attrs},
                                                "initial commit")
            state.repos[rid] = repo
            self._send(200, {"url": f"http://{self.headers['Host']}/datasets/{rid}",
                             "name": rid})

        def _api(self, method: str, parts: list[str], query: dict) -> None:
            rid, repo = self._repo(parts)
            if repo is None:
                return self._error(404, "RepoNotFound", f"Repository {rid} not found")
            op, rest = parts[2], parts[3:]
            if op == "refs" and method == "GET":
                def refs(d: dict, kind: str) -> list[dict]:
                    return [{"name": n, "ref": f"refs/{kind}/{n}", "targetCommit": c}
                            for n, c in sorted(d.items())]
                return self._send(200, {"branches": refs(repo.branches, "heads"),
                                        "tags": refs(repo.tags, "tags"), "converts": [],
                                        "pullRequests": []})
            if method == "POST" and not self._authorized():
                return self._error(401, "Unauthorized", "invalid token")
            rev = "/".join(rest) if rest else "main"
            sub = ""  # tree/<rev>/<path>: a folder's listing (datasets' HfFileSystem)
            if op in {"tree", "paths-info"} and len(rest) > 1:
                rev, sub = rest[0], "/".join(rest[1:])
            sha = repo.resolve(rev)
            if op in {"revision", "tree", "paths-info", "tag", "preupload", "commit"} \
                    and sha is None:
                return self._error(404, "RevisionNotFound", f"Invalid rev id: {rev}")
            tree = repo.commits[sha][1]
            if op == "revision":
                return self._send(200, {"id": rid, "sha": sha, "private": repo.private,
                                        "siblings": [{"rfilename": p} for p in sorted(tree)]})
            if op == "tree":
                recursive = query.get("recursive", ["false"])[0].lower() == "true"
                if sub and not any(p.startswith(sub + "/") for p in tree):
                    return self._error(404, "EntryNotFound", f"{sub} does not exist")
                return self._send(200, _listing(tree, sub, recursive))
            if op == "paths-info":
                asked = parse_qs(self._body().decode()).get("paths", [])
                return self._send(200, [e for e in _listing(tree, "", True)
                                        if e["path"] in asked])
            if op == "tag":
                name = json.loads(self._body())["tag"]
                if name in repo.tags:
                    return self._error(409, "TagExists", f"Tag {name} already exists")
                repo.tags[name] = sha
                return self._send(200, {})
            if op == "preupload":
                files = json.loads(self._body())["files"]
                return self._send(200, {"files": [
                    {"path": f["path"], "uploadMode": "regular", "shouldIgnore": False,
                     "oid": git_blob_id(tree[f["path"]]) if f["path"] in tree else None}
                    for f in files]})
            if op == "commit":
                return self._commit(repo, rid, rev, sha, self._body())
            return self._error(404, "EntryNotFound", f"no route {op}")

        def _commit(self, repo: Repo, rid: str, rev: str, head: str, body: bytes) -> None:
            lines = [json.loads(x) for x in body.splitlines() if x.strip()]
            header = lines[0]["value"]
            if header.get("parentCommit") and header["parentCommit"] != head:
                return self._error(412, "PreconditionFailed", "parent commit is not the head")
            tree = dict(repo.commits[head][1])
            for item in lines[1:]:
                v = item["value"]
                if item["key"] == "file":
                    tree[v["path"]] = base64.b64decode(v["content"])
                elif item["key"] == "deletedFile":
                    if v["path"] not in tree:
                        return self._error(404, "EntryNotFound",
                                           "A file with this name doesn't exist")
                    del tree[v["path"]]
                elif item["key"] == "deletedFolder":
                    tree = {p: b for p, b in tree.items()
                            if not p.startswith(v["path"].rstrip("/") + "/")}
                else:
                    return self._error(400, "BadRequest", f"unsupported op {item['key']}")
            sha = repo.commit(head, tree, header["summary"])
            repo.branches[rev] = sha
            self._send(200, {"commitUrl": f"http://{self.headers['Host']}/datasets/{rid}"
                                          f"/commit/{sha}", "commitOid": sha,
                             "pullRequestUrl": None})

        def _resolve(self, method: str, parts: list[str], rev: str, path: str) -> None:
            rid, repo = self._repo(parts)
            if repo is None:
                return self._error(404, "RepoNotFound", f"Repository {rid} not found")
            sha = repo.resolve(rev)
            if sha is None:
                return self._error(404, "RevisionNotFound", f"Invalid rev id: {rev}")
            tree = repo.commits[sha][1]
            if path not in tree:
                return self._error(404, "EntryNotFound", f"{path} does not exist at {rev}")
            data = tree[path]
            headers = {"X-Repo-Commit": sha, "ETag": f'"{git_blob_id(data)}"',
                       "Accept-Ranges": "bytes"}
            ask = self.headers.get("Range", "")
            if ask.startswith("bytes=") and method == "GET":  # streamed Parquet reads
                lo, _, hi = ask[6:].partition("-")
                a, b = int(lo or 0), min(int(hi) if hi else len(data) - 1, len(data) - 1)
                return self._send(206, raw=data[a:b + 1], headers={
                    **headers, "Content-Range": f"bytes {a}-{b}/{len(data)}"})
            self._send(200, raw=data, head=method == "HEAD", headers=headers)

    return Handler


class LoopbackHub:
    """``with LoopbackHub(token) as hub:`` → ``hub.endpoint`` on 127.0.0.1, a free port."""

    def __init__(self, token: str = "hf_loopback_token"):
        self.state = HubState(token)
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self.state))
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> LoopbackHub:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
