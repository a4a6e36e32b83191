"""The filter stage's units: batch hooks see a unit's surviving rows at once, a failing row
or batch never takes the unit down, and ledger order follows the input."""

from __future__ import annotations

import pytest

from diagramforge.filters.filter import base
from diagramforge.filters.filter.base import FilterSection, Verdict, register
from diagramforge.runner import run_named
from diagramforge.store.paths import stage_paths
from diagramforge.store.records import RECORD_SCHEMA, REJECTION_SCHEMA, empty_record
from diagramforge.store.shards import ShardSet
from tests.conftest import make_params, seed_stage

SEEN: list[list[str]] = []


@pytest.fixture
def filters():
    """Two throwaway filters: ``odd`` (per row; raises on id 'x3') and ``shout`` (batched;
    its batch hook fails when told to, so the stage falls back to rows)."""

    class ShoutParams(FilterSection):
        fail_batch: bool = False

    @register("odd", params=FilterSection, writes=("title",))
    def make_odd(cfg, params):  # noqa: ANN001, ANN202
        def check(r):  # noqa: ANN001, ANN202
            if r["id"] == "x3":
                raise ValueError("cannot judge x3")
            n = int(r["id"][1:])
            return Verdict.ok(title=f"n{n}") if n % 2 == 0 else Verdict.reject("odd", str(n))
        return check

    @register("shout", params=ShoutParams, writes=("caption",))
    def make_shout(cfg, params):  # noqa: ANN001, ANN202
        def check(r):  # noqa: ANN001, ANN202
            return Verdict.ok(caption=r["title"].upper())

        def batch(rows):  # noqa: ANN001, ANN202
            SEEN.append([r["id"] for r in rows])
            if cfg.fail_batch:
                raise RuntimeError("batch backend down")
            return [check(r) for r in rows]
        check.batch = batch
        return check

    SEEN.clear()
    yield
    for name in ("odd", "shout"):
        base.REGISTRY.pop(name, None)


def _run(tmp_path, **shout):
    params = make_params(tmp_path, filter={"order": ["odd", "shout"], "batch_size": 4,
                                           "shout": shout})
    seed_stage(params, "render", [empty_record(id=f"x{i}", format="svg", code="<svg/>",
                                               source_id=f"x{i}") for i in range(10)])
    stats = run_named("filter", params)
    p = stage_paths(params, "filter")
    return (stats, ShardSet(p.records, RECORD_SCHEMA).read_all().to_pylist(),
            ShardSet(p.rejections, REJECTION_SCHEMA).read_all().to_pylist())


def test_batch_hook_sees_each_units_survivors(tmp_path, filters):
    stats, kept, ledger = _run(tmp_path)
    # units of 4 rows; `odd` drops odd ids (x3 by raising) before `shout` sees them
    assert SEEN == [["x0", "x2"], ["x4", "x6"], ["x8"]]
    assert [r["id"] for r in kept] == ["x0", "x2", "x4", "x6", "x8"]
    assert [r["caption"] for r in kept] == ["N0", "N2", "N4", "N6", "N8"]
    assert [r["locator"] for r in ledger] == ["x1", "x3", "x5", "x7", "x9"]
    error = [r for r in ledger if r["locator"] == "x3"][0]
    assert error["reason"] == "error" and "cannot judge x3" in error["detail"]
    assert stats.by_reason == {"odd": 4, "error": 1}


def test_a_failing_batch_falls_back_to_rows(tmp_path, filters):
    stats, kept, ledger = _run(tmp_path, fail_batch=True)
    assert [r["caption"] for r in kept] == ["N0", "N2", "N4", "N6", "N8"]
    assert len(SEEN) == 3 and stats.n_out == 5
