"""The dataset card (README.md with YAML metadata) and the licence/attribution file.

The metadata is built with ``huggingface_hub``'s ``DatasetCardData`` (configs with their
features and split sizes, task categories, size category, licence, pretty name, tags) and
the card is loaded back through ``DatasetCard`` before it is written, so a card the Hub
would not parse never leaves this module.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

import pandas as pd
from huggingface_hub import DatasetCard, DatasetCardData

from diagramforge.cards.publish.contamination import ContaminationSettings
from diagramforge.cards.publish.contamination import section as contamination_section
from diagramforge.cards.publish.licence_audit import LicenceAudit, card_licence
from diagramforge.formats import capabilities
from diagramforge.formats.registry import format_titles
from diagramforge.licensing.spdx import FAMILIES, licence_family
from diagramforge.pipeline import stage_classes
from diagramforge.selection import ConfigSelection, describe

if TYPE_CHECKING:
    from diagramforge.builders.crawl.settings import CrawlParams
    from diagramforge.builders.twin.settings import TwinParams
    from diagramforge.cards.publish.settings import PublishParams
    from diagramforge.cards.validate.settings import ValidateParams
    from diagramforge.filters.filter.settings import FilterParams
    from diagramforge.formats.settings import RenderSettings
    from diagramforge.params import LicenceParams
    from diagramforge.synth.augment.settings import AugmentParams

_TAKE_ALL = ConfigSelection()

# SPDX ids that the Hub's `license` field knows, keyed by SPDX id.
HUB_LICENCES = {"CC-BY-4.0": "cc-by-4.0", "CC-BY-SA-4.0": "cc-by-sa-4.0",
                "CC-BY-NC-SA-4.0": "cc-by-nc-sa-4.0", "CC0-1.0": "cc0-1.0", "MIT": "mit",
                "Apache-2.0": "apache-2.0", "BSD-2-Clause": "bsd-2-clause",
                "BSD-3-Clause": "bsd-3-clause"}

TASK_CATEGORIES = {"generation": ["image-to-text", "text-generation"],
                   "captioning": ["image-to-text"], "qa": ["visual-question-answering"],
                   "editing": ["image-text-to-text", "text-generation"],
                   "sketch": ["image-to-text"], "degraded": ["image-to-text"],
                   "variation": ["image-to-text"], "repair": ["text-generation"],
                   "translation": ["text-generation", "translation"]}

TASK_TEXT = {"generation": "image → code (every format)", "captioning": "image → caption",
             "qa": "image + question → answer", "editing": "code + instruction → code",
             "sketch": "hand-drawn sketch → code", "degraded": "degraded render → code",
             "variation": "code variation + its render", "repair": "broken code → fixed code",
             "translation": "code in one language → the same diagram in another"}

CITATIONS = """\
- Belouadi et al., *AutomaTikZ: Text-Guided Synthesis of Scientific Vector Graphics with
  TikZ* (ICLR 2024) and *DeTikZify* (NeurIPS 2024) — TikZ from arXiv sources, compiled to
  verify (DaTikZ).
- Zhang et al., *SciFlow-Bench: Evaluating Structure-Aware Scientific Diagram Generation via
  Inverse Parsing* — node/edge precision, recall and F1 on extracted graphs.
- Liang and You, *DiagramEval: Evaluating LLM-Generated Diagrams via Graphs* — path
  (reachability) alignment.
- *VCG-Bench: Towards a Unified Visual-Centric Benchmark for Structured Generation and
  Editing* — mxGraph XML generation and verified atomic edits.
- *VectorGym: A Multi-Task Benchmark for SVG Code Generation and Manipulation* and
  *Sketch2Diagram: Generating Vector Diagrams from Hand-Drawn Sketches* — SVG tasks and
  sketch inputs.
"""


@dataclass
class CardInputs:
    """Everything the card reports beyond the generation table itself."""

    configs: list[dict]
    funnel: str = ""
    stats: dict = field(default_factory=dict)
    audit: LicenceAudit = field(default_factory=LicenceAudit)
    features: dict[str, list] = field(default_factory=dict)
    """Config → ``Features._to_yaml_list()`` (the Hub's ``dataset_info`` form)."""
    charts: list[str] = field(default_factory=list)
    missing_stages: list[str] = field(default_factory=list)
    empty_configs: list[str] = field(default_factory=list)
    selection: dict[str, dict] = field(default_factory=dict)
    """Config → pool diagrams it takes and leaves out by reason (``selection``)."""


def _size_category(n: int) -> str:
    for limit, name in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"),
                        (1_000_000, "100K<n<1M")):
        if n < limit:
            return name
    return "n>1M"


def _dataset_info(inputs: CardInputs) -> list[dict]:
    out = []
    for c in inputs.configs:
        feats = inputs.features.get(c.get("_features", c["config_name"]))
        if feats is None:
            continue
        sizes, nbytes = c.get("_split_rows", {}), c.get("_split_bytes", {})
        out.append({"config_name": c["config_name"], "features": feats,
                    "splits": [{"name": s, "num_bytes": nbytes.get(s, 0), "num_examples": n}
                               for s, n in sizes.items()]})
    return out


class CardSettings(ContaminationSettings, Protocol):
    """What the card reads of the params, to state what the build did: every section
    whose choices it reports, besides the split's (``contamination``). The publish stage
    hands the loaded ``Params``."""

    @property
    def publish(self) -> PublishParams: ...
    @property
    def crawl(self) -> CrawlParams: ...
    @property
    def licences(self) -> LicenceParams: ...
    @property
    def render(self) -> RenderSettings: ...
    @property
    def filter(self) -> FilterParams: ...
    @property
    def validate_(self) -> ValidateParams: ...
    @property
    def select(self) -> Mapping[str, ConfigSelection]: ...
    @property
    def augment(self) -> AugmentParams: ...
    @property
    def twin(self) -> TwinParams: ...


def card_data(params: CardSettings, df: pd.DataFrame, configs: list[dict],
              inputs: CardInputs | None = None) -> DatasetCardData:
    inputs = inputs or CardInputs(configs)
    licence, extra = card_licence(list(df["licence"]) if len(df) else [], HUB_LICENCES)
    tasks = sorted({t for c in configs for t in TASK_CATEGORIES.get(c["config_name"], [])}
                   or TASK_CATEGORIES["generation"])
    total = sum(c.get("_rows", 0) for c in configs if not c.get("_view"))
    info = _dataset_info(inputs)
    if info:
        extra["dataset_info"] = info
    return DatasetCardData(
        license=licence, pretty_name=params.publish.pretty_name, language=["en"],
        task_categories=tasks,
        tags=["diagrams", "code", *sorted(set(df["format"]))] if len(df) else ["diagrams"],
        size_categories=[_size_category(total or len(df))],
        configs=[{k: v for k, v in c.items() if not k.startswith("_")} for c in configs],
        version=params.publish.version, **extra,
    )


def _table(counter: Counter | dict, head: tuple[str, str]) -> str:
    lines = [f"| {head[0]} | {head[1]} |", "|---|---:|"]
    lines += [f"| {k} | {v} |" for k, v in sorted(counter.items(), key=lambda kv: (-kv[1],
                                                                                   kv[0]))]
    return "\n".join(lines)


def _filters(params: CardSettings) -> str:
    lines = []
    for name in params.filter.order:
        section = params.filter.section(name).model_dump()
        shown = ", ".join(f"`{k}={v}`" for k, v in section.items() if k != "enabled")
        state = "" if section.get("enabled", True) else " (disabled)"
        lines.append(f"- `{name}`{state}: {shown or 'no thresholds'}")
    return "\n".join(lines)


def _classifier(params: CardSettings) -> str:
    """The diagram-type classifier's held-out accuracy, read from the metrics files its
    stage declares (``extra_metrics``), when that stage exists and has run."""
    from pathlib import Path

    cls = stage_classes().get("classifier-train")
    found: dict[str, float] = {}
    arch = ""
    for name in getattr(cls, "extra_metrics", ()) if cls else ():
        p = Path(params.project.metrics_dir) / name
        if p.exists():
            data = json.loads(p.read_text())
            found.update({k: v for k, v in data.items() if isinstance(v, int | float)
                          and not isinstance(v, bool) and ("acc" in k or "f1" in k)})
            arch = data.get("architecture") if isinstance(data.get("architecture"), str) \
                else arch
    if not found:
        return "No diagram-type classifier accuracy is recorded for this version."
    return f"Diagram-type classifier{f' ({arch})' if arch else ''}, held out: " + ", ".join(
        f"{k} = {v:.3f}" for k, v in sorted(found.items())) + "."


def _archive_limits(params: CardSettings) -> str:
    out = ""
    if params.crawl.stack.enabled:
        out += ("\n- A file from The Stack carries the licences The Stack detected for its "
                "repository (at the commit it crawled); a single file may say otherwise.")
    if params.crawl.repo_search.enabled:
        out += ("\n- Repository search finds what GitHub's code index holds (at most 1,000 "
                "hits a query); it is a sample of the public repositories, not all of them.")
    return out


def _shares(inputs: CardInputs) -> str:
    """Each source kind's share of the rows and the licences it brought."""
    shares = inputs.stats.get("sources") or {}
    if not shares:
        return ""
    lines = ["", "", "Each source kind's share of the `generation` rows, and their licences:", "",
             "| source kind | rows | share | licences (rows) |", "|---|---:|---:|---|"]
    for kind, d in sorted(shares.items(), key=lambda kv: -kv[1]["rows"]):
        lic = ", ".join(f"`{k}` ({v})" for k, v in sorted(d["licences"].items(),
                                                          key=lambda kv: (-kv[1], kv[0])))
        lines.append(f"| `{kind}` | {d['rows']} | {d['share']:.1%} | {lic} |")
    return "\n".join(lines)


def _sources(params: CardSettings, inputs: CardInputs | None = None) -> str:
    a, r = params.crawl.arxiv, params.crawl.repos
    st, rs = params.crawl.stack, params.crawl.repo_search
    lines = []
    if a.source:
        cats = ", ".join(a.categories) or "all categories"
        lines.append(f"- arXiv (`{a.source}`): {cats}, {a.from_date or '…'} to "
                     f"{a.until_date or '…'}, at most {a.max_papers} papers; e-print TikZ "
                     f"and SVG, licences from OAI-PMH.")
    for spec in r.repositories:
        lines.append(f"- Repository `{spec.name or spec.url}` pinned at `{spec.ref}`: diagram "
                     f"files ({', '.join(format_titles(code_only=True).values())}), licence "
                     f"read from its licence files.")
    if st.enabled:
        lines.append(f"- The Stack (`{st.dataset}`"
                     f"{f' at `{st.revision}`' if st.revision else ''}), subsets "
                     f"{', '.join(f'`{x}`' for x in st.subsets)}, streamed: files a format "
                     f"handler claims, each with its repository, path, commit and the "
                     f"repository licences The Stack lists.")
    if rs.enabled:
        lines.append(f"- Repositories GitHub code search finds for "
                     f"{', '.join(f'`extension:{x}`' for x in rs.extensions)}, each checked "
                     f"out at the commit the search saw, licence read from its licence files.")
    if params.crawl.stackexchange.enabled:
        lines.append(_stackexchange_line(params))
    text = "\n".join(lines) or "- (no sources configured)"
    return text + (_shares(inputs) if inputs is not None else "")


def _stackexchange_line(params: CardSettings) -> str:
    se = params.crawl.stackexchange
    scope = [f"{' and '.join(f'{t}s' for t in se.post_types)}"]
    if se.accepted_only:
        scope.append("answers only when accepted")
    if se.from_date or se.until_date:
        scope.append(f"created {se.from_date or '…'} to {se.until_date or '…'}")
    if se.min_score is not None:
        scope.append(f"score ≥ {se.min_score}")
    if se.tags:
        scope.append("tagged " + " or ".join(f"`{t}`" for t in se.tags))
    return (f"- Stack Exchange (`{se.site}`, data dump `{se.dataset or se.dump}`): "
            f"{', '.join(scope)}; the pictures in their code blocks (fragments completed "
            f"with the smallest preamble), the question's and the answer's prose as context. "
            f"Each row credits its post's author (name, profile link, post link) under the "
            f"post's own licence: CC BY-SA 2.5 before 2011-04-08, 3.0 until 2018-05-02, 4.0 "
            f"from then, by the date of the post's latest revision (Stack Exchange's rule); "
            f"a question and its answers share a `group`.")


def _licence_section(params: CardSettings, inputs: CardInputs) -> str:
    per = inputs.audit.per_licence()
    lines = ["| licence | family | rows | non-commercial | share-alike | missing attribution |",
             "|---|---|---:|:-:|:-:|---:|"]
    for lic, d in sorted(per.items(), key=lambda kv: (-kv[1]["rows"], kv[0])):
        lines.append(f"| `{lic}` | {licence_family(lic)} | {d['rows']} | "
                     f"{'yes' if d['nc'] else 'no'} | {'yes' if d['sa'] else 'no'} | "
                     f"{d['missing_attribution']} |")
    allow = params.licences.allow
    apart = {fam: [x for x in allow if licence_family(x) == fam]
             for fam in ("non-commercial", "no-derivatives")}
    general = [x for x in allow if x not in apart["non-commercial"] + apart["no-derivatives"]]
    opted = "".join(
        f"  **{fam.capitalize()} licences admitted by this build's `licences.allow`:** "
        f"{', '.join(f'`{x}`' for x in ids)} — "
        + ("rows under them may not be used commercially."
           if fam == "non-commercial" else "rows under them may not be adapted (no edits, "
                                          "augmentations or twins of them may be shared).")
        for fam, ids in apart.items() if ids)
    return "\n".join(lines) + f"""

Every row of every config carries its own `licence` (an SPDX expression), `licence_family`
({", ".join(f"`{f}`" for f in FAMILIES)}), `licence_url` and `attribution`; `LICENSES.md`
credits every source.  Licences were read from each repository's licence files and package
manifests by ScanCode's licence database; a licence that could not be read with confidence,
or files and manifests that disagree, kept the source out.  Admitted licences:
{", ".join(f"`{x}`" for x in general)}.{opted}  Share-alike rows pass their licence on to
derivatives.  One line of `datasets` keeps what your use allows, e.g.
`ds.filter(lambda r: r["licence_family"] in ("permissive", "public-domain"))`."""


def _pool_caps(params: CardSettings) -> str:
    tk = params.filter.tokens
    fmts = sorted(set(params.validate_.format_names()) | set(tk.formats))
    return ", ".join(f"{f} {tk.window(f)[0]:,}–{tk.window(f)[1]:,}" for f in fmts)


def _selection_section(params: CardSettings, inputs: CardInputs) -> str:
    """Each config's keep list and token windows (``select`` in params.yaml) and what it
    took from the pool: a diagram a config leaves out is still in the others."""
    if not inputs.selection:
        return ""
    lines = ["| config | diagram types | token windows (cl100k) | pool | taken | left out |",
             "|---|---|---|---:|---:|---|"]
    for config, got in inputs.selection.items():
        types, windows = describe(params.select.get(config) or _TAKE_ALL)
        out = ", ".join(f"{k}={v}" for k, v in got["not_selected"].items()) or "-"
        lines.append(f"| `{config}` | {types} | {windows} | {got['pool']} | "
                     f"{got['selected']} | {out} |")
    return ("### Selection per config\n\nThe pool keeps every diagram that renders and passes "
            "the filters; each config takes from it the diagram types and token windows its "
            "task calls for (`select` in `params.yaml`). A diagram a config leaves out is not "
            "rejected: it stays in every config that takes it, typed (`diagram_type`) and "
            "tiered (`difficulty`). The per-format configs are views of `generation`.\n\n"
            + "\n".join(lines) + "\n")


def _mb(nbytes: int) -> str:
    return f"{nbytes / 1e6:,.1f}" if nbytes >= 1e5 else f"{nbytes / 1e6:.3f}"


def _images_cell(config: dict) -> str:
    """How each image column of a config is stored: its encodings (counted on the rows
    published), or the ``generation`` column it refers to."""
    parts = [f"`{col}` {' / '.join(f'{k.upper()} {n}' for k, n in kinds.items())}"
             for col, kinds in config.get("_images", {}).items() if kinds]
    parts += [f"`{col}` → `generation`.`{home}` of `diagram_id`"
              for col, home in config.get("_references", {}).items()]
    return "; ".join(parts) or "-"


def _line_art_text(raster) -> str:  # noqa: ANN001 - RasterParams
    """How a render is stored, after "sketches, variations and twins are line " (one
    sentence's end, and what a reader needs to load it)."""
    size = (f" Each is at the renderer's own size ({raster.dpi} dpi, at most "
            f"{raster.max_side_px} px a side): no config carries a reduced copy, since every "
            "image a config keeps is a task's input or the reference its scorer compares "
            "pixel for pixel.")
    if raster.codec == "webp":
        return ("art too) is stored as a lossless WebP: the renderer's pixels exactly, in "
                "RGB (RGBA where the render is see-through), about half the bytes of an "
                "optimised PNG. `datasets`' `Image` feature and Pillow decode it as they "
                "decode a PNG; a render WebP cannot hold (more than 8 bits a sample, over "
                "16,383 px a side) or would not make smaller stays PNG." + size)
    return ("art too) is stored as a lossless PNG: the renderer's pixels exactly"
            + (", re-compressed by oxipng (level "
               f"{raster.png_level}; a palette only where the render has at "
               "most 256 colours, grey where it is grey)"
               if raster.png_level is not None else "")
            + "." + size)


def _images_text(params: CardSettings, configs: list[dict], n: int) -> str:
    """What a picture costs and where each one is: line art lossless, scans as JPEG, a
    diagram's render once (``cards/validate/references.py``)."""
    total = sum(sum(c.get("_split_bytes", {}).values()) for c in configs
                if not c.get("_view"))
    per = f" — {total / n / 1e6:.2f} MB per diagram" if n else ""
    refs = sorted({c["config_name"] for c in configs if c.get("_references")})
    kept = {c["config_name"]: c["_unreferenced"] for c in configs if c.get("_unreferenced")}
    d = params.augment.degrade
    # only the image columns this version has (the card names no column the data lacks)
    cols = sorted({col for c in configs for col in c.get("_images", {})}
                  | {col for c in configs for col in c.get("_references", {})})
    names = ", ".join(f"`{c}`" for c in cols) or "none"
    degraded = any(c["config_name"] == "degraded" for c in configs)
    text = (f"All configs together: {_mb(total)} MB{per}.\n\n"
            f"Every render (image columns: {names}; sketches, variations and twins are line "
            + _line_art_text(params.render.raster)
            + (" Degraded scans (`degraded`) are photographs of a page and are stored as "
               "JPEG, encoded once, at a quality drawn per scan from "
               f"{d.jpeg_quality[0]}–{d.jpeg_quality[1]} (each row's transform record says "
               "which)." if degraded else "")
            + " A picture that several rows show (the diagram all of its `qa` questions are "
            "about) is stored once per Parquet row group; each row still loads its own "
            "image.")
    if refs:
        text += (
            "\n\nA diagram's render is published once, in `generation`: in "
            + ", ".join(f"`{r}`" for r in refs)
            + " the source picture (`source_image`) was every row's diagram render byte for "
              "byte, so it is not repeated there — it is `generation`'s `image` of the row "
              "whose `id` is the item's `diagram_id` (same split):\n\n"
              "```python\n"
              "from datasets import Image, load_dataset\n"
              "gen = load_dataset(\"<this repo>\", \"generation\", split=\"train\")\n"
              "gen = gen.cast_column(\"image\", Image(decode=False))  # bytes, decoded "
              "when used\n"
              "render = dict(zip(gen[\"id\"], gen[\"image\"]))\n"
              "edits = load_dataset(\"<this repo>\", \"editing\", split=\"train\")\n"
              "source = render[edits[0][\"diagram_id\"]]   # {'bytes': ..., 'path': None}\n"
              "```")
    for config, cols in sorted(kept.items()):
        text += (f"\n\n`{config}` keeps "
                 + ", ".join(f"`{c}` (e.g. {why})" for c, why in cols.items())
                 + ": not every row's source is its diagram's published render.")
    return text


def _rendering(render: RenderSettings) -> str:
    """How each format is drawn, in its own folder's words (the ``card`` capability): a new
    format's engine is on the card by its folder, not by an edit here."""
    return "; ".join(m.rendering(render) for m in capabilities.every("card").values())


def _formats_text(df: pd.DataFrame) -> str:
    """The formats this version holds, as people call them (the format registry's titles)."""
    titles = format_titles()
    have = sorted(set(df["format"])) if len(df) else []
    return ", ".join(titles.get(f, f) for f in have) or "none"


def _difficulty_text(params: CardSettings) -> str:
    """How each format's `difficulty` was tiered, from the params the split stage used."""
    code = format_titles(code_only=True)
    parts = []
    for fmt, t in params.split.difficulty.formats().items():
        how = (f"cl100k tokens, fixed cut points {t.thresholds[0]:,} and {t.thresholds[1]:,}"
               if t.method == "thresholds" else "terciles of its own cl100k tokens")
        if fmt not in code:  # pixels: no tokens
            how = "terciles of its own graph sizes (`graph_nodes` + `graph_edges`)"
        elif t.structure:
            how += (" and of its own graph sizes (`graph_nodes` + `graph_edges`), the harder "
                    "tier winning")
        parts.append(f"{fmt}: {how}")
    return ("Each diagram's `difficulty` (easy, medium, hard) is tiered per format — "
            + "; ".join(parts) + ". Cut points: `metrics/split.json` of the build; a diagram "
            "without tokens or graph has the tier the other gives, or none.")


def _nested_text(inputs: CardInputs) -> str:
    """The nested columns this version publishes (only those: the card names no column the
    data lacks)."""
    # lazy: loads datasets
    from diagramforge.cards.validate.nested import NESTED

    present = {f.get("name") for feats in inputs.features.values() for f in feats}
    nested = [c for c in NESTED if c in present]
    if not nested:
        return ""
    ops = (" (an operation's `params` stay a JSON string, their keys differ per operation)"
           if "operations" in nested else "")
    return (f"List and record columns ({', '.join(f'`{c}`' for c in nested)}) are nested "
            f"features: `datasets` returns them as Python lists and dicts{ops}.\n")


def _twins_text(configs: list[dict], targets: list[str]) -> str:
    """The ``translation`` config's paragraph: the run's ``twin.targets``, each named as its
    folder titles it — a drawing export (its twin capability's ``DRAWING``) apart from the
    languages written from the structure graph."""
    if not any(c["config_name"] == "translation" for c in configs):
        return ""
    titles = format_titles()
    twins = {t: m for t in targets if (m := capabilities.of(t, "twin")) is not None}
    written = [titles.get(t, t) for t, m in twins.items() if not m.DRAWING]
    drawn = " its own engine's SVG (`layout+style`), and" \
        if any(m.DRAWING for m in twins.values()) else ""
    langs = ", ".join(written[:-1]) + f" and {written[-1]}" if len(written) > 1 \
        else "".join(written)
    return f"""
`translation` pairs each diagram with its twins in other languages:{drawn} {langs} written
from its structure graph (`structure`, or `layout` when positions, sizes and shapes are
kept). Only diagrams whose
structure graph is the diagram have twins: a graph-like kind (flowcharts, graphs, trees,
automata, commutative, architecture/block, UML, network, mind-map and neural-network
diagrams — no charts, tables, plots, pictures, Venn diagrams, circuits or sequence diagrams),
at least one edge, most nodes with a text (not icons), every edge between two nodes, and
node and edge labels that account for the text drawn on the diagram's own render (TikZ
labels as typeset). Each twin was compiled
by its language's real engine and kept only when its structure graph has the source's node
texts, edge count and edge directions (a double arrow stays one); `method` and `preserves`
say how it was made and what it keeps. A twin sits in its diagram's split; the statistics
below count it per language pair (`source->target`)."""


def _stats_section(inputs: CardInputs) -> str:
    # lazy: loads matplotlib, pandas
    from diagramforge.cards.publish.statistics import format_stats

    if not inputs.stats.get("configs"):
        return "No rows."
    charts = "\n".join(f"![{c}](charts/{c}.png)" for c in inputs.charts)
    return f"```\n{format_stats(inputs.stats)}\n```\n\n{charts}"


def render_card(params: CardSettings, df: pd.DataFrame, configs: list[dict], funnel: str = "",
                inputs: CardInputs | None = None) -> str:
    """README.md for the published dataset: metadata, contents, provenance, statistics,
    licences, uses, limitations, citations."""
    inputs = inputs or CardInputs(configs, funnel=funnel)
    n = len(df)
    groups = df["group"].nunique() if n else 0
    rt, tk = params.render, params.filter.tokens
    cfg_rows = "\n".join(
        f"| `{c['config_name']}` | {TASK_TEXT.get(c['config_name']) or c.get('_task', '')} | "
        f"{c.get('_rows', 0)} | {', '.join(d['split'] for d in c.get('data_files', []))} | "
        f"{_mb(sum(c.get('_split_bytes', {}).values()))} | {_images_cell(c)} |"
        for c in configs)
    missing = ("\n\nNot in this version (their stages did not run): "
               + ", ".join(f"`{s}`" for s in inputs.missing_stages) + "."
               if inputs.missing_stages else "")
    if inputs.empty_configs:
        missing += ("\n\nDeclared but without rows in this version: "
                    + ", ".join(f"`{c}`" for c in inputs.empty_configs) + ".")
    body = f"""
# {params.publish.pretty_name}

Version **{params.publish.version}**: {n} diagrams as code ({_formats_text(df)}) from
{groups} sources, each with its rendering (PNG), its caption and the paragraphs that refer to
it where known, plus the task items built on them.

Browse it: open `gallery/index.html` (thumbnails per config, filters by format, difficulty,
diagram type and licence, a detail view with code, render and task items; works offline).

## Configs

| config | task | rows | splits | MB | images |
|---|---|---:|---|---:|---|
{cfg_rows}{missing}

```python
from datasets import load_dataset
ds = load_dataset("<this repo>", "generation")   # or another config above
```

MB is what downloading the config's Parquet files costs (the per-format configs are
views: their files are `generation`'s). {_images_text(params, configs, n)}

Splits are assigned per source (`group`) and near-duplicate cluster (`dup_cluster`), so no
paper, repository or duplicate family appears in two splits; every task item sits in the
split of its diagram.

{_difficulty_text(params)}
{_nested_text(inputs)}

{contamination_section(params)}
## How it was built

Sources:

{_sources(params, inputs)}

Rendering: {_rendering(rt)}. Every picture is rasterized at {rt.raster.dpi} dpi; a
record that does not render is not a diagram. Token counts with tiktoken `{tk.encoding}`; the pool
keeps, per format: {_pool_caps(params)}.
{_twins_text(configs, params.twin.targets)}

Filters, in order, with their thresholds (`params.yaml`):

{_filters(params)}

{_selection_section(params, inputs)}
{_classifier(params)}

### Funnel

Every input is accounted for: kept, or ledgered with a stage and a reason.

```
{inputs.funnel or funnel}
```

## Statistics

{_stats_section(inputs)}

## Licences

License field: `{card_licence(list(df["licence"]) if n else [], HUB_LICENCES)[0]}`.

{_licence_section(params, inputs)}

## Intended uses

Training and evaluating models that read or write diagrams as code: image → code generation
in every format, diagram captioning and question answering, instruction-driven diagram
editing, translation between diagram languages. The graph JSON and the verified edit targets
support structure-aware scoring: `diagramforge evaluate` scores a predictions file on any
config (execution in the sandbox, one-to-one node matching for the graph metrics, means over
all and over executed items) and `diagramforge score` one prediction against one reference.

## Limitations

- Sources are arXiv papers and template repositories: academic and software diagrams
  dominate; hand-drawn, photographed and slide diagrams are rare.
- Renders come from one version of each engine (one TeX Live, one draw.io viewer, one SVG
  renderer, one Graphviz, Mermaid and PlantUML); other tools and versions may draw fonts and
  spacing differently.
- Captions and instructions phrased by a language model may contain errors; answers and
  edit targets are computed by code and verified.
- Licences are taken from what each source declares; a declaration can be wrong.\
{_archive_limits(params)}

## Validation

A Great Expectations suite runs on every build; its report is `validation_report.json`.

## Citations

This dataset follows the methods of:

{CITATIONS}"""
    card = DatasetCard(f"---\n{card_data(params, df, configs, inputs).to_yaml()}\n---\n{body}")
    DatasetCard(str(card))  # parses back: what the Hub will read
    return str(card)


def render_licences(df: pd.DataFrame) -> str:
    """LICENSES.md: one entry per source, with its licence and whom to credit."""
    lines = ["# Licences and attribution", "",
             "Each diagram keeps the licence of the source it was taken from.", ""]
    if not len(df):
        return "\n".join(lines)
    cols = ["group", "licence", "licence_url", "attribution", "source_url"]
    # one entry per author and licence in a group: a paper or repository has one, a Stack
    # Exchange question has one per post (each credited to its own author)
    entries = df[cols].drop_duplicates(["group", "attribution", "licence"])
    for _, r in entries.sort_values(["group", "source_url"]).iterrows():
        lines.append(f"- **{r['group']}** — {r['attribution']} — licence `{r['licence']}`"
                     f" ({r['licence_url'] or 'no URL'}) — {r['source_url']}")
    return "\n".join(lines) + "\n"
