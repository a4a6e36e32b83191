"""What a licence file says *around* its licence, read by its words, for
:func:`diagramforge.licensing.detection.detect_text`.

Apart from the detector because these are facts about how people write licence files, not
about ScanCode: the sentences that grant nothing (the FSF's warranty and "you should have
received a copy" boilerplate, Debian's pointers to ``/usr/share/common-licenses``); a
copyright statement, whose holder never changes the licence ("Copyright (C) 2017 Crown
Copyright" above the MIT text is the MIT licence, though ScanCode files "Crown Copyright"
under a proprietary-licence rule); a note that only one version of a GNU licence applies
("This is a GNU GPL "v2 only" license", the Linux kernel's "the only valid version of the GPL
… is _this_ particular version"); and a version clause after a licence named without one
("LaTeX Project Public License, version 1.3c or later").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

DEBIAN_COMMON = {
    # /usr/share/common-licenses/<name> (Debian's base-files) → the SPDX ids it can back:
    # "GPL-2" is the text of GPL-2.0 (granted -only or -or-later by the notice), "GPL" of
    # whichever GPL version the notice names, "LGPL-2" the Library GPL 2.0
    "Apache-2.0": "Apache-2.0", "Artistic": "Artistic-", "BSD": "BSD-", "CC0-1.0": "CC0-1.0",
    "GFDL": "GFDL-", "GFDL-1.2": "GFDL-1.2", "GFDL-1.3": "GFDL-1.3", "GPL": "GPL-",
    "GPL-1": "GPL-1.0", "GPL-2": "GPL-2.0", "GPL-3": "GPL-3.0", "LGPL": "LGPL-",
    "LGPL-2": "LGPL-2.0", "LGPL-2.1": "LGPL-2.1", "LGPL-3": "LGPL-3.0", "MPL-1.1": "MPL-1.1",
    "MPL-2.0": "MPL-2.0",
}
_SENTENCES = re.compile(r"(?<=[.!?])[\"'`)]*\s+|\n[\s.]*\n")
_POINTER = re.compile(r"/usr/share/common-licenses/([A-Za-z0-9.+-]*[A-Za-z0-9+])")
_BOILERPLATE = re.compile(
    # sentences of the FSF's "How to apply" notice that grant nothing: the warranty
    # disclaimer, "See the GNU … License for more details", "You should have received a
    # copy … if not, write to the Free Software Foundation, Inc., <address>", "A copy of
    # the GNU General Public License is also available at <URL>"
    r"distributed in the hope that it will be useful|^see the gnu [\w ]{0,40}license"
    r"( for more details)?\W*$|^you should have received a copy of the\W+gnu"
    r"|^if not, (write to|see) |^\W*free software foundation,? inc\b"
    r"|\bwrit(e|ing) to the free software foundation\b"
    r"|^a copy of the gnu [\w ]{0,40}license is (also )?available at\b"
    # a licence's acceptance preamble (Unicode's "NOTICE TO USER: Carefully read the
    # following legal agreement. BY DOWNLOADING, INSTALLING, COPYING OR OTHERWISE USING …
    # YOU UNEQUIVOCALLY ACCEPT … IF YOU DO NOT AGREE, DO NOT DOWNLOAD …"): the licence's
    # terms bind either way; it restricts nothing of them
    r"|^(notice to user\W+)?carefully read the following legal agreement\b"
    r"|^by downloading, installing, copying or otherwise using\b[^.]*\baccept"
    r"|^if you do not agree,? do not (download|install|copy|distribute|use)\b", re.I)


def without_boilerplate(text: str) -> tuple[str, list[str]]:
    """The text without its sentences that grant nothing, and the names of the Debian
    ``/usr/share/common-licenses`` files its removed pointers name.  A sentence naming such
    a file is a pointer ("On Debian systems, the complete text of version 2 of the GNU
    General Public License can be found in /usr/share/common-licenses/GPL-2") unless the
    name is not one Debian ships — then the sentence stays and the text stays unread."""
    kept, pointers = [], []
    for sentence in _SENTENCES.split(text):
        flat = " ".join(sentence.split())
        names = _POINTER.findall(flat)
        if names and all(n in DEBIAN_COMMON for n in names):
            pointers += names
        elif not names and _BOILERPLATE.search(flat):
            continue
        else:
            kept.append(sentence)
    return "\n".join(kept), pointers




_HOLDER = re.compile(r"^\W*(copyright\b|\(c\)|©)", re.I)
_TERMS = re.compile(r"\b(licen[cs]\w*|permi\w*|grant\w*|distribut\w*|terms|conditions?"
                    r"|public\s+domain|waive\w*|dedicat\w*)\b", re.I)


def holder_lines(lines) -> set[int]:  # noqa: ANN001 - iterable of (line number, line)
    """The numbers of the lines that are copyright statements and nothing else: they open with
    "Copyright", "(c)" or "©" and name no terms — a holder, years, "All rights reserved".
    What a holder is called ("Crown Copyright", "Python Software Foundation") never changes
    the licence below it; a line that also says "licensed under …" is not only a holder."""
    return {n for n, line in lines if _HOLDER.match(line) and not _TERMS.search(line)}


_ONLY_NOTE = re.compile(
    # "This is a GNU GPL "v2 only" license."; "version 2 only"; "the only valid version of
    # the GPL … is _this_ particular version"; "This is not a … "v2 or any later version"
    # license" — a note saying that one version, and no later one, applies
    r"\bv\.?\s?(?P<v1>\d[\w.]*)\W{0,3}only\b|\bversion\s+(?P<v2>\d[\w.]*)\s+only\b"
    r"|\bonly\s+(valid\s+)?version\b|\bnot\b[^.]{0,80}?\bor\s+(\(at\s+your\s+option\)\s+)?"
    r"(any\s+)?later\b", re.I)


_TAG = re.compile(r"SPDX-License-Identifier:\s*(?P<id>(?P<name>[AL]?GPL)-(?P<version>\d\.\d)"
                  r"(?P<choice>-only|-or-later|\+)?)(?![\w.+-])", re.I)


@dataclass(frozen=True)
class ChoiceNote:
    """A sentence beside a GNU licence text that chooses "only" or "or later" for it:
    ``version`` is the version it names, ``later`` its choice."""

    sentence: str
    version: str
    later: bool


def choice_notes(text: str) -> tuple[str, list[ChoiceNote]]:
    """The text without the sentences that choose between one version of its GNU licence
    and later ones, and those sentences.  Two kinds: a note that only one version applies
    ("Note: This is a GNU GPL "v2 only" license. This is not a GNU GPL "v2 or any later
    version" license."; the Linux kernel's "the only valid version of the GPL … is _this_
    particular version of the license (ie v2, not v2.2 or v3.x …)") — its first version
    named is the one —, and the tag files carry instead of the text ("Individual files
    contain the following tag instead of the full license text. SPDX-License-Identifier:
    GPL-3.0-or-later").  The GPL's text is the same for both choices; these say which."""
    kept, notes = [], []
    for sentence in _SENTENCES.split(text):
        flat = " ".join(sentence.split())
        tag = _TAG.search(flat)
        only = _ONLY_NOTE.search(flat)
        named = re.search(r"\b(?:v\.?\s?|version\s+)(\d+(?:\.\d+)?)", flat, re.I)
        if tag and not only:
            later = (tag.group("choice") or "").lower() in ("-or-later", "+")
            notes.append(ChoiceNote(flat, tag.group("version"), later))
        elif only and named and not tag:
            notes.append(ChoiceNote(flat, named.group(1), False))
        else:
            kept.append(sentence)
    return "\n".join(kept), notes


def same_version(a: str, b: str) -> bool:
    """"2" is "2.0"; "2.1" is "2.1"."""
    def norm(v: str) -> str:
        return v if "." in v else f"{v}.0"
    return norm(a) == norm(b)


_VERSION_CLAUSE = re.compile(
    r"[,;]?\s*\b(?:either\s+)?version\s+(?P<version>\d+(?:\.\d+)*[a-z]?)\b"
    r"(?:\s+of\s+th(?:e|is)\s+licen[cs]e)?"
    r"(?P<later>\s*,?\s*or\s*(?:\(\s*at\s+your\s+option\s*\)\s*)?(?:any\s+)?later"
    r"(?:\s+version)?)?", re.I)


def version_clause(text: str) -> tuple[str, str, bool] | None:
    """(the text without it, the version, "or later") of the one version clause a statement
    has ("…Public License, version 1.3c or later."), or None when it has none or several."""
    found = list(_VERSION_CLAUSE.finditer(text))
    if len(found) != 1:
        return None
    m = found[0]
    return text[:m.start()] + text[m.end():], m.group("version"), bool(m.group("later"))


_SUMMARY = re.compile(r"[^.:]*\b(human[- ]readable summary|not a substitute for)\b", re.I)


def without_summary(text: str) -> str:
    """The text up to a sentence saying that what follows is a human-readable summary of a
    licence and "not a substitute for" its legal text (Creative Commons' deed, copied into
    licence files): the summary grants nothing; the sentence before it names the licence."""
    m = _SUMMARY.search(text)
    return text[:m.start()] if m else text


_PART = re.compile(r"\b(see|in|under)\s+[`'\"]?[\w.-]+/[\w./-]*(COPYING|LICEN[CS]E)[\w.-]*", re.I)


def without_parts(text: str) -> tuple[str, list[str]]:
    """The text without its paragraphs about parts of the work that carry their own licence
    file ("strace test suite is provided under the terms of the GNU General Public License
    version 2 or later, see tests/COPYING for more details"), and those paragraphs: they
    are those files' licences, not this one's."""
    kept, parts = [], []
    for para in re.split(r"\n\s*\n", text):
        (parts if _PART.search(" ".join(para.split())) else kept).append(para)
    return "\n\n".join(kept), [" ".join(p.split()) for p in parts]
