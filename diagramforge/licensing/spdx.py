"""Licence vocabulary: SPDX expressions, arXiv licence URLs as SPDX ids, the allow-list check
and licence families.

arXiv offers a fixed set of licences, each named by URL in its metadata; we carry SPDX ids
so that arXiv and repository records share one vocabulary (``LicenseRef-`` for the two
arXiv licences that have no SPDX id).  Reading a licence from a text — a licence file, a
manifest's licence field — is ScanCode's job: :mod:`diagramforge.licensing.detection`.
"""

from __future__ import annotations

import functools
import re

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


def spdx_keys_known(expr: str) -> bool:
    """Whether every id of an expression is on the SPDX License List (or a ``LicenseRef-``,
    which SPDX leaves to whoever writes it)."""
    parsed = parse_expression(expr)
    if parsed is None:
        return False
    return all(k.startswith("LicenseRef-") for k in _licensing().unknown_license_keys(parsed))


def join_and(exprs: list) -> str:
    """Several licences that all apply (two licence files, two identifiers) as one expression."""
    uniq = []
    for e in exprs:
        parsed = parse_expression(e) if isinstance(e, str) else e
        parts = parsed.args if parsed is not None and type(parsed).__name__ == "AND" \
            else [parsed if parsed is not None else e]
        for p in parts:  # "MIT AND CC0-1.0" with "MIT": each licence once
            r = p if isinstance(p, str) else p.render()
            if r not in uniq:
                uniq.append(r)
    if len(uniq) == 1:
        return uniq[0]
    return " AND ".join(f"({u})" if " OR " in u else u for u in sorted(uniq))


def attach_exceptions(spdx: str) -> str:
    """``A AND X`` where ``X`` is an exception (``Swift-exception``, ``LLVM-exception``) and
    ``A`` the one licence beside it, as ``A WITH X``: an exception is not a licence of its
    own but permissions added to one (an Apache-2.0 text followed by its "Runtime Library
    Exception", which ScanCode reports as two keys)."""
    parsed = parse_expression(spdx)
    if parsed is None or type(parsed).__name__ != "AND":
        return spdx
    args = list(parsed.args)
    exceptions = [a for a in args if getattr(a, "is_exception", False)]
    licences = [a for a in args if a not in exceptions]
    if len(exceptions) != 1 or len(licences) != 1 or not hasattr(licences[0], "key"):
        return spdx
    return f"{licences[0].key} WITH {exceptions[0].key}"


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


FAMILIES = ("public-domain", "permissive", "weak-copyleft", "copyleft", "no-derivatives",
            "non-commercial", "restricted", "unknown")
"""Licence families, least to most restrictive: what a user filters on
(``ds.filter(lambda r: r["licence_family"] == "permissive")``).  ``weak-copyleft`` passes its
licence on to changes of the licensed work itself (LGPL, MPL, EPL, CC BY-SA), ``copyleft``
to whole derived works (GPL, AGPL); ``restricted`` is a licence that limits use in some other
way (field of use, proprietary "free" licences, arXiv's distribution-only licence);
``unknown`` is no licence, or one that could not be read."""

_CATEGORY_FAMILY = {"Public Domain": "public-domain", "Permissive": "permissive",
                    "Copyleft Limited": "weak-copyleft", "Copyleft": "copyleft",
                    "Unstated License": "unknown"}
_NC = re.compile(r"-NC(-|$)|non-?commercial", re.I)
_ND = re.compile(r"-ND(-|$)|no-?deriv", re.I)


@functools.lru_cache(maxsize=1)
def _categories() -> dict[str, str]:
    """SPDX id (lower case) → ScanCode's licence category (``Permissive``, ``Copyleft
    Limited``…), from ScanCode's licence database (its texts, without the match index)."""
    from licensedcode.models import load_licenses

    out: dict[str, str] = {}
    for lic in load_licenses().values():
        for spdx in (lic.spdx_license_key, *(lic.other_spdx_license_keys or ())):
            if spdx and lic.category:
                out.setdefault(spdx.lower(), lic.category)
    return out


def _id_family(spdx: str) -> str:
    if spdx.startswith("LicenseRef-arXiv-"):
        return "restricted"  # arXiv's licences grant arXiv alone the right to distribute
    if spdx.startswith(UNKNOWN) or spdx == NO_LICENCE:
        return "unknown"
    if _NC.search(spdx):
        return "non-commercial"
    if _ND.search(spdx):
        return "no-derivatives"
    category = _categories().get(spdx.lower())
    if category is None:
        return "unknown"
    return _CATEGORY_FAMILY.get(category, "restricted")


@functools.lru_cache(maxsize=4096)
def licence_family(spdx: str | None) -> str:
    """The family of an SPDX expression (:data:`FAMILIES`), from ScanCode's licence
    categories: ``A AND B`` is the more restrictive of the two (both apply), ``A OR B`` the
    less (the recipient chooses), ``A WITH exception`` that of ``A`` (an exception only adds
    permissions, so the family errs on the strict side)."""
    if not spdx:
        return "unknown"
    if spdx.startswith(UNKNOWN) or spdx == NO_LICENCE or spdx.startswith("LicenseRef-arXiv-"):
        return _id_family(spdx)
    parsed = parse_expression(spdx)
    if parsed is None:
        return "unknown"
    rank = FAMILIES.index

    def walk(node) -> str:
        if hasattr(node, "license_symbol"):  # LicenseWithExceptionSymbol
            return _id_family(node.license_symbol.key)
        if hasattr(node, "key"):
            return _id_family(node.key)
        fams = [walk(a) for a in node.args]
        pick = max if type(node).__name__ == "AND" else min
        return pick(fams, key=rank)

    return walk(parsed)
