"""The sandbox's deadlines: a whole budget, and a step budget for runs that report progress."""

from __future__ import annotations

import os
import subprocess
import sys

from diagramforge.sandbox.process import HANG_S, cpu_seconds, run_sandboxed, timeout_detail


def test_a_run_that_stops_making_progress_is_killed_at_its_step_budget(tmp_path):
    """``step``: killed when it spends the step's CPU budget without a new marker, long
    before the whole budget."""
    script = ("for k in range(3):\n    print(f'mark {k}', flush=True)\n"
              "while True:\n    pass\n")
    res = run_sandboxed([sys.executable, "-c", script], tmp_path, dict(os.environ),
                        timeout_s=600, step=(b"mark ", 0.5))
    assert res.timed_out and res.stopped == "step" and res.seconds < 60
    assert res.stdout.count("mark ") == 3
    assert timeout_detail(res, 600, 0.5) == "killed after 0.5 CPU-s"


def test_a_run_that_waits_for_ever_is_killed_as_hung(tmp_path):
    """No CPU time and no output: a CPU budget alone would never stop it."""
    script = "import threading\nprint('mark 0', flush=True)\nthreading.Event().wait()\n"
    res = run_sandboxed([sys.executable, "-c", script], tmp_path, dict(os.environ),
                        timeout_s=600, step=(b"mark ", 0.5))
    assert res.timed_out and res.stopped == "hung" and res.seconds < 60
    assert timeout_detail(res, 600, 0.5) == f"killed: no progress for {HANG_S:g} s"


def test_a_deadline_counts_the_runs_cpu_time_not_the_machines_load(tmp_path):
    """A run that needs 0.3 CPU-s, sharing one core with three busy loops, takes longer on
    the clock than its 0.5 s budget and still finishes: the budget is CPU time, so whether
    a picture "timed out" (a verdict in the data) depends on the picture, not on what else
    the machine runs. With a wall-clock deadline it was killed.

    Each busy loop has a session of its own, as the sandboxed run has: with the kernel's
    autogroup scheduling, sessions share a core evenly whatever their nice values, so the
    run gets at most half of it (a quarter here) and needs ≥ 0.6 s of wall."""
    cpu = min(os.sched_getaffinity(0))
    hogs = [subprocess.Popen([sys.executable, "-c", "while True:\n    pass\n"],
                             start_new_session=True,
                             preexec_fn=lambda: os.sched_setaffinity(0, {cpu}))
            for _ in range(3)]
    work = (f"import os, time\nos.sched_setaffinity(0, {{{cpu}}})\nos.nice(10)\n"
            "t = time.process_time()\n"
            "while time.process_time() - t < 0.3:\n    pass\nprint('done')\n")
    try:
        res = run_sandboxed([sys.executable, "-c", work], tmp_path, dict(os.environ),
                            timeout_s=0.5)
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    assert res.seconds > 0.5, "the busy loops did not slow the run: nothing was shown"
    assert res.returncode == 0 and not res.timed_out and "done" in res.stdout


def test_cpu_seconds_counts_the_children_too():
    """A tool's time includes what its children spent (kpathsea's mktexpk, xdvipdfmx)."""
    child = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.3: pass"
    script = ("import subprocess, sys\n"
              f"subprocess.run([sys.executable, '-c', {child!r}])\n"
              "print('ok', flush=True)\nsys.stdin.read()\n")
    proc = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == b"ok\n"
        assert cpu_seconds(proc.pid) >= 0.3
    finally:
        proc.kill()
        proc.wait()


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
    assert res.timed_out and res.stopped == "cpu" and res.stdout.count("mark ") == 1


def test_the_child_may_allocate_before_exec_whatever_its_parents_size(tmp_path, monkeypatch):
    """A stage worker can be larger than the tool's memory limit (its driver loaded
    ScanCode's index: 3.3 GB of address space in render's workers). The limit must bind the
    tool, not the copy of the worker that runs the Python setup between fork and exec: with
    the limit first, an allocation there failed ("Exception occurred in preexec_fn")."""
    import mmap

    import diagramforge.sandbox.process as sandbox
    from diagramforge.sandbox.landlock import FileAccess

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
