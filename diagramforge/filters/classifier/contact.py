"""Contact sheets: many labelled thumbnails in one PNG, for checking labels by eye.

The classifier's training labels come from rules and its evaluation from people looking;
a grid of captioned thumbnails is how both are looked at (one sheet per disagreement list,
per kind, per source).
"""

from __future__ import annotations

import io
from collections.abc import Sequence

from PIL import Image, ImageDraw

from diagramforge.filters.classifier.images import to_rgb


def grid_sheet(items: Sequence[tuple[str, bytes]], cols: int = 6, cell: int = 200,
               title: str = "") -> bytes:
    """PNG of ``items`` (caption, image bytes) in a grid of ``cols`` columns; each image is
    fitted into a ``cell``-pixel square on white, its caption (two short lines) above."""
    pad, head = 6, 24
    top = 18 if title else 0
    rows = max(1, -(-len(items) // cols))
    sheet = Image.new("RGB", (cols * (cell + pad) + pad, top + rows * (cell + head + pad) + pad),
                      "white")
    draw = ImageDraw.Draw(sheet)
    if title:
        draw.text((pad, 3), title[:160], fill="black")
    for k, (caption, data) in enumerate(items):
        x = pad + (k % cols) * (cell + pad)
        y = top + pad + (k // cols) * (cell + head + pad)
        chars = max(8, cell // 6)
        draw.text((x, y), caption[:chars], fill="black")
        draw.text((x, y + 11), caption[chars:2 * chars], fill="#444444")
        try:
            im = to_rgb(data)
        except (OSError, ValueError):
            draw.text((x, y + head + 4), "(unreadable)", fill="red")
            continue
        im.thumbnail((cell, cell))
        sheet.paste(im, (x + (cell - im.width) // 2, y + head + (cell - im.height) // 2))
        draw.rectangle([x - 1, y + head - 1, x + cell, y + head + cell], outline="#bbbbbb")
    buf = io.BytesIO()
    sheet.save(buf, "PNG")
    return buf.getvalue()
