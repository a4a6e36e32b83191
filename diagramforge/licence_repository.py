"""A repository's licence: its top-level licence files and package manifests, each read as
evidence (:class:`Evidence`), and what they say together (:class:`RepoLicence`).

Apart from :mod:`diagramforge.licence_detection` because it is another question: that module
says what one *text* states (ScanCode and the checks around it); this one says which files of
a repository count, how a manifest's licence field is read, and how several statements
combine or conflict — the rules a crawl stage applies, which change for other reasons than
the reading of a text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from diagramforge.licence_detection import detect_text
from diagramforge.licences import NO_LICENCE, UNKNOWN, join_and, parse_expression, spdx_keys_known

LICENCE_STEMS = ("LICENSE", "LICENCE", "COPYING", "UNLICENSE", "COPYRIGHT")
"""File-name stems of licence files (any case; ``LICENSE.md``, ``license``, ``LICENSE-MIT``,
``COPYING.txt`` all count)."""

MANIFESTS = ("package.json", "pyproject.toml", "setup.cfg", "Cargo.toml")
"""Top-level package manifests whose licence field is read."""


@dataclass(frozen=True)
class Evidence:
    """One thing a repository says about its licence: which file, read how, saying what.

    ``method``: ``text`` (ScanCode read a licence text), ``identifier`` (an
    ``SPDX-License-Identifier`` line), ``manifest`` (a package manifest's licence field),
    ``file-name`` (REUSE's ``LICENSES/<id>.txt``); ``score`` is ScanCode's (0–100; 100 for an
    SPDX expression read as such)."""

    file: str
    method: str
    spdx: str
    score: float
    detail: str = ""

    def to_dict(self) -> dict:
        return {"file": self.file, "method": self.method, "spdx": self.spdx,
                "score": self.score, **({"detail": self.detail} if self.detail else {})}


@dataclass(frozen=True)
class RepoLicence:
    """A repository's licence and the evidence for it.

    ``conflict`` is non-empty when two pieces of evidence name different licences (a
    manifest saying MIT, a LICENSE saying GPL-3.0-only): ``spdx`` is then every licence
    named (``AND``, the reading that never allows more than any one of them), and the crawl
    ledgers the repository's files as ``licence_conflict`` rather than choosing."""

    spdx: str
    evidence: tuple[Evidence, ...] = ()
    conflict: str = ""

    @property
    def files(self) -> list[str]:
        """The files that decided: the unreadable ones when the licence is unknown."""
        if self.spdx == UNKNOWN:
            return [e.file for e in self.evidence if e.spdx == UNKNOWN]
        return [e.file for e in self.evidence]

    @property
    def score(self) -> float:
        return min((e.score for e in self.evidence), default=0.0)

    def meta(self) -> dict:
        """What the crawl row's ``meta`` carries about the licence (the audit reads it)."""
        return {"licence_file": ", ".join(self.files) or None,
                "licence_score": round(self.score, 2),
                "licence_evidence": [e.to_dict() for e in self.evidence],
                **({"licence_conflict": self.conflict} if self.conflict else {})}


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


def read_statement(statement: str, file: str) -> Evidence:
    """A manifest's licence statement: an SPDX expression as such (``MIT OR Apache-2.0``;
    Cargo's old ``MIT/Apache-2.0``), anything else ("Apache 2.0", "BSD License") as a text
    ScanCode reads.  npm's ``UNLICENSED`` grants nothing: no licence."""
    text = statement.strip()
    if text.upper() == "UNLICENSED":
        return Evidence(file, "manifest", NO_LICENCE, 100.0, "UNLICENSED: no rights granted")
    expr = text.replace("/", " OR ") if file == "Cargo.toml" else text
    if spdx_keys_known(expr) and "LicenseRef-" not in expr:
        return Evidence(file, "manifest", parse_expression(expr).render(), 100.0)
    det = detect_text(text)
    return Evidence(file, "manifest", det.spdx, det.score,
                    det.detail or f"read by ScanCode from \"{text[:80]}\"")


def manifest_statements(root: Path) -> list[tuple[str, str]]:
    """(file, licence statement) of the top-level manifests that state one: ``package.json``
    ``license`` (or the old ``licenses`` list: a choice, ``OR``), ``pyproject.toml``
    ``[project] license`` (a string, or ``{text = …}``; ``{file = …}`` names a licence file,
    read as one) or ``[tool.poetry] license``, ``setup.cfg`` ``[metadata] license``,
    ``Cargo.toml`` ``[package] license``.  A manifest that does not parse says nothing."""
    import configparser
    import json
    import tomllib

    out: list[tuple[str, str]] = []
    for name in MANIFESTS:
        p = root / name
        if not p.is_file() or p.is_symlink() or p.stat().st_size > 1 << 20:
            continue
        text = p.read_text(encoding="utf-8", errors="replace")
        try:
            if name == "package.json":
                data = json.loads(text)
                lic = data.get("license") if isinstance(data, dict) else None
                if isinstance(lic, dict):
                    lic = lic.get("type")
                if lic is None and isinstance(data, dict) and isinstance(
                        data.get("licenses"), list):
                    types = [x.get("type") if isinstance(x, dict) else x
                             for x in data["licenses"]]
                    lic = " OR ".join(str(t) for t in types if t) or None
                if isinstance(lic, str) and not lic.upper().startswith("SEE LICEN"):
                    out.append((name, lic))
            elif name in ("pyproject.toml", "Cargo.toml"):
                data = tomllib.loads(text)
                section = data.get("package", {}) if name == "Cargo.toml" else \
                    data.get("project", {})
                lic = section.get("license")
                if lic is None and name == "pyproject.toml":
                    lic = data.get("tool", {}).get("poetry", {}).get("license")
                if isinstance(lic, dict):
                    lic = lic.get("text")
                if isinstance(lic, str) and lic.strip():
                    out.append((name, lic))
            else:
                cfg = configparser.ConfigParser(interpolation=None)
                cfg.read_string(text)
                lic = cfg.get("metadata", "license", fallback="").strip()
                if lic:
                    out.append((name, lic))
        except (ValueError, configparser.Error, tomllib.TOMLDecodeError, AttributeError):
            continue
    return out


def repository_licence(root: Path, max_bytes: int = 1 << 20) -> RepoLicence:
    """A repository's licence from its top-level licence files and package manifests.

    Several licence files all apply (``AND``: ``LICENSE-MIT`` and ``LICENSE-APACHE`` carry
    both).  A licence file that cannot be read as a known licence makes the repository
    ``LicenseRef-unknown`` — it may restrict what the others allow — and the evidence names
    it.  Manifests and licence files must agree on the licences they name: when they do, a
    manifest's expression says how (``MIT OR Apache-2.0`` beside ``LICENSE-MIT`` and
    ``LICENSE-APACHE``); when they do not, that is a conflict (:class:`RepoLicence`).
    """
    evidence: list[Evidence] = []
    for p in licence_files(root):
        rel = p.relative_to(root).as_posix()
        if p.parent.name == "LICENSES" and spdx_keys_known(p.stem) \
                and not p.stem.startswith("LicenseRef-"):
            evidence.append(Evidence(rel, "file-name", parse_expression(p.stem).render(),
                                     100.0))
        elif p.stat().st_size > max_bytes:
            evidence.append(Evidence(rel, "text", UNKNOWN, 0.0, f"larger than {max_bytes} B"))
        else:
            det = detect_text(p.read_text(encoding="utf-8", errors="replace"))
            evidence.append(Evidence(rel, det.method, det.spdx, det.score, det.detail))
    n_files = len(evidence)
    evidence += [read_statement(lic, name) for name, lic in manifest_statements(root)]
    if not evidence:
        return RepoLicence(NO_LICENCE)
    if any(e.spdx == UNKNOWN for e in evidence):
        return RepoLicence(UNKNOWN, tuple(evidence))
    files, manifests = evidence[:n_files], evidence[n_files:]
    said = [e for e in (files and [_joined(files)]) + manifests]
    keys = [frozenset(_keys(e.spdx)) for e in said]
    if len(set(keys)) > 1:
        why = "; ".join(f"{e.file} says {e.spdx}" for e in said)
        return RepoLicence(join_and([e.spdx for e in said if e.spdx != NO_LICENCE])
                           or NO_LICENCE, tuple(evidence), why)
    spdx = manifests[0].spdx if manifests and len({m.spdx for m in manifests}) == 1 \
        else said[0].spdx
    return RepoLicence(spdx, tuple(evidence))


def _joined(files: list[Evidence]) -> Evidence:
    return Evidence(", ".join(e.file for e in files), "text",
                    join_and([e.spdx for e in files]), min(e.score for e in files))


def _keys(spdx: str) -> set[str]:
    parsed = parse_expression(spdx)
    if parsed is None:
        return {spdx}
    return {getattr(s, "key", str(s)).lower() for s in parsed.symbols}
