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

Captioning, when the checkpoint also has a text tower and a tokenizer:
``caption_image_cosine`` is the cosine of the predicted caption's text embedding and the
published picture's image embedding — CLIPScore (Hessel et al. 2021) without its 2.5 × max(·,
0) rescaling, so values from different checkpoints are not comparable, only models scored
with one checkpoint.  Texts are padded to the text tower's length (SigLIP was trained on
padded text) and truncated there; a missing or empty caption scores 0.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import numpy as np
from PIL import Image

from diagramforge.cards.evaluate.compile import Compiled, Compiler
from diagramforge.cards.evaluate.inputs import InputError
from diagramforge.cards.evaluate.settings import EmbeddingParams

if TYPE_CHECKING:
    from diagramforge.formats.settings import FormatSettings

METRIC = "embedding_cosine"
CAPTION_METRIC = "caption_image_cosine"
PARAM = "evaluate.embedding.checkpoint"
REFERENCE_IMAGE = {"generation": "image", "editing": "target_image",
                   "translation": "target_image"}
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

    def text_unavailable(self) -> str | None:
        """Why this checkpoint cannot embed captions (``None`` when it can): no text tower,
        or no tokenizer saved with it."""
        from transformers import AutoTokenizer

        if not callable(getattr(self.model, "get_text_features", None)):
            return f"{type(self.model).__name__} has no text tower"
        if not hasattr(self, "tokenizer"):
            try:
                self.tokenizer = AutoTokenizer.from_pretrained(
                    self.cfg.checkpoint, local_files_only=self.cfg.local_files_only)
            except Exception as e:  # noqa: BLE001 - no tokenizer files, a broken one
                return f"no tokenizer in {self.cfg.checkpoint!r} ({type(e).__name__})"
        return None

    def embed_texts(self, texts: list[str]) -> np.ndarray:
        """Unit-norm float64 text embeddings (call :meth:`text_unavailable` first)."""
        import torch

        cfg = getattr(self.model.config, "text_config", self.model.config)
        length = int(getattr(cfg, "max_position_embeddings", 64))
        out = []
        with _one_thread(), torch.inference_mode():
            for i in range(0, len(texts), self.cfg.batch_size):
                x = self.tokenizer(texts[i:i + self.cfg.batch_size], padding="max_length",
                                   truncation=True, max_length=length, return_tensors="pt")
                kw = {k: x[k].to(self.cfg.device) for k in ("input_ids", "attention_mask")
                      if k in x}
                f = self.model.get_text_features(**kw)
                f = getattr(f, "pooler_output", f)
                out.append(f.detach().to("cpu", torch.float64).numpy())
        e = np.concatenate(out)
        return e / np.maximum(np.linalg.norm(e, axis=1, keepdims=True), 1e-12)

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

    def __init__(self, params: FormatSettings):
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
        item[METRIC] = 0.0 if ref_png and not pred_png else None  # set below when both
        if ref_png and pred_png:
            todo.append(k)
    step = max(1, embedder.cfg.batch_size // 2)
    for i in range(0, len(todo), step):
        chunk = todo[i:i + step]
        got = embedder.cosines([(renders[str(refs[k]["id"])], refs[k][column])
                                for k in chunk])
        for k, cos in zip(chunk, got, strict=True):
            items[k][METRIC] = cos


def score_captions(embedder: Embedder, refs: list[dict[str, Any]],
                   outputs: dict[str, str | None], items: list[dict[str, Any]]) -> None:
    """Add ``caption_image_cosine`` to each captioning item, in place (``None`` without a
    published picture, 0 for a missing or empty caption)."""
    todo = []
    for k, (ref, item) in enumerate(zip(refs, items, strict=True)):
        text = outputs.get(str(ref["id"]))
        has_text = isinstance(text, str) and bool(text.strip())
        item[CAPTION_METRIC] = 0.0 if ref.get("image") and not has_text else None
        if ref.get("image") and has_text:
            todo.append((k, str(text)))
    for i in range(0, len(todo), embedder.cfg.batch_size):
        chunk = todo[i:i + embedder.cfg.batch_size]
        t = embedder.embed_texts([text for _, text in chunk])
        v = embedder.embed([refs[k]["image"] for k, _ in chunk])
        for (k, _), cos in zip(chunk, np.clip(np.einsum("ij,ij->i", t, v), -1, 1),
                               strict=True):
            items[k][CAPTION_METRIC] = float(cos)


def for_task(cfg: EmbeddingParams, task: str) -> Embedder | None:
    """The loaded embedder when ``cfg`` names a checkpoint and ``task`` has pictures to
    compare (not qa); loading here, before any item is scored, makes a bad checkpoint fail
    the run at once."""
    return Embedder(cfg) if cfg.checkpoint and task != "qa" else None


def add_scores(embedder: Embedder | None, cfg: EmbeddingParams, task: str,
               refs: list[dict[str, Any]], outputs: dict[str, str | None],
               renders: dict[str, bytes], items: list[dict[str, Any]],
               not_computed: list[str]) -> tuple[str, ...]:
    """Score ``items`` in place with the embedding metric ``task`` has; returns the metric
    names added and says in ``not_computed`` what was not."""
    if not cfg.checkpoint:
        not_computed.append(f"embedding similarity (SigLIP/CLIP): off ({PARAM} not set)")
        return ()
    if embedder is None:
        not_computed.append(f"embedding similarity (SigLIP/CLIP): not defined for {task}")
        return ()
    if task in REFERENCE_IMAGE:
        score(embedder, task, refs, renders, items)
        return (METRIC,)
    why = embedder.text_unavailable()
    if why is not None:
        not_computed.append(f"caption-image similarity: {why}")
        return ()
    score_captions(embedder, refs, outputs, items)
    return (CAPTION_METRIC,)
