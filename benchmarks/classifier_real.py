#!/usr/bin/env python3
"""The diagram-type classifier on real figures nobody here drew: the author's own PNGs of a
TikZ corpus (default: the shared development corpus), truth from the weak labels of each
figure's code (pgfplots ``axis`` → plot, trees, graphs… — the same reader that labels the
training data). Prints keep/reject agreement and where it disagrees.

    .venv/bin/python benchmarks/classifier_real.py [--corpus DIR] [--checkpoint DIR]
"""

from __future__ import annotations

import argparse
import io
import sys
from collections import Counter
from pathlib import Path

from PIL import Image

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from diagramforge.classifier.model import classify, verdict  # noqa: E402
from diagramforge.classifier.params import ClassifierParams  # noqa: E402
from diagramforge.classifier.weak_labels import tikz_label  # noqa: E402


def on_white(path: Path) -> bytes:
    """The PNG flattened onto white (transparent corpus PNGs would otherwise turn black)."""
    src = Image.open(path).convert("RGBA")
    im = Image.new("RGB", src.size, "white")
    im.paste(src, mask=src.split()[3])
    buf = io.BytesIO()
    im.save(buf, "PNG")
    return buf.getvalue()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", type=Path,
                    default=REPO.parent / "shared" / "corpora" / "latex-examples" / "tikz")
    ap.add_argument("--checkpoint", default=str(REPO / "data" / "classifier-train" /
                                                 "checkpoint"))
    args = ap.parse_args()
    params = ClassifierParams(checkpoint=args.checkpoint)
    items = []
    for d in sorted(p for p in args.corpus.iterdir() if p.is_dir()):
        tex, png = d / f"{d.name}.tex", d / f"{d.name}.png"
        if tex.exists() and png.exists() and (lab := tikz_label(tex.read_text(
                errors="replace"))) is not None:
            items.append((d.name, lab, on_white(png)))
    preds = classify([x[2] for x in items], params)
    table: Counter = Counter()
    wrong = []
    for (name, lab, _), (label, prob) in zip(items, preds, strict=True):
        want, got = lab in params.keep, verdict(label, prob, params).keep
        table[("keep" if want else "reject", "kept" if got else "rejected")] += 1
        if want != got:
            wrong.append(f"{name} ({lab} → {label} p={prob:.2f})")
    agree = sum(n for (w, g), n in table.items() if (w == "keep") == (g == "kept"))
    print(f"{len(items)} real figures with a weak label "
          f"({dict(Counter(x[1] for x in items))})")
    print(f"keep/reject agreement: {agree}/{len(items)} = {agree / max(1, len(items)):.3f}")
    for (w, g), n in sorted(table.items()):
        print(f"  should {w:6s} → {g:8s} {n}")
    print("disagreements:", ", ".join(wrong[:20]) + (" …" if len(wrong) > 20 else ""))


if __name__ == "__main__":
    main()
