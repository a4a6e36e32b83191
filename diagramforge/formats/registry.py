"""The format protocol: what the pipeline needs from a diagram format, and the registry.

Extract and render never branch on a format name: they ask the registry for the handler of a
record's ``format`` (or of a file's name) and call the protocol. Adding a format = one folder
``formats/<name>/`` whose ``handler.py`` calls :func:`register` (found by package scan) and
declares its params model (``params_model``: validated as ``formats.<name>`` of
``params.yaml``) + that section in ``params.yaml`` + tests + samples.
"""

from __future__ import annotations

import importlib
import json
from abc import ABC, abstractmethod
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, ClassVar

from diagramforge import formats as pkg
from diagramforge.formats import capabilities, markdown
from diagramforge.formats.picture import Picture
from diagramforge.formats.settings import FormatSettings, FormatsParams
from diagramforge.params import FormatSection, validate_sections
from diagramforge.store.records import Format, Refusal, Rejection, Unit, empty_record, make_id

if TYPE_CHECKING:
    from diagramforge.graphs.model import Graph
    from diagramforge.stage import Outcome

Locator = Callable[[dict], str]
Finish = Callable[[dict], None]
"""What :meth:`DiagramFormat.draw` does with each record as soon as it is drawn."""


class DiagramFormat(ABC):
    """One format's pipeline-facing operations. One instance per worker (it may hold tools:
    a TeX compiler, a browser page), closed by :meth:`close`."""

    name: ClassVar[str]
    title: ClassVar[str] = ""
    """How people call the format ("Graphviz DOT"): the CLI's help lists formats by it."""
    has_code: ClassVar[bool] = True
    """Whether a diagram of this format is code (``False``: pixels, raster figures)."""
    suffixes: ClassVar[tuple[str, ...]] = ()
    """File names this format extracts from repository files (lower-case suffixes)."""
    not_suffixes: ClassVar[tuple[str, ...]] = ()
    fences: ClassVar[tuple[str, ...]] = ()
    """The languages of the Markdown fenced blocks that hold this format's diagrams (the
    info string's first word, lower-case: ``("mermaid",)``). Such a format claims a Markdown
    file holding one of its blocks, and takes its blocks from one that holds other formats'
    too (:func:`extract`)."""
    params_model: ClassVar[type[FormatSection] | None] = None
    """The format's own params section (``formats.<name>`` in ``params.yaml``), declared
    here by the handler and validated with the rest of the params."""

    def __init__(self, params: FormatSettings, locator: Locator):
        self.params = params
        self.locator = locator

    @property
    def section(self) -> FormatSection:
        """This format's parsed ``formats.<name>`` section (see :attr:`params_model`)."""
        return self.params.formats.section(self.name, self.params_model)

    # -- extract -------------------------------------------------------------------------
    @classmethod
    def claims(cls, path: str) -> bool:
        p = path.lower()
        if cls.fences and markdown.named(p):
            return True
        return bool(cls.suffixes) and p.endswith(cls.suffixes) \
            and not p.endswith(cls.not_suffixes)

    def claims_file(self, path: str, data: bytes) -> bool:
        """Whether this file, named ``path`` with these bytes, is one of this format's.

        By name alone unless a format knows better from the bytes: archives hold far more
        files under a generic suffix (every ``.xml`` of a code archive) than diagrams, so a
        format whose suffixes are shared overrides this with a cheap look at the content.
        A claimed file goes to :meth:`extract_file`; the others are ledgered by the caller.
        Markdown is claimed only with a block of :attr:`fences` in it: code archives hold
        millions of READMEs and almost none draws a diagram.
        """
        if self.fences and markdown.named(path):
            return markdown.holds(data, self.fences)
        return self.claims(path)

    def extract_file(self, data: bytes, path: str, base: dict, locator: str, unit: Unit
                     ) -> tuple[list[dict], list[Rejection]]:
        """A file's candidate records (a multi-page file gives several); a Markdown file's
        are :func:`extract`'s."""
        if self.fences and markdown.named(path):
            return extract([self], data, path, base, locator, unit)
        raise NotImplementedError(f"{self.name} has no file extractor")

    def fence_diagrams(self, block: str) -> list[str]:
        """The diagrams one of this format's fenced blocks holds, each as a record's code:
        the block itself, none when it is blank."""
        return [block + "\n"] if block.strip() else []

    def vet(self, code: str) -> Refusal | None:
        """Why a diagram's code is refused before any engine sees it (its limits, markup
        that reaches outside the text), or ``None``."""
        return None

    # -- render --------------------------------------------------------------------------
    def batch_key(self, record: dict) -> str:
        """Records with the same key may be rendered in one call."""
        return "all"

    def batch_size(self) -> int:
        return 16

    batch_amortised: ClassVar[bool] = False
    """Whether drawing several diagrams in one call costs about what one costs (TikZ: one
    pdflatex run for the batch), so a caller draws a candidate it may not need with the
    others rather than in a second call; otherwise it draws only what it will look at."""

    def unit_timeout(self) -> float | None:
        """A unit's deadline when the format knows better than ``item_timeout_s × rows``."""
        return None

    @abstractmethod
    def render(self, rows: list[dict]) -> Outcome:
        """Render rows (one batch): records with ``image`` (the engine's PNG)… or
        rejections, one per row."""

    def draw(self, rows: list[dict], finish: Finish | None = None) -> Outcome:
        """:meth:`render`, each record's ``image`` a :class:`~.picture.Picture` — the
        pixels in memory, nothing encoded — handed to ``finish`` as soon as it is made.
        A stage that verifies candidates compares the pictures and encodes only those it
        keeps; one that keeps every render encodes each in ``finish``
        (``encoding.render_stored``), so a batch's pixels are never all in memory. Records
        come back in the rows' order. The default wraps what :meth:`render` wrote; an
        engine that hands over its pixels (draw.io's canvas, PyMuPDF's pixmap) overrides
        it, and no PNG is made on the way."""
        out = self.render(rows)
        for rec in out.records:
            if isinstance(rec.get("image"), bytes) and rec["image"]:
                rec["image"] = Picture.of_bytes(rec["image"])
                if finish is not None:
                    finish(rec)
        return out

    def environment(self) -> dict:
        """Versions of the outside tools this format's output depends on."""
        return {}

    def prepare(self) -> None:  # noqa: B027 - optional hook
        """Once in the driver before workers start (e.g. build a shared TeX format)."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release per-worker tools."""

    # -- structure and edits ---------------------------------------------------------------
    graph_unit_pt: ClassVar[float] = 0.75
    """The unit of the structure graph's boxes, in pt: a CSS px (draw.io, Mermaid, SVG) by
    default; 1 for readers whose boxes are in pt (the TikZ page, Graphviz's layout).  With
    ``render.raster.dpi`` it says how large a box is on the render (the gallery's overlay)."""
    graphs_in_render: ClassVar[bool] = False
    """``True`` when :meth:`render` fills the graph columns itself (TikZ: the geometry comes
    from the compiled PDF, which only exists inside ``render``); otherwise the render stage
    fills them from :meth:`to_graph` for each record ``render`` keeps."""

    def to_graph(self, record: dict, rendered: bytes | None = None) -> Graph | None:
        """The record's structure graph (``diagramforge.graphs``); ``rendered`` is what the
        format's tool produced when geometry needs it (TikZ: the PDF).  ``None``: the format
        cannot say.  May raise: the caller nulls the graph and counts the reason."""
        return None

    def export_svg(self, rows: list[dict]) -> list[str | Refusal]:
        """Each rendered diagram as SVG drawn by the format's own engine (sanitised), or why
        not: the *SVG twin* of a diagram (``diagramforge.builders.twin``).  Rows are records that
        rendered; one answer per row, in order."""
        raise NotImplementedError(f"{self.name} has no SVG export")

    @classmethod
    def has_capability(cls, name: str) -> bool:
        """Whether the format has the ``name`` capability, without importing it (checking
        params names twin targets before any writer loads): :func:`capabilities.has`."""
        return capabilities.has(cls.__module__.split(".")[-2], name)

    @classmethod
    def capability(cls, name: str) -> ModuleType | None:
        """The format's ``name`` capability — the module ``formats/<format>/<name>.py`` (its
        atomic edits ``edit``, its twin writer ``twin``, its type evidence ``evidence``) — or
        ``None`` when the format has none: a capability is declared absent by its module
        being absent, and a stage loops over the formats that have it instead of naming
        them. Imported when asked, so extract and render (which never edit) load no edit
        code. A module that is there but fails to import raises."""
        return capabilities.load(cls.__module__.rpartition(".")[0], name)

    def apply_edit(self, code: str, edit: dict) -> str:
        """One atomic edit, by the format's ``edit`` capability (``formats/<format>/edit.py``,
        the contract in :mod:`diagramforge.formats.edits`)."""
        module = self.capability("edit")
        if module is None:
            raise NotImplementedError(f"{self.name} does not support edits")
        return module.apply_edit(code, edit)


REGISTRY: dict[str, type[DiagramFormat]] = {}
_scanned = False


def register(cls: type[DiagramFormat]) -> type[DiagramFormat]:
    REGISTRY[cls.name] = cls
    return cls


def handlers() -> dict[str, type[DiagramFormat]]:
    """Every registered format (handler modules are found by scanning the package)."""
    global _scanned
    if not _scanned:
        for module, _path in handler_modules():
            importlib.import_module(module)
        _scanned = True
    return REGISTRY


def handler_modules() -> list[tuple[str, Path]]:
    """Every format's handler module and its source file: ``formats/<name>/handler.py`` of
    each format folder (a subpackage of ``diagramforge.formats`` with a ``handler``
    module), sorted by name. A format is found by being there: nothing lists them."""
    return [(f"{pkg.__name__}.{name}.handler", capabilities.ROOT / name / "handler.py")
            for name in capabilities.folders()]


def check_sections(written: FormatsParams, twin_targets: list[str] = ()
                   ) -> tuple[FormatsParams, list[str]]:
    """The ``formats`` section with each handler's sub-section parsed by its
    :attr:`~DiagramFormat.params_model`, and every problem found (keys no format declares,
    bad values, ``twin.targets`` naming a format with no twin capability: unregistered, or
    without a ``twin.py``), each with its full key: the registry's half of loading params
    (``diagramforge.config.check``)."""
    registered = handlers()
    models = {n: h.params_model for n, h in registered.items() if h.params_model}
    sections = written.written()
    problems = []
    stray = sorted(set(sections) - set(models))
    if stray:
        problems.append(f"formats: unknown key(s) {[f'formats.{n}' for n in stray]} (no "
                        f"format declares them); formats with params: {sorted(models)}")
    parsed, bad = validate_sections(sections, models, "formats")
    sections.update(parsed)
    takes = {str(n) for n, h in registered.items() if h.has_capability("twin")}
    unknown = sorted(set(twin_targets) - takes)
    if unknown:
        bad.append(f"twin.targets: format(s) {unknown} take no twins; formats with a twin "
                   f"writer (formats/<name>/twin.py): {sorted(takes)}")
    return FormatsParams(**sections), problems + bad


def with_capability(name: str) -> dict[str, ModuleType]:
    """Format name → its ``name`` capability module (:meth:`DiagramFormat.capability`), for
    every registered format that has one, by name: what a stage loops over instead of
    naming formats."""
    out = {}
    for fmt, cls in sorted(handlers().items()):
        module = cls.capability(name)
        if module is not None:
            out[str(fmt)] = module
    return out


def names() -> list[str]:
    """Every registered format's name, sorted."""
    return sorted(map(str, handlers()))


def format_titles(code_only: bool = False) -> dict[str, str]:
    """Format name → :attr:`~DiagramFormat.title` of every handler module, read from their
    source without importing them (the CLI's help must not load TeX, browser or OCR code):
    the same modules :func:`handlers` imports, the same ``@register`` classes.
    ``code_only`` leaves out formats whose diagrams are not code (raster figures)."""
    import ast

    def value(node: ast.expr) -> object:
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id == "Format":
            return Format[node.attr].value
        return ast.literal_eval(node)

    out: dict[str, str] = {}
    for _module, source in handler_modules():
        tree = ast.parse(source.read_text("utf-8"))
        for cls in tree.body:
            if not isinstance(cls, ast.ClassDef) or not any(
                    isinstance(d, ast.Name) and d.id == "register"
                    for d in cls.decorator_list):
                continue
            attrs = {t.id: value(n.value) for n in cls.body if isinstance(n, ast.Assign)
                     for t in n.targets if isinstance(t, ast.Name)
                     and t.id in ("name", "title", "has_code")}
            if code_only and attrs.get("has_code") is False:
                continue
            name = str(attrs["name"])
            out[name] = str(attrs.get("title") or name)
    return out


def instantiate(params: FormatSettings, locator: Locator) -> dict[str, DiagramFormat]:
    return {name: cls(params, locator) for name, cls in handlers().items()}


class ClaimReason:
    """Why a file no format takes is ledgered (crawl of code archives, extract)."""

    NO_HANDLER = "no_handler"
    """No registered format claims a file of this name."""
    NOT_A_DIAGRAM = "not_a_diagram"
    """A format claims the name (``.xml``, ``.tex``) but the content is not one of its."""


def named_by(formats: dict[str, DiagramFormat], path: str) -> list[DiagramFormat]:
    """The formats that claim a file of this name (before anyone reads its bytes)."""
    return [h for h in formats.values() if h.claims(path)]


def claim(formats: dict[str, DiagramFormat], path: str, data: bytes
          ) -> tuple[list[DiagramFormat], str]:
    """The formats that take this file (for :func:`extract`), or ``([], reason)`` —
    ``no_handler`` when no format claims the name, ``not_a_diagram`` when those that do
    refuse the content. One format takes a file, the first that claims it; a Markdown file
    is a container, taken by every format whose blocks it holds.

    Every registered handler is asked, so a format added later (Graphviz, Mermaid) is
    picked up without touching any source kind."""
    named = named_by(formats, path)
    if not named:
        return [], ClaimReason.NO_HANDLER
    takers = [h for h in named if h.claims_file(path, data)]
    if not takers:
        return [], ClaimReason.NOT_A_DIAGRAM
    return (takers if markdown.named(path) else takers[:1]), ""


class MarkdownReason:
    NOT_TEXT = "markdown_not_text"
    NO_BLOCKS = "markdown_no_blocks"
    """Its diagram blocks are all blank."""


def extract(takers: list[DiagramFormat], data: bytes, path: str, base: dict, locator: str,
            unit: Unit) -> tuple[list[dict], list[Rejection]]:
    """The candidate records of a file the ``takers`` took (:func:`claim`). A Markdown
    file's diagrams are numbered in the document's order over every taker's blocks —
    ``#block<k>`` of the locator and ``source_id`` — so a file holding one format's blocks
    numbers them as that format alone did, and one holding several formats' gives each
    diagram a place of its own; each diagram is vetted and made a record by its format."""
    if not markdown.named(path):
        return takers[0].extract_file(data, path, base, locator, unit)
    text = markdown.decode(data)
    if text is None:
        return [], [Rejection(locator, MarkdownReason.NOT_TEXT, path, unit=unit)]
    by_language = {lang: h for h in reversed(takers) for lang in h.fences}
    diagrams = [(by_language[f.language], code) for f in markdown.fences(text)
                if f.language in by_language
                for code in by_language[f.language].fence_diagrams(f.code)]
    if not diagrams:
        return [], [Rejection(locator, MarkdownReason.NO_BLOCKS, path, unit=unit)]
    sub = Unit.CANDIDATE if len(diagrams) > 1 else unit
    out, rejections = [], []
    for k, (h, code) in enumerate(diagrams):
        refused = h.vet(code)
        if refused is not None:
            rejections.append(Rejection(f"{locator}#block{k + 1}", refused.reason,
                                        refused.detail, unit=sub))
            continue
        out.append(empty_record(**{
            **base, "id": make_id(h.name, code), "format": h.name, "code": code,
            "source_id": f"{base['source_id']}#block{k + 1}",
            "meta": json.dumps({"file": path, "block": k})}))
    if len(diagrams) > 1 and not out:  # the file as a whole yields nothing: one input
        rejections.append(Rejection(locator, "no_diagrams", f"{len(diagrams)} blocks, none "
                                    "usable", unit=unit))
    return out, rejections


class UsesFormats:
    """For stages that dispatch to format handlers (extract, render): the handlers are made
    once per worker and never travel to workers, since they may hold tools (a TeX
    compiler, a browser page)."""

    params: FormatSettings
    locator: Locator
    _formats: dict[str, DiagramFormat] | None = None

    def formats(self) -> dict[str, DiagramFormat]:
        if self._formats is None:
            self._formats = instantiate(self.params, self.locator)
        return self._formats

    def __getstate__(self) -> dict:
        return {**self.__dict__, "_formats": None}


class RendersFormats(UsesFormats):
    """For stages that render through the handlers (render, edit, augment): the handlers'
    tool versions fingerprint the output, their tools start once before the workers
    (``prepare``) and close with them. List it before ``Stage`` so these win."""

    def environment(self) -> dict:
        return {name: h.environment() for name, h in sorted(self.formats().items())}

    def prepare(self) -> None:
        for h in self.formats().values():
            h.prepare()

    def teardown(self) -> None:
        for h in self.formats().values():
            h.close()

    def handler_for(self, row: dict, formats: object, reason: str, what: str,
                    out: Outcome) -> DiagramFormat | None:
        """The handler that can take this diagram (its format among ``formats``, rendered),
        or None with the diagram ledgered under ``reason``: stages that derive new images
        from a rendered diagram (edit, augment) start this way."""
        fmt = row["format"]
        handler = self.formats().get(fmt)
        if fmt in formats and handler is not None and row.get("image"):
            return handler
        out.rejections.append(Rejection(self.locator(row), reason,
                                        f"no {what} for {fmt!r} (or no image)", id=row["id"]))
        return None
