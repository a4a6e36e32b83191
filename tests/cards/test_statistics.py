import pandas as pd

from diagramforge.cards.statistics import compute, format_stats


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
