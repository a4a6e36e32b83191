"""Licence identifiers: arXiv licence URLs to SPDX ids, and the allow-list check.

arXiv offers a fixed set of licences, each named by URL in its metadata; we carry SPDX ids
so that arXiv and repository records share one vocabulary (``LicenseRef-`` for the two
arXiv licences that have no SPDX id).
"""

from __future__ import annotations

import re

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


def spdx_from_url(url: str | None) -> str:
    """SPDX id for an arXiv licence URL (``LicenseRef-none`` when the paper states none)."""
    if not url:
        return NO_LICENCE
    key = re.sub(r"^https?://(www\.)?", "", url.strip()).rstrip("/")
    return ARXIV_LICENCES.get(key, "LicenseRef-unknown:" + key)


def allowed(spdx: str | None, allow: list[str]) -> bool:
    """Whether an SPDX expression is acceptable: every alternative of an OR may do."""
    if not spdx:
        return False
    options = [o.strip().strip("()") for o in re.split(r"\s+OR\s+", spdx)]
    return any(o in allow for o in options)


LICENCE_FILES = ("LICENSE", "LICENCE", "COPYING", "LICENSE.md", "LICENSE.txt", "LICENCE.md",
                 "LICENCE.txt", "COPYING.md", "COPYING.txt", "LICENSE.rst", "UNLICENSE")


def detect_licence(text: str, min_score: float = 0.85) -> tuple[str, float]:
    """SPDX id of a licence text (spdx-matcher, SPDX matching guidelines), with its score.

    Returns ``LicenseRef-unknown`` below ``min_score``; several matches join with AND (a
    file that carries two licences requires both).
    """
    import spdx_matcher

    found, score = spdx_matcher.analyse_license_text(text)
    ids = sorted(found.get("licenses", {}))
    if not ids or score < min_score:
        return "LicenseRef-unknown", float(score or 0.0)
    return " AND ".join(ids), float(score)
