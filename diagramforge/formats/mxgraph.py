"""mxGraph (draw.io) diagrams: decode every container, validate, normalise, graph.

Containers: ``<mxfile>`` with one or many ``<diagram>`` pages (plain, or compressed as
base64 → raw deflate → URL-encoding), a bare ``<mxGraphModel>``, a ``.drawio.svg`` (the
``content`` attribute) and a ``.drawio.png`` (a text chunk keyed ``mxfile``).  Parsing never
resolves entities nor touches the network, and a DOCTYPE is refused outright.

Validation follows the rules VCG-Bench gives for generated diagrams: well-formed XML,
unique cell ids, edges whose source and target exist, edge cells with geometry, no
external images.  A page that passes and renders counts toward the Execution Success Rate.
"""

from __future__ import annotations

import base64
import io
import json
import re
import zlib
from dataclasses import dataclass
from enum import StrEnum
from urllib.parse import unquote

import nh3
from lxml import etree
from lxml import html as lhtml

from diagramforge.records import Refusal

MAX_INFLATE = 20_000_000
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False,
                          huge_tree=False, remove_comments=True)


class MxReason(StrEnum):
    UNSAFE_XML = "xml_doctype_forbidden"
    MALFORMED = "xml_malformed"
    NOT_MXGRAPH = "not_mxgraph"
    DECODE = "mxgraph_decode_error"
    NO_PAGES = "mxgraph_no_pages"


class MxGraphError(Refusal):
    """Refused with a :class:`MxReason`."""


def parse_xml(data: bytes | str) -> etree._Element:
    """Parse untrusted XML: no DTD, no entities, no network."""
    raw = data.encode() if isinstance(data, str) else data
    if re.search(rb"<!DOCTYPE|<!ENTITY", raw, re.I):
        raise MxGraphError(MxReason.UNSAFE_XML, "DOCTYPE/ENTITY declarations are refused")
    try:
        root = etree.fromstring(raw, _PARSER)
    except etree.XMLSyntaxError as exc:
        raise MxGraphError(MxReason.MALFORMED, str(exc)) from None
    if root.getroottree().docinfo.internalDTD is not None:  # belt and braces
        raise MxGraphError(MxReason.UNSAFE_XML, "DTD refused")
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


_EXTERNAL_IMAGE = re.compile(r"image=(?!data:)[a-z]+://|image=/|image=\.\.", re.I)
MAX_COORD = 20_000.0
"""Geometry beyond this (px) is not an ordinary diagram, and can keep a renderer busy for
seconds (a 60000 px hatched shape took 7 s in draw.io)."""


def validate(model: etree._Element) -> list[str]:
    """Rule violations (empty when the page is valid)."""
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
                if ref is None:
                    errs.append(f"edge {cid!r} has no {end}")
                elif ref not in seen:
                    errs.append(f"edge {cid!r} {end} {ref!r} does not exist")
            if c.find("mxGeometry") is None:
                errs.append(f"edge {cid!r} has no geometry")
        if c.get("vertex") == "1" and c.find("mxGeometry") is None:
            errs.append(f"vertex {cid!r} has no geometry")
        if _EXTERNAL_IMAGE.search(style):
            errs.append(f"cell {cid!r} references an external image")
        parent = c.get("parent")
        if parent is not None and parent not in seen and parent not in ids:
            errs.append(f"cell {cid!r} parent {parent!r} does not exist")
    if not any(c.get("vertex") == "1" for c in cs):
        errs.append("no vertices")
    bg = model.get("backgroundImage") or ""
    if bg and re.search(r"(https?|file|ftp)://|\"src\"\s*:\s*\"(?!data:)", bg, re.I):
        errs.append("external background image")
    for g in model.iter("mxGeometry", "mxPoint"):
        for k in ("x", "y", "width", "height"):
            try:
                v = abs(float(g.get(k, 0)))
            except ValueError:
                errs.append(f"geometry {k}={g.get(k)!r} is not a number")
                break
            if v > MAX_COORD:
                errs.append(f"geometry {k}={v:g} beyond {MAX_COORD:g}")
                break
    return errs


# -- normalisation ----------------------------------------------------------------------
def _is_html(cell: etree._Element) -> bool:
    return "html=1" in (cell.get("style") or "")


def _set_label(cell: etree._Element, value: str) -> None:
    parent = cell.getparent()
    if parent is not None and parent.tag in ("object", "UserObject"):
        parent.set("label", value)
    else:
        cell.set("value", value)


# Label HTML keeps formatting but no images: an <img> in a label is an external fetch
_LABEL_TAGS = set(nh3.ALLOWED_TAGS) - {"img", "picture", "source", "video", "audio"}


def normalise(model: etree._Element) -> str:
    """Canonical, safe source of one page: HTML labels sanitised (no script, no handlers)."""
    model = etree.fromstring(etree.tostring(model), _PARSER)
    for c in cells(model):
        label = label_of(c)
        if label and _is_html(c):
            _set_label(c, nh3.clean(label, tags=_LABEL_TAGS))
    return etree.tostring(model, encoding="unicode")


def html_to_text(label: str) -> str:
    """Visible text of an HTML label, with <br>/<div>/<p> as line breaks."""
    if "<" not in label and "&" not in label:
        return label
    frag = lhtml.fragment_fromstring(label or " ", create_parent="div")
    for br in frag.iter("br"):
        br.tail = "\n" + (br.tail or "")
    for blk in frag.iter("div", "p", "li"):
        if blk is not frag:
            blk.tail = "\n" + (blk.tail or "")
    return re.sub(r"\n{2,}", "\n", frag.text_content()).strip()


def for_render(code: str) -> str:
    """The page as the renderer gets it: every label plain text, so no HTML ever reaches the
    browser (nothing can run) and labels come out as SVG <text> (no foreignObject)."""
    model = parse_xml(code)
    for c in cells(model):
        style = c.get("style") or ""
        label = label_of(c)
        if label and _is_html(c):
            _set_label(c, html_to_text(label))
        if "html=1" in style:
            c.set("style", style.replace("html=1", "html=0"))
    return etree.tostring(model, encoding="unicode")


def to_graph(code: str) -> str:
    """Nodes (id, text, shape, bbox) and directed edges of a page, as JSON."""
    model = parse_xml(code)
    nodes, edges = [], []
    for c in cells(model):
        style = c.get("style") or ""
        text = html_to_text(label_of(c)) if _is_html(c) else label_of(c)
        if c.get("vertex") == "1":
            g = c.find("mxGeometry")
            bbox = [float(g.get(k, 0)) for k in ("x", "y", "width", "height")] if g is not None \
                else None
            shape = (re.search(r"shape=([^;]+)", style) or re.match(r"([a-zA-Z]+);", style))
            nodes.append({"id": cell_id(c), "text": text,
                          "shape": shape.group(1) if shape else "rectangle", "bbox": bbox})
        elif c.get("edge") == "1":
            edges.append({"source": c.get("source"), "target": c.get("target"), "text": text})
    return json.dumps({"nodes": nodes, "edges": edges}, sort_keys=True)
