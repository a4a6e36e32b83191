"""Per-phase timing (issue 42): spans that never overlap within a unit, unions across units,
a bounded memory, and figures that go to the metrics, never to data/."""

from __future__ import annotations

import json

from diagramforge.measure.timing import PhaseTotals, count, phase, timed
from diagramforge.runner import run_stage
from diagramforge.store.paths import metrics_path, stage_paths
from tests.conftest import make_params
from tests.test_runner import Upper, seed


def test_nested_phases_pause_the_outer_one():
    def work() -> str:
        with phase("a"):
            with phase("b"):
                count("events", 2)
            with phase("b"):
                pass
        return "done"

    result, timing = timed(work)
    assert result == "done"
    spans = timing["spans"]
    # each moment in exactly one phase: consecutive, never overlapping
    assert all(x[2] <= y[1] for x, y in zip(spans, spans[1:], strict=False))
    assert {s[0] for s in spans} <= {"a", "b", "worker_other"}
    assert timing["counts"] == {"a": 1, "b": 2, "events": 2}


def test_phases_outside_a_unit_cost_nothing_and_record_nothing():
    with phase("a"):
        count("x")
    _, timing = timed(lambda: None)
    assert timing["counts"] == {}


def test_wall_is_the_union_and_summed_the_sum():
    t = PhaseTotals()
    # two workers compiling at once from 0 to 2 and 1 to 3, one more from 5 to 6
    t.add_unit({"spans": [("compile", 0.0, 2.0, 1.0)], "counts": {"compile": 1}})
    t.add_unit({"spans": [("compile", 1.0, 3.0, 2.0), ("graph", 3.0, 4.0, 1.0)],
                "counts": {"compile": 1, "tex_timeouts": 1}})
    t.fold(watermark=2.5)  # a unit pulled at 2.5: nothing to come starts earlier
    t.add_unit({"spans": [("compile", 5.0, 6.0, 0.5)], "counts": {"compile": 1}})
    out = t.to_json()
    assert out["compile"] == {"summed_s": 5.0, "cpu_s": 3.5, "wall_s": 4.0, "count": 3}
    assert out["graph"]["wall_s"] == 1.0
    assert out["counts"] == {"tex_timeouts": 1}


def test_driver_stretches_nest_exclusively(monkeypatch):
    from diagramforge.measure import timing

    class Clock:  # a clock the test moves by hand
        now = 0.0

        def monotonic(self) -> float:
            return self.now

        def process_time(self) -> float:
            return self.now / 2

    clock = Clock()
    monkeypatch.setattr(timing, "time", clock)
    t = PhaseTotals()
    with t.driver("wait"):
        clock.now += 1
        with t.driver("driver"):  # reading the next shard while waiting for a worker
            clock.now += 5
        clock.now += 2
    out = t.to_json()
    assert out["driver"] == {"summed_s": 5.0, "cpu_s": 2.5, "wall_s": 5.0}
    assert out["wait"] == {"summed_s": 3.0, "cpu_s": 1.5, "wall_s": 3.0}


def test_phases_reach_the_metrics_and_never_the_shard_stats(tmp_path):
    params = make_params(tmp_path, runner={"shard_size": 4})
    seed(params, 10, 4)
    run_stage(Upper(params), workers=2)
    metrics = json.loads(metrics_path(params, "upper").read_text())
    assert {"setup", "driver", "wait", "worker_other"} <= set(metrics["phases"])
    assert metrics["phases"]["worker_other"]["summed_s"] > 0
    for f in stage_paths(params, "upper").shard_stats.glob("*.json"):
        assert "phases" not in json.loads(f.read_text())
