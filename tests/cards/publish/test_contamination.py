"""The card states the date cut and what decontamination found, from the split's report."""

import json
from datetime import date

from diagramforge.cards.publish.contamination import section
from diagramforge.store.paths import stage_paths
from tests.conftest import make_params


def test_section_states_the_run_figures(tmp_path):
    params = make_params(tmp_path, split={"test_after": "2024-06-30"})
    assert params.split.test_after == date(2024, 6, 30)
    text = section(params)
    assert "after **2024-06-30**" in text and "no decontamination report" in text
    root = stage_paths(params, "split").root
    root.mkdir(parents=True, exist_ok=True)
    hits = [{"id": f"d{i}", "against": "train", "match": f"t{i}", "shared": 3, "shingles": 9}
            for i in range(12)]
    (root / "contamination.json").write_text(json.dumps({
        "enabled": True, "ngram": 50, "min_shared": 1, "action": "flag",
        "against": ["train", "org/set"], "test_items": 40, "reference_docs": 300,
        "boilerplate_ngrams": 7, "moved": 0, "hits": hits}))
    text = section(params)
    assert "**12** shared" in text and "train, org/set" in text
    assert "| `d0` | train `t0` | 3 of 9 |" in text and "2 more" in text
