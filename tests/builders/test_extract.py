import json

from diagramforge.builders.tikz_extract import extract_paper
from diagramforge.params import ExtractParams
from tests.conftest import SAMPLES


def paper(pid: str, version: str = "1", **kw) -> tuple[bytes, dict]:
    path = next((SAMPLES / "arxiv" / "src").glob(f"{pid}v{version}*"))
    row = {"id": pid, "version": version, "title": "T", "authors": json.dumps(["A B"]),
           "licence": "CC-BY-4.0", "licence_url": "u", **kw}
    return path.read_bytes(), row


def test_inputs_flattened_captions_and_context():
    ex = extract_paper(*paper("2401.00101"), ExtractParams())
    assert ex.rejections == []
    pipe, attn = ex.records
    assert pipe["source_id"] == "2401.00101v1/sections/intro.tex#1"
    assert attn["source_id"] == "2401.00101v1/figures/attention.tex#2"
    assert pipe["caption"] == "The processing pipeline from input to output."
    assert pipe["label"] == "fig:pipeline"
    assert "Our pipeline is shown in Figure" in pipe["context"]
    assert pipe["group"] == "arxiv:2401.00101" and pipe["licence"] == "CC-BY-4.0"
    code = pipe["code"]
    for needed in (r"\vect", r"\R", r"\definecolor{accent}", "block/.style", "arrow/.style",
                   r"\usetikzlibrary"):
        assert needed in code
    for unused in ("unusedgreen", "unusedmacro", "unusedstyle"):
        assert unused not in code
    assert "diamond" in attn["code"] and "Expert 1" in attn["code"]


def test_one_paper_many_figures():
    ex = extract_paper(*paper("2401.00102", "2"), ExtractParams())
    assert [r["label"] for r in ex.records] == ["fig:tree", "fig:flow", "fig:net", "fig:venn"]
    net = ex.records[2]
    assert r"\newcommand{\neuron}" in net["code"] and r"\def\nlayers" not in net["code"]
    assert r"\tikzstyle{box}" in ex.records[0]["code"]


def test_include_subfile_import_paper():
    ex = extract_paper(*paper("2401.00110"), ExtractParams())
    assert [r["label"] for r in ex.records] == ["fig:curve", "fig:bars"]
    assert r"\lossname" in ex.records[0]["code"] and "pgfplots" in ex.records[0]["code"]
    assert ex.records[0]["source_id"].endswith("chapters/figs/curve.tex#1")


def test_single_file_eprint_and_tikz_command():
    ex = extract_paper(*paper("2401.00107"), ExtractParams())
    envs = [json.loads(r["meta"])["env"] for r in ex.records]
    assert envs == ["tikz", "tikzpicture"]
    assert r"\tikzstyle{every state}" in ex.records[1]["code"]


def test_unavailable_package_is_dropped_and_listed():
    ex = extract_paper(*paper("2401.00108"), ExtractParams())
    meta = json.loads(ex.records[0]["meta"])
    assert meta["dropped_packages"] == ["nonexistentfancypkg"]
    assert "nonexistentfancypkg" not in ex.records[0]["code"]


def test_bad_papers_get_reasons():
    for pid, reason in [("2401.00112", "archive_unsafe_member"),
                        ("2401.00114", "archive_ratio_exceeded"),
                        ("2401.00113", "no_diagrams")]:
        ex = extract_paper(*paper(pid), ExtractParams())
        assert ex.records == [] and [r.reason for r in ex.rejections] == [reason], pid


def test_small_pictures_are_candidate_rejections():
    params = ExtractParams(tikz={"min_chars": 60})
    ex = extract_paper(*paper("2401.00107"), params)
    assert len(ex.records) == 1
    assert [(r.reason, r.unit) for r in ex.rejections] == [("picture_too_small", "candidate")]
