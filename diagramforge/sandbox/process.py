"""Run an untrusted tool in a fresh directory with rlimits and a process-group kill.

TeX documents and SVG files come from strangers: a loop must not hang the run, a shipout
loop must not fill the disk, and a timeout must kill every process the tool started.
"""

from __future__ import annotations

import contextlib
import os
import resource
import selectors
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from diagramforge.sandbox.landlock import FileAccess, restrict_self


@dataclass
class SandboxResult:
    returncode: int | None
    stdout: str
    seconds: float
    timed_out: bool
    killed_by: int | None = None  # signal number when the process died of a signal
    stopped: str | None = None
    """Which budget stopped a timed-out run: ``cpu`` (the whole run's), ``step`` (one
    step's, see ``run_sandboxed``), ``hung`` (no progress at all) or ``wall`` (last guard)."""


def _limits(memory_mb: int, cpu_s: int, fsize_mb: int,  # noqa: ANN202 - preexec fn
            access: FileAccess | None = None):
    """Runs in the forked child before exec. The address-space limit comes last: until
    exec the child is a copy of its parent — a stage worker whose address space already
    passes ``memory_mb`` when its driver loaded ScanCode's licence index (3.3 GB of it in
    render's workers) — so any allocation the Python code here made after that limit could
    fail, and the run died as "Exception occurred in preexec_fn" (ledgered as a unit
    ``error``) whenever the child's heap happened to need a new page."""
    def apply() -> None:
        if access is not None:
            restrict_self(access)
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 1))
        fs = fsize_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_FSIZE, (fs, fs))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        mem = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
    return apply


# CPU time is read from /proc in clock ticks
_TICK = os.sysconf("SC_CLK_TCK")
# a run with neither new CPU time nor new output for this long (or its budget, if longer)
# is hung — waiting on something that will never come — and is killed then; a run that
# only gets a small share of a busy machine still gains CPU time every few scheduler ticks
HANG_S = 2.0
# and a run is killed in any case after this many times its budget of wall time: a last
# guard for a machine so overloaded that even the CPU clock is no longer informative
WALL_FACTOR = 30.0


def cpu_seconds(pid: int) -> float:
    """CPU seconds (user + system) spent by ``pid`` and every process below it, living
    (``/proc/<pid>/task/*/children``) or already reaped by its parent (``cutime``)."""
    total, stack, seen = 0, [pid], set()
    while stack:
        p = stack.pop()
        if p in seen:
            continue
        seen.add(p)
        try:
            with open(f"/proc/{p}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
            total += sum(int(f) for f in fields[11:15])  # utime stime cutime cstime
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children", "rb") as fh:
                    stack += [int(c) for c in fh.read().split()]
        except (OSError, ValueError, IndexError):
            continue  # gone meanwhile: its time is in its parent's cutime
    return total / _TICK


def run_sandboxed(argv: list[str], cwd: Path, env: dict[str, str], timeout_s: float,
                  memory_mb: int = 2048, fsize_mb: int = 64,
                  access: FileAccess | None = None,
                  step: tuple[bytes, float] | None = None) -> SandboxResult:
    """Run ``argv`` in ``cwd``; past its budget kill the whole process group (SIGKILL).

    The budgets are **CPU seconds** of the tool and its children, not wall time: on a
    machine running other work a picture takes longer on the clock but the same on the CPU,
    so whether it "timed out" — a verdict written into the data — depends on the picture,
    not on the machine's load (with wall deadlines the same 114 pictures timed out 7 or 13
    times from one run to the next). A run that makes no progress at all (no CPU time, no
    output for :data:`HANG_S` or its budget) is hung and is killed then, and
    :data:`WALL_FACTOR` × the budget of wall time is a last guard.

    With ``access`` (only where :func:`diagramforge.sandbox.landlock.abi_version` is positive) the
    process may open only those files: the kernel enforces it for the tool and every
    program or library code it runs.

    With ``step = (marker, seconds)`` the run is also killed (``timed_out``, ``stopped =
    "step"``) when it spends ``seconds`` of CPU without a new ``marker`` in its output: a
    TeX batch prints a mark as each page starts, so an endless page is stopped after its
    own page's budget, not after the whole batch's, and the last mark names it.
    """
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, start_new_session=True,
        preexec_fn=_limits(memory_mb, int(timeout_s) + 2, fsize_mb, access),
    )
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    out = bytearray()
    wall_cap = t0 + WALL_FACTOR * timeout_s + HANG_S
    step_budget = step[1] if step else float("inf")
    step_cpu = 0.0  # CPU time at the last marker
    last_cpu, last_news = 0.0, t0  # CPU time when it last grew, and when it (or output) did
    stopped: str | None = None
    poll, eof = 0.02, False
    next_check = t0 + poll
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_READ)
        while stopped is None:
            wait = max(0.0, next_check - time.perf_counter())
            if not eof and sel.select(wait):
                data = os.read(fd, 1 << 16)
                if not data:
                    eof = True  # every process holding the pipe has exited (or closed it)
                    sel.unregister(fd)
                else:
                    out += data
                    last_news = time.perf_counter()
                    # search the new bytes with the marker's length of context before them
                    if step and step[0] in bytes(
                            out[max(0, len(out) - len(data) - len(step[0]) + 1):]):
                        step_cpu = cpu_seconds(proc.pid)
            elif eof:
                try:
                    proc.wait(timeout=wait)
                    break
                except subprocess.TimeoutExpired:  # closed its output but runs on
                    pass
            now = time.perf_counter()
            if now < next_check:
                continue  # output came early: read on until the next look at the clock
            cpu = cpu_seconds(proc.pid)
            if cpu > last_cpu:
                last_cpu, last_news = cpu, now
            if cpu >= timeout_s:
                stopped = "cpu"
            elif cpu - step_cpu >= step_budget:
                stopped = "step"
            elif now - last_news >= max(HANG_S, min(timeout_s, step_budget)):
                stopped = "hung"
            elif now >= wall_cap:
                stopped = "wall"
            poll = min(poll * 1.5, 0.25)
            next_check = now + poll
    if stopped is not None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    rest, _ = proc.communicate()
    out += rest or b""
    rc = proc.returncode
    return SandboxResult(
        returncode=rc, stdout=out.decode("utf-8", "replace"),
        seconds=time.perf_counter() - t0, timed_out=stopped is not None,
        killed_by=-rc if rc is not None and rc < 0 else None, stopped=stopped,
    )


def timeout_detail(res: SandboxResult, budget: float, step_budget: float | None = None) -> str:
    """The ledger's words for a run stopped on a budget: they name the budget that stopped
    it, never the clock's reading, so a rejection's detail is a function of the input."""
    step = step_budget if step_budget is not None else budget
    return {"step": f"killed after {step:g} CPU-s",
            "hung": f"killed: no progress for {max(HANG_S, min(budget, step)):g} s",
            "wall": f"killed after {WALL_FACTOR * budget + HANG_S:g} s of wall time",
            }.get(res.stopped or "cpu", f"killed after {budget:g} CPU-s")
