from __future__ import annotations

import pytest

from diagramforge.builders.crawl.bulk_manifest import (
    id_of,
    key_of,
    member_key,
    parse_manifest,
    select,
    yymm_of,
)

REAL_SHAPE = b"""<?xml version='1.0' standalone='yes'?>
<arXivSRC>
  <file>
    <content_md5sum>cacbfede21d5dfef26f367ec99384546</content_md5sum>
    <filename>src/arXiv_src_0001_001.tar</filename>
    <first_item>astro-ph0001001</first_item>
    <last_item>quant-ph0001119</last_item>
    <md5sum>949AE880FBAF4649A485A8D9E07F370B</md5sum>
    <num_items>2364</num_items>
    <seq_num>1</seq_num>
    <size>225605507</size>
    <timestamp>2010-12-23 00:13:59</timestamp>
    <yymm>0001</yymm>
  </file>
  <file>
    <filename>src/arXiv_src_9108_001.tar</filename><first_item>hep-th9108001</first_item>
    <last_item>hep-th9108010</last_item><md5sum>b</md5sum><num_items>10</num_items>
    <seq_num>1</seq_num><size>1048576</size><timestamp>2010-12-23 00:00:00</timestamp>
    <yymm>9108</yymm>
  </file>
  <file>
    <filename>src/arXiv_src_2301_002.tar</filename><first_item>2301.05000</first_item>
    <last_item>2301.06000</last_item><md5sum>c</md5sum><num_items>1001</num_items>
    <seq_num>2</seq_num><size>500000000</size><timestamp>2023-02-02 10:00:00</timestamp>
    <yymm>2301</yymm>
  </file>
  <file>
    <filename>src/arXiv_src_2301_001.tar</filename><first_item>2301.00001</first_item>
    <last_item>2301.04999</last_item><md5sum>d</md5sum><num_items>4999</num_items>
    <seq_num>1</seq_num><size>500000000</size><timestamp>2023-02-02 09:00:00</timestamp>
    <yymm>2301</yymm>
  </file>
  <timestamp>Mon Apr  7 04:58:03 2025</timestamp>
</arXivSRC>
"""


def test_manifest_fields_as_arxiv_writes_them():
    chunks = parse_manifest(REAL_SHAPE)
    assert len(chunks) == 4
    c = chunks[0]
    assert (c.name, c.size, c.num_items, c.yymm, c.first_item) == \
        ("arXiv_src_0001_001.tar", 225605507, 2364, "0001", "astro-ph0001001")
    assert c.md5sum == "949ae880fbaf4649a485a8d9e07f370b"  # compared lower-case
    assert c.content_md5sum.startswith("cacb") and c.timestamp == "2010-12-23 00:13:59"


def test_months_select_across_the_century_in_time_order():
    chunks = parse_manifest(REAL_SHAPE)
    assert [c.name for c in select(chunks, None, None)] == [
        "arXiv_src_9108_001.tar", "arXiv_src_0001_001.tar", "arXiv_src_2301_001.tar",
        "arXiv_src_2301_002.tar"]
    assert [c.yymm for c in select(chunks, "9912", "0012")] == ["0001"]
    assert [c.seq_num for c in select(chunks, "2301", None, max_chunks=1)] == [1]


def test_a_manifest_entry_without_its_md5_is_an_error():
    with pytest.raises(ValueError, match="arXiv_src_x"):
        parse_manifest(b"<arXivSRC><file><filename>src/arXiv_src_x.tar</filename>"
                       b"<size>1</size></file></arXivSRC>")


def test_entities_are_not_expanded():
    evil = (b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
            b"<arXivSRC><file><filename>&x;</filename></file></arXivSRC>")
    with pytest.raises(ValueError):
        parse_manifest(evil)


@pytest.mark.parametrize("name, key, aid", [
    ("2301/2301.00001.gz", "2301.00001", "2301.00001"),
    ("0704/0704.0001.gz", "0704.0001", "0704.0001"),
    ("0001/astro-ph0001001.gz", "astro-ph0001001", "astro-ph/0001001"),
    ("9108/hep-th9108001.pdf", "hep-th9108001", "hep-th/9108001"),
    ("0309/math.GT0309136.gz", "math.GT0309136", "math.GT/0309136"),
])
def test_member_names_map_to_ids_and_back(name, key, aid):
    assert member_key(name)[0] == key
    assert id_of(key) == aid and key_of(aid) == key
    assert yymm_of(aid) == name[:4]


@pytest.mark.parametrize("name", ["2301/README.txt", "2301/2301.00001.tar", "2301/",
                                  "2301/notanid.gz", "../2301.00001.zip"])
def test_other_members_are_not_eprints(name):
    assert member_key(name) is None
