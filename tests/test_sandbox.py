"""The sandbox's deadlines: a whole budget, and a step budget for runs that report progress."""

from __future__ import annotations

import os
import sys

from diagramforge.sandbox import run_sandboxed


def test_a_run_that_stops_making_progress_is_killed_at_its_step_budget(tmp_path):
    """``step``: killed when no new marker arrives in time, long before the whole budget."""
    script = ("import sys, threading\n"
              "for k in range(3):\n    print(f'mark {k}', flush=True)\n"
              "threading.Event().wait()\n")
    res = run_sandboxed([sys.executable, "-c", script], tmp_path, dict(os.environ),
                        timeout_s=600, step=(b"mark ", 0.5))
    assert res.timed_out and res.seconds < 60
    assert res.stdout.count("mark ") == 3


# prints "mark <k>" n times, 0.05 s apart, then ends or hangs for good
STEPPER = """
import sys, time
n, hang = int(sys.argv[1]), sys.argv[2] == "hang"
for k in range(n):
    print(f"mark {k}", flush=True)
    time.sleep(0.05)
while hang:
    pass
"""


def test_a_run_that_keeps_making_progress_may_outlast_its_step_budget(tmp_path):
    """30 marks 0.05 s apart: 1.5 s in all, longer than the 0.5 s step, never 0.5 s
    without a mark (a marker split across two reads counts too)."""
    res = run_sandboxed([sys.executable, "-c", STEPPER, "30", "end"], tmp_path,
                        dict(os.environ), timeout_s=600, step=(b"mark ", 0.5))
    assert res.returncode == 0 and not res.timed_out
    assert res.stdout.count("mark ") == 30


def test_without_a_step_the_whole_budget_alone_applies(tmp_path):
    res = run_sandboxed([sys.executable, "-c", STEPPER, "1", "hang"], tmp_path,
                        dict(os.environ), timeout_s=1)
    assert res.timed_out and res.stdout.count("mark ") == 1


def test_the_child_may_allocate_before_exec_whatever_its_parents_size(tmp_path, monkeypatch):
    """A stage worker can be larger than the tool's memory limit (its driver loaded
    ScanCode's index: 3.3 GB of address space in render's workers). The limit must bind the
    tool, not the copy of the worker that runs the Python setup between fork and exec: with
    the limit first, an allocation there failed ("Exception occurred in preexec_fn")."""
    import mmap

    import diagramforge.sandbox as sandbox
    from diagramforge.landlock import FileAccess

    def allocating_restrict(access):  # noqa: ANN001, ANN202 - what landlock's setup may do
        return bytearray(64 << 20)  # a fresh mapping, whatever the heap holds

    monkeypatch.setattr(sandbox, "restrict_self", allocating_restrict)
    big = mmap.mmap(-1, 3 << 30)  # the parent passes 1 GB of address space (never touched)
    try:
        r = sandbox.run_sandboxed([sys.executable, "-c", "print('ran')"], tmp_path,
                                  dict(os.environ), 30, memory_mb=1024,
                                  access=FileAccess(read=(), execute=(), write=()))
    finally:
        big.close()
    assert r.returncode == 0 and "ran" in r.stdout
