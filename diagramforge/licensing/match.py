"""What a text has beyond ScanCode's match of it, for
:func:`diagramforge.licensing.detection.detect_text`: the words of the matched rule the text
lacks (:func:`missing`), whether those are only the licence's title (:func:`untitled`) or a
notice's "obtain a copy" sentence (:func:`_obtain_only`), and the words of the text no match
explains (:func:`unexplained`) — where a restriction or a choice added to a licence hides.
Apart from the detector's decisions because these read ScanCode's index and query position
by position.
"""

from __future__ import annotations

import re

_COPYRIGHT = re.compile(r"^\W*(copyright\b|\(c\)|©|all rights reserved)", re.I)


def missing(idx, m) -> str:  # noqa: ANN001 - ScanCode's index and match
    """The words of the matched rule that the text lacks, in rule order (none for an
    ``SPDX-License-Identifier`` line: its rule is made up on the spot, not indexed)."""
    if m.rule.rid is None:
        return ""
    tids = idx.tids_by_rid[m.rule.rid]
    words = idx.tokens_by_tid
    return " ".join(words[t] for i, t in enumerate(tids) if i not in m.ispan)


def _obtain_only(idx, m) -> bool:  # noqa: ANN001 - ScanCode's index and match
    """Whether a notice match lacks only one run of words, and that run is the notice's
    sentence saying where to obtain the licence ("you may obtain a copy of the License at
    <URL>")."""
    if not m.rule.is_license_notice or m.rule.rid is None:
        return False
    tids = idx.tids_by_rid[m.rule.rid]
    gone = [i for i in range(len(tids)) if i not in m.ispan]
    if not gone or gone[-1] - gone[0] + 1 != len(gone):
        return False
    return bool(_OBTAIN.fullmatch(" ".join(idx.tokens_by_tid[tids[i]] for i in gone)))


_OBTAIN = re.compile(r"(you may )?obtain (a )?copy of the licen[cs]e at( https?)?( www)?"
                     r"( [a-z0-9]+){1,6}")


def untitled(idx, m) -> bool:  # noqa: ANN001 - ScanCode's index and match
    """Whether a licence *text* match lacks only the text's title: the rule's first words,
    before everything matched, and only words of the licence's name, "license", "version",
    "revision", numbers and a date ("SIL OPEN FONT LICENSE Version 1.1 - 26 February 2007",
    "THE BEER-WARE LICENSE (Revision 42)").  A licence's title names it; the clauses that
    follow say what it grants, and those are all there.  A title naming another version
    than the text's would be in the text, unexplained, and caught there."""
    if not m.rule.is_license_text or m.rule.rid is None:
        return False
    tids = idx.tids_by_rid[m.rule.rid]
    gone = [i for i in range(len(tids)) if i not in m.ispan]
    if not gone or max(gone) >= m.ispan.start or len(gone) > 16:
        return False
    names = title_words(m.rule.license_keys())
    words = [idx.tokens_by_tid[tids[i]] for i in gone]
    return all(w in names or w.isdigit() for w in words)


def title_words(keys) -> frozenset[str]:  # noqa: ANN001 - iterable of ScanCode keys
    """The words a title of these licences may have: their names (ScanCode's ``name`` and
    ``short_name``, with their version numbers: "Mozilla Public License 2.0"), and
    "license", "version", "revision", month names."""
    from licensedcode.cache import get_licenses_db
    from licensedcode.tokenize import query_tokenizer

    db = get_licenses_db()
    words = set(_TITLE_WORDS)
    for key in keys:
        lic = db.get(key)
        for name in (lic.name, lic.short_name, lic.spdx_license_key) if lic else ():
            words.update(query_tokenizer(name or ""))
    return frozenset(words)


_ANY_NUMBER = "#"
"""In :func:`unexplained`'s ``titles``: any number may stand in a title or revision line — a
whole licence text whose name has no number ("Sendmail License") cannot be contradicted by
one ("(Version 8.6, last updated 6/24/1998)", ScanCode's own copy ends "$Revision: 8.13 $,
Last updated …"); a name with a number ("GPL 2.0") keeps its lines to that number."""
_TITLE_WORDS = ("the", "license", "licence", "version", "revision", "rev", "last", "updated",
                "date", "id", "v", "january", "february",
                "march", "april", "may", "june", "july", "august", "september", "october",
                "november", "december")


def unexplained(qry, matches, titles: frozenset[str] = frozenset(),  # noqa: ANN001
                spans: list[tuple[int, int]] = (), inside: bool = False) -> str:
    """The words of the text no match explains — between and around the matches, and
    matched-rule words the text replaced — copyright lines aside, in text order and as
    written (ScanCode's dictionary folds spellings together: "commercial" is stored as
    "comerical").  The text is re-tokenised line by line exactly as ScanCode's query was, so
    word *n* of the text is known position *n*; a word ScanCode does not know is unexplained
    unless both its neighbours are matched (a name inside a licence: "Neither the name of
    *Voidspace* nor…").  A line made only of ``titles`` words — the read licence's name and
    version, "Version", "License" (:func:`title_words`) — is its title and explains itself:
    "Mozilla Public License Version 2.0" above an MPL-2.0 notice; a title naming another
    version ("… Version 1.1") has a number the name lacks, and stays.  With ``spans``
    (query positions), only the words outside them — or, ``inside``, within them."""
    from licensedcode.query import query_lines
    from licensedcode.stopwords import STOPWORDS
    from licensedcode.tokenize import query_tokenizer

    covered: set[int] = set()
    for m in matches:
        covered.update(m.qspan)
    known = qry.idx.dictionary.get
    pos = -1
    out = []
    for _, line in query_lines(query_string=qry.query_string):
        words = [t for t in query_tokenizer(line) if t not in STOPWORDS]
        notice = bool(_COPYRIGHT.match(line)) or bool(words) and all(
            w in titles or w.isdigit() and _ANY_NUMBER in titles for w in words)
        for token in query_tokenizer(line):
            if token in STOPWORDS:
                continue
            if known(token) is not None:
                pos += 1
                gap = pos not in covered
            else:
                gap = pos not in covered or pos + 1 not in covered
            if gap and not notice and inside == any(a <= pos <= b for a, b in spans):
                out.append(token)
    return " ".join(out)
