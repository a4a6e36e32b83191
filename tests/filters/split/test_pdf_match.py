"""A figure cut from a PDF joins the cluster of the code it was compiled from: matched within
its paper by caption, shape and labels; never two code records through one cut-out."""

from __future__ import annotations

import gzip
import io
import json
import os
import shutil
import subprocess
import tarfile
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pytest

from diagramforge.filters.split.pdf_match import label_overlap, labels, match, norm_caption, pairs
from diagramforge.filters.split.settings import PdfMatchParams, SplitParams
from diagramforge.filters.split.stage import split_table
from diagramforge.stage import StageLog
from diagramforge.store.records import empty_record

CFG = PdfMatchParams()


def _graph(*texts: str) -> str:
    return json.dumps({"nodes": [{"id": str(i), "text": t} for i, t in enumerate(texts)],
                       "edges": []})


def code(i: str, paper: str, caption: str | None, texts: tuple[str, ...] = (),
         size: tuple[int, int] = (300, 200)) -> dict:
    return empty_record(id=i, format="tikz", code=f"\\node {{{i}}};", source="arxiv",
                        source_id=f"{paper}/main.tex#{i}", group=f"arxiv:{paper}",
                        caption=caption, graph=_graph(*texts), width=size[0], height=size[1])


def cut(i: str, paper: str, caption: str | None, texts: tuple[str, ...] = (),
        size: tuple[int, int] = (225, 150), page: int = 0) -> dict:
    return empty_record(id=i, format="svg", code=f"<svg id='{i}'/>", source="pdf",
                        source_id=f"arxiv:{paper}v1.pdf#p{page + 1}:Figure 1",
                        group=f"arxiv:{paper}", caption=caption, label="Figure 1",
                        graph=_graph(*texts), width=size[0], height=size[1],
                        meta=json.dumps({"page": page}))


def test_captions_compare_as_printed():
    assert norm_caption(r"The \emph{ﬁrst} flow: $x \to y$.") == "the first flow x y"
    assert norm_caption("The first flow: x → y.") == "the first flow x y"


def test_labels_ignore_the_text_layers_spacing():
    a, b = labels(_graph("Expert 1", "Expert 2", "gate")), labels(
        _graph("Expert1", "Expert2", "gate", "p", "1 −"))
    assert label_overlap(a, b) == 1.0
    assert label_overlap(a, Counter()) is None


@pytest.mark.parametrize(("other", "expected"), [
    (cut("c", "p", "Training flow with a loop.", ("Load", "Train")), True),
    (cut("c", "p", "Training flow with a loop", ("Load", "Train"), size=(600, 200)), False),
    (cut("c", "p", "Inference on the edge device.", ("Load", "Train")), False),
    (cut("c", "p", "Training flow with a loop.", ("Fetch", "Store")), False),
    (cut("c", "p", "Training flow with a loop.", ()), True),  # nothing to compare: caption
    (cut("c", "p", None, ("Load", "Train")), False),  # two labels alone are too few
])
def test_match_rules(other, expected):
    src = code("a", "p", "Training flow with a loop.", ("Load", "Train"))
    assert (match(other, src, CFG) is not None) == expected


def test_a_plots_ticks_read_differently_from_the_pdf_still_match():
    """The samples' log-scale plot: superscript ticks come out of the PDF's text layer in
    another order; with the same caption, labels that merely overlap do not contradict."""
    src = code("a", "p", "Loss against compute on a log scale.",
               ("10^0", "10^1 10^2 compute", "10^3", "2", "2.5", "3", "validation loss"),
               size=(395, 268))
    got = match(cut("c", "p", "Loss against compute on a log scale.",
                    ("010", "110", "2", "2", "210 compute", "3", "310", "5", "validation loss"),
                    size=(295, 200)), src, CFG)
    assert got is not None and 0.3 <= got.labels < 0.5


def test_labels_alone_link_an_uncaptioned_picture():
    src = code("a", "p", None, ("Input", "Encoder", "Decoder", "Output"))
    got = match(cut("c", "p", None, ("Input", "Encoder", "Decoder", "Output")), src, CFG)
    assert got is not None and got.caption is None and got.labels == 1.0


def test_one_code_record_per_cut_out_and_only_within_its_paper():
    rows = [code("left", "p", "Two views.", ("A", "B")),
            code("right", "p", "Two views.", ("A", "B", "C")),
            cut("both", "p", "Two views.", ("A", "B", "C")),
            cut("elsewhere", "q", "Two views.", ("A", "B", "C"))]
    got, why = pairs(rows, CFG)
    assert got.tolist() == [[1, 2]]  # the better match only; q's cut-out has no code in q
    assert "p1 Figure 1" in why[(1, 2)] and "caption 1.00" in why[(1, 2)]


def _split(rows: list[dict], **near: object) -> tuple[list[dict], StageLog]:
    cfg = SplitParams(near_dup={"image": {"max_distance": 0}, **near})
    log = StageLog("split", False)
    log.stats.n_in = len(rows)
    out, _ = split_table(pa.Table.from_pylist(rows), log, cfg)
    return out, log


def test_split_drops_the_cut_out_into_its_codes_cluster():
    rows = [code("tree", "p", "A binary tree.", ("root", "left", "right")),
            code("flow", "p", "Training flow.", ("Load", "Train")),
            cut("tree-pdf", "p", "A binary tree.", ("root", "left", "right"), size=(230, 150)),
            cut("flow-pdf", "p", "Training flow.", ("Load", "Train"), size=(231, 150))]
    out, log = _split(rows)
    assert {r["id"] for r in out} == {"tree", "flow"}
    dropped = {r["id"]: r["detail"] for r in log.rejections}
    assert set(dropped) == {"tree-pdf", "flow-pdf"}
    assert dropped["tree-pdf"].startswith("kept tree ") and "same figure" in dropped["tree-pdf"]
    assert log.stats.extra["near_dup_pdf_pairs"] == 2
    # keep: all keeps both, in one cluster and so in one split
    kept, _ = _split(rows, keep="all")
    by = {r["id"]: r for r in kept}
    assert by["tree-pdf"]["dup_cluster"] == by["tree"]["dup_cluster"] == "tree"
    assert by["tree-pdf"]["split"] == by["tree"]["split"]
    assert by["flow-pdf"]["dup_cluster"] == "flow"
    # switched off, the cut-outs stay on their own
    alone, _ = _split(rows, pdf={"enabled": False})
    assert len(alone) == 4


def test_a_cut_out_of_a_paper_whose_code_was_kept_for_another_paper_still_joins():
    """The same TikZ in papers p and q is kept once (exact duplicate, p's); q's PDF figure
    still finds it."""
    rows = [code("same", "p", "Shared pipeline.", ("In", "Out")),
            {**code("same", "q", "Shared pipeline.", ("In", "Out"))},
            cut("q-pdf", "q", "Shared pipeline.", ("In", "Out"))]
    out, log = _split(rows)
    assert [r["id"] for r in out] == ["same"]
    assert {r["reason"] for r in log.rejections} == {"duplicate", "near_duplicate"}


# -- a real paper: LaTeX with several TikZ figures, compiled here, cut out by the toolkit ----

PAPER = r"""\documentclass{article}
\usepackage{tikz}
\usetikzlibrary{positioning,arrows.meta}
\begin{document}
\section{Method}
Our pipeline (Figure~\ref{fig:flow}) loads, cleans and trains. Figure~\ref{fig:tree} shows
the decision tree, Figure~\ref{fig:net} the network and Figure~\ref{fig:store} the storage
path; Figure~\ref{fig:two} compares two views.
\begin{figure}[h]
\centering
\begin{tikzpicture}[box/.style={draw, rounded corners, minimum width=18mm}, >=Stealth]
\node[box] (a) {Load}; \node[box, right=of a] (b) {Clean}; \node[box, below=of b] (c) {Train};
\draw[->] (a) -- (b); \draw[->] (b) -- (c); \draw[->, dashed] (c) -| (a);
\end{tikzpicture}
\caption{The training pipeline of our method.}\label{fig:flow}
\end{figure}
\begin{figure}[h]
\centering
\resizebox{0.45\linewidth}{!}{%
\begin{tikzpicture}[level distance=12mm, sibling distance=22mm]
\node {root} child {node {left} child {node {leaf A}} child {node {leaf B}}}
  child {node {right}};
\end{tikzpicture}}
\caption{A decision tree of depth two, scaled to the column.}\label{fig:tree}
\end{figure}
\begin{figure}[h]
\centering
\begin{tikzpicture}[x=14mm, y=9mm]
\foreach \i in {1,2,3} \draw (0,\i) circle (3mm);
\foreach \j in {1,2} \draw (1,\j+0.5) circle (3mm);
\foreach \i in {1,2,3} \foreach \j in {1,2} \draw (0.2,\i) -- (0.8,\j+0.5);
\end{tikzpicture}
\caption{A small fully connected network.}\label{fig:net}
\end{figure}
\begin{figure}[h]
\centering
\begin{tikzpicture}[box/.style={draw, rounded corners, minimum width=18mm}, >=Stealth]
\node[box] (a) {Fetch}; \node[box, below=of a] (b) {Parse}; \node[box, right=of b] (c) {Store};
\draw[->] (a) -- (b); \draw[->] (b) -- (c); \draw[->, dotted] (c) |- (a);
\end{tikzpicture}
\caption{The storage path, drawn like the pipeline.}\label{fig:store}
\end{figure}
\begin{figure}[h]
\centering
\begin{tikzpicture}\draw (0,0) rectangle (2,1.2) node[midway] {Top view};\end{tikzpicture}
\hspace{8mm}
\begin{tikzpicture}\draw (0,0) circle (0.7) node {Side view};\end{tikzpicture}
\caption{Two views of the same part.}\label{fig:two}
\end{figure}
\end{document}
"""

LISTING = """<?xml version="1.0" encoding="UTF-8"?>
<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/">
<responseDate>2024-02-01T00:00:00Z</responseDate>
<request verb="ListRecords" metadataPrefix="arXiv">http://oaipmh.arxiv.org/oai</request>
<ListRecords><record><header><identifier>oai:arXiv.org:2402.00001</identifier>
<datestamp>2024-02-01</datestamp><setSpec>cs</setSpec></header><metadata>
<arXiv xmlns="http://arxiv.org/OAI/arXiv/"><id>2402.00001</id><created>2024-02-01</created>
<authors><author><keyname>Hopper</keyname><forenames>Grace</forenames></author></authors>
<title>A Paper With Several Figures</title><categories>cs.LG</categories>
<license>http://creativecommons.org/licenses/by/4.0/</license>
<abstract>Several TikZ figures.</abstract></arXiv></metadata></record></ListRecords>
</OAI-PMH>
"""


def _paper(root: Path) -> Path:
    """An arXiv-style corpus of one paper: e-print, listing and the PDF pdflatex makes."""
    (root / "src").mkdir(parents=True)
    (root / "pdf").mkdir()
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        info = tarfile.TarInfo("main.tex")
        info.size = len(PAPER.encode())
        tar.addfile(info, io.BytesIO(PAPER.encode()))
    (root / "src" / "2402.00001v1.tar.gz").write_bytes(gzip.compress(buf.getvalue(), mtime=0))
    (root / "listing.xml").write_text(LISTING)
    work = root / "tex"
    work.mkdir()
    (work / "main.tex").write_text(PAPER)
    env = {**os.environ, "openin_any": "p", "openout_any": "p", "shell_escape": "f"}
    for _ in range(2):  # the \ref numbers
        subprocess.run(["pdflatex", "-interaction=nonstopmode", "-no-shell-escape", "main.tex"],
                       cwd=work, env=env, capture_output=True, timeout=120, check=False)
    shutil.copyfile(work / "main.pdf", root / "pdf" / "2402.00001v1.pdf")
    return root


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex missing")
def test_a_real_paper_every_cut_out_joins_its_own_figure(tmp_path):
    """Compiled here, cut out by the toolkit, its TikZ extracted and rendered standalone:
    each PDF figure joins exactly the cluster of its own picture — not the look-alike
    pipeline with other labels, not through the scaled-down render — and the two pictures
    under one caption are not fused."""
    from diagramforge.runner import run_named
    from diagramforge.store.paths import stage_paths
    from diagramforge.store.records import RECORD_SCHEMA, REJECTION_SCHEMA
    from diagramforge.store.shards import ShardSet
    from tests.conftest import make_params

    corpus = _paper(tmp_path / "corpus")
    params = make_params(tmp_path, crawl={"arxiv": {"source": str(corpus),
                                                    "cache_dir": str(tmp_path / "c")},
                                          "repos": {"repositories": []}},
                         filter={"order": ["licence", "tokens"]},
                         split={"near_dup": {"keep": "all"}})
    for stage in ("crawl", "extract", "render", "filter", "split"):
        run_named(stage, params)
    rows = ShardSet(stage_paths(params, "split").records, RECORD_SCHEMA).read_all().to_pylist()
    codes = {r["caption"]: r for r in rows if r["source"] == "arxiv"
             and not r["caption"].startswith("Two views")}
    cuts = [r for r in rows if r["source"] == "pdf"]
    assert len(codes) == 4 and sum(1 for r in rows if r["source"] == "arxiv") == 6, \
        [(r["source_id"], r["caption"]) for r in rows]
    assert len(cuts) == 5, [(r["source_id"], r["caption"]) for r in cuts]
    for c in cuts:
        if c["caption"].startswith("Two views"):
            continue
        own = codes[c["caption"]]
        assert c["dup_cluster"] == own["dup_cluster"] == own["id"], (c["source_id"], c["caption"])
    clusters = Counter(r["dup_cluster"] for r in rows)
    assert sum(1 for n in clusters.values() if n > 1) >= 4
    two = [r for r in rows if r["source"] == "arxiv" and r["caption"].startswith("Two views")]
    assert len({r["dup_cluster"] for r in two}) == 2  # sub-pictures stay apart
    ledger = ShardSet(stage_paths(params, "split").rejections, REJECTION_SCHEMA).count()
    assert ledger == 0  # keep: all — clusters are labels, nothing dropped
    # the default policy keeps the code and ledgers each cut-out with its page and caption
    first = make_params(tmp_path, crawl={"arxiv": {"source": str(corpus)}},
                        filter={"order": ["licence", "tokens"]})
    run_named("split", first)
    gone = ShardSet(stage_paths(first, "split").rejections, REJECTION_SCHEMA).read_all()
    details = {r["locator"]: r["detail"] for r in gone.to_pylist()}
    assert len(details) == 4 and all("same figure in its paper (p" in d and "caption 1.00" in d
                                     for d in details.values()), details
