"""What a repository *declares* its licence to be: its package manifests, REUSE's
repository-wide annotation, and its README's licence statement — read as a maintainer reads
them, each as :class:`Evidence`.

ClearlyDefined and GitHub's licensee separate the *declared* licence (the project's own
statement) from the *discovered* ones (what the files' texts say); this module is the first
half, :mod:`diagramforge.licensing.repository` reads the licence files and resolves the two.
Each ecosystem states the licence its own way:

* SPDX expressions: npm's ``package.json``, Cargo, PEP 639's ``pyproject.toml``
  ``license``, Composer, REUSE, meson, ``CITATION.cff``, MediaWiki's ``extension.json``;
* names: setuptools' ``license=`` ("Expat", "PSFL", "MIT license"), Maven's
  ``<licenses><license><name>``, Nimble, gemspecs — read by :data:`NAMES` (tested) and
  otherwise by ScanCode, part by part ("MIT or Apache License 2.0");
* a grammar of its own: R's ``DESCRIPTION`` ("GPL (>= 2)", "MIT + file LICENSE",
  "MPL-2.0 | file LICENSE"), CPAN's keys (``artistic_2``, ``perl_5``), trove classifiers
  ("GNU General Public License v2 or later (GPLv2+)");
* a pointer to a file: npm's "SEE LICENSE IN <file>", Cargo's ``license-file``,
  pyproject's ``{file = …}``, PEP 639's ``license-files`` — the file is read as a licence
  file.

``setup.py`` is read as a syntax tree (:mod:`ast`), never run.  A manifest that does not
parse says nothing.  GNU ids a statement names without choosing "only" or "or later" (the
deprecated ``GPL-2.0``, R's ``GPL``, a README's "GPLv2") are :attr:`Evidence.open_choice`.
"""

from __future__ import annotations

import ast
import configparser
import contextlib
import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from diagramforge.licensing.detection import detect_text
from diagramforge.licensing.spdx import (
    NO_LICENCE,
    UNKNOWN,
    join_and,
    parse_expression,
    spdx_keys_known,
)

MAX_MANIFEST = 1 << 20


@dataclass(frozen=True)
class Evidence:
    """One thing a repository says about its licence: which file, read how, saying what.

    ``method``: ``text`` (ScanCode read a licence text), ``identifier`` (an
    ``SPDX-License-Identifier`` line), ``manifest`` (a package manifest's licence field),
    ``file-name`` (REUSE's ``LICENSES/<id>.txt``, a file named after an SPDX id), ``reuse``
    (REUSE's annotation of every file), ``readme`` (the README's licence statement),
    ``header`` (a top-level file's ``SPDX-License-Identifier`` or GNU notice), ``notice``
    (a licence file holding only a copyright holder, as R's ``MIT + file LICENSE``
    template); ``score`` is ScanCode's (0–100; 100 for an SPDX expression read as such).
    ``open_choice``: the GNU ``-only`` ids of ``spdx`` it reads from words that do not choose
    between "only" and "or later"."""

    file: str
    method: str
    spdx: str
    score: float
    detail: str = ""
    open_choice: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        return {"file": self.file, "method": self.method, "spdx": self.spdx,
                "score": self.score, **({"detail": self.detail} if self.detail else {})}


def _norm(name: str) -> str:
    return " ".join(re.sub(r"[\"'`]", "", name).lower().replace("licence", "license").split())


NAMES: dict[str, str] = {
    # names manifests use for SPDX licences (Debian's DEP-5 short names, setuptools' and
    # CPAN's habits), looked up lower-cased with "licence" spelled "license"
    "expat": "MIT", "expat license": "MIT", "mit (expat)": "MIT", "mit/expat": "MIT",
    "mit license": "MIT", "the mit license": "MIT", "mit-style": "LicenseRef-unknown",
    "psfl": "PSF-2.0", "psf": "PSF-2.0", "psf license": "PSF-2.0", "psf-2": "PSF-2.0",
    "python software foundation license": "PSF-2.0",
    "gplv2+": "GPL-2.0-or-later", "gplv3+": "GPL-3.0-or-later", "gpl-2+": "GPL-2.0-or-later",
    "gpl-3+": "GPL-3.0-or-later", "lgplv2+": "LGPL-2.0-or-later",
    "lgplv2.1+": "LGPL-2.1-or-later", "lgpl-2.1+": "LGPL-2.1-or-later",
    "lgplv3+": "LGPL-3.0-or-later", "lgpl-3+": "LGPL-3.0-or-later",
    "agplv3+": "AGPL-3.0-or-later", "agpl-3+": "AGPL-3.0-or-later",
    "gplv2": "GPL-2.0", "gplv3": "GPL-3.0", "lgplv2.1": "LGPL-2.1", "lgplv3": "LGPL-3.0",
    "agplv3": "AGPL-3.0", "apache 2": "Apache-2.0", "apache 2.0": "Apache-2.0",
    "apache-2": "Apache-2.0", "apache license 2.0": "Apache-2.0", "asl 2.0": "Apache-2.0",
    "bsd-2": "BSD-2-Clause", "bsd-3": "BSD-3-Clause", "new bsd": "BSD-3-Clause",
    "modified bsd": "BSD-3-Clause", "simplified bsd": "BSD-2-Clause",
    "public domain": "LicenseRef-unknown", "unlicense": "Unlicense", "the unlicense": "Unlicense",
    "cc0": "CC0-1.0", "wtfpl": "WTFPL", "zlib": "Zlib", "isc license": "ISC",
}
"""Non-SPDX names manifests use, as SPDX expressions (``LicenseRef-unknown``: a name that
is no one licence, "public domain", "MIT-style").  A GNU name with no "+" chooses nothing
(``GPL-2.0``: open, as SPDX's deprecated id)."""

CPAN: dict[str, str] = {
    # CPAN::Meta::Spec's licence keys (Makefile.PL's LICENSE, META.json's license)
    "perl_5": "Artistic-1.0-Perl OR GPL-1.0-or-later", "perl": "Artistic-1.0-Perl OR "
    "GPL-1.0-or-later", "artistic_1": "Artistic-1.0", "artistic_2": "Artistic-2.0",
    "apache_1_1": "Apache-1.1", "apache_2_0": "Apache-2.0", "bsd": "BSD-3-Clause",
    "freebsd": "BSD-2-Clause", "gfdl_1_2": "GFDL-1.2-or-later", "gfdl_1_3": "GFDL-1.3-or-later",
    "gpl_1": "GPL-1.0", "gpl_2": "GPL-2.0", "gpl_3": "GPL-3.0", "lgpl_2_1": "LGPL-2.1",
    "lgpl_3_0": "LGPL-3.0", "mit": "MIT", "mozilla_1_0": "MPL-1.0", "mozilla_1_1": "MPL-1.1",
    "openssl": "OpenSSL", "qpl_1_0": "QPL-1.0", "ssleay": "SSLeay", "sun": "SISSL",
    "zlib": "Zlib",
}

R_NAMES: dict[str, str] = {
    # R's share/licenses/license.db short names ("Writing R Extensions", 1.1.2)
    "gpl": "GPL", "lgpl": "LGPL", "agpl": "AGPL", "gpl-2": "GPL-2.0-only",
    "gpl-3": "GPL-3.0-only", "lgpl-2": "LGPL-2.0-only", "lgpl-2.1": "LGPL-2.1-only",
    "lgpl-3": "LGPL-3.0-only", "agpl-3": "AGPL-3.0-only", "artistic-2.0": "Artistic-2.0",
    "bsd_2_clause": "BSD-2-Clause", "bsd_3_clause": "BSD-3-Clause", "mit": "MIT",
    "apache license": "Apache", "apache license 2.0": "Apache-2.0", "cc0": "CC0-1.0",
    "cc by 4.0": "CC-BY-4.0", "cc by-sa 4.0": "CC-BY-SA-4.0", "cc by-nc 4.0": "CC-BY-NC-4.0",
    "cc by-nc-sa 4.0": "CC-BY-NC-SA-4.0", "mpl-2.0": "MPL-2.0", "mpl": "MPL-2.0",
    "epl": "EPL-1.0", "eupl": "EUPL-1.1", "bsl-1.0": "BSL-1.0", "unlimited": UNKNOWN,
}

CLASSIFIERS: dict[str, str] = {
    # trove classifiers that name one SPDX licence, or a GNU licence and version with or
    # without "or later" (most others name a family: "BSD License", "Apache Software License")
    "MIT License": "MIT", "MIT No Attribution License (MIT-0)": "MIT-0",
    "ISC License (ISCL)": "ISC", "Mozilla Public License 2.0 (MPL 2.0)": "MPL-2.0",
    "The Unlicense (Unlicense)": "Unlicense", "Boost Software License 1.0 (BSL-1.0)": "BSL-1.0",
    "Zero-Clause BSD (0BSD)": "0BSD", "Python Software Foundation License": "PSF-2.0",
    "Eclipse Public License 2.0 (EPL-2.0)": "EPL-2.0",
    "GNU General Public License v2 (GPLv2)": "GPL-2.0",
    "GNU General Public License v2 or later (GPLv2+)": "GPL-2.0-or-later",
    "GNU General Public License v3 (GPLv3)": "GPL-3.0",
    "GNU General Public License v3 or later (GPLv3+)": "GPL-3.0-or-later",
    "GNU Lesser General Public License v2 (LGPLv2)": "LGPL-2.0",
    "GNU Lesser General Public License v2 or later (LGPLv2+)": "LGPL-2.0-or-later",
    "GNU Lesser General Public License v3 (LGPLv3)": "LGPL-3.0",
    "GNU Lesser General Public License v3 or later (LGPLv3+)": "LGPL-3.0-or-later",
    "GNU Affero General Public License v3": "AGPL-3.0",
    "GNU Affero General Public License v3 or later (AGPLv3+)": "AGPL-3.0-or-later",
}

_DEPRECATED_GNU = re.compile(r"\b(A|L)?GPL-\d\.\d\b(?!-only|-or-later|\+)", re.I)
_SEE = re.compile(r"^see licen[cs]e in\s+(\S+)", re.I)


@dataclass(frozen=True)
class Statement:
    """A manifest's licence field as written: ``kind`` says how to read ``value`` —
    ``expression`` (an SPDX expression or a name), ``r`` (R's DESCRIPTION grammar), ``cpan``
    (CPAN keys, a choice), ``classifier``, ``file`` (the value names a licence file)."""

    file: str
    value: str
    kind: str = "expression"


def _choice(values: list[str]) -> str:
    """Several licences a manifest lists: the user may choose (npm's old ``licenses``,
    Composer, Maven, RubyGems, CPAN all read a list so)."""
    values = [v.strip() for v in values if isinstance(v, str) and v.strip()]
    return " OR ".join(f"({v})" if " " in v and len(values) > 1 else v for v in values)


def _json(p: Path, name: str) -> list[Statement]:
    data = json.loads(p.read_text(encoding="utf-8", errors="replace"))
    if not isinstance(data, dict):
        return []
    if name in ("extension.json", "skin.json"):
        lic = data.get("license-name")
        return [Statement(name, lic)] if isinstance(lic, str) else []
    lic = data.get("license")
    if isinstance(lic, dict):
        lic = lic.get("type")
    if isinstance(lic, list):
        lic = _choice([x.get("type") if isinstance(x, dict) else x for x in lic])
    if lic is None and isinstance(data.get("licenses"), list):
        lic = _choice([x.get("type") if isinstance(x, dict) else x for x in data["licenses"]])
    if not isinstance(lic, str) or not lic.strip():
        return []
    see = _SEE.match(lic.strip())
    return [Statement(name, see.group(1), "file") if see else Statement(name, lic)]


def _toml(p: Path, name: str) -> list[Statement]:
    data = tomllib.loads(p.read_text(encoding="utf-8", errors="replace"))
    out: list[Statement] = []
    if name == "Cargo.toml":
        for section in (data.get("package", {}), data.get("workspace", {}).get("package", {})):
            lic, lic_file = section.get("license"), section.get("license-file")
            if isinstance(lic, str) and lic.strip():
                out.append(Statement(name, lic.replace("/", " OR ")))
            elif isinstance(lic_file, str):
                out.append(Statement(name, lic_file, "file"))
        return out[:1]
    project = data.get("project", {})
    poetry = data.get("tool", {}).get("poetry", {})
    lic = project.get("license", poetry.get("license"))
    if isinstance(lic, dict):
        if isinstance(lic.get("file"), str):
            out.append(Statement(name, lic["file"], "file"))
        lic = lic.get("text")
    if isinstance(lic, str) and lic.strip():
        out.append(Statement(name, lic))
    files = project.get("license-files")
    if isinstance(files, list):
        out += [Statement(name, f, "file") for f in files if isinstance(f, str)]
    classifiers = project.get("classifiers", poetry.get("classifiers", []))
    return out + _classifiers(name, classifiers)


def _classifiers(name: str, classifiers) -> list[Statement]:  # noqa: ANN001 - from a manifest
    if not isinstance(classifiers, list):
        return []
    found = [c.rsplit("::", 1)[-1].strip() for c in classifiers
             if isinstance(c, str) and c.startswith("License ::")]
    named = [CLASSIFIERS[c] for c in found if c in CLASSIFIERS]
    return [Statement(name, _choice(named), "classifier")] if named else []


def _setup_cfg(p: Path, name: str) -> list[Statement]:
    cfg = configparser.ConfigParser(interpolation=None)
    cfg.read_string(p.read_text(encoding="utf-8", errors="replace"))
    lic = cfg.get("metadata", "license_expression", fallback="").strip() or \
        cfg.get("metadata", "license", fallback="").strip()
    out = [Statement(name, lic)] if lic else []
    classifiers = cfg.get("metadata", "classifiers", fallback="").strip().splitlines()
    return out + _classifiers(name, [c.strip() for c in classifiers])


def _setup_py(p: Path, name: str) -> list[Statement]:
    """``setup(license=…, classifiers=[…])`` read from the syntax tree: string constants,
    or names bound to one at module level — the file is never run."""
    tree = ast.parse(p.read_text(encoding="utf-8", errors="replace"))
    consts: dict[str, object] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            with contextlib.suppress(ValueError, TypeError, SyntaxError, MemoryError,
                                     RecursionError):
                consts[node.targets[0].id] = ast.literal_eval(node.value)

    def value(node: ast.AST) -> object:
        if isinstance(node, ast.Name):
            return consts.get(node.id)
        try:
            return ast.literal_eval(node)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None

    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func.attr if isinstance(node.func, ast.Attribute) else \
            getattr(node.func, "id", "")
        if func != "setup":
            continue
        kw = {k.arg: value(k.value) for k in node.keywords if k.arg}
        lic = kw.get("license_expression") or kw.get("license")
        out = [Statement(name, lic)] if isinstance(lic, str) and lic.strip() else []
        return out + _classifiers(name, kw.get("classifiers"))
    return []


def _description(p: Path, name: str) -> list[Statement]:
    """R's DESCRIPTION (Debian control format): the ``License:`` field, continued on
    indented lines."""
    field, lines = None, []
    for line in p.read_text(encoding="utf-8", errors="replace").splitlines():
        if line[:1].isspace() and field == "license":
            lines.append(line.strip())
        elif ":" in line and not line[:1].isspace():
            key, val = line.split(":", 1)
            field = key.strip().lower()
            if field == "license":
                lines = [val.strip()]
    return [Statement(name, " ".join(lines), "r")] if lines and lines[0] else []


def _text_field(p: Path, name: str) -> list[Statement]:
    """The licence field of manifests read by their words: a gemspec's ``s.license(s) =``,
    meson's ``project(… license: …)``, Nimble's ``license =``, Makefile.PL's ``LICENSE =>``
    (a CPAN key), Maven's ``<licenses><license><name>``, ``CITATION.cff``'s ``license:``."""
    text = p.read_text(encoding="utf-8", errors="replace")
    if name.endswith(".gemspec"):
        m = re.search(r"\.licen[cs]es?\s*=\s*(\[[^\]]*\]|\"[^\"]*\"|'[^']*'|%w\[[^\]]*\])", text)
        vals = re.findall(r"[\"']([^\"']+)[\"']", m.group(1)) if m else []
        if m and m.group(1).startswith("%w"):
            vals = m.group(1)[3:-1].split()
        return [Statement(name, _choice(vals))] if vals else []
    if name == "meson.build":
        m = re.search(r"\bproject\s*\((.*?)\)\s*(\n|$)", text, re.S)
        lic = re.search(r"\blicense\s*:\s*(\[[^\]]*\]|'[^']*')", m.group(1)) if m else None
        vals = re.findall(r"'([^']+)'", lic.group(1)) if lic else []
        # an array is every licence of the project (meson's project_license())
        return [Statement(name, join_and(vals) if len(vals) > 1 else vals[0])] if vals else []
    if name.endswith(".nimble"):
        m = re.search(r"^license\s*=\s*\"([^\"]+)\"", text, re.M)
        return [Statement(name, m.group(1))] if m else []
    if name == "Makefile.PL":
        m = re.search(r"\bLICENSE\s*=>\s*['\"](\w+)['\"]", text)
        return [Statement(name, m.group(1), "cpan")] if m else []
    if name == "pom.xml":
        from lxml import etree

        root = etree.fromstring(text.encode(), etree.XMLParser(resolve_entities=False,
                                                               no_network=True))
        names = root.xpath("/*[local-name()='project']/*[local-name()='licenses']"
                           "/*[local-name()='license']/*[local-name()='name']/text()")
        return [Statement(name, _choice(names))] if names else []
    if name.lower() == "citation.cff":
        m = re.search(r"^license:\s*(.+)$", text, re.M)
        vals = [m.group(1).strip().strip("\"'")] if m and m.group(1).strip() else []
        if m and not vals:
            vals = re.findall(r"^\s+-\s*(\S+)", text[m.end():].split("\n\n")[0], re.M)
        return [Statement(name, _choice(vals))] if vals else []
    return []


MANIFESTS = (("package.json", _json), ("pyproject.toml", _toml), ("setup.cfg", _setup_cfg),
             ("setup.py", _setup_py), ("Cargo.toml", _toml), ("composer.json", _json),
             ("DESCRIPTION", _description), ("pom.xml", _text_field),
             ("*.gemspec", _text_field), ("meson.build", _text_field),
             ("*.nimble", _text_field), ("Makefile.PL", _text_field),
             ("extension.json", _json), ("skin.json", _json), ("CITATION.cff", _text_field),
             ("citation.cff", _text_field))
"""The top-level manifests read, in the order their statements count (package metadata
first, citation metadata last)."""


def manifest_statements(root: Path) -> list[Statement]:
    """Every licence statement of the top-level manifests, in :data:`MANIFESTS`' order; a
    manifest that does not parse says nothing."""
    out: list[Statement] = []
    seen: set[Path] = set()
    for pattern, reader in MANIFESTS:
        for p in sorted(root.glob(pattern)):
            if p in seen or not p.is_file() or p.is_symlink() \
                    or p.stat().st_size > MAX_MANIFEST:
                continue
            seen.add(p)
            try:
                out += reader(p, p.name)
            except (ValueError, SyntaxError, configparser.Error, tomllib.TOMLDecodeError,
                    AttributeError, TypeError, RecursionError, MemoryError):
                continue
    return out


# -- reading a statement ---------------------------------------------------------------

_LOWER_OP = re.compile(r"(?<![\w-])(and|or|with)(?![\w-])")


def _spdx(expr: str) -> str | None:
    """An SPDX expression (ids in any case, ``+``, deprecated ids) in SPDX's spelling, or
    None.  ``LicenseRef-`` ids are the project's own (``LicenseRef-Element-Commercial``)."""
    if not re.fullmatch(r"[\w.+\-() ]+", expr) or _LOWER_OP.search(expr) \
            or UNKNOWN in expr or NO_LICENCE in expr or not spdx_keys_known(expr):
        return None
    return parse_expression(expr).render()


_OPEN_GNU = re.compile(r"\b(?P<name>[AL]?GPL)[- ]?v?(?P<v>\d(?:\.\d)?)(?![\d.]|-only|-or-later|\+)",
                       re.I)


def _open(expr: str, raw: str) -> tuple[str, ...]:
    """The GNU ``-only`` ids of ``expr`` that ``raw`` names without choosing: the deprecated
    ``GPL-2.0`` (deprecated for that ambiguity), "GPLv2", CPAN's ``gpl_2``."""
    ids = {getattr(s, "key", str(s)) for s in parse_expression(expr).symbols}
    named = {f"{m.group('name').upper()}-{m.group('v')}" + ("" if "." in m.group("v") else ".0")
             for m in _OPEN_GNU.finditer(raw.replace("_", "-"))}
    return tuple(sorted(i for i in ids if i.endswith("-only") and i[:-5] in named))


def _by_name(value: str) -> str | None:
    name = NAMES.get(_norm(value))
    if name is None:
        return _spdx(value)
    return name if name == UNKNOWN else parse_expression(name).render()


def read_expression(value: str, file: str) -> Evidence:
    """A licence field that should be an SPDX expression and may be a name: SPDX as such
    (any case, ``+``, ``LicenseRef-``), then :data:`NAMES`, then — free text — each part of
    "A or B" / "A and B" alone, then the whole by ScanCode.  npm's ``UNLICENSED`` grants
    nothing: no licence."""
    text = " ".join(value.split())
    if text.upper() == "UNLICENSED":
        return Evidence(file, "manifest", NO_LICENCE, 100.0, "UNLICENSED: no rights granted")
    spdx = _by_name(text)
    if spdx is not None:
        return Evidence(file, "manifest", spdx, 100.0 if spdx != UNKNOWN else 0.0,
                        "" if spdx == text else f"\"{text[:80]}\"",
                        _open(spdx, text) if spdx != UNKNOWN else ())
    parts = re.split(r"\s+(or|and)\s+", text, flags=re.I)
    if len(parts) > 1:
        read = [read_expression(p, file) for p in parts[::2]]
        ops = {o.upper() for o in parts[1::2]}
        if len(ops) == 1 and all(r.spdx not in (UNKNOWN, NO_LICENCE) for r in read):
            op = f" {ops.pop()} "
            expr = parse_expression(op.join(f"({r.spdx})" for r in read)).render()
            return Evidence(file, "manifest", expr, min(r.score for r in read),
                            f"\"{text[:80]}\" read part by part",
                            tuple(sorted({o for r in read for o in r.open_choice})))
    det = detect_text(text)
    return Evidence(file, "manifest", det.spdx, det.score,
                    det.detail or f"read by ScanCode from \"{text[:80]}\"", det.open_choice)


_R_VERSION = re.compile(r"^(?P<name>[\w .-]+?)\s*\(\s*(?P<op>>=|==|>)\s*(?P<v>[\d.]+)\s*\)$")


def read_r(value: str, file: str) -> Evidence:
    """R's DESCRIPTION ``License:``: alternatives split by ``|``; ``+ file LICENSE`` (the
    file holding the template's year and holder, or further terms) and ``file LICENSE``
    alone (the licence is the file's, read as a licence file) say nothing here; "GPL (>= 2)"
    is GPL-2.0-or-later, "GPL-2" GPL-2.0 only, "GPL" unversioned."""
    alternatives = []
    for part in value.split("|"):
        part = re.sub(r"\+\s*file\s+LICEN[CS]E\b", "", part).strip()
        if not part or re.fullmatch(r"file\s+LICEN[CS]E", part, re.I):
            continue
        m = _R_VERSION.match(part)
        name = R_NAMES.get(_norm(m.group("name") if m else part))
        if m and name in ("GPL", "LGPL", "AGPL", "Apache"):
            v = m.group("v") if "." in m.group("v") else f"{m.group('v')}.0"
            name = f"{name}-{v}" + ("-or-later" if m.group("op") != "==" and name != "Apache"
                                    else "-only" if name != "Apache" else "")
        if name is None or name in ("GPL", "LGPL", "AGPL", "Apache", UNKNOWN):
            read = read_expression(part, file)
            if read.spdx == UNKNOWN:
                return Evidence(file, "manifest", UNKNOWN, read.score,
                                f"R licence \"{part}\" not read: {read.detail}")
            name = read.spdx
        alternatives.append(parse_expression(name).render())
    if not alternatives:
        return Evidence(file, "manifest", NO_LICENCE, 0.0, f"\"{value}\": the licence file's")
    expr = " OR ".join(dict.fromkeys(f"({a})" if " " in a else a for a in alternatives))
    return Evidence(file, "manifest", parse_expression(expr).render(), 100.0, f"\"{value}\"")


def read_statement(statement: Statement) -> Evidence:
    """A manifest's statement as evidence (a ``file`` statement is read as a licence file by
    :mod:`diagramforge.licensing.repository`, not here)."""
    if statement.kind == "r":
        return read_r(statement.value, statement.file)
    if statement.kind == "cpan":
        keys = [CPAN.get(k.strip().lower()) for k in statement.value.split(",")]
        if None in keys:
            return Evidence(statement.file, "manifest", UNKNOWN, 0.0,
                            f"CPAN licence key \"{statement.value}\" names no one licence")
        expr = parse_expression(_choice(keys)).render()
        return Evidence(statement.file, "manifest", expr, 100.0,
                        f"CPAN key \"{statement.value}\"", _open(expr, _choice(keys)))
    read = read_expression(statement.value, statement.file)
    if statement.kind == "classifier":
        return Evidence(read.file, "classifier", read.spdx, read.score, read.detail,
                        read.open_choice)
    return read
