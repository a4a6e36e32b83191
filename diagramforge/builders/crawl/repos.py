"""Template repositories: a pinned, shallow, cached checkout and one source row per file.

Each repository in ``params.yaml`` is pinned by a tag, branch or commit; the ref is
resolved to a commit first (``git ls-remote``), so a commit already in the cache is never
cloned twice.  Local paths and git bundles work like URLs — that is how the embedded
corpus and the tests run offline.  The licence is read from the licence files (LICENSE,
COPYING…) and package manifests by ScanCode (``diagramforge.licensing.repository``) as an SPDX
expression and carried on every file, with the evidence.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from diagramforge.builders.crawl.settings import RepoCrawlParams, RepoSpec
from diagramforge.formats.registry import handlers
from diagramforge.licensing.repository import RepoLicence, repository_licence
from diagramforge.store import atomic

_SHA = re.compile(r"[0-9a-f]{40}")
GIT_ENV = {"GIT_TERMINAL_PROMPT": "0", "GIT_CONFIG_NOSYSTEM": "1", "GIT_ASKPASS": "true"}


class GitError(RuntimeError):
    pass


def _git(args: list[str], cwd: Path | None = None, timeout: float = 300) -> str:
    env = {**os.environ, **GIT_ENV}
    try:
        res = subprocess.run(["git", "-c", "core.symlinks=false", "-c",
                              "protocol.file.allow=always", *args], cwd=cwd, env=env,
                             capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        raise GitError(f"git {args[0]} timed out after {timeout}s") from exc
    if res.returncode != 0:
        raise GitError(f"git {' '.join(args[:2])}: {res.stderr.strip()[:500]}")
    return res.stdout


def repo_name(spec: RepoSpec) -> str:
    if spec.name:
        return spec.name
    base = spec.url.rstrip("/").rsplit("/", 1)[-1]
    return re.sub(r"\.(git|bundle)$", "", base)


def _url(spec: RepoSpec) -> str:
    """Local paths become absolute, so git resolves them from any working directory."""
    if re.match(r"^[a-z+]+://", spec.url) or spec.url.startswith("git@"):
        return spec.url
    return str(Path(spec.url).resolve())


def resolve_commit(spec: RepoSpec, timeout: float = 300) -> str:
    """The commit a ref names, asked of the remote without cloning anything.

    Only exact refs count (``ls-remote`` patterns match ref *tails*, so ``v1.0`` would also
    match a branch ``release/v1.0``): a tag wins over a branch, as git itself decides.
    """
    if _SHA.fullmatch(spec.ref):
        return spec.ref
    if spec.ref.startswith("refs/"):
        wanted = [spec.ref]
    else:
        wanted = [f"refs/tags/{spec.ref}", f"refs/heads/{spec.ref}"]
    out = _git(["ls-remote", _url(spec), *wanted, *(w + "^{}" for w in wanted)],
               timeout=timeout)
    found: dict[str, str] = {}
    for line in out.splitlines():
        sha, ref = line.split("\t", 1)
        found[ref] = sha
    for ref in wanted:
        if ref + "^{}" in found:  # a peeled annotated tag names the commit itself
            return found[ref + "^{}"]
        if ref in found:
            return found[ref]
    raise GitError(f"ref {spec.ref!r} not found in {spec.url}")


@dataclass
class Checkout:
    name: str
    url: str
    commit: str
    root: Path
    cloned: bool


def checkout(spec: RepoSpec, cache_dir: Path, timeout: float = 300) -> Checkout:
    """A shallow checkout of the pinned commit under ``cache_dir/<name>@<commit>``."""
    name = repo_name(spec)
    commit = resolve_commit(spec, timeout)
    dest = cache_dir / f"{name}@{commit}"
    if (dest / ".diagramforge-complete").exists():
        return Checkout(name, spec.url, commit, dest, cloned=False)
    cache_dir.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=cache_dir))
    try:
        _git(["init", "-q"], cwd=tmp, timeout=timeout)
        want = spec.ref if not _SHA.fullmatch(spec.ref) else commit
        try:
            _git(["fetch", "-q", "--depth", "1", _url(spec), want], cwd=tmp, timeout=timeout)
        except GitError:  # a server (or bundle) that will not serve a bare commit id
            _git(["fetch", "-q", _url(spec), "+refs/*:refs/remotes/src/*"], cwd=tmp,
                 timeout=timeout)
            want = commit
        _git(["checkout", "-q", "--detach", want if want == commit else "FETCH_HEAD"],
             cwd=tmp, timeout=timeout)
        head = _git(["rev-parse", "HEAD"], cwd=tmp).strip()
        if head != commit:
            raise GitError(f"checked out {head}, expected {commit}")
        shutil.rmtree(tmp / ".git")
        (tmp / ".diagramforge-complete").write_text(json.dumps({"url": spec.url,
                                                                "ref": spec.ref}))
        atomic.replace_dir(tmp, dest)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return Checkout(name, spec.url, commit, dest, cloned=True)


def find_licence(root: Path) -> RepoLicence:
    """The licence of a checked-out repository, with its evidence (licence files and
    manifests read by ScanCode) and any conflict between them."""
    return repository_licence(root)


def list_files(root: Path, cfg: RepoCrawlParams) -> list[str]:
    """Repository-relative paths matching ``include`` (or, with ``include_claimed``, claimed
    by a format handler) and not ``exclude`` (no links)."""
    claimers = list(handlers().values()) if cfg.include_claimed else []
    out = []
    for p in sorted(root.rglob("*")):
        if p.is_symlink() or not p.is_file():
            continue
        rel = p.relative_to(root).as_posix()
        if rel.startswith(".diagramforge"):
            continue
        if any(fnmatch.fnmatch(rel, pat) for pat in cfg.exclude):
            continue
        if any(fnmatch.fnmatch(rel, pat) for pat in cfg.include) \
                or any(h.claims(rel) for h in claimers):
            out.append(rel)
    return out
