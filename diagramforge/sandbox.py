"""Run an untrusted tool in a fresh directory with rlimits and a process-group kill.

TeX documents and SVG files come from strangers: a loop must not hang the run, a shipout
loop must not fill the disk, and a timeout must kill every process the tool started.
"""

from __future__ import annotations

import contextlib
import os
import resource
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
    def apply() -> None:
        mem = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 1))
        fs = fsize_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_FSIZE, (fs, fs))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if access is not None:
            restrict_self(access)
    return apply


def run_sandboxed(argv: list[str], cwd: Path, env: dict[str, str], timeout_s: float,
                  memory_mb: int = 2048, fsize_mb: int = 64,
                  access: FileAccess | None = None) -> SandboxResult:
    """Run ``argv`` in ``cwd``; on timeout kill the whole process group (SIGKILL).

    With ``access`` (only where :func:`diagramforge.landlock.abi_version` is positive) the
    process may open only those files: the kernel enforces it for the tool and every
    program or library code it runs.
    """
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, start_new_session=True,
        preexec_fn=_limits(memory_mb, int(timeout_s) + 2, fsize_mb, access),
    )
    try:
        out, _ = proc.communicate(timeout=timeout_s)
        timed_out = False
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        timed_out = True
    rc = proc.returncode
    return SandboxResult(
        returncode=rc, stdout=out.decode("utf-8", "replace"),
        seconds=time.perf_counter() - t0, timed_out=timed_out,
        killed_by=-rc if rc is not None and rc < 0 else None,
    )
