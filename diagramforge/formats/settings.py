"""Settings the format handlers and their engines read: the TikZ/SVG extraction limits and
archive caps (``extract.archive``, ``extract.tikz``, ``extract.svg``), the renderers' numbers
(``render.tikz``, ``render.mxgraph``, ``render.svg``, ``render.raster``), and the ``formats``
section that holds one sub-section per handler declaring its own model (checked by the format
registry after loading).  They live in ``formats`` because a handler is handed them and sits
below the extract and render stages; ``builders/extract/settings.py`` and
``builders/render/settings.py``
compose them into their sections.

What a handler is handed is named here too, as protocols of exactly what the formats read
(:class:`FormatSettings`: ``extract``, ``render``, ``graph``, ``runner``, ``formats``): the
loaded ``Params`` satisfies them, and nothing in ``formats`` names a stage's section model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal, Protocol

from pydantic import Field

from diagramforge.params import PluginSections, Section

if TYPE_CHECKING:
    from diagramforge.graphs.settings import GraphParams
    from diagramforge.params import RunnerParams


class ArchiveParams(Section):
    max_members: Annotated[int, Field(ge=1)] = 5000
    max_member_bytes: Annotated[int, Field(ge=1)] = 50_000_000
    max_total_bytes: Annotated[int, Field(ge=1)] = 300_000_000
    max_ratio: Annotated[float, Field(gt=1)] = 200.0


class TikzExtractParams(Section):
    environments: list[str] = ["tikzpicture", "tikzcd", "forest", "circuitikz", "neuralnetwork",
                               "quantikz"]
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


class SvgExtractParams(Section):
    max_bytes: Annotated[int, Field(ge=1)] = 2_000_000
    max_elements: Annotated[int, Field(ge=1)] = 20_000
    max_path_chars: Annotated[int, Field(ge=1)] = 200_000
    from_arxiv: bool = True
    """Also take .svg files found in arXiv sources."""


class TikzRenderParams(Section):
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


class RasterParams(Section):
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
    webp_method: Annotated[int, Field(ge=0, le=6)] = 1
    """libwebp's lossless method (0 fastest … 6 smallest) when ``codec`` is ``webp``."""
    webp_effort: Annotated[int, Field(ge=0, le=100)] = 60
    """libwebp's lossless effort (Pillow's ``quality`` in lossless mode). Method 1 at 60 is
    the measured point (issue 53): on draw.io pages 86 % of method 4 at 75's CPU for 1 %
    more bytes, on draw.io sketches 89 % for 1 %; below 60 the bytes jump (25: +40 %
    pages, +20 % sketches, for 67 % and 56 % of the CPU); method 0 is 3.2× the bytes."""
    png_level: Annotated[int | None, Field(ge=0, le=6)] = 0
    """oxipng's optimisation level when ``codec`` is ``png`` (lossless: the same pixels in
    fewer bytes); ``null`` keeps the tool's own PNG. Measured on draw.io pages: level 0
    saves 41 % at ≈ 0.1 CPU-s a page, 2 saves 49 % at ≈ 0.7."""
    encode_at: Literal["publish", "stage"] = "publish"
    """Where a render is encoded in ``codec`` (issue 53). ``publish``: the stages store the
    engine's own lossless PNG as it came (the browser's, resvg's; pixels an engine hands
    over as a fast PNG), and ``publish`` encodes each published image once — the pixels and
    the published bytes are those ``stage`` gives, and a page's encoding (≈ 0.1 CPU-s a
    draw.io page) leaves render, edit, augment and twin, which on 2 cores paid more for it
    than for drawing. ``stage``: every stage encodes what it keeps as it stores it
    (intermediate data ≈ 3.5× smaller, the stages slower)."""


class MxGraphRenderParams(Section):
    timeout_s: Annotated[float, Field(gt=0)] = 60.0
    """Per batch of diagrams sent to the draw.io page."""
    batch_size: Annotated[int, Field(ge=1)] = 64
    pages: Annotated[int, Field(ge=0)] = 0
    """Browser pages per worker process; 0: two per core, shared among the workers, 1 to 4."""


class SvgRenderParams(Section):
    engine: Literal["resvg", "cairosvg"] = "resvg"


class FormatsParams(PluginSections):
    """``formats``: one section per format handler that declares a params model, validated
    by that model — so a new format brings its own numbers without touching this module
    (the format registry checks them after loading, ``formats/registry.check_sections``).
    The older formats' numbers stay where they were (``extract.svg``, ``render.tikz``, ...)."""


class ExtractSettings(Protocol):
    """The parts of the ``extract`` section the formats read (TikZ from papers and
    ``.tex`` files, SVG files): ``builders/extract/settings.ExtractParams`` is one.
    Read-only members, so a section holding more (or a sub-class) satisfies them."""

    @property
    def archive(self) -> ArchiveParams: ...
    @property
    def tikz(self) -> TikzExtractParams: ...
    @property
    def svg(self) -> SvgExtractParams: ...


class RenderSettings(Protocol):
    """The parts of the ``render`` section the formats' engines read:
    ``builders/render/settings.RenderParams`` is one."""

    @property
    def tikz(self) -> TikzRenderParams: ...
    @property
    def mxgraph(self) -> MxGraphRenderParams: ...
    @property
    def svg(self) -> SvgRenderParams: ...
    @property
    def raster(self) -> RasterParams: ...


class FormatSettings(Protocol):
    """What a format handler (``registry.DiagramFormat``) is handed: the sections the
    formats read, and no other. The loaded ``Params`` satisfies it."""

    @property
    def extract(self) -> ExtractSettings: ...
    @property
    def render(self) -> RenderSettings: ...
    @property
    def graph(self) -> GraphParams: ...
    @property
    def runner(self) -> RunnerParams: ...
    @property
    def formats(self) -> FormatsParams: ...
