"""What a format's ``augment`` capability declares, and what its rules share.

The ``augment`` stage makes, per diagram, a *sketch* (the format's own engine drawing it by
hand: SKETikZ's sketch → code) and *variations* (AugTikZ: the code restyled, recoloured or
re-spaced by an LLM, whose offline backend answers with the format's rule-based variation).
Both are the format's knowledge, so they live in its folder, ``formats/<name>/augment.py``
(found by :meth:`~diagramforge.formats.registry.DiagramFormat.capability`; a format without
one is not augmented). Such a module declares, with these signatures:

* ``SKETCH_KIND: str`` — the augment table's ``kind`` of its sketches;
* ``sketch(code, seed, settings) -> str`` — the sketch's code (``settings``: the
  ``augment.sketch`` section, whose keys for this format the module reads); rendering it is
  the caller's;
* ``LANGUAGE: str`` — how a prompt names the code ("SVG");
* ``VARIATIONS: tuple[str, ...]`` — the kinds of :data:`KINDS` it varies;
* ``variation(code, kind, rng) -> str`` — the rule-based variation of one kind.
"""

from __future__ import annotations

import colorsys
import re

KINDS = ("colour", "style", "layout")
"""The variations an LLM is asked for, in the order the stage draws them."""

HEX = re.compile(r"#([0-9a-fA-F]{6}|[0-9a-fA-F]{3})\b")
"""A hex colour (draw.io styles, SVG paint)."""


def rotate_hex(m: re.Match, shift: float) -> str:
    """The colour ``m`` (a :data:`HEX` match) with its hue turned by ``shift``."""
    h = m.group(1)
    if len(h) == 3:
        h = "".join(c * 2 for c in h)
    r, g, b = (int(h[k:k + 2], 16) / 255 for k in (0, 2, 4))
    hh, ll, ss = colorsys.rgb_to_hls(r, g, b)
    r, g, b = colorsys.hls_to_rgb((hh + shift) % 1.0, ll, ss)
    return "#" + "".join(f"{round(v * 255):02x}" for v in (r, g, b))
