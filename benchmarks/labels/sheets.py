#!/usr/bin/env python3
"""Contact sheets for labelling real pictures by eye, and nothing else.

The labels in this folder were made by looking at pictures, never at the toolkit's answer:
this script lays the pictures out numbered, 3 × 3 a sheet, with the corpus path under each,
and writes which number is which (``sheets.tsv``).  It reads no code and runs no classifier,
so a labeller cannot see what the toolkit thinks.

Input: a TSV of ``key<TAB>image`` (``key`` = ``<corpus>/<path inside it>[#<picture>]``, the
picture a label is for; ``image`` = a PNG/JPG of it: the author's own render beside the file
where the corpus has one, else the real engine's render).

    .venv/bin/python benchmarks/labels/sheets.py items.tsv OUTDIR [--per-sheet 9] [--cell 440]
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def _cell(image: Path, number: int, key: str, size: int) -> Image.Image:
    """One numbered cell: the picture fitted on white, its number and key above it."""
    cell = Image.new("RGB", (size, size + 40), "white")
    draw = ImageDraw.Draw(cell)
    font = ImageFont.truetype(FONT, 15)
    small = ImageFont.truetype(FONT, 10)
    draw.rectangle((0, 0, size - 1, size + 39), outline="grey")
    draw.text((6, 3), f"#{number}", fill="red", font=font)
    draw.text((6, 22), key[-70:], fill="black", font=small)
    try:
        with Image.open(image) as im:
            im.load()
            if im.mode in ("RGBA", "LA", "P"):
                im = im.convert("RGBA")
                bg = Image.new("RGBA", im.size, "white")
                bg.alpha_composite(im)
                im = bg
            im = im.convert("RGB")
            im.thumbnail((size - 8, size - 8))
            cell.paste(im, (4 + (size - 8 - im.width) // 2, 40 + (size - 8 - im.height) // 2))
    except OSError as err:
        draw.text((6, 60), f"unreadable: {err}", fill="red", font=small)
    return cell


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("items", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--per-sheet", type=int, default=9)
    ap.add_argument("--cell", type=int, default=440)
    ap.add_argument("--start", type=int, default=1, help="first picture number")
    a = ap.parse_args()
    rows = [line.rstrip("\n").split("\t") for line in a.items.read_text().splitlines() if line]
    a.out.mkdir(parents=True, exist_ok=True)
    cols = 3
    with (a.out / "sheets.tsv").open("w", newline="") as fh:
        w = csv.writer(fh, delimiter="\t")
        w.writerow(["number", "sheet", "key", "image"])
        for s in range(0, len(rows), a.per_sheet):
            chunk = rows[s:s + a.per_sheet]
            nrows = (len(chunk) + cols - 1) // cols
            sheet = Image.new("RGB", (cols * a.cell, nrows * (a.cell + 40)), "white")
            name = f"sheet-{a.start + s:04d}.png"
            for i, (key, image) in enumerate(chunk):
                number = a.start + s + i
                sheet.paste(_cell(Path(image), number, key, a.cell),
                            ((i % cols) * a.cell, (i // cols) * (a.cell + 40)))
                w.writerow([number, name, key, image])
            sheet.save(a.out / name)


if __name__ == "__main__":
    main()
