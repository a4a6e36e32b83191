"""The diagram_type filter end to end: the classifier-train stage provides the default
checkpoint (the shipped one, or one retrained from rendered records), the filter stage types
every record — code first, image second — in batches, and one param swaps in another
checkpoint (different labels) loaded through the Auto classes."""

from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path

import pytest

from diagramforge.filters.classifier import model as clf_model
from diagramforge.filters.classifier.decide import COLUMNS, decide
from diagramforge.filters.classifier.evidence import code_evidence, code_label
from diagramforge.filters.classifier.model import Classifier
from diagramforge.filters.classifier.negatives import negatives
from diagramforge.filters.classifier.settings import ClassifierParams, TrainParams
from diagramforge.filters.classifier.shipped import SHIPPED, manifest
from diagramforge.filters.classifier.train import build_model, fit
from diagramforge.filters.filter.diagram_type import verdict
from diagramforge.filters.filter.stage import FilterStage
from diagramforge.runner import environment_fingerprint, fingerprint, run_named
from diagramforge.store.paths import metrics_path, stage_paths
from diagramforge.store.records import RECORD_SCHEMA, REJECTION_SCHEMA, empty_record
from diagramforge.store.shards import ShardSet
from tests.conftest import make_params, needs_tex, seed_stage
from tests.filters.classifier.conftest import diagram_records

TINY = {"train": True, "image_size": 32, "epochs": 2, "batch_size": 8,
        "hidden_sizes": [8, 16], "depths": [1, 1], "augment_copies": 0, "min_class_count": 3,
        "negatives": {"chart": 5, "table": 0, "natural_image": 5, "screenshot": 0},
        "positives": 5}
ONLY = {"order": ["diagram_type"], "batch_size": 4}


def _records() -> list[dict]:
    """Rendered-looking records: node-link diagrams (TikZ), charts and photos, one broken."""
    out = [empty_record(**r, source_id=r["id"], licence="MIT") for r in diagram_records(8)]
    for i, (label, png) in enumerate(negatives({"chart": 3, "natural_image": 2}, seed=99)):
        out.append(empty_record(id=f"{label}{i}", format="svg", code="<svg/>", image=png,
                                source_id=f"{label}{i}"))
    out.append(empty_record(id="broken", format="svg", code="<svg/>", image=b"\x89PNG junk",
                            source_id="broken"))
    return out


@pytest.fixture
def trained(tmp_path):
    params = make_params(tmp_path, classifier=TINY, filter=ONLY)
    seed_stage(params, "render", _records())
    run_named("classifier-train", params)
    return params


def _read(params, what: str) -> list[dict]:
    p = stage_paths(params, "filter")
    if what == "records":
        return ShardSet(p.records, RECORD_SCHEMA).read_all().to_pylist()
    return ShardSet(p.rejections, REJECTION_SCHEMA).read_all().to_pylist()


def test_classifier_train_stage_writes_checkpoint_metrics_and_plot(trained):
    root = stage_paths(trained, "classifier-train").root
    assert (root / "checkpoint" / "config.json").is_file()
    metrics = json.loads((metrics_path(trained, "classifier")).read_text())
    weak = Counter(code_label(r) for r in diagram_records(8))
    assert metrics["weak_labels"] == dict(weak) and None not in weak  # read off the code
    assert {weak.most_common(1)[0][0], "natural_image"} <= set(metrics["classes"])
    assert metrics["corpus_held_out"] >= 2
    with open(metrics_path(trained, "classifier").parent / "classifier-confusion.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == metrics["held_out"] > 0
    assert metrics["accuracy"] == round(sum(r["actual"] == r["predicted"] for r in rows)
                                        / len(rows), 4)
    stats = json.loads(metrics_path(trained, "classifier-train").read_text())
    assert stats["in"] == 14 and stats["rejected"] == {}
    extra = stats["extra"]
    assert extra["trained"] + extra["held_out"] == 8 + 10 + 5  # corpus, negatives, drawn


def test_filter_types_every_record_in_batches(trained, monkeypatch):
    calls: list[int] = []
    real = Classifier.probabilities

    def spy(self, images):  # noqa: ANN001, ANN202
        calls.append(len(images))
        return real(self, images)

    monkeypatch.setattr(Classifier, "probabilities", spy)
    clf_model._LOADED.clear()
    stats = run_named("filter", trained)

    assert calls == [4, 4, 4, 1]  # 14 rows in units of 4, the broken image never sent
    kept, ledger = _read(trained, "records"), _read(trained, "rejections")
    assert stats.n_in == 14 and len(kept) + len(ledger) == 14
    typed = {k: v for k, v in stats.extra.items() if k.startswith("diagram_type_source:")}
    assert sum(typed.values()) == 13  # every readable render typed (or unknown), kept or not
    assert not any(k.startswith("diagram_type_evidence:") for k in stats.extra)
    assert [r["locator"] for r in ledger if r["reason"] == "image_unreadable"] == ["broken"]
    # the TikZ diagrams are typed by their code, whatever the tiny model thinks of them
    tikz = [r for r in kept if r["format"] == "tikz"]
    assert len(tikz) == 8 and {r["diagram_type_source"] for r in tikz} == {
        "code:tikz.nodes_linked"}
    assert all(r["graph_like"] for r in tikz)
    assert all(r["diagram_type_image"] and r["diagram_type_prob"] is None for r in tikz)

    # the filter says exactly what decide() says with the checkpoint's probabilities
    cfg = ClassifierParams(checkpoint=str(stage_paths(trained, "classifier-train").root
                                          / "checkpoint"))
    by_id = {r["id"]: r for r in _records()}
    direct = Classifier.load(cfg)
    for r in kept + ledger:
        if r["id"] == "broken":
            continue
        (probs,) = direct.probabilities([by_id[r["id"]]["image"]])
        v = verdict(decide(code_evidence(by_id[r["id"]]), probs, cfg), cfg)
        if "reason" in r:
            assert not v.keep and r["reason"] == v.reason
        else:
            assert v.keep and {c: r[c] for c in COLUMNS} == v.metrics


def test_the_default_is_the_shipped_checkpoint(tmp_path):
    """classifier.train false: the stage copies the package's checkpoint (the same bytes on
    every machine) and reports its manifest's held-out scores."""
    params = make_params(tmp_path, filter=ONLY)
    assert params.classifier.train is False
    seed_stage(params, "render", _records())
    stats = run_named("classifier-train", params)
    ckpt = stage_paths(params, "classifier-train").root / "checkpoint"
    for name in ("config.json", "model.safetensors", "preprocessor_config.json"):
        assert (ckpt / name).read_bytes() == (SHIPPED / name).read_bytes()
    metrics = json.loads(metrics_path(params, "classifier").read_text())
    man = manifest()
    assert metrics["checkpoint"] == "shipped" and metrics["version"] == man["version"]
    assert metrics["combined"] == man["metrics"]["combined"]
    assert stats.extra["shipped"] == 1
    clf_model._LOADED.clear()
    run_named("filter", params)
    kept = _read(params, "records")
    assert {r["id"] for r in kept} >= {f"d{i}" for i in range(8)}  # every drawn diagram


def test_disagreement_alone_never_rejects(tmp_path, monkeypatch):
    """An image classifier that calls everything a photograph: code-typed and drawn records
    stay (flagged where the code named a kind); only figures without code go."""
    from diagramforge.filters.filter import diagram_type

    monkeypatch.setattr(diagram_type, "resolve_checkpoint", lambda ref: ref)
    monkeypatch.setattr(diagram_type, "checkpoint_digest", lambda ref: {})
    monkeypatch.setattr(diagram_type, "probabilities", lambda images, cfg: [
        {"natural_image": 0.97, "bar_chart": 0.02, "graph": 0.01}] * len(images))
    params = make_params(tmp_path, filter={"diagram_type": {"checkpoint": str(tmp_path)}})
    check = diagram_type.make_diagram_type_filter(params.filter.section("diagram_type"), params)
    png = diagram_records(1)[0]["image"]
    coded = check({"format": "tikz", "code": diagram_records(1)[0]["code"], "image": png})
    silent = check({"format": "tikz", "code": r"\draw (0,0) -- (1,1);", "image": png})
    svg = check({"format": "svg", "code": "<svg/>", "image": png})
    cutout = check({"format": "svg", "code": "<svg/>", "source": "pdf", "image": png})
    raster = check({"format": "raster", "code": None, "image": png})
    assert coded.keep and coded.metrics["diagram_type_disagree"] is True
    assert coded.metrics["diagram_type"] == code_label(diagram_records(1)[0])
    # a drawing no rule names is unknown, not the image's drawable guess (bar_chart p=0.02)
    assert silent.keep and svg.keep and silent.metrics["diagram_type"] is None
    assert silent.metrics["diagram_type_source"] == "unknown:silent"
    assert silent.metrics["diagram_family"] == "diagram" and not silent.metrics["graph_like"]
    assert not cutout.keep and not raster.keep
    assert cutout.reason == raster.reason == "diagram_type_rejected"


def test_written_probabilities_are_rounded(trained):
    section = {"decimals": 2}
    params = make_params(Path(trained.project.data_dir).parent, classifier=TINY,
                         filter={**ONLY, "diagram_type": section})
    clf_model._LOADED.clear()
    run_named("filter", params)
    probs = [r[c] for r in _read(params, "records")
             for c in ("diagram_type_prob", "diagram_type_image_prob") if r[c] is not None]
    assert probs and all(p == round(p, 2) for p in probs)


def _foreign_checkpoint(path: Path) -> None:
    """A second tiny checkpoint, a ViT speaking ACL-Fig-like label names."""
    import torch

    from diagramforge.filters.classifier.images import prepare

    labels = ["Bar charts", "Tree", "Natural-Images"]
    images = [("Tree", r["image"]) for r in diagram_records(4)] + [
        ("Natural-Images" if k == "natural_image" else "Bar charts", b)
        for k, b in negatives({"chart": 4, "natural_image": 4}, seed=5)]
    tp = TrainParams(architecture="vit", image_size=32, epochs=3, batch_size=4,
                     hidden_sizes=[32], depths=[1], vit_heads=2, vit_patch_size=8)
    torch.manual_seed(0)
    model, processor = build_model(labels, tp)
    pixels = processor(images=[prepare(b, 32) for _, b in images],
                       return_tensors="pt")["pixel_values"]
    fit(model, pixels, torch.tensor([labels.index(lab) for lab, _ in images]), tp)
    model.save_pretrained(path)
    processor.save_pretrained(path)


def test_one_param_swaps_in_another_checkpoint(trained, tmp_path):
    ckpt = tmp_path / "acl-fig-vit"
    _foreign_checkpoint(ckpt)
    section = {"checkpoint": str(ckpt), "threshold": 0.0,
               "label_map": {"Bar charts": "bar_chart", "natural_images": "natural_image"},
               "evidence": "image"}
    swapped = make_params(tmp_path, classifier=TINY,
                          filter={**ONLY, "diagram_type": section})
    default_fp = fingerprint(FilterStage(trained), None)
    assert fingerprint(FilterStage(swapped), None) != default_fp

    clf_model._LOADED.clear()
    run_named("filter", swapped)
    kept, ledger = _read(swapped, "records"), _read(swapped, "rejections")
    assert type(Classifier.load(swapped.filter.section("diagram_type")).model).__name__ \
        == "ViTForImageClassification"
    assert {r["diagram_type"] for r in kept} <= {"tree", "bar_chart"}  # names mapped
    assert {r["reason"] for r in ledger} <= {"diagram_type_rejected", "image_unreadable"}
    assert len(kept) + len(ledger) == 14


def test_retraining_changes_the_filter_fingerprint(trained):
    """Same params, new weights: the filter must not reuse its committed shards."""
    def made_with() -> tuple[str, str]:  # what the runner compares before reusing shards
        stage = FilterStage(trained)
        return fingerprint(stage, None), environment_fingerprint(stage)

    before = made_with()
    weights = stage_paths(trained, "classifier-train").root / "checkpoint" / "model.safetensors"
    weights.write_bytes(weights.read_bytes() + b" ")
    assert made_with() != before


def test_missing_checkpoint_fails_the_stage_before_work(tmp_path):
    params = make_params(tmp_path, filter=ONLY)  # nothing provided the checkpoint yet
    seed_stage(params, "render", _records()[:2])
    with pytest.raises(clf_model.CheckpointError, match="classifier-train"):
        run_named("filter", params)


def test_a_cached_hub_id_is_a_checkpoint_too(trained, tmp_path, monkeypatch):
    """``checkpoint: org/name`` loads from the Hub cache (offline: no download) through the
    same Auto classes; its snapshot (commit) is what the filter's fingerprint records."""
    import huggingface_hub.constants

    commit = "0123456789abcdef0123456789abcdef01234567"
    repo = tmp_path / "hub" / "models--example-org--figure-classifier"
    _foreign_checkpoint(repo / "snapshots" / commit)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(commit)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    section = {"checkpoint": "example-org/figure-classifier", "threshold": 0.0,
               "label_map": {"Bar charts": "bar_chart", "natural_images": "natural_image"},
               "evidence": "image"}
    hub = make_params(tmp_path, classifier=TINY, filter={**ONLY, "diagram_type": section})
    assert FilterStage(hub).environment()["diagram_type"] == {
        "checkpoint": "example-org/figure-classifier", "snapshot": commit}

    clf_model._LOADED.clear()
    run_named("filter", hub)
    kept, ledger = _read(hub, "records"), _read(hub, "rejections")
    assert len(kept) + len(ledger) == 14
    typed = {r["diagram_type"] for r in kept} | {
        r["detail"].split()[0] for r in ledger if r["reason"] == "diagram_type_rejected"}
    assert typed and typed <= {"tree", "bar_chart", "natural_image"}  # mapped to ours
    loaded = clf_model._LOADED.popitem()[1]
    assert type(loaded.model).__name__ == "ViTForImageClassification"
    assert loaded.model.name_or_path == "example-org/figure-classifier"


GRID_REPORT = r"""\documentclass{article}
\usepackage{tikz}\usetikzlibrary{arrows.meta,positioning,matrix}
\begin{document}
\section{Layers drawn as grids}
\begin{figure}\centering\begin{tikzpicture}
\draw (0,0) grid (5,5); \draw[fill=blue!20] (1,1) rectangle (4,4);
\draw[-Stealth, thick] (5.3,2.5) -- (6.7,2.5) node[midway, above] {conv};
\draw (7,1) grid (10,4); \node at (2.5,-0.5) {input}; \node at (8.5,0.5) {feature map};
\end{tikzpicture}\caption{A $3\times3$ convolution.}\end{figure}
\begin{figure}\centering\begin{tikzpicture}
\foreach \i in {0,...,7} \draw[fill=orange!30] (\i*0.8,0) rectangle ++(0.8,0.8);
\foreach \i in {0,...,7} \node at (\i*0.8+0.4,-0.3) {\tiny\i};
\draw[->] (1.2,1.6) node[above] {head} -- (1.2,0.9);
\draw[->] (4.4,1.6) node[above] {tail} -- (4.4,0.9);
\end{tikzpicture}\caption{A ring buffer in memory.}\end{figure}
\begin{figure}\centering\begin{tikzpicture}
\matrix (m) [matrix of nodes, nodes={draw, minimum size=7mm}, column sep=-\pgflinewidth,
  row sep=-\pgflinewidth] {1 & 3 & 2 & 4 \\ 5 & 6 & 1 & 2 \\ 7 & 2 & 8 & 3 \\ 1 & 0 & 4 & 9 \\};
\matrix (p) [matrix of nodes, nodes={draw, minimum size=7mm}, right=1.5cm of m]
  {6 & 4 \\ 7 & 9 \\};
\draw[-Latex] (m.east) -- node[above] {max pool} (p.west);
\end{tikzpicture}\caption{Max pooling with stride 2.}\end{figure}
\begin{figure}\centering\begin{tikzpicture}
\foreach \r in {0,...,4} \foreach \c in {0,...,4}
  \fill[blue!\the\numexpr 10+15*\r+5*\c\relax] (\c*0.6,-\r*0.6) rectangle ++(0.6,0.6);
\draw (0,-2.4) grid[step=0.6] (3,0.6);
\node[left] at (0,0.3) {query};\node[above] at (1.5,0.6) {keys};
\draw[->, red, thick] (3.3,-0.9) -- (4.5,-0.9) node[right] {softmax row};
\end{tikzpicture}\caption{Attention weights.}\end{figure}
\begin{figure}\centering\begin{tikzpicture}
\draw (0,0) grid (4,4); \draw[step=2, very thick] (0,0) grid (4,4);
\draw (6,1) grid (8,3);
\draw[->, thick] (4.2,2) to[bend left] node[above] {average} (5.8,2);
\node at (2,-0.4) {$4\times4$ tiles}; \node at (7,0.6) {$2\times2$};
\end{tikzpicture}\caption{Average pooling over tiles.}\end{figure}
\end{document}
"""


@pytest.mark.slow
@needs_tex
def test_grid_figures_of_a_report_are_all_published(tmp_path):
    """The issue's report: five TikZ figures, grids of squares with arrows and labels, that
    the image classifier once called photo and plot.  Compiled and filtered by the real
    stages, all five are kept, typed as diagrams by their code."""
    from diagramforge.tools.realdata import LocalDoc, project_params, write_arxiv_layout
    from diagramforge.vocabulary import Family, family

    layout = write_arxiv_layout([LocalDoc("report", "report.tex", "test",
                                          {"report.tex": GRID_REPORT.encode()})],
                                tmp_path / "arxiv", "http://creativecommons.org/licenses/by/4.0/")
    params = project_params(tmp_path / "project", arxiv=layout, workers=0)
    for stage in ("crawl", "extract", "render", "classifier-train"):
        run_named(stage, params)
    clf_model._LOADED.clear()
    stats = run_named("filter", params)
    kept = _read(params, "records")
    assert stats.n_in == 5 and len(kept) == 5, _read(params, "rejections")
    # diagrams all, by their code: a kind where a rule names one, else unknown of family
    # diagram (grids with arrows are tables, layers, memory… by eye: no kind is stated)
    assert all(r["diagram_family"] == Family.DIAGRAM for r in kept)
    assert all(r["diagram_type"] is None or family(r["diagram_type"]) == Family.DIAGRAM
               for r in kept)
    assert all(r["diagram_type_source"].startswith(("code:tikz.", "unknown:")) for r in kept)
