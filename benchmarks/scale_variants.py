"""A real TikZ collection at 1×, 10×, 30×: the same figures, each copy differing by an
invisible node, one e-print per figure (issue 42).

Why this corpus and not ``scale_corpus.py``'s: that one varies coordinates, texts and colours,
so its pictures compile, fail and rasterise differently at every N; here the *only* thing that
grows is the number of items, so a per-item cost that grows with N is the pipeline's, not the
corpus's. Every copy is a new e-print with new code (a new id, a new compile cache key) and the
same picture: the added node is empty, draws nothing and is an ``overlay`` (outside the
bounding box), so each copy renders to the same pixels.

The figures are :data:`FIGURES` documents of ``../shared/corpora/latex-examples/tikz`` (MIT),
a seeded sample of those whose pictures are all ``tikzpicture``/``circuitikz`` environments
(where the node can go); the e-prints are laid out as ``published_yield.py`` lays out real
corpora (``tools/realdata.py``: an OAI-PMH listing and one ``.tar.gz`` per document, read
by the crawl as a local arXiv).

Two orders (``order``): ``interleaved`` (the default) lists copy *k* of every figure before
copy *k + 1*, so every stretch of the listing — a shard, a render batch, the part of a run
finished when it is stopped — holds the 1× mix of figures; ``adjacent`` puts the copies of a
figure next to each other, as e-prints of one template would sit in a listing sorted by
name, so a render batch holds up to 16 copies of one figure. Adjacent is the unkind case for
a figure that fails (its batch's neighbours are its copies, which fail again in the rerun),
and a partial run of it measures the first figures only; arXiv's listing is neither, but its
neighbours are mostly different pictures, as in the interleaved order.
"""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from diagramforge.tools.realdata import LocalDoc, documents, write_arxiv_layout  # noqa: E402

LATEX = next((p / "shared" / "corpora" / "latex-examples" / "tikz" for p in REPO.parents
              if (p / "shared" / "corpora" / "latex-examples" / "tikz").is_dir()),
             Path("/work/shared/corpora/latex-examples/tikz"))
FIGURES = 112
"""The issue's collection: 112 standalone figures (117 pictures) at 1×."""
SEED = 42
ORDERS = ("interleaved", "adjacent")
LICENCE = "https://opensource.org/licenses/MIT"
_END = re.compile(r"\\end\s*\{(tikzpicture|circuitikz)\}")
_OTHER = re.compile(r"\\begin\s*\{(?:tikzcd|forest|neuralnetwork)\}|\\tikz(?![A-Za-z])")


def _root_tex(doc: LocalDoc) -> str:
    return doc.files[doc.title.rsplit("/", 1)[-1]].decode("utf-8", "replace")


def eligible(doc: LocalDoc) -> bool:
    """Every picture of the document is one the invisible node can be added to."""
    tex = _root_tex(doc)
    return bool(_END.search(tex)) and not _OTHER.search(tex)


def with_node(tex: str, copy: int) -> str:
    """``tex`` with an empty, undrawn overlay node named for the copy closing each picture."""
    return _END.sub(lambda m: f"\\node[overlay, inner sep=0pt] (dfcopy{copy}) {{}};\n"
                              f"{m.group(0)}", tex)


def figures(n: int = FIGURES, seed: int = SEED, folder: Path = LATEX) -> list[LocalDoc]:
    """The 1× collection: ``n`` eligible documents, a seeded sample, in name order."""
    docs = [d for d in documents(folder, "latex-examples") if eligible(d)]
    return sorted(random.Random(seed).sample(docs, min(n, len(docs))), key=lambda d: d.id)


def copies(docs: list[LocalDoc], times: int, order: str = "interleaved") -> list[LocalDoc]:
    """``times`` copies of each document, copy ``k`` with node ``dfcopy<k>``, in ``order``
    (:data:`ORDERS`): the ids sort in the order they are listed, so a crawl that sorts by id
    sees the same order as one that keeps the listing's."""
    if order not in ORDERS:
        raise ValueError(f"order {order!r}: one of {', '.join(ORDERS)}")

    def copy(d: LocalDoc, k: int) -> LocalDoc:
        name = d.title.rsplit("/", 1)[-1]
        files = {**d.files, name: with_node(_root_tex(d), k).encode()}
        ident = f"c{k:03d}-{d.id}" if order == "interleaved" else f"{d.id}-c{k:03d}"
        return LocalDoc(ident, d.title, d.group, files, d.authors)

    if order == "interleaved":
        return [copy(d, k) for k in range(times) for d in docs]
    return [copy(d, k) for d in docs for k in range(times)]


def generate(times: int, out: Path, n: int = FIGURES, order: str = "interleaved") -> dict:
    """Write the corpus at ``times``× under ``out``; what the params need to read it."""
    docs = copies(figures(n), times, order)
    layout = write_arxiv_layout(docs, out / "arxiv", LICENCE)
    return {"arxiv": str(layout), "figures": n, "times": times, "eprints": len(docs),
            "order": order}


def params(run: Path, corpus: dict, workers: int) -> dict:
    """The repository's ``params.yaml`` for a project in ``run`` reading the corpus: data,
    metrics and every cache inside ``run`` (cold on a fresh run); the licence filter off (the
    MIT licence is no arXiv licence URL, and licences are not what this measures); split
    keeps every near-duplicate (``near_dup.keep: all``, one split per cluster), so augment
    gets every copy as render did — the copies are near-duplicates by construction."""
    import yaml

    from diagramforge.tools.realdata import project_dict

    base = yaml.safe_load((REPO / "params.yaml").read_text())
    cache = run / "cache"
    return project_dict(run, arxiv=Path(corpus["arxiv"]), workers=workers, base=base,
                        filter={"licence": {"enabled": False}},
                        split={"near_dup": {"keep": "all"}},
                        synth={"cache_dir": str(cache / "content")},
                        augment={"llm": {"cache_dir": str(cache / "content")}})
