"""What licence a text states, read with ScanCode's licence detection.

ScanCode (``scancode-toolkit-mini``) carries the licence database most compliance tools
build on — about 2,500 licences and 35,000 rules (texts, notices, variants, tags) with their
SPDX ids — and a prebuilt index shipped inside its wheel, so detection needs no network and
no index build.  Its answer is a licence expression in ScanCode's keys, which its own
database maps to SPDX ids (``spdx_license_key``).

ScanCode reports everything it sees, confident or not; a dataset must only say what it is
sure of, because a wrong licence on a published row is invisible and copied downstream.  So
:func:`detect_text` accepts ScanCode's answer only when

* every match scores at least :data:`MIN_SCORE` and covers at least :data:`MIN_COVERAGE` %
  of its rule (a licence with a sentence changed is a different licence);
* ScanCode's own detection log raises no doubt (extra words inside the licence, unknown
  licence-like text, clues only, a reference to some other file, a possible false positive);
* no licence key is one of ScanCode's generic or unknown keys (``unknown-license-reference``,
  ``other-permissive``, ``public-domain``: no one licence text);
* the text outside every match, copyright lines aside, uses no licence vocabulary (ScanCode's
  legalese dictionary): a term appended after a canonical text ("use by any military
  organisation is prohibited") is a modified licence;
* a notice naming no other GNU licence than the one read (a GPL answer for a text that
  names the *Lesser* GPL is ScanCode's nearest rule with "Lesser" as an extra word);

and everything else is ``LicenseRef-unknown`` with ScanCode's best score and the reason —
never a wrong id.  A notice may lack words of its rule that are only its subject ("This
*package* is free software" against "This *program*…", :data:`_NEUTRAL`); lead-ins, clues
and warranty disclaimers beside a licence say nothing (:func:`_says_nothing`).  A text that
fails is read once more without the sentences that grant nothing — the FSF's warranty and
"you should have received a copy" boilerplate, Debian's ``/usr/share/common-licenses``
pointers, which must then back the licence stated (:func:`detect_text`); a GNU notice still
unread is read by its grant (:func:`read_gnu_grant`, :mod:`diagramforge.licensing.gnu`).  The
thresholds are chosen on ``benchmarks/licences.py``.

Loading the index takes a few seconds and ~1.4 GB (a 400 MB pickle); it is loaded once per
process, only when a text has to be read (manifests that state an SPDX expression do not need
it).  ScanCode's ``typecode`` loads Debian's ``libmagic1`` when imported (``./dev`` installs
it).

A repository's licence — which of its files count, its manifests, how several statements
combine or conflict — is :mod:`diagramforge.licensing.repository`, which reads every file and
free-text statement through :func:`detect_text`: the two change for different reasons.
"""

from __future__ import annotations

import functools
import gc
import re
import threading
import warnings
from dataclasses import dataclass, field
from importlib.metadata import version

from diagramforge.licensing.gnu import UNVERSIONED, grant, without_clause
from diagramforge.licensing.match import (
    _ANY_NUMBER,
    _obtain_only,
    missing,
    title_words,
    unexplained,
    untitled,
)
from diagramforge.licensing.notes import (
    _POINTER,
    DEBIAN_COMMON,
    choice_notes,
    holder_lines,
    same_version,
    version_clause,
    without_boilerplate,
    without_parts,
)
from diagramforge.licensing.spdx import (
    UNKNOWN,
    attach_exceptions,
    parse_expression,
    spdx_keys_known,
)

SCANCODE_VERSION = version("scancode-toolkit-mini")

MIN_COVERAGE = 95.0
"""Lowest share (%) of a licence *text* rule a match must cover: below it, part of the
licence is missing from the file (a clause dropped is a different licence).  Notices,
references and tags are short — each word names the licence or its version ("GNU
*Library* General Public License") — so they must match whole."""
SHORT_RULE = 1000
"""Rules shorter than this (in words: MIT, BSD, ISC, the CC notices…) are also checked for
what the text *lacks*: a missing condition ("provided that the above copyright notice …
appear in all copies") turns ISC into 0BSD.  In a long text (the GPL's 5,000 words) what a
≥ 95 % match lacks is typically an optional part — the "How to apply" appendix."""
ALLOWED_LOG = frozenset({"imperfect-match-coverage", "extra-words", "contained-with-same-license",
                         "not-license-clues-as-more-detections-present"})
"""ScanCode detection-log entries that raise no doubt by themselves (coverage is checked
against :data:`MIN_COVERAGE` separately)."""

_LOCK = threading.Lock()


@dataclass(frozen=True)
class Detection:
    """What one text (a licence file, a manifest's licence field) says.

    ``spdx`` is an SPDX expression, or ``LicenseRef-unknown`` when ScanCode's answer is not
    sure enough (``detail`` says why); ``score`` is ScanCode's (0–100): the lowest score of
    the matches the licence is made of, or for an unknown the best one seen.  ``scancode``
    is ScanCode's own expression, in its keys, as evidence."""

    spdx: str
    method: str  # "text" | "identifier" | "none"
    score: float = 0.0
    scancode: str = ""
    detail: str = ""
    rules: tuple[str, ...] = field(default=(), compare=False)
    open_choice: tuple[str, ...] = ()
    """The GNU ids of ``spdx`` read as ``-only`` from words that do not choose: the licence's
    own text, or its name ("GPLv2") — the text of the GPL is the same whether a project
    grants "version 2 only" or "version 2 or later"; the project's notice, manifest or
    README says which (:mod:`diagramforge.licensing.repository` refines them).  A notice that
    names one version ("…version 2 of the License.") chooses: it is not open."""


def index():  # noqa: ANN201 - licensedcode.index.LicenseIndex
    """ScanCode's prebuilt licence index, loaded once per process.

    The garbage collector is paused while the pickle loads: its millions of small objects
    otherwise trigger collection after collection (11 s → 4 s here)."""
    with _LOCK:
        return _load_index()


@functools.lru_cache(maxsize=1)
def _load_index():  # noqa: ANN202
    with warnings.catch_warnings():  # typecode prefers its own libmagic wheel to Debian's
        warnings.filterwarnings("ignore", message="System libmagic", category=UserWarning)
        from licensedcode.cache import get_index

    enabled = gc.isenabled()
    gc.disable()
    try:
        return get_index()
    finally:
        if enabled:
            gc.enable()


@functools.lru_cache(maxsize=1)
def _generic_keys() -> frozenset[str]:
    """ScanCode keys that name no one licence text (unknown references, "other permissive",
    generic public-domain statements, proprietary-licence catch-alls)."""
    from licensedcode.cache import get_licenses_db

    index()
    return frozenset(k for k, lic in get_licenses_db().items()
                     if lic.is_unknown or lic.is_generic)


def to_spdx(scancode_expression: str) -> str:
    """ScanCode's expression in SPDX ids, by ScanCode's own key → SPDX table (keys without
    an SPDX id become ``LicenseRef-scancode-<key>``, as ScanCode writes them)."""
    from licensedcode.cache import build_spdx_license_expression, get_licensing

    index()
    spdx = str(build_spdx_license_expression(scancode_expression, licensing=get_licensing()))
    parsed = parse_expression(spdx)
    return parsed.render() if parsed is not None else spdx


def _family(key: str) -> str:
    """A ScanCode key without its version and ``-plus``/``-only``: ``gpl-2.0-plus`` → ``gpl``;
    the GNU licences (GPL, LGPL, AGPL) are one family, since their notices mix them up."""
    base = re.sub(r"(-\d+(\.\d+)*[a-z]?)?(-plus|-only|-or-later)?$", "", key)
    return "gpl" if base in ("gpl", "lgpl", "agpl") else base


def _is_pointer(m) -> bool:  # noqa: ANN001 - LicenseMatch
    """A match of a rule that only names or points at a licence (a reference, tag or
    intro: "the complete text of the GPL version 2 is in /usr/share/common-licenses/GPL-2")
    rather than stating it (a text or notice)."""
    return not (m.rule.is_license_text or m.rule.is_license_notice)


def _says_nothing(m, keys: list[str]) -> bool:  # noqa: ANN001 - LicenseMatch
    """A match that adds nothing beside a licence: a lead-in or clue of no one licence
    (ScanCode's ``is_license_intro``/``is_license_clue`` rules: "licensed under the
    following license:", "disclaimer of warranties"), or a warranty disclaimer (it takes
    no right away: "distributed on an AS IS BASIS, WITHOUT WARRANTIES…") — also one
    ScanCode files under a generic key ("The University … make no representations about
    the suitability of this software for any purpose.  It is provided "as is"…", keyed
    ``other-permissive``), and the FSF's postal address (keyed ``other-copyleft``): a
    generic match whose words disclaim or give an address and neither grant nor restrict."""
    generic = set(keys) <= _generic_keys()
    if not generic:
        return False
    if m.rule.is_license_intro or m.rule.is_license_clue or set(keys) == {"warranty-disclaimer"}:
        return True
    words = m.rule.text or ""
    return bool(_NOTHING.search(words)) and not _GRANTS.search(words) \
        and not _CHANGES.search(words)


def _permits_the_document(m, keys: list[str]) -> bool:  # noqa: ANN001 - LicenseMatch
    """A generic match that permits copying "this document" verbatim and nothing else: said
    after a whole licence text (a text rule of 100 words or more, matched ≥ 95 %: a licence
    document, not a notice), the document is that licence ("The OpenLDAP Public License
    … Permission to copy and distribute verbatim copies of this document is granted.", a
    sentence ScanCode's OpenLDAP rule lacks and files under ``other-permissive``)."""
    words = m.rule.text or ""
    return set(keys) <= _generic_keys() and bool(_THE_DOCUMENT.search(words)) \
        and not _CHANGES.search(words)


_THE_DOCUMENT = re.compile(r"\bverbatim\s+copies\s+of\s+this\s+(licen[cs]e\s+)?document\b",
                           re.I)
_GRANTS = re.compile(r"\b(permi\w*|grant\w*|licen[cs]\w*|redistribut\w*|distribut\w*"
                     r"|cop(y|ies|ying)|modif\w*|use[ds]?|using|sell\w*|public\s+domain"
                     r"|rights?)\b", re.I)
_NOTHING = re.compile(r"\b(warrant\w*|disclaim\w*|liab\w*|representations?|as\W+is)\b"
                      r"|^\W*free\s+software\s+foundation\b.*\b(street|st|place|ave\w*)\b",
                      re.I | re.S)


def _pointers(matches: list, licensing) -> tuple[list, list]:  # noqa: ANN001
    """(matches kept, pointers to licences the text does not state).

    Matches that say nothing beside a licence (:func:`_says_nothing`) are dropped.

    A pointer to a licence the text states is the same licence: "…either version 2 of the
    License, or (at your option) any later version. The complete text of version 2 is in
    GPL-2" is GPL-2.0-or-later, not GPL-2.0-or-later AND GPL-2.0-only; so is a pointer
    that names no version ("the GNU General Public License").  A pointer to another licence
    — or to another version, or to "or later" where the notice read says one version
    ("…version 3 of the License, [or (at your option) any later version]") — beside a
    stated one is a text at odds with itself, or one ScanCode read only in part.  A text
    made of pointers only ("Licensed under the MIT License") states what they name."""
    def keys(m) -> list[str]:  # noqa: ANN001
        return licensing.license_keys(m.rule.license_expression)

    quiet = [m for m in matches if _says_nothing(m, keys(m))]
    whole = [m for m in matches if m.rule.is_license_text and m.rule.length >= 100
             and m.coverage() >= MIN_COVERAGE]
    if whole:
        quiet += [m for m in matches if m not in quiet and (
            _permits_the_document(m, keys(m)) or _names_the_family(m, whole, keys))]
    if len(quiet) < len(matches):
        matches = [m for m in matches if m not in quiet]
    stated = {k for m in matches if not _is_pointer(m) for k in keys(m)}
    if not stated:
        return matches, []
    families = {_family(k) for k in stated}

    def backs(m, k: str) -> bool:  # noqa: ANN001
        if k in stated or f"{k}-plus" in stated:
            return True
        return _family(k) in families and not re.search(r"\d", m.rule.text)

    kept = [m for m in matches if not _is_pointer(m)]
    stray = [m for m in matches if _is_pointer(m) and not all(backs(m, k) for k in keys(m))]
    versioned = {k for m in stray for k in keys(m)}
    if stray and len(versioned) == 1 and all(
            m.rule.is_license_notice and not re.search(r"\d", m.rule.text)
            and {_gnu_name(k) for k in keys(m)} == {_gnu_name(next(iter(versioned)))}
            for m in kept):
        # "licensed under the LGPL (LGPL-2.1-or-later)": an unversioned GNU notice (keyed by
        # ScanCode's default version) and a reference naming one version of the same
        # licence — the reference says which
        return stray, []
    return kept, stray


def _gnu_name(key: str) -> str:
    """``gpl``, ``lgpl`` or ``agpl`` for a GNU key, else the key: which GNU licence."""
    name = key.split("-", 1)[0]
    return name if name in ("gpl", "lgpl", "agpl") else key


_BARE_BSD = re.compile(r"\bbsd\b", re.I)
_BSD_VARIANT = re.compile(r"\d|clause|new|modified|revised|simplified|original|free ?bsd", re.I)


def _names_the_family(m, whole: list, keys) -> bool:  # noqa: ANN001 - LicenseMatch
    """A short notice naming "the BSD license" — a family, no one of its texts — beside the
    whole text of a BSD licence ("UglifyJS is released under the BSD license:" above the
    2-clause text): ScanCode keys the bare name as its 3-clause licence, the text says which
    it is."""
    text = m.rule.text or ""
    return not m.rule.is_license_text and m.rule.length <= 12 \
        and bool(_BARE_BSD.search(text)) and not _BSD_VARIANT.search(text) \
        and all(k.startswith("bsd-") for k in keys(m)) \
        and any(k.startswith("bsd-") for w in whole for k in keys(w))


def detect_text(text: str) -> Detection:
    """The licence a text states, by ScanCode, or ``LicenseRef-unknown`` with the reason.

    A text ScanCode cannot read with confidence is read a second time without the sentences
    that grant nothing (:func:`without_boilerplate`: the FSF's warranty and "you should have
    received a copy" sentences, Debian's pointers to ``/usr/share/common-licenses``).  They
    split a notice into fragments ScanCode reads as several versions or as a partial match
    ("… version 2 or later. … See the GNU General Public License [no version] for more
    details"); the grant itself is all that decides.  The second reading must pass every
    check of the first, and every licence a removed pointer names must be one the text
    states (a "version 2 or later" notice pointing at ``GPL-3`` stays unknown)."""
    first = _detect(text)
    if first.spdx != UNKNOWN:
        # a GNU text read whole may still carry a note choosing for it
        return (_read_choice_notes(text) if first.open_choice else None) or first
    for reading in (_read_choice_notes, _read_version_clause, _read_without_parts):
        read = reading(text)
        if read is not None:
            return read
    stripped, pointers = without_boilerplate(text)
    if stripped.strip():
        second = _detect(stripped, pointed=bool(pointers)) if stripped != text else first
        how = "read without sentences that grant nothing"
        if second.spdx == UNKNOWN:
            second = read_gnu_grant(stripped)
            how = second.detail
    elif pointers:  # Debian pointers only: they state what they name, by its GNU grant words
        second = read_gnu_grant(_POINTER.sub(" ", text))
        how = second.detail
    else:
        return first
    if second.spdx == UNKNOWN:
        return first
    stated = {getattr(s, "key", str(s)) for s in parse_expression(second.spdx).symbols}
    astray = sorted({n for n in pointers
                     if not any(k.startswith(DEBIAN_COMMON[n]) for k in stated)})
    if astray:
        return Detection(UNKNOWN, "none", first.score, second.scancode,
                         f"states {second.spdx} but points at /usr/share/common-licenses/"
                         f"{', '.join(astray)}", second.rules)
    if stripped == text:
        return second
    removed = "FSF boilerplate" + (f", pointers to {', '.join(sorted(set(pointers)))}"
                                   if pointers else "")
    return Detection(second.spdx, second.method, second.score, second.scancode,
                     f"{how} ({removed})", second.rules, second.open_choice)


def _read_choice_notes(text: str) -> Detection | None:
    """A GNU licence text with sentences that choose "only" or "or later" for it
    (:func:`~diagramforge.licensing.notes.choice_notes`: a "v2 only" note, the SPDX tag files
    carry instead of the text): read without them, it must be that one GNU text, its choice
    open, of the version they name; they must agree, and then they choose."""
    stripped, notes = choice_notes(text)
    if not notes or not stripped.strip():
        return None
    read = _detect(stripped)
    if read.spdx == UNKNOWN or read.open_choice != (read.spdx,):
        return None
    version = re.search(r"-(\d+\.\d+)-only$", read.spdx)
    choices = {n.later for n in notes}
    if version is None or len(choices) != 1 or not all(
            same_version(n.version, version.group(1)) for n in notes):
        return None
    spdx = read.spdx.replace("-only", "-or-later") if choices.pop() else read.spdx
    return Detection(spdx, read.method, read.score, read.scancode,
                     f"the {read.spdx.rsplit('-', 1)[0]} text, and a sentence choosing "
                     f"{spdx} (\"{notes[0].sentence[:80]}\")", read.rules)


def _read_without_parts(text: str) -> Detection | None:
    """A licence file that gives parts of the work their own licence files ("strace test
    suite is provided under … GPL … see tests/COPYING"): read without those paragraphs —
    they are the parts' files' — it must state one licence, named in the detail with the
    parts set aside."""
    stripped, parts = without_parts(text)
    if not parts or not stripped.strip():
        return None
    read = detect_text(stripped)
    if read.spdx == UNKNOWN:
        return None
    return Detection(read.spdx, read.method, read.score, read.scancode,
                     f"{read.detail + '; ' if read.detail else ''}parts with licence files of "
                     f"their own set aside: {' / '.join(p[:80] for p in parts)}", read.rules,
                     read.open_choice)


def _read_version_clause(text: str) -> Detection | None:
    """A licence named without its version, then the version ("LaTeX Project Public License,
    version 1.3c or later"): read without the clause, it must name one licence whose SPDX id
    is of that version; "or later" is read only where SPDX has no ``-or-later`` id for it
    (the LPPL's own notice grants later versions; a GNU grant is
    :func:`read_gnu_grant`'s)."""
    clause = version_clause(text)
    if clause is None:
        return None
    rest, version, later = clause
    read = _detect(rest)
    parsed = parse_expression(read.spdx) if read.spdx != UNKNOWN else None
    if parsed is None or not hasattr(parsed, "key"):
        return None
    key = parsed.key
    if not key.lower().endswith(f"-{version.lower()}") \
            or later and spdx_keys_known(f"{key}-or-later"):
        return None
    return Detection(key, read.method, read.score, read.scancode,
                     f"{key} named, version {version}{' or later' if later else ''} "
                     "said after it", read.rules)


def read_gnu_grant(text: str) -> Detection:
    """A GNU notice read by its grant (:mod:`diagramforge.licensing.gnu`): the licence, version
    and "or later" from its words, and the rest — the notice without its version clause —
    by ScanCode's exact rules (its approximate matcher's nearest rule for an unversioned
    LGPL notice is a versioned GPL one), which must read it, with every check of
    :func:`_detect`, as the same GNU licence unversioned (``gpl-1.0-plus``,
    ``lgpl-2.0-plus``…) or as the grant itself, and as nothing else.  So "…under the terms
    of the GNU Library General Public License as published by the Free Software Foundation;
    version 2 of the License, or (at your option) any later version" is LGPL-2.0-or-later,
    and the same notice followed by "You may not use it for commercial purposes" stays
    unknown."""
    said = grant(text)
    if said is None or not spdx_keys_known(said.spdx):
        return Detection(UNKNOWN, "none", detail="no GNU grant read whole")
    rest = _detect(without_clause(text), approximate=False)
    if rest.spdx == UNKNOWN:
        return rest
    ids = {getattr(s, "key", str(s)) for s in parse_expression(rest.spdx).symbols}
    if not ids <= UNVERSIONED[said.licence] | {said.spdx}:
        return Detection(UNKNOWN, "none", rest.score, rest.scancode,
                         f"grants {said.spdx} but reads as {rest.spdx} without its version "
                         "clause", rest.rules)
    return Detection(said.spdx, "text", rest.score, rest.scancode,
                     f"GNU grant {said.spdx} read from its words, the notice by ScanCode "
                     f"as {rest.spdx}", rest.rules)


def _detect(text: str, approximate: bool = True, pointed: bool = False) -> Detection:
    """ScanCode's reading of ``text`` and every check of the module's docstring.
    ``pointed``: the text's Debian pointers to the licence's text were taken out (they are
    checked against the licence read by :func:`detect_text`), so a notice may lack its own
    sentence saying where the licence is ("You may obtain a copy of the License at
    https://www.mozilla.org/MPL/"): Debian's notices put the pointer in its place."""
    from licensedcode.cache import get_licensing
    from licensedcode.detection import LicenseDetection, group_matches, process_detections
    from licensedcode.query import build_query, query_lines

    idx = index()
    qry = build_query(query_string=text, idx=idx) if text.strip() else None
    matches = idx.match_query(qry, approximate=approximate) if qry is not None else []
    if not matches:
        return Detection(UNKNOWN, "none", 0.0, detail="no licence text found")
    licensing = get_licensing()
    all_matches = matches
    holders = holder_lines(query_lines(query_string=text))
    named = [m for m in matches if set(range(m.start_line, m.end_line + 1)) <= holders]
    if named and len(named) < len(matches):  # "Copyright (C) 2017 Crown Copyright": a holder
        matches = [m for m in matches if m not in named]
    matches, stray = _pointers(matches, licensing)
    detections = [d for d in process_detections(
        [LicenseDetection.from_matches(g) for g in group_matches(matches)], licensing) if d]
    rules = tuple(m.rule.identifier for m in matches)
    best = round(max(m.score() for m in matches), 2)
    low = round(min(m.score() for m in matches), 2)
    expressions = list(dict.fromkeys(d.license_expression for d in detections
                                     if d.license_expression))
    scancode = " AND ".join(f"({e})" if len(expressions) > 1 and " " in e else e
                            for e in expressions)

    def unknown(why: str, score: float = best) -> Detection:
        return Detection(UNKNOWN, "none", score, scancode, why, rules)

    if stray:
        named = sorted({m.rule.license_expression for m in stray})
        return unknown(f"names {', '.join(named)} beside the licence it states "
                       f"({', '.join(sorted(set(expressions)))})")
    for d in detections:
        if d.license_expression is None:
            return unknown("licence clues only: " + ", ".join(
                sorted({m.rule.license_expression for m in d.matches})))
        doubts = sorted(set(d.detection_log) - ALLOWED_LOG)
        if doubts:
            return unknown(f"ScanCode doubts {d.license_expression}: {', '.join(doubts)}")
    for m in matches:
        need = MIN_COVERAGE if m.rule.is_license_text else 100.0
        if untitled(idx, m) or pointed and _obtain_only(idx, m):
            continue
        if m.coverage() < need and not (m.rule.is_license_notice
                                        and set(missing(idx, m).split()) <= _NEUTRAL):
            return unknown(f"{m.rule.license_expression} matched {m.coverage():.1f} % of "
                           f"{m.rule.identifier}", round(m.score(), 2))
        gone = _CHANGES.search(missing(idx, m)) if m.rule.length < SHORT_RULE else None
        if gone:
            return unknown(f"{m.rule.identifier} without \"{_context(missing(idx, m), gone)}\"",
                           round(m.score(), 2))
    keys = {k for e in expressions for k in licensing.license_keys(e)}
    generic = sorted(keys & _generic_keys())
    if generic:
        return unknown(f"ScanCode key(s) {', '.join(generic)} name no one licence")
    families: dict[str, set[str]] = {}
    for k in keys:
        families.setdefault(_family(k), set()).add(k)
    versions = next((sorted(v) for v in families.values() if len(v) > 1), None)
    if versions:  # "version 2 … or any later version … GPL-3": which one is granted?
        return unknown(f"versions of one licence disagree: {', '.join(versions)}", low)
    notices_only = not any(m.rule.is_license_text for m in matches)
    # (a GPL text itself names the Lesser GPL: "use the GNU Lesser General Public License
    # instead of this License"; a notice that names another GNU licence is another licence)
    if notices_only and any(k.startswith("gpl-") for k in keys) and not any(
            k.startswith(("lgpl-", "agpl-")) for k in keys):
        variant = _GNU_VARIANT.search(text)
        if variant:
            return unknown(f"states the GPL but names the \"{variant.group(0)}\"", low)
    if notices_only and any(k.startswith(("lgpl-", "agpl-")) for k in keys) \
            and not _GNU_VARIANT.search(text):
        return unknown("states the LGPL or AGPL but never names it", low)
    titles = title_words(keys)
    if not any(w.isdigit() for w in titles) and any(
            m.rule.is_license_text and m.rule.length >= 100 and m.coverage() >= MIN_COVERAGE
            for m in matches):
        titles |= {_ANY_NUMBER}  # a whole text of a licence with no number in its name
    # inside a long licence text, words it replaced may be its own example notices ("version
    # 1.3c or later" in the LPPL's "how to use" section): only a restriction there counts
    spans = [(m.qstart, m.qend) for m in matches if m.rule.is_license_text
             and m.rule.length >= SHORT_RULE and m.coverage() >= MIN_COVERAGE]
    extra = unexplained(qry, all_matches, titles, spans)
    said = _CHANGES.search(extra)
    inner = unexplained(qry, all_matches, titles, spans, inside=True) if spans else ""
    said = said or _RESTRICTS.search(inner)
    if said:
        where = extra if said.string is extra else inner
        return unknown(f"text outside the licence says \"{_context(where, said)}\"", low)
    combined = str(licensing.dedup(scancode)) if len(expressions) > 1 else expressions[0]
    spdx = attach_exceptions(to_spdx(combined))
    if not spdx_keys_known(spdx):
        return unknown(f"ScanCode's {combined} has no SPDX id known here: {spdx}", low)
    method = "identifier" if all(m.matcher == "1-spdx-id" for m in matches) else "text"
    return Detection(spdx, method, low, combined, "", rules, _open_choice(matches, licensing))


_GNU_KEY = re.compile(r"(a|l)?gpl-\d\.\d")


def _open_choice(matches, licensing) -> tuple[str, ...]:  # noqa: ANN001
    """The GNU ``-only`` ids read from words that do not choose between "only" and "or
    later" (:attr:`Detection.open_choice`): the licence's text, or a reference to it by name
    ("GPLv2") with no "only"; a notice chooses."""
    stated, unstated = set(), set()
    for m in matches:
        for k in licensing.license_keys(m.rule.license_expression):
            if _GNU_KEY.fullmatch(k):
                chosen = m.rule.is_license_notice or not m.rule.is_license_text and re.search(
                    r"\bonly\b", m.rule.text or "", re.I)
                (stated if chosen else unstated).add(k)
    return tuple(sorted(to_spdx(k) for k in unstated - stated))


_CHANGES = re.compile(
    # what, said outside the licence's matched text, changes what the licence grants: a
    # restriction ("not for commercial use", "military use is prohibited"), a condition
    # ("without our written permission"), or a choice of versions or licences that the
    # match did not read ("or (at your option) any later version", "either … or …")
    # ("comerical" is how ScanCode's dictionary stores "commercial": rule words come from it;
    # "later" is a choice of versions ("…Foundation, Version 2 or later" read as the
    # version-2 notice: "or later" is left over); "version" counts with a number or a
    # choice — "a modified version of ca-bundle.crt", "this version is a fork of…" describe
    # the work, "version 2", "any later version" do not; "does not" restricts when it denies
    # a permission — "this licence does not permit…" —, not in "it does not include
    # third-party code" or "CERN does not waive the privileges and immunities granted to it")
    r"\b(non ?commercial|commercial|(non)?comerical|prohibit\w*|forbid\w*|restrict\w*"
    r"|military|weapons?|evil|personal use|non ?profit|academic|educational"
    r"|research (use|purposes)|exclusively"
    r"|(may|must|shall|can|do) not|cannot|not (be )?(permitted|allowed)"
    r"|does not (permit|allow|grant|give|authori[sz]e|extend|apply|cover|confer|licen[cs]e"
    r"|have|entitle|include (the|any) right)"
    r"|without (\w+ ){0,3}(permission|consent|authori[sz]ation)"
    r"|(use|used|purposes?) only|only (for|be used|with|by|to|on|in|within)|evaluation|trial"
    r"|no (derivative|modification|redistribution)\w*"
    r"|later|(any|earlier|newer|other|subsequent|future|prior|previous) versions?"
    r"|versions? \d+|at your option|either|dual\w*|alternativ\w*)\b")
_RESTRICTS = re.compile(_CHANGES.pattern.split("|later|")[0] + ")\\b")
"""The restrictions and conditions of :data:`_CHANGES`, without its choices of versions."""
_NEUTRAL = frozenset(("this", "that", "it", "its", "them", "these", "those", "the", "of",
                      "at", "in", "on", "to", "by", "can", "be", "found", "see", "program",
                      "programs", "package", "packages", "library", "libraries", "file",
                      "files", "software", "work", "code", "source", "module", "project",
                      "projects", "repository", "street",
                      "st", "http", "https", "www", "begin", "end", "block"))
"""Words a notice may lack without saying anything else: its subject ("This *program* is
free software" is said of a package, a library, a file), where its pointer leads, the FSF's
street, the comment markup around it ("BEGIN LICENSE BLOCK").  A notice that lacks any other
word — a version, "or later", a licence's name, a condition — is not the notice ScanCode's
rule states."""
_GNU_VARIANT = re.compile(r"\b(lesser|library|affero)\W+general\W+public\b|\b[la]gpl", re.I)
"""The GNU licences other than the GPL, by name: ScanCode reads "GNU [Lesser] General Public
License … version 2.[1]" as a GPL-2.0-or-later notice with extra words."""


def _context(text: str, m: re.Match, width: int = 40) -> str:
    return text[max(0, m.start() - width):m.end() + width].strip()
