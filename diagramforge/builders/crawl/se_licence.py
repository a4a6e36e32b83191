"""Whose a Stack Exchange post is and under which licence: the SPDX id, the licence URL and
the attribution Stack Exchange's terms ask for.

**Licence.**  Stack Exchange publishes its rule per revision: content contributed before
2011-04-08 (UTC) is CC BY-SA 2.5, from then until (not including) 2018-05-02 CC BY-SA 3.0,
and from 2018-05-02 on CC BY-SA 4.0; a post is shown, and written in the dump's
``ContentLicense``, under the licence of its *latest* revision.  That is what
:func:`licence_for` applies: the dump's own ``ContentLicense`` when the row has one (dumps
since 2020 do, on posts and on each revision), else the date of the latest revision.  A post
created under 3.0 and edited in 2019 is therefore 4.0: its latest revision is an adaptation of
3.0 material, which BY-SA 3.0 §4(b) (and 2.5 §4(b)) lets the editor license under a later
version with the same elements.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from diagramforge.builders.crawl.se_posts import post_url, profile_url
from diagramforge.licensing.spdx import UNKNOWN

BY_SA_3_FROM = "2011-04-08"
BY_SA_4_FROM = "2018-05-02"
_CONTENT_LICENCE = re.compile(r"^\s*CC[ -]BY-SA[ -](2\.5|3\.0|4\.0)\s*$", re.IGNORECASE)


def licence_by_date(when: str) -> str:
    """SPDX id of the CC BY-SA version in force at an ISO timestamp (UTC)."""
    day = when[:10]
    if day < BY_SA_3_FROM:
        return "CC-BY-SA-2.5"
    return "CC-BY-SA-3.0" if day < BY_SA_4_FROM else "CC-BY-SA-4.0"


def spdx_of_content_licence(text: str) -> str:
    """``CC BY-SA 4.0`` (the dump's ``ContentLicense``) as its SPDX id."""
    m = _CONTENT_LICENCE.match(text or "")
    return f"CC-BY-SA-{m.group(1)}" if m else f"{UNKNOWN}:{text}"


def licence_url(spdx: str) -> str | None:
    m = re.fullmatch(r"CC-BY-SA-(\d\.\d)", spdx)
    return f"https://creativecommons.org/licenses/by-sa/{m.group(1)}/" if m else None


@dataclass(frozen=True)
class LicenceDecision:
    spdx: str
    basis: str
    """``revision_licence`` · ``revision_date`` (PostHistory's latest revision),
    ``post_licence`` (the post's ``ContentLicense``), ``post_date`` (its latest edit or
    creation date)."""
    date: str | None = None


def licence_for(created: str, last_edit: str | None, content_licence: str | None,
                revision: tuple[str, str | None] | None = None) -> LicenceDecision:
    """The post's licence by Stack Exchange's rule (module docstring).  ``revision``: the
    date and ``ContentLicense`` of its latest revision in PostHistory, when read.  What the
    dump states comes first (the latest revision's ``ContentLicense``, then the post's),
    then the latest revision's date (PostHistory's, else the post's own dates)."""
    when, lic = revision if revision is not None else (None, None)
    if lic:
        return LicenceDecision(spdx_of_content_licence(lic), "revision_licence", when)
    if content_licence:
        return LicenceDecision(spdx_of_content_licence(content_licence), "post_licence")
    if when:
        return LicenceDecision(licence_by_date(when), "revision_date", when)
    when = max(created, last_edit or created)
    return LicenceDecision(licence_by_date(when), "post_date", when)


@dataclass(frozen=True)
class Author:
    """Who owns a post, as the dump says: a user id with a name from Users.xml, or — for a
    deleted account — only the display name the post kept (``OwnerDisplayName``)."""

    user_id: int | None
    name: str | None
    deleted: bool = False


def attribution(site: str, post_type: int, post_id: int, question_id: int, author: Author,
                community_wiki: bool) -> str:
    """What Stack Exchange's terms ask a reuser to show: the author's name linked to their
    profile, the post linked (an answer with its question), and the site."""
    if author.user_id is not None:
        who = f"{author.name or f'user{author.user_id}'} ({profile_url(site, author.user_id)})"
    elif author.name:
        who = f"{author.name} (deleted user, no profile)"
    else:
        who = "an anonymous user (no profile)"
    kind = "answer" if post_type == 2 else "question"
    if community_wiki:
        kind = f"community wiki {kind}"
    text = f"{who}, {kind} {post_url(site, post_type, post_id)}"
    if post_type == 2:
        text += f" to question {post_url(site, 1, question_id)}"
    if community_wiki:
        text += f" (all editors: https://{site}/posts/{post_id}/revisions)"
    return f"{text}, {site}"
