"""SVG: sanitize, cap, normalise, and render to PNG (resvg or cairosvg).

Sanitizing removes what could act or reach out — scripts, event handlers, foreignObject,
references to files or URLs (``href``, CSS ``url()``/``@import``) — and never expands
entities.  Normalising strips editor metadata and comments and makes ``viewBox`` and
width/height agree, without changing a pixel.  resvg drops text whose font family does not
resolve (there is no Arial here), so before rendering every family list gets an installed
fallback of the same kind (sans, serif, mono).
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache

import numpy as np
from lxml import etree

from diagramforge.records import Refusal

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
_URL = re.compile(r"url\(\s*(['\"]?)(?!#)[^)]*\1\s*\)", re.I)
_IMPORT = re.compile(r"@import[^;]*;?", re.I)
_SAFE_DATA = re.compile(r"^data:image/(png|jpe?g|gif|webp);", re.I)


class SvgReason(StrEnum):
    MALFORMED = "svg_malformed"
    NOT_SVG = "not_svg"
    TOO_LARGE = "svg_too_large"
    TOO_MANY_ELEMENTS = "svg_too_many_elements"
    PATH_TOO_LONG = "svg_path_too_long"
    RENDER_FAILED = "svg_render_failed"


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
    try:
        root = etree.fromstring(raw, _PARSER)
    except etree.XMLSyntaxError as exc:
        raise SvgError(SvgReason.MALFORMED, str(exc)) from None
    if _local(root.tag) != "svg":
        raise SvgError(SvgReason.NOT_SVG, f"root element <{_local(root.tag)}>")
    removed: list[str] = []
    gone: set[etree._Element] = set()
    n = 0
    for el in list(root.iter()):
        if any(a in gone for a in el.iterancestors()):
            continue  # removed with an ancestor
        if isinstance(el, etree._Entity) or not isinstance(el.tag, str):
            removed.append("entity" if isinstance(el, etree._Entity) else "node")
            _drop(el)
            continue
        name = _local(el.tag)
        if name in ACTIVE or _editor(_ns(el.tag)) or name == "metadata":
            removed.append(name)
            gone.add(el)
            _drop(el)
            continue
        if name in ("set", "animate") and (el.get("attributeName") or "").lower().endswith(
                "href"):
            removed.append(f"{name}[href]")
            _drop(el)
            continue
        n += 1
        for attr in list(el.attrib):
            value = el.get(attr) or ""
            aname = _local(attr)
            if _editor(_ns(attr)) or aname.lower().startswith("on"):
                removed.append(f"@{aname}")
                del el.attrib[attr]
            elif aname == "href" and not (value.startswith("#") or _SAFE_DATA.match(value)):
                removed.append(f"@href={value[:40]}")
                del el.attrib[attr]
            elif aname == "style" or "url(" in value:
                cleaned = _IMPORT.sub("", _URL.sub("none", value))
                if cleaned != value:
                    removed.append(f"@{aname} url")
                    el.set(attr, cleaned)
            if aname == "d" and len(value) > caps.max_path_chars:
                raise SvgError(SvgReason.PATH_TOO_LONG, f"path of {len(value)} chars")
        if name == "style" and el.text:
            css = _IMPORT.sub("", _URL.sub("none", el.text))
            if css != el.text:
                removed.append("css url/@import")
                el.text = css
        if n > caps.max_elements:
            raise SvgError(SvgReason.TOO_MANY_ELEMENTS, f"more than {caps.max_elements}")
    for attr in list(root.attrib):
        if _editor(_ns(attr)):
            del root.attrib[attr]
    _viewbox(root)
    etree.cleanup_namespaces(root)
    code = etree.tostring(root, encoding="unicode")
    return Cleaned(code=code + "\n", removed=removed, elements=n)


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
        parts = [float(x) for x in re.split(r"[\s,]+", vb.strip()) if x]
        if len(parts) == 4:
            if w is None and h is None:
                root.set("width", f"{parts[2]:g}")
                root.set("height", f"{parts[3]:g}")
            elif w is None and h:
                root.set("width", f"{h * parts[2] / parts[3]:g}")
            elif h is None and w:
                root.set("height", f"{w * parts[3] / parts[2]:g}")


# -- fonts ------------------------------------------------------------------------------
FALLBACK = {"sans": "DejaVu Sans", "serif": "DejaVu Serif", "mono": "DejaVu Sans Mono"}
_FAMILY = re.compile(r"(font-family\s*[:=]\s*)(\"[^\"]*\"|'[^']*'|[^;\"'>}]+)", re.I)


def _kind(family: str) -> str:
    f = family.lower()
    if any(k in f for k in ("mono", "courier", "consol", "menlo", "code")):
        return "mono"
    if f == "serif" or any(k in f for k in ("times", "georgia", "garamond", "cambria",
                                            "roman", "book")) or (
            "serif" in f and "sans" not in f):
        return "serif"
    return "sans"


def resolve_fonts(svg: str) -> str:
    """Append an installed fallback of the same kind to every font-family list."""

    def fix(m: re.Match) -> str:
        quote = m.group(2)[0] if m.group(2)[:1] in "\"'" else ""
        families = m.group(2).strip("\"'")
        first = families.split(",")[0].strip().strip("\"'")
        fb = FALLBACK[_kind(first)]
        if fb.lower() in families.lower():
            return m.group(0)
        sep = "'" if quote == '"' else '"' if quote == "'" else "'"
        return f"{m.group(1)}{quote}{families}, {sep}{fb}{sep}{quote}"

    return _FAMILY.sub(fix, svg)


# -- rendering --------------------------------------------------------------------------
@cache
def _resvg_options():  # noqa: ANN202 - resvg.usvg.Options
    import resvg

    opts = resvg.usvg.Options.default()
    opts.load_system_fonts()
    opts.font_family = FALLBACK["sans"]
    opts.resources_dir = "/nonexistent"  # relative hrefs resolve to nothing
    return opts


def render_png(svg: str, scale: float = 1.0, engine: str = "resvg") -> bytes:
    """PNG of a (cleaned) SVG on a white background."""
    prepared = resolve_fonts(svg)
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
        size = (max(1, round(w * scale)), max(1, round(h * scale)))
        return bytes(resvg.render(tree, (scale, 0, 0, 0, scale, 0), bg_size=size,
                                  bg_color=(255, 255, 255, 255)))
    except BaseException as exc:  # noqa: BLE001 - resvg panics with a BaseException
        if isinstance(exc, KeyboardInterrupt | SystemExit):
            raise
        raise SvgError(SvgReason.RENDER_FAILED, f"resvg: {exc!r}"[:300]) from None


def png_ink(png: bytes) -> tuple[int, int, float]:
    """(width, height, ink fraction) of a PNG."""
    from PIL import Image

    im = Image.open(io.BytesIO(png)).convert("RGB")
    arr = np.asarray(im)
    return im.width, im.height, float((arr.min(axis=2) < 245).mean()) if arr.size else 0.0
