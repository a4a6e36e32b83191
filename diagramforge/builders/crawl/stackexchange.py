"""``stackexchange`` sources: the posts of a Stack Exchange site's data dump (TeX.SE: the
largest public source of TikZ, DaTikZ's main one) whose code blocks hold a picture.

One pass over the dump (:mod:`se_dump`) loads what the posts need from one another into a
SQLite index on disk — user names from Users.xml, each post's latest revision from
PostHistory.xml, each question's title, tags and prose, and the posts that pass the filters
and carry a picture — because the dump lists its files alphabetically (Posts before Users)
and an answer needs its question; memory stays flat however large the site.  The posts are
then emitted in id order, joined with their question and author: one crawl row per post,
its HTML body inline (``content``), licence and attribution per post (:mod:`se_posts`),
grouped by question.  Every post read becomes a row or a ledger row with its reason.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import sqlite3
import tempfile
from collections.abc import Callable, Iterator
from enum import StrEnum
from pathlib import Path

from diagramforge.builders.crawl.file_sources import licence_refusal
from diagramforge.builders.crawl.se_dump import DumpError, dump_tables
from diagramforge.builders.crawl.se_licence import Author, attribution, licence_for, licence_url
from diagramforge.builders.crawl.se_posts import iso, parse_body, parse_tags, post_url, profile_url
from diagramforge.builders.crawl.settings import StackExchangeParams
from diagramforge.stage import StageLog
from diagramforge.store.records import Rejection, SourceKind

QUESTION, ANSWER = 1, 2
_TYPES = {"question": QUESTION, "answer": ANSWER}
REVISION_TYPES = frozenset(range(1, 10))
"""PostHistoryTypeId of revisions (initial, edit and rollback of title, body and tags);
the rest (closing, locking, migration…) change no content."""
_FLUSH = 2000


class SEReason(StrEnum):
    POST_TYPE = "post_type_not_selected"
    DATE = "out_of_date_range"
    SCORE = "below_min_score"
    TAGS = "tags_not_selected"
    NOT_ACCEPTED = "not_accepted_answer"
    TOO_LARGE = "post_too_large"
    NO_CODE = "no_code_block"
    NO_PICTURE = "no_picture_code"
    QUESTION_MISSING = "question_missing"
    OVER_MAX = "over_max_posts"
    BAD_ROW = "bad_row"
    INCOMPLETE = "dump_incomplete"


_SCHEMA = """
CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT);
CREATE TABLE revisions (post INTEGER PRIMARY KEY, date TEXT, licence TEXT);
CREATE TABLE questions (id INTEGER PRIMARY KEY, title TEXT, tags TEXT, prose TEXT,
                        accepted INTEGER);
CREATE TABLE posts (id INTEGER PRIMARY KEY, type INTEGER, parent INTEGER, created TEXT,
                    edited TEXT, score INTEGER, owner INTEGER, owner_name TEXT,
                    community INTEGER, licence TEXT, body TEXT, prose TEXT);
"""
_INSERT = {
    "users": "INSERT OR REPLACE INTO users VALUES (?, ?)",
    # the latest revision wins, whatever order the history lists them in
    "revisions": "INSERT INTO revisions VALUES (?, ?, ?) ON CONFLICT(post) DO UPDATE SET "
                 "date = excluded.date, licence = excluded.licence "
                 "WHERE excluded.date >= revisions.date",
    "questions": "INSERT OR REPLACE INTO questions VALUES (?, ?, ?, ?, ?)",
    "posts": "INSERT OR REPLACE INTO posts VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
}
_JOIN = """
SELECT p.id, p.type, p.parent, p.created, p.edited, p.score, p.owner, p.owner_name,
       p.community, p.licence, p.body, p.prose, q.id, q.title, q.tags, q.prose, q.accepted, u.name,
       r.date, r.licence
FROM posts p
LEFT JOIN questions q ON q.id = CASE p.type WHEN 1 THEN p.id ELSE p.parent END
LEFT JOIN users u ON u.id = p.owner
LEFT JOIN revisions r ON r.post = p.id
ORDER BY p.id
"""


class _Index:
    """The dump's cross-references on disk (SQLite, a bounded page cache), written in
    batches; removed when the crawl is done with it."""

    def __init__(self, work_dir: str):
        Path(work_dir).mkdir(parents=True, exist_ok=True)
        self.dir = tempfile.mkdtemp(prefix="index-", dir=work_dir)
        self.db = sqlite3.connect(Path(self.dir) / "dump.sqlite", isolation_level=None)
        for pragma in ("journal_mode=OFF", "synchronous=OFF", "cache_size=-16000",
                       "temp_store=FILE"):
            self.db.execute(f"PRAGMA {pragma}")
        self.db.executescript(_SCHEMA)
        self.pending: dict[str, list[tuple]] = {k: [] for k in _INSERT}

    def add(self, table: str, row: tuple) -> None:
        rows = self.pending[table]
        rows.append(row)
        if len(rows) >= _FLUSH:
            self.flush()

    def flush(self) -> None:
        self.db.execute("BEGIN")
        for table, rows in self.pending.items():
            if rows:
                self.db.executemany(_INSERT[table], rows)
                rows.clear()
        self.db.execute("COMMIT")

    def close(self) -> None:
        self.db.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def _int(value: str | None) -> int | None:
    return int(value) if value not in (None, "") else None


class _Reader:
    """Reads the dump's tables into the index, ledgering the posts that stop here."""

    def __init__(self, cfg: StackExchangeParams, index: _Index, log: StageLog,
                 claims: Callable[[bytes], bool]):
        self.cfg, self.index, self.log, self.claims = cfg, index, log, claims
        self.types = {_TYPES[t] for t in cfg.post_types}
        self.tags = set(cfg.tags)
        self.seen: set[str] = set()

    def reject(self, loc: str, reason: str, detail: str) -> None:
        self.log.reject(Rejection(loc, reason, detail, source=SourceKind.STACKEXCHANGE))

    def read(self) -> None:
        site = self.cfg.site
        where = f"stackexchange:{site}"
        try:
            for table, rows in dump_tables(self.cfg):
                if table == "post_history" and not self.cfg.post_history:
                    continue
                self.seen.add(table)
                step = {"users": self._user, "post_history": self._revision,
                        "posts": self._post}[table]
                try:
                    for row in rows:
                        step(row)
                except DumpError as exc:  # the rest of this file is lost, not the run
                    self.log.stats.n_in += 1
                    self.reject(f"{where}:{table}", exc.reason, exc.detail)
        except DumpError as exc:
            self.log.stats.n_in += 1
            self.reject(where, exc.reason, exc.detail)
        self.index.flush()
        if "posts" not in self.seen:
            self.log.stats.n_in += 1
            self.reject(where, SEReason.INCOMPLETE, f"no Posts table; read {sorted(self.seen)}")

    def _user(self, row: dict) -> None:
        uid = _int(row.get("Id"))
        if uid is not None:
            self.index.add("users", (uid, row.get("DisplayName")))

    def _revision(self, row: dict) -> None:
        with contextlib.suppress(ValueError, TypeError):
            if int(row.get("PostHistoryTypeId", 0)) in REVISION_TYPES:
                self.index.add("revisions", (int(row["PostId"]), iso(row["CreationDate"]),
                                             row.get("ContentLicense")))

    def _post(self, row: dict) -> None:
        cfg, log = self.cfg, self.log
        log.stats.n_in += 1
        try:
            pid, ptype = int(row["Id"]), int(row.get("PostTypeId") or 0)
            created = iso(row["CreationDate"])
            edited = iso(row["LastEditDate"]) if row.get("LastEditDate") else None
            score = int(row.get("Score") or 0)
            parent = _int(row.get("ParentId"))
        except (KeyError, ValueError) as exc:
            self.reject(f"stackexchange:{cfg.site}/posts/{row.get('Id', '?')}",
                        SEReason.BAD_ROW, repr(exc))
            return
        loc = f"stackexchange:{post_url(cfg.site, ptype, pid)[8:]}"
        body_text = row.get("Body") or ""
        body = None
        if ptype == QUESTION:  # its answers need its title, tags and prose
            body = parse_body(body_text)
            self.index.add("questions", (pid, row.get("Title"), row.get("Tags"),
                                         body.prose(cfg.context_chars),
                                         _int(row.get("AcceptedAnswerId"))))
        if ptype not in self.types:
            self.reject(loc, SEReason.POST_TYPE, f"PostTypeId {ptype}")
            return
        day = created[:10]
        if (cfg.from_date and day < cfg.from_date) or (cfg.until_date and day > cfg.until_date):
            self.reject(loc, SEReason.DATE, f"created {day}")
            return
        if cfg.min_score is not None and score < cfg.min_score:
            self.reject(loc, SEReason.SCORE, f"{score} < {cfg.min_score}")
            return
        if ptype == QUESTION and self.tags and not self.tags & set(parse_tags(row.get("Tags"))):
            self.reject(loc, SEReason.TAGS, row.get("Tags") or "(no tags)")
            return
        size = len(body_text.encode())
        if size > cfg.max_body_bytes:
            self.reject(loc, SEReason.TOO_LARGE, f"{size} bytes > {cfg.max_body_bytes}")
            return
        if "<pre" not in body_text:
            self.reject(loc, SEReason.NO_CODE, "no <pre><code> block")
            return
        # no picture anywhere in the HTML: no code block can have one (no parse needed)
        if self.claims(body_text.encode()):
            body = body or parse_body(body_text)
        if body is None or not any(self.claims(b.encode()) for b in body.blocks):
            self.reject(loc, SEReason.NO_PICTURE, "no code block holds a picture")
            return
        self.index.add("posts", (pid, ptype, parent, created, edited, score,
                                 _int(row.get("OwnerUserId")), row.get("OwnerDisplayName"),
                                 int(bool(row.get("CommunityOwnedDate"))),
                                 row.get("ContentLicense"), body_text,
                                 body.prose(cfg.context_chars)))


def stackexchange_rows(cfg: StackExchangeParams, claims: Callable[[bytes], bool],
                       allow: list[str], log: StageLog) -> Iterator[dict]:
    """Every post of the dump: a crawl row, or a ledger row (``log``) saying why not.
    ``claims``: whether a code block holds a picture (the formats' ``snippet`` claims)."""
    index = _Index(cfg.work_dir)
    try:
        _Reader(cfg, index, log, claims).read()
        yield from _emit(cfg, index, allow, log)
    finally:
        index.close()


def _emit(cfg: StackExchangeParams, index: _Index, allow: list[str], log: StageLog
          ) -> Iterator[dict]:
    tags = set(cfg.tags)
    kept = 0
    dump = cfg.dataset or cfg.dump.rstrip("/").rsplit("/", 1)[-1]
    for (pid, ptype, parent, created, edited, score, owner, owner_name, community,
         content_licence, body, prose, qid, title, qtags, qprose, accepted, user_name,
         rev_date, rev_licence) in index.db.execute(_JOIN):
        url = post_url(cfg.site, ptype, pid)
        loc = f"stackexchange:{url[8:]}"

        def reject(reason: str, detail: str, loc: str = loc) -> None:
            log.reject(Rejection(loc, reason, detail, source=SourceKind.STACKEXCHANGE))

        if qid is None:
            reject(SEReason.QUESTION_MISSING, f"question {parent} is not in the dump")
            continue
        question_tags = parse_tags(qtags)
        if ptype == ANSWER and tags and not tags & set(question_tags):
            reject(SEReason.TAGS, f"question {qid}: {qtags or '(no tags)'}")
            continue
        if ptype == ANSWER and cfg.accepted_only and accepted != pid:
            reject(SEReason.NOT_ACCEPTED, f"question {qid} accepted {accepted}")
            continue
        if cfg.max_posts and kept >= cfg.max_posts:
            reject(SEReason.OVER_MAX, f"crawl.stackexchange.max_posts={cfg.max_posts}")
            continue
        lic = licence_for(created, edited, content_licence,
                          (rev_date, rev_licence) if rev_date else None)
        refusal = licence_refusal(lic.spdx, allow) if cfg.skip_disallowed_licences else None
        if refusal:
            reject(*refusal)
            continue
        kept += 1
        deleted = owner is None
        author = Author(owner, user_name if owner is not None else owner_name, deleted)
        credit = attribution(cfg.site, ptype, pid, qid, author, bool(community))
        group = f"stackexchange:{cfg.site}/q/{qid}"
        meta = {
            "site": cfg.site, "dump": dump, "post_id": pid,
            "post_type": "question" if ptype == QUESTION else "answer",
            "question_id": qid, "question_url": post_url(cfg.site, QUESTION, qid),
            "score": score, "accepted": ptype == ANSWER and accepted == pid,
            "tags": question_tags, "owner_user_id": owner, "owner_name": author.name,
            "profile_url": profile_url(cfg.site, owner) if owner is not None else None,
            "deleted_user": deleted, "community_wiki": bool(community),
            "created": created, "last_edit": edited, "licence_basis": lic.basis,
            "licence_date": lic.date, "attribution": credit, "group": group,
            "prose": prose, "question_prose": qprose if ptype == ANSWER else None,
        }
        yield {
            "id": loc, "kind": SourceKind.STACKEXCHANGE, "version": lic.date or edited or created,
            "title": title, "authors": json.dumps([author.name] if author.name else []),
            "categories": " ".join(question_tags) or None, "date": created[:10],
            "licence": lic.spdx, "licence_url": licence_url(lic.spdx), "url": url,
            "path": None, "pdf_path": None, "meta": json.dumps(meta, sort_keys=True),
            "content": body.encode(),
        }
