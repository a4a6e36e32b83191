#!/usr/bin/env python3
"""Regenerate the embedded corpus under ``samples/`` byte for byte.

Run: ``python scripts/make_samples.py`` (needs pdflatex and git).  Archives get fixed
mtimes, owners and member order; PDFs are built with SOURCE_DATE_EPOCH and an empty trailer
id; git repositories with fixed author/committer dates, so bundles and commit ids repeat;
the Stack Exchange dump is a 7z written by libarchive with fixed times and member order.
"""

from __future__ import annotations

import gzip
import io
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from xml.sax.saxutils import escape

sys.path.insert(0, str(Path(__file__).resolve().parent))
from papers import PAPERS  # noqa: E402
from repos import REPOS  # noqa: E402
from stackexchange import SITE  # noqa: E402
from stackexchange import tables as se_tables  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from diagramforge.builders.crawl.se_layout import write_dump  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent / "samples"
EPOCH = 1704067200  # 2024-01-01T00:00:00Z


def _gzip(data: bytes, name: str = "") -> bytes:
    buf = io.BytesIO()
    with gzip.GzipFile(filename=name, mode="wb", fileobj=buf, mtime=0, compresslevel=9) as gz:
        gz.write(data)
    return buf.getvalue()


def _tar(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for name in sorted(files):
            info = tarfile.TarInfo(name)
            info.size = len(files[name])
            info.mtime = EPOCH
            info.mode = 0o644
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(files[name]))
    return _gzip(buf.getvalue())


def _pdf(paper: dict, out: Path) -> None:
    env = {**os.environ, "SOURCE_DATE_EPOCH": str(EPOCH), "FORCE_SOURCE_DATE": "1",
           "openin_any": "p", "openout_any": "p", "shell_escape": "f"}
    root = next(n for n in paper["files"] if n.endswith(".tex") and "documentclass" in
                paper["files"][n] and "subfiles" not in paper["files"][n].split("\n")[0])
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in paper["files"].items():
            p = Path(tmp) / name
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
        for _ in range(2):
            subprocess.run(
                ["pdflatex", "-interaction=nonstopmode", "-no-shell-escape",
                 "-jobname=" + Path(root).stem,
                 r"\pdftrailerid{}\input{" + root + "}"],
                cwd=tmp, env=env, capture_output=True, timeout=120, check=False)
        shutil.copyfile(Path(tmp) / (Path(root).stem + ".pdf"), out)


def _listing() -> str:
    recs = []
    for p in PAPERS:
        authors = "".join(
            f"<author><keyname>{escape(k)}</keyname><forenames>{escape(f)}</forenames></author>"
            for k, f in p["authors"])
        recs.append(f"""<record><header><identifier>oai:arXiv.org:{p['id']}</identifier>
<datestamp>{p['created']}</datestamp><setSpec>{p['categories'].split()[0].split('.')[0]}</setSpec>
</header><metadata>
<arXiv xmlns="http://arxiv.org/OAI/arXiv/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \
xsi:schemaLocation="http://arxiv.org/OAI/arXiv/ http://arxiv.org/OAI/arXiv.xsd">
<id>{p['id']}</id><created>{p['created']}</created><authors>{authors}</authors>
<title>{escape(p['title'])}</title><categories>{p['categories']}</categories>
<license>{p['licence']}</license>
<abstract>Sample paper {p['id']} for the diagramforge embedded corpus.</abstract>
</arXiv></metadata></record>""")
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/" \
xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \
xsi:schemaLocation="http://www.openarchives.org/OAI/2.0/ \
http://www.openarchives.org/OAI/2.0/OAI-PMH.xsd">
<responseDate>2024-02-01T00:00:00Z</responseDate>
<request verb="ListRecords" metadataPrefix="arXiv">http://oaipmh.arxiv.org/oai</request>
<ListRecords>
{chr(10).join(recs)}
</ListRecords>
</OAI-PMH>
"""


def make_arxiv(pdfs: bool = True) -> None:
    base = ROOT / "arxiv"
    for sub in ("src", "pdf"):
        shutil.rmtree(base / sub, ignore_errors=True)
        (base / sub).mkdir(parents=True)
    for p in PAPERS:
        vid = f"{p['id']}v{p['version']}"
        files = {k: v.encode() for k, v in p["files"].items()}
        if p.get("bomb_bytes"):
            files["data/supplement.csv"] = b"0," * (p["bomb_bytes"] // 2)
        if p.get("single_file"):
            (base / "src" / f"{vid}.gz").write_bytes(_gzip(next(iter(files.values()))))
        else:
            (base / "src" / f"{vid}.tar.gz").write_bytes(_tar(files))
        if pdfs and p.get("pdf"):
            _pdf(p, base / "pdf" / f"{vid}.pdf")
    (base / "listing.xml").write_text(_listing())


def _git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "Sample Author", "GIT_AUTHOR_EMAIL": "a@example.org",
           "GIT_COMMITTER_NAME": "Sample Author", "GIT_COMMITTER_EMAIL": "a@example.org",
           "GIT_AUTHOR_DATE": f"{EPOCH} +0000", "GIT_COMMITTER_DATE": f"{EPOCH} +0000",
           "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_SYSTEM": "/dev/null"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True,
                          text=True).stdout.strip()


def make_repos() -> None:
    out = ROOT / "repos"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    for repo in REPOS:
        with tempfile.TemporaryDirectory() as tmp:
            w = Path(tmp)
            _git(w, "init", "-q", "-b", "main")
            for commit in repo["commits"]:
                for name, content in commit["files"].items():
                    p = w / name
                    p.parent.mkdir(parents=True, exist_ok=True)
                    if isinstance(content, bytes):
                        p.write_bytes(content)
                    else:
                        p.write_text(content)
                _git(w, "add", "-A")
                _git(w, "commit", "-q", "-m", commit["message"])
                if commit.get("tag"):
                    _git(w, "tag", commit["tag"])
            _git(w, "-c", "pack.threads=1", "bundle", "create", str(out / f"{repo['name']}.bundle"),
                 "--all")


def make_stackexchange() -> None:
    """A site's dump as Stack Exchange publishes it: one .7z of XML files."""
    out = ROOT / "stackexchange"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    with tempfile.TemporaryDirectory() as tmp:
        write_dump(out / f"{SITE}.7z", se_tables(), Path(tmp))


def main() -> None:
    make_arxiv(pdfs="--no-pdf" not in sys.argv)
    make_repos()
    make_stackexchange()
    print(f"wrote {sum(1 for _ in ROOT.rglob('*') if _.is_file())} files under {ROOT}")


if __name__ == "__main__":
    main()
