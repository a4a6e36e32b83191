"""The dataset card: each source kind named with its share of the rows and licences."""

from diagramforge.cards.publish.card import CardInputs, _sources
from diagramforge.cards.publish.statistics import compute
from diagramforge.config import parse_params
from tests.cards.publish.test_statistics import frame


def test_the_card_names_each_kind_with_its_share_and_licences():
    params = parse_params({"crawl": {"stack": {"enabled": True, "revision": "abc123"},
                                     "repo_search": {"enabled": True}}})
    text = _sources(params, CardInputs(configs=[], stats=compute({"generation": frame()})))
    assert "The Stack (`bigcode/the-stack-dedup` at `abc123`)" in text
    assert "`extension:drawio`" in text
    row = next(line for line in text.splitlines() if line.startswith("| `stack`"))
    assert "| 3 | 50.0% |" in row and "`MIT` (2)" in row and "`Apache-2.0 AND MIT` (1)" in row


def test_stack_exchange_rows_show_their_share_licence_versions_and_each_credit():
    import pandas as pd

    from diagramforge.cards.publish.card import render_licences

    params = parse_params({"crawl": {"stackexchange": {
        "enabled": True, "dump": "tex.stackexchange.com.7z", "tags": ["tikz-pgf"]}}})
    q = "stackexchange:tex.stackexchange.com/q/1"
    df = pd.DataFrame({
        "id": list("abcd"), "format": ["tikz"] * 4, "split": ["train"] * 4,
        "source": ["stackexchange"] * 3 + ["arxiv"],
        "licence": ["CC-BY-SA-3.0", "CC-BY-SA-4.0", "CC-BY-SA-4.0", "CC-BY-4.0"],
        "group": [q, q, q, "arxiv:2401.00101"],
        "attribution": ["Ann (https://tex.stackexchange.com/users/1), question …",
                        "Bo (https://tex.stackexchange.com/users/2), answer …",
                        "Bo (https://tex.stackexchange.com/users/2), answer …",
                        "Ada Lovelace, arXiv:2401.00101v1"],
        "licence_url": ["https://creativecommons.org/licenses/by-sa/3.0/"] + [None] * 3,
        "source_url": ["https://tex.stackexchange.com/q/1", "https://tex.stackexchange.com/a/2",
                       "https://tex.stackexchange.com/a/2", "https://arxiv.org/abs/2401.00101"]})
    text = _sources(params, CardInputs(configs=[], stats=compute({"generation": df})))
    assert "- Stack Exchange (`tex.stackexchange.com`, data dump `tex.stackexchange.com.7z`)" \
        in text and "tagged `tikz-pgf`" in text and "3.0 until 2018-05-02" in text
    row = next(line for line in text.splitlines() if line.startswith("| `stackexchange`"))
    assert "| 3 | 75.0% |" in row and "`CC-BY-SA-4.0` (2), `CC-BY-SA-3.0` (1)" in row
    # LICENSES.md credits each post of a question (two authors, one group), a paper once
    lic = render_licences(df)
    assert lic.count(q) == 2 and "Ann (" in lic and "Bo (" in lic
    assert lic.count("arxiv:2401.00101") == 1


def test_the_card_says_how_every_drawn_format_is_drawn_in_its_folders_words():
    """The card's "Rendering" line is each folder's ``card`` capability: a new format is on
    the card by its folder (PlantUML was missing while the line was written by hand), and
    the settings it names are the run's."""
    from diagramforge.cards.publish.card import _rendering
    from diagramforge.config import load_params
    from diagramforge.formats import capabilities

    params = load_params()
    assert set(capabilities.every("card")) == set(capabilities.folders()) - {"raster"}
    text = _rendering(params.render)
    for words in ("TikZ with", "draw.io's own engine", "Mermaid's own library",
                  "Graphviz DOT", "PlantUML by PlantUML", params.render.svg.engine,
                  " / ".join(params.render.tikz.engines)):
        assert words in text, words


def test_the_translation_paragraph_names_the_runs_twin_languages():
    """The languages written from the graph are the run's ``twin.targets`` as their folders
    title them (the hand-written list said "DOT, Mermaid, TikZ and mxGraph" after PlantUML
    took twins); a drawing export is named apart, and a target left out is not named."""
    from diagramforge.cards.publish.card import _twins_text

    configs = [{"config_name": "translation"}]
    text = " ".join(_twins_text(configs, ["dot", "plantuml", "svg", "tikz"]).split())
    assert ("its own engine's SVG (`layout+style`), and Graphviz DOT, PlantUML and TikZ "
            "written") in text
    alone = " ".join(_twins_text(configs, ["mermaid"]).split())
    assert "other languages: Mermaid written from" in alone and "SVG (" not in alone
    assert _twins_text([{"config_name": "qa"}], ["dot"]) == ""
