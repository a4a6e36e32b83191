"""Licence allow-list: keep only records whose licence permits redistribution."""

from __future__ import annotations

from diagramforge.filters.base import FilterFn, Verdict, register
from diagramforge.licences import allowed
from diagramforge.params import Params


@register("licence")
def make_licence_filter(params: Params) -> FilterFn:
    allow = params.licences.allow

    def check(record: dict) -> Verdict:
        lic = record.get("licence")
        if allowed(lic, allow):
            return Verdict.ok()
        return Verdict.reject("licence_not_allowed", f"{lic} not in {allow}")

    return check
