"""From an arXiv e-print to TikZ candidate records (one standalone document per picture)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum

from diagramforge.builders.archives import ArchiveError, Limits, read_archive
from diagramforge.builders.file_extract import is_svg_file, svg_record
from diagramforge.formats import latex
from diagramforge.formats.preamble import parse_preamble
from diagramforge.formats.texcompile import package_available
from diagramforge.formats.tikz import attach_context, find_pictures, standalone
from diagramforge.params import ExtractParams
from diagramforge.records import Format, Rejection, Unit, empty_record, make_id


class ExtractReason(StrEnum):
    NO_TEX = "no_tex_root"
    NO_DOCUMENT = "no_document_body"
    NO_DIAGRAMS = "no_diagrams"
    TOO_SMALL = "picture_too_small"
    TOO_LARGE = "picture_too_large"
    SAME_PAPER_DUPLICATE = "duplicate_in_paper"


@dataclass
class PaperExtraction:
    records: list[dict]
    rejections: list[Rejection]


def extract_paper(data: bytes, paper: dict, params: ExtractParams) -> PaperExtraction:
    """All TikZ pictures of one paper as records, or the reason there are none."""
    vid = f"{paper['id']}v{paper['version']}" if paper.get("version") else paper["id"]
    loc = f"arxiv:{vid}"
    a = params.archive
    try:
        raw = read_archive(data, Limits(a.max_members, a.max_member_bytes, a.max_total_bytes,
                                        a.max_ratio))
    except ArchiveError as exc:
        return PaperExtraction([], [Rejection(loc, exc.reason, exc.detail, unit=Unit.INPUT)])
    svg_records, svg_rejections = _svgs(raw, paper, vid, params)
    files = {k: latex.decode(v) for k, v in raw.items()
             if k.lower().endswith((".tex", ".ltx", ".tikz", ".pgf", ".sty", ".cls", ".def"))}
    root = latex.find_root(files)
    if root is None:
        if svg_records:
            return PaperExtraction(svg_records, svg_rejections)
        return PaperExtraction([], [Rejection(loc, ExtractReason.NO_TEX,
                                              f"{len(raw)} files, none is a LaTeX root")])
    flat = latex.flatten(files, root)
    parts = latex.split_document(flat.text)
    if parts is None:
        if svg_records:
            return PaperExtraction(svg_records, svg_rejections)
        return PaperExtraction([], [Rejection(loc, ExtractReason.NO_DOCUMENT, root)])
    preamble, body = parts
    defs = parse_preamble(latex.strip_markers(preamble))
    t = params.tikz
    pictures = find_pictures(body, t.environments, t.tikz_commands)
    attach_context(body, pictures, t.context_paragraphs)
    if not pictures and not svg_records:
        return PaperExtraction([], [*svg_rejections, Rejection(
            loc, ExtractReason.NO_DIAGRAMS, f"root {root}; no TikZ environments or SVG files")])
    records, rejections, seen = list(svg_records), list(svg_rejections), set()
    for k, pic in enumerate(pictures, start=1):
        src_id = f"{vid}/{pic.origin or root}#{k}"
        if len(pic.text) < t.min_chars:
            rejections.append(Rejection(f"arxiv:{src_id}", ExtractReason.TOO_SMALL,
                                        f"{len(pic.text)} chars < {t.min_chars}",
                                        unit=Unit.CANDIDATE))
            continue
        if len(pic.text) > t.max_chars:
            rejections.append(Rejection(f"arxiv:{src_id}", ExtractReason.TOO_LARGE,
                                        f"{len(pic.text)} chars > {t.max_chars}",
                                        unit=Unit.CANDIDATE))
            continue
        doc = standalone(pic, defs, package_available)
        rid = make_id(Format.TIKZ, doc.code)
        if rid in seen:
            rejections.append(Rejection(f"arxiv:{src_id}", ExtractReason.SAME_PAPER_DUPLICATE,
                                        "identical picture earlier in the paper", id=rid,
                                        unit=Unit.CANDIDATE))
            continue
        seen.add(rid)
        records.append(empty_record(
            id=rid, format=Format.TIKZ, code=doc.code, source="arxiv", source_id=src_id,
            source_url=f"https://arxiv.org/abs/{vid}", group=f"arxiv:{paper['id']}",
            licence=paper.get("licence"), licence_url=paper.get("licence_url"),
            attribution=_attribution(paper, vid), title=paper.get("title"),
            caption=pic.caption, label=pic.label,
            context="\n\n".join(pic.context) if pic.context else None,
            meta=json.dumps({"env": pic.env, "origin": pic.origin, "root": root,
                             "blocks": doc.blocks, "body": doc.body,
                             "missing_inputs": flat.missing,
                             "dropped_packages": doc.dropped}),
        ))
    return PaperExtraction(records, rejections)


def _svgs(raw: dict[str, bytes], paper: dict, vid: str, params: ExtractParams
          ) -> tuple[list[dict], list[Rejection]]:
    """SVG files shipped in the e-print, as SVG records of the same paper."""
    if not params.svg.from_arxiv:
        return [], []
    records, rejections = [], []
    for name in sorted(raw):
        if not is_svg_file(name):
            continue
        base = {"source": "arxiv", "source_id": f"{vid}/{name}",
                "source_url": f"https://arxiv.org/abs/{vid}", "group": f"arxiv:{paper['id']}",
                "licence": paper.get("licence"), "licence_url": paper.get("licence_url"),
                "attribution": _attribution(paper, vid), "title": paper.get("title")}
        recs, rejs = svg_record(raw[name], name, base, f"arxiv:{vid}/{name}", params.svg,
                                Unit.CANDIDATE)
        records += recs
        rejections += rejs
    return records, rejections


def _attribution(paper: dict, vid: str) -> str:
    authors = json.loads(paper["authors"]) if paper.get("authors") else []
    names = ", ".join(authors[:3]) + (" et al." if len(authors) > 3 else "")
    return f"{names}, \"{paper.get('title', '')}\", arXiv:{vid}".strip(", ")
