"""The Dask executor: same bytes as the local pool, lost workers redone, timeouts kept.

Each test starts a real ``LocalCluster`` (2 worker processes on loopback), so the module is
a few seconds; the whole-pipeline comparison on the samples is in ``tests/test_pipeline.py``.
"""

from __future__ import annotations

import os
import threading

import pytest

from diagramforge.runner import run_stage
from diagramforge.stage import Outcome, Stage, WorkUnit
from diagramforge.store.paths import stage_paths
from diagramforge.store.records import RECORD_SCHEMA, REJECTION_SCHEMA
from diagramforge.store.shards import ShardSet
from tests.conftest import make_params
from tests.test_runner import Upper, _digest, seed

DASK = {"executor": "dask", "dask": {"workers": 2}}


class CountsSetups(Upper):
    """Upper, recording which worker processes ran ``setup`` and how often."""

    name = "counts_setups"

    def setup(self) -> None:
        with open(os.environ["SETUP_LOG"], "a") as fh:
            fh.write(f"{os.getpid()}\n")

    def process(self, unit: WorkUnit) -> Outcome:
        out = super().process(unit)
        out.extra = {f"pid_{os.getpid()}": 1}
        return out


class Hangs(Stage):
    """r001 never returns (as a stuck pure-Python unit would); others pass."""

    name = "hangs"
    upstream = "source"

    def process(self, unit: WorkUnit) -> Outcome:
        if unit.rows[0]["id"] == "r001":
            threading.Event().wait(30)
        return Outcome(records=list(unit.rows))


def test_dask_output_is_byte_identical_and_setup_runs_once_per_worker(tmp_path, monkeypatch):
    local = make_params(tmp_path / "local", runner={"shard_size": 4})
    seed(local, 13, 4)
    run_stage(Upper(local), workers=2)

    dask = make_params(tmp_path / "dask", runner={"shard_size": 4, **DASK})
    seed(dask, 13, 4)
    run_stage(Upper(dask), workers=2)
    assert _digest(dask, "upper") == _digest(local, "upper")

    monkeypatch.setenv("SETUP_LOG", str(tmp_path / "setups.log"))
    stats = run_stage(CountsSetups(dask), workers=2)
    assert (stats.n_in, stats.n_out) == (13, 10)
    setups = (tmp_path / "setups.log").read_text().split()
    workers_used = {k for k in stats.extra if k.startswith("pid_")}
    assert len(setups) == len(set(setups)) == 2  # once per worker, not per item
    assert workers_used <= {f"pid_{p}" for p in setups}


def test_killed_worker_loses_nothing_and_duplicates_nothing(tmp_path, monkeypatch):
    local = make_params(tmp_path / "local", runner={"shard_size": 5})
    seed(local, 15, 5)
    run_stage(Upper(local), workers=0)

    marker = tmp_path / "killed.pid"
    monkeypatch.setenv("DIAGRAMFORGE_DASK_KILL", f"r007:{marker}")  # mid-run, 2nd shard
    dask = make_params(tmp_path / "dask", runner={"shard_size": 5, **DASK})
    seed(dask, 15, 5)
    stats = run_stage(Upper(dask), workers=2)
    assert marker.exists()  # a worker really died on r007
    assert (stats.n_in, stats.n_out, stats.n_rejected) == (15, 12, 3)
    ids = ShardSet(stage_paths(dask, "upper").records, RECORD_SCHEMA).read_all()["id"]
    assert len(ids) == len(set(ids.to_pylist()))
    assert _digest(dask, "upper") == _digest(local, "upper")


def test_a_unit_past_its_deadline_is_a_timeout_on_dask_too(tmp_path):
    params = make_params(tmp_path, runner={"item_timeout_s": 1, **DASK})
    seed(params, 4, 4)
    stats = run_stage(Hangs(params), workers=2)
    assert stats.by_reason == {"timeout": 1} and stats.n_out == 3
    ledger = ShardSet(stage_paths(params, "hangs").rejections, REJECTION_SCHEMA).read_all()
    assert ledger.column("locator").to_pylist() == ["r001"]


@pytest.mark.parametrize("address", ["tcp://127.0.0.1:1"])
def test_an_unreachable_scheduler_is_a_clear_error(tmp_path, address):
    params = make_params(tmp_path, runner={"executor": "dask",
                                           "dask": {"address": address,
                                                    "connect_timeout_s": 2}})
    seed(params, 2, 2)
    with pytest.raises(OSError):
        run_stage(Upper(params), workers=2)
