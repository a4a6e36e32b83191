"""A Stack Exchange post → TikZ records, one per picture in its code blocks.

Each code block goes through the path a repository's TeX file takes
(:func:`~diagramforge.formats.tikz.tex_file.tex_file_records`: the paper extractor, so the
standalone documents, the preamble ladder and the unsafe-code check are the arXiv ones).  A
complete document (``\\documentclass``…) is taken as written; a fragment — most answers show
just the ``tikzpicture``, often after the ``\\usepackage``/``\\usetikzlibrary`` lines it
needs — is put in the smallest document, with those lines moved to its preamble, where
they take effect (in the body a package cannot load, and the extractor keeps only the
body's styles and macros).  The records carry the post's provenance, its question's title,
the question's and the answer's prose as ``context`` and the tags in ``meta``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from enum import StrEnum

from diagramforge.builders.crawl.se_posts import parse_body
from diagramforge.builders.extract.settings import ExtractParams
from diagramforge.formats.tikz.pictures import find_pictures
from diagramforge.formats.tikz.preamble import Kind, parse_preamble
from diagramforge.formats.tikz.tex_file import tex_file_records
from diagramforge.store.records import Rejection, SourceKind, Unit

_HOISTED = (Kind.PACKAGE, Kind.LIBRARY)
_META = ("site", "post_id", "post_type", "question_id", "question_url", "score", "accepted",
         "tags", "owner_user_id", "profile_url", "deleted_user", "community_wiki", "created",
         "last_edit", "licence_basis", "licence_date")


class PostReason(StrEnum):
    NOT_TIKZ = "code_block_without_picture"
    DUPLICATE = "duplicate_in_post"
    NO_DIAGRAMS = "no_diagrams"


def as_document(code: str, params: ExtractParams) -> str:
    """A code block as a document: itself when it has a class, else the smallest document
    around it with its package and library lines in the preamble (packages first, as
    ``\\usepackage[dvipsnames]{xcolor}`` must come before TikZ loads xcolor)."""
    if "\\documentclass" in code or "\\documentstyle" in code:
        return code
    t = params.tikz
    outside, pos = [], 0
    for pic in find_pictures(code, t.environments, t.tikz_commands, t.commands):
        outside.append(code[pos:pic.start])
        pos = pic.end
    outside.append(code[pos:])
    body, packages, libraries = code, [], []
    for d in parse_preamble("\n".join(outside)):
        if d.kind in _HOISTED and d.text in body:
            body = body.replace(d.text, "", 1)
            (packages if d.kind == Kind.PACKAGE else libraries).append(d.text)
    return "\n".join(["\\documentclass{article}", *packages, "\\usepackage{tikz}", *libraries,
                      "\\begin{document}", body.strip("\n"), "\\end{document}", ""])


def post_records(src: dict, params: ExtractParams, claims: Callable[[bytes], bool]
                 ) -> tuple[list[dict], list[Rejection]]:
    """The pictures of one post's code blocks as records; the blocks and pictures dropped
    on the way are candidates in the ledger, and the post itself is when none is left."""
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
        if not claims(code.encode()):
            first = code.strip().split("\n", 1)[0][:80]
            rejections.append(Rejection(where, PostReason.NOT_TIKZ, first, unit=Unit.CANDIDATE))
            continue
        recs, rejs = tex_file_records(as_document(code, params).encode(), f"code{k}.tex",
                                      {**base, "source_id": f"{loc.split(':', 1)[1]}/code{k}"},
                                      where, Unit.CANDIDATE, params)
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
