"""A filter is one module: a throwaway package adds one through the entry-point group and
nothing else — no edit to the stage, params.py or a hard-coded list."""

from __future__ import annotations

import sys
import textwrap

import pytest

from diagramforge.filters.filter import base
from diagramforge.params import ParamsError
from diagramforge.runner import run_named
from diagramforge.store.paths import stage_paths
from diagramforge.store.records import REJECTION_SCHEMA, empty_record
from diagramforge.store.shards import ShardSet
from tests.conftest import make_params, seed_stage

PLUGIN = '''
from diagramforge.filters.filter.base import FilterSection, Verdict, register


class ShortCodeParams(FilterSection):
    max_chars: int = 10


@register("short_code", params=ShortCodeParams, writes=("code_chars",))
def make(cfg, params):
    def check(record):
        n = len(record["code"])
        if n > cfg.max_chars:
            return Verdict.reject("code_too_long", f"{n} > {cfg.max_chars}")
        return Verdict.ok(code_chars=n)
    return check
'''


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    pkg = tmp_path / "site"
    (pkg / "df_extra_filters").mkdir(parents=True)
    (pkg / "df_extra_filters" / "__init__.py").write_text(textwrap.dedent(PLUGIN))
    dist = pkg / "df_extra_filters-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: df-extra-filters\n"
                                   "Version: 0.1\n")
    (dist / "entry_points.txt").write_text(
        "[diagramforge.filters]\nshort_code = df_extra_filters\n")
    monkeypatch.syspath_prepend(str(pkg))
    base.rediscover()
    yield
    base.REGISTRY.pop("short_code", None)
    sys.modules.pop("df_extra_filters", None)


def test_a_plugin_filter_is_found_configured_and_run(tmp_path, plugin):
    params = make_params(tmp_path, filter={"order": ["short_code"],
                                           "short_code": {"max_chars": 3}})
    seed_stage(params, "render", [
        empty_record(id="a", format="svg", code="<s/>", source_id="a"),
        empty_record(id="b", format="svg", code="<s>", source_id="b")])
    stats = run_named("filter", params)
    assert (stats.n_out, stats.by_reason) == (1, {"code_too_long": 1})
    ledger = ShardSet(stage_paths(params, "filter").rejections, REJECTION_SCHEMA).read_all()
    assert ledger.column("detail").to_pylist() == ["short_code: 4 > 3"]


def test_a_plugin_section_is_validated_by_its_own_model(tmp_path, plugin):
    with pytest.raises(ParamsError, match=r"filter\.short_code\.max_chars"):
        make_params(tmp_path, filter={"short_code": {"max_chars": "many"}})


def test_without_the_plugin_its_name_is_unknown(tmp_path):
    base.rediscover()
    with pytest.raises(ParamsError, match="unknown filter"):
        make_params(tmp_path, filter={"order": ["short_code"]})
