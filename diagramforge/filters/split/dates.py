"""When a diagram's source appeared: the date the ``split.test_after`` cut reads.

A diagram record does not carry a date; its source does. The crawl stage records one per
source (arXiv: the submission date of the version fetched; a PDF fetched for an arXiv paper:
the same), and the extractors name a diagram's ``group`` after that source (``arxiv:<id>``,
``repo:<name>``). So the dates are joined by group. An arXiv group without a crawl date still
has its month in the identifier (``2401.00101``, ``hep-th/9901001``): the month's first day is
the earliest the paper can be, which is what the cut needs — a source counts as after the
cut only when its earliest possible date is, so an uncertain one never reaches test.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from datetime import date

_ARXIV = re.compile(r"^arxiv:(?:[a-z.\-]+/)?(\d{2})(\d{2})(?:\.\d{4,5}|\d{3})(?:v\d+)?$",
                    re.IGNORECASE)


def _day(value: object) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(str(value)[:10])
    except ValueError:
        return None


def source_groups(src: dict) -> list[str]:
    """The ``group`` values a crawl record's diagrams carry (as the extractors name them)."""
    meta = src.get("meta") or {}
    if isinstance(meta, str):
        try:
            meta = json.loads(meta)
        except ValueError:
            meta = {}
    out = [str(src["id"])]
    if src.get("kind") == "arxiv":
        out.append(f"arxiv:{src['id']}")
    if meta.get("arxiv_id"):
        out.append(f"arxiv:{meta['arxiv_id']}")
    if meta.get("repo") or src.get("kind") == "repo":
        out.append(f"repo:{meta.get('repo', src.get('url'))}")
    if meta.get("group"):  # a source that names its diagrams' group (a Stack Exchange post)
        out.append(str(meta["group"]))
    return out


def source_dates(sources: Iterable[dict]) -> dict[str, date]:
    """Group → date from crawl records; where several sources share a group, the earliest."""
    out: dict[str, date] = {}
    for src in sources:
        d = _day(src.get("date"))
        if d is None:
            continue
        for g in source_groups(src):
            out[g] = min(d, out.get(g, d))
    return out


def earliest(group: str | None, dates: dict[str, date]) -> date | None:
    """The earliest date a group's source can have: its crawl date, else the month an arXiv
    identifier encodes, else ``None`` (undated)."""
    if not group:
        return None
    if group in dates:
        return dates[group]
    m = _ARXIV.match(group)
    if m is None:
        return None
    yy, mm = int(m.group(1)), int(m.group(2))
    if not 1 <= mm <= 12:
        return None
    return date(1900 + yy if yy >= 91 else 2000 + yy, mm, 1)


def after_cut(group: str | None, dates: dict[str, date], cut: date) -> bool:
    """Whether a group's source is surely dated after ``cut`` (test-eligible)."""
    d = earliest(group, dates)
    return d is not None and d > cut
