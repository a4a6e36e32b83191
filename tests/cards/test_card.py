"""The dataset card: each source kind named with its share of the rows and licences."""

from diagramforge.cards.card import CardInputs, _sources
from diagramforge.cards.statistics import compute
from diagramforge.params import parse_params
from tests.cards.test_statistics import frame


def test_the_card_names_each_kind_with_its_share_and_licences():
    params = parse_params({"crawl": {"stack": {"enabled": True, "revision": "abc123"},
                                     "repo_search": {"enabled": True}}})
    text = _sources(params, CardInputs(configs=[], stats=compute({"generation": frame()})))
    assert "The Stack (`bigcode/the-stack-dedup` at `abc123`)" in text
    assert "`extension:drawio`" in text
    row = next(line for line in text.splitlines() if line.startswith("| `stack`"))
    assert "| 3 | 50.0% |" in row and "`MIT` (2)" in row and "`Apache-2.0 AND MIT` (1)" in row
