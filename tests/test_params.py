from pathlib import Path

import pytest

from diagramforge.config import load_params, parse_params
from diagramforge.params import ParamsError

REPO = Path(__file__).resolve().parent.parent


def test_repository_params_are_valid():
    p = load_params(REPO / "params.yaml")
    assert p.filter.tokens.encoding == "cl100k_base"
    assert p.validate_.min_rows >= 1


def test_unknown_key_is_named():
    with pytest.raises(ParamsError) as e:
        parse_params({"filter": {"tokenz": {"max": 3}}})
    assert "filter.tokenz" in str(e.value)
    assert "unknown key" in str(e.value)


def test_a_moved_key_says_where_it_went():
    """An older params.yaml's graph.node_weight (issue 36 moved the scorers' settings to
    evaluate.scores) is named with its new place, not as a misspelling."""
    with pytest.raises(ParamsError) as e:
        parse_params({"graph": {"node_weight": 0.5}})
    assert "graph.node_weight: moved to evaluate.scores.node_weight" in str(e.value)


def test_wrong_type_names_key_expected_and_value():
    with pytest.raises(ParamsError) as e:
        parse_params({"render": {"raster": {"dpi": "high"}}})
    msg = str(e.value)
    assert "render.raster.dpi" in msg and "integer" in msg and "'high'" in msg


def test_out_of_range_and_cross_field_checks():
    with pytest.raises(ParamsError, match=r"render\.raster\.dpi.*less than or equal"):
        parse_params({"render": {"raster": {"dpi": 5000}}})
    with pytest.raises(ParamsError, match="must be 1.0"):
        parse_params({"split": {"train": 0.5}})
    with pytest.raises(ParamsError, match="must not exceed"):
        parse_params({"filter": {"tokens": {"min": 10, "max": 5}}})
    with pytest.raises(ParamsError, match="unknown filter"):
        parse_params({"filter": {"order": ["tokens", "vibes"]}})


def test_twins_go_by_default_into_every_format_whose_folder_writes_them():
    """A new format takes twins by its folder alone (PlantUML once needed ``twin.targets``
    edited by hand): the default is every folder with a ``twin.py``, raster (none) not."""
    targets = parse_params({}).twin.targets
    assert "plantuml" in targets and "tikz" in targets and "raster" not in targets
    assert targets == sorted(targets)


def test_twin_targets_are_formats_that_take_twins():
    """A twin target is a format with a twin capability (``formats/<name>/twin.py``): raster
    has none, so ``twin.targets`` naming it is refused when params load, like a name no
    format has."""
    assert parse_params({"twin": {"targets": ["dot", "svg"]}}).twin.targets == ["dot", "svg"]
    for target in ("raster", "visio"):
        with pytest.raises(ParamsError, match=rf"twin\.targets.*'{target}'.*take no twins"):
            parse_params({"twin": {"targets": ["dot", target]}})


def test_validate_section_uses_its_yaml_name():
    p = parse_params({"validate": {"min_rows": 7}})
    assert p.validate_.min_rows == 7
    with pytest.raises(ParamsError, match=r"validate\.min_rows"):
        parse_params({"validate": {"min_rows": -1}})


def test_yaml_must_be_a_mapping(tmp_path):
    f = tmp_path / "params.yaml"
    f.write_text("- just\n- a list\n")
    with pytest.raises(ParamsError, match="mapping"):
        load_params(f)
    f.write_text("a: [unclosed\n")
    with pytest.raises(ParamsError, match="not valid YAML"):
        load_params(f)


# keys whose params.yaml value describes the embedded sample corpus, not a default
SAMPLE_SPECIFIC = {
    "crawl.arxiv.categories", "crawl.arxiv.from_date", "crawl.arxiv.until_date",
    "crawl.arxiv.user_agent", "crawl.repos.repositories", "crawl.stackexchange.enabled",
    "crawl.stackexchange.dump",
}


def _leaves(d: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        out.update(_leaves(v, key + ".") if isinstance(v, dict) else {key: v})
    return out


def test_code_defaults_agree_with_params_yaml():
    """A default is set once: what params.yaml says is what a missing key means, so a user
    deleting a line never silently changes the dataset."""
    import yaml

    written = _leaves(yaml.safe_load((REPO / "params.yaml").read_text()))
    defaults = _leaves(parse_params({}).model_dump(by_alias=True))
    drift = {k: (defaults.get(k), v) for k, v in written.items()
             if k not in SAMPLE_SPECIFIC and defaults.get(k) != v}
    assert not drift, f"code default vs params.yaml: {drift}"


def test_every_key_is_written_in_params_yaml():
    """params.yaml is the one place to read what can be set."""
    import yaml

    written = _leaves(yaml.safe_load((REPO / "params.yaml").read_text()))
    defaults = _leaves(parse_params({}).model_dump(by_alias=True))
    assert not sorted(set(defaults) - set(written))


def test_a_format_brings_its_own_params_section():
    """``formats.<name>`` is validated by the model the handler declares: a new format adds
    its numbers without touching params.py."""
    from typing import Annotated

    from pydantic import Field

    from diagramforge.formats.registry import REGISTRY, DiagramFormat, handlers, register
    from diagramforge.params import FormatSection

    class ToyParams(FormatSection):
        max_nodes: Annotated[int, Field(ge=1)] = 10

    class ToyFormat(DiagramFormat):
        name = "toy"
        params_model = ToyParams

        def render(self, rows):  # noqa: ANN001, ANN201
            raise NotImplementedError

    handlers()
    register(ToyFormat)
    try:
        p = parse_params({"formats": {"toy": {"max_nodes": 3}}})
        assert p.formats.section("toy").max_nodes == 3
        assert ToyFormat(p, lambda r: r["id"]).section.max_nodes == 3
        assert parse_params({}).formats.section("toy").max_nodes == 10  # defaults filled
        with pytest.raises(ParamsError, match=r"formats\.toy\.max_nodes"):
            parse_params({"formats": {"toy": {"max_nodes": 0}}})
        with pytest.raises(ParamsError, match=r"formats\.toy\.max_node"):
            parse_params({"formats": {"toy": {"max_node": 3}}})
        with pytest.raises(ParamsError, match=r"formats\.toyy"):
            parse_params({"formats": {"toyy": {}}})
        assert "toy" in parse_params({}).validate_.format_names()  # publishable by default
    finally:
        REGISTRY.pop("toy", None)
