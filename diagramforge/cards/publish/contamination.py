"""The card's "Evaluation splits" section: the date cut and what decontamination found.

Read from the split stage's ``contamination.json`` (written with its assignments), so the card
states the run's own figures — how many test items were checked against what, how many
shared a long code run, and whether they were flagged or moved — not the parameters alone.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Protocol

from diagramforge.store.paths import ProjectSettings, stage_paths

if TYPE_CHECKING:
    from diagramforge.filters.split.settings import SplitParams

SHOWN = 10
"""Hits listed by id in the card; the rest are counted (all are in the report file)."""


class ContaminationSettings(ProjectSettings, Protocol):
    """What the section reads: the ``split`` section and where its report is (``project``)."""

    @property
    def split(self) -> SplitParams: ...


def section(params: ContaminationSettings) -> str:
    cfg = params.split
    cut = (f"Test items come only from sources dated after **{cfg.test_after}** (the crawl's "
           "date of each paper; an arXiv identifier's month where the crawl has none; an "
           "undated source never reaches test); older sources are in train/validation."
           if cfg.test_after else "No date cut (`split.test_after` is off).")
    path = stage_paths(params, "split").root / "contamination.json"
    rep = json.loads(path.read_text()) if path.exists() else {}
    if not rep:
        return f"### Evaluation splits\n\n{cut} The split stage wrote no decontamination report.\n"
    if not rep.get("enabled"):
        return f"### Evaluation splits\n\n{cut} Decontamination is off.\n"
    hits = rep.get("hits", [])
    what = "flagged in the `contamination` column" if rep["action"] == "flag" else \
        f"moved with their whole leakage component to train ({rep['moved']} rows)"
    lines = [f"### Evaluation splits\n\n{cut}\n\nDecontamination: each of the "
             f"{rep['test_items']} test items was checked for runs of {rep['ngram']} code "
             f"tokens (whitespace ignored) shared with {', '.join(rep['against'])} "
             f"({rep['reference_docs']} reference documents; {rep['boilerplate_ngrams']} "
             f"boilerplate n-grams ignored). **{len(hits)}** shared at least "
             f"{rep['min_shared']} run(s) and were {what}."]
    if hits:
        lines.append("\n| test item | shared with | runs shared |\n|---|---|---:|")
        lines += [f"| `{h['id']}` | {h['against']} `{h['match']}` | {h['shared']} of "
                  f"{h['shingles']} |" for h in hits[:SHOWN]]
        if len(hits) > SHOWN:
            lines.append(f"\n… and {len(hits) - SHOWN} more (`data/split/contamination.json`).")
    return "\n".join(lines) + "\n"
