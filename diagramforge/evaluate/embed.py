"""Embedding similarity of the predicted and the reference render (optional).

SSIM and the pixel score (:mod:`.images`) punish a picture drawn a few pixels off as much as
a wrong one; an image–text model of the CLIP/SigLIP family compares what the two pictures
*show*.  ``embedding_cosine`` is the cosine of the two image embeddings, per item and
aggregated like every other metric.  It is on only when ``evaluate.embedding.checkpoint``
names a model: a local directory or a Hub id, loaded by ``transformers``' own loaders
(``AutoModel`` + ``AutoImageProcessor``) — by default only from disk (the directory, or
the Hub cache), so a run never downloads weights midway.

The checkpoint is loaded before any item is scored: a missing or broken one is an
:class:`EmbeddingError` naming the param, never a crash after minutes of rendering.
Inference is deterministic: eval mode, no gradients, one CPU thread while embedding (the
reduction order of a multi-threaded matmul may differ between runs), reference and
prediction embedded in the same batch.  Renders are flattened onto white first, as
:mod:`.images` does: a transparent background is white paper.

Like the other render scores, an output that does not render scores 0 (a model is not
rewarded for skipping hard items); an item without a reference render has no score.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
from PIL import Image

from diagramforge.evaluate.compile import Compiled, Compiler
from diagramforge.evaluate.inputs import InputError
from diagramforge.params import EmbeddingParams, Params

METRIC = "embedding_cosine"
PARAM = "evaluate.embedding.checkpoint"
REFERENCE_IMAGE = {"generation": "image", "editing": "target_image"}
"""Per task, the reference render a prediction's render is compared with."""


class EmbeddingError(InputError):
    """The embedding checkpoint cannot be loaded or is not an image-embedding model."""


def _rgb(png: bytes) -> Image.Image:
    with Image.open(io.BytesIO(png)) as im:
        rgba = im.convert("RGBA")
    paper = Image.new("RGBA", rgba.size, "white")
    return Image.alpha_composite(paper, rgba).convert("RGB")


@contextmanager
def _one_thread() -> Iterator[None]:
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


class Embedder:
    """A CLIP/SigLIP-family image tower and its image processor, loaded once."""

    def __init__(self, cfg: EmbeddingParams):
        from transformers import AutoImageProcessor, AutoModel

        if not cfg.checkpoint:
            raise EmbeddingError(f"{PARAM} is not set")
        self.cfg = cfg
        kw = {"local_files_only": cfg.local_files_only}
        try:
            self.processor = AutoImageProcessor.from_pretrained(cfg.checkpoint, **kw)
            model = AutoModel.from_pretrained(cfg.checkpoint, **kw)
        except Exception as e:  # noqa: BLE001 - OSError, ValueError, safetensors errors…
            raise EmbeddingError(f"{PARAM}: cannot load {cfg.checkpoint!r} "
                                 f"({type(e).__name__}: {str(e)[:300]})") from e
        if not callable(getattr(model, "get_image_features", None)):
            raise EmbeddingError(
                f"{PARAM}: {cfg.checkpoint!r} is a {type(model).__name__}, not an image-text "
                f"embedding model (CLIP/SigLIP family: get_image_features)")
        try:
            self.model = model.to(cfg.device).eval()
        except Exception as e:  # noqa: BLE001 - an unavailable device
            raise EmbeddingError(f"evaluate.embedding.device: {cfg.device!r} "
                                 f"({type(e).__name__}: {e})") from e

    def describe(self) -> dict[str, Any]:
        return {"checkpoint": self.cfg.checkpoint, "model": type(self.model).__name__,
                "device": self.cfg.device}

    def embed(self, pngs: list[bytes]) -> np.ndarray:
        """Unit-norm float64 embeddings, one row per picture."""
        import torch

        out = []
        with _one_thread(), torch.inference_mode():
            for i in range(0, len(pngs), self.cfg.batch_size):
                batch = [_rgb(b) for b in pngs[i:i + self.cfg.batch_size]]
                x = self.processor(images=batch, return_tensors="pt").to(self.cfg.device)
                f = self.model.get_image_features(pixel_values=x["pixel_values"])
                f = getattr(f, "pooler_output", f)  # transformers 5 returns an output object
                out.append(f.detach().to("cpu", torch.float64).numpy())
        e = np.concatenate(out) if out else np.empty((0, 0))
        return e / np.maximum(np.linalg.norm(e, axis=1, keepdims=True), 1e-12)

    def cosines(self, pairs: list[tuple[bytes, bytes]]) -> list[float]:
        """Cosine of each (prediction, reference) pair; the two sides of a pair share a batch
        (pairs are interleaved) so an identical picture gets an identical embedding."""
        if not pairs:
            return []
        e = self.embed([b for pair in pairs for b in pair])
        return [float(x) for x in np.clip(np.einsum("ij,ij->i", e[0::2], e[1::2]), -1, 1)]


class RenderTap(Compiler):
    """The evaluation :class:`Compiler`, keeping each item's successful render for
    embedding (the task scorers stay unaware of it)."""

    def __init__(self, params: Params):
        super().__init__(params)
        self.renders: dict[str, bytes] = {}

    def compile(self, item_id: str, fmt: str, output: str | None) -> Compiled:
        c = super().compile(item_id, fmt, output)
        if c.ok and c.image:
            self.renders[item_id] = c.image
        return c


def score(embedder: Embedder, task: str, refs: list[dict[str, Any]],
          renders: dict[str, bytes], items: list[dict[str, Any]]) -> None:
    """Add ``embedding_cosine`` to each of ``items`` (aligned with ``refs``), in place; the
    pairs are embedded ``batch_size`` at a time."""
    column = REFERENCE_IMAGE[task]
    todo: list[int] = []
    for k, (ref, item) in enumerate(zip(refs, items, strict=True)):
        ref_png, pred_png = ref.get(column), renders.get(str(ref["id"]))
        item[METRIC] = None if not ref_png else 0.0 if not pred_png else None
        if ref_png and pred_png:
            todo.append(k)
    step = max(1, embedder.cfg.batch_size // 2)
    for i in range(0, len(todo), step):
        chunk = todo[i:i + step]
        got = embedder.cosines([(renders[str(refs[k]["id"])], refs[k][column])
                                for k in chunk])
        for k, cos in zip(chunk, got, strict=True):
            items[k][METRIC] = cos
