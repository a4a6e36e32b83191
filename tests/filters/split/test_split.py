import io
import random
from collections import Counter, defaultdict

import pyarrow as pa
from PIL import Image, ImageDraw

from diagramforge.filters.split.settings import SplitParams
from diagramforge.filters.split.stage import assign_split, split_table
from diagramforge.stage import StageLog
from diagramforge.store.records import RECORD_SCHEMA, empty_record
from diagramforge.store.shards import rows_to_table


def table(rows) -> pa.Table:
    return rows_to_table([empty_record(**r) for r in rows], RECORD_SCHEMA)


def run(rows, cfg=None, pins=None):
    log = StageLog("split", expands=False)
    out, record = split_table(table(rows), log, cfg or SplitParams(), pins)
    return out, record, log


def tikz(i: int, n: int = 25, label: str = "x") -> str:
    """A distinct picture per ``i`` (random coordinates), long enough to shingle."""
    rng = random.Random(i)
    lines = [f"\\node[draw] (n{k}) at ({rng.randint(0, 99)},{rng.randint(0, 99)}) "
             f"{{{label}{rng.randint(0, 10**6)}}};" for k in range(n)]
    return "\\begin{tikzpicture}\n" + "\n".join(lines) + "\n\\end{tikzpicture}"


def png(boxes: list[tuple[int, int, int, int]], size=(160, 120)) -> bytes:
    im = Image.new("RGB", size, "white")
    d = ImageDraw.Draw(im)
    for b in boxes:
        d.rectangle(b, outline="black", width=3)
    buf = io.BytesIO()
    im.save(buf, "PNG")
    return buf.getvalue()


def paper_rows(n_papers: int, per: int = 2, start: int = 0) -> list[dict]:
    return [{"id": f"p{p}-{k}", "format": "tikz", "group": f"arxiv:{p}", "source": "arxiv",
             "source_id": f"{p}v1/main.tex#{k}", "code": tikz(p * 100 + k), "tokens": 100 + p}
            for p in range(start, start + n_papers) for k in range(per)]


def splits_per(rows, key):
    seen = defaultdict(set)
    for r in rows:
        seen[r[key]].add(r["split"])
    return seen


def test_no_group_in_two_splits_and_duplicates_removed():
    rows = [{"id": f"d{i}", "format": "tikz", "group": f"g{i % 40}", "source_id": f"s{i}"}
            for i in range(400)]
    rows.append({"id": "d1", "format": "tikz", "group": "zz", "source_id": "dup"})
    out, _, log = run(rows)
    assert len(out) == 400 and log.stats.by_reason == {"duplicate": 1}
    assert all(len(s) == 1 for s in splits_per(out, "group").values())
    counts = Counter(r["split"] for r in out)
    assert set(counts) == {"train", "validation", "test"}
    assert counts["train"] > counts["validation"]


def test_assignment_is_deterministic_and_seeded():
    cfg = SplitParams(seed=1)
    groups = [f"arxiv:{i}" for i in range(200)]
    first = [assign_split(g, cfg) for g in groups]
    assert first == [assign_split(g, cfg) for g in groups]
    assert first != [assign_split(g, SplitParams(seed=2)) for g in groups]
    share = Counter(first)["train"] / len(groups)
    assert 0.7 < share < 0.9


def test_duplicate_keeps_first_source_in_stable_order():
    rows = [{"id": "x", "format": "tikz", "group": "b", "source_id": "b1"},
            {"id": "x", "format": "tikz", "group": "a", "source_id": "a1"}]
    out, _, log = run(rows)
    assert [r["source_id"] for r in out] == ["a1"]
    assert "a1" in log.rejections[0]["detail"]


def test_near_duplicate_code_is_ledgered_with_the_kept_id():
    base = tikz(7, n=40)
    edited = base.replace("x", "y", 1)  # one label changed
    rows = [{"id": "orig", "format": "tikz", "group": "arxiv:a", "source_id": "a/m.tex#1",
             "code": base},
            {"id": "copy", "format": "tikz", "group": "arxiv:b", "source_id": "b/m.tex#1",
             "code": edited},
            {"id": "other", "format": "tikz", "group": "arxiv:c", "source_id": "c/m.tex#1",
             "code": tikz(8, n=40)}]
    out, _, log = run(rows)
    assert sorted(r["id"] for r in out) == ["orig", "other"]
    [rej] = log.rejections
    assert rej["reason"] == "near_duplicate" and rej["id"] == "copy"
    assert "kept orig" in rej["detail"] and "jaccard" in rej["detail"]
    assert {r["id"]: r["dup_cluster"] for r in out} == {"orig": "orig", "other": "other"}
    assert log.stats.extra["near_dup_clusters"] == 1


def test_near_duplicate_render_links_different_code():
    pic = png([(10, 10, 60, 40), (90, 60, 150, 110)])
    moved = png([(11, 10, 61, 40), (90, 61, 150, 110)])  # a pixel off
    rows = [{"id": "a", "format": "svg", "group": "repo:k", "source": "repo",
             "source_id": "k@1:a.svg", "code": "<svg>" + tikz(1) + "</svg>", "image": pic},
            {"id": "b", "format": "tikz", "group": "arxiv:z", "source": "arxiv",
             "source_id": "z/m.tex#1", "code": tikz(2), "image": moved},
            {"id": "c", "format": "tikz", "group": "arxiv:y", "source": "arxiv",
             "source_id": "y/m.tex#1", "code": tikz(3), "image": png([(5, 5, 150, 20)])}]
    out, _, log = run(rows)
    assert sorted(r["id"] for r in out) == ["b", "c"]  # arxiv:z sorts before repo:k
    assert "kept b" in log.rejections[0]["detail"]
    assert "phash distance" in log.rejections[0]["detail"]


def test_keep_all_puts_a_cluster_in_one_split_and_one_group():
    cfg = SplitParams(near_dup={"keep": "all"})
    rows = []
    for i in range(30):  # 30 clusters of two near-identical pictures in different papers
        code = tikz(i, n=40)
        rows += [{"id": f"a{i}", "format": "tikz", "group": f"arxiv:a{i}", "source_id": "x",
                  "code": code},
                 {"id": f"b{i}", "format": "tikz", "group": f"arxiv:b{i}", "source_id": "y",
                  "code": code.replace("x", "z", 1)}]
    out, _, log = run(rows, cfg)
    assert len(out) == 60 and not log.rejections
    by_cluster = splits_per(out, "dup_cluster")
    assert len(by_cluster) == 30 and all(len(s) == 1 for s in by_cluster.values())
    assert all(len(s) == 1 for s in splits_per(out, "group").values())
    assert len({r["group"] for r in out}) == 30  # the two papers are one leakage unit


def test_max_keep_policy():
    base = tikz(3, n=40)
    rows = [{"id": "short", "format": "tikz", "group": "g1", "source_id": "a", "code": base,
             "tokens": 10},
            {"id": "long", "format": "tikz", "group": "g2", "source_id": "b",
             "code": base + "\n% x", "tokens": 12}]
    out, _, _ = run(rows, SplitParams(near_dup={"keep": "most_tokens"}))
    assert [r["id"] for r in out] == ["long"]


def test_mxgraph_tiers_are_vcg_bench_and_quantiles_are_frozen():
    toks = {"e": 8644, "m1": 8645, "m2": 14000, "h": 14001}
    rows = [{"id": k, "format": "mxgraph", "group": f"repo:{k}", "source_id": k, "tokens": t}
            for k, t in toks.items()]
    rows += [{"id": f"t{i}", "format": "tikz", "group": f"arxiv:{i}", "source_id": f"{i}",
              "tokens": 100 * (i + 1)} for i in range(9)]
    cfg = SplitParams(near_dup={"enabled": False})
    out, record, log = run(rows, cfg)
    tier = {r["id"]: r["difficulty"] for r in out}
    assert [tier[k] for k in toks] == ["easy", "medium", "medium", "hard"]
    assert Counter(tier[f"t{i}"] for i in range(9)) == {"easy": 3, "medium": 3, "hard": 3}
    cuts = record["tiers"]["tikz"]
    assert log.stats.extra["tier_tikz_medium_from"] == cuts[0]
    # a later version with many long pictures keeps the frozen cut points
    more = rows + [{"id": f"u{i}", "format": "tikz", "group": f"arxiv:u{i}", "source_id": "u",
                    "tokens": 5000 + i} for i in range(30)]
    again, rec2, _ = run(more, cfg, pins=record)
    assert rec2["tiers"]["tikz"] == cuts
    assert all(r["difficulty"] == tier[r["id"]] for r in again if r["id"] in tier)
    unpinned, rec3, _ = run(more, cfg)
    assert rec3["tiers"]["tikz"] != cuts


def test_dot_and_mermaid_tier_by_tokens_and_structure():
    """Nine DOT graphs: tokens 100…900, graph sizes (nodes + edges) 9…1 — long code for the
    small graphs.  Token terciles (numpy, linear): 100 + 800·⅓ → medium from 367, 100 +
    800·⅔ → hard above 633: tokens tiers e e e m m m h h h.  Size terciles of 1…9: medium
    from 4, hard above 6: sizes 9 8 7 are hard, 6 5 4 medium, 3 2 1 easy.  The harder of the
    two: h h h m m m h h h.  A Mermaid diagram without a graph is tiered by tokens alone; a
    raster figure (no tokens) by its graph alone."""
    rows = [{"id": f"d{i}", "format": "dot", "group": f"repo:d{i}", "source_id": f"d{i}",
             "tokens": 100 * (i + 1), "graph_nodes": (9 - i + 1) // 2,
             "graph_edges": (9 - i) // 2} for i in range(9)]
    rows += [{"id": "m", "format": "mermaid", "group": "repo:m", "source_id": "m",
              "tokens": 40},
             {"id": "r", "format": "raster", "group": "arxiv:r", "source_id": "r",
              "graph_nodes": 3, "graph_edges": 0}]
    cfg = SplitParams(near_dup={"enabled": False})
    out, record, log = run(rows, cfg)
    tier = {r["id"]: r["difficulty"] for r in out}
    assert [tier[f"d{i}"] for i in range(9)] == ["hard"] * 3 + ["medium"] * 3 + ["hard"] * 3
    assert record["tiers"]["dot"] == [367, 633]
    assert record["tiers"]["dot:structure"] == [4, 6]
    assert log.stats.extra["tier_dot_structure_medium_from"] == 4
    # one value each: cut points (40, 40) and (3, 3), so both are "medium" (≤ hard_above)
    assert (tier["m"], tier["r"]) == ("medium", "medium")
    assert "mermaid:structure" not in record["tiers"]  # no mermaid graph to take terciles of
    # pinned: the structure cut points come back too
    again, rec2, _ = run(rows + [{"id": "d9", "format": "dot", "group": "repo:d9",
                                  "source_id": "d9", "tokens": 10, "graph_nodes": 40,
                                  "graph_edges": 60}], cfg, pins=record)
    assert rec2["tiers"]["dot:structure"] == [4, 6]
    assert {r["id"]: r["difficulty"] for r in again}["d9"] == "hard"  # by structure


def test_every_registered_format_has_a_difficulty_entry():
    from diagramforge.filters.split.settings import DifficultyParams
    from diagramforge.formats.registry import handlers

    assert set(DifficultyParams().formats()) == set(handlers())


def test_template_repositories_split_by_file_papers_by_paper():
    rows = [{"id": f"f{i}-p{p}", "format": "mxgraph", "group": "repo:tpl", "source": "repo",
             "source_id": f"tpl@abc:t/f{i}.drawio#page{p}", "code": tikz(i * 10 + p)}
            for i in range(12) for p in (1, 2)]
    rows += paper_rows(12, per=3)
    out, record, _ = run(rows, SplitParams(near_dup={"enabled": False}))
    mx = [r for r in out if r["format"] == "mxgraph"]
    assert len({r["split"] for r in mx}) == 3  # one repository, three splits
    assert all(len(s) == 1 for s in splits_per(mx, "group").values())
    assert len({r["group"] for r in mx}) == 12  # a multi-page file is one unit
    assert "repo:tpl/t/f0.drawio" in record["units"]
    papers = [r for r in out if r["format"] == "tikz"]
    assert len({r["group"] for r in papers}) == 12
    assert all(len(s) == 1 for s in splits_per(papers, "group").values())
    # per-group override back to the whole repository
    cfg = SplitParams(near_dup={"enabled": False}, group_by_overrides={"repo:tpl": "source"})
    out, _, _ = run(rows, cfg)
    assert len({r["split"] for r in out if r["format"] == "mxgraph"}) == 1


def test_every_format_with_three_groups_gets_three_splits():
    for seed in range(20):  # many seeds: the rule, not luck
        rows = [{"id": f"s{i}", "format": "svg", "group": f"repo:r{i}", "source_id": f"{i}",
                 "tokens": 50} for i in range(3)]
        rows += [{"id": f"m{i}", "format": "mxgraph", "group": f"repo:m{i}",
                  "source_id": f"{i}", "tokens": 50} for i in range(2)]
        rows += paper_rows(5)
        out, _, log = run(rows, SplitParams(seed=seed, near_dup={"enabled": False}))
        per_fmt = defaultdict(set)
        for r in out:
            per_fmt[r["format"]].add(r["split"])
        assert per_fmt["svg"] == {"train", "validation", "test"}, seed
        assert per_fmt["tikz"] == {"train", "validation", "test"}, seed
        assert all(len(s) == 1 for s in splits_per(out, "group").values())


def test_old_ids_keep_their_split_as_the_corpus_grows():
    cfg = SplitParams(near_dup={"enabled": False})
    v1_rows = paper_rows(40) + [
        {"id": f"m{i}", "format": "mxgraph", "group": "repo:t", "source": "repo",
         "source_id": f"t@1:f{i}.drawio", "tokens": 50} for i in range(3)]
    v1, record, log1 = run(v1_rows, cfg)
    assert log1.stats.extra["split_coverage_moves"] > 0  # three files forced into 3 splits
    before = {r["id"]: r["split"] for r in v1}
    # version 2: 200 more papers and 40 more template files (new commit of the repository)
    v2_rows = [dict(r, source_id=r["source_id"].replace("t@1", "t@2")) for r in v1_rows]
    v2_rows += paper_rows(200, start=1000) + [
        {"id": f"n{i}", "format": "mxgraph", "group": "repo:t", "source": "repo",
         "source_id": f"t@2:g{i}.drawio", "tokens": 50} for i in range(40)]
    v2, _, _ = run(v2_rows, cfg, pins=record)
    after = {r["id"]: r["split"] for r in v2}
    assert {i: after[i] for i in before} == before
    assert {r["split"] for r in v2 if r["id"].startswith("n")} == {"train", "validation",
                                                                    "test"}
    # without pins, papers that the hash placed (not moved by coverage) are stable too
    v2_free, _, log2 = run(v2_rows, cfg)
    assert log2.stats.extra["split_coverage_moves"] == 0  # a big corpus needs no moves
    free = {r["id"]: r["split"] for r in v2_free}
    hashed = [r["id"] for r in v1 if r["split"] == assign_split(r["group"], cfg)]
    assert len(hashed) > 60 and all(free[i] == before[i] for i in hashed)


def test_a_new_near_duplicate_of_a_published_item_does_not_displace_it():
    code = tikz(5, n=40)
    old = {"id": "old", "format": "tikz", "group": "arxiv:zz", "source_id": "zz/m.tex#1",
           "code": code}
    v1, record, _ = run(paper_rows(10) + [old])
    new = {"id": "new", "format": "tikz", "group": "arxiv:aa", "source_id": "aa/m.tex#1",
           "code": code.replace("x", "q", 1)}  # sorts first, so "first" would keep it
    v2, _, log = run(paper_rows(10) + [old, new], pins=record)
    kept = {r["id"]: r["split"] for r in v2}
    assert "old" in kept and "new" not in kept
    assert kept["old"] == {r["id"]: r["split"] for r in v1}["old"]
    assert "kept old" in log.rejections[0]["detail"]


def test_stage_writes_assignments_that_pin_the_next_version(tmp_path):
    import json
    import shutil

    from diagramforge.runner import run_named
    from diagramforge.store.paths import metrics_path, stage_paths
    from diagramforge.store.shards import ShardSet
    from tests.conftest import make_params, seed_stage

    p1 = make_params(tmp_path / "v1")
    v1_rows = paper_rows(30) + [dict(paper_rows(1, start=0)[0], group="arxiv:copy",
                                     source_id="copy/m.tex#0")]  # an exact duplicate
    seed_stage(p1, "filter", [empty_record(**r) for r in v1_rows])
    stats = run_named("split", p1)
    assert stats.n_out == 60 and stats.by_reason == {"duplicate": 1}
    release = tmp_path / "release-0.1.0.json"
    shutil.copy(stage_paths(p1, "split").root / "assignments.json", release)
    before = json.loads(release.read_text())["ids"]
    assert json.loads(metrics_path(p1, "split").read_text())["extra"]["split_train"] > 0

    p2 = make_params(tmp_path / "v2", split={"pinned": str(release)})
    seed_stage(p2, "filter", [empty_record(**r) for r in v1_rows + paper_rows(100, start=500)])
    run_named("split", p2)
    out = ShardSet(stage_paths(p2, "split").records, RECORD_SCHEMA).read_all().to_pylist()
    after = {r["id"]: r["split"] for r in out}
    assert {i: after[i] for i in before} == before
    assert len(out) == 260


def test_every_difficulty_stratum_with_three_groups_gets_three_splits():
    for seed in range(10):
        rows = [{"id": f"t{i}", "format": "tikz", "group": f"arxiv:{i}", "source_id": f"{i}",
                 "tokens": 100 * (i // 4 + 1)} for i in range(12)]  # 4 papers per tier
        out, _, _ = run(rows, SplitParams(seed=seed, near_dup={"enabled": False}))
        per_tier = defaultdict(set)
        for r in out:
            per_tier[r["difficulty"]].add(r["split"])
        assert dict(per_tier) == {t: {"train", "validation", "test"}
                                  for t in ("easy", "medium", "hard")}, seed


def test_coverage_never_moves_a_pinned_group():
    rows = [{"id": f"s{i}", "format": "svg", "group": f"repo:r{i}", "source_id": f"{i}"}
            for i in range(4)]
    pins = {"units": {f"repo:r{i}": "train" for i in range(4)}}
    out, _, log = run(rows, SplitParams(near_dup={"enabled": False}), pins)
    assert {r["split"] for r in out} == {"train"}
    assert log.stats.extra["split_pinned_components"] == 4


def test_a_figure_cut_from_a_pdf_never_displaces_its_source_code():
    pic = png([(10, 10, 60, 40), (90, 60, 150, 110)])
    rows = [{"id": "fig", "format": "raster", "group": "arxiv:1", "source": "pdf",
             "source_id": "1v1.pdf#p2", "image": pic},  # sorts before the .tex record
            {"id": "src", "format": "tikz", "group": "arxiv:1", "source": "arxiv",
             "source_id": "1v1/main.tex#1", "code": tikz(1), "image": pic}]
    out, _, log = run(rows)
    assert [r["id"] for r in out] == ["src"]
    assert log.rejections[0]["id"] == "fig" and "kept src" in log.rejections[0]["detail"]
