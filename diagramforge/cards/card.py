"""The dataset card (README.md with YAML metadata) and the licence/attribution file."""

from __future__ import annotations

from collections import Counter

import pandas as pd
from huggingface_hub import DatasetCard, DatasetCardData

from diagramforge.params import Params

# SPDX ids that the Hub's `license` field knows, keyed by SPDX id.
HUB_LICENCES = {"CC-BY-4.0": "cc-by-4.0", "CC-BY-SA-4.0": "cc-by-sa-4.0",
                "CC-BY-NC-SA-4.0": "cc-by-nc-sa-4.0", "CC0-1.0": "cc0-1.0", "MIT": "mit",
                "Apache-2.0": "apache-2.0", "BSD-2-Clause": "bsd-2-clause",
                "BSD-3-Clause": "bsd-3-clause"}


def _size_category(n: int) -> str:
    for limit, name in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"),
                        (1_000_000, "100K<n<1M")):
        if n < limit:
            return name
    return "n>1M"


def card_data(params: Params, df: pd.DataFrame, configs: list[dict]) -> DatasetCardData:
    lics = sorted(set(df["licence"])) if len(df) else []
    hub = [HUB_LICENCES.get(x) for x in lics]
    single = hub[0] if len(hub) == 1 and hub[0] else None
    extra = {} if single else {"license_name": "mixed", "license_link": "LICENSES.md"}
    return DatasetCardData(
        license=single or "other", pretty_name=params.publish.pretty_name,
        task_categories=["image-to-text", "text-generation"],
        tags=["diagrams", "code", *sorted(set(df["format"]))] if len(df) else ["diagrams"],
        size_categories=[_size_category(len(df))],
        configs=[{k: v for k, v in c.items() if not k.startswith("_")} for c in configs],
        version=params.publish.version, **extra,
    )


def _table(counter: Counter, head: tuple[str, str]) -> str:
    lines = [f"| {head[0]} | {head[1]} |", "|---|---:|"]
    lines += [f"| {k} | {v} |" for k, v in sorted(counter.items(), key=lambda kv: (-kv[1],
                                                                                   kv[0]))]
    return "\n".join(lines)


def render_card(params: Params, df: pd.DataFrame, configs: list[dict], funnel: str) -> str:
    """README.md for the published dataset: metadata, contents, provenance, licences."""
    n = len(df)
    by_split = Counter(df["split"]) if n else Counter()
    by_format = Counter(df["format"]) if n else Counter()
    by_licence = Counter(df["licence"]) if n else Counter()
    groups = df["group"].nunique() if n else 0
    body = f"""
# {params.publish.pretty_name}

Version **{params.publish.version}**, built by
diagramforge from the sources listed in `params.yaml`.
Each row is one diagram as code (TikZ standalone document, mxGraph XML or SVG) with its
rendering (PNG), its caption and the paper paragraphs that refer to it, where known.

## Configs

| config | task | rows |
|---|---|---:|
""" + "\n".join(f"| `{c['config_name']}` | {c.get('_task', '')} | {c.get('_rows', n)} |"
                 for c in configs) + f"""

## Contents

{n} diagrams from {groups} sources (papers or repositories).

{_table(by_split, ("split", "rows"))}

{_table(by_format, ("format", "rows"))}

Splits are assigned per source (`group`), so no paper or repository appears in two
splits, and exact duplicates are removed before splitting.

## Licences

Every row carries its own `licence` (SPDX id), `licence_url` and `attribution`;
`LICENSES.md` lists the attribution for every source.  Only these licences were admitted:
{", ".join(f"`{x}`" for x in params.licences.allow)}.

{_table(by_licence, ("licence", "rows"))}

## How it was built

Rendering: TikZ compiled with pdflatex (no shell escape, paranoid file access), mxGraph
validated (unique ids, edge endpoints and geometry, no external images) and drawn by
draw.io's own engine, SVG sanitized and drawn with {params.render.svg.engine}; all
rasterized at {params.render.raster.dpi} dpi; token counts with tiktoken
`{params.filter.tokens.encoding}` (kept: {params.filter.tokens.min}–{params.filter.tokens.max}).
The validation report (Great Expectations) is in `validation_report.json`.

### Funnel

```
{funnel}
```
"""
    return str(DatasetCard(f"---\n{card_data(params, df, configs).to_yaml()}\n---\n{body}"))


def render_licences(df: pd.DataFrame) -> str:
    """LICENSES.md: one entry per source, with its licence and whom to credit."""
    lines = ["# Licences and attribution", "",
             "Each diagram keeps the licence of the source it was taken from.", ""]
    if not len(df):
        return "\n".join(lines)
    cols = ["group", "licence", "licence_url", "attribution", "source_url"]
    for _, r in df[cols].drop_duplicates("group").sort_values("group").iterrows():
        lines.append(f"- **{r['group']}** — {r['attribution']} — licence `{r['licence']}`"
                     f" ({r['licence_url'] or 'no URL'}) — {r['source_url']}")
    return "\n".join(lines) + "\n"
