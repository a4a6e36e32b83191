"""A benchmark figure set: the embedded corpus's TikZ pictures, varied into many papers.

Each variant adds a visible caption node, so every document is distinct (no cache hit can
flatter the toolkit) while the compile work stays that of real paper figures.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from diagramforge.builders.extract.settings import ExtractParams  # noqa: E402
from diagramforge.formats.tikz.extract import extract_paper  # noqa: E402
from diagramforge.formats.tikz.pictures import Standalone  # noqa: E402

KNOWN_BAD = ("2401.00108", "2401.00109")  # the corpus's deliberately broken papers


def sample_pictures(corpus: Path = REPO / "samples" / "arxiv") -> list[list[Standalone]]:
    """The corpus's compiling ``tikzpicture`` figures, grouped by paper."""
    out = []
    for path in sorted((corpus / "src").iterdir()):
        if path.name.startswith(KNOWN_BAD):
            continue
        pid, _, ver = path.name.split(".tar")[0].split(".gz")[0].rpartition("v")
        ex = extract_paper(path.read_bytes(), {"id": pid, "version": ver, "authors": "[]"},
                           ExtractParams())
        figs = []
        for r in ex.records:
            if r["format"] != "tikz":
                continue
            meta = json.loads(r["meta"])
            if meta["env"] == "tikzpicture":
                figs.append(Standalone(meta["blocks"], meta["body"]))
        if figs:
            out.append(figs)
    return out


def figure_set(papers: int = 12, per_paper: int = 8) -> list[list[Standalone]]:
    """``papers`` groups of ``per_paper`` distinct figures; each group is drawn from one
    source paper, so it shares that paper's preamble as a real paper's figures do."""
    base = sample_pictures()
    groups = []
    k = 0
    for p in range(papers):
        source = base[p % len(base)]
        group = []
        for j in range(per_paper):
            src = source[j % len(source)]
            body = src.body.replace(
                r"\end{tikzpicture}",
                f"\\node[font=\\tiny, below] at (current bounding box.south) "
                f"{{paper {p} figure {k}}};\n\\end{{tikzpicture}}", 1)
            group.append(Standalone(list(src.blocks), body))
            k += 1
        groups.append(group)
    return groups
