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

from diagramforge.landlock import FileAccess, restrict_self


@dataclass
class SandboxResult:
    returncode: int | None
    stdout: str
    seconds: float
    timed_out: bool
    killed_by: int | None = None  # signal number when the process died of a signal


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


def run_sandboxed(argv: list[str], cwd: Path, env: dict[str, str], timeout_s: float,
                  memory_mb: int = 2048, fsize_mb: int = 64,
                  access: FileAccess | None = None,
                  step: tuple[bytes, float] | None = None) -> SandboxResult:
    """Run ``argv`` in ``cwd``; on timeout kill the whole process group (SIGKILL).

    With ``access`` (only where :func:`diagramforge.landlock.abi_version` is positive) the
    process may open only those files: the kernel enforces it for the tool and every
    program or library code it runs.

    With ``step = (marker, seconds)`` the run is also killed (``timed_out``) when ``seconds``
    pass without a new ``marker`` in its output: a TeX batch prints a mark as each page
    starts, so an endless page is stopped after its own page's budget, not after the whole
    batch's, and the last mark names it.
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
    deadline = t0 + timeout_s
    step_deadline = t0 + step[1] if step else float("inf")
    timed_out = False
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_READ)
        while True:
            wait = min(deadline, step_deadline) - time.perf_counter()
            if wait <= 0:
                timed_out = True
                break
            if not sel.select(wait):
                continue
            data = os.read(fd, 1 << 16)
            if not data:
                break  # every process holding the pipe has exited
            out += data
            if step:
                # search the new bytes with the marker's length of context before them
                seen = bytes(out[max(0, len(out) - len(data) - len(step[0]) + 1):])
                if step[0] in seen:
                    step_deadline = time.perf_counter() + step[1]
    if timed_out:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    else:
        try:
            proc.wait(timeout=max(0.0, deadline - time.perf_counter()))
        except subprocess.TimeoutExpired:  # closed its output but went on running
            timed_out = True
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
    rest, _ = proc.communicate()
    out += rest or b""
    rc = proc.returncode
    return SandboxResult(
        returncode=rc, stdout=out.decode("utf-8", "replace"),
        seconds=time.perf_counter() - t0, timed_out=timed_out,
        killed_by=-rc if rc is not None and rc < 0 else None,
    )
