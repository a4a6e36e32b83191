"""Time the classifier-train stage's training and the diagram_type filter's inference.

Trains with ``params.yaml``'s ``classifier`` section on a render output directory (the
sample corpus's by default; run ``diagramforge render`` first) into a temp dir, prints the
held-out figures and the time against the 3-minute budget, then types every render through
the saved checkpoint in batches of ``filter.diagram_type.batch_size`` and one at a time.

    python benchmarks/classifier_train.py [--render data/render] [--params params.yaml]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time

BUDGET_S = 180.0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--render", default="data/render")
    ap.add_argument("--params", default="params.yaml")
    ap.add_argument("--repeat", type=int, default=4, help="images = renders × repeat")
    a = ap.parse_args()
    from diagramforge.config import load_params
    from diagramforge.filters.classifier.dataset import load_records
    from diagramforge.filters.classifier.model import Classifier
    from diagramforge.filters.classifier.train import train

    p = load_params(a.params)
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        m = train(a.render, p.classifier, tmp)
        wall = time.perf_counter() - t
        print(json.dumps({k: m[k] for k in ("accuracy", "keep_reject_accuracy", "held_out",
                                            "corpus_held_out", "corpus_keep_reject_accuracy",
                                            "trained", "trained_with_augments", "parameters",
                                            "seconds")}, indent=1))
        print(f"training: {wall:.1f} s wall ({'within' if wall <= BUDGET_S else 'OVER'} the "
              f"{BUDGET_S:.0f} s budget)")
        cfg = p.filter.section("diagram_type").model_copy(
            update={"checkpoint": f"{tmp}/checkpoint"})
        clf = Classifier.load(cfg)
        images = [r["image"] for r in load_records(a.render)] * a.repeat
        clf.classify(images[:2])  # warm-up
        t = time.perf_counter()
        batched = clf.classify(images)
        tb = time.perf_counter() - t
        t = time.perf_counter()
        single = [clf.classify([img])[0] for img in images]
        ts = time.perf_counter() - t
        same = all(a[0] == b[0] and abs(a[1] - b[1]) < 1e-4
                   for a, b in zip(batched, single, strict=True))
        print(f"inference on {len(images)} renders ({cfg.threads} thread): batched "
              f"(batch {cfg.batch_size}) {len(images) / tb:.0f} img/s, one at a time "
              f"{len(images) / ts:.0f} img/s; same labels: {same}")


if __name__ == "__main__":
    main()
