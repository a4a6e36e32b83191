"""Push a published version to the Hugging Face Hub: commits of at most
``publish.push_max_files`` files each, one tag on the last, a changelog.

The repository's ``main`` becomes exactly the published directory (files gone from the new
version are deleted in the last commit) plus ``CHANGELOG.md``, computed from the previous
version's ``manifest.json`` read back from the Hub at its tag.  Each commit names its parent,
so a concurrent push fails instead of interleaving; the tag ``v<version>`` is created on the
last commit and an existing tag is never moved (bump ``publish.version`` instead).  The
token is read from the environment variable named by ``publish.token_env`` and nowhere else.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from diagramforge.cards.publish.manifest import changelog

if TYPE_CHECKING:
    from diagramforge.cards.publish.settings import PublishParams


class PushError(RuntimeError):
    """The push cannot go ahead (no repo id, no token, tag exists, nothing published)."""


@dataclass
class PushPlan:
    repo_id: str
    tag: str
    previous: str | None
    create_repo: bool
    operations: list[tuple[str, str, int]] = field(default_factory=list)
    """(``add``/``delete``, path in repo, bytes)."""
    changelog: str = ""
    commit: str | None = None
    """The last commit (the one tagged)."""
    dry_run: bool = True
    max_files: int = 100
    commits: list[str] = field(default_factory=list)
    """Every commit of the push, in order (several when it has more than ``max_files``)."""


def _api(publish: PublishParams, token: str | None):  # noqa: ANN202 - HfApi
    from huggingface_hub import HfApi

    return HfApi(endpoint=publish.endpoint, token=token or False)


def _semver(tag: str) -> tuple[int, ...] | None:
    m = re.fullmatch(r"v(\d+)\.(\d+)\.(\d+)", tag)
    return tuple(int(x) for x in m.groups()) if m else None


def previous_tag(tags: list[str], version: str) -> str | None:
    """The highest ``vX.Y.Z`` tag below ``version`` (the version the changelog compares to)."""
    me = _semver(f"v{version}")
    older = [t for t in tags if (v := _semver(t)) is not None and v < me]
    return max(older, key=_semver) if older else None


def download_text(publish: PublishParams, filename: str, revision: str,
                  token: str | None = None) -> str | None:
    """A file of the dataset repo at ``revision``, or ``None`` when it is not there."""
    from huggingface_hub import hf_hub_download
    from huggingface_hub.errors import EntryNotFoundError, RevisionNotFoundError

    token = token if token is not None else os.environ.get(publish.token_env)
    try:
        path = hf_hub_download(publish.repo_id, filename, repo_type="dataset",
                               revision=revision, endpoint=publish.endpoint,
                               token=token or False)
    except (EntryNotFoundError, RevisionNotFoundError):
        return None
    return Path(path).read_text()


def download_json(publish: PublishParams, filename: str, revision: str) -> dict | None:
    text = download_text(publish, filename, revision)
    return json.loads(text) if text is not None else None


def push_version(publish: PublishParams, dry_run: bool = False) -> PushPlan:
    """Upload ``data/published/<name>`` as a chain of commits, the last tagged ``v<version>``."""
    from huggingface_hub import CommitOperationAdd, CommitOperationDelete
    from huggingface_hub.errors import HfHubHTTPError, RepositoryNotFoundError

    repo_id = publish.repo_id
    if not repo_id:
        raise PushError("publish.repo_id is not set")
    root = Path(publish.out_dir) / publish.name
    if not (root / "manifest.json").exists():
        raise PushError(f"nothing published at {root} (run `dvc repro`)")
    version = (root / "VERSION").read_text().strip()
    if version != publish.version:
        raise PushError(f"{root} holds version {version} but params say "
                        f"{publish.version}: run `dvc repro` first")
    tag = f"v{version}"
    token = os.environ.get(publish.token_env) or None
    if not token and not dry_run:
        raise PushError(f"no token: set the environment variable {publish.token_env}")
    api = _api(publish, token)
    try:
        refs = api.list_repo_refs(repo_id, repo_type="dataset")
        exists = True
    except RepositoryNotFoundError:
        refs, exists = None, False
    tags = {t.name: t.target_commit for t in refs.tags} if refs else {}
    if tag in tags:
        raise PushError(f"{repo_id} already has tag {tag} (at {tags[tag][:12]}); tags are "
                        f"never moved: bump publish.version")
    head = next((b.target_commit for b in refs.branches if b.name == "main"), None) \
        if refs else None
    prev = previous_tag(list(tags), version)
    old_manifest = download_json(publish, "manifest.json", prev) if prev else None
    old_log = download_text(publish, "CHANGELOG.md", prev) if prev else None
    new_manifest = json.loads((root / "manifest.json").read_text())
    log = changelog(old_log, old_manifest, new_manifest)

    files = sorted(p for p in root.rglob("*") if p.is_file())
    local = {p.relative_to(root).as_posix(): p for p in files}
    remote = set(api.list_repo_files(repo_id, repo_type="dataset", revision=head)) \
        if head else set()
    plan = PushPlan(repo_id, tag, prev, not exists, dry_run=dry_run, changelog=log,
                    max_files=publish.push_max_files)
    plan.operations = [("add", path, p.stat().st_size) for path, p in local.items()]
    plan.operations.append(("add", "CHANGELOG.md", len(log.encode())))
    plan.operations += [("delete", path, 0) for path in sorted(remote - set(local)
                                                               - {"CHANGELOG.md",
                                                                  ".gitattributes"})]
    if dry_run:
        return plan
    if not exists:
        api.create_repo(repo_id, repo_type="dataset", private=publish.private,
                        exist_ok=True)
        head = next(b.target_commit for b in
                    api.list_repo_refs(repo_id, repo_type="dataset").branches
                    if b.name == "main")
    ops = [CommitOperationAdd(path_in_repo=path, path_or_fileobj=str(p))
           for path, p in local.items()]
    ops.append(CommitOperationAdd(path_in_repo="CHANGELOG.md", path_or_fileobj=log.encode()))
    ops += [CommitOperationDelete(path_in_repo=path) for kind, path, _ in plan.operations
            if kind == "delete"]
    batches = commit_batches(ops, publish.push_max_files)
    info = None
    for i, batch in enumerate(batches, 1):
        part = f" ({i}/{len(batches)})" if len(batches) > 1 else ""
        info = api.create_commit(repo_id, batch, repo_type="dataset", parent_commit=head,
                                 commit_message=f"diagramforge {tag}{part}",
                                 commit_description=f"Dataset version {version}.")
        head = info.oid  # the next part names this one: a concurrent push still fails
        plan.commits.append(info.oid)
    try:
        api.create_tag(repo_id, tag=tag, revision=info.oid, repo_type="dataset",
                       tag_message=f"diagramforge dataset {version}")
    except HfHubHTTPError as exc:
        raise PushError(f"could not tag {info.oid[:12]} as {tag}: {exc}") from None
    plan.commit = info.oid
    return plan


def commit_batches(ops: list, max_files: int) -> list[list]:
    """Split a push into commits of at most ``max_files`` operations (the Hub rejects very
    large commits; huggingface_hub's documented way is several ``create_commit`` calls).
    Files in folders (Parquet shards, gallery images) go first and the top-level files —
    card, manifest, changelog, VERSION — and deletions last, so until the last commit
    lands the repository's card still describes the files it lists."""
    def last(op: object) -> bool:
        return "/" not in op.path_in_repo or type(op).__name__ == "CommitOperationDelete"

    ordered = [op for op in ops if not last(op)] + [op for op in ops if last(op)]
    return [ordered[i:i + max_files] for i in range(0, len(ordered), max_files)] or [[]]


def format_plan(plan: PushPlan) -> str:
    """What a push did (or, with ``--dry-run``, would do): operations with sizes."""
    verb = "would push" if plan.dry_run else "pushed"
    lines = [f"{verb} {plan.repo_id} {plan.tag}"
             + (" (creating the repository)" if plan.create_repo else "")
             + f"; changelog against {plan.previous or 'nothing (first version)'}"]
    total = 0
    for kind, path, size in plan.operations:
        total += size
        lines.append(f"  {kind:<6} {path}" + (f"  {size:,} B" if kind == "add" else ""))
    n = len(plan.commits) or -(-len(plan.operations) // max(plan.max_files, 1))
    lines.append(f"{len(plan.operations)} operations, {total:,} bytes, "
                 + ("one commit" if n <= 1 else f"{n} commits")
                 + (f" {plan.commit[:12]}" if plan.commit else ""))
    return "\n".join(lines)
