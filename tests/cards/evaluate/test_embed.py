"""Embedding similarity through ``transformers``' real loaders, on tiny CLIP and SigLIP
models the test builds and saves (random weights, no download): a reference scores 1, a
different picture less, a failed render 0; a bad checkpoint fails before any rendering."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from diagramforge.cards.evaluate import embed
from diagramforge.cards.evaluate.run import evaluate
from diagramforge.cards.evaluate.settings import EmbeddingParams, EvaluateParams
from diagramforge.config import Params, parse_params
from diagramforge.params import ParamsError
from tests.cards.evaluate.conftest import DOT_SOURCE, GENERATION, write_predictions

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

TOWER = {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2,
         "num_attention_heads": 2}
VISION = {**TOWER, "image_size": 32, "patch_size": 8}
TEXT = {**TOWER, "vocab_size": 99, "max_position_embeddings": 16}


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """``save_pretrained`` directories of a tiny CLIP and a tiny SigLIP with their image
    processors (CLIP also with a character-level tokenizer built here, so its text tower
    is usable), and of a text-only BERT (a real checkpoint, but not an image model)."""
    from transformers import (
        BertConfig,
        BertModel,
        CLIPConfig,
        CLIPImageProcessor,
        CLIPModel,
        CLIPTokenizer,
        SiglipConfig,
        SiglipImageProcessor,
        SiglipModel,
    )

    root = tmp_path_factory.mktemp("checkpoints")
    torch.manual_seed(0)
    clip = CLIPModel(CLIPConfig(vision_config=VISION, text_config={
        **TEXT, "bos_token_id": 0, "eos_token_id": 1}, projection_dim=16))
    clip.save_pretrained(root / "clip")
    CLIPImageProcessor(size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32}
                       ).save_pretrained(root / "clip")
    vocab = {"<|startoftext|>": 0, "<|endoftext|>": 1}  # one token per letter, no merges
    for ch in "abcdefghijklmnopqrstuvwxyz0123456789.,\"'-":
        vocab.setdefault(ch, len(vocab))
        vocab.setdefault(ch + "</w>", len(vocab))
    CLIPTokenizer(vocab=vocab, merges=[]).save_pretrained(root / "clip")
    siglip = SiglipModel(SiglipConfig(vision_config=VISION, text_config=TEXT))
    siglip.save_pretrained(root / "siglip")
    SiglipImageProcessor(size={"height": 32, "width": 32}).save_pretrained(root / "siglip")
    BertModel(BertConfig(**TOWER, vocab_size=99)).save_pretrained(root / "bert")
    CLIPImageProcessor(size={"shortest_edge": 32}).save_pretrained(root / "bert")
    return {"clip": root / "clip", "siglip": root / "siglip", "bert": root / "bert"}


def with_embedding(params: Params, checkpoint: Path | str | None, **kw: object) -> Params:
    return params.model_copy(update={"evaluate": EvaluateParams(
        embedding=EmbeddingParams(checkpoint=None if checkpoint is None else str(checkpoint),
                                  **kw))})


def by_id(res: dict) -> dict[str, dict]:
    return {r["id"]: r for r in res["items"]}


@pytest.mark.parametrize("kind", ["clip", "siglip"])
def test_references_embed_as_themselves(published: dict, checkpoints: dict, tmp_path,
                                        kind: str) -> None:
    params = with_embedding(published["params"], checkpoints[kind], batch_size=3)
    rows = published["refs"]["generation"]
    preds = write_predictions(tmp_path / "p.jsonl", {r["id"]: r["code"] for r in rows})
    res = evaluate(params, preds, "generation", "test", published["root"])
    assert embed.METRIC in res["metrics"]
    assert res["embedding"]["model"] == {"clip": "CLIPModel", "siglip": "SiglipModel"}[kind]
    assert not any("embedding" in x for x in res["not_computed"])
    cos = [r[embed.METRIC] for r in res["items"]]
    assert len(cos) == len(rows) and all(c == pytest.approx(1.0, abs=1e-6) for c in cos)
    assert res["aggregate"]["all"][embed.METRIC] == pytest.approx(1.0, abs=1e-6)


def direct_cosine(checkpoint: Path, a_png: bytes, b_png: bytes) -> float:
    """The same two pictures through the model's forward pass (its normalised
    ``image_embeds``), not through :mod:`embed`'s ``get_image_features`` path."""
    from transformers import AutoImageProcessor, AutoModel

    model = AutoModel.from_pretrained(checkpoint).eval()
    proc = AutoImageProcessor.from_pretrained(checkpoint)
    with torch.inference_mode():
        x = proc(images=[embed._rgb(a_png), embed._rgb(b_png)], return_tensors="pt")
        out = model(pixel_values=x["pixel_values"], input_ids=torch.tensor([[0, 5, 1]]))
    e = out.image_embeds.double().numpy()
    e /= np.linalg.norm(e, axis=1, keepdims=True)
    return float(e[0] @ e[1])


@pytest.mark.parametrize("kind", ["clip", "siglip"])
def test_a_different_picture_scores_less_and_a_failure_zero(
        published: dict, checkpoints: dict, tmp_path, kind: str) -> None:
    """g1 draws g2's picture; g2 is right; g3 does not parse; g4 has no prediction."""
    params = with_embedding(published["params"], checkpoints[kind], batch_size=1)
    preds = write_predictions(tmp_path / "p.jsonl", {
        "g1": GENERATION["g2"], "g2": GENERATION["g2"], "g3": "<svg><rect"})
    res = evaluate(params, preds, "generation", "test", published["root"])
    items = by_id(res)
    refs = {r["id"]: r for r in published["refs"]["generation"]}
    assert items["g1"][embed.METRIC] < 1.0 - 1e-6
    assert items["g1"][embed.METRIC] == pytest.approx(
        direct_cosine(checkpoints[kind], refs["g2"]["image"], refs["g1"]["image"]), abs=1e-5)
    assert items["g2"][embed.METRIC] == pytest.approx(1.0, abs=1e-6)
    assert items["g3"][embed.METRIC] == 0.0 and items["g4"][embed.METRIC] == 0.0
    assert res["aggregate"]["all"][embed.METRIC] == pytest.approx(
        (items["g1"][embed.METRIC] + 1.0) / 4)


def test_editing_compares_with_the_target_render(published: dict, checkpoints: dict,
                                                 tmp_path) -> None:
    params = with_embedding(published["params"], checkpoints["clip"])
    rows = published["refs"]["editing"]
    preds = write_predictions(tmp_path / "p.jsonl", {  # e1: two structural operations
        rows[0]["id"]: DOT_SOURCE, rows[1]["id"]: rows[1]["target_code"]})
    items = by_id(evaluate(params, preds, "editing", "test", published["root"]))
    assert items[rows[0]["id"]][embed.METRIC] < 1.0 - 1e-6  # the unedited source
    assert items[rows[1]["id"]][embed.METRIC] == pytest.approx(1.0, abs=1e-6)


def test_unset_is_absent_and_listed(published: dict, tmp_path) -> None:
    rows = published["refs"]["generation"]
    preds = write_predictions(tmp_path / "p.jsonl", {r["id"]: r["code"] for r in rows})
    res = evaluate(published["params"], preds, "generation", "test", published["root"])
    assert embed.METRIC not in res["metrics"] and "embedding" not in res
    assert all(embed.METRIC not in r for r in res["items"])
    assert any(embed.PARAM in x for x in res["not_computed"])


@pytest.mark.parametrize("checkpoint, match", [
    ("missing", "cannot load"),
    ("empty", "cannot load"),
    ("bert", "BertModel, not an image-text"),
    ("nobody/no-such-model", "cannot load"),
])
def test_a_bad_checkpoint_fails_before_rendering(published: dict, checkpoints: dict,
                                                 tmp_path, monkeypatch, checkpoint: str,
                                                 match: str) -> None:
    """A missing directory, an empty one, a text-only model and a Hub id not in the cache
    (offline) each raise an :class:`~diagramforge.cards.evaluate.inputs.InputError` naming the
    param (the CLI prints it and exits 2) before any prediction is rendered."""
    path = {"missing": tmp_path / "nope", "empty": tmp_path / "empty",
            "bert": checkpoints["bert"]}.get(checkpoint, checkpoint)
    (tmp_path / "empty").mkdir()
    monkeypatch.setattr(embed.RenderTap, "compile", lambda *a: pytest.fail("rendered"))
    preds = write_predictions(tmp_path / "p.jsonl", {"g1": GENERATION["g1"]})
    with pytest.raises(embed.EmbeddingError, match=f"{embed.PARAM}: .*{match}"):
        evaluate(with_embedding(published["params"], path), preds, "generation", "test",
                 published["root"])


def test_qa_does_not_load_the_model(published: dict, tmp_path) -> None:
    params = with_embedding(published["params"], tmp_path / "nope")
    preds = write_predictions(tmp_path / "p.jsonl", {"q1": "3"})
    res = evaluate(params, preds, "qa", "test", published["root"])
    assert embed.METRIC not in res["metrics"] and "embedding" not in res
    assert any("not defined for qa" in x for x in res["not_computed"])


def direct_text_image_cosine(checkpoint: Path, text: str, png: bytes) -> float:
    """CLIP's own forward pass on (text, picture): ``logits_per_text`` is the cosine
    times the learnt temperature ``exp(logit_scale)``."""
    from transformers import AutoImageProcessor, AutoModel, AutoTokenizer

    model = AutoModel.from_pretrained(checkpoint).eval()
    x = AutoTokenizer.from_pretrained(checkpoint)([text], padding="max_length",
                                                  max_length=16, truncation=True,
                                                  return_tensors="pt")
    px = AutoImageProcessor.from_pretrained(checkpoint)(images=[embed._rgb(png)],
                                                       return_tensors="pt")
    with torch.inference_mode():
        out = model(input_ids=x["input_ids"], attention_mask=x["attention_mask"],
                    pixel_values=px["pixel_values"])
        return float(out.logits_per_text[0, 0] / model.logit_scale.exp())


def test_captions_are_compared_with_the_picture(published: dict, checkpoints: dict,
                                                tmp_path) -> None:
    """c1's description against its diagram's picture, computed as CLIP's forward pass
    does; an empty caption scores 0; a checkpoint without a text tokenizer says so."""
    ref = published["refs"]["captioning"][0]
    image = next(r["image"] for r in published["refs"]["generation"] if r["id"] == "g2")
    assert ref["diagram_id"] == "g2"
    rows = {ref["id"]: ref["description"]}
    preds = write_predictions(tmp_path / "p.jsonl", rows)
    res = evaluate(with_embedding(published["params"], checkpoints["clip"]), preds,
                   "captioning", "test", published["root"])
    assert embed.CAPTION_METRIC in res["metrics"]
    got = by_id(res)[ref["id"]][embed.CAPTION_METRIC]
    assert got == pytest.approx(direct_text_image_cosine(
        checkpoints["clip"], ref["description"], image), abs=1e-5)
    empty = write_predictions(tmp_path / "e.jsonl", {ref["id"]: "  "})
    res = evaluate(with_embedding(published["params"], checkpoints["clip"]), empty,
                   "captioning", "test", published["root"])
    assert by_id(res)[ref["id"]][embed.CAPTION_METRIC] == 0.0
    res = evaluate(with_embedding(published["params"], checkpoints["siglip"]), preds,
                   "captioning", "test", published["root"])
    assert embed.CAPTION_METRIC not in res["metrics"]
    assert any("no tokenizer" in x for x in res["not_computed"])


def test_params_are_validated() -> None:
    assert parse_params({}).evaluate.embedding.checkpoint is None
    assert parse_params({"evaluate": {"embedding": {"checkpoint": "a/b"}}}
                        ).evaluate.embedding.checkpoint == "a/b"
    for bad in ({"device": "gpu"}, {"batch_size": 0}, {"checkpoints": "x"}):
        with pytest.raises(ParamsError):
            parse_params({"evaluate": {"embedding": bad}})


def test_cli_names_the_param_of_a_bad_checkpoint(published: dict, tmp_path) -> None:
    import yaml
    from typer.testing import CliRunner

    from diagramforge.cli import app

    conf = {"evaluate": {"embedding": {"checkpoint": str(tmp_path / "nope")}}}
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(conf))
    preds = write_predictions(tmp_path / "p.jsonl", {"g1": GENERATION["g1"]})
    res = CliRunner().invoke(app, ["-p", str(tmp_path / "params.yaml"), "evaluate",
                                   str(preds), "--config", "generation",
                                   "--published", str(published["root"])])
    assert res.exit_code == 2 and f"{embed.PARAM}: cannot load" in res.output
    assert not (tmp_path / "p.eval-generation-test").exists()


def test_a_hub_id_loads_from_the_hub_cache(published: dict, checkpoints: dict, tmp_path,
                                           monkeypatch) -> None:
    """``lab/tiny-clip`` laid out as ``huggingface_hub`` caches a download (refs/main →
    snapshots/<commit>/…): loaded offline by id, no request made."""
    import shutil

    import huggingface_hub.constants as hf_constants

    commit = "0123456789abcdef0123456789abcdef01234567"
    repo = tmp_path / "hub" / "models--lab--tiny-clip"
    shutil.copytree(checkpoints["clip"], repo / "snapshots" / commit)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(commit)
    monkeypatch.setattr(hf_constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    rows = published["refs"]["generation"]
    preds = write_predictions(tmp_path / "p.jsonl", {r["id"]: r["code"] for r in rows})
    res = evaluate(with_embedding(published["params"], "lab/tiny-clip"), preds, "generation",
                   "test", published["root"])
    assert res["embedding"]["checkpoint"] == "lab/tiny-clip"
    assert res["aggregate"]["all"][embed.METRIC] == pytest.approx(1.0, abs=1e-6)
