"""Licence allow-list: keep only records whose licence permits redistribution."""

from __future__ import annotations

from typing import TYPE_CHECKING

from diagramforge.filters.filter.base import FilterFn, FilterSection, Verdict, register
from diagramforge.licensing.spdx import UNKNOWN, allowed

if TYPE_CHECKING:
    from diagramforge.filters.filter.base import FilterSettings


@register("licence", params=FilterSection)
def make_licence_filter(cfg: FilterSection, params: FilterSettings) -> FilterFn:
    """Reject what the allow list does not cover; a licence nobody could read is its own
    reason (``licence_unknown``) naming the file, so a maintainer can look at that file."""
    allow = params.licences.allow

    def check(record: dict) -> Verdict:
        lic = record.get("licence")
        if allowed(lic, allow):
            return Verdict.ok()
        if lic and lic.startswith(UNKNOWN):
            where = record.get("licence_url") or lic.partition(":")[2] or "its source"
            return Verdict.reject("licence_unknown", f"licence of {where} not recognised")
        return Verdict.reject("licence_not_allowed", f"{lic} not in {allow}")

    return check
