"""The card and the data agree (issue 36): every column the generated card names is a
column of the published Parquet files, `render_engine` (which the card always cited) among
them, and publish refuses a card naming a column the data lacks."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from diagramforge.cards.publish.card_columns import missing_columns, named_columns
from diagramforge.runner import run_named
from tests.cards.publish.test_publish import FIXED, build, rows
from tests.conftest import make_params, seed_stage


def test_every_column_the_card_names_is_published(tmp_path):
    params = make_params(tmp_path, **FIXED)
    seeded = rows(["MIT", "CC-BY-4.0", "MIT", "MIT"])
    engines = {"tikz": "pdflatex", "svg": "resvg", "mxgraph": "drawio"}
    for r in seeded:
        r["render_engine"] = engines[r["format"]]
    seed_stage(params, "split", seeded)
    run_named("validate", params)
    run_named("publish", params)
    out = tmp_path / "published" / params.publish.name
    card = (out / "README.md").read_text()
    schemas = {p.relative_to(out).as_posix(): set(pq.read_schema(p).names)
               for p in out.rglob("*.parquet")}
    assert schemas
    columns = set().union(*schemas.values())
    named = named_columns(card, params)
    # the card's own words for what it documents: engine, splits, tiers, licences
    assert {"render_engine", "group", "dup_cluster", "difficulty", "graph_nodes",
            "graph_edges", "licence_url", "attribution"} <= named
    assert named <= columns, named - columns
    assert missing_columns(out, params) == []
    got = {r["format"]: r["render_engine"]
           for p in out.rglob("generation/*/*.parquet")
           for r in pq.read_table(p, columns=["format", "render_engine"]).to_pylist()}
    assert got == engines


def test_a_card_naming_an_unpublished_column_is_caught(tmp_path):
    """What the card said before `render_engine` was published."""
    from diagramforge.config import parse_params

    (tmp_path / "generation").mkdir()
    pq.write_table(pa.table({"id": ["a"], "format": ["tikz"], "code": ["x"]}),
                   tmp_path / "generation" / "train-00000-of-00001.parquet")
    (tmp_path / "README.md").write_text(
        "---\nconfigs:\n- config_name: generation\n---\n# d\n\nRendering: TikZ with "
        "pdflatex (the engine of each record is its `render_engine`); every `id` is "
        "unique, `tikz` and `generation` are not columns.\n```\n`not_checked`\n```\n")
    assert missing_columns(tmp_path, parse_params({})) == ["render_engine"]


def test_publish_refuses_a_card_that_names_a_missing_column(tmp_path, monkeypatch):
    import diagramforge.cards.publish.stage as publish

    real = publish.render_card
    monkeypatch.setattr(publish, "render_card", lambda *a, **k: real(*a, **k)
                        + "\nEach row's `no_such_column` says more.\n")
    with pytest.raises(RuntimeError, match="no_such_column"):
        build(tmp_path, ["MIT"] * 2)
    assert not (tmp_path / "published" / "diagramforge-samples").exists()  # nothing shipped


def test_item_ids_and_repository_pins_the_card_backticks_are_not_columns(tmp_path):
    """The decontamination table backticks the test and train items' ids, and the sources
    list each repository's pinned ref: values, not columns (publish refused a card whose
    test item shared code with train: 'names columns no published file has: <id>, v1')."""
    params = make_params(tmp_path, crawl={"repos": {"repositories": [
        {"url": "/r", "ref": "v1", "name": "templates"}]}})
    card = ("| `95a58601c8e7e10c2e90d0f6` | train `aad89b387553cbb059c3c3f4` | 448 of 5327 |\n"
            "- Repository `templates` pinned at `v1`: diagram files\n"
            "the `dup_cluster` column and `abcdef` (not an id: 6 letters)\n")
    assert named_columns(card, params) == {"dup_cluster", "abcdef"}
