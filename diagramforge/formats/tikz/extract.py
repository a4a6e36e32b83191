"""From an arXiv e-print to TikZ candidate records (one standalone document per picture)."""

from __future__ import annotations

import base64
import hashlib
import json
import posixpath
import re
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from diagramforge.formats.archives import ArchiveError, Limits, read_archive
from diagramforge.formats.svg.handler import SvgFormat, svg_record
from diagramforge.formats.tikz import notation as latex
from diagramforge.formats.tikz.ladder import (
    PLAIN_CLASSES,
    USEPKG,
    PreambleMode,
    class_head,
    class_name,
    ladder,
    source_document,
    support_files,
    verbatim_preamble,
)
from diagramforge.formats.tikz.needs import loaded_by, picture_environments
from diagramforge.formats.tikz.pictures import (
    Picture,
    Standalone,
    attach_context,
    find_pictures,
    page_spans,
    pages_as_pictures,
    standalone,
    unsafe_constructs,
)
from diagramforge.formats.tikz.preamble import Definition, Kind, parse_preamble
from diagramforge.formats.tikz.texcompile import package_available
from diagramforge.formats.tikz.texengines import choose_engines
from diagramforge.formats.tikz.wrappers import draws_elsewhere, find_wrappers
from diagramforge.notation.declarations import UNSAFE_XML, declaration
from diagramforge.store.records import Format, Rejection, Unit, empty_record, make_id

if TYPE_CHECKING:
    from diagramforge.formats.settings import ExtractSettings


class ExtractReason(StrEnum):
    NO_TEX = "no_tex_root"
    NO_DOCUMENT = "no_document_body"
    NO_DIAGRAMS = "no_diagrams"
    TOO_SMALL = "picture_too_small"
    TOO_LARGE = "picture_too_large"
    SAME_PAPER_DUPLICATE = "duplicate_in_paper"
    UNSAFE = "unsafe_code"


_DEFINES = re.compile(r"\\(?:(?:re)?newenvironment|(?:re|provide)?newcommand|[egx]?def|"
                      r"NewDocument(?:Command|Environment)|DeclareRobustCommand)(?![A-Za-z@])")


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


def extract_paper(data: bytes, paper: dict, params: ExtractSettings) -> PaperExtraction:
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
    clean_pre = latex.strip_markers(preamble)
    head = class_head(clean_pre)
    # a class of its own (beamer, revtex…) defines macros the table gives to packages
    plain_class = class_name(clean_pre) in PLAIN_CLASSES
    source_pre = inline_local_packages(clean_pre, files)
    defs = parse_preamble("\n".join(head) + "\n" + source_pre)
    as_written = files[root]
    engines = [str(e) for e in choose_engines(source_pre, as_written)]
    # a document that is one figure is its own last rung, as written (unless what it
    # inputs does something unsafe: the rung is then left out)
    one_page = unsafe_constructs(latex.strip_markers(flat.text)) == []
    t = params.tikz
    # the document's own environments and macros that draw a picture (a timeline
    # environment around a tikzpicture): their uses are pictures
    commands = t.commands if t.tikz_commands else []
    own = defs + ([d for d in parse_preamble(latex.strip_markers(body))
                   if d.kind in (Kind.ENVIRONMENT, Kind.MACRO)] if _DEFINES.search(body) else [])
    envs = picture_environments(t.environments, loaded_by(d.text for d in defs))
    wrappers = find_wrappers(own, envs, commands)
    pictures = find_pictures(body, envs, t.tikz_commands, t.commands, wrappers)
    pages = page_spans(clean_pre, body)
    if not pictures and pages is None and latex.strip_comments(body).strip() and \
            draws_elsewhere(latex.strip_comments(latex.strip_markers(flat.text)), wrappers,
                            envs, commands):
        # a picture drawn where it cannot be delimited (a \sbox'ed tikzpicture, a definition
        # of a form not read here): the body as a whole, its source document the last rung
        pictures = [Picture(env="document", text=latex.strip_markers(body).strip(), start=0,
                            end=len(body), origin=latex.origin_at(body, 0))]
    if pages is not None:  # the document is itself a figure: take it page by page
        pictures = pages_as_pictures(body, pages, pictures)
    one_page = one_page and pages is not None and len(pictures) == 1
    attach_context(body, pictures, t.context_paragraphs)
    body_defs = body_definitions(body, pictures)
    verbatim = verbatim_preamble(source_pre, package_available)
    data = _data_files(raw, root, t.data_extensions, t.max_data_bytes)
    graphics_dirs = [d for group in _GRAPHICSPATH.findall(clean_pre)
                     for d in re.findall(r"\{([^{}]*)\}", group)]
    records, rejections, seen = list(svg_records), list(svg_rejections), set()
    for k, pic in enumerate(pictures, start=1):
        src_id = f"{vid}/{pic.origin or root}#{k}"
        # a use of a wrapper draws what its definition draws: \gauge{42} is a whole picture
        # (and a document taken whole draws what its preamble holds too)
        size = len(pic.text) + len(wrappers.texts.get(pic.env, "")) + (
            len(clean_pre) if pic.env == "document" else 0)
        if size < t.min_chars:
            rejections.append(Rejection(f"arxiv:{src_id}", ExtractReason.TOO_SMALL,
                                        f"{size} chars < {t.min_chars}",
                                        unit=Unit.CANDIDATE))
            continue
        if len(pic.text) > t.max_chars:
            rejections.append(Rejection(f"arxiv:{src_id}", ExtractReason.TOO_LARGE,
                                        f"{len(pic.text)} chars > {t.max_chars}",
                                        unit=Unit.CANDIDATE))
            continue
        # body-level setup before the picture (\tdplotsetmaincoords, styles…) is in scope
        before = [d for pos, d in body_defs if pos < pic.start]
        doc = standalone(pic, defs + before, package_available, plain_class)
        if pic.env == "document":  # what draws is somewhere in the preamble: all of it
            doc = Standalone(blocks=[b for b in [*head, verbatim] if b], body=doc.body,
                             dropped=doc.dropped)
        files_used = (_used_data(data, pic.text + "\n".join(doc.blocks))
                      + _gnuplot_tables(data, root, pic.text))
        doc.assets = picture_assets(raw, root, pic.text + "\n".join(doc.blocks),
                                    graphics_dirs, t.max_asset_bytes)
        doc.blocks += files_used
        why = declaration(doc.code)  # refused as in every format, whatever keep_unsafe
        if why is not None:
            rejections.append(Rejection(f"arxiv:{src_id}", UNSAFE_XML, why,
                                        unit=Unit.CANDIDATE))
            continue
        unsafe = unsafe_constructs(doc.code)
        if unsafe and not t.keep_unsafe:
            rejections.append(Rejection(f"arxiv:{src_id}", ExtractReason.UNSAFE,
                                        ", ".join(unsafe), unit=Unit.CANDIDATE))
            continue
        setup = [d.text for d in before]
        src_text = source_document(clean_pre, pic, setup, as_written if one_page else None,
                                   pages is not None)
        source = Standalone([], "", document=src_text, assets={
            **doc.assets, **support_files(raw, root, src_text, t.max_asset_bytes)})
        rungs = ladder(doc, pic, head, verbatim, setup, files_used, source)
        rid = make_id(Format.TIKZ, doc.code)
        if rid in seen:
            rejections.append(Rejection(f"arxiv:{src_id}", ExtractReason.SAME_PAPER_DUPLICATE,
                                        "identical picture earlier in the paper", id=rid,
                                        unit=Unit.CANDIDATE))
            continue
        seen.add(rid)
        meta = {"env": pic.env, "origin": pic.origin, "root": root,
                "blocks": doc.blocks, "body": doc.body, "missing_inputs": flat.missing,
                "dropped_packages": doc.dropped, "preamble_mode": PreambleMode.MINIMAL,
                "ladder": rungs, "engines": engines, **doc.needs.meta()}
        if unsafe:
            meta["unsafe"] = unsafe
        if doc.assets:
            meta["assets"] = {k: base64.b64encode(v).decode() for k, v in doc.assets.items()}
        records.append(empty_record(
            id=rid, format=Format.TIKZ, code=doc.code, source="arxiv", source_id=src_id,
            source_url=f"https://arxiv.org/abs/{vid}", group=f"arxiv:{paper['id']}",
            licence=paper.get("licence"), licence_url=paper.get("licence_url"),
            attribution=_attribution(paper, vid), title=paper.get("title"),
            caption=pic.caption, label=pic.label,
            context="\n\n".join(pic.context) if pic.context else None,
            meta=json.dumps(meta),
        ))
    detail = (f"root {root}; {len(pictures)} pictures, all rejected" if pictures
              else f"root {root}; no TikZ environments or SVG files")
    return _result(records, rejections, loc, ExtractReason.NO_DIAGRAMS, detail)


def _data_files(raw: dict[str, bytes], root: str, extensions: list[str], max_bytes: int
                ) -> dict[str, str]:
    """Text data files beside the root (``data.csv``…), by the name a picture reads them."""
    base = posixpath.dirname(root)
    exts = tuple("." + e.lower() for e in extensions)
    out = {}
    for name, data in raw.items():
        if not name.lower().endswith(exts) or len(data) > max_bytes:
            continue
        rel = posixpath.relpath(name, base) if base else name
        if "/" in rel or rel.startswith("."):
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if "\\end{filecontents" not in text:
            out[rel] = text
    return out


def _used_data(data: dict[str, str], text: str) -> list[str]:
    """``filecontents*`` blocks for the data files ``text`` names, so the picture's code
    carries its data and compiles anywhere."""
    out = []
    for rel in sorted(data):
        if re.search(r"(?<![\w./-])" + re.escape(rel) + r"(?![\w])", text):
            body = data[rel].rstrip("\n")
            out.append(f"\\begin{{filecontents*}}[overwrite]{{{rel}}}\n{body}\n"
                       f"\\end{{filecontents*}}")
    return out


_GNUPLOT = re.compile(r"\bgnuplot\b|\bplot\s*(?:\[[^\]]*\]\s*)?function\b")
_PLOT_ID = re.compile(r"\bid\s*=\s*\{?\s*([\w.+-]+)")


def _gnuplot_tables(data: dict[str, str], root: str, text: str) -> list[str]:
    """The precomputed gnuplot results a picture reads, renamed to travel with it.

    ``\\addplot gnuplot`` and ``plot function`` read ``\\jobname.<id>.table`` (written by a
    shell-escape run and shipped beside the document). The standalone document has another
    job name and shares its directory with other pictures of a batch, so the tables are
    carried as ``filecontents*`` under a prefix unique to their content, and TikZ's
    ``prefix`` key points the picture at them.
    """
    if not _GNUPLOT.search(text):
        return []
    stem = posixpath.basename(root)[:-4] if root.endswith(".tex") else posixpath.basename(root)
    tables = {rel[len(stem) + 1:-len(".table")]: body for rel, body in data.items()
              if rel.startswith(stem + ".") and rel.endswith(".table")}
    wanted = set(_PLOT_ID.findall(text)) | {"pgf-plot"}
    picked = {i: t for i, t in tables.items() if i in wanted} or tables
    if not picked:
        return []
    digest = hashlib.sha1("\0".join(f"{i}\0{picked[i]}" for i in sorted(picked)).encode())
    prefix = f"gnuplot-{digest.hexdigest()[:10]}."
    out = [f"\\tikzset{{prefix={prefix}}}"]
    for i in sorted(picked):
        body = picked[i].rstrip("\n")
        out.append(f"\\begin{{filecontents*}}[overwrite]{{{prefix}{i}.table}}\n{body}\n"
                   f"\\end{{filecontents*}}")
    return out


_INCLUDES = re.compile(
    r"\\(?:includegraphics\*?|pgfimage)\s*(?:\[[^\]]*\]\s*)*\{([^{}]+)\}"
    r"|\\pgfdeclareimage\s*(?:\[[^\]]*\]\s*)?\{[^{}]*\}\s*\{([^{}]+)\}")
_GRAPHICSPATH = re.compile(r"\\graphicspath\s*\{((?:\{[^{}]*\}\s*)*)\}")
GRAPHICS_EXTENSIONS = (".pdf", ".png", ".jpg", ".jpeg", ".mps", ".jbig2", ".jb2",
                       ".PDF", ".PNG", ".JPG", ".JPEG")
"""What pdflatex's graphics driver tries for a name without extension, in its order."""


def picture_assets(raw: dict[str, bytes], root: str, text: str, dirs: list[str],
                   max_bytes: int) -> dict[str, bytes]:
    """Image files of the source a picture includes (``\\includegraphics``, ``\\pgfimage``,
    ``\\pgfdeclareimage``), by the name its code uses, so it compiles away from its paper.

    Names resolve like the graphics package does — beside the root, then the
    ``\\graphicspath`` directories, the driver's extensions for a bare name — but only
    inside the archive: a name reaching outside it (``../``, absolute) is never carried. A
    picture whose files exceed ``max_bytes`` in total carries none (its compile then fails
    with ``missing_file``, ledgered).
    """
    base = posixpath.dirname(root)
    out: dict[str, bytes] = {}
    for m in _INCLUDES.finditer(text):
        name = (m.group(1) or m.group(2)).strip()
        key = posixpath.normpath(name)
        if not name or key.startswith(("../", "/")) or key == ".." or "\\" in name:
            continue
        exts = ("",) if posixpath.splitext(name)[1] in GRAPHICS_EXTENSIONS \
            else GRAPHICS_EXTENSIONS
        for d in ["", *dirs]:
            hit = next((posixpath.normpath(posixpath.join(base, d, name + e)) for e in exts
                        if posixpath.normpath(posixpath.join(base, d, name + e)) in raw), None)
            if hit is not None:  # pdflatex finds it in the job directory under this name
                out[key if exts == ("",) else key + posixpath.splitext(hit)[1]] = raw[hit]
                break
    if sum(len(v) for v in out.values()) > max_bytes:
        return {}
    return out


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

    return USEPKG.sub(repl, preamble)


def body_definitions(body: str, pictures: list) -> list[tuple[int, Definition]]:
    """Definitions made in the document body (a \\tikzstyle above a figure…), with the
    position where each takes effect; text inside pictures is not searched."""
    out: list[tuple[int, Definition]] = []
    pos = 0
    for span in [(p.start, p.end) for p in pictures] + [(len(body), len(body))]:
        chunk = body[pos:span[0]]
        if "\\" in chunk:
            # figure environments around pictures are not setup
            chunk = re.sub(r"\\(?:begin|end)\s*\{[^}]*\}", " ", chunk)
            for d in parse_preamble(latex.strip_markers(chunk)):
                if d.kind not in (Kind.PACKAGE, Kind.LIBRARY):
                    out.append((pos, d))
        pos = span[1]
    return out


def _svgs(raw: dict[str, bytes], paper: dict, vid: str, params: ExtractSettings
          ) -> tuple[list[dict], list[Rejection]]:
    """SVG files shipped in the e-print, as SVG records of the same paper."""
    if not params.svg.from_arxiv:
        return [], []
    records, rejections = [], []
    for name in sorted(raw):
        if not SvgFormat.claims(name):
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
