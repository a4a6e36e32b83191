"""A repository's licence: what it *declares* (its manifests, REUSE's annotation of every
file, its README's statement: :mod:`diagramforge.licensing.declared`) and what its licence
files' texts say (*discovered*, by ScanCode), each read as :class:`Evidence`, and what they
say together (:class:`RepoLicence`).

Apart from :mod:`diagramforge.licensing.detection` because it is another question: that module
says what one *text* states; this one says which files of a repository count and how its
statements combine — the rules a crawl stage applies, which change for other reasons than
the reading of a text.  How statements combine, as a maintainer reads them:

* **the declaration decides how**: a manifest (or REUSE's annotation of ``**``) names the
  licence; licence files holding its parts agree with it (``MIT OR Apache-2.0`` beside
  ``LICENSE-MIT`` and ``LICENSE-APACHE``; ``AGPL-3.0-or-later OR LicenseRef-Element-Commercial``
  beside the AGPL text and a file about the commercial licence); with no manifest, the
  licence files do (all apply: ``AND``), and with neither, the README's statement;
* **a GNU text chooses nothing**: the GPL's text is the same whether a project grants
  "version 2 only" or "version 2 or later"; a statement of the same licence and version that
  chooses — a manifest, the README, a file header — refines it, when all that choose agree;
* **a file holding more is recorded**: a licence file (or REUSE's ``LICENSES/`` library)
  that names licences beside the declared ones (a CC0 waiver for sample code, an icon set's
  CC BY-SA) is evidence, not a conflict; the answer stays the declaration unless such a
  licence is stricter than it (its family: :func:`~diagramforge.licensing.spdx.licence_family`),
  then both apply (``AND``) — nothing is published under terms freer than a file states;
* **a conflict is a real disagreement**: a declaration and a licence file (or the README)
  that name no licence in common (``package.json`` ISC beside the GPL-3.0 text; a README's
  MIT beside the MIT-0 text) — ledgered with both.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from diagramforge.licensing.declared import Evidence, manifest_statements, read_statement
from diagramforge.licensing.detection import Detection, detect_text
from diagramforge.licensing.notes import without_summary
from diagramforge.licensing.spdx import (
    FAMILIES,
    NO_LICENCE,
    UNKNOWN,
    join_and,
    licence_family,
    parse_expression,
    spdx_keys_known,
)
from diagramforge.licensing.statements import (
    header_statements,
    plain,
    readme_statement,
    reuse_statements,
    sections,
)

__all__ = ["Evidence", "RepoLicence", "licence_files", "repository_licence"]

_LICENCE_NAME = re.compile(
    # licensee's and ScanCode's licence file names: LICENSE*, LICENCE*, UNLICENSE, COPYING*,
    # MIT-LICENSE, OFL.txt, Eclipse's epl-v10.html; COPYRIGHT (when nothing else is)
    r"^((un)?licen[cs]e|copying|copyright|ofl\b|[a-z0-9]{2,8}[-_]licen[cs]e"
    r"|[a-z]{2,5}-v\d+\.html?$)", re.I)
_NOT_LICENCE = re.compile(r"third[-_ .]?party|faq|header|template|\.(py|js|sh|rb|go|json"
                          r"|toml|ya?ml|cfg|in|spec)$", re.I)
_SPDX_NAMED = re.compile(r"^(?P<id>[A-Za-z0-9.+-]*[-\d][A-Za-z0-9.+-]*|MIT|ISC|WTFPL|Zlib)"
                         r"(\.(txt|md|rst|html?))?$")
_CRAN = re.compile(r"^\s*(YEAR|COPYRIGHT HOLDER|ORGANI[SZ]ATION)\s*:", re.I)


@dataclass(frozen=True)
class RepoLicence:
    """A repository's licence and the evidence for it.

    ``conflict`` is non-empty when two statements name different licences (a manifest
    saying ISC, a LICENSE holding the GPL-3.0 text): ``spdx`` is then every licence named
    (``AND``, the reading that never allows more than any one of them), and the crawl
    ledgers the repository's files as ``licence_conflict`` rather than choosing."""

    spdx: str
    evidence: tuple[Evidence, ...] = ()
    conflict: str = ""

    @property
    def files(self) -> list[str]:
        """The files that decided: the unreadable ones when the licence is unknown."""
        if self.spdx == UNKNOWN:
            return [e.file for e in self.evidence if e.spdx == UNKNOWN
                    and e.method not in ("readme", "notice")]
        return [e.file for e in self.evidence if e.method not in ("readme", "header", "notice")
                and e.spdx != NO_LICENCE] or [e.file for e in self.evidence]

    @property
    def score(self) -> float:
        return min((e.score for e in self.evidence if e.spdx != NO_LICENCE), default=0.0)

    def meta(self) -> dict:
        """What the crawl row's ``meta`` carries about the licence (the audit reads it)."""
        return {"licence_file": ", ".join(self.files) or None,
                "licence_score": round(self.score, 2),
                "licence_evidence": [e.to_dict() for e in self.evidence],
                **({"licence_conflict": self.conflict} if self.conflict else {})}


def _is_licence_name(name: str) -> bool:
    if name.startswith(".") or _NOT_LICENCE.search(name):
        return False
    if _LICENCE_NAME.match(name):
        return True
    m = _SPDX_NAMED.match(name)
    return bool(m) and spdx_keys_known(m.group("id")) and not m.group("id").startswith(
        "LicenseRef-") and hasattr(parse_expression(m.group("id")), "key")


def licence_files(root: Path, named: list[str] = ()) -> list[Path]:
    """A repository's top-level licence files, most conventional first.

    Any case and extension (``LICENSE``, ``license``, ``LICENSE.md``, ``COPYING.txt``), split
    licences (``LICENSE-MIT``, ``LICENSE-APACHE``, ``LICENSE.BSD``), ``MIT-LICENSE``,
    ``UNLICENSE``, a font's ``OFL.txt``, Eclipse's ``epl-v10.html``, a file named after an
    SPDX id (``LGPL-2.1-or-later``, ``Apache-2.0.txt``), the files a manifest names
    (``named``: "SEE LICENSE IN …", ``license-files``), and REUSE's ``LICENSES/<id>.txt``.
    Third-party notices (``THIRD-PARTY-LICENSES.txt``) are the bundled code's, not the
    repository's.  ``COPYRIGHT`` files count only when nothing else does: they usually
    hold notices."""
    files = [p for p in sorted(root.iterdir())
             if p.is_file() and not p.is_symlink() and _is_licence_name(p.name)]
    for name in named:
        for p in sorted(root.glob(name)) if not name.startswith(("/", "..")) else ():
            if p.is_file() and not p.is_symlink() and p.parent == root and p not in files:
                files.append(p)
    reuse = root / "LICENSES"
    if reuse.is_dir() and not reuse.is_symlink():
        files += [p for p in sorted(reuse.iterdir()) if p.is_file() and not p.is_symlink()]
    main = [p for p in files if not p.name.upper().startswith("COPYRIGHT")
            or p.parent.name == "LICENSES"]
    return sorted(main or files, key=lambda p: (p.parent != root, len(p.name), p.name))


def read_licence_file(p: Path, rel: str, max_bytes: int) -> Evidence:
    """One licence file: by its name when REUSE's ``LICENSES/<id>`` or named after an SPDX
    id and its text agrees or is unreadable… by its text otherwise; HTML as its text;
    Markdown and reStructuredText read once more without their markup when the first
    reading fails; R's ``YEAR:``/``COPYRIGHT HOLDER:`` template is a notice."""
    if p.parent.name == "LICENSES" and spdx_keys_known(p.stem) \
            and not p.stem.startswith("LicenseRef-"):
        return Evidence(rel, "file-name", parse_expression(p.stem).render(), 100.0)
    if p.stat().st_size > max_bytes:
        return Evidence(rel, "text", UNKNOWN, 0.0, f"larger than {max_bytes} B")
    text = p.read_text(encoding="utf-8", errors="replace")
    if p.suffix.lower() in (".html", ".htm"):
        from lxml import html

        text = html.fromstring(text.encode()).text_content() if text.strip() else text
    det = detect_text(text)
    if det.spdx == UNKNOWN and p.suffix.lower() in (".md", ".markdown", ".rst", ".txt", ""):
        second = detect_text(plain(text)) if plain(text) != text else det
        if second.spdx != UNKNOWN:
            det = second
    if det.spdx == UNKNOWN and p.suffix.lower() in (".md", ".markdown", ".rst"):
        det = _read_sections(text) or det
    if det.spdx == UNKNOWN and det.score == 0.0:
        lines = [x for x in text.splitlines() if x.strip()]
        if lines and all(_CRAN.match(x) for x in lines):
            return Evidence(rel, "notice", NO_LICENCE, 0.0,
                            "a copyright holder and year (R's licence template), no licence")
    named = _SPDX_NAMED.match(p.name)
    if named and p.parent.name != "LICENSES" and _is_licence_name(p.name) \
            and not _LICENCE_NAME.match(p.name):
        spdx = parse_expression(named.group("id")).render()
        if det.spdx == UNKNOWN or _base(det.spdx) == _base(spdx):
            return Evidence(rel, "file-name", spdx, 100.0, det.detail)
    return Evidence(rel, det.method, det.spdx, det.score, det.detail, det.open_choice)


def _read_sections(text: str) -> Detection | None:
    """A Markdown or reST licence file in sections, one licence each ("## Instructional
    Material" under CC BY 4.0, "## Software" under MIT, "## Trademark"): each section read
    alone, without a human-readable summary its text says is not the licence ("The
    following is a human-readable summary of (and not a substitute for) the full legal
    text"); every section that states a licence must be read, and the file states them
    all.  None when it has fewer than two sections or one cannot be read."""
    parts = [without_summary(plain(x)) for x in sections(text)]
    if len(parts) < 2:
        return None
    read = [detect_text(x) for x in parts if x.strip()]
    if any(r.spdx == UNKNOWN and (r.score or r.scancode) for r in read):
        return None
    said = [r for r in read if r.spdx != UNKNOWN]
    if not said:
        return None
    return Detection(join_and([r.spdx for r in said]), "text", min(r.score for r in said),
                     " AND ".join(r.scancode for r in said), "read section by section",
                     open_choice=tuple(i for r in said for i in r.open_choice))


def _ids(spdx: str) -> list[str]:
    parsed = parse_expression(spdx)
    if parsed is None:
        return [spdx]
    out = []
    for s in parsed.symbols:
        key = getattr(s, "key", str(s))
        out.append(key)
    return out


def _base(spdx: str) -> str:
    """An id without its GNU choice: ``GPL-2.0-only`` → ``GPL-2.0``."""
    return re.sub(r"-(only|or-later)$", "", spdx)


_GNU = re.compile(r"^(A|L)?GPL-\d\.\d-(only|or-later)$")


def _keys(e: Evidence) -> set[str]:
    """The licences a statement names, lower-cased; a GNU id whose choice it leaves open as
    ``gpl-2.0-*``, which either choice matches."""
    return {(_base(i) + "-*" if i in e.open_choice else i).lower() for i in _ids(e.spdx)}


def _match(a: str, b: str) -> bool:
    return a == b or a.endswith("-*") and b.startswith(a[:-1]) \
        or b.endswith("-*") and a.startswith(b[:-1])


def _refine(e: Evidence, choices: dict[str, set[bool]]) -> Evidence:
    """``e`` with its open GNU ids chosen as every statement that chooses chooses."""
    if not e.open_choice:
        return e
    spdx, still, said = e.spdx, [], []
    for i in e.open_choice:
        chosen = choices.get(_base(i), set())
        if len(chosen) == 1:
            new = _base(i) + ("-or-later" if chosen.pop() else "-only")
            spdx = re.sub(rf"(?<![\w.+-]){re.escape(i)}(?![\w.+-])", new, spdx)
            said.append(new)
        else:
            still.append(i)
    if not said:
        return e
    detail = "; ".join(x for x in (e.detail, f"{', '.join(said)}: the choice the repository's "
                                             "statements make") if x)
    return Evidence(e.file, e.method, parse_expression(spdx).render(), e.score, detail,
                    tuple(still))


def _choices(statements: list[Evidence]) -> dict[str, set[bool]]:
    """GNU licence and version → the choices ("or later": True) the statements make."""
    out: dict[str, set[bool]] = {}
    for e in statements:
        for i in _ids(e.spdx):
            if _GNU.match(i) and i not in e.open_choice:
                out.setdefault(_base(i), set()).add(i.endswith("-or-later"))
    return out


def _disjoint(a: set[str], b: set[str]) -> bool:
    return not any(_match(x, y) for x in a for y in b)


def _accounted(e: Evidence, declared: list[Evidence]) -> bool:
    """An unreadable licence file that is the text of a ``LicenseRef-`` the declaration
    names: ``LICENSE-COMMERCIAL`` beside ``AGPL-3.0-or-later OR
    LicenseRef-Element-Commercial`` (a licence with no SPDX id has no text to read it by)."""
    words = set(re.findall(r"[a-z]{3,}", e.file.lower())) - {
        "license", "licence", "licenses", "licences", "copying", "txt"}
    refs = {w for d in declared for i in _ids(d.spdx) if i.startswith("LicenseRef-")
            for w in re.findall(r"[a-z]{3,}", i.lower()[len("licenseref-"):])}
    return bool(words & refs)


def repository_licence(root: Path, max_bytes: int = 1 << 20) -> RepoLicence:
    """A repository's licence from what it declares and what its licence files say (the
    module's docstring: how they combine).  A licence file that cannot be read as a known
    licence makes the repository ``LicenseRef-unknown`` — it may restrict what the others
    allow — unless it is the text of a ``LicenseRef-`` the declaration names; so does a
    manifest whose licence cannot be read.  A README's statement that cannot be read says
    nothing."""
    statements = manifest_statements(root)
    declared = [read_statement(s) for s in statements if s.kind != "file"]
    declared += reuse_statements(root)
    paths = licence_files(root, [s.value for s in statements if s.kind == "file"])
    named = {p.name for p in paths if p.parent == root}
    files = [read_licence_file(p, p.relative_to(root).as_posix(), max_bytes) for p in paths]
    files = [e if e.spdx != UNKNOWN or e.score or _is_licence_name(e.file)
             or e.file.startswith("LICENSES/") else
             Evidence(e.file, "notice", NO_LICENCE, 0.0, "named by the manifest's licence "
                      "files; no licence text in it (an AUTHORS list)") for e in files]
    readme = readme_statement(root)
    headers = header_statements(root, named)
    evidence = files + declared + ([readme] if readme else [])
    if not [e for e in evidence if e.method != "notice"] and not headers:
        return RepoLicence(NO_LICENCE)
    if any(e.spdx == UNKNOWN and e.method not in ("readme", "classifier")
           and not _accounted(e, declared) for e in files + declared):
        return RepoLicence(UNKNOWN, tuple(evidence))
    readme = readme if readme and readme.spdx not in (UNKNOWN, NO_LICENCE) else None
    said = [e for e in declared if e.spdx not in (UNKNOWN, NO_LICENCE)]
    choices = _choices(said + ([readme] if readme else []) + headers)
    files = [_refine(e, choices) for e in files]
    said = [_refine(e, choices) for e in said]
    readme = _refine(readme, choices) if readme else None
    evidence = tuple(files + [e for e in declared if e.spdx in (UNKNOWN, NO_LICENCE)] + said
                     + ([readme] if readme else []))
    known = [e for e in files if e.spdx not in (UNKNOWN, NO_LICENCE)]
    main = [e for e in known if not e.file.startswith("LICENSES/")]
    base = said[0] if said else None
    if base is None and not known:
        base = readme or (Evidence(", ".join(e.file for e in headers), "header",
                                   join_and([e.spdx for e in headers]), 100.0)
                          if headers else None)
        if base is None:
            return RepoLicence(NO_LICENCE, evidence)
        return RepoLicence(base.spdx, evidence + ((base,) if base.method == "header" else ()))
    found = Evidence(", ".join(e.file for e in main or known), "text",
                     join_and([e.spdx for e in main or known]),
                     min((e.score for e in main or known), default=0.0),
                     open_choice=tuple(i for e in main or known for i in e.open_choice))
    if base is None:  # no declaration: the licence files say it, all of them
        base = Evidence(", ".join(e.file for e in known), "text",
                        join_and([e.spdx for e in known]), found.score,
                        open_choice=found.open_choice)
        checks = [readme] if readme else []
    else:
        # (a README beside a manifest is prose about the declared licence: recorded, and it
        # may choose for a GNU text; it is checked against the licence files only when
        # nothing else declares)
        checks = [*said[1:], *([found] if main else [])]
    against = [c for c in checks if _disjoint(_keys(c), _keys(base))]
    if against:
        why = "; ".join(f"{e.file} says {e.spdx}" for e in [base, *against])
        return RepoLicence(join_and([e.spdx for e in [base, *against]]), evidence, why)
    more = {i for c in [*checks, *known, *([readme] if readme else [])] for i in _ids(c.spdx)
            if not any(_match(k, i.lower()) for k in _keys(base))}
    rank = FAMILIES.index
    stricter = sorted(i for i in more if rank(licence_family(i)) > rank(licence_family(
        base.spdx)))
    return RepoLicence(join_and([base.spdx, *stricter]) if stricter else base.spdx, evidence)
