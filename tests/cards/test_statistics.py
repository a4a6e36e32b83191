"""Dataset statistics: each source kind's share of the rows and its licences."""

import pandas as pd

from diagramforge.cards.statistics import compute, format_stats, source_shares


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
    assert "mxgraph->mermaid     1" in table  # the column widens to the longest pair
