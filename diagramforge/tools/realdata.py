"""Run the toolkit's own stages on a folder of real figures.

The classifier's training set and the published-yield benchmark both need what the *real*
pipeline makes of real inputs: LaTeX documents nobody here wrote (TeX Live's documentation
examples, a corpus of standalone figures, papers) and draw.io files.  Rather than calling
compile internals, this lays those folders out the way the crawl stage already reads local
corpora — an arXiv-like directory (an OAI-PMH ``listing.xml`` plus one e-print per document
under ``src/``) and a pinned git repository — and runs the stages through
:func:`diagramforge.runner.run_named`, exactly as ``dvc repro`` does.
"""

from __future__ import annotations

import gzip
import io
import re
import shutil
import subprocess
import tarfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import escape

from diagramforge.config import Params, parse_params


def shared_corpora(repo: Path) -> Path:
    """``shared/corpora`` beside a checkout: ``../shared/corpora`` from the main checkout,
    ``../../shared/corpora`` from a worktree one folder deeper — the first that exists above
    ``repo``, else ``repo``'s sibling (benchmarks take ``--shared`` or similar to point
    elsewhere)."""
    return next((p / "shared" / "corpora" for p in repo.parents
                 if (p / "shared" / "corpora").is_dir()), repo.parent / "shared" / "corpora")


_DOCCLASS = re.compile(rb"\\documentclass\b")
_BEGIN_DOC = re.compile(rb"\\begin\s*\{document\}")
SKIP_SUFFIXES = (".pdf", ".log", ".aux", ".dvi", ".ps", ".eps", ".zip", ".gz", ".html",
                 ".sty.ltxml", ".mp4", ".gif")
"""Files left out of an e-print: outputs and archives (``.eps`` too: pdflatex cannot read
it, and a paper's copy next to its ``.pdf`` twin would only shadow it)."""


@dataclass
class LocalDoc:
    """One document (a root ``.tex`` and the files beside it) as one e-print."""

    id: str
    title: str
    group: str
    files: dict[str, bytes] = field(default_factory=dict)
    authors: list[str] = field(default_factory=list)


def _read(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if path.name.endswith(".gz") else data


def is_root(data: bytes) -> bool:
    """A LaTeX document that compiles by itself (``\\documentclass`` … ``\\begin{document}``)."""
    return bool(_DOCCLASS.search(data)) and bool(_BEGIN_DOC.search(data))


def documents(folder: Path, group: str, max_file_bytes: int = 2_000_000,
              prefix: str = "") -> list[LocalDoc]:
    """Every root document under ``folder`` (``.tex`` or ``.tex.gz``), each with the other
    files of its directory that are not roots themselves (inputs, data, images)."""
    out: list[LocalDoc] = []
    for d in sorted({p.parent for p in folder.rglob("*.tex*")}):
        files = {p.name: p for p in sorted(d.iterdir()) if p.is_file()
                 and p.stat().st_size <= max_file_bytes}
        texts = {n: _read(p) for n, p in files.items() if n.endswith((".tex", ".tex.gz"))}
        roots = [n for n, t in texts.items() if is_root(t)]
        for r in roots:
            name = r.removesuffix(".gz")
            bundle = {name: texts[r]}
            for n, p in files.items():
                if n == r or n in roots or n.endswith(SKIP_SUFFIXES) and n not in texts:
                    continue
                if n in texts:
                    bundle[n.removesuffix(".gz")] = texts[n]
                elif Path(n).stem != Path(name).stem:  # the author's own render stays out
                    bundle[n] = p.read_bytes()
            rel = d.relative_to(folder).as_posix()
            doc_id = re.sub(r"[^A-Za-z0-9.-]+", "-", f"{prefix}{rel}-{Path(name).stem}"
                            if rel != "." else f"{prefix}{Path(name).stem}").strip("-")
            out.append(LocalDoc(doc_id, f"{rel}/{name}", group, bundle))
    return out


def _tar_gz(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz", format=tarfile.PAX_FORMAT) as t:
        for name, data in sorted(files.items()):
            info = tarfile.TarInfo(name)
            info.size, info.mtime = len(data), 0
            t.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def write_arxiv_layout(docs: Iterable[LocalDoc], out: Path, licence_url: str,
                       category: str = "cs.GR", date: str = "2024-01-01") -> Path:
    """``out/listing.xml`` + ``out/src/<id>v1.tar.gz``: a local corpus the crawl stage reads
    (``crawl.arxiv.source: out``).  Returns ``out``."""
    shutil.rmtree(out, ignore_errors=True)
    (out / "src").mkdir(parents=True)
    recs = []
    for doc in docs:
        (out / "src" / f"{doc.id}v1.tar.gz").write_bytes(_tar_gz(doc.files))
        authors = "".join(f"<author><keyname>{escape(a)}</keyname></author>"
                          for a in doc.authors or [doc.group])
        recs.append(
            f"<record><header><identifier>oai:local:{escape(doc.id)}</identifier>"
            f"<datestamp>{date}</datestamp></header><metadata>"
            f'<arXiv xmlns="http://arxiv.org/OAI/arXiv/"><id>{escape(doc.id)}</id>'
            f"<created>{date}</created><authors>{authors}</authors>"
            f"<title>{escape(doc.title)}</title><categories>{category}</categories>"
            f"<license>{escape(licence_url)}</license></arXiv></metadata></record>")
    (out / "listing.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><ListRecords>\n'
        + "\n".join(recs) + "\n</ListRecords></OAI-PMH>\n")
    return out


def git_repository(folder: Path, dest: Path, tag: str = "v1") -> Path:
    """A git repository at ``dest`` holding ``folder``'s files in one commit tagged ``tag``
    (the crawl stage reads repositories pinned to a ref)."""
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(folder, dest)

    def git(*args: str) -> None:
        subprocess.run(["git", "-c", "user.name=diagramforge", "-c",
                        "user.email=diagramforge@localhost", *args], cwd=dest, check=True,
                       capture_output=True, env={"GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z",
                                                 "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z",
                                                 "PATH": "/usr/bin:/bin"})

    git("init", "-q")
    git("add", "-A")
    git("commit", "-q", "-m", "corpus")
    git("tag", tag)
    return dest


def merge(base: dict, over: dict) -> dict:
    """``over`` merged into a copy of ``base``, mappings recursively."""
    out = dict(base)
    for k, v in over.items():
        out[k] = merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def project_params(root: Path, *, arxiv: Path | None = None, repos: list[Path] | None = None,
                   workers: int = 2, base: dict | None = None, tex_cache: Path | None = None,
                   **sections: dict) -> Params:
    """Params for a throw-away project under ``root`` reading these local corpora: ``base``
    (e.g. the repository's ``params.yaml``, loaded) with its paths moved under ``root`` and
    its sources replaced; ``sections`` merge over that.  ``tex_cache``: a TeX compile cache
    to share between projects (content-addressed, so another corpus's compiles are reused)."""
    return parse_params(project_dict(root, arxiv=arxiv, repos=repos, workers=workers,
                                     base=base, tex_cache=tex_cache, **sections))


def project_dict(root: Path, *, arxiv: Path | None = None, repos: list[Path] | None = None,
                 workers: int = 2, base: dict | None = None, tex_cache: Path | None = None,
                 **sections: dict) -> dict:
    """:func:`project_params` as the params mapping, for a ``params.yaml`` of its own (a
    benchmark that runs each stage as ``python -m diagramforge --params …``)."""
    ours: dict = {
        "project": {"name": root.name, "data_dir": str(root / "data"),
                    "metrics_dir": str(root / "metrics")},
        "runner": {"workers": workers, "progress": False},
        "crawl": {"arxiv": {"source": str(arxiv) if arxiv else "", "categories": [],
                            "from_date": None, "until_date": None, "max_papers": 1_000_000,
                            "download_pdfs": False, "skip_disallowed_licences": False,
                            "cache_dir": str(root / "cache" / "arxiv")},
                  "repos": {"repositories": [{"url": str(p), "ref": "v1"}
                                             for p in repos or []],
                            "cache_dir": str(root / "cache" / "repos")},
                  "pdf": {"from_arxiv": False},
                  # only the sources given: none the repository's own params.yaml enables
                  # (its sample Stack Exchange dump is a path relative to the repository)
                  "stack": {"enabled": False}, "repo_search": {"enabled": False},
                  "stackexchange": {"enabled": False}},
        "render": {"tikz": {"cache_dir": str(tex_cache or root / "cache" / "tex")}},
        "publish": {"out_dir": str(root / "published"), "history_dir": str(root / "releases")},
    }
    return merge(merge(base or {}, ours), sections)
