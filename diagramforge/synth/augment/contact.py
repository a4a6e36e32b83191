"""A contact sheet of augmented images beside their clean renders, for checking by eye."""

from __future__ import annotations

import io

from PIL import Image, ImageDraw


def contact_sheet(pairs: list[tuple[str, bytes, bytes]], cell: int = 320) -> bytes:
    """PNG with one row per ``(label, clean png, augmented png)``: clean left, augmented
    right, each fitted into a ``cell``-pixel square, the label above."""
    pad, head = 8, 16
    sheet = Image.new("RGB", (2 * cell + 3 * pad, len(pairs) * (cell + head + pad) + pad),
                      "white")
    draw = ImageDraw.Draw(sheet)
    for k, (label, clean, aug) in enumerate(pairs):
        y = pad + k * (cell + head + pad)
        draw.text((pad, y), label[:90], fill="black")
        for j, png in enumerate((clean, aug)):
            im = Image.open(io.BytesIO(png)).convert("RGB")
            im.thumbnail((cell, cell))
            x = pad + j * (cell + pad)
            sheet.paste(im, (x, y + head))
            draw.rectangle([x - 1, y + head - 1, x + cell, y + head + cell], outline="#bbbbbb")
    buf = io.BytesIO()
    sheet.save(buf, "PNG")
    return buf.getvalue()
