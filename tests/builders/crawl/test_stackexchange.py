"""The ``stackexchange`` source: the sample TeX.SE dump (``samples/stackexchange``, written by
``scripts/stackexchange.py`` from posts made up for it) through the pipeline's crawl and
extract, the same dump as a dataset and over S3 (moto on loopback), filters on small dumps
written here, and dumps that are broken."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

from diagramforge import runner
from diagramforge.builders.crawl.se_dump import dump_tables
from diagramforge.builders.crawl.se_layout import pack_7z, write_dump, write_tables, write_xml
from diagramforge.builders.crawl.settings import StackExchangeParams
from diagramforge.builders.extract.stage import ExtractStage
from diagramforge.formats.tikz.snippet import as_document
from diagramforge.runner import run_named, run_stage
from diagramforge.store.paths import stage_paths
from diagramforge.store.records import RECORD_SCHEMA, REJECTION_SCHEMA, SOURCE_SCHEMA
from diagramforge.store.shards import ShardSet
from tests.conftest import REPO, SAMPLES, make_params

DUMP = SAMPLES / "stackexchange" / "tex.stackexchange.com.7z"
SITE = "tex.stackexchange.com"

# the sample's posts as scripts/stackexchange.py documents them: kept (with the licence of
# their latest revision) or the reason the crawl gives
SAMPLE_CRAWL = {
    1001: "CC-BY-SA-2.5",   # 2010, never edited
    1002: "CC-BY-SA-3.0",   # 2010, body edited 2012
    1003: "CC-BY-SA-3.0",
    1004: "CC-BY-SA-3.0",   # deleted user
    1005: "CC-BY-SA-4.0",   # 2017, body edited 2019
    1006: "CC-BY-SA-3.0",   # 2017, edited 2017
    1007: "no_code_block",
    1008: "no_picture_code",
    1009: "CC-BY-SA-4.0",
    1010: "below_min_score",
    1011: "CC-BY-SA-4.0",   # community wiki
    1013: "no_code_block",
    1014: "CC-BY-SA-4.0",   # hostile
    1015: "CC-BY-SA-4.0",
    1016: "post_type_not_selected",
    1018: "CC-BY-SA-4.0",   # created at 2018-05-02T00:00
    1019: "question_missing",
}
QUESTIONS = {1001, 1003, 1007, 1009, 1013}
PARENT = {1002: 1001, 1004: 1003, 1005: 1003, 1006: 1003, 1018: 1003, 1011: 1009,
          1015: 1009, 1014: 1013}
# what extraction makes of each kept post: pictures kept, and the ledger rows of the rest
SAMPLE_EXTRACT = {
    1001: (1, []), 1002: (2, ["code_block_without_picture"]), 1003: (1, []), 1004: (1, []),
    1005: (1, []), 1006: (1, []), 1009: (1, []), 1011: (1, []),
    1014: (1, ["unsafe_code", "no_diagrams", "unsafe_code", "no_diagrams"]),
    1015: (1, []), 1018: (1, ["duplicate_in_post"]),
}


def se_params(tmp_path: Path, **se: object):
    cfg = {"enabled": True, "dump": str(DUMP), "work_dir": str(tmp_path / "se-work"), **se}
    return make_params(tmp_path, runner={"shard_size": 3},
                       crawl={"arxiv": {"source": ""}, "pdf": {"from_arxiv": False},
                              "repos": {"repositories": []}, "stackexchange": cfg})


def _key(locator: str) -> int | str:
    """A post's id from its locator (``stackexchange:tex.stackexchange.com/a/1002``); the
    locator itself for what is not a post (the dump)."""
    tail = locator.rsplit("/", 1)[-1]
    return int(tail) if tail.lstrip("-").isdigit() else locator


def crawl(params) -> tuple[dict[int, dict], dict[int | str, dict]]:  # noqa: ANN001
    """Crawl rows and ledger rows, by post id."""
    run_named("crawl", params)
    paths = stage_paths(params, "crawl")
    rows = ShardSet(paths.records, SOURCE_SCHEMA).read_all().to_pylist()
    ledger = ShardSet(paths.rejections, REJECTION_SCHEMA).read_all().to_pylist()
    by: dict[int | str, dict] = {}
    for r in ledger:
        assert _key(r["locator"]) not in by, r
        by[_key(r["locator"])] = r
    return {_key(r["id"]): r for r in rows}, by


def test_every_sample_post_is_a_row_or_a_ledger_row_with_its_licence(tmp_path, monkeypatch):
    monkeypatch.setattr(runner, "LEDGER_SPILL_ROWS", 2)  # ledger shards written as it goes
    params = se_params(tmp_path)
    stats = run_named("crawl", params)
    rows, ledger = crawl(params)
    assert stats.n_in == len(SAMPLE_CRAWL) == len(rows) + len(ledger)
    assert {p: r["licence"] for p, r in rows.items()} == \
        {p: v for p, v in SAMPLE_CRAWL.items() if v.startswith("CC-")}
    assert {p: r["reason"] for p, r in ledger.items()} == \
        {p: v for p, v in SAMPLE_CRAWL.items() if not v.startswith("CC-")}
    assert {r["source"] for r in ledger.values()} == {"stackexchange"}
    assert not any(Path(tmp_path / "se-work").iterdir())  # the index is gone

    q, a = rows[1001], rows[1002]
    assert q["kind"] == a["kind"] == "stackexchange"
    assert q["url"] == f"https://{SITE}/q/1001" and a["url"] == f"https://{SITE}/a/1002"
    assert a["title"] == q["title"] == "Double-headed arrow between two nodes"
    assert a["licence_url"] == "https://creativecommons.org/licenses/by-sa/3.0/"
    assert a["date"] == "2010-11-16" and a["categories"] == "tikz-pgf arrows"
    assert b"&lt;-&gt;" in q["content"]  # the body travels as the dump has it
    meta = {p: json.loads(r["meta"]) for p, r in rows.items()}
    for p in rows:
        qid = p if p in QUESTIONS else PARENT[p]
        assert meta[p]["group"] == f"stackexchange:{SITE}/q/{qid}"
        assert meta[p]["licence_basis"] == "revision_date"  # from PostHistory
    assert meta[1002]["licence_date"] == "2012-03-01T14:00:00.000"
    assert meta[1002]["accepted"] and not meta[1004]["accepted"]
    assert meta[1002]["question_prose"].startswith("I want an arrow with tips at both ends (<->)")
    assert meta[1004]["deleted_user"] and meta[1004]["owner_user_id"] is None
    assert meta[1004]["attribution"].startswith("user4711 (deleted user, no profile), answer")
    assert meta[1011]["community_wiki"]
    assert meta[1003]["attribution"].startswith(
        f"Jörg Knüpfer (https://{SITE}/users/103), question https://{SITE}/q/1003")
    assert json.loads(rows[1006]["authors"]) == ["Q&A Fan"]


def test_extracted_records_carry_the_post_its_question_and_its_credit(tmp_path):
    params = se_params(tmp_path)
    run_named("crawl", params)
    ex = run_stage(ExtractStage(params))
    recs = ShardSet(stage_paths(params, "extract").records, RECORD_SCHEMA).read_all().to_pylist()
    ledger = ShardSet(stage_paths(params, "extract").rejections,
                      REJECTION_SCHEMA).read_all().to_pylist()
    post = lambda s: int(s.split("/")[2])  # noqa: E731 - tex.stackexchange.com/a/1002/code1#1
    got: dict[int, tuple[int, list[str]]] = {}
    for r in recs:
        got.setdefault(post(r["source_id"]), (0, []))
        got[post(r["source_id"])] = (got[post(r["source_id"])][0] + 1, [])
    for r in ledger:
        n, reasons = got.get(post(r["locator"].split(":", 1)[1]), (0, []))
        got[post(r["locator"].split(":", 1)[1])] = (n, [*reasons, r["reason"]])
    assert got == SAMPLE_EXTRACT
    assert ex.n_in == len(SAMPLE_EXTRACT) and ex.rejected_inputs == 0

    by = {r["source_id"]: r for r in recs}
    a = by[f"{SITE}/a/1002/code2#1"]  # the fragment whose library line went to the preamble
    assert a["source"] == "stackexchange" and a["format"] == "tikz"
    assert a["source_url"] == f"https://{SITE}/a/1002"
    assert a["group"] == by[f"{SITE}/q/1001/code1#1"]["group"] == f"stackexchange:{SITE}/q/1001"
    assert a["licence"] == "CC-BY-SA-3.0" and "knot_theorist" in a["attribution"]
    assert a["title"] == "Double-headed arrow between two nodes"
    assert "\\usetikzlibrary{arrows.meta}" in a["code"].split("\\begin{document}")[0]
    # the question's prose, then the answer's; no code in either
    assert a["context"].startswith("I want an arrow with tips at both ends (<->) between two "
                                   "boxes & a label above it.")
    assert "Or, keeping your nodes, with open tips:" in a["context"]
    assert "\\begin{tikzpicture}" not in a["context"]
    se = json.loads(a["meta"])["stackexchange"]
    assert se["tags"] == ["tikz-pgf", "arrows"] and se["post_type"] == "answer"
    assert se["accepted"] and se["score"] == 20
    # entities in code are decoded: the matrix keeps its & and \\
    assert "A & B \\\\" in by[f"{SITE}/q/1003/code1#1"]["code"]
    # the hostile post: what reaches outside is ledgered with its reason
    hostile = {r["locator"]: r for r in ledger if "/a/1014/" in r["locator"]}
    assert hostile[f"stackexchange:{SITE}/a/1014/code1#1"]["detail"] == "shell escape"
    assert hostile[f"stackexchange:{SITE}/a/1014/code2#1"]["detail"] == \
        "input outside the document"
    assert "\\def\\spin{\\spin}" in by[f"{SITE}/a/1014/code3#1"]["code"]  # render's to stop


def test_fragments_get_their_packages_and_libraries_in_the_preamble():
    params = make_params(Path("/nonexistent"))
    code = ("\\usepackage[dvipsnames]{xcolor}\n\\usetikzlibrary{positioning}\n"
            "\\tikzset{b/.style={draw=Maroon}}\n\\begin{tikzpicture}\n"
            "\\node[b] (a) {A}; \\node[b, right=of a] {B};\n\\end{tikzpicture}\n")
    doc = as_document(code, params.extract)
    pre, body = doc.split("\\begin{document}")
    assert pre.splitlines() == ["\\documentclass{article}", "\\usepackage[dvipsnames]{xcolor}",
                                "\\usepackage{tikz}", "\\usetikzlibrary{positioning}"]
    assert "\\tikzset{b/.style={draw=Maroon}}" in body and "\\usepackage" not in body
    whole = "\\documentclass{standalone}\n\\begin{document}x\\end{document}"
    assert as_document(whole, params.extract) == whole


def test_the_sample_dump_is_what_the_script_writes(tmp_path):
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        from stackexchange import tables
    finally:
        sys.path.remove(str(REPO / "scripts"))
    out = write_dump(tmp_path / "d.7z", tables(), tmp_path / "w")
    assert hashlib.sha256(out.read_bytes()).digest() == hashlib.sha256(DUMP.read_bytes()).digest()


def _sample_tables() -> dict[str, list[dict]]:
    cfg = StackExchangeParams(enabled=True, dump=str(DUMP))
    return {t: list(rows) for t, rows in dump_tables(cfg)}


def _comparable(rows: dict[int, dict]) -> dict[int, dict]:
    out = {}
    for p, r in rows.items():
        meta = json.loads(r["meta"])
        meta.pop("dump")
        out[p] = {**r, "meta": meta}
    return out


def test_the_dump_as_a_dataset_gives_the_same_rows(tmp_path):
    local, local_ledger = crawl(se_params(tmp_path / "a"))
    write_tables(tmp_path / "hub", _sample_tables())
    rows, ledger = crawl(se_params(tmp_path / "b", dump="", dataset=str(tmp_path / "hub"),
                                   batch_rows=4))
    assert _comparable(rows) == _comparable(local)
    assert ledger == local_ledger


def test_a_folder_of_xml_files_and_an_s3_url_give_the_same_rows(tmp_path):
    from tests.builders.crawl.s3_loopback import S3Loopback

    local, _ = crawl(se_params(tmp_path / "a"))
    folder = tmp_path / "xml"
    folder.mkdir()
    for table, rows in _sample_tables().items():
        write_xml(folder / {"posts": "Posts.xml", "users": "Users.xml",
                            "post_history": "PostHistory.xml"}[table], table, rows)
    rows, _ = crawl(se_params(tmp_path / "b", dump=str(folder)))
    assert _comparable(rows) == _comparable(local)
    with S3Loopback("dumps") as s3:
        s3.put("se/tex.stackexchange.com.7z", DUMP.read_bytes())
        rows, _ = crawl(se_params(tmp_path / "c", dump="s3://dumps/se/tex.stackexchange.com.7z",
                                  storage_options=s3.storage_options))
        assert s3.gets("se/tex.stackexchange.com.7z")
    assert rows == local


# small dumps for the filters, written here
PIC = ("<p>x</p><pre><code>\\begin{tikzpicture}\\draw (0,0) -- (1,%d);\\end{tikzpicture}"
       "</code></pre>")


def _post(pid: int, ptype: int, created: str, parent: int | None = None, score: int = 1,
          tags: str | None = None, accepted: int | None = None, **extra: object) -> dict:
    return {"Id": pid, "PostTypeId": ptype, "ParentId": parent, "AcceptedAnswerId": accepted,
            "CreationDate": created, "Score": score, "Body": PIC % pid, "OwnerUserId": 7,
            "Title": f"Q{pid}" if ptype == 1 else None, "Tags": tags, **extra}


SMALL = [
    _post(1, 1, "2015-01-01T00:00:00", tags="<tikz-pgf>", accepted=3),
    _post(2, 2, "2015-01-02T00:00:00", parent=1),
    _post(3, 2, "2019-01-03T00:00:00", parent=1),
    _post(4, 1, "2020-01-01T00:00:00", tags="<pgfplots><axis>", score=-1),
    _post(5, 2, "2020-01-02T00:00:00", parent=4, score=-5),
    _post(6, 1, "2021-01-01T00:00:00", tags="<fonts>", ContentLicense="CC BY-SA 4.0"),
    _post(7, 2, "2021-06-01T00:00:00", parent=6, ContentLicense="CC BY-SA 4.0"),
]


def _small(tmp_path: Path, posts: list[dict] = SMALL) -> Path:
    return write_dump(tmp_path / "small.7z", {
        "posts": posts, "users": [{"Id": 7, "DisplayName": "Seven"}]}, tmp_path / "w", level=1)


@pytest.mark.parametrize("se, expected", [
    ({}, {1: "CC-BY-SA-3.0", 2: "CC-BY-SA-3.0", 3: "CC-BY-SA-4.0", 4: "below_min_score",
          5: "below_min_score", 6: "CC-BY-SA-4.0", 7: "CC-BY-SA-4.0"}),
    ({"min_score": None, "tags": ["pgfplots", "tikz-pgf"]},
     {1: "kept", 2: "kept", 3: "kept", 4: "kept", 5: "kept", 6: "tags_not_selected",
      7: "tags_not_selected"}),
    ({"post_types": ["answer"], "accepted_only": True},
     {1: "post_type_not_selected", 2: "not_accepted_answer", 3: "kept",
      4: "post_type_not_selected", 5: "below_min_score", 6: "post_type_not_selected",
      7: "not_accepted_answer"}),
    ({"from_date": "2015-01-02", "until_date": "2020-12-31", "min_score": None,
      "max_posts": 2},
     {1: "out_of_date_range", 2: "kept", 3: "kept", 4: "over_max_posts",
      5: "over_max_posts", 6: "out_of_date_range", 7: "out_of_date_range"}),
    ({"max_body_bytes": 60, "min_score": None}, {p: "post_too_large" for p in range(1, 8)}),
    ({}, "allow-4.0-only"),
])
def test_filters(tmp_path, se, expected):
    params = se_params(tmp_path, dump=str(_small(tmp_path)), **se)
    if expected == "allow-4.0-only":
        params = params.model_copy(update={"licences": params.licences.model_copy(
            update={"allow": ["CC-BY-SA-4.0"]})})
        expected = {1: "licence_not_allowed", 2: "licence_not_allowed", 3: "CC-BY-SA-4.0",
                    4: "below_min_score", 5: "below_min_score", 6: "CC-BY-SA-4.0",
                    7: "CC-BY-SA-4.0"}
    rows, ledger = crawl(params)
    got = {**{p: r["reason"] for p, r in ledger.items()},
           **{p: (r["licence"] if "CC-" in str(expected.get(p)) else "kept")
              for p, r in rows.items()}}
    assert got == expected
    if not se and 1 in rows:  # no history read: the dump's ContentLicense, else the dates
        assert json.loads(rows[6]["meta"])["licence_basis"] == "post_licence"
        assert json.loads(rows[1]["meta"])["licence_basis"] == "post_date"
        assert json.loads(rows[1]["meta"])["attribution"].startswith(
            f"Seven (https://{SITE}/users/7), question https://{SITE}/q/1")


def test_broken_dumps_are_ledgered_and_what_was_read_is_kept(tmp_path):
    folder = tmp_path / "cut"
    folder.mkdir()
    write_xml(folder / "Posts.xml", "posts", SMALL[:3])
    text = (folder / "Posts.xml").read_bytes()
    (folder / "Posts.xml").write_bytes(text[:text.index(b'<row Id="3"') + 40])  # cut mid-row
    rows, ledger = crawl(se_params(tmp_path / "a", dump=str(folder)))
    assert set(rows) == {1, 2}
    (bad,) = [r for r in ledger.values() if r["reason"] == "dump_corrupt"]
    assert "Posts.xml" in bad["detail"]
    assert json.loads(rows[1]["meta"])["owner_name"] is None  # no Users.xml: named by id
    assert "user7 (https://tex.stackexchange.com/users/7)" in json.loads(
        rows[1]["meta"])["attribution"]

    cut = tmp_path / "cut.7z"  # an interrupted download: the archive's index is missing
    cut.write_bytes(DUMP.read_bytes()[:DUMP.stat().st_size // 2])
    params = se_params(tmp_path / "b", dump=str(cut))
    stats = run_named("crawl", params)
    ledger = ShardSet(stage_paths(params, "crawl").rejections, REJECTION_SCHEMA).read_all()
    assert stats.n_out == 0 and stats.n_in == ledger.num_rows
    assert ledger.column("reason").to_pylist() == ["dump_unreadable", "dump_incomplete"]

    only_users = write_xml(tmp_path / "Users.xml", "users", [{"Id": 1, "DisplayName": "A"}])
    arch = pack_7z([only_users], tmp_path / "users-only.7z", level=1)
    params = se_params(tmp_path / "c", dump=str(arch))
    stats = run_named("crawl", params)
    ledger = ShardSet(stage_paths(params, "crawl").rejections, REJECTION_SCHEMA).read_all()
    assert stats.n_out == 0 and ledger.column("reason").to_pylist() == ["dump_incomplete"]


def test_a_post_table_row_without_an_id_is_ledgered(tmp_path):
    posts = [*SMALL[:2], {"PostTypeId": 2, "CreationDate": "2015-01-02T00:00:00",
                          "Body": PIC % 9}]
    params = se_params(tmp_path, dump=str(_small(tmp_path, posts)))
    stats = run_named("crawl", params)
    ledger = ShardSet(stage_paths(params, "crawl").rejections, REJECTION_SCHEMA).read_all()
    assert stats.n_in == 3 and stats.n_out == 2
    assert ledger.column("reason").to_pylist() == ["bad_row"]
