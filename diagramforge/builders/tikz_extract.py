"""From an arXiv e-print to TikZ candidate records (one standalone document per picture)."""

from __future__ import annotations

import json
import posixpath
import re
from dataclasses import dataclass
from enum import StrEnum

from diagramforge.builders.archives import ArchiveError, Limits, read_archive
from diagramforge.builders.file_extract import is_svg_file, svg_record
from diagramforge.formats import latex
from diagramforge.formats.preamble import Definition, Kind, parse_preamble
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


def _result(records: list[dict], rejections: list[Rejection], loc: str, reason: str,
            detail: str) -> PaperExtraction:
    """Every paper is accounted for: with no record left, the paper itself is rejected."""
    if not records:
        rejections = [*rejections, Rejection(loc, reason, detail, unit=Unit.INPUT)]
    return PaperExtraction(records, rejections)


def extract_paper(data: bytes, paper: dict, params: ExtractParams) -> PaperExtraction:
    """All TikZ pictures (and SVG files) of one paper as records, or why there are none."""
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
        return _result(svg_records, svg_rejections, loc, ExtractReason.NO_TEX,
                       f"{len(raw)} files, none is a LaTeX root")
    flat = latex.flatten(files, root)
    parts = latex.split_document(flat.text)
    if parts is None:
        return _result(svg_records, svg_rejections, loc, ExtractReason.NO_DOCUMENT, root)
    preamble, body = parts
    defs = preamble_definitions(latex.strip_markers(preamble), files)
    t = params.tikz
    pictures = find_pictures(body, t.environments, t.tikz_commands)
    attach_context(body, pictures, t.context_paragraphs)
    body_defs = body_definitions(body, pictures)
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
        in_scope = defs + [d for pos, d in body_defs if pos < pic.start]
        doc = standalone(pic, in_scope, package_available)
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
    detail = (f"root {root}; {len(pictures)} pictures, all rejected" if pictures
              else f"root {root}; no TikZ environments or SVG files")
    return _result(records, rejections, loc, ExtractReason.NO_DIAGRAMS, detail)


_CLASS_OPTS = re.compile(r"\\documentclass\s*\[([^\]]*)\]")
XCOLOR_CLASS_OPTIONS = frozenset({"dvipsnames", "svgnames", "x11names", "table",
                                  "usenames"})


def preamble_definitions(preamble: str, files: dict[str, str]) -> list[Definition]:
    """Definitions of the preamble, with the paper's own .sty files read in place and the
    class options that reach xcolor (``dvipsnames``…) passed on explicitly."""
    m = _CLASS_OPTS.search(preamble)
    opts = [o.strip() for o in m.group(1).split(",")] if m else []
    colour_opts = [o for o in opts if o in XCOLOR_CLASS_OPTIONS]
    head = ([f"\\PassOptionsToPackage{{{','.join(colour_opts)}}}{{xcolor}}"]
            if colour_opts else [])
    defs = parse_preamble("\n".join(head) + "\n" + inline_local_packages(preamble, files))
    return defs


_USEPKG = re.compile(r"\\(?:usepackage|RequirePackage)\s*(?:\[[^\]]*\])?\s*\{([^}]*)\}")


def inline_local_packages(preamble: str, files: dict[str, str], depth: int = 0) -> str:
    """Replace ``\\usepackage{mymacros}`` by the text of the paper's own mymacros.sty, so
    its macros can travel with the pictures that use them."""
    local = {posixpath.basename(k)[:-4]: v for k, v in files.items() if k.endswith(".sty")}
    if not local or depth > 3:
        return preamble

    def repl(m: re.Match) -> str:
        names = [n.strip() for n in m.group(1).split(",")]
        mine = [n for n in names if n in local]
        if not mine:
            return m.group(0)
        rest = [n for n in names if n not in local]
        out = [f"\\usepackage{{{','.join(rest)}}}"] if rest else []
        for n in mine:
            text = latex.strip_comments(local[n])
            out.append(inline_local_packages(text, files, depth + 1))
        return "\n".join(out)

    return _USEPKG.sub(repl, preamble)


def body_definitions(body: str, pictures: list) -> list[tuple[int, Definition]]:
    """Definitions made in the document body (a \\tikzstyle above a figure…), with the
    position where each takes effect; text inside pictures is not searched."""
    out: list[tuple[int, Definition]] = []
    pos = 0
    for span in [(p.start, p.end) for p in pictures] + [(len(body), len(body))]:
        chunk = body[pos:span[0]]
        if "\\" in chunk:
            for d in parse_preamble(latex.strip_markers(chunk)):
                if d.kind not in (Kind.PACKAGE, Kind.LIBRARY):
                    out.append((pos, d))
        pos = span[1]
    return out


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
