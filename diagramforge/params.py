"""Load and validate ``params.yaml`` into typed sections, one per stage.

Every number that changes what the dataset contains lives here, not in code.  Unknown keys
are errors (a typo must not silently fall back to a default), and an error names the full
key path and what was expected.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


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
    allow: list[str] = ["CC-BY-4.0", "CC-BY-SA-4.0", "CC-BY-NC-SA-4.0", "CC0-1.0", "MIT",
                        "BSD-2-Clause", "BSD-3-Clause", "Apache-2.0"]


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


class RepoSpec(_Section):
    url: str
    """A git URL, a local repository path or a git bundle."""
    ref: str
    """A tag, a branch or a full commit id: the crawl is pinned to what it resolves to."""
    name: str | None = None


class RepoCrawlParams(_Section):
    repositories: list[RepoSpec] = []
    cache_dir: str = "data/cache/repos"
    include: list[str] = ["*.drawio", "*.drawio.xml", "*.xml", "*.svg", "*.drawio.png"]
    exclude: list[str] = [".git/*", "node_modules/*"]
    max_file_bytes: Annotated[int, Field(ge=1)] = 5_000_000
    timeout_s: Annotated[float, Field(gt=0)] = 300.0


class CrawlParams(_Section):
    arxiv: ArxivCrawlParams = ArxivCrawlParams()
    repos: RepoCrawlParams = RepoCrawlParams()


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


class TikzRenderParams(_Section):
    engine: Literal["pdflatex", "lualatex"] = "pdflatex"
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


class MxGraphRenderParams(_Section):
    timeout_s: Annotated[float, Field(gt=0)] = 60.0
    """Per batch of diagrams sent to the draw.io page."""
    batch_size: Annotated[int, Field(ge=1)] = 64


class SvgRenderParams(_Section):
    engine: Literal["resvg", "cairosvg"] = "resvg"


class RenderParams(_Section):
    tikz: TikzRenderParams = TikzRenderParams()
    mxgraph: MxGraphRenderParams = MxGraphRenderParams()
    svg: SvgRenderParams = SvgRenderParams()
    raster: RasterParams = RasterParams()


class FilterParams(BaseModel):
    """``filter.order`` plus one section per filter, validated by the filter's own params
    model (each filter module owns its section; see ``filters/base.py``)."""

    model_config = ConfigDict(extra="allow", frozen=True)
    order: list[str] = ["licence", "tokens"]

    @model_validator(mode="after")
    def _sections(self) -> FilterParams:
        from diagramforge.filters.base import discover

        registry = discover()
        extra = self.__pydantic_extra__ if self.__pydantic_extra__ is not None else {}
        unknown = sorted(set(self.order) - set(registry))
        if unknown:
            raise ValueError(f"unknown filter(s) {unknown} in order; known: {sorted(registry)}")
        stray = sorted(set(extra) - set(registry))
        if stray:
            raise ValueError(f"unknown key(s) {[f'filter.{n}' for n in stray]} "
                             f"(not a filter; a typo?); known filters: {sorted(registry)}")
        problems = []
        for name, spec in registry.items():
            raw = extra.get(name) or {}
            try:
                extra[name] = raw if isinstance(raw, spec.params_model) else \
                    spec.params_model.model_validate(raw)
            except ValidationError as exc:
                problems += [f"filter.{name}." + ".".join(map(str, e["loc"])) + f": {e['msg']}"
                             for e in exc.errors()]
        if problems:
            raise ValueError("; ".join(problems))
        return self

    def section(self, name: str) -> BaseModel:
        """The parsed params section of filter ``name``."""
        return (self.__pydantic_extra__ or {})[name]


class SplitParams(_Section):
    seed: int = 1234
    train: Annotated[float, Field(ge=0, le=1)] = 0.8
    validation: Annotated[float, Field(ge=0, le=1)] = 0.1
    test: Annotated[float, Field(ge=0, le=1)] = 0.1

    @model_validator(mode="after")
    def _sums(self) -> SplitParams:
        total = self.train + self.validation + self.test
        if abs(total - 1.0) > 1e-6:
            raise ValueError(f"train + validation + test must be 1.0, got {total:g}")
        return self


class ValidateParams(_Section):
    min_rows: Annotated[int, Field(ge=0)] = 1
    formats: list[str] = ["tikz", "mxgraph", "svg"]


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


class Params(_Section):
    project: ProjectParams = ProjectParams()
    runner: RunnerParams = RunnerParams()
    licences: LicenceParams = LicenceParams()
    crawl: CrawlParams = CrawlParams()
    extract: ExtractParams = ExtractParams()
    render: RenderParams = RenderParams()
    filter: FilterParams = Field(default_factory=FilterParams)
    split: SplitParams = SplitParams()
    validate_: ValidateParams = Field(ValidateParams(), alias="validate")
    publish: PublishParams = PublishParams()

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class ParamsError(ValueError):
    """A params.yaml problem, phrased for the person editing the file."""


def _describe(err: dict) -> str:
    loc = ".".join("validate" if p == "validate_" else str(p) for p in err["loc"])
    msg = err["msg"]
    if err["type"] == "extra_forbidden":
        msg = "unknown key (check the spelling; see params.yaml for the valid keys)"
    got = err.get("input")
    shown = "" if err["type"] in {"extra_forbidden", "missing"} or isinstance(got, dict) else (
        f" (got {got!r})"
    )
    return f"  {loc or '<root>'}: {msg}{shown}"


def parse_params(data: dict | None, origin: str = "params.yaml") -> Params:
    """Validate a params mapping; raise :class:`ParamsError` naming every bad key."""
    try:
        return Params.model_validate(data or {})
    except ValidationError as exc:
        lines = [_describe(e) for e in exc.errors()]
        raise ParamsError(f"{origin} is invalid:\n" + "\n".join(lines)) from None


def load_params(path: str | Path = "params.yaml") -> Params:
    """Read ``params.yaml`` (a missing file means all defaults)."""
    p = Path(path)
    if not p.exists():
        return Params()
    try:
        data = yaml.safe_load(p.read_text())
    except yaml.YAMLError as exc:
        raise ParamsError(f"{p} is not valid YAML: {exc}") from None
    if data is not None and not isinstance(data, dict):
        raise ParamsError(f"{p} must be a mapping of sections, got {type(data).__name__}")
    return parse_params(data, str(p))
