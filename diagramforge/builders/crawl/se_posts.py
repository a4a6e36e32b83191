"""One Stack Exchange post in our terms: its code blocks and prose, tags, dates and links.

A post's ``Body`` is the HTML Stack Exchange renders from its Markdown; code blocks are
``<pre><code>`` elements.  They are read with ``lxml.html`` — the entities (``&lt;``,
``&amp;``) decoded by the parser, never by a regular expression over the HTML — and what is
left once they are cut out is the post's prose.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime

import lxml.etree
import lxml.html

_TAG = re.compile(r"[^<>|]+")
_WS = re.compile(r"[ \t\r\f\v]+")
_BLANKS = re.compile(r"\n\s*\n+")


def parse_tags(text: str | None) -> list[str]:
    """``<tikz-pgf><arrows>`` (dumps until 2023) or ``|tikz-pgf|arrows|`` (since)."""
    return _TAG.findall(text or "")


def iso(value: str) -> str:
    """A dump timestamp (UTC) in one spelling (``2016-03-01T10:00:00.000``), so they compare
    as strings; raises ``ValueError`` on one that is not a timestamp."""
    when = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    if when.tzinfo is not None:
        when = when.astimezone(UTC).replace(tzinfo=None)
    return when.isoformat(timespec="milliseconds")


@dataclass
class Body:
    """A post body: its code blocks in order, and its prose as paragraphs."""

    blocks: list[str] = field(default_factory=list)
    paragraphs: list[str] = field(default_factory=list)

    def prose(self, max_chars: int) -> str:
        text = "\n\n".join(self.paragraphs)
        return text if len(text) <= max_chars else text[:max_chars].rsplit(" ", 1)[0] + " …"


def _clean(text: str) -> str:
    return _BLANKS.sub("\n\n", _WS.sub(" ", text)).strip()


def parse_body(html: str) -> Body:
    """Code blocks (``<pre>``, whose ``<code>`` Stack Exchange always puts inside) and prose
    of a post's HTML.  Broken HTML is read as browsers would (lxml's HTML parser)."""
    if not html.strip():
        return Body()
    try:
        root = lxml.html.fragment_fromstring(html, create_parent="div")
    except (lxml.etree.ParserError, ValueError):
        return Body()
    out = Body()
    for pre in list(root.iter("pre")):
        out.blocks.append(pre.text_content())
        pre.drop_tree()
    if root.text and root.text.strip():
        out.paragraphs.append(_clean(root.text))
    for child in root:
        if isinstance(child.tag, str):  # not a comment or processing instruction
            text = _clean(child.text_content())
            if text:
                out.paragraphs.append(text)
        if child.tail and child.tail.strip():
            out.paragraphs.append(_clean(child.tail))
    return out


def post_url(site: str, post_type: int, post_id: int) -> str:
    """A question's or an answer's short link (the site's own "share" links)."""
    kind = {1: "q", 2: "a"}.get(post_type, "posts")
    return f"https://{site}/{kind}/{post_id}"


def profile_url(site: str, user_id: int) -> str:
    return f"https://{site}/users/{user_id}"
