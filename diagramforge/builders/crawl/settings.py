"""The ``crawl`` section of ``params.yaml``: where sources come from — arXiv (its listing, or
the bulk source archive), pinned repositories, PDFs, The Stack, GitHub code search, Stack
Exchange dumps — and how politely they are fetched.  Read by the crawl stage alone.
"""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Literal, Protocol

from pydantic import Field, model_validator

from diagramforge.formats import capabilities
from diagramforge.params import LicenceParams, RunnerParams, Section


def _sources(name: str) -> list[str]:
    """Every format's ``sources`` capability's ``name`` list, in the formats' order, each
    entry once: where a crawl default looks for diagram files (a new format brings its
    own by its folder)."""
    return list(dict.fromkeys(x for m in capabilities.every("sources").values()
                              for x in getattr(m, name)))


class BulkArxivParams(Section):
    """``crawl.arxiv.bulk``: arXiv's bulk source archive (``diagramforge.builders.crawl.bulk``)."""

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


class ArxivCrawlParams(Section):
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


class RepoSpec(Section):
    url: str
    """A git URL, a local repository path or a git bundle."""
    ref: str
    """A tag, a branch or a full commit id: the crawl is pinned to what it resolves to."""
    name: str | None = None
    licence: str | None = None
    """An SPDX expression that overrides what the licence files and manifests say — for a
    maintainer who read a repository the crawl ledgered as ``licence_conflict`` or
    ``licence_unknown`` and decided.  Recorded as the licence's evidence (``stated``)."""


class RepoCrawlParams(Section):
    repositories: list[RepoSpec] = []
    cache_dir: str = "data/cache/repos"
    include: list[str] = []
    """Globs of files crawled besides those a format handler claims: none by default, as
    every format's files are claimed by its own handler (its suffixes)."""
    include_claimed: bool = True
    """Also every file a format handler claims by name (``.drawio``, ``.svg``, ``.dot``,
    ``.mmd``, Markdown…): a new format's files are crawled without being listed in
    ``include``."""
    exclude: list[str] = [".git/*", "node_modules/*"]
    max_file_bytes: Annotated[int, Field(ge=1)] = 5_000_000
    timeout_s: Annotated[float, Field(gt=0)] = 300.0

    @model_validator(mode="after")
    def _some_files(self) -> RepoCrawlParams:
        if not self.include and not self.include_claimed:
            raise ValueError("include is empty and include_claimed is false: no file of a "
                             "repository would be crawled")
        return self


class PdfCrawlParams(Section):
    """Where ``pdf`` sources come from: the PDFs crawled with arXiv papers, and/or a folder."""

    from_arxiv: bool = True
    """Each crawled arXiv paper's PDF (``crawl.arxiv.download_pdfs``) is also a ``pdf``
    source: its figures, found on the page, as ``svg``/``raster`` records."""
    folder: str | None = None
    """A local folder of ``*.pdf`` (searched recursively); ``null`` reads none."""
    licence: str | None = None
    """SPDX licence of the folder's PDFs (``null``: unknown, which the licence filter drops)."""
    max_files: Annotated[int, Field(ge=0)] = 10_000


class StackColumns(Section):
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


class StackCrawlParams(Section):
    """``stack`` sources: files of The Stack's per-language subsets, streamed (never a whole
    subset on disk), kept when a format handler claims them."""

    enabled: bool = False
    dataset: str = "bigcode/the-stack-dedup"
    """A Hub dataset id, or a local directory in the same layout (``data/<lang>/*.parquet``)."""
    revision: str | None = None
    """The dataset repository's commit or tag: pin it and a rebuild reads the same rows."""
    subsets: list[str] = Field(default_factory=lambda: _sources("STACK_SUBSETS"))
    """``data_dir`` of each subset streamed, in order; by default every format's
    (``formats/<name>/sources.py``), in the formats' order."""
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


class RepoSearchParams(Section):
    """``repo_search`` sources: repositories listed by GitHub's code search for diagram
    file extensions, each checked out at the commit the search saw, every file a format
    handler claims crawled like a pinned template repository's."""

    enabled: bool = False
    api_url: str = "https://api.github.com"
    token_env: str = "GITHUB_TOKEN"
    """Name of the environment variable holding the token (code search needs one)."""
    extensions: list[str] = Field(default_factory=lambda: _sources("SEARCH_EXTENSIONS"))
    """Extensions searched (``extension:…``); by default every format's
    (``formats/<name>/sources.py``), in the formats' order."""
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


class StackExchangeTables(Section):
    """``data_dir`` of each table of a dump published as a dataset (one Parquet table per
    dump file, the rows' attributes as columns)."""

    posts: str = "Posts"
    users: str | None = "Users"
    post_history: str | None = "PostHistory"


class StackExchangeParams(Section):
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


class CrawlParams(Section):
    arxiv: ArxivCrawlParams = ArxivCrawlParams()
    repos: RepoCrawlParams = RepoCrawlParams()
    pdf: PdfCrawlParams = PdfCrawlParams()
    stack: StackCrawlParams = StackCrawlParams()
    repo_search: RepoSearchParams = RepoSearchParams()
    stackexchange: StackExchangeParams = StackExchangeParams()


class CrawlSettings(Protocol):
    """What the crawl's helpers read of the params (the loaded ``Params`` is one): the
    ``crawl`` section, the licences it may take, and the bulk crawl's executor (``runner``)."""

    @property
    def crawl(self) -> CrawlParams: ...
    @property
    def licences(self) -> LicenceParams: ...
    @property
    def runner(self) -> RunnerParams: ...
