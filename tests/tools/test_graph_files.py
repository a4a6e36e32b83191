"""``diagramforge score`` tells and reads a file through the formats' ``file_graph``
capabilities (issue 54): the detection must be the one ``tools/graph_files.py`` had when it
named every format itself, and the clues' ranks one order across formats."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from diagramforge.formats import capabilities
from diagramforge.formats.svg.graph import svg_graph
from diagramforge.tools.graph_files import JSON_CLUES, clues, detect_format, load_graph

TESTS = Path(__file__).resolve().parents[1]
SAMPLES = TESTS.parent / "samples"

# -- the detection as it was (main c769df6), kept verbatim as the reference ---------------

_DOT_HEAD = re.compile(rb"^(?:\s|//[^\n]*\n|/\*.*?\*/|#[^\n]*\n)*(?:strict\s+)?(?:di)?graph\b",
                       re.I | re.S)
_MERMAID_HEAD = re.compile(
    rb"^(?:\s|%%[^\n]*\n)*(?:---\n.*?\n---\n\s*)?(?:flowchart|graph\s+(?:TB|TD|BT|RL|LR)\b|"
    rb"sequenceDiagram|classDiagram|stateDiagram|erDiagram|journey|gantt|pie|mindmap|"
    rb"timeline|gitGraph|quadrantChart|requirementDiagram|C4Context|block-beta)", re.S)


def _before(data: bytes, name: str = "") -> str:
    lower = name.lower()
    head = data[:4096].lstrip()
    if lower.endswith(".json") or head.startswith(b"{"):
        return "json"
    if data[:5] == b"%PDF-" or lower.endswith(".pdf"):
        return "pdf"
    if lower.endswith((".tex", ".tikz")):
        return "tikz"
    if lower.endswith((".dot", ".gv")):
        return "dot"
    if lower.endswith((".mmd", ".mermaid")):
        return "mermaid"
    if lower.endswith((".drawio", ".drawio.svg", ".drawio.png", ".drawio.xml")) \
            or data[:8] == b"\x89PNG\r\n\x1a\n":
        return "mxgraph"
    if b"<mxfile" in data or b"<mxGraphModel" in data or b"&lt;mxfile" in data \
            or b"&lt;mxGraphModel" in data:
        return "mxgraph"
    if lower.endswith(".svg") or b"<svg" in head:
        return "svg"
    if re.search(rb"\\(?:begin\{tikzpicture\}|tikz\b|node\b|draw\b)", data):
        return "tikz"
    if _MERMAID_HEAD.match(data[:4096]):
        return "mermaid"
    if _DOT_HEAD.match(data[:4096]):
        return "dot"
    if lower.endswith(".xml"):
        return "mxgraph"
    raise ValueError(f"cannot tell the diagram format of {name or 'the input'}")


# -- inputs: real files under every name that could mislead -------------------------------

NAMES = ["", "x.svg", "x.tex", "x.tikz", "x.xml", "x.json", "x.dot", "x.gv", "x.mmd",
         "x.mermaid", "x.drawio", "x.drawio.svg", "x.drawio.png", "x.drawio.xml", "x.pdf",
         "x.txt", "X.SVG", "Fig.TEX"]
"""Names tried on every file besides its own: each format's own, the case-insensitive ones,
and names that say nothing."""

CRAFTED = {
    "dot_graph_lr": b"graph LR { a -- b }",  # Mermaid's head passes too: Mermaid's
    "brace_after_space": b"  \n{\"nodes\": []}",
    "pdf_magic": b"%PDF-1.7\n...",
    "svg_with_tikz_text": b"<svg><text>\\draw (0,0) -- (1,1);</text></svg>",
    "tex_quoting_drawio": b"\\begin{verbatim}<mxfile host='x'/>\\end{verbatim}",
    "escaped_model": b"<svg content='&lt;mxGraphModel&gt;'/>",
    "png_magic": b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR",
    "mermaid_front_matter": b"---\ntitle: x\n---\nsequenceDiagram\n  A->>B: hi\n",
    "dot_comments": b"/* a */\n# b\n// c\nstrict digraph { a -> b }",
    "late_svg": b" " * 4100 + b"<svg/>",
    "prose": b"A graph of the pipeline, drawn by hand.",
    "empty": b"",
}


@pytest.fixture(scope="module")
def sample_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """The test fixtures' files and the sample repositories' (cloned from their bundles),
    plus the crafted edge cases."""
    files = {str(p.relative_to(TESTS)): p.read_bytes()
             for p in sorted((TESTS / "fixtures").rglob("*")) if p.is_file()}
    root = tmp_path_factory.mktemp("repos")
    for bundle in sorted((SAMPLES / "repos").glob("*.bundle")):
        dest = root / bundle.stem
        subprocess.run(["git", "clone", "-q", str(bundle), str(dest)], check=True)
        files |= {f"{bundle.stem}/{p.relative_to(dest)}": p.read_bytes()
                  for p in sorted(dest.rglob("*")) if p.is_file() and ".git" not in p.parts}
    return files | {f"crafted/{k}": v for k, v in CRAFTED.items()}


def _told(tell, data: bytes, name: str) -> str:  # noqa: ANN001
    try:
        return tell(data, name)
    except ValueError as exc:
        return f"error: {exc}"


ADDED = {"plantuml"}
"""Formats added after the old detection was written: a file it could not tell — or only
guessed, as draw.io, from an ``.xml`` name — may now be theirs; nothing else may change."""


def test_detection_is_the_one_graph_files_had(sample_files: dict[str, bytes]) -> None:
    kinds = set()
    differ = []
    for key, data in sample_files.items():
        for name in [key.rsplit("/", 1)[-1], *NAMES]:
            old, new = _told(_before, data, name), _told(detect_format, data, name)
            kinds.add(old)
            guessed = old.startswith("error") or old == "mxgraph" and name.lower().endswith(".xml")
            if old != new and not (guessed and new in ADDED):
                differ.append((key, name, old, new))
    assert not differ, differ[:10]
    # the set is varied enough to mean something: every kind, and refusals, were seen
    assert {"json", "pdf", "tikz", "dot", "mermaid", "mxgraph", "svg"} <= kinds
    assert any(k.startswith("error") for k in kinds)
    assert sum(1 for k in sample_files if "/" in k and k.endswith((".dot", ".gv"))) >= 3


def test_ranks_are_one_order_across_formats() -> None:
    owners: dict[int, str] = {c.rank: "json" for c in JSON_CLUES}
    modules = capabilities.every("file_graph")
    assert {"tikz", "dot", "mermaid", "mxgraph", "svg"} <= set(modules)
    for fmt, module in modules.items():
        assert callable(module.read)
        for clue in module.CLUES:
            assert clue.why.strip(), f"{fmt}: a clue with no reason for its rank"
            assert owners.setdefault(clue.rank, fmt) == fmt, \
                f"rank {clue.rank} is both {owners[clue.rank]}'s and {fmt}'s"
    ranks = [c.rank for c, _kind, _module in clues()]
    assert ranks == sorted(ranks)


def test_an_svg_that_only_mentions_drawio_is_read_as_svg(tmp_path: Path) -> None:
    """draw.io's marker claims the file first; its reader finds no draw.io file in it and
    declines, and the next matching clue (SVG's) reads it."""
    src = (TESTS / "fixtures" / "graphs" / "block.svg").read_bytes()
    at = src.index(b">", src.index(b"<svg")) + 1
    data = src[:at] + b"<desc>made for &lt;mxfile&gt; users</desc>" + src[at:]
    (tmp_path / "block.svg").write_bytes(data)
    assert detect_format(data, "block.svg") == "mxgraph"
    graph = load_graph(tmp_path / "block.svg")
    assert graph.nodes and graph.to_json() == svg_graph(data).to_json()


def test_no_clue_holds() -> None:
    with pytest.raises(ValueError, match="cannot tell the diagram format of notes.txt"):
        detect_format(b"hello", "notes.txt")
