"""A Stack Exchange post → diagram records, one per picture in its code blocks.

Each code block goes to the formats that claim it: every format with a ``snippet``
capability (``formats/<name>/snippet.py``: ``claims(code, params)`` and ``records(...)``,
TikZ's puts a fragment in the smallest document and runs the paper extractor on it); a
block no format claims is a candidate in the ledger.  The records carry the post's
provenance, its question's title, the question's and the answer's prose as ``context`` and
the tags in ``meta``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from enum import StrEnum
from types import ModuleType

from diagramforge.builders.crawl.se_posts import parse_body
from diagramforge.builders.extract.settings import ExtractParams
from diagramforge.store.records import Rejection, SourceKind, Unit

_META = ("site", "post_id", "post_type", "question_id", "question_url", "score", "accepted",
         "tags", "owner_user_id", "profile_url", "deleted_user", "community_wiki", "created",
         "last_edit", "licence_basis", "licence_date")


class PostReason(StrEnum):
    UNCLAIMED = "code_block_without_picture"
    DUPLICATE = "duplicate_in_post"
    NO_DIAGRAMS = "no_diagrams"


def post_records(src: dict, params: ExtractParams, snippets: Sequence[ModuleType]
                 ) -> tuple[list[dict], list[Rejection]]:
    """The pictures of one post's code blocks as records, by the ``snippets`` (the formats'
    ``snippet`` capabilities) that claim each; the blocks and pictures dropped on the way
    are candidates in the ledger, and the post itself is when none is left."""
    meta = json.loads(src.get("meta") or "{}")
    loc = src["id"]
    post = parse_body((src.get("content") or b"").decode("utf-8", "replace"))
    context = "\n\n".join(p for p in (meta.get("question_prose"), meta.get("prose")) if p)
    base = {"source": SourceKind.STACKEXCHANGE, "source_url": src.get("url"),
            "group": meta.get("group"), "licence": src.get("licence"),
            "licence_url": src.get("licence_url"), "attribution": meta.get("attribution"),
            "title": src.get("title")}
    extra = {"stackexchange": {k: meta.get(k) for k in _META}}
    records: list[dict] = []
    rejections: list[Rejection] = []
    seen: set[str] = set()
    for k, code in enumerate(post.blocks, start=1):
        where = f"{loc}/code{k}"
        takers = [m for m in snippets if m.claims(code.encode(), params)]
        if not takers:
            first = code.strip().split("\n", 1)[0][:80]
            rejections.append(Rejection(where, PostReason.UNCLAIMED, first,
                                        unit=Unit.CANDIDATE))
            continue
        recs = []
        for snippet in takers:
            got, rejs = snippet.records(
                code, f"code{k}", {**base, "source_id": f"{loc.split(':', 1)[1]}/code{k}"},
                where, params)
            recs += got
            rejections += rejs
        for rec in recs:
            if rec["id"] in seen:
                rejections.append(Rejection(f"{loc.split(':', 1)[0]}:{rec['source_id']}",
                                            PostReason.DUPLICATE,
                                            "identical picture earlier in the post",
                                            id=rec["id"], unit=Unit.CANDIDATE))
                continue
            seen.add(rec["id"])
            rec_meta = {**json.loads(rec.get("meta") or "{}"), **extra}
            records.append({**rec, "context": context or None, "meta": json.dumps(rec_meta)})
    if not records:
        detail = (f"{len(post.blocks)} code block(s), no picture kept" if post.blocks
                  else "no code block")
        rejections.append(Rejection(loc, PostReason.NO_DIAGRAMS, detail, unit=Unit.INPUT))
    return records, rejections
