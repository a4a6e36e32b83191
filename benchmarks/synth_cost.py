#!/usr/bin/env python3
"""What the synth stage would cost on N diagrams with a real model: plans every captioning,
QA and editing item of a built corpus (the split stage's diagrams and the edit stage's
pairs), counts the prompt tokens it would send (tiktoken cl100k, as the budget check does),
and prices them at the given models' list prices, scaled from the corpus to ``--diagrams``.

Output tokens are not known before a model answers: they are priced three ways — at the
offline backend's answers (a floor: templates are terse), at typical lengths for what each
schema asks (``--typical``: a caption and a 2–5 sentence description, a one-line question, a
one-sentence instruction), and at ``max_tokens`` (the budget's worst case). Repairs and
retries are not counted. Prices are USD per million tokens; state their date when quoting.

Usage: .venv/bin/python benchmarks/synth_cost.py [--params params.yaml] [--diagrams 10000]
       [--model NAME:IN:OUT ...] [--typical captioning=160,qa=30,editing=70]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from diagramforge.config import load_params  # noqa: E402
from diagramforge.store.paths import stage_paths  # noqa: E402
from diagramforge.store.shards import ShardSet  # noqa: E402
from diagramforge.synth.llm.offline import OfflineBackend  # noqa: E402
from diagramforge.synth.llm.tokens import count_tokens, text_tokens  # noqa: E402
from diagramforge.synth.llm.types import BackendCall  # noqa: E402
from diagramforge.synth.synth.stage import SynthStage  # noqa: E402

MODELS = ("gpt-5.4-mini:0.75:4.50", "gpt-4o-mini:0.15:0.60", "gemini-2.5-flash:0.30:2.50",
          "gemini-2.5-flash-lite:0.10:0.40")
"""List prices (USD per million input:output tokens) as transcribed from the vendors' pricing
pages in 2026 — check them before quoting (see the synth section of the README)."""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--params", default=str(REPO / "params.yaml"))
    ap.add_argument("--diagrams", type=int, default=10_000)
    ap.add_argument("--model", action="append", help="NAME:IN:OUT (USD per Mtok)")
    ap.add_argument("--typical", default="captioning=160,qa=30,editing=70")
    ap.add_argument("--batch-factor", type=float, default=0.5)
    args = ap.parse_args()
    params = load_params(args.params)
    stage = SynthStage(params)
    table = ShardSet(stage_paths(params, "split").records, stage.input_schema).read_all()
    plan = stage.plan(table)
    llm = params.synth.llm()
    offline = OfflineBackend(llm)
    n_in = Counter()
    floor = Counter()
    cap = Counter()
    items = Counter()
    seen: set[str] = set()
    for it in plan.items:
        req = it.request
        key = json.dumps([req.messages(), req.json_schema], sort_keys=True)
        if key in seen:  # a repeated request is paid once (the cache)
            continue
        seen.add(key)
        items[it.config] += 1
        n_in[it.config] += count_tokens(req.messages())
        cap[it.config] += req.sampling(llm)["max_tokens"]
        done = offline.complete(BackendCall(task=req.task, messages=req.messages(),
                                            schema=req.json_schema,
                                            sampling=req.sampling(llm), context=req.context,
                                            templates=req.templates))
        floor[it.config] += text_tokens(done.text)
    typical = {k: int(v) for k, v in (p.split("=") for p in args.typical.split(","))}
    scale = args.diagrams / max(1, table.num_rows)
    print(f"corpus: {table.num_rows} diagrams -> {sum(items.values())} calls "
          f"({dict(items)}); scaled x{scale:.1f} to {args.diagrams} diagrams")
    for task in sorted(items):
        print(f"  {task:<11} {items[task] / table.num_rows:5.2f} calls/diagram, "
              f"{n_in[task] / items[task]:6.0f} input tok/call, output tok/call: "
              f"offline {floor[task] / items[task]:.0f}, typical {typical.get(task, 0)}, "
              f"max {cap[task] / items[task]:.0f}")
    tin = sum(n_in.values()) * scale
    outs = {"offline": sum(floor.values()) * scale,
            "typical": sum(typical.get(t, 0) * items[t] for t in items) * scale,
            "max_tokens": sum(cap.values()) * scale}
    print(f"tokens for {args.diagrams} diagrams: input {tin / 1e6:.2f} M, output "
          + ", ".join(f"{k} {v / 1e6:.2f} M" for k, v in outs.items()))
    print(f"{'model':<24} {'in $/M':>7} {'out $/M':>7} {'offline':>9} {'typical':>9} "
          f"{'batch typ':>9} {'max_tok':>9}")
    for spec in args.model or MODELS:
        name, pin, pout = spec.rsplit(":", 2)
        pin, pout = float(pin), float(pout)
        cost = {k: (tin * pin + v * pout) / 1e6 for k, v in outs.items()}
        print(f"{name:<24} {pin:7.2f} {pout:7.2f} {cost['offline']:9.2f} "
              f"{cost['typical']:9.2f} {cost['typical'] * args.batch_factor:9.2f} "
              f"{cost['max_tokens']:9.2f}")


if __name__ == "__main__":
    main()
