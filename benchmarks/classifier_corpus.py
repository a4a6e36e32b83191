"""Measure the diagram-type classifier on a realistic, reproducible TikZ corpus.

Generates seeded TikZ pictures of the kinds papers contain (trees, node-link graphs and
flowcharts, tikz-cd diagrams, circuits, neural-network drawings, pgfplots charts), compiles
them with pdflatex (one multi-page standalone document per kind, as the render stage batches),
rasterises each page with PyMuPDF and writes render-stage-shaped records
(``records/part-00000.parquet`` with ``id, format, code, image``).  Labels are *not* taken from
the generator: the classifier's weak labels read them off the code, exactly as on real data.
Then trains (``diagramforge.filters.classifier.train``), and optionally scores the trained
checkpoint
on a second render directory (the sample corpus) whose weak labels serve as truth.

    python benchmarks/classifier_corpus.py --per-kind 40 --out /tmp/clfbench \
        [--eval data/render]
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import tempfile
import time
from pathlib import Path

PREAMBLE = r"""\documentclass[tikz,border=4pt,multi={circuitikz}]{standalone}
\usepackage{pgfplots}\pgfplotsset{compat=1.18}
\usepackage{tikz-cd}\usepackage{circuitikz}\usepackage{forest}\usepackage{neuralnetwork}
\usetikzlibrary{positioning,arrows.meta,shapes.geometric}
"""
COLOURS = ["blue", "red", "green!60!black", "orange", "violet", "teal", "gray", "black"]
WORDS = ["Input", "Encoder", "Decoder", "Loss", "Data", "Model", "Output", "Cache", "Query",
         "Server", "Client", "Parse", "Check", "Store", "Train", "Eval", "Start", "Stop"]


def tree(r: random.Random) -> str:
    def sub(depth: int) -> str:
        if depth == 0 or r.random() < 0.25:
            return ""
        return " ".join(f"child {{ node {{{r.choice(WORDS)}}} {sub(depth - 1)} }}"
                        for _ in range(r.randint(1, 3)))

    def root() -> str:
        return " ".join(f"child {{ node {{{r.choice(WORDS)}}} {sub(2)} }}"
                        for _ in range(r.randint(2, 3)))
    if r.random() < 0.4:
        def fsub(depth: int) -> str:
            kids = "" if depth == 0 else " ".join(fsub(depth - 1) for _ in range(r.randint(0, 3)))
            return f"[{r.choice(WORDS)} {kids}]"
        return f"\\begin{{forest}}\n{fsub(3)}\n\\end{{forest}}"
    style = r.choice(["draw", "draw, circle", "draw, rounded corners, fill=yellow!20", ""])
    return (f"\\begin{{tikzpicture}}[every node/.style={{{style}}}, level distance="
            f"{r.randint(8, 15)}mm, sibling distance={r.randint(12, 30)}mm]\n"
            f"\\node {{{r.choice(WORDS)}}} {root()};\n\\end{{tikzpicture}}")


def graph(r: random.Random) -> str:
    n = r.randint(3, 8)
    shape = r.choice(["circle", "rectangle", "ellipse", "diamond", "rectangle, rounded corners"])
    fill = r.choice(COLOURS)
    lines = [f"\\begin{{tikzpicture}}[>=Stealth, every node/.style={{draw, {shape}, "
             f"fill={fill}!{r.randint(5, 30)}}}]"]
    grid = r.random() < 0.5
    for i in range(n):
        x, y = ((i % 3) * 2.5, -(i // 3) * 1.6) if grid else (r.uniform(0, 7), r.uniform(0, 4))
        lines.append(f"\\node (n{i}) at ({x:.2f},{y:.2f}) {{{r.choice(WORDS)}}};")
    for i in range(1, n):
        j = r.randrange(i)
        arrow = r.choice(["->", "<->", "-", "->, dashed", "->, thick"])
        bend = r.choice(["--", "to[bend left]", "edge"])
        lines.append(f"\\draw[{arrow}] (n{j}) {bend} (n{i});")
    return "\n".join(lines + ["\\end{tikzpicture}"])


def commutative(r: random.Random) -> str:
    rows, cols = r.randint(2, 3), r.randint(2, 4)
    objs = "ABCDEFGHKLMNPQ"
    cells = []
    for i in range(rows):
        row = []
        for j in range(cols):
            arrows = []
            if j + 1 < cols and r.random() < 0.8:
                arrows.append(f"\\arrow[r, \"{r.choice('fghpq')}\"]")
            if i + 1 < rows and r.random() < 0.7:
                arrows.append(f"\\arrow[d, \"{r.choice('abuvw')}\"']")
            row.append(f"{objs[(i * cols + j) % len(objs)]} {' '.join(arrows)}")
        cells.append(" & ".join(row))
    return "\\begin{tikzcd}\n" + " \\\\\n".join(cells) + "\n\\end{tikzcd}"


def circuit(r: random.Random) -> str:
    parts = ["R", "C", "L", "D", "R", "C"]
    w, h = r.randint(3, 6), r.randint(2, 4)
    a, b, c = (r.choice(parts) for _ in range(3))
    return (f"\\begin{{circuitikz}}\n\\draw (0,0) to[V, l=$V_s$] (0,{h}) to[{a}, l=$X_1$] ({w},{h})"
            f" to[{b}, l=$X_2$] ({w},0) to[{c}] (0,0);\n"
            + (f"\\draw ({w / 2:.1f},{h}) to[R, l=$R_p$] ({w / 2:.1f},0);\n" if r.random() < .5
               else "") + "\\end{circuitikz}")


def neural(r: random.Random) -> str:
    layers = [f"\\inputlayer[count={r.randint(2, 5)}, bias={r.choice(['true', 'false'])}]"]
    for _ in range(r.randint(1, 3)):
        layers.append(f"\\hiddenlayer[count={r.randint(2, 6)}, bias=false] \\linklayers")
    layers.append(f"\\outputlayer[count={r.randint(1, 4)}] \\linklayers")
    return f"\\begin{{neuralnetwork}}[height={r.randint(4, 6)}]\n" + "\n".join(layers) + \
        "\n\\end{neuralnetwork}"


def plot(r: random.Random) -> str:
    kind = r.choice(["line", "bar", "scatter", "fn"])
    opts = [f"width={r.randint(5, 9)}cm", f"height={r.randint(4, 6)}cm",
            f"xlabel={{{r.choice(WORDS)}}}", f"ylabel={{{r.choice(WORDS)}}}"]
    if r.random() < 0.5:
        opts.append("grid=major")
    body = []
    for _ in range(r.randint(1, 3)):
        c = r.choice(COLOURS)
        pts = " ".join(f"({x},{r.uniform(0, 10):.2f})" for x in range(1, r.randint(5, 12)))
        if kind == "bar":
            opts.append("ybar")
            body.append(f"\\addplot[fill={c}] coordinates {{{pts}}};")
        elif kind == "scatter":
            body.append(f"\\addplot[only marks, mark=*, {c}] coordinates {{{pts}}};")
        elif kind == "fn":
            body.append(f"\\addplot[{c}, domain=0:{r.randint(2, 10)}, samples=40] "
                        f"{{{r.uniform(.2, 2):.2f}*sin(deg(x*{r.uniform(.5, 2):.2f}))+x^"
                        f"{r.uniform(.3, 1.2):.2f}}};")
        else:
            body.append(f"\\addplot[{c}, mark=o] coordinates {{{pts}}};")
    opts = list(dict.fromkeys(opts))
    return (f"\\begin{{tikzpicture}}\n\\begin{{axis}}[{', '.join(opts)}]\n" + "\n".join(body)
            + "\n\\end{axis}\n\\end{tikzpicture}")


KINDS = {"tree": tree, "graph": graph, "commutative": commutative, "circuit": circuit,
         "neural": neural, "plot": plot}


def compile_kind(pictures: list[str], dpis: list[int]) -> list[bytes]:
    """One pdflatex run for all pictures of a kind; one PNG per page."""
    import pymupdf as fitz

    from diagramforge.formats.tikz.texcompile import tex_env

    doc = PREAMBLE + "\\begin{document}\n" + "\n".join(pictures) + "\n\\end{document}\n"
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "d.tex").write_text(doc)
        subprocess.run(["pdflatex", "-no-shell-escape", "-interaction=nonstopmode", "d.tex"],
                       cwd=tmp, env=tex_env(job=Path(tmp)), capture_output=True, timeout=600,
                       check=False)
        pdf = fitz.open(Path(tmp, "d.pdf"))
        if pdf.page_count != len(pictures):
            raise RuntimeError(f"{pdf.page_count} pages for {len(pictures)} pictures")
        return [p.get_pixmap(dpi=dpi, alpha=False).tobytes("png")
                for p, dpi in zip(pdf, dpis, strict=True)]


def build(per_kind: int, seed: int, out: Path) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = []
    for k, (name, gen) in enumerate(KINDS.items()):
        r = random.Random(seed * 1000 + k)
        pics = [gen(r) for _ in range(per_kind)]
        dpis = [r.randint(70, 130) for _ in pics]
        for i, (pic, png) in enumerate(zip(pics, compile_kind(pics, dpis), strict=True)):
            code = PREAMBLE + "\\begin{document}\n" + pic + "\n\\end{document}\n"
            rows.append({"id": f"{name}-{i}", "format": "tikz", "code": code, "image": png})
    (out / "records").mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), out / "records" / "part-00000.parquet")
    return out




def evaluate(render_dir: str, params, fallback: str) -> dict:  # noqa: ANN001
    """Score the trained checkpoint on another render dir, weak labels (folded) as truth."""
    from diagramforge.filters.classifier.dataset import load_records
    from diagramforge.filters.classifier.evidence import code_label
    from diagramforge.filters.classifier.model import Classifier
    from diagramforge.vocabulary import family

    clf = Classifier.load(params)
    known = set(clf.id2label.values())
    recs = [r for r in load_records(render_dir) if code_label(r)]
    truth = [code_label(r) if code_label(r) in known else fallback
             for r in recs]
    got = clf.classify([r["image"] for r in recs])
    rows = [(t, g, round(p, 3)) for t, (g, p) in zip(truth, got, strict=True)]
    return {"n": len(rows), "accuracy": round(sum(t == g for t, g, _ in rows) / len(rows), 4),
            "family_accuracy": round(sum(family(t) == family(g) for t, g, _ in rows)
                                     / len(rows), 4),
            "rows": rows}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--per-kind", type=int, default=40)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", type=Path, default=Path("/tmp/clfbench"))
    ap.add_argument("--eval", default=None, help="a render output dir to score afterwards")
    ap.add_argument("--architecture", default="resnet")
    ap.add_argument("--score", default=None, metavar="CHECKPOINT",
                    help="only score this checkpoint (e.g. data/classifier-train/checkpoint) "
                         "on the generated corpus: compiled TikZ it never saw")
    a = ap.parse_args()
    from diagramforge.filters.classifier.settings import ClassifierParams, TrainParams
    from diagramforge.filters.classifier.train import train

    t = time.perf_counter()
    corpus = build(a.per_kind, a.seed, a.out / "render")
    print(f"corpus: {len(KINDS) * a.per_kind} pictures in {time.perf_counter() - t:.1f}s")
    if a.score:
        got = evaluate(str(corpus), ClassifierParams(checkpoint=a.score), "architecture_diagram")
        from collections import Counter

        rows = got.pop("rows")
        print(json.dumps(got))
        print("truth → predicted:", dict(Counter(f"{t}→{g}" for t, g, _ in rows)))
        return
    params = ClassifierParams(checkpoint=str(a.out / "classifier" / "checkpoint"))
    tp = TrainParams(architecture=a.architecture)
    m = train(corpus, tp, a.out / "classifier")
    print(json.dumps({k: m[k] for k in ("accuracy", "keep_reject_accuracy", "held_out",
                                        "trained", "classes", "seconds", "weak_labels",
                                        "parameters", "folded")}, indent=1))
    if a.eval:
        print(json.dumps(evaluate(a.eval, params, tp.fallback_label), indent=1))


if __name__ == "__main__":
    main()
