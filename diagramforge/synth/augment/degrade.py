"""Scan- and photo-like degradations of a clean render (albumentations; imgaug, named in the
original plan, does not import with NumPy ≥ 2).

A small rotation and perspective warp (a page photographed at an angle, white outside the
page), blur, sensor noise and a paper texture (low-frequency brightness variation multiplied
in), then stored as a JPEG at a quality drawn from ``augment.degrade.jpeg_quality`` — as a
camera or a scanner stores its picture: the JPEG artefacts are the file's own, encoded once
(``formats/encoding.photo_jpeg``). Until this was the storage, a JPEG step inside the
pipeline was followed by the texture and a PNG of the result, which paid the noise in full
(a page-sized scan ≈ 2.7 MB). Every parameter range comes from ``augment.degrade``; the draw
is seeded per diagram, so a rerun writes the same bytes.
"""

from __future__ import annotations

import os
import random
import sys
from types import ModuleType

import numpy as np
from PIL import Image

from diagramforge.formats.encoding import photo_jpeg
from diagramforge.formats.picture import Picture
from diagramforge.measure.timing import DEGRADE, in_phase

os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")  # it checks PyPI on import otherwise


def albumentations() -> ModuleType:
    """albumentations without its PyTorch subpackage.

    Its ``__init__`` imports ``albumentations.pytorch`` (tensor conversion) whenever torch is
    installed, and torch is, for the classifier: every process that imported albumentations
    carried torch, ≈ 180 MB RSS (123 MB of it anonymous) that no degradation uses — in
    augment's driver (for the version in ``environment``) and so in both forked workers.
    A ``None`` entry in ``sys.modules`` makes that import raise ImportError, which the
    package's own ``suppress(ImportError)`` around it expects (torch absent). A process that
    had imported the subpackage already keeps it."""
    if "albumentations" not in sys.modules:
        sys.modules.setdefault("albumentations.pytorch", None)  # type: ignore[arg-type]
    import albumentations as alb

    return alb


def pipeline(cfg, seed: int):  # noqa: ANN001, ANN201 - DegradeParams → A.Compose
    import cv2

    # one thread: the runner's workers already fill the cores, and OpenCV's own threads
    # only added CPU (draw.io pages: 266 vs 298 ms a scan; the same bytes)
    cv2.setNumThreads(1)

    A = albumentations()  # noqa: N806 - the library's own convention

    white = (255, 255, 255)
    return A.Compose([
        A.Rotate(limit=(-cfg.rotate_limit, cfg.rotate_limit), border_mode=cv2.BORDER_CONSTANT,
                 fill=white, p=1.0),
        A.Perspective(scale=tuple(cfg.perspective_scale), fit_output=True,
                      border_mode=cv2.BORDER_CONSTANT, fill=white, p=1.0),
        A.GaussianBlur(blur_limit=(3, cfg.blur_limit), p=cfg.blur_p),
        A.GaussNoise(std_range=tuple(cfg.noise_std), p=1.0),
    ], seed=seed)


def jpeg_quality(cfg, seed: int) -> int:  # noqa: ANN001 - DegradeParams
    """The JPEG quality of the scan drawn with ``seed`` (uniform in ``cfg.jpeg_quality``)."""
    lo, hi = sorted(cfg.jpeg_quality)
    return random.Random(f"jpeg-{seed}").randint(lo, hi)


def paper(shape: tuple[int, int], strength: float, rng: np.random.Generator) -> np.ndarray:
    """A multiplicative paper texture: coarse blotches (noise upsampled) plus fine grain."""
    h, w = shape
    coarse = rng.normal(0, 1, (max(2, h // 64), max(2, w // 64))).astype(np.float32)
    big = np.asarray(Image.fromarray(coarse).resize((w, h), Image.BICUBIC))
    grain = rng.normal(0, 0.3, (h, w)).astype(np.float32)
    return 1.0 - strength * (0.5 + 0.5 * np.tanh(big)) * 0.6 - strength * 0.2 * np.abs(grain)


@in_phase(DEGRADE)
def degrade(image: Picture | bytes, cfg, seed: int) -> bytes:  # noqa: ANN001 - DegradeParams
    """The render (a picture in memory, or a stored image) degraded as a scan or photo
    would be: JPEG bytes at :func:`jpeg_quality`."""
    img = np.ascontiguousarray(Picture.of(image).pixels[..., :3])
    out = pipeline(cfg, seed)(image=img)["image"].astype(np.float32)
    if cfg.paper_texture > 0:
        tex = paper(out.shape[:2], cfg.paper_texture, np.random.default_rng(seed))
        tint = np.array([1.0, 0.985, 0.95], dtype=np.float32)  # slightly warm paper
        out = out * tex[..., None] * tint
    return photo_jpeg(np.clip(out, 0, 255).astype(np.uint8), jpeg_quality(cfg, seed))
