"""Hashed n-gram decontamination: a long shared run is found whatever the layout; shared
boilerplate is not; external datasets are read from local Parquet through ``datasets``."""

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from diagramforge.curation import decontam
from diagramforge.params import DecontamParams
from tests.filters.test_split import tikz

CFG = DecontamParams(ngram=20, boilerplate_docs=4)


def test_shingles_ignore_whitespace_and_need_n_tokens():
    a = decontam.shingles("\\draw (0,0) -- (1,1);", 5)
    b = decontam.shingles("\\draw   (0, 0)\n--(1,1) ;", 5)
    assert a.size and set(a.tolist()) == set(b.tolist())
    assert decontam.shingles("\\draw (0,0);", 50).size == 0
    assert set(decontam.shingles("\\draw (0,1) -- (1,1);", 5).tolist()) != set(a.tolist())


def rows():
    copied = tikz(7).splitlines()[3:9]  # six node lines of train item t7 (~120 tokens)
    out = [{"id": f"t{i}", "split": "train", "code": tikz(i)} for i in range(10)]
    out += [{"id": "leak", "split": "test", "source_id": "x#1",
             "code": tikz(50) + "\n".join(copied)},
            {"id": "clean", "split": "test", "code": tikz(51)},
            {"id": "short", "split": "test", "code": "\\draw (0,0);"},
            {"id": "val", "split": "validation", "code": tikz(7)}]
    return out


def test_a_test_item_sharing_a_long_run_with_train_is_found():
    found = decontam.find(rows(), CFG)
    assert [(h.id, h.against, h.match) for h in found.hits] == [("leak", "train", "t7")]
    assert found.hits[0].shared > 0 and found.tested == 3
    assert "t7" in found.hits[0].reason(CFG.ngram)
    # a longer run than was copied finds nothing
    assert not decontam.find(rows(), DecontamParams(ngram=400)).hits


def test_boilerplate_shared_by_many_train_items_is_not_contamination():
    pre = " ".join(f"\\usetikzlibrary{{lib{k}}}" for k in range(30))
    rs = [{"id": f"t{i}", "split": "train", "code": pre + tikz(i)} for i in range(4)]
    rs.append({"id": "q", "split": "test", "code": pre + tikz(99)})
    found = decontam.find(rs, CFG)
    assert not found.hits and found.boilerplate > 0
    assert decontam.find(rs, DecontamParams(ngram=20, boilerplate_docs=10)).hits



def test_boilerplate_is_counted_over_every_split():
    # a page header two train and two test documents carry: four documents of the pool
    head = " ".join(f"<mxCell id=\"{k}\" parent=\"0\"/>" for k in range(12))
    rs = [{"id": f"t{i}", "split": "train", "code": head + tikz(i)} for i in range(2)]
    rs += [{"id": f"q{i}", "split": "test", "code": head + tikz(90 + i)} for i in range(2)]
    assert not decontam.find(rs, DecontamParams(ngram=20, boilerplate_docs=4)).hits
    assert len(decontam.find(rs, DecontamParams(ngram=20, boilerplate_docs=5)).hits) == 2


def test_external_parquet_is_a_reference_set(tmp_path):
    path = tmp_path / "ext.parquet"
    pq.write_table(pa.table({"id": ["e1", "e2"], "tex": [tikz(51), tikz(52)]}), path)
    ext = decontam.external_docs(str(path), "tex")
    found = decontam.find(rows(), CFG, ext)
    assert {(h.id, h.against, h.match) for h in found.hits} == {
        ("leak", "train", "t7"), ("clean", str(path), "e1")}
    with pytest.raises(ValueError, match="no column 'code'"):
        list(decontam.external_docs(str(path), "code"))


def test_a_dataset_directory_is_loaded_as_a_hub_repository_is(tmp_path):
    from datasets import Dataset

    Dataset.from_dict({"code": [tikz(51)]}).to_parquet(str(tmp_path / "d" / "train.parquet"))
    found = decontam.find(rows(), CFG, decontam.external_docs(str(tmp_path / "d"), "code"))
    assert ("clean", "train:0") in {(h.id, h.match) for h in found.hits}


def test_an_unloadable_reference_names_the_param(tmp_path):
    with pytest.raises(ValueError, match="split.decontaminate.against"):
        list(decontam.external_docs("nobody/no-such-dataset-offline", "code"))


def test_precomputed_shingles_stand_in_for_code():
    """The split stage keeps shingles, not code: the same hits either way."""
    pre = [{**r, "code": decontam.shingles(r.get("code"), CFG.ngram)} for r in rows()]
    a, b = decontam.find(rows(), CFG), decontam.find(pre, CFG)
    assert a.hits == b.hits and a.boilerplate == b.boilerplate and a.hits


def _ties():
    """A test item sharing runs with two train items equally, and with an external one."""
    a, b = [f"alpha{k}" for k in range(60)], [f"beta{k}" for k in range(60)]
    rs = [{"id": "ta", "split": "train", "code": " ".join(a)},
          {"id": "tb", "split": "train", "code": " ".join(b)},
          {"id": "tie", "split": "test", "code": " ".join(a[:30] + b[:30])}]  # 11 runs each
    pre = " ".join(f"\\usetikzlibrary{{lib{k}}}" for k in range(30))
    rs += [{"id": f"h{i}", "split": "train" if i < 3 else "test", "code": pre + tikz(300 + i)}
           for i in range(5)]
    return rows() + rs


@pytest.mark.parametrize("parts", [1, 2, 3, 7])
@pytest.mark.parametrize("boilerplate_docs", [4, 50])
def test_the_index_built_in_hash_ranges_finds_the_same(tmp_path, parts, boilerplate_docs):
    path = tmp_path / "ext.parquet"
    pq.write_table(pa.table({"id": ["e1", "e2"], "code": [tikz(51), tikz(52)]}), path)
    cfg = DecontamParams(ngram=20, boilerplate_docs=boilerplate_docs)
    whole = decontam.find(_ties(), cfg, decontam.external_docs(str(path), "code"))
    pre = [{**r, "code": decontam.shingles(r["code"], cfg.ngram)} for r in _ties()]
    split = decontam.find_in_parts(pre, cfg, lambda: decontam.external_docs(str(path), "code"),
                                   parts)
    assert split == whole
    assert {h.id for h in whole.hits} >= {"leak", "clean", "tie"}  # train and external hits
    assert (whole.boilerplate > 0) == (boilerplate_docs == 4)
    assert not decontam.find_in_parts([r for r in pre if r["split"] != "train"], cfg,
                                      parts=parts).hits
