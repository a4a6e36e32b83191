"""Dataset statistics: each source kind's share of the rows and its licences."""

import pandas as pd

from diagramforge.cards.publish.statistics import compute, format_stats, source_shares


def frame() -> pd.DataFrame:
    return pd.DataFrame({
        "id": list("abcdef"), "format": ["svg"] * 3 + ["mxgraph"] * 3,
        "split": ["train"] * 6,
        "source": ["stack", "stack", "stack", "repo_search", "arxiv", None],
        "licence": ["MIT", "Apache-2.0 AND MIT", "MIT", "MIT", "CC-BY-4.0", None]})


def test_source_shares_count_rows_and_licences_per_kind():
    shares = source_shares(frame())
    assert shares["stack"] == {"rows": 3, "share": 0.5,
                               "licences": {"Apache-2.0 AND MIT": 1, "MIT": 2}}
    assert shares["repo_search"]["licences"] == {"MIT": 1}
    assert shares["(unknown)"] == {"rows": 1, "share": 0.1667, "licences": {"(none)": 1}}
    assert sum(d["rows"] for d in shares.values()) == 6
    assert compute({"generation": frame()})["sources"] == shares
    assert source_shares(None) == {} and compute({})["sources"] == {}


def test_a_config_with_language_pairs_is_counted_per_pair():
    frames = {
        "generation": pd.DataFrame({"split": ["train", "train"], "format": ["tikz", "dot"]}),
        "translation": pd.DataFrame({"split": ["train", "train", "test"],
                                     "format": ["mxgraph", "mxgraph", "tikz"],
                                     "pair": ["mxgraph->mermaid", "mxgraph->svg",
                                              "tikz->dot"]}),
    }
    stats = compute(frames)
    assert stats["configs"]["generation"]["train"].keys() == {"dot", "tikz"}
    tr = stats["configs"]["translation"]
    assert {s: sorted(v) for s, v in tr.items()} == {
        "test": ["tikz->dot"], "train": ["mxgraph->mermaid", "mxgraph->svg"]}
    assert stats["totals"]["translation"] == 3
    table = format_stats(stats)
    assert "mxgraph->mermaid      1" in table  # the column widens to the longest pair


def test_stats_print_one_precision_per_column() -> None:
    """Counts with thousands separators, entropy means with 2 decimals, node means with 1,
    whatever the values (they used to print as 3.183, 1.1353, 4.1429 and 5)."""
    from diagramforge.cards.publish.statistics import format_compare, number

    row = {"rows": 1200, "tokens_total": 1234567, "difficulty": {}, "diagram_types": {}}
    stats = {"configs": {"generation": {"train": {
        "dot": {**row, "colour_entropy_mean": 3.183, "graph_nodes_mean": 5.0},
        "tikz": {**row, "colour_entropy_mean": 1.1353, "graph_nodes_mean": 4.142857}}}}}
    lines = format_stats(stats).splitlines()[1:]
    assert [ln.split()[3:7] for ln in lines] == [["1,200", "1,234,567", "3.18", "5.0"],
                                                  ["1,200", "1,234,567", "1.14", "4.1"]]
    assert (number(None), number(3, 0), number(2.5, 1)) == ("-", "3", "2.5")
    assert format_compare([("rows", 10, 12), ("entropy", 3.1, 2.95)], "v0.1.0").splitlines() \
        == ["changes since v0.1.0:", "  rows: 10 → 12 (+2)", "  entropy: 3.10 → 2.95 (-0.15)"]
