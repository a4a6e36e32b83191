"""A diagram file of any format told apart and read as a structure graph: the contract of a
format's ``file_graph`` capability (``formats/<name>/file_graph.py``, found by
:func:`diagramforge.formats.capabilities.every`), which ``diagramforge score``
(:mod:`diagramforge.tools.graph_files`) loops over instead of naming formats.

Such a module declares, with these signatures:

* ``CLUES: tuple[Clue, ...]`` — how it recognises a file: by its name, by its content, each
  with a :attr:`Clue.rank`;
* ``read(data, kind, reading) -> Graph | None`` — the file's graph, read as the pipeline
  reads that format; ``kind`` is the matching clue's :attr:`Clue.kind`. ``None`` says "not
  mine after all" (an SVG that only mentions draw.io): the next matching clue of another
  format reads it.

**Ranks.** A file is the format of the lowest-ranked clue that matches it, whichever format
declares it, so the ranks of all formats are one order (tests hold them distinct across
formats): a name or magic number that only one language uses comes before a marker that
could be quoted inside another language's file, and the narrowest content test before a
broader one that would also pass it. Ranks are spaced by ten so a new format's clue fits
between two; each clue says in :attr:`Clue.why` why it sits where it does.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from diagramforge.graphs.model import Graph
from diagramforge.graphs.settings import GraphParams
from diagramforge.store.records import Unit

if TYPE_CHECKING:
    from diagramforge.formats.settings import FormatSettings

Test = Callable[[bytes, str], bool]
"""``(data, name)`` → whether the clue holds; ``name`` is the file's name, lower-cased."""


@dataclass(frozen=True)
class Clue:
    """One way a format recognises a file."""

    rank: int
    """Where the clue is tried among every format's clues: lower first (the surer clue)."""
    test: Test
    why: str
    """Why the clue has its rank: which other formats' files it must come before or after."""
    kind: str = ""
    """What the file is when it is not the format's own source (``"pdf"``: a compiled page);
    empty for the source. :func:`~diagramforge.tools.graph_files.detect_format` reports it
    (the format's name when empty) and ``read`` is handed it."""


def named(*suffixes: str) -> Test:
    """A test on the file's name: it ends with one of ``suffixes`` (lower case)."""
    return lambda data, name: name.endswith(suffixes)


def opens_with(pattern: re.Pattern[bytes]) -> Test:
    """A test on the file's content: ``pattern`` matches at the start of its first 4 KiB
    (the pattern says what may come before — white space, comments)."""
    return lambda data, name: pattern.match(data[:4096]) is not None


def head(data: bytes) -> bytes:
    """The first 4 KiB without leading white space: where content clues look."""
    return data[:4096].lstrip()


@dataclass(frozen=True)
class FileReading:
    """What a ``read`` gets besides the bytes."""

    name: str
    """The file's name as given (extractors name their records and errors by it)."""
    graph: GraphParams
    """The ``graph`` section: how geometry and source become a graph."""
    params: Callable[[], FormatSettings]
    """What a handler is handed (the loaded ``Params``, or its defaults when the caller had
    none), made when called: only an engine that reads its ``formats.<name>`` section asks
    (the config layer is above this one, so the caller makes it)."""
    render: bool = False
    """Also render the source with the format's engine where its graph reads the drawn page
    (TikZ: the compiled page, merged with the source's graph); formats whose graph always
    comes from their engine, or never does, ignore it."""


def engine_graph(handler: type, data: bytes, reading: FileReading) -> Graph:
    """A file's graph as the pipeline builds it for a format whose graph comes from its
    engine (Graphviz's layout, Mermaid's parse): the handler's extractor (its safety checks
    and limits), then its ``to_graph``. Raises :class:`ValueError` with the extractor's
    reason when nothing is extracted, or when the engine gives no graph."""
    name, fmt = reading.name, str(handler.name)
    h = handler(reading.params(), lambda r: name)
    try:
        base = {"source": "file", "source_id": name, "group": name, "title": name}
        recs, rejs = h.extract_file(data, name or f"input.{fmt}", base, name, Unit.INPUT)
        if not recs:
            why = f"{rejs[0].reason}: {rejs[0].detail}" if rejs else "nothing extracted"
            raise ValueError(f"{name}: {why}")
        g = h.to_graph(recs[0])
    finally:
        h.close()
    if g is None:
        raise ValueError(f"{name}: {fmt} gives no structure graph for this diagram")
    return g
