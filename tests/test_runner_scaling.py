"""The driver's work per item does not grow with the corpus (issue 42).

Render at 10× a real collection took 18× as long, its time outside compilation 31×. Whatever
the cause, the driver — reading shards, grouping units by batch key (``RenderStage.units``),
handing units to the executor, booking outcomes into records, ledger and counters, committing
— must cost the same per item at 100 items as at 10,000. This runs the real runner and the
real ``RenderStage.units`` over real Parquet with a fake engine (``process`` returns canned
renders and rejections, no TeX), and measures deterministic proxies of the driver's work
instead of time: the Python and C function calls it makes (``cProfile``'s call counts) and
the bytes it reads and writes (``/proc/self/io``). The pictures' ids count their own
comparisons (:class:`CountedId`), so a C-level scan (``id in a_list``) or sort shows up in
the calls too. A scan of everything booked so far per unit, a re-read of the ledger or of
the shard stats per shard, a sort of the corpus per unit would all make the marginal cost
per item at 10,000 exceed the one at 1,000.
"""

from __future__ import annotations

import cProfile
import json
from pathlib import Path

import pytest

from diagramforge.builders.render.stage import RenderStage
from diagramforge.runner import run_stage
from diagramforge.stage import Outcome, WorkUnit
from diagramforge.store.records import Rejection, empty_record
from tests.conftest import make_params, seed_stage

TEMPLATES = 37
"""Distinct preambles: pictures of one template share a batch key, as copies of a real
figure do (a 10× corpus puts ten of them in a shard)."""


def tikz_rows(n: int) -> list[dict]:
    """``n`` extracted TikZ pictures, template ``k % TEMPLATES``, copy ``k // TEMPLATES``,
    ordered so that copies of a template sit next to each other."""
    rows = []
    for k in range(n):
        t, c = k % TEMPLATES, k // TEMPLATES
        blocks = [r"\usepackage{tikz}", r"\usetikzlibrary{arrows}",
                  rf"\newcommand{{\tmpl{chr(97 + t % 26)}}}{{{t}}}"]
        if t % 3 == 0:
            blocks.insert(1, r"\usepackage{amsmath}")
        body = (rf"\begin{{tikzpicture}}\node (a) {{T{t}}}; \node (b) at (1,0) {{C{c}}};"
                rf"\draw (a) -- (b);\end{{tikzpicture}}")
        code = "\\documentclass{standalone}\n" + "\n".join(blocks) + \
            f"\n\\begin{{document}}\n{body}\n\\end{{document}}\n"
        rows.append(empty_record(id=f"t{t:03d}c{c:05d}", format="tikz", code=code,
                                 source="arxiv", source_id=f"{t:03d}.{c:05d}",
                                 meta=json.dumps({"blocks": blocks, "body": body})))
    rows.sort(key=lambda r: r["id"])
    return rows


class CountedId(str):
    """An id whose comparisons and hashing are Python calls: a scan of a list of ids, a
    sort or a search — C loops that call counts would not see — then costs one counted
    call per element it touches."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        return str.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return str.__ne__(self, other)

    def __lt__(self, other: str) -> bool:
        return str.__lt__(self, other)

    def __hash__(self) -> int:
        return str.__hash__(self)


class FakeEngineRender(RenderStage):
    """The render stage with its engine replaced: each picture "renders" to canned bytes
    (a picture whose copy number is divisible by 7 is rejected), with the graph columns
    and counters a real render books. The driver cannot tell the difference."""

    name = "render"
    upstream = "extract"

    def prepare(self) -> None:
        pass

    def units(self, rows: list[dict]) -> list[WorkUnit]:
        """The real grouping by batch key, over rows whose ids count their comparisons."""
        return super().units([{**r, "id": CountedId(r["id"])} for r in rows])

    def process(self, unit: WorkUnit) -> Outcome:
        out = Outcome()
        for r in unit.rows:
            rid = CountedId(r["id"])
            if int(rid[-5:]) % 7 == 0:
                out.rejections.append(Rejection(self.locator(r), "compile_tikz_error",
                                                "! Package tikz Error | l.3", id=rid))
                continue
            out.records.append({**r, "id": rid, "image": bytes(range(256)) * 8, "width": 120,
                                "height": 80, "render_status": "ok",
                                "render_engine": "pdflatex", "render_error": None,
                                "graph": '{"nodes": [], "edges": []}', "graph_nodes": 2,
                                "graph_edges": 1, "graph_components": 1,
                                "graph_longest_path": 1})
            for key in ("compiled", "mode_format/batch", "engine_pdflatex", "graph_built"):
                out.extra[key] = out.extra.get(key, 0) + 1
            out.extra["compile_ms"] = out.extra.get("compile_ms", 0) + 1
        return out


def _io() -> tuple[int, int]:
    fields = dict(line.split(": ") for line in Path("/proc/self/io").read_text().splitlines())
    return int(fields["rchar"]), int(fields["wchar"])


def driver_work(root: Path, n: int, workers: int) -> dict[str, int]:
    """Run the fake render over ``n`` pictures; the driver's calls and I/O bytes."""
    params = make_params(root, runner={"workers": workers})
    seed_stage(params, "extract", tikz_rows(n), provides=("id", "format", "code", "group",
                                                          "meta", "source", "source_id"))
    stage = FakeEngineRender(params)
    r0, w0 = _io()
    prof = cProfile.Profile()
    prof.enable()
    stats = run_stage(stage)
    prof.disable()
    r1, w1 = _io()
    assert stats.n_in == n and stats.n_out + stats.rejected_inputs == n
    return {"calls": sum(e.callcount for e in prof.getstats()), "read": r1 - r0,
            "written": w1 - w0}


@pytest.mark.parametrize("workers", [0, 2])
def test_driver_work_per_item_is_flat_from_100_to_10000(tmp_path, workers):
    driver_work(tmp_path / "warm", 100, workers)  # imports and first-use caches
    work = {n: driver_work(tmp_path / f"n{n}", n, workers) for n in (100, 1_000, 10_000)}
    for what in ("calls", "read", "written"):
        small = (work[1_000][what] - work[100][what]) / 900  # marginal cost per item
        large = (work[10_000][what] - work[1_000][what]) / 9_000
        assert small > 0
        # the same per item at 10× the corpus (a term growing with N would double it)
        assert large <= 1.05 * small, (what, small, large, work)
        assert large >= 0.8 * small, (what, small, large, work)
