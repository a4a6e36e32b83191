"""AugTikZ repair: the repair stage keeping only fixes that compile, render and keep the
node texts (TikZ's rule-based fixes, the offline backend's answers, are tested in
``tests/formats/tikz/test_repair.py``)."""

from __future__ import annotations

import pyarrow.parquet as pq

from diagramforge.formats.encoding import kind
from diagramforge.stage import StageLog
from diagramforge.store.paths import stage_paths
from diagramforge.store.records import REJECTION_SCHEMA, empty_record
from diagramforge.store.shards import ShardSet
from diagramforge.synth.repair.stage import RepairStage, text_overlap
from tests.conftest import make_params, needs_tex, seed_stage

DOC = ("\\documentclass{standalone}\n\\usepackage{tikz}\n\\begin{document}\n{body}\n"
       "\\end{document}\n")


def doc(body: str) -> str:
    return DOC.replace("{body}", body)


def test_text_overlap():
    assert text_overlap(["a", "b"], ["a", "b"]) == 1.0
    assert text_overlap(["a", "b"], ["a"]) == 0.5
    assert text_overlap([], []) == 1.0


@needs_tex
def test_repair_stage(tmp_path):
    params = make_params(tmp_path, augment={"llm": {"cache_dir": str(tmp_path / "llm")}})
    good = doc("\\begin{tikzpicture}\n  \\node[draw] (a) {Alpha};\n  \\node[draw] (b) at (2,0)"
               " {Beta}\n  \\draw[->] (a) -- (b);\n\\end{tikzpicture}")
    hopeless = doc("\\begin{tikzpicture}\n  \\node {Gamma};\n  \\weird\n\\end{tikzpicture}")
    recs = [empty_record(id="r1", format="tikz", code=good, group="arxiv:1", licence="MIT",
                         source_id="p1#1"),
            empty_record(id="r2", format="tikz", code=hopeless, group="arxiv:2",
                         licence="MIT", source_id="p2#1"),
            empty_record(id="r3", format="tikz", code=good, group="arxiv:3",
                         licence="proprietary", source_id="p3#1")]
    seed_stage(params, "extract", recs)
    seed_stage(params, "split", [empty_record(id="s1", format="tikz", group="arxiv:1",
                                              split="validation")])
    rej = [{"id": "r1", "locator": "p1#1", "stage": "render", "reason": "compile_tikz_error",
            "detail": "! Package tikz Error: Giving up on this path. Did you forget a "
                      "semicolon?. | l.6", "unit": "input"},
           {"id": "r2", "locator": "p2#1", "stage": "render",
            "reason": "compile_undefined_control_sequence",
            "detail": "! Undefined control sequence. | l.6 \\weird", "unit": "input"},
           {"id": "r3", "locator": "p3#1", "stage": "render", "reason": "compile_tikz_error",
            "detail": "Did you forget a semicolon?", "unit": "input"},
           {"id": "r4", "locator": "p4#1", "stage": "render", "reason": "compile_timeout",
            "detail": "killed", "unit": "input"},
           {"id": "x", "locator": "p5", "stage": "render", "reason": "blank_render",
            "detail": "", "unit": "input"}]
    ShardSet(stage_paths(params, "render").rejections, REJECTION_SCHEMA).write(0, rej)
    stage = RepairStage(params)
    table = pq.read_table(sorted(stage_paths(params, "split").records.glob("*.parquet")))
    log = StageLog("repair", expands=True)
    rows = list(stage.run_table(table, log))
    assert log.stats.n_in == 4  # compile failures only
    by_id = {r["diagram_id"]: r for r in rows}
    assert set(by_id) == {"r1", "r2"}  # r2: \weird defined away, Gamma kept
    assert by_id["r1"]["split"] == "validation" and by_id["r2"]["split"] == "train"
    assert kind(by_id["r1"]["image"]) == "png" and "{Beta};" in by_id["r1"]["code"]
    reasons = {r["id"]: r["reason"] for r in log.rejections}
    assert reasons == {"r3": "repair_licence", "r4": "repair_not_a_compile_error"}
    assert log.stats.inputs_with_output + log.stats.rejected_inputs == log.stats.n_in


def _streaming_corpus(params) -> None:  # noqa: ANN001
    """Five pictures missing a semicolon (papers 0–4), one that timed out and one whose code
    is gone, over several extract, ledger and split shards."""
    recs = [empty_record(id=f"r{k}", format="tikz", group=f"arxiv:{k}", licence="MIT",
                         source_id=f"p{k}#1",
                         code=doc(f"\\begin{{tikzpicture}}\n  \\node[draw] (a) {{Alpha {k}}};\n"
                                  f"  \\node[draw] (b) at (2,0) {{Beta {k}}}\n"
                                  "  \\draw[->] (a) -- (b);\n\\end{tikzpicture}"))
            for k in range(6)]
    seed_stage(params, "extract", recs, shard_size=2)
    seed_stage(params, "split", [empty_record(id=f"s{k}", format="tikz", group=f"arxiv:{k % 3}",
                                              split="test" if k % 3 == 1 else "validation")
                                 for k in range(7)], shard_size=2)
    rej = [{"id": f"r{k}", "locator": f"p{k}#1", "stage": "render",
            "reason": "compile_tikz_error" if k != 5 else "compile_timeout",
            "detail": "! Package tikz Error: Giving up on this path. Did you forget a "
                      "semicolon?. | l.6" if k != 5 else "killed", "unit": "input"}
           for k in range(6)]
    rej.append({"id": "gone", "locator": "p9#1", "stage": "render",
                "reason": "compile_tikz_error", "detail": "", "unit": "input"})
    ledger = ShardSet(stage_paths(params, "render").rejections, REJECTION_SCHEMA)
    ledger.write(0, rej[:4])
    ledger.write(1, rej[4:])


@needs_tex
def test_repair_streams_in_batches_and_writes_what_the_whole_table_writes(tmp_path,
                                                                          monkeypatch):
    from collections import Counter

    from diagramforge.runner import LEDGER_KEY_COLUMNS, run_stage

    def run(root, shard_size: int) -> tuple[list, Counter, dict]:  # noqa: ANN001
        params = make_params(root, runner={"shard_size": shard_size},
                             augment={"llm": {"cache_dir": str(root / "llm")}})
        _streaming_corpus(params)
        stats = run_stage(RepairStage(params))
        paths = stage_paths(params, "repair")
        rows = pq.read_table(paths.records).to_pylist()
        rej = Counter((r["id"], r["reason"], r["locator"])
                      for r in pq.read_table(paths.rejections).to_pylist())
        return rows, rej, {"in": stats.n_in, "out": stats.n_out,
                           "with_output": stats.inputs_with_output}

    with monkeypatch.context() as m:  # the reference: one table, one batch
        m.setattr(RepairStage, "streams_input", False)
        ref = run(tmp_path / "whole", 64)
    batches: list[int] = []
    real_repair, real_read_all = RepairStage._repair, ShardSet.read_all

    def counted(self, failed, *a):  # noqa: ANN001, ANN002, ANN202
        batches.append(len(failed))
        return real_repair(self, failed, *a)

    def guarded(self, columns=None):  # noqa: ANN001, ANN202
        if columns is None or not set(columns) <= set(LEDGER_KEY_COLUMNS):
            raise AssertionError(f"read every row of {self.dir}")
        return real_read_all(self, columns)

    monkeypatch.setattr(RepairStage, "_repair", counted)
    monkeypatch.setattr(ShardSet, "read_all", guarded)
    rows, rej, stats = run(tmp_path / "streamed", 2)
    monkeypatch.setattr(ShardSet, "read_all", real_read_all)
    assert batches == [2, 2, 2, 1]  # 7 failures, never more than a shard's worth at once
    assert (rows, rej, stats) == ref
    assert {r["diagram_id"] for r in rows} == {f"r{k}" for k in range(5)}
    # each repair takes its paper's split, read from split shards other than its own
    assert {r["diagram_id"]: r["split"] for r in rows} == {
        "r0": "validation", "r1": "test", "r2": "validation", "r3": "train", "r4": "train"}
    assert stats == {"in": 7, "out": 5, "with_output": 5}


@needs_tex
def test_repair_asks_a_batch_together_and_writes_what_one_call_at_a_time_writes(
        tmp_path, monkeypatch):
    """A batch's requests go out together through ``LLM.complete_many`` (its thread pool
    here; a vendor's batch API where configured), not one round trip after another; the
    rows and the ledger, in order, are those of one call at a time."""
    import threading

    from diagramforge.runner import run_stage
    from diagramforge.synth.llm.offline import OfflineBackend

    threads: list[str] = []
    real = OfflineBackend.complete

    def spied(self, call):  # noqa: ANN001, ANN202
        threads.append(threading.current_thread().name)
        return real(self, call)

    monkeypatch.setattr(OfflineBackend, "complete", spied)

    def run(root, concurrency: int) -> tuple[list, list]:  # noqa: ANN001
        params = make_params(root, runner={"shard_size": 8},
                             augment={"llm": {"cache_dir": str(root / "llm"),
                                              "concurrency": concurrency}})
        _streaming_corpus(params)
        run_stage(RepairStage(params))
        paths = stage_paths(params, "repair")
        return (pq.read_table(paths.records).to_pylist(),
                pq.read_table(paths.rejections).to_pylist())

    serial = run(tmp_path / "serial", 1)
    assert len(threads) == 5 and not any(t.startswith("llm") for t in threads)
    threads.clear()
    pooled = run(tmp_path / "pooled", 4)
    assert len(threads) == 5 and all(t.startswith("llm") for t in threads)  # the pool's
    assert pooled == serial
    assert len(serial[0]) == 5 and [r["reason"] for r in serial[1]] == [
        "repair_not_a_compile_error", "repair_code_missing"]


@needs_tex
def test_repair_renders_its_fixes_on_the_executors_workers(tmp_path, monkeypatch):
    """The candidate fixes are compiled a TikZ batch per unit on the run's executor (a
    process pool with 2 workers here), not in the stage's own process; the rows and the
    ledger are those of the inline run."""
    import diagramforge.synth.repair.stage as repair
    from diagramforge.runner import run_stage

    used: list[tuple[int, list[int]]] = []
    real_make = repair.make_executor

    def spied_make(params, workers):  # noqa: ANN001, ANN202
        ex = real_make(params, workers)
        real_run = ex.run

        def run(units, timeouts):  # noqa: ANN001, ANN202
            used.append((workers, [len(u.rows) for u in units]))
            return real_run(units, timeouts)

        ex.run = run
        return ex

    monkeypatch.setattr(repair, "make_executor", spied_make)
    def run(root, workers: int) -> tuple[list, list]:  # noqa: ANN001
        params = make_params(root, runner={"shard_size": 8, "workers": workers},
                             render={"tikz": {"batch_size": 2}},
                             augment={"llm": {"cache_dir": str(root / "llm")}})
        _streaming_corpus(params)
        run_stage(RepairStage(params), workers=workers)
        paths = stage_paths(params, "repair")
        return (pq.read_table(paths.records).to_pylist(),
                pq.read_table(paths.rejections).to_pylist())

    inline = run(tmp_path / "inline", 0)
    assert used == [(0, [2, 2, 1])]  # five fixes, batches of two
    used.clear()
    pooled = run(tmp_path / "pooled", 2)
    assert used == [(2, [2, 2, 1])]
    assert pooled == inline and len(pooled[0]) == 5
