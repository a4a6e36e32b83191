"""One repository file as a crawl row, and the checks every file source makes before it.

The Stack's rows and the files of searched repositories become the same kind of source row
as a pinned template repository's file: repository, commit, path, licence and whom to
credit travel in it, so extraction and everything after it treat them alike.  The checks
run in one order for every kind — size, then whether a format takes the file (asked of the
format registry, so a format added later is picked up), then the licence — each refusal a
ledger row with its reason.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from enum import StrEnum

from diagramforge.formats.registry import DiagramFormat, claim
from diagramforge.licensing.spdx import NO_LICENCE, UNKNOWN, allowed
from diagramforge.store.records import Rejection, SourceKind


class FileReason(StrEnum):
    TOO_LARGE = "file_too_large"
    NO_CONTENT = "no_content"
    FEW_STARS = "below_min_stars"
    LICENCE_MISSING = "licence_missing"
    LICENCE_UNKNOWN = "licence_unknown"
    LICENCE = "licence_not_allowed"
    LICENCE_CONFLICT = "licence_conflict"
    """The repository's licence files and manifests name different licences: ledgered, not
    resolved (a maintainer reads them; ``crawl.repos.repositories[].licence`` can state it)."""


@dataclass(frozen=True)
class RepoFile:
    """A file of a repository at a commit, wherever it was read from."""

    kind: SourceKind
    repo: str
    commit: str
    path: str
    licence: str
    repo_url: str
    via: str = ""
    """How it was found (``bigcode/the-stack-dedup@<rev>``, ``GitHub code search``)."""

    @property
    def locator(self) -> str:
        return f"{self.kind}:{self.repo}@{self.commit[:12]}:{self.path}"

    @property
    def file_url(self) -> str:
        return f"{self.repo_url}/blob/{self.commit}/{self.path}"

    @property
    def attribution(self) -> str:
        via = f", via {self.via}" if self.via else ""
        return f"{self.repo} contributors ({self.repo_url} @ {self.commit[:12]}{via})"

    def row(self, meta: dict, content: bytes | None = None, local_path: str | None = None,
            licence_url: str | None = None) -> dict:
        """The crawl row: bytes inline (``content``) or a checked-out file (``local_path``)."""
        return {
            "id": self.locator, "kind": self.kind, "version": self.commit, "title": self.path,
            "authors": json.dumps([f"{self.repo} contributors"]), "categories": None,
            "date": None, "licence": self.licence,
            "licence_url": licence_url or f"{self.repo_url}/tree/{self.commit}",
            "url": self.repo_url, "path": local_path, "pdf_path": None, "content": content,
            "meta": json.dumps({"repo": self.repo, "commit": self.commit, "file": self.path,
                                "file_url": self.file_url, "attribution": self.attribution,
                                **meta}, sort_keys=True),
        }


@functools.lru_cache(maxsize=4096)
def _allowed(spdx: str, allow: tuple[str, ...]) -> bool:
    return allowed(spdx, list(allow))  # parsing expressions is slow; archives repeat them


def licence_refusal(spdx: str, allow: list[str]) -> tuple[str, str] | None:
    """``(reason, detail)`` when the licence filter would drop this licence, else None."""
    if _allowed(spdx, tuple(allow)):
        return None
    if spdx == NO_LICENCE:
        return FileReason.LICENCE_MISSING, "the repository declares no licence"
    if spdx.startswith(UNKNOWN):
        return FileReason.LICENCE_UNKNOWN, f"not an SPDX licence: {spdx.partition(':')[2]}"
    return FileReason.LICENCE, f"{spdx} not in {allow}"


def admit(f: RepoFile, data: bytes, formats: dict[str, DiagramFormat], max_bytes: int,
          allow: list[str] | None) -> tuple[str | None, Rejection | None]:
    """The name of the format that takes the file (of each, joined by ``+``, for a
    Markdown file holding several formats' blocks), or the rejection that ledgers it.

    ``allow``: refuse here what the licence filter would drop (``None``: leave it to
    the filter)."""
    if len(data) > max_bytes:
        return None, Rejection(f.locator, FileReason.TOO_LARGE,
                               f"{len(data)} bytes > {max_bytes}", source=f.kind)
    takers, why = claim(formats, f.path, data)
    if not takers:
        return None, Rejection(f.locator, why, f.path, source=f.kind)
    refusal = licence_refusal(f.licence, allow) if allow is not None else None
    if refusal:
        return None, Rejection(f.locator, refusal[0], refusal[1], source=f.kind)
    return "+".join(h.name for h in takers), None
