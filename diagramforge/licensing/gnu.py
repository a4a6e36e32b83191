"""The grant of a GNU licence notice — which GNU licence, which version, "or later" or not —
read from its words, for :func:`diagramforge.licensing.detection.detect_text`.

Why a reading of its own: the FSF asks authors to state the version and whether later
versions may be chosen, and lets them word the rest as they like.  ScanCode identifies a
GNU notice by exact word sequences in its rules (more than a thousand for ``gpl-2.0-plus``
alone), so a notice worded between them falls to a neighbour: "version 2 of the License,
or (at your option) any later version" without the canonical "either" matches no
``-plus`` rule and the approximate matcher reads a GPL rule for a *Library* GPL notice;
"…as published by the Free Software Foundation; version 3 dated June, 2007, or (at your
option) any later version" is read as the ``gpl-3.0`` notice ending at "version 3" with
the rest left over; "…Foundation in version 2 of the License" as the unversioned
``gpl-1.0-plus`` notice.  The grant itself is a three-part fact with a small grammar:

* the licence, by its name: GNU General Public License, GNU Lesser / Library General Public
  License, GNU Affero General Public License, GNU Free Documentation License (or GNU GPL,
  LGPL, AGPL, FDL);
* one version: "version 2", "Version 2.1", "v. 3";
* the choice of later versions, right after it: "or (at your option) any later version",
  "or any later version", "or later".

:func:`grant` reads these three from a notice (after the sentences that grant nothing are
gone) and :func:`without_clause` returns the notice with the version clause taken out, for
ScanCode to read: what is left must be, to ScanCode, a notice of the same GNU licence with
nothing else in it — that is where a condition added to the notice is caught.  Anything
this grammar does not read whole (two GNU licences named, two versions, an "either" with no
second choice) is no grant, and the text stays unknown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_NAME = re.compile(
    r"\bGNU\s+(?:(?P<kind>Lesser|Library|Affero)\s+)?General\s+Public\s+Licen[cs]e\b"
    r"|\bGNU\s+(?P<fdl>Free\s+Documentation\s+Licen[cs]e|FDL)\b"
    r"|\bGNU\s+(?P<abbr>[LA]?GPL)\b", re.I)
_LATER = (r"or\s*,?\s*(?:\(\s*at\s+your\s+\w+\s*\)\s*,?\s*)?(?:any\s+)?later"
          r"(?:\s+version)?")
_CLAUSE = re.compile(
    # "[either] [in|of] [the] version 2[.1] [of the License] [dated June, 2007]
    #  [, or (at your option) any later version]"
    r"(?P<either>\beither\s+)?(?:\b(?:in|of)\s+)?(?:\bthe\s+)?"
    r"\b(?:version|v\.)\s*(?P<version>\d+(?:\.\d+)?)\b"
    r"(?:\s+of\s+(?:the|this)\s+licen[cs]e)?"
    r"(?:\s*,?\s*dated\s+[A-Z][a-z]+\.?,?\s+\d{4})?"
    rf"(?P<later>\s*,?\s*{_LATER}\b)?", re.I)
_SPDX = {"gpl": "GPL", "lesser": "LGPL", "library": "LGPL", "lgpl": "LGPL", "affero": "AGPL",
         "agpl": "AGPL", "fdl": "GFDL"}

UNVERSIONED = {
    # the SPDX ids ScanCode gives a notice of each GNU licence that names no version (its
    # keys gpl-1.0-plus, lgpl-2.0-plus / lgpl-2.1-plus — "Library" / "Lesser" —, agpl-…):
    # what the notice reads as once its version clause is taken out
    "GPL": {"GPL-1.0-or-later"}, "LGPL": {"LGPL-2.0-or-later", "LGPL-2.1-or-later"},
    "AGPL": {"AGPL-1.0-or-later", "AGPL-3.0-or-later"}, "GFDL": {"GFDL-1.1-or-later"},
}


@dataclass(frozen=True)
class Grant:
    """A GNU notice's grant: ``licence`` is ``GPL``, ``LGPL``, ``AGPL`` or ``GFDL``."""

    licence: str
    version: str
    later: bool

    @property
    def spdx(self) -> str:
        return f"{self.licence}-{self.version}-{'or-later' if self.later else 'only'}"


def _version(v: str) -> str:
    return v if "." in v else f"{v}.0"


def grant(text: str) -> Grant | None:
    """The grant a GNU notice states, or None when its words do not say one whole: no GNU
    licence or more than one named, no version or more than one, versions with and without
    "or later", or "either version N" with no second choice (a truncated "either…or")."""
    flat = " ".join(text.split())
    kinds = set()
    for m in _NAME.finditer(flat):
        kind = (m.group("kind") or m.group("abbr") or ("fdl" if m.group("fdl") else "gpl"))
        kinds.add(_SPDX[kind.lower()])
    if len(kinds) != 1:
        return None
    clauses = list(_CLAUSE.finditer(flat))
    readings = {(_version(m.group("version")), bool(m.group("later"))) for m in clauses}
    if len(readings) != 1:
        return None
    if any(m.group("either") and not m.group("later") for m in clauses):
        return None
    (version, later), = readings
    return Grant(kinds.pop(), version, later)


def without_clause(text: str) -> str:
    """The notice without its version clauses ("either version 2 of the License, or (at your
    option) any later version"), for ScanCode to read as the unversioned notice it then is.
    A version left in the text after that (one the grammar did not take) stays for ScanCode
    and the checks to see."""
    return _CLAUSE.sub(" ", " ".join(text.split()))
