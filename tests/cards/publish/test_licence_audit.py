"""Licence audit of what was published: counts per licence × config × split, NC/SA flags
from parsed SPDX expressions, and a non-zero exit on a disallowed licence or a row without
attribution — read from the published Parquet files themselves."""

from __future__ import annotations

import pandas as pd
import pyarrow.parquet as pq
import yaml
from typer.testing import CliRunner

from diagramforge.cards.publish.card import HUB_LICENCES
from diagramforge.cards.publish.licence_audit import (
    audit_frames,
    card_licence,
    flags,
    read_published,
)
from diagramforge.cli import app
from diagramforge.runner import run_named
from tests.cards.publish.test_publish import FIXED, rows
from tests.conftest import make_params, seed_stage

ALLOW = ["MIT", "CC-BY-4.0", "CC-BY-SA-4.0", "CC-BY-NC-SA-4.0"]


def test_flags_come_from_every_part_of_an_expression():
    assert flags("CC-BY-NC-SA-4.0") == {"nc": True, "sa": True}
    assert flags("MIT AND CC-BY-SA-4.0") == {"nc": False, "sa": True}
    assert flags("mit") == {"nc": False, "sa": False}
    assert flags("GPL-3.0-only OR MIT")["sa"]


def test_disallowed_and_unattributed_rows_are_problems():
    df = pd.DataFrame({"licence": ["MIT", "MIT", "GPL-3.0-only", "CC-BY-4.0 AND MIT"],
                       "attribution": ["a", " ", "c", "d"],
                       "split": ["train", "train", "test", "test"]})
    audit = audit_frames({"generation": df}, ALLOW)
    by = {(r.licence, r.split): r for r in audit.rows}
    assert by[("MIT", "train")].rows == 2 and by[("MIT", "train")].missing_attribution == 1
    assert not by[("GPL-3.0-only", "test")].allowed
    assert by[("CC-BY-4.0 AND MIT", "test")].allowed
    assert len(audit.problems) == 2 and not audit.ok


def test_card_licence_is_the_single_id_or_other():
    assert card_licence(["MIT", "MIT"], HUB_LICENCES) == ("mit", {})
    lic, extra = card_licence(["MIT", "CC-BY-4.0"], HUB_LICENCES)
    assert lic == "other" and extra["license_link"] == "LICENSES.md"


def _publish(tmp_path, table):
    params = make_params(tmp_path, **FIXED)
    seed_stage(params, "split", table)
    run_named("validate", params)
    run_named("publish", params)
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump(params.model_dump(by_alias=True)))
    return path, tmp_path / "published" / params.publish.name


def test_cli_audit_licences_passes_then_fails_on_a_tampered_file(tmp_path):
    path, out = _publish(tmp_path, rows(["MIT", "CC-BY-SA-4.0", "MIT", "MIT"]))
    frames = read_published(out)
    assert set(frames) >= {"generation", "tikz", "svg", "mxgraph"}
    assert len(frames["generation"]) == 4
    res = CliRunner().invoke(app, ["--params", str(path), "audit", "licences"])
    assert res.exit_code == 0, res.output
    assert "CC-BY-SA-4.0" in res.output and "SA" in res.output

    # a published file whose row lost its attribution must fail the audit
    f = out / "generation" / "tikz" / "train-00000-of-00001.parquet"
    t = pq.read_table(f)
    t = t.set_column(t.schema.get_field_index("attribution"), "attribution",
                     [[""] * t.num_rows])
    pq.write_table(t, f)
    res = CliRunner().invoke(app, ["--params", str(path), "audit", "licences"])
    assert res.exit_code == 1 and "lack attribution" in res.output
    # the funnel audit is still `diagramforge audit`
    res = CliRunner().invoke(app, ["--params", str(path), "audit"])
    assert "stage" in res.output
