"""Markup declarations that define or pull in entities: refused the same way in every format.

An internal DTD subset (``<!DOCTYPE svg [ … ]>``) or an ``<!ENTITY …>`` declaration is how a
document defines entities — external ones that read files or URLs (XXE), nested ones that
expand exponentially ("billion laughs").  No parser here resolves them, but a document that
declares them is hostile or broken, and silently dropping the entity (what the SVG
sanitiser used to do) would score a hostile output as a success.  So every format refuses
such a document with one reason, :data:`UNSAFE_XML`: SVG and mxGraph in their XML parser,
Graphviz DOT and Mermaid in their extractor (their labels are markup: DOT's HTML-like labels
go through an XML parser, Mermaid's through the browser), TikZ per extracted picture.

A DOCTYPE that only names a DTD — by public identifier and a web or relative address
(``<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/…/svg11.dtd">``), or
nothing at all — declares nothing; since no parser here loads DTDs or touches the network it
is inert, and it is accepted: Graphviz, draw.io and many editors write it at the top of every
SVG.  A DOCTYPE pointing at a local file (``SYSTEM "file:///etc/passwd"``, an absolute path)
is refused like a declaration.
"""

from __future__ import annotations

import re

from diagramforge.store.records import Refusal

UNSAFE_XML = "xml_doctype_forbidden"
_ENTITY = re.compile(rb"<!ENTITY\b", re.I)
_DOCTYPE = re.compile(rb"<!DOCTYPE\b", re.I)
_ADDRESS = rb"""(?:https?://[^"'<>\[\s]*|(?![/\\~])[^"':<>\[\s]*)"""
"""Where a DOCTYPE may say its DTD is: a web address or a relative name (never fetched)."""
_INERT = re.compile(
    rb"<!DOCTYPE\s+[\w:.-]+(?:\s+PUBLIC\s+(?:\"[^\"<>\[]*\"|'[^'<>\[]*')"
    rb"(?:\s+(?:\"" + _ADDRESS + rb"\"|'" + _ADDRESS + rb"'))?"
    rb"|\s+SYSTEM\s+(?:\"" + _ADDRESS + rb"\"|'" + _ADDRESS + rb"'))?\s*>", re.I)
"""A DOCTYPE naming nothing, or a DTD by public identifier and/or web or relative address:
it declares nothing, and no parser here loads it."""


def declaration(data: bytes | str) -> str | None:
    """Why ``data`` is refused (the declaration found), or ``None``."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if _ENTITY.search(raw):
        return "ENTITY declaration refused (entities are never defined nor expanded)"
    for m in _DOCTYPE.finditer(raw):
        if not _INERT.match(raw, m.start()):
            return ("DOCTYPE refused: it may name a DTD by a web or relative address (none "
                    "is ever loaded), not a local file, and declare nothing")
    return None


def refuse_declarations(data: bytes | str) -> None:
    """Raise a :class:`~diagramforge.store.records.Refusal` with :data:`UNSAFE_XML` when ``data``
    declares a DTD subset or an entity."""
    why = declaration(data)
    if why is not None:
        raise Refusal(UNSAFE_XML, why)


def parsed_declaration(root: object) -> str | None:
    """The same check on a parsed lxml document (what a byte pattern cannot see: a UTF-16
    document): its DOCTYPE may name a DTD, never declare entities or elements."""
    dtd = root.getroottree().docinfo.internalDTD  # type: ignore[attr-defined]
    if dtd is None:
        return None
    if any(True for _ in dtd.iterentities()):
        return "ENTITY declaration refused (entities are never defined nor expanded)"
    if any(True for _ in dtd.iterelements()):
        return "DOCTYPE with an internal subset refused"
    return None
