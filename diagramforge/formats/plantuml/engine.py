"""Run PlantUML itself (Debian's ``plantuml.jar`` on a headless JRE), offline and sandboxed,
several diagrams per JVM.

A JVM's start is most of a small diagram's cost, so a batch of diagrams is drawn in one
``java`` process by the driver (``driver.py``: PlantUML's API, its own safe mode on).  The
process runs in :func:`~diagramforge.sandbox.run_sandboxed` — an empty job directory,
rlimits, CPU-second budgets with a process-group kill — under Landlock: it may read the
system's programs and libraries (``/usr``, the JVM's configuration in ``/etc``), write only
its job directory, connect nowhere over TCP (no ``!includeurl``, no PlantUML server, no
update check).  Each diagram has its own CPU budget (the driver prints a mark as each one
starts): an endless diagram is killed alone, named by the last mark, and the rest of the
batch is drawn again in a new JVM.  PlantUML lays out class, component, state and use-case
diagrams with Graphviz's ``dot``, run as a child inside the same walls.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from diagramforge.formats.plantuml import driver
from diagramforge.sandbox.landlock import FileAccess, abi_version
from diagramforge.sandbox.process import run_sandboxed, timeout_detail
from diagramforge.store.records import Refusal

JAR = "/usr/share/plantuml/plantuml.jar"
"""Debian's ``plantuml`` package puts the jar here (its ``Class-Path`` names Batik and FOP
in ``/usr/share/java``)."""


class PumlReason(StrEnum):
    NO_BLOCKS = "plantuml_no_blocks"
    NOT_TEXT = "plantuml_not_text"
    TOO_LARGE = "plantuml_too_large"
    UNSAFE = "plantuml_unsafe"
    MALFORMED = "plantuml_malformed"
    TIMEOUT = "plantuml_timeout"
    FAILED = "plantuml_render_failed"
    NOT_INSTALLED = "plantuml_not_installed"


class PumlError(Refusal):
    """Refused with a :class:`PumlReason`."""


JVM_FLAGS = (
    "-Djava.awt.headless=true",
    "-Djava.net.useSystemProxies=false",
    "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData",
    "-XX:CompressedClassSpaceSize=64m", "-XX:ReservedCodeCacheSize=64m",
    "-XX:MaxMetaspaceSize=192m", "-Xss2m",
    "-Duser.language=en", "-Duser.country=US", "-Dfile.encoding=UTF-8",
)
"""Headless; a small, fixed address space (the sandbox's ``RLIMIT_AS`` counts what the
JVM reserves, not what it uses, so every reservation is bounded); C1 only and serial GC (a
short run: start-up, not peak speed, is the cost); one locale, so the engine's words
(``Syntax Error?``) are the same everywhere."""


@functools.cache
def find_java() -> str | None:
    java = shutil.which("java")
    return java if java and os.path.exists(JAR) else None


@functools.cache
def versions() -> dict[str, str]:
    """The tools a drawing depends on, as PlantUML reports them (``-version``): PlantUML,
    the Java runtime and Graphviz (its layout engine for class, component, state and
    use-case diagrams).  Nothing of the machine (its name, memory) is kept."""
    java = find_java()
    if java is None:
        return {"plantuml": "missing"}
    out = subprocess.run([java, "-Djava.awt.headless=true", "-jar", JAR, "-version"],
                         capture_output=True, text=True, timeout=60).stdout
    keys = {"plantuml": r"PlantUML version (\S+)", "java": r"Java Version: (\S+)",
            "graphviz": r"Dot version: .*?version (\S+)"}
    found = {k: re.search(p, out) for k, p in keys.items()}
    return {k: m.group(1) if m else "unknown" for k, m in found.items()}


def _read_roots() -> tuple[str, ...]:
    """What the JVM and PlantUML read: programs, libraries, fonts (``/usr``), the JVM's
    configuration and the system's font configuration (``/etc``), the few ``/proc`` and
    ``/sys`` files the JVM sizes itself from."""
    java = find_java() or "/usr/bin/java"
    roots = ["/usr", "/lib", "/lib64", "/bin", "/etc/java-17-openjdk",
             os.path.dirname(os.path.dirname(os.path.realpath(java))),
             "/etc/fonts", "/etc/alternatives", "/etc/ld.so.cache", "/etc/localtime",
             "/etc/nsswitch.conf", "/etc/passwd", "/var/cache/fontconfig",
             "/proc/self", "/proc/cpuinfo", "/proc/meminfo", "/sys/fs/cgroup",
             "/sys/devices/system/cpu", "/dev/null", "/dev/zero", "/dev/urandom",
             "/dev/random"]
    out: list[str] = []
    for r in roots:
        for p in (r, os.path.realpath(r)):
            if p not in out and os.path.exists(p):
                out.append(p)
    return tuple(out)


def _access(job: Path) -> FileAccess | None:
    if abi_version() < 1:
        return None
    return FileAccess(read=_read_roots(), execute=("/usr", "/bin", "/lib", "/lib64"),
                      write=(str(job), "/dev/null"))


def sandbox_level() -> str:
    abi = abi_version()
    return f"landlock-abi{abi}+ALLOW_INCLUDE=false" if abi else "ALLOW_INCLUDE=false"


@dataclass
class Drawn:
    """One diagram as PlantUML drew it: its SVG and its own type, or why not."""

    svg: str = ""
    kind: str = ""
    """PlantUML's ``UmlDiagramType`` (``CLASS``, ``SEQUENCE``, ``STATE``, ``ACTIVITY``,
    ``DESCRIPTION`` for component/use-case/deployment…) or a non-UML diagram's class."""
    images: int = 0
    error: PumlError | None = None
    model: dict | None = None
    """PlantUML's own model (``driver.py``): ``nodes``/``groups``/``links`` or
    ``participants``/``messages``; empty for kinds it has none for (``ACTIVITY`` of the new
    syntax, mind maps…)."""


def _env(job: Path) -> dict[str, str]:
    return {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": str(job),
            "TMPDIR": str(job / "tmp"),
            # glibc's per-thread malloc arenas reserve 64 MB each: under RLIMIT_AS a JVM's
            # dozen threads would exhaust the address space before the heap is touched
            "MALLOC_ARENA_MAX": "2",
            # no GRAPHVIZ_DOT: PlantUML runs Debian's Graphviz from /usr/bin, as installed
            "PLANTUML_LIMIT_SIZE": "4096"}


START_S = 5.0
"""CPU seconds allowed for a JVM's start and the driver's compilation, on top of the first
diagram's own budget (both happen before its start mark)."""
_MARK = re.compile(r"^@@DF-(START|DONE) (.*)$", re.M)


def _run(job: Path, names: list[str], timeout_s: float, memory_mb: int
         ) -> tuple[dict[str, dict], str | None, str]:
    """One JVM over ``names``: their answers, the name being drawn when it was killed (or
    ``None``), and its output for a failed run."""
    (job / "list.txt").write_text("\n".join(names) + "\n", "utf-8")
    java = find_java()
    assert java is not None
    argv = [java, *JVM_FLAGS, f"-Xmx{max(64, memory_mb // 3)}m",
            f"-Djava.io.tmpdir={job / 'tmp'}", "-cp", JAR, str(job / "DfPlantUML.java"), str(job)]
    # each diagram's budget runs from its start mark; the first one's also pays for the
    # JVM's start and the driver's compilation (~1.5 CPU-s: START_S allows for it)
    budget, step = timeout_s * len(names) + START_S, timeout_s + START_S
    res = run_sandboxed(argv, job, _env(job), budget, memory_mb=memory_mb, fsize_mb=64,
                        access=_access(job), step=(driver.START.encode(), step))
    done: dict[str, dict] = {}
    current = None
    for kind, rest in _MARK.findall(res.stdout):
        if kind == "START":
            current = rest.strip()
        else:
            try:
                ans = json.loads(rest)
            except json.JSONDecodeError:
                continue
            done[ans["name"]] = ans
            current = None
    killed = current if res.timed_out or res.returncode != 0 else None
    detail = timeout_detail(res, budget, step) \
        if res.timed_out else f"exit {res.returncode}: {res.stdout[-300:]}"
    return done, killed, detail


def draw_many(codes: list[str], timeout_s: float = 20.0, memory_mb: int = 1536
              ) -> list[Drawn]:
    """Each diagram drawn by PlantUML (SVG), in as few JVMs as the batch's failures allow:
    a diagram that is killed (its own CPU budget) is ledgered and the rest drawn again."""
    if find_java() is None:
        err = PumlError(PumlReason.NOT_INSTALLED, "java or plantuml.jar missing (./dev setup)")
        return [Drawn(error=err) for _ in codes]
    results: dict[int, Drawn] = {}
    with tempfile.TemporaryDirectory(prefix="df-puml-") as tmp:
        job = Path(tmp)
        for sub in ("in", "out", "tmp"):
            (job / sub).mkdir()
        (job / "DfPlantUML.java").write_text(driver.SOURCE, "utf-8")
        for k, code in enumerate(codes):
            (job / "in" / f"{k}.puml").write_text(code, "utf-8")
        todo = list(range(len(codes)))
        while todo:
            done, killed, detail = _run(job, [str(k) for k in todo], timeout_s, memory_mb)
            for k in todo:
                ans = done.get(str(k))
                if ans is not None:
                    results[k] = _drawn(ans, job / "out" / f"{k}.svg")
            if killed is not None and killed.isdigit() and int(killed) in todo:
                reason = PumlReason.TIMEOUT if "killed" in detail else PumlReason.FAILED
                results[int(killed)] = Drawn(error=PumlError(reason, "plantuml " + detail))
            left = [k for k in todo if k not in results]
            if left and len(left) == len(todo):  # no progress: the JVM itself failed
                for k in left:
                    results[k] = Drawn(error=PumlError(PumlReason.FAILED, detail[:300]))
                left = []
            todo = left
    return [results[k] for k in range(len(codes))]


def _drawn(ans: dict, svg_path: Path) -> Drawn:
    if ans.get("error"):
        where = f" (line {ans['line'] + 1})" if ans.get("line", -1) >= 0 else ""
        msg = str(ans["error"])
        reason = PumlReason.FAILED if msg.startswith("engine:") else PumlReason.MALFORMED
        return Drawn(error=PumlError(reason, f"{msg}{where}"[:300]))
    if not svg_path.exists() or svg_path.stat().st_size == 0:
        return Drawn(error=PumlError(PumlReason.FAILED, "no SVG written"))
    model_path = svg_path.with_suffix(".json")
    try:
        model = json.loads(model_path.read_text("utf-8")) if model_path.exists() else None
    except json.JSONDecodeError:
        model = None
    return Drawn(svg=svg_path.read_text("utf-8", "replace"), kind=str(ans.get("type") or ""),
                 images=int(ans.get("images") or 0), model=model)
