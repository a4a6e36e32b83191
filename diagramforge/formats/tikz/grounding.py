"""What TikZ code says about its structure graph's faithfulness: the ``grounding``
capability :func:`diagramforge.formats.grounding.code_check` asks (point 2, *one picture*).

A ``\\tikz`` or a ``tikzpicture`` inside the picture (a picture in a node), or pictures side by
side in one source, is read as one graph: of the outer picture's nodes only, or of what
several pictures draw merged into one — neither is the picture a reader sees.
"""

from __future__ import annotations

import re

from diagramforge.formats.grounding import INCOMPLETE, Verdict

_PICTURE = re.compile(r"\\tikz(?![A-Za-z@])|\\begin\s*\{tikzpicture\}")
_COMMENT = re.compile(r"(?<!\\)%[^\n]*")


def body(code: str) -> str:
    """The source's document body without its comments: what it draws (the preamble's
    definitions draw nothing)."""
    return _COMMENT.sub("", code.split("\\begin{document}", 1)[-1])


def code_check(code: str) -> Verdict | None:
    """``None`` unless the source draws more than one picture."""
    pictures = len(_PICTURE.findall(body(code)))
    if pictures > 1:
        return Verdict(INCOMPLETE, f"{pictures} pictures in one source (a \\tikz or a "
                       "tikzpicture in a node, or pictures side by side): one structure graph "
                       "reads the outer nodes only, or merges what several pictures draw")
    return None
