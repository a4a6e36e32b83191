"""The runner: parallel map, timeouts, crashes, resume, contracts and the books."""

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from diagramforge.runner import run_stage
from diagramforge.stage import ContractError, Outcome, Stage, TableStage, WorkUnit
from diagramforge.store.paths import metrics_path, stage_paths
from diagramforge.store.records import RECORD_SCHEMA, REJECTION_SCHEMA, Rejection, empty_record
from diagramforge.store.shards import ShardSet, Upstream
from tests.conftest import make_params, seed_stage


def seed(params, n_rows: int, shard_size: int, provides=("id", "format", "code")) -> None:
    """A completed fake upstream stage called ``source``."""
    rows = [empty_record(id=f"r{i:03d}", format="tikz", code=f"c{i}") for i in range(n_rows)]
    seed_stage(params, "source", rows, provides=provides, shard_size=shard_size)


class Upper(Stage):
    """Upper-cases code; rejects rows whose number is divisible by 5."""

    name = "upper"
    upstream = "source"
    reads = ("id", "code")
    writes = ("code",)

    def process(self, unit: WorkUnit) -> Outcome:
        out = Outcome()
        for r in unit.rows:
            if int(r["id"][1:]) % 5 == 0:
                out.rejections.append(Rejection(r["id"], "divisible_by_5", id=r["id"]))
            else:
                out.records.append({**r, "code": r["code"].upper()})
        return out


class Misbehaving(Stage):
    """r001 hangs forever, r002 kills its worker, r003 raises; others pass."""

    name = "misbehaving"
    upstream = "source"

    def process(self, unit: WorkUnit) -> Outcome:
        rid = unit.rows[0]["id"]
        if rid == "r001":
            threading.Event().wait()
        if rid == "r002":
            os._exit(3)
        if rid == "r003":
            raise ValueError("bad row")
        return Outcome(records=list(unit.rows))


class Leaky(Stage):
    """Loses a row without saying why: the runner must refuse."""

    name = "leaky"
    upstream = "source"

    def process(self, unit: WorkUnit) -> Outcome:
        return Outcome()


class NeedsImage(Upper):
    name = "needs_image"
    reads = ("image",)


def _digest(params, name: str) -> str:
    h = hashlib.sha256()
    for sub in ("records", "rejections"):
        for p in sorted((stage_paths(params, name).root / sub).glob("*.parquet")):
            h.update(p.read_bytes())
    return h.hexdigest()


@pytest.mark.parametrize("workers", [0, 2])
def test_map_stats_and_ledger(tmp_path, workers):
    params = make_params(tmp_path, runner={"shard_size": 4})
    seed(params, 10, 4)
    stats = run_stage(Upper(params), workers=workers)
    assert (stats.n_in, stats.n_out, stats.n_rejected) == (10, 8, 2)
    assert stats.by_reason == {"divisible_by_5": 2}
    out = ShardSet(stage_paths(params, "upper").records, RECORD_SCHEMA).read_all()
    assert out.column("code").to_pylist()[:2] == ["C1", "C2"]
    assert out.column("id").to_pylist() == [f"r{i:03d}" for i in range(10) if i % 5]
    ledger = ShardSet(stage_paths(params, "upper").rejections, REJECTION_SCHEMA).read_all()
    assert sorted(ledger.column("locator").to_pylist()) == ["r000", "r005"]
    assert set(ledger.column("stage").to_pylist()) == {"upper"}
    metrics = json.loads(metrics_path(params, "upper").read_text())
    assert metrics["in"] == 10 and metrics["out"] == 8 and metrics["rejected"] == {
        "divisible_by_5": 2}


def test_timeout_crash_and_error_are_rejections_not_failures(tmp_path):
    params = make_params(tmp_path, runner={"item_timeout_s": 0.5})
    seed(params, 6, 6)
    stats = run_stage(Misbehaving(params), workers=2)
    assert stats.n_out == 3
    assert stats.by_reason == {"timeout": 1, "worker_crash": 1, "error": 1}
    ledger = ShardSet(stage_paths(params, "misbehaving").rejections, REJECTION_SCHEMA)
    rows = {r["locator"]: r for r in ledger.read_all().to_pylist()}
    assert rows["r001"]["reason"] == "timeout"
    assert rows["r002"]["reason"] == "worker_crash"
    assert "bad row" in rows["r003"]["detail"]


def test_resume_after_kill_matches_uninterrupted_run(tmp_path):
    full = make_params(tmp_path / "full", runner={"shard_size": 3})
    seed(full, 10, 3)
    run_stage(Upper(full))
    part = make_params(tmp_path / "part", runner={"shard_size": 3})
    seed(part, 10, 3)
    run_stage(Upper(part), stop_after_shards=2)  # "killed" after two commits
    assert not json.loads(stage_paths(part, "upper").state.read_text())["complete"]
    # ...while writing the third: a killed writer's temporary is not part of the output
    paths = stage_paths(part, "upper")
    strays = [paths.records / ".part-00002.parquet.999.deadbeef.tmp",
              paths.rejections / ".part-00002.parquet.999.deadbeef.tmp",
              paths.shard_stats / ".00002.json.999.deadbeef.tmp"]
    for stray in strays:
        stray.write_bytes(b"half a file")
    stats = run_stage(Upper(part))
    assert not any(stray.exists() for stray in strays)
    assert stats.extra["resumed_shards"] == 2
    assert (stats.n_in, stats.n_out) == (10, 8)
    assert _digest(part, "upper") == _digest(full, "upper")


class Fanout(Stage):
    """Each row becomes three records with a payload: a shard's output is many row groups
    under a small group budget."""

    name = "fanout"
    upstream = "source"
    expands = True

    def process(self, unit: WorkUnit) -> Outcome:
        return Outcome(records=[{**r, "id": f"{r['id']}-{k}", "image": bytes(50 + k) * 10}
                                for r in unit.rows for k in range(3)])


@pytest.mark.parametrize("workers", [0, 2])
def test_a_shard_is_streamed_to_disk_in_unit_order(tmp_path, monkeypatch, workers):
    """The driver hands each unit's records to the shard writer as the unit finishes, so
    an output shard is written in row groups: same rows, in unit order, as one table."""
    from diagramforge.store import shards

    tables = {}
    for budget in (1 << 30, 2000):
        monkeypatch.setattr(shards, "ROW_GROUP_BYTES", budget)
        params = make_params(tmp_path / str(budget), runner={"shard_size": 8})
        seed(params, 20, 8)
        stats = run_stage(Fanout(params), workers=workers)
        assert (stats.n_in, stats.n_out) == (20, 60)
        out = ShardSet(stage_paths(params, "fanout").records, RECORD_SCHEMA)
        groups = [pq.ParquetFile(out.path(i)).metadata.num_row_groups for i in out.indices()]
        tables[budget] = (out.read_all().to_pylist(), groups)
    assert tables[2000][0] == tables[1 << 30][0]
    assert tables[1 << 30][1] == [1, 1, 1] and min(tables[2000][1]) > 1
    assert [r["id"] for r in tables[2000][0]][:4] == ["r000-0", "r000-1", "r000-2", "r001-0"]


def test_changed_params_or_input_start_afresh(tmp_path):
    params = make_params(tmp_path, runner={"shard_size": 3})
    seed(params, 6, 3)
    run_stage(Upper(params), stop_after_shards=1)
    seed(params, 7, 3)  # the input changed: committed shards are stale
    stats = run_stage(Upper(params))
    assert stats.extra["resumed_shards"] == 0
    assert stats.n_in == 7


class Tooled(Upper):
    """Upper with an outside tool whose version is set from the test."""

    name = "tooled"
    tool = "toolchain-one"

    def environment(self) -> dict:
        return {"tool": self.tool}


def _stage_bytes(params, name: str) -> dict[str, bytes]:  # noqa: ANN001
    root = stage_paths(params, name).root
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_tool_versions_decide_reuse_but_stay_out_of_the_output(tmp_path):
    """Committed shards made with another version of an outside tool are not reused, yet the
    version is no part of what the stage writes into data/ — the same records made on a
    machine with another Chromium or TeX Live point release hash the same in dvc.lock."""
    params = make_params(tmp_path, runner={"shard_size": 3})
    seed(params, 7, 3)
    Tooled.tool = "toolchain-one"
    run_stage(Tooled(params), stop_after_shards=1)
    Tooled.tool = "toolchain-two"  # upgraded between a kill and the resume: start afresh
    assert run_stage(Tooled(params)).extra["resumed_shards"] == 0
    made_by_2 = _stage_bytes(params, "tooled")
    Tooled.tool = "toolchain-one"
    run_stage(Tooled(params))
    assert _stage_bytes(params, "tooled") == made_by_2
    assert not any(b"toolchain" in b for b in made_by_2.values())


def test_silent_loss_is_refused(tmp_path):
    params = make_params(tmp_path)
    seed(params, 2, 2)
    with pytest.raises(RuntimeError, match="accounting"):
        run_stage(Leaky(params))


def test_contract_checked_before_work(tmp_path):
    params = make_params(tmp_path)
    seed(params, 2, 2)
    with pytest.raises(ContractError, match="image"):
        run_stage(NeedsImage(params))
    assert not (stage_paths(params, "needs_image").records).exists()


def test_upstream_must_have_completed(tmp_path):
    params = make_params(tmp_path)
    seed(params, 2, 2)
    p = stage_paths(params, "source").state
    p.write_text(json.dumps({"complete": False}))
    with pytest.raises(ContractError, match="has not completed"):
        run_stage(Upper(params))


def test_metrics_file_is_dvc_readable(tmp_path):
    params = make_params(tmp_path)
    seed(params, 3, 3)
    run_stage(Upper(params))
    data = json.loads(Path(metrics_path(params, "upper")).read_text())
    assert {"in", "out", "rejected", "seconds"} <= set(data)


class Streamed(TableStage):
    """A source stage yielding rows lazily: keeps odd numbers, rejects the rest."""

    name = "streamed"
    output_schema = RECORD_SCHEMA
    writes = ("id",)
    written_before: list[int] = []

    def run_table(self, table, log):  # noqa: ANN001, ANN201
        log.source = "stack"
        shards = ShardSet(stage_paths(self.params, self.name).records, RECORD_SCHEMA)
        for i in range(40):
            log.stats.n_in += 1
            if i == 39:  # what the runner had committed before the last row was even made
                Streamed.written_before.append(len(shards.indices()))
            if i % 2:
                yield empty_record(id=f"s{i:03d}", format="svg", source="stack")
            else:
                log.reject(Rejection(f"s{i:03d}", "even"))


def test_a_streaming_source_stage_commits_as_it_goes(tmp_path, monkeypatch):
    import diagramforge.runner as runner

    params = make_params(tmp_path, runner={"shard_size": 4})
    monkeypatch.setattr(runner, "LEDGER_SPILL_ROWS", 5)
    stats = run_stage(Streamed(params))
    assert stats.n_in == 40 and stats.n_out == 20 and stats.by_reason == {"even": 20}
    assert Streamed.written_before == [4]  # 16 rows in 4 shards before row 39 existed
    paths = stage_paths(params, "streamed")
    assert len(ShardSet(paths.records, RECORD_SCHEMA).indices()) == 5
    ledger = ShardSet(paths.rejections, REJECTION_SCHEMA)
    assert len(ledger.indices()) == 4 and ledger.count() == 20
    assert set(ledger.read_all().column("source").to_pylist()) == {"stack"}


def test_ledger_rows_are_booked_under_their_source_kind(tmp_path):
    params = make_params(tmp_path)
    rows = [empty_record(id=f"r{i:03d}", format="tikz", code=f"c{i}",
                         source="arxiv" if i % 2 else "stack") for i in range(12)]
    seed_stage(params, "source", rows, provides=("id", "format", "code"), shard_size=12)
    run_stage(Upper(params), workers=0)
    ledger = ShardSet(stage_paths(params, "upper").rejections, REJECTION_SCHEMA).read_all()
    assert dict(zip(ledger.column("id").to_pylist(), ledger.column("source").to_pylist(),
                    strict=True)) == {"r000": "stack", "r005": "arxiv", "r010": "stack"}


class Batched(Stage):
    """One unit for the whole shard (as the filter batches); rejects by locator."""

    name = "batched"
    upstream = "source"
    reads = ("id",)

    def units(self, rows):  # noqa: ANN001, ANN201
        return [WorkUnit(rows, "all")]

    def process(self, unit: WorkUnit) -> Outcome:
        out = Outcome()
        for r in unit.rows:
            if r["source_id"].endswith("x"):
                out.rejections.append(Rejection(self.locator(r), "x", id=r["id"]))
            else:
                out.records.append(r)
        return out


def test_one_diagram_from_two_kinds_is_booked_by_its_locator(tmp_path):
    params = make_params(tmp_path)
    rows = [empty_record(id="same", format="svg", source="stack", source_id="stack:a/b:x"),
            empty_record(id="same", format="svg", source="repo_search", source_id="rs:c/d"),
            empty_record(id="other", format="svg", source="repo_search",
                         source_id="rs:e/x")]
    seed_stage(params, "source", rows, provides=("id", "format", "code"))
    run_stage(Batched(params), workers=0)
    ledger = ShardSet(stage_paths(params, "batched").rejections, REJECTION_SCHEMA).read_all()
    assert dict(zip(ledger.column("locator").to_pylist(), ledger.column("source").to_pylist(),
                    strict=True)) == {"stack:a/b:x": "stack", "rs:e/x": "repo_search"}
class Streams(TableStage):
    """A source stage that yields its rows (and ledgers every third input) as it goes."""

    name = "streams"
    n = 10
    fail_at: int | None = None

    def run_table(self, table, log):  # noqa: ANN001, ANN201
        for k in range(self.n):
            log.stats.n_in += 1
            if k == self.fail_at:
                raise RuntimeError("the source went away")
            if k % 3 == 0:
                log.reject(Rejection(f"src{k}", "boring"))
                continue
            yield {"id": f"s{k:03d}", "format": "tikz", "code": "x"}


def test_a_generator_table_stage_is_written_shard_by_shard(tmp_path, monkeypatch):
    import diagramforge.runner as runner

    monkeypatch.setattr(runner, "LEDGER_SPILL_ROWS", 2)
    params = make_params(tmp_path, runner={"shard_size": 3})
    stats = run_stage(Streams(params))
    paths = stage_paths(params, "streams")
    assert (stats.n_in, stats.n_out, stats.n_rejected) == (10, 6, 4)
    assert len(list(paths.records.glob("*.parquet"))) == 2
    assert len(list(paths.rejections.glob("*.parquet"))) >= 2  # the ledger went in parts
    ledger = ShardSet(paths.rejections, REJECTION_SCHEMA).read_all()
    assert sorted(ledger.column("locator").to_pylist()) == ["src0", "src3", "src6", "src9"]
    ids = ShardSet(paths.records, RECORD_SCHEMA).read_all().column("id").to_pylist()
    assert ids == [f"s{k:03d}" for k in range(10) if k % 3]

    # a source dying mid-stream leaves an output marked incomplete, not half of one
    broken = Streams(params)
    broken.fail_at = 7
    with pytest.raises(RuntimeError):
        run_stage(broken)
    assert not json.loads(paths.state.read_text())["complete"]


class Counts(TableStage):
    """A whole-table stage that needs two small columns of a table that carries images."""

    name = "counts"
    upstream = "seed"
    reads = ("id", "format")
    input_columns = ("format",)
    output_schema = None

    def run_table(self, table, log):  # noqa: ANN001, ANN201
        self.seen = table
        return []


def test_a_whole_table_stage_reads_only_the_columns_it_declares(tmp_path):
    params = make_params(tmp_path)
    rows = [{**empty_record(), "id": f"r{k}", "source": "arxiv", "format": "tikz",
             "image": b"\x89PNG" + bytes(1000)} for k in range(5)]
    seed_stage(params, "seed", rows)
    stage = Counts(params)
    run_stage(stage)
    # its own column and the ledger's keys, in schema order; no images
    assert stage.seen.column_names == [n for n in RECORD_SCHEMA.names
                                       if n in {"id", "source", "source_id", "format"}]
    assert stage.seen.num_rows == 5

    class Everything(Counts):
        input_columns = None

    whole = Everything(params)
    run_stage(whole)
    assert "image" in whole.seen.column_names

    class Wrong(Counts):
        input_columns = ("no_such_column",)

    with pytest.raises(ValueError, match="no_such_column"):
        run_stage(Wrong(params))


class ReadsShards(TableStage):
    """Reads its input shard by shard and rejects one row by id."""

    name = "reads-shards"
    upstream = "seed"
    reads = ("id", "format")
    streams_input = True
    output_schema = None

    def run_table(self, table, log):  # noqa: ANN001, ANN201
        self.kind = type(table).__name__
        self.n_in = table.num_rows
        self.per_shard = [t.num_rows for t in table.tables(["id"])]
        for row in table.rows(["id", "format"]):
            if row["id"] == "r3":
                log.reject(Rejection("reads-shards", "r3", "test_reason"))
            yield row


def test_a_streaming_table_stage_gets_the_shards_not_one_table(tmp_path):
    params = make_params(tmp_path)
    rows = [{**empty_record(), "id": f"r{k}", "source": "arxiv", "format": "tikz"}
            for k in range(5)]
    seed_stage(params, "seed", rows, shard_size=2)
    stage = ReadsShards(params)
    stats = run_stage(stage)
    assert stage.kind == "Upstream"
    assert stage.n_in == 5 and stage.per_shard == [2, 2, 1]
    assert stats.n_in == 5 and stats.n_out == 4
    ledger = ShardSet(stage_paths(params, "reads-shards").rejections, REJECTION_SCHEMA).read_all()
    # the ledger's source kind is found from the key columns alone
    assert ledger.to_pylist()[0]["source"] == "arxiv"
    with pytest.raises(KeyError, match="nope"):
        next(Upstream(ShardSet(stage_paths(params, "seed").records, RECORD_SCHEMA),
                      ["id"]).tables(["nope"]))


class WaitsForNextShard(Stage):
    """Shard 0's last row finishes only once a row of shard 1 has started (a file says so):
    a runner that leaves workers idle at the end of each shard never lets it."""

    name = "waits"
    upstream = "source"

    def process(self, unit: WorkUnit) -> Outcome:
        import time

        marker = Path(self.params.project.data_dir) / "shard-1-started"
        rid = unit.rows[0]["id"]
        if rid == "r002":
            marker.touch()
        if rid == "r001":
            deadline = time.monotonic() + 20
            while not marker.exists():
                if time.monotonic() > deadline:
                    return Outcome(rejections=[Rejection(rid, "idle_at_shard_end", id=rid)])
                time.sleep(0.01)
        return Outcome(records=list(unit.rows))


def test_next_shard_starts_while_this_shard_finishes(tmp_path):
    """Issue 42: the executor is fed units across shard boundaries (commits stay in shard
    order), so a long last unit of one shard does not idle the other workers."""
    params = make_params(tmp_path, runner={"shard_size": 2})
    seed(params, 4, 2)
    stats = run_stage(WaitsForNextShard(params), workers=2)
    assert stats.by_reason == {} and stats.n_out == 4
    out = ShardSet(stage_paths(params, "waits").records, RECORD_SCHEMA)
    assert [out.read(i).column("id").to_pylist() for i in out.indices()] == [
        ["r000", "r001"], ["r002", "r003"]]


def test_moved_code_that_changes_no_byte_leaves_the_output_hash_alone(tmp_path, monkeypatch):
    """The stage's code is part of its fingerprint (new code: committed shards are not
    reused), but a finished output holds no fingerprint: code moved without changing what
    it writes gives the same bytes in data/<stage>/, so the same hash in dvc.lock and no
    rebuild of the stages below (issue 39). The fingerprint sits in data/.runner/."""
    import diagramforge.runner as runner

    params = make_params(tmp_path, runner={"shard_size": 3})
    seed(params, 7, 3)
    monkeypatch.setattr(runner, "code_fingerprint", lambda cls: "code-before-the-move")
    run_stage(Upper(params))
    before = _stage_bytes(params, "upper")
    monkeypatch.setattr(runner, "code_fingerprint", lambda cls: "code-after-the-move")
    assert run_stage(Upper(params)).extra["resumed_shards"] == 0  # new code: made again
    assert _stage_bytes(params, "upper") == before
    assert not any(b"fingerprint" in b for b in before.values())


def test_a_finished_output_is_reused_only_as_its_run_left_it(tmp_path):
    """Run again with nothing changed, a finished stage reuses every shard; if its files
    were replaced meanwhile (a `dvc checkout` of another version's data), it starts afresh
    and writes what an uninterrupted run writes."""
    params = make_params(tmp_path, runner={"shard_size": 3})
    seed(params, 7, 3)
    run_stage(Upper(params))
    made = _stage_bytes(params, "upper")
    assert run_stage(Upper(params)).extra["resumed_shards"] == 3
    shard = sorted(stage_paths(params, "upper").records.glob("*.parquet"))[0]
    other = tmp_path / "other"
    seed(make_params(other, runner={"shard_size": 3}), 4, 3)
    run_stage(Upper(make_params(other, runner={"shard_size": 3})))
    shard.write_bytes(sorted((other / "data/upper/records").glob("*.parquet"))[0].read_bytes())
    assert run_stage(Upper(params)).extra["resumed_shards"] == 0
    assert _stage_bytes(params, "upper") == made


class Cached(Upper):
    """Upper with a cache of its own: counts how each row was made, as render counts TeX
    runs (compiled, their mode, cache hits), plus LLM calls and a timing."""

    name = "cached"
    seen: set[str] = set()

    def process(self, unit: WorkUnit) -> Outcome:
        out = super().process(unit)
        for r in out.records:
            keys = ["cache_hits"] if r["id"] in Cached.seen else [
                "compiled", "mode_format/batch", "llm_calls"]
            Cached.seen.add(r["id"])
            for key in [*keys, "engine_pdflatex", "spent_ms"]:
                out.extra[key] = out.extra.get(key, 0) + 1
        return out


def test_a_warm_cache_writes_the_bytes_a_cold_one_wrote(tmp_path):
    """How the work was done (compiled or a cache hit, the compile mode, LLM calls, time)
    goes to metrics/ only; what it made (here, the engine) stays in the shard stats. A
    project rebuilt from a warm cache hashes as the cold one did: the two-clone test found
    data/render differing by 'cache_hits: 31' against 'compiled: 31'."""
    Cached.seen = set()
    made = []
    for name in ("cold", "warm"):
        params = make_params(tmp_path / name, runner={"shard_size": 3})
        seed(params, 7, 3)
        stats = run_stage(Cached(params))
        made.append(_stage_bytes(params, "cached"))
        key = "compiled" if name == "cold" else "cache_hits"
        assert stats.extra[key] == 5 and stats.extra["engine_pdflatex"] == 5
    assert made[0] == made[1]
    assert b"engine_pdflatex" in made[0]["_shard_stats/00000.json"]
