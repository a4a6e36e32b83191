from __future__ import annotations

import json

from diagramforge.builders.crawl.bulk_manifest import Chunk
from diagramforge.builders.crawl.bulk_metadata import (
    MetadataIndex,
    build_index,
    read_snapshot,
    snapshot_row,
)

# one record as arXiv's public snapshot (Kaggle) writes it
KAGGLE = {"id": "0704.0001", "submitter": "Pavel Nadolsky",
          "authors": "C. Bal\\'azs, E. L. Berger, P. M. Nadolsky, C.-P. Yuan",
          "title": "Calculation of prompt diphoton production cross sections at Tevatron and\n"
                   "  LHC energies", "comments": "37 pages", "journal-ref": None, "doi": None,
          "report-no": None, "categories": "hep-ph", "license": None, "abstract": "…",
          "versions": [{"version": "v1", "created": "Mon, 2 Apr 2007 19:18:42 GMT"},
                       {"version": "v2", "created": "Tue, 24 Jul 2007 20:10:27 GMT"}],
          "update_date": "2008-11-13",
          "authors_parsed": [["Balázs", "C.", ""], ["Berger", "E. L.", ""],
                             ["Nadolsky", "P. M.", ""], ["Yuan", "C. -P.", ""]]}


def chunk(yymm: str, first: str, last: str, ts: str = "2010-12-23 00:13:59") -> Chunk:
    return Chunk(filename=f"src/arXiv_src_{yymm}_001.tar", md5sum="0", size=1,
                 first_item=first, last_item=last, num_items=1, seq_num=1, timestamp=ts,
                 yymm=yymm)


def test_a_snapshot_record_reads_like_its_oai_entry(tmp_path):
    idx = MetadataIndex(build_index([snapshot_row(KAGGLE)], tmp_path / "i.sqlite"))
    paper = idx.for_chunk(chunk("0704", "0704.0001", "0704.0100"))["0704.0001"]
    e = paper.entry
    assert e.title.startswith("Calculation of prompt") and "\n" not in e.title
    assert e.authors[0] == "C. Balázs" and len(e.authors) == 4
    assert e.created == "2007-04-02" and e.categories == ["hep-ph"]
    assert e.licence_url is None and e.licence == "LicenseRef-none"
    assert paper.versions == [("1", "2007-04-02T19:18:42"), ("2", "2007-07-24T20:10:27")]


def test_the_version_in_a_chunk_is_the_newest_made_before_it():
    row = snapshot_row(KAGGLE)
    from diagramforge.builders.crawl.bulk_metadata import Paper

    p = Paper(entry=None, versions=[tuple(v) for v in json.loads(row[8])])  # type: ignore[arg-type]
    assert p.version_at("2007-05-01 00:00:00") == "1"
    assert p.version_at("2010-12-23 00:13:59") == "2"
    assert p.version_at("2001-01-01 00:00:00") == "2"  # dates disagree: the newest
    assert Paper(entry=None, versions=[]).version_at("2010-01-01") is None  # type: ignore[arg-type]


def test_a_chunk_sees_only_its_month_and_item_range(tmp_path):
    recs = [{**KAGGLE, "id": i} for i in ("astro-ph/0001001", "cond-mat/0001500",
                                         "quant-ph/0001119", "quant-ph/0001120",
                                         "astro-ph/0002001", "0001.00001")]
    idx = MetadataIndex(build_index((snapshot_row(r) for r in recs), tmp_path / "i.sqlite"))
    got = idx.for_chunk(chunk("0001", "astro-ph0001001", "quant-ph0001119"))
    assert sorted(got) == ["astro-ph0001001", "cond-mat0001500", "quant-ph0001119"]
    assert got["cond-mat0001500"].entry.id == "cond-mat/0001500"
    assert len(idx) == 6


def test_snapshots_stream_from_compressed_json_lines_and_parquet(tmp_path):
    import gzip

    import pyarrow as pa
    import pyarrow.parquet as pq

    with gzip.open(tmp_path / "s.json.gz", "wt") as fh:
        for k in range(3):
            fh.write(json.dumps({**KAGGLE, "id": f"0704.000{k}"}) + "\n\n")
    got = [r["id"] for r in read_snapshot(str(tmp_path / "s.json.gz"))]
    assert got == ["0704.0000", "0704.0001", "0704.0002"]
    # Parquet with list-valued categories and nested versions
    pq.write_table(pa.Table.from_pylist([{**KAGGLE, "categories": ["hep-ph", "hep-ex"]}]),
                   tmp_path / "s.parquet")
    (rec,) = list(read_snapshot(str(tmp_path / "s.parquet")))
    row = snapshot_row(rec)
    assert row[5] == "hep-ph hep-ex" and json.loads(row[8])[1][0] == "2"
