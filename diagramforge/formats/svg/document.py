"""SVG: sanitize, cap, normalise, and render to PNG (resvg or cairosvg).

Sanitizing removes what could act or reach out — scripts, event handlers, foreignObject,
references to files or URLs (``href``, CSS ``url()``/``@import``) — and never expands
entities; a document that declares any is refused (``xml_doctype_forbidden``, as in every
format: :mod:`.declarations`).  Normalising strips editor metadata and comments and makes
``viewBox`` and width/height agree, without changing a pixel.  resvg drops text whose font
family does not resolve (there is no Arial here), so before rendering every family list gets
an installed fallback of the same kind (sans, serif, mono).
"""

from __future__ import annotations

import io
import re
import threading
from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np
from lxml import etree

from diagramforge.notation.declarations import (
    UNSAFE_XML,
    declaration,
    parsed_declaration,
)
from diagramforge.store.records import Refusal

SVG_NS = "http://www.w3.org/2000/svg"
XLINK = "http://www.w3.org/1999/xlink"
EDITOR_NS = (
    "http://www.inkscape.org/namespaces/inkscape",
    "http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd",
    "http://ns.adobe.com/",
    "http://www.bohemiancoding.com/sketch/ns",
    "http://www.serif.com/",
    "http://purl.org/dc/elements/1.1/",
    "http://creativecommons.org/ns#",
    "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
)
ACTIVE = {"script", "foreignObject", "iframe", "object", "embed", "handler", "listener"}
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False,
                          huge_tree=False, remove_comments=True, remove_pis=True)
_SAFE_DATA = re.compile(r"^data:image/(png|jpe?g|gif|webp);", re.I)


class SvgReason(StrEnum):
    MALFORMED = "svg_malformed"
    UNSAFE_XML = UNSAFE_XML
    """A DTD subset or ENTITY declaration (:mod:`.declarations`)."""
    NOT_SVG = "not_svg"
    TOO_LARGE = "svg_too_large"
    TOO_MANY_ELEMENTS = "svg_too_many_elements"
    PATH_TOO_LONG = "svg_path_too_long"
    RENDER_FAILED = "svg_render_failed"
    TOO_BIG_TO_RENDER = "extreme_scale_large"


class SvgError(Refusal):
    """Refused with a :class:`SvgReason`."""


@dataclass
class Caps:
    max_bytes: int = 2_000_000
    max_elements: int = 20_000
    max_path_chars: int = 200_000


@dataclass
class Cleaned:
    code: str
    removed: list[str] = field(default_factory=list)
    elements: int = 0


def _local(tag: object) -> str:
    return etree.QName(tag).localname if isinstance(tag, str) else ""


def _ns(tag_or_attr: str) -> str:
    return etree.QName(tag_or_attr).namespace or ""


def _editor(ns: str) -> bool:
    return any(ns.startswith(e) for e in EDITOR_NS)


def _length(value: str | None) -> float | None:
    m = re.fullmatch(r"\s*([0-9.]+)\s*(px)?\s*", value or "")
    return float(m.group(1)) if m else None


def clean(data: bytes | str, caps: Caps | None = None) -> Cleaned:
    """Sanitize and normalise one SVG document; raise :class:`SvgError` when it must go."""
    caps = caps or Caps()
    raw = data.encode() if isinstance(data, str) else data
    if len(raw) > caps.max_bytes:
        raise SvgError(SvgReason.TOO_LARGE, f"{len(raw)} bytes > {caps.max_bytes}")
    why = declaration(raw)  # the same rule and reason in every format
    if why is not None:
        raise SvgError(SvgReason.UNSAFE_XML, why)
    try:
        root = etree.fromstring(raw, _PARSER)
    except (etree.XMLSyntaxError, ValueError) as exc:
        raise SvgError(SvgReason.MALFORMED, str(exc)) from None
    why = parsed_declaration(root)  # belt and braces (a UTF-16 document)
    if why is not None:
        raise SvgError(SvgReason.UNSAFE_XML, why)
    if _local(root.tag) != "svg":
        raise SvgError(SvgReason.NOT_SVG, f"root element <{_local(root.tag)}>")
    try:
        removed, n = _sanitize(root, caps)
        _viewbox(root)
    except SvgError:
        raise
    except Exception as exc:  # noqa: BLE001 - any surprise in a stranger's file is a reason
        raise SvgError(SvgReason.MALFORMED, repr(exc)[:300]) from None
    etree.cleanup_namespaces(root)
    code = etree.tostring(root, encoding="unicode")
    return Cleaned(code=code + "\n", removed=removed, elements=n)


_DANGEROUS_ATTRS = {"src", "srcset", "data", "action", "formaction", "background", "ping",
                    "codebase", "dynsrc", "lowsrc"}
_SCRIPT_URL = re.compile(r"^[\s\x00-\x20]*(javascript|vbscript|livescript):", re.I)


def _sanitize(root: etree._Element, caps: Caps) -> tuple[list[str], int]:
    """Remove active content and external references in place; count kept elements."""
    svg_ns = _ns(root.tag)  # "" for an SVG without xmlns: its elements are SVG too
    removed: list[str] = []
    gone: set[etree._Element] = set()
    styles: list[etree._Element] = []
    n = 0
    for el in list(root.iter()):
        if any(a in gone for a in el.iterancestors()):
            continue  # removed with an ancestor
        if isinstance(el, etree._Entity) or not isinstance(el.tag, str):
            removed.append("entity" if isinstance(el, etree._Entity) else "node")
            _drop(el)
            continue
        name = _local(el.tag)
        foreign = _ns(el.tag) != svg_ns
        if name in ACTIVE or foreign or name == "metadata":
            removed.append(name)
            gone.add(el)
            _drop(el)
            continue
        if name in ("set", "animate") and (el.get("attributeName") or "").lower() in (
                "href", "xlink:href"):
            removed.append(f"{name}[href]")
            gone.add(el)
            _drop(el)
            continue
        n += 1
        if n > caps.max_elements:
            raise SvgError(SvgReason.TOO_MANY_ELEMENTS, f"more than {caps.max_elements}")
        for attr in list(el.attrib):
            value = el.get(attr) or ""
            aname = _local(attr).lower()
            if aname == "d" and len(value) > caps.max_path_chars:
                raise SvgError(SvgReason.PATH_TOO_LONG, f"path of {len(value)} chars")
            why = _attr_problem(attr, aname, value)
            if why:
                removed.append(why)
                del el.attrib[attr]
        if name == "style":
            styles.append(el)
    for el in styles:  # last: tails of removed children may have landed in them
        css = "".join(el.itertext())
        for child in list(el):
            el.remove(child)
        el.text, dropped = _clean_stylesheet(css)
        removed += dropped
    return removed, n


def _attr_problem(attr: str, aname: str, value: str) -> str | None:
    """Why an attribute must go (event handler, external reference, editor data), or None."""
    if _editor(_ns(attr)):
        return f"@{aname}"
    if aname.startswith("on"):
        return f"@{aname}"
    if aname in _DANGEROUS_ATTRS or _SCRIPT_URL.match(value):
        return f"@{aname}={value[:40]}"
    if aname == "href" and not (value.startswith("#") or _SAFE_DATA.match(value)):
        return f"@href={value[:40]}"
    if re.search(r"url|\\|@import", value, re.I) and _css_external(value):
        return f"@{aname} external url"
    return None


def _external_token(tokens) -> bool:  # noqa: ANN001 - tinycss2 nodes
    """Whether CSS tokens reference anything outside the document (escapes resolved)."""
    import tinycss2.ast as ast

    for t in tokens or []:
        if isinstance(t, ast.URLToken) and not t.value.strip().startswith("#"):
            return True
        if isinstance(t, ast.FunctionBlock):
            if t.lower_name in ("url", "src", "image", "image-set", "element"):
                arg = "".join(a.value for a in t.arguments
                              if isinstance(a, ast.StringToken | ast.IdentToken))
                if not arg.strip().startswith("#"):
                    return True
            if _external_token(t.arguments):
                return True
        if isinstance(t, ast.AtKeywordToken) and t.lower_value == "import":
            return True
        if isinstance(t, ast.ParenthesesBlock | ast.SquareBracketsBlock | ast.CurlyBracketsBlock) \
                and _external_token(t.content):
            return True
    return False


def _css_external(value: str) -> bool:
    import tinycss2

    return _external_token(tinycss2.parse_component_value_list(value))


def _clean_stylesheet(css: str) -> tuple[str, list[str]]:
    """A <style> sheet without @import and without rules that reach outside."""
    import tinycss2
    import tinycss2.ast as ast

    kept, dropped = [], []
    for rule in tinycss2.parse_stylesheet(css, skip_whitespace=True, skip_comments=True):
        if isinstance(rule, ast.ParseError):
            dropped.append("css parse error")
            continue
        if isinstance(rule, ast.AtRule) and rule.lower_at_keyword == "import":
            dropped.append("css @import")
            continue
        parts = [*(rule.prelude or []), *(rule.content or [])]
        if _external_token(parts):
            dropped.append("css external url")
            continue
        kept.append(rule.serialize())
    return "\n".join(kept), dropped


def _drop(el: etree._Element) -> None:
    parent = el.getparent()
    if parent is None:
        return
    if el.tail:  # keep the text that followed the element
        prev = el.getprevious()
        if prev is not None:
            prev.tail = (prev.tail or "") + el.tail
        else:
            parent.text = (parent.text or "") + el.tail
    parent.remove(el)


def _viewbox(root: etree._Element) -> None:
    """Make viewBox and width/height agree (the drawing itself is untouched)."""
    w, h = _length(root.get("width")), _length(root.get("height"))
    vb = root.get("viewBox")
    if not vb and w and h:
        root.set("viewBox", f"0 0 {w:g} {h:g}")
    elif vb:
        try:
            parts = [float(x) for x in re.split(r"[\s,]+", vb.strip()) if x]
        except ValueError:
            return
        if len(parts) == 4 and parts[2] > 0 and parts[3] > 0:
            if w is None and h is None:
                root.set("width", f"{parts[2]:g}")
                root.set("height", f"{parts[3]:g}")
            elif w is None and h:
                root.set("width", f"{h * parts[2] / parts[3]:g}")
            elif h is None and w:
                root.set("height", f"{w * parts[3] / parts[2]:g}")


# -- fonts ------------------------------------------------------------------------------
FALLBACK = {"sans": "DejaVu Sans", "serif": "DejaVu Serif", "mono": "DejaVu Sans Mono"}
_ATTR = re.compile(r"""(font-family\s*=\s*)(["'])(.*?)\2""", re.I | re.S)
_STYLE_ATTR = re.compile(r"""(\sstyle\s*=\s*)(["'])(.*?)\2""", re.I | re.S)
_STYLE_ELEMENT = re.compile(r"(<style\b[^>]*>)(.*?)(</style>)", re.I | re.S)
_DECLARATION = re.compile(r"(font-family\s*:\s*)([^;}]+)", re.I)
_FAMILIES = re.compile(r""""[^"]*"|'[^']*'|[^,]+""")


def _kind(family: str) -> str:
    f = family.lower()
    if any(k in f for k in ("mono", "courier", "consol", "menlo", "code")):
        return "mono"
    if f == "serif" or any(k in f for k in ("times", "georgia", "garamond", "cambria",
                                            "roman", "book")) or (
            "serif" in f and "sans" not in f):
        return "serif"
    return "sans"


def _with_fallback(families: str, quote: str) -> str:
    """A family list (``"trebuchet ms",verdana,sans-serif``) with the installed fallback of
    its first family's kind appended, quoted with ``quote`` (never the quote that encloses
    the list, so the document stays well-formed)."""
    names = [f.strip() for f in _FAMILIES.findall(families) if f.strip()]
    if not names:
        return families
    fb = FALLBACK[_kind(names[0].strip("\"'"))]
    if any(n.strip("\"'").lower() == fb.lower() for n in names):
        return families
    return f"{families.rstrip()}, {quote}{fb}{quote}"


def resolve_fonts(svg: str) -> str:
    """Append an installed fallback of the same kind to every font-family list: in
    ``font-family`` attributes, in ``style`` attributes and in ``<style>`` sheets.  The list
    is read whole — a first name in quotes (Mermaid's ``"trebuchet ms",verdana,arial,
    sans-serif``) is one family of several, and resvg drops text none of them resolves."""

    def attr(m: re.Match) -> str:
        inner = "'" if m.group(2) == '"' else '"'
        return f"{m.group(1)}{m.group(2)}{_with_fallback(m.group(3), inner)}{m.group(2)}"

    def declarations(text: str, quote: str) -> str:
        return _DECLARATION.sub(lambda d: d.group(1) + _with_fallback(d.group(2), quote), text)

    def style_attr(m: re.Match) -> str:
        inner = "'" if m.group(2) == '"' else '"'
        return f"{m.group(1)}{m.group(2)}{declarations(m.group(3), inner)}{m.group(2)}"

    def sheet(m: re.Match) -> str:
        return m.group(1) + declarations(m.group(2), "'") + m.group(3)

    svg = _STYLE_ELEMENT.sub(sheet, svg)
    svg = _STYLE_ATTR.sub(style_attr, svg)
    return _ATTR.sub(attr, svg)


# -- rendering --------------------------------------------------------------------------
_THREAD = threading.local()


def _resvg_options():  # noqa: ANN202 - resvg.usvg.Options
    """resvg's options (with the system fonts loaded, which is slow): once per thread, since
    the Rust object may only be used by the thread that made it (Dask runs units in threads)."""
    opts = getattr(_THREAD, "resvg", None)
    if opts is not None:
        return opts
    import resvg

    opts = resvg.usvg.Options.default()
    opts.load_system_fonts()
    opts.font_family = FALLBACK["sans"]
    opts.resources_dir = "/nonexistent"  # relative hrefs resolve to nothing
    _THREAD.resvg = opts
    return opts


def declared_size(svg: str) -> tuple[float, float] | None:
    """Width and height an SVG declares (px), or None when it does not say."""
    m = re.search(r"<svg\b[^>]*>", svg)
    if not m:
        return None
    head = m.group(0)
    w = re.search(r'\swidth="([0-9.]+)(px)?"', head)
    h = re.search(r'\sheight="([0-9.]+)(px)?"', head)
    return (float(w.group(1)), float(h.group(1))) if w and h else None


def render_png(svg: str, scale: float = 1.0, engine: str = "resvg",
               max_side: int = 16384) -> bytes:
    """PNG of a (cleaned) SVG on a white background.

    The size is checked *before* rasterizing: an 80-byte SVG can declare 30000×30000 px,
    and the allocation alone would bring the process down.
    """
    prepared = resolve_fonts(svg)
    size = declared_size(prepared)
    if size and max(size) * scale > max_side:
        raise SvgError(SvgReason.TOO_BIG_TO_RENDER,
                       f"{size[0]:g}x{size[1]:g} at scale {scale:g} > {max_side}px")
    if engine == "cairosvg":
        import cairosvg

        try:
            return cairosvg.svg2png(bytestring=prepared.encode(), scale=scale,
                                    background_color="white", unsafe=False)
        except Exception as exc:  # noqa: BLE001 - any cairo failure is a render failure
            raise SvgError(SvgReason.RENDER_FAILED, f"cairosvg: {exc}") from None
    import resvg

    try:
        tree = resvg.usvg.Tree.from_str(prepared, _resvg_options())
        w, h = tree.int_size()
        if max(w, h) * scale > max_side:
            raise SvgError(SvgReason.TOO_BIG_TO_RENDER, f"{w}x{h} at scale {scale:g}")
        size = (max(1, round(w * scale)), max(1, round(h * scale)))
        return bytes(resvg.render(tree, (scale, 0, 0, 0, scale, 0), bg_size=size,
                                  bg_color=(255, 255, 255, 255)))
    except BaseException as exc:  # noqa: BLE001 - resvg panics with a BaseException
        if isinstance(exc, KeyboardInterrupt | SystemExit | SvgError):
            raise
        raise SvgError(SvgReason.RENDER_FAILED, f"resvg: {exc!r}"[:300]) from None


def png_ink(png: bytes) -> tuple[int, int, float]:
    """(width, height, ink fraction) of a PNG."""
    from PIL import Image

    im = Image.open(io.BytesIO(png)).convert("RGB")
    arr = np.asarray(im)
    return im.width, im.height, float((arr.min(axis=2) < 245).mean()) if arr.size else 0.0
