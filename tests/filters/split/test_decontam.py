"""Hashed n-gram decontamination: a long shared run is found whatever the layout; shared
boilerplate is not; external datasets are read from local Parquet through ``datasets``."""

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from diagramforge.filters.split import decontam
from diagramforge.filters.split.settings import DecontamParams
from tests.filters.split.test_split import tikz

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


def multi_config_dir(root):
    """A published-version layout: one directory per config, the card's YAML ``configs:``
    block naming each config's files per split (as ``cards.publish`` writes it)."""
    tables = {("generation", "train"): {"id": ["g1"], "code": [tikz(51)]},
              ("generation", "test"): {"id": ["g2"], "code": [tikz(60)]},
              ("qa", "test"): {"id": ["q1"], "code": [tikz(50)], "answer": ["3"]},
              ("editing", "test"): {"id": ["e1"], "source_code": [tikz(51)]}}
    configs = {}
    for (config, split), cols in tables.items():
        (root / config).mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.table(cols), root / config / f"{split}.parquet")
        configs.setdefault(config, []).append(
            f"  - split: {split}\n    path: {config}/{split}.parquet")
    (root / "README.md").write_text("---\nconfigs:\n" + "".join(
        f"- config_name: {c}\n  data_files:\n" + "\n".join(fs) + "\n"
        for c, fs in configs.items()) + "---\n# a published version\n")
    return root


def test_every_config_of_a_multi_config_repository_is_a_reference_set(tmp_path):
    from datasets import load_dataset

    d = multi_config_dir(tmp_path / "pub")
    with pytest.raises(ValueError, match="(?i)config"):  # what a plain load_dataset does
        load_dataset(str(d))
    docs = list(decontam.external_docs(str(d), "code"))
    assert {(a, i) for a, i, _ in docs} == {
        (f"{d}/generation/train", "g1"), (f"{d}/generation/test", "g2"),
        (f"{d}/qa/test", "q1")}  # editing has no `code`: skipped
    found = decontam.find(rows(), CFG, iter(docs))
    # leak is tikz(50) (all of q1) plus a few lines of t7: q1 shares more, so it is named
    assert {(h.id, h.against, h.match) for h in found.hits} == {
        ("clean", f"{d}/generation/train", "g1"), ("leak", f"{d}/qa/test", "q1")}
    assert list(decontam.external_docs(str(d), "source_code")) == [
        (f"{d}/editing/test", "e1", tikz(51))]
    with pytest.raises(ValueError, match="no column 'tex' in any config"):
        list(decontam.external_docs(str(d), "tex"))



def test_code_repeated_across_configs_is_one_reference_document(tmp_path):
    """A published version repeats a diagram's code in its views, task and variant configs;
    counted once per config it would reach ``boilerplate_docs`` (4 here) and be ignored."""
    root = tmp_path / "pub"
    names = ["generation", "tikz", "qa", "captioning", "sketch", "degraded"]
    for c in names:
        (root / c).mkdir(parents=True)
        pq.write_table(pa.table({"id": [f"{c}-1"], "code": [tikz(51)]}),
                       root / c / "test.parquet")
    (root / "README.md").write_text("---\nconfigs:\n" + "".join(
        f"- config_name: {c}\n  data_files:\n  - split: test\n    path: {c}/test.parquet\n"
        for c in names) + "---\n")
    docs = list(decontam.external_docs(str(root), "code"))
    assert [(a, i) for a, i, _ in docs] == [(f"{root}/generation/test", "generation-1")]
    found = decontam.find(rows(), CFG, iter(docs))
    assert ("clean", f"{root}/generation/test") in {(h.id, h.against) for h in found.hits}

SPY = """
import json, datasets
from diagramforge.filters.split import decontam
streamed, real = [], datasets.load_dataset
def spy(*a, **k):
    streamed.append(bool(k.get("streaming")))
    return real(*a, **k)
datasets.load_dataset = spy
docs = [d[:2] for d in decontam.external_docs("lab/ext", "code")]
print(json.dumps({"docs": docs, "streamed": streamed}))
"""


def test_a_multi_config_hub_id_is_streamed_from_a_loopback_hub(tmp_path, monkeypatch):
    """The same repository pushed to the loopback Hub (tests/hub) and read by Hub id through
    ``HF_ENDPOINT``: the real ``datasets``/``huggingface_hub`` clients, every config
    streamed.  A child process, because both libraries read the endpoint at import."""
    import json
    import os
    import subprocess
    import sys

    import huggingface_hub.constants as hf_constants
    from huggingface_hub import HfApi

    from tests.cards.hub.loopback_hub import LoopbackHub

    monkeypatch.setattr(hf_constants, "HF_HUB_OFFLINE", False)
    d = multi_config_dir(tmp_path / "pub")
    with LoopbackHub() as hub:
        api = HfApi(endpoint=hub.endpoint, token=hub.state.token)
        api.create_repo("lab/ext", repo_type="dataset")
        api.upload_folder(folder_path=str(d), repo_id="lab/ext", repo_type="dataset")
        env = {**os.environ, "HF_ENDPOINT": hub.endpoint, "HF_HUB_OFFLINE": "0",
               "HF_DATASETS_OFFLINE": "0", "HF_TOKEN": hub.state.token,
               "HF_HOME": str(tmp_path / "hf-home")}
        out = subprocess.run([sys.executable, "-c", SPY], env=env, capture_output=True,
                             text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert sorted(map(tuple, got["docs"])) == [
        ("lab/ext/generation/test", "g2"), ("lab/ext/generation/train", "g1"),
        ("lab/ext/qa/test", "q1")]
    assert got["streamed"] == [True, True, True]  # one streamed load per config
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


def _spilled(rs, tmp_path, cfg, run_bytes, *, dropped=()):
    """``rs`` keyed by a position in reverse order (so keys are not the documents' order),
    their shingles spilled — plus ``dropped`` documents spilled but absent from the rows, as
    rows removed as duplicates after the stage spilled them."""
    keyed = [{**{k: v for k, v in r.items() if k != "code"}, "_at": len(rs) - 1 - i}
             for i, r in enumerate(rs)]
    spill = decontam.ShingleSpill(tmp_path / "spill", run_bytes)
    for r, k in sorted(zip(rs, keyed, strict=True), key=lambda x: x[1]["_at"]):
        spill.add(k["_at"], decontam.shingles(r["code"], cfg.ngram))
    for j, code in enumerate(dropped):
        spill.add(len(rs) + j, decontam.shingles(code, cfg.ngram))
    return keyed, spill


@pytest.mark.parametrize(("run_bytes", "range_bytes"),
                         [(1 << 30, 1 << 30), (900, 1 << 30), (900, 3000), (1 << 30, 700)])
@pytest.mark.parametrize("boilerplate_docs", [4, 50])
def test_the_index_built_from_spilled_shingles_finds_the_same(tmp_path, run_bytes, range_bytes,
                                                             boilerplate_docs):
    """Disk runs and hash ranges of any size give :func:`find`'s hits exactly: owners,
    the tie-break between equal owners, boilerplate counts, external references."""
    path = tmp_path / "ext.parquet"
    pq.write_table(pa.table({"id": ["e1", "e2"], "code": [tikz(51), tikz(52)]}), path)
    cfg = DecontamParams(ngram=20, boilerplate_docs=boilerplate_docs)
    whole = decontam.find(_ties(), cfg, decontam.external_docs(str(path), "code"))
    leak = next(r["code"] for r in _ties() if r["id"] == "val")  # t7 again
    keyed, spill = _spilled(_ties(), tmp_path, cfg, run_bytes, dropped=[tikz(51)] * 60 + [leak])
    got = decontam.find_spilled(keyed, spill, "_at", cfg,
                                decontam.external_docs(str(path), "code"), range_bytes)
    assert got == whole
    assert {h.id for h in whole.hits} >= {"leak", "clean", "tie"}  # train and external hits
    assert (whole.boilerplate > 0) == (boilerplate_docs == 4)
    assert (len(spill.runs) > 1) == (run_bytes < 1 << 20)
    assert (spill.pairs * 12 > range_bytes) == (range_bytes < 1 << 20)  # several ranges


def test_spilled_without_references_finds_nothing(tmp_path):
    rs = [r for r in _ties() if r["split"] != "train"]
    keyed, spill = _spilled(rs, tmp_path, CFG, 900)
    got = decontam.find_spilled(keyed, spill, "_at", CFG)
    assert got == decontam.find(rs, CFG) and not got.hits and got.tested
