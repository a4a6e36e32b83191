"""The statements a repository makes about its licence outside its manifests, read as a
maintainer reads them (:mod:`diagramforge.licensing.declared` reads the manifests): REUSE's
annotation of every file (``REUSE.toml``, ``.reuse/dep5``), the README's licence section or
sentence (licensee reads it too), and the ``SPDX-License-Identifier`` lines and GNU notices
heading the top-level files — each file's own licence, in REUSE's reading, which choose
"only" or "or later" for a GNU text.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from diagramforge.licensing.declared import MAX_MANIFEST, Evidence, _open, _spdx
from diagramforge.licensing.detection import detect_text
from diagramforge.licensing.gnu import grant
from diagramforge.licensing.spdx import UNKNOWN, spdx_keys_known

# -- REUSE, the README, file headers ------------------------------------------------------

def reuse_statements(root: Path) -> list[Evidence]:
    """REUSE's annotation of every file: a ``REUSE.toml`` ``[[annotations]]`` whose ``path``
    is ``**`` (or lists it), a ``.reuse/dep5`` paragraph ``Files: *``."""
    out: list[Evidence] = []
    toml = root / "REUSE.toml"
    if toml.is_file() and not toml.is_symlink() and toml.stat().st_size <= MAX_MANIFEST:
        try:
            data = tomllib.loads(toml.read_text(encoding="utf-8", errors="replace"))
        except tomllib.TOMLDecodeError:
            data = {}
        for ann in data.get("annotations", []) if isinstance(data, dict) else []:
            paths = ann.get("path") if isinstance(ann, dict) else None
            paths = [paths] if isinstance(paths, str) else paths or []
            lic = ann.get("SPDX-License-Identifier")
            if "**" in paths and isinstance(lic, str):
                out.append(_reuse("REUSE.toml", lic))
    dep5 = root / ".reuse" / "dep5"
    if dep5.is_file() and not dep5.is_symlink() and dep5.stat().st_size <= MAX_MANIFEST:
        for para in re.split(r"\n\s*\n", dep5.read_text(encoding="utf-8", errors="replace")):
            files = re.search(r"^Files:\s*(.+)$", para, re.M)
            lic = re.search(r"^License:\s*(.+)$", para, re.M)
            if files and lic and "*" in files.group(1).split():
                out.append(_reuse(".reuse/dep5", lic.group(1).strip()))
    return out


def _reuse(file: str, expr: str) -> Evidence:
    spdx = _spdx(expr)
    return Evidence(file, "reuse", spdx or UNKNOWN, 100.0 if spdx else 0.0,
                    "" if spdx else f"\"{expr[:80]}\" is no SPDX expression")


_README = re.compile(r"^readme(\.(md|markdown|rst|txt|org|adoc|asciidoc))?$", re.I)
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s*(?P<title>.+?)\s*#*\s*$")
_UNDERLINE = re.compile(r"^\s*([=\-~^*+#\"'`])\1{2,}\s*$")
_LICENCE_TITLE = re.compile(r"^\W*(licen[cs](e|es|ing)|copying|legal"
                            r"|copyright(\s+(and|&)\s+licen[cs]e)?)\b", re.I)
_FIELD = re.compile(r"^\W*licen[cs]e\W{0,3}:\s*\S", re.I)
_SAYS = re.compile(r"\b(licen[cs]ed|released|distributed|available|published)\s+under\b"
                   r"|\bunder the (terms|conditions) of\b", re.I)


def _headings(lines: list[str]) -> list[tuple[int, int, str]]:
    """(line index, level, title) of the Markdown (ATX, setext) and reST headings."""
    out = []
    for i, line in enumerate(lines):
        m = _HEADING.match(line)
        if m:
            out.append((i, len(m.group(1)), m.group("title")))
        elif i and _UNDERLINE.match(line) and lines[i - 1].strip() \
                and not _UNDERLINE.match(lines[i - 1]):
            over = i >= 2 and _UNDERLINE.match(lines[i - 2])
            out.append((i - 1, 1 if line.strip()[0] == "=" or over else 2,
                        lines[i - 1].strip()))
    return out


def plain(text: str) -> str:
    """Markup a maintainer does not read as words: HTML tags, Markdown images and link
    targets (``[MIT](LICENSE)`` is "MIT"), reST roles and link targets, soft hyphens and
    zero-width characters (``Li\\u00adcense``), code fences."""
    text = re.sub(r"[\u00ad\u200b\u200c\u200d\u2060\ufeff]", "", text)
    text = re.sub(r"<!--.*?-->", " ", text, flags=re.S)
    text = re.sub(r"!\[[^\]]*\]\([^)]*\)", " ", text)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"\[([^\]]*)\]\[[^\]]*\]", r"\1", text)
    text = re.sub(r"`([^`<]+?)\s*<[^>]+>`_+", r"\1", text)
    text = re.sub(r"</?[A-Za-z][^>]*>", " ", text)
    text = re.sub(r"^\s*(```|~~~).*$", "", text, flags=re.M)
    return re.sub(r"[*_`]{1,3}(?=\w)|(?<=\w)[*_`]{1,3}", "", text)


def readme_section(text: str) -> str:
    """A README's licence statement: the section under a heading "License", "Licence",
    "Licensing", "Copyright", "Legal" (to the next heading of its level or above), else the
    "License: …" lines, else the sentences saying "licensed under", "released under",
    "distributed under the terms of"; "" when it has none."""
    lines = text.splitlines()
    heads = _headings(lines)
    for n, (i, level, title) in enumerate(heads):
        if _LICENCE_TITLE.match(plain(title)):
            end = next((j for j, lv, _ in heads[n + 1:] if lv <= level), len(lines))
            body = "\n".join(lines[i + 1:end])
            body = "\n".join(x for x in body.splitlines() if not _UNDERLINE.match(x))
            if body.strip():
                return plain(body)
    fields = [plain(x) for x in lines if _FIELD.match(x)]
    if fields:
        return "\n".join(fields)
    flat = " ".join(plain(text).split())
    return "\n".join(x for x in re.split(r"(?<=[.!?])\s+", flat) if _SAYS.search(x))


def sections(text: str) -> list[str]:
    """A Markdown or reST text cut at its headings (YAML front matter and link reference
    definitions left out): the text before the first heading, then each section."""
    text = re.sub(r"\A---\n.*?\n---\n", "", text, flags=re.S)
    text = re.sub(r"^\s{0,3}\[[^\]]+\]:\s*\S+.*$", "", text, flags=re.M)
    lines = text.splitlines()
    cuts = [i for i, _, _ in _headings(lines)]
    bounds = [0, *cuts, len(lines)]
    return ["\n".join(x for x in lines[a:b] if not _UNDERLINE.match(x))
            for a, b in zip(bounds, bounds[1:], strict=False) if b > a]


def readme_statement(root: Path) -> Evidence | None:
    """The licence a top-level README states (:func:`readme_section`) as ScanCode reads it
    — ``README``, ``README.md``, ``README.rst``… first, other ``README*`` files (a
    ``README_ctan.md``) when those say nothing; None when no README has a statement."""
    readmes = sorted((p for p in root.iterdir() if p.is_file() and not p.is_symlink()
                      and p.name.lower().startswith("readme")
                      and p.stat().st_size <= MAX_MANIFEST),
                     key=lambda p: (not _README.match(p.name), len(p.name), p.name))
    for p in readmes:
        section = readme_section(p.read_text(encoding="utf-8", errors="replace"))
        if section.strip():
            det = detect_text(section)
            return Evidence(p.name, "readme", det.spdx, det.score,
                            det.detail or f"\"{' '.join(section.split())[:100]}\"",
                            det.open_choice)
    return None


_SPDX_TAG = re.compile(r"SPDX-License-Identifier:\s*([\w.+\-() ]+?)\s*(?:\*/|-->|$)", re.M)
HEADER_BYTES = 8192


def header_statements(root: Path, names: set[str] = frozenset()) -> list[Evidence]:
    """The ``SPDX-License-Identifier`` lines and GNU notices' grants in the first
    :data:`HEADER_BYTES` of the top-level files (not ``names``, the licence files): each
    file's own licence, in REUSE's reading — they choose "only" or "or later" for a GNU text,
    and state the licence of a repository with no other statement."""
    out = []
    for p in sorted(root.iterdir()):
        if not p.is_file() or p.is_symlink() or p.name in names:
            continue
        try:
            with p.open("rb") as f:
                head = f.read(HEADER_BYTES).decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        for m in _SPDX_TAG.finditer(head):
            spdx = _spdx(m.group(1).strip())
            if spdx:
                out.append(Evidence(p.name, "header", spdx, 100.0,
                                    open_choice=_open(spdx, m.group(1))))
        said = grant(head) if re.search(r"General\s+Public\s+Licen[cs]e", head) else None
        if said is not None and spdx_keys_known(said.spdx):
            out.append(Evidence(p.name, "header", said.spdx, 100.0, "GNU notice's grant"))
    return out
