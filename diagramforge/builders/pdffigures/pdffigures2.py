"""Adapter for AllenAI's pdffigures2 (a JVM tool) where its assembly JAR exists.

Runs ``java -jar <jar> -d <outdir>/ -m <imgdir>/ <pdf>`` (its batch CLI; ``-d`` and
``-m`` are *prefixes*, hence the trailing separator) and reads the JSON it writes to
``<outdir>/<pdf name>.json``: a list of figures, or ``{"figures": [...],
"regionless-captions": [...]}`` with ``-c``.  Boxes are ``{x1, y1, x2, y2}`` in points
from the top-left of the cropbox (72 dpi), pages 0-based: PyMuPDF's own convention, so
the figures become the same :class:`Region` objects as the built-in extractor's.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

from diagramforge.builders.pdffigures.detect import Region
from diagramforge.builders.pdffigures.model import BBox, Caption, PdfReason
from diagramforge.builders.pdffigures.settings import PdfFigureParams
from diagramforge.store.records import Refusal


class ExtractorUnavailable(RuntimeError):
    """The configured extractor cannot run here (no JAR, no java): a setup error, raised."""


class Pdffigures2Error(Refusal):
    """pdffigures2 ran but failed on one PDF, or wrote output that does not parse."""


def check_available(params: PdfFigureParams) -> Path:
    """The JAR path, or :class:`ExtractorUnavailable` saying what is missing and what to do."""
    jar = params.pdffigures2_jar
    if jar is None:
        raise ExtractorUnavailable(
            "extractor 'pdffigures2' needs pdffigures2_jar (the path of pdffigures2's assembly "
            "JAR); set it, or use extractor 'pymupdf'")
    if not Path(jar).is_file():
        raise ExtractorUnavailable(
            f"pdffigures2 JAR not found at {jar}: build it with `sbt assembly` in the "
            "pdffigures2 repository and point pdffigures2_jar at it, or use extractor 'pymupdf'")
    if shutil.which(params.java) is None:
        raise ExtractorUnavailable(f"java executable {params.java!r} not found on PATH")
    return Path(jar)


def _box(d: object) -> BBox:
    if not isinstance(d, dict):
        raise ValueError(f"box is not an object: {d!r}")
    return (float(d["x1"]), float(d["y1"]), float(d["x2"]), float(d["y2"]))


def parse_json(data: object) -> tuple[list[Region], list[Caption]]:
    """Figures (as regions) and regionless captions from pdffigures2's figure JSON."""
    if isinstance(data, dict):
        figs, loose = data.get("figures", []), data.get("regionless-captions", [])
    elif isinstance(data, list):
        figs, loose = data, []
    else:
        raise Pdffigures2Error(PdfReason.EXTRACTOR_FAILED, "pdffigures2 JSON is not a list")
    regions: list[Region] = []
    captions: list[Caption] = []
    try:
        for f in figs:
            kind = str(f.get("figType", "Figure"))
            cap = Caption(int(f["page"]), _box(f["captionBoundary"]), str(f.get("caption", "")),
                          kind, str(f["name"]))
            regions.append(Region(cap.page, _box(f["regionBoundary"]), cap,
                                  source="pdffigures2"))
        for c in loose:
            captions.append(Caption(int(c["page"]), _box(c["boundary"]), str(c.get("text", "")),
                                    str(c.get("figType", "Figure")), str(c["name"])))
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise Pdffigures2Error(PdfReason.EXTRACTOR_FAILED,
                               f"unexpected pdffigures2 JSON: {exc!r}") from None
    return regions, captions


def run(pdf_path: Path, params: PdfFigureParams) -> tuple[list[Region], list[Caption]]:
    """Run pdffigures2 on one PDF in a fresh temp dir and parse what it wrote."""
    jar = check_available(params)
    with tempfile.TemporaryDirectory(prefix="pdffigures2-") as tmp:
        work = Path(tmp)
        src = work / "doc.pdf"  # its CLI insists on a ".pdf" name
        os.symlink(Path(pdf_path).resolve(), src)
        (work / "data").mkdir()
        (work / "img").mkdir()
        cmd = [params.java, "-jar", str(jar), "-d", f"{work / 'data'}{os.sep}",
               "-m", f"{work / 'img'}{os.sep}", str(src)]
        proc = subprocess.Popen(cmd, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, start_new_session=True)
        try:
            _, err = proc.communicate(timeout=params.pdffigures2_timeout_s)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            raise Pdffigures2Error(PdfReason.EXTRACTOR_FAILED,
                                   f"timed out after {params.pdffigures2_timeout_s:g} s") from None
        out = work / "data" / "doc.json"
        if proc.returncode != 0 or not out.is_file():
            raise Pdffigures2Error(PdfReason.EXTRACTOR_FAILED,
                                   f"exit {proc.returncode}: {err.strip()[-500:]}")
        try:
            data = json.loads(out.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise Pdffigures2Error(PdfReason.EXTRACTOR_FAILED, f"bad JSON: {exc}") from None
        return parse_json(data)
