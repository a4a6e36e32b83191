#!/usr/bin/env python3
"""Pictures as they are posted: real figures cut down to their ``tikzpicture``, compiled by the
toolkit, against plain pdflatex on the figures' full files.

A TeX.SE answer (and many an ``\\input``-ed figure) shows the picture, not the preamble. The
snippets here are made on the fly from real standalone figures (by default the shared
corpora's ``latex-examples/tikz``, ``tikz-alextsagkas+Tikz-Graphics`` and
``tikz-PacktPublishing+LaTeX-Cookbook``; nothing of them is written into the repository):
the preamble dropped, each outermost picture environment of the body kept as one snippet, as
it is written (comments and all).

plain:    pdflatex, sandboxed, on the full file as its author wrote it, in a copy of its
          directory;
toolkit:  each snippet as a Stack Exchange code block (``formats/tikz/snippet.as_document``:
          the smallest document around it), with the data files beside the figure (a table
          a plot reads is not preamble), through :func:`extract_paper` and the render
          stage's ladder of documents and engines, batched, cold cache.

Prints, over the snippets of the files plain pdflatex compiles: how many the toolkit renders
— of all of them, and of those that compile with their own file's \\usepackage and
\\usetikzlibrary lines alone (the ceiling of any table of loads: a snippet that uses the
poster's own style, macro, colour or \\tdplotsetmaincoords needs more than loads; the
target is ≥ 95 % of these) — the loads it added and how often, the snippets that rendered
with loads added that would also have compiled without them (added for nothing), and the
classes of the snippets that still fail (the first error; a name the dropped preamble
defined).

With ``--documents``, each full file is posted whole instead (a TeX.SE answer that is a
complete document, a timeline drawn through the answer's own environment): the documents
plain pdflatex compiles against those the toolkit renders a picture of, and the funnel of
the rest.

Usage: .venv/bin/python benchmarks/tikz_snippets.py [--corpus DIR ...] [--limit N]
       [--workers 2] [--json OUT] [--compare BEFORE.json] [--plain EARLIER.json]
       [--documents]
"""

from __future__ import annotations

import argparse
import io
import json
import re
import shutil
import sys
import tarfile
import tempfile
import time
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus_latex  # noqa: E402

from diagramforge.builders.extract.settings import ExtractParams  # noqa: E402
from diagramforge.formats.tikz import notation as latex  # noqa: E402
from diagramforge.formats.tikz.extract import extract_paper  # noqa: E402
from diagramforge.formats.tikz.ladder import class_head  # noqa: E402
from diagramforge.formats.tikz.pictures import Standalone, find_pictures  # noqa: E402
from diagramforge.formats.tikz.preamble import Kind, parse_preamble  # noqa: E402
from diagramforge.formats.tikz.snippet import as_document  # noqa: E402
from diagramforge.formats.tikz.texcompile import batch_key, classify, tex_env  # noqa: E402
from diagramforge.sandbox.process import run_sandboxed  # noqa: E402

_SHARED = corpus_latex._SHARED / "corpora"
DEFAULT_CORPORA = [_SHARED / "latex-examples" / "tikz", _SHARED / "tikz-alextsagkas+Tikz-Graphics",
                   _SHARED / "tikz-PacktPublishing+LaTeX-Cookbook"]
_DOCCLASS = re.compile(r"^\s*\\documentclass", re.M)
_ERR_NAME = re.compile(r"Undefined control sequence.*(\\[A-Za-z@]+)"
                       r"|I do not know the key '/tikz/([^']+)'"
                       r"|Environment (\S+) undefined|Unknown arrow tip kind '([^']+)'"
                       r"|Undefined color `([^']+)'")


def documents(roots: list[Path]) -> list[Path]:
    """The corpora's documents (a ``.tex`` with a class and a body), each once."""
    out = []
    for root in roots:
        for p in sorted(root.rglob("*.tex")):
            text = p.read_text(errors="replace")
            if _DOCCLASS.search(text) and "\\begin{document}" in text:
                out.append(p)
    return out


_LOADS = re.compile(r"\\(?:usepgfplotslibrary|usepgflibrary|PassOptionsToPackage)\b")


def snippets(tex: Path, params: ExtractParams) -> tuple[list[str], set[str], list[str]]:
    """The pictures of a document's body as written (the snippets), the names its preamble
    defines (styles, macros, colours, environments), and the preamble's loads alone (its
    packages and libraries, in order): with only those, a snippet compiles if what the
    poster left out is loads — the ceiling of any table of loads."""
    text = tex.read_text(errors="replace")
    pre, _, rest = text.partition("\\begin{document}")
    body = rest.rsplit("\\end{document}", 1)[0]
    pics = find_pictures(body, params.tikz.environments, False)
    clean = latex.strip_comments(pre)
    defs = parse_preamble("\n".join(class_head(clean)) + "\n" + clean)
    defined = {n for d in defs for n in d.defines}
    loads = [d.text for d in defs if d.kind in (Kind.PACKAGE, Kind.LIBRARY)
             or _LOADS.match(d.text)]
    return [p.text for p in pics], defined, loads


def with_loads(loads: list[str], code: str) -> Standalone:
    """The snippet with its file's own loads and nothing else of its preamble."""
    tikz = any(re.search(r"\{[^}]*\b(?:tikz|pgfplots|circuitikz|tikz-cd|forest)\b", b)
               for b in loads if b.startswith("\\usepackage"))
    return Standalone([*([] if tikz else [r"\usepackage{tikz}"]), *loads], code.strip())


def plain(tex: str, timeout_s: float = 60) -> dict:
    """pdflatex on the author's file, sandboxed, in a copy of its directory."""
    src = Path(tex)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "w"
        shutil.copytree(src.parent, work, ignore=shutil.ignore_patterns("*.pdf", "*.png"))
        res = run_sandboxed(["pdflatex", "-interaction=nonstopmode", "-halt-on-error",
                             "-no-shell-escape", src.name], work, tex_env(job=work),
                            timeout_s=timeout_s, fsize_mb=256)
        ok = res.returncode == 0 and not res.timed_out and \
            (work / src.with_suffix(".pdf").name).exists()
        log = work / src.with_suffix(".log").name
        err = "" if ok else classify(log.read_text(errors="replace") if log.exists()
                                     else res.stdout)[1]
        return {"ok": ok, "error": err}


def snippet_archive(tex: Path, code: str, params: ExtractParams) -> bytes:
    """The snippet as a posted code block's document, with the figure's data files."""
    exts = tuple("." + e for e in params.tikz.data_extensions)
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as t:
        data = as_document(code, params).encode()
        info = tarfile.TarInfo("main.tex")
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
        for p in sorted(tex.parent.iterdir()):
            if p.is_file() and p.suffix.lower() in exts:
                t.add(p, arcname=p.name)
    return buf.getvalue()


def extract(job: tuple[str, int, str]) -> tuple[str, int, list[dict], str]:
    tex, k, code = job
    params = ExtractParams()
    ex = extract_paper(snippet_archive(Path(tex), code, params),
                       {"id": f"s{k}", "version": "1", "authors": "[]"}, params)
    recs = [r for r in ex.records if r["format"] == "tikz"]
    why = "; ".join(f"{r.reason}: {r.detail[:80]}" for r in ex.rejections)
    return tex, k, recs, why


def documents_funnel(a: argparse.Namespace, docs: list[Path], base: dict[str, dict]) -> None:
    """``--documents``: each full file posted whole (a TeX.SE answer that is a complete
    document), through extraction and the render ladder: the documents plain pdflatex
    compiles against those the toolkit renders at least one picture of, and the funnel of
    the rest (ledgered at extraction, or every picture failing to compile)."""
    jobs = [(str(d), 0, d.read_text(errors="replace")) for d in docs]
    with ProcessPoolExecutor(a.workers) as ex:
        extracted = list(ex.map(extract, jobs, chunksize=8))
    records, lost = [], {}
    for tex, _, recs, why in extracted:
        if not recs:
            lost[tex] = why.split(":", 1)[0] if why else "no record"
        records += [{**r, "tex": f"{tex}#{j}"} for j, r in enumerate(recs)]
    units = [records[i:i + 16] for i in range(0, len(records), 16)]
    with tempfile.TemporaryDirectory() as cache, \
            ProcessPoolExecutor(a.workers, initializer=corpus_latex._init,
                                initargs=(cache, a.timeout)) as ex:
        rows = [row for unit in ex.map(corpus_latex.compile_unit, units) for row in unit]
    by_doc: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by_doc[r["tex"].rsplit("#", 1)[0]].append(r)
    rendered = {t for t, rs in by_doc.items() if any(r["ok"] for r in rs)}
    before = {}
    if a.compare and a.compare.exists():
        before = {k.rsplit("#", 1)[0]: v.get("toolkit", False)
                  for k, v in json.loads(a.compare.read_text()).items()}
    good = [str(d) for d in docs if base[str(d)]["ok"]]
    got = sum(t in rendered for t in good)
    was = (f"; before: {sum(before.get(t, False) for t in good)}/{len(good)}"
           if before else "")
    print(f"\nfull documents posted whole: plain pdflatex compiles {len(good)}/{len(docs)}; "
          f"the toolkit renders ≥ 1 picture of {got}/{len(good)} of those{was}; "
          f"{len(rendered)}/{len(docs)} in all; {sum(r['ok'] for r in rows)}/{len(rows)} "
          f"pictures rendered")
    funnel: Counter = Counter()
    for t in good:
        if t in rendered:
            continue
        funnel[f"extract: {lost[t]}" if t in lost else "render: " + remaining_class(
            next(r["error"] for r in by_doc[t]) or "", set())] += 1
    print(f"  compiling documents the toolkit renders nothing of ({sum(funnel.values())}):")
    for cls, n in funnel.most_common():
        print(f"    {n:4d}  {cls}")
    print(f"  documents ledgered at extraction (all {len(docs)}): "
          f"{dict(Counter(lost.values()).most_common())}")
    if a.json:
        a.json.write_text(json.dumps({f"{t}#0": {"plain": base[t]["ok"],
                                                  "toolkit": t in rendered}
                                      for t in map(str, docs)}, indent=1))


def without_added(rec: dict) -> Standalone:
    """The record's first document as the snippet was posted: the added loads taken out."""
    m = json.loads(rec["meta"])
    drop = {f"\\usepackage{{{p}}}" for p in m.get("added_packages", [])}
    libs = [x for x in m.get("added_libraries", []) if not x.startswith("pgfplots.")]
    plots = [x[9:] for x in m.get("added_libraries", []) if x.startswith("pgfplots.")]
    if libs:
        drop.add(f"\\usetikzlibrary{{{','.join(libs)}}}")
    if plots:
        drop.add(f"\\usepgfplotslibrary{{{','.join(plots)}}}")
    blocks = [b for b in m["blocks"] if b not in drop]
    if not any("tikz" in b or "pgfplots" in b for b in blocks if b.startswith("\\usepackage")):
        blocks.insert(0, "\\usepackage{tikz}")
    return Standalone(blocks, m["body"])


def remaining_class(error: str, defined: set[str]) -> str:
    """What kind of failure a snippet's first error is."""
    m = _ERR_NAME.search(error or "")
    if m:
        name = next(g for g in m.groups() if g)
        if name in defined or name.lstrip("\\") in defined:
            return "a name the dropped preamble defined"
        kind = ("undefined macro" if m.group(1) else "unknown key" if m.group(2)
                else "undefined environment" if m.group(3) else "unknown arrow tip"
                if m.group(4) else "undefined colour")
        return f"{kind} {name}"
    return (error or "?").split("|")[0].strip()[:70]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", type=Path, nargs="*", default=DEFAULT_CORPORA)
    ap.add_argument("--limit", type=int, default=0, help="documents per corpus (0: all)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--json", type=Path, help="write the per-snippet results here")
    ap.add_argument("--compare", type=Path,
                    help="an earlier run's --json (the code before a change): before/after")
    ap.add_argument("--documents", action="store_true",
                    help="post each full file whole instead of its snippets (the funnel of "
                         "complete documents, as TeX.SE answers often are)")
    ap.add_argument("--plain", type=Path,
                    help="reuse plain pdflatex's results from an earlier run's --json (the "
                         "full files do not change between a before and an after)")
    a = ap.parse_args()
    roots = [c for c in a.corpus if c.exists()]
    if not roots:
        print("no corpus found: nothing to measure")
        return
    docs = [d for r in roots for d in documents([r])[: a.limit or None]]
    params = ExtractParams()
    cut = {str(d): snippets(d, params) for d in docs}
    jobs = [(t, k, code) for t, (codes, _, _) in cut.items() for k, code in enumerate(codes)]
    print(f"{len(docs)} documents under {', '.join(r.name for r in roots)}; "
          f"{len(jobs)} snippets (pictures cut from their bodies)")

    t0 = time.perf_counter()
    base: dict[str, dict] = {}
    if a.plain and a.plain.exists():
        for key, got in json.loads(a.plain.read_text()).items():
            base[key.rsplit("#", 1)[0]] = {"ok": got["plain"], "error": ""}
    todo = [t for t in cut if t not in base]
    with ProcessPoolExecutor(a.workers) as ex:
        base.update(zip(todo, ex.map(plain, todo), strict=True))
    t_plain = time.perf_counter() - t0
    if a.documents:
        documents_funnel(a, docs, base)
        return
    t0 = time.perf_counter()
    with ProcessPoolExecutor(a.workers) as ex:
        extracted = list(ex.map(extract, jobs, chunksize=8))
    t_extract = time.perf_counter() - t0
    records, lost = [], {}
    for tex, k, recs, why in extracted:
        if not recs:
            lost[(tex, k)] = why or "no picture"
        records += [{**r, "tex": f"{tex}#{k}"} for r in recs]
    groups: dict[tuple[str, ...], list[dict]] = defaultdict(list)
    for r in records:
        m = json.loads(r["meta"])
        groups[batch_key(Standalone(m["blocks"], m["body"]))].append(r)
    units = [g[i:i + 16] for g in groups.values() for i in range(0, len(g), 16)]
    with tempfile.TemporaryDirectory() as cache:
        t0 = time.perf_counter()
        with ProcessPoolExecutor(a.workers, initializer=corpus_latex._init,
                                 initargs=(cache, a.timeout)) as ex:
            rows = [row for unit in ex.map(corpus_latex.compile_unit, units) for row in unit]
        t_tool = time.perf_counter() - t0
        # the snippets that rendered with loads added, compiled as posted: added for nothing?
        by_tex = {r["tex"]: r for r in records}
        added_ok = [r for r in rows if r["ok"] and r["mode"] == "minimal"
                    and "added_" in by_tex[r["tex"]]["meta"]]
        corpus_latex._init(cache, a.timeout)
        assert corpus_latex._TC is not None
        bare = corpus_latex._TC.compile_many([without_added(by_tex[r["tex"]])
                                              for r in added_ok])
        # the ceiling: each snippet with its own file's loads and nothing else
        loads_only = corpus_latex._TC.compile_many(
            [with_loads(cut[t][2], code) for t, k, code in jobs])
    needless = [r["tex"] for r, res in zip(added_ok, bare, strict=True) if res.ok]
    own = {(t, k) for (t, k, _), res in zip(jobs, loads_only, strict=True) if res.ok}

    ok = {r["tex"]: r for r in rows}
    good = [(t, k) for t, k, _ in jobs if base[t]["ok"]]
    rendered = {(t, k) for t, k in good if ok.get(f"{t}#{k}", {}).get("ok")}
    before = {}
    if a.compare and a.compare.exists():
        before = {tuple(key.rsplit("#", 1)): got.get("toolkit", False)
                  for key, got in json.loads(a.compare.read_text()).items()}
    n_docs_ok = sum(b["ok"] for b in base.values())
    print(f"\nplain pdflatex, full files : {n_docs_ok}/{len(docs)} documents compile "
          f"({t_plain:.0f} s); their snippets: {len(good)}")
    print("toolkit on the snippets, of those plain pdflatex renders from the full files "
          "(target ≥ 95 %):")
    for label, subset in [("all snippets", good),
                          ("snippets that compile with their file's loads alone",
                           [x for x in good if x in own])]:
        n, got = len(subset), sum(x in rendered for x in subset)
        was = (f"; before: {sum(before.get((t, str(k)), False) for t, k in subset)}/{n} = "
               f"{100 * sum(before.get((t, str(k)), False) for t, k in subset) / max(1, n):.1f} %"
               if before else "")
        print(f"  {label:<52}: {got}/{n} = {100 * got / max(1, n):.1f} %{was}")
    all_ok = sum(r["ok"] for r in rows)
    print(f"  all snippets: {all_ok}/{len(jobs)} rendered (also from files plain pdflatex "
          f"fails); extraction {t_extract:.1f} s, compile+raster {t_tool:.1f} s cold; rungs "
          f"{dict(Counter(r['mode'] for r in rows if r['ok']))}")
    added = Counter()
    pkgs = Counter()
    n_added = 0
    for r in records:
        m = json.loads(r["meta"])
        if m.get("added_libraries") or m.get("added_packages"):
            n_added += 1
        added.update(m.get("added_libraries", []))
        pkgs.update(m.get("added_packages", []))
    print(f"\nloads added to {n_added} snippets; libraries: "
          f"{', '.join(f'{k} {v}' for k, v in added.most_common(15))}")
    print(f"  packages: {', '.join(f'{k} {v}' for k, v in pkgs.most_common(15))}")
    print(f"  rendered with loads added on the first rung: {len(added_ok)}; of those, "
          f"compiled as posted too (added for nothing): {len(needless)}"
          + "".join(f"\n    {t}" for t in needless[:10]))

    classes: Counter = Counter()
    examples: dict[str, str] = {}
    for t, k in good:
        if (t, k) in rendered:
            continue
        row = ok.get(f"{t}#{k}")
        cls = (f"not extracted: {lost.get((t, k), '?')[:60]}" if row is None
               else remaining_class(row["error"] or "", cut[t][1]))
        if (t, k) not in own:
            cls = "needs more of the dropped preamble than its loads"
        classes[cls] += 1
        examples.setdefault(cls, f"{Path(t).relative_to(Path(t).parents[2])}#{k}")
    print(f"\nsnippets of compiling files the toolkit does not render ({sum(classes.values())})"
          ", by class:")
    for cls, n in classes.most_common():
        print(f"  {n:4d}  {cls}   (e.g. {examples[cls]})")
    if a.json:
        out = {f"{t}#": {"plain": base[t]["ok"]} for t in cut}  # every document, snippets or not
        out.update({f"{t}#{k}": {
            "plain": base[t]["ok"], "toolkit": bool(ok.get(f"{t}#{k}", {}).get("ok")),
            "error": (ok.get(f"{t}#{k}") or {}).get("error")} for t, k, _ in jobs})
        a.json.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
