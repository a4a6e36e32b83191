"""Run PlantUML itself (Debian's ``plantuml.jar`` on a headless JRE), offline and sandboxed,
several diagrams per JVM.

A JVM's start is most of a small diagram's cost, so a batch of diagrams is drawn in one
``java`` process by the driver (``driver.py``: PlantUML's API, its own safe mode on),
compiled once per machine rather than by every JVM (:func:`compiled_driver`); a diagram
drawn alone is drawn once per build (:func:`draw_many`).  The
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
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from collections import OrderedDict
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from filelock import FileLock

from diagramforge.formats.plantuml import driver
from diagramforge.sandbox.landlock import FileAccess, abi_version
from diagramforge.sandbox.process import run_sandboxed, timeout_detail
from diagramforge.store.cache import ContentCache, content_key
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


COMPILER = r"""
public class DfCompile {
    public static void main(String[] a) {
        javax.tools.JavaCompiler c = javax.tools.ToolProvider.getSystemJavaCompiler();
        System.exit(c == null ? 2 : c.run(null, null, null, "-proc:none", "-nowarn",
                                          "-encoding", "UTF-8", "-cp", a[0], "-d", a[1], a[2]));
    }
}
"""
"""Compiles the driver with the JDK compiler the source launcher itself uses (a headless
JRE has no ``javac`` command, but ``java Foo.java`` works, so its compiler is there)."""


@functools.cache
def compiled_driver() -> Path | None:
    """The driver's class files, compiled once (a directory named by the hash of the
    driver's source, the ``java`` binary and the jar, under the build's PlantUML cache —
    ``<cache_dir>/driver`` — or, with none, the user's cache ``$XDG_CACHE_HOME/diagramforge``),
    or ``None`` when they cannot be (then each JVM runs the source, as before).  Never a
    shared, predictable temp path: a class file there could be planted by another user and
    would run as ours.

    Why: ``java DfPlantUML.java`` compiles the driver in every JVM it starts — 1.05 CPU-s
    a start against 0.43 for the compiled class (measured here, one sequence diagram) —
    and the edit stage starts a JVM per edit it verifies.  The class is the same program
    (same source, same compiler), so a drawing's bytes do not change; it is built from our
    own source, not from any input, so it is compiled outside the sandbox."""
    java = find_java()
    if java is None:
        return None
    jar = os.stat(JAR)
    key = hashlib.sha256("\0".join([driver.SOURCE, os.path.realpath(java), str(jar.st_size),
                                     str(jar.st_mtime_ns)]).encode()).hexdigest()[:16]
    root = _driver_root()
    out = root / key
    if (out / "DfPlantUML.class").exists():
        return out
    root.mkdir(parents=True, exist_ok=True)
    with FileLock(str(root / f"{key}.lock")):
        if (out / "DfPlantUML.class").exists():
            return out
        with tempfile.TemporaryDirectory(prefix=f".{key}-", dir=root) as tmp:
            src = Path(tmp) / "src"
            src.mkdir()
            (src / "DfPlantUML.java").write_text(driver.SOURCE, "utf-8")
            (src / "DfCompile.java").write_text(COMPILER, "utf-8")
            built = Path(tmp) / "classes"
            built.mkdir()
            try:
                res = subprocess.run([java, "-Djava.awt.headless=true", str(src / "DfCompile.java"),
                                      JAR, str(built), str(src / "DfPlantUML.java")],
                                     capture_output=True, timeout=300)
            except (OSError, subprocess.TimeoutExpired):
                return None
            if res.returncode != 0 or not (built / "DfPlantUML.class").exists():
                return None
            built.rename(out)
    return out


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
    classes = job / "classes"
    if classes.is_dir():  # the driver compiled (:func:`compiled_driver`), else its source
        main = ["-cp", f"{JAR}:{classes}", "DfPlantUML"]
    else:
        main = ["-cp", JAR, str(job / "DfPlantUML.java")]
    argv = [java, *JVM_FLAGS, f"-Xmx{max(64, memory_mb // 3)}m",
            f"-Djava.io.tmpdir={job / 'tmp'}", *main, str(job)]
    # each diagram's budget runs from its start mark; the first one's also pays for the
    # JVM's start (and the driver's compilation in source mode, ~1.5 CPU-s: START_S)
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


_MEMO: OrderedDict[tuple[str, float, int], Drawn] = OrderedDict()
MEMO_SIZE = 1024
"""Drawings of a diagram drawn alone kept per process, the most recently used last."""
_CACHE: ContentCache | None = None


def _driver_root() -> Path:
    """Where the compiled driver is kept: beside the build's drawings, else the user's own
    cache directory (both the user's, unlike ``/tmp``)."""
    if _CACHE is not None:
        return Path(_CACHE.directory or ".") / "driver"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "diagramforge" / "plantuml-driver"


def use_cache(directory: Path | None) -> None:
    """Keep drawings in the content-addressed cache at ``directory`` (``None``: none), for
    every stage of the build and for a rerun: set by the handler from its settings
    (``formats.plantuml.cache_dir``), so the edit module's per-code reads share it."""
    global _CACHE
    _CACHE = ContentCache(directory.resolve(), "plantuml") if directory is not None else None


@functools.cache
def engine_id() -> str:
    """Everything a drawing depends on besides its code and limits: the driver and how the
    JVM runs it, PlantUML's jar (its bytes), the Java runtime (its ``release`` file) and
    Graphviz (``dot -V``), so a cached drawing is reused only by the same engine."""
    java = find_java()
    h = hashlib.sha256()
    for part in (driver.SOURCE, COMPILER, *JVM_FLAGS, *sorted(_env(Path("job")).items())):
        h.update(str(part).encode() + b"\0")
    if java is not None:
        with open(JAR, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
        home = Path(os.path.realpath(java)).parent.parent
        release = home / "release"
        h.update(os.path.realpath(java).encode())
        h.update(release.read_bytes() if release.exists() else b"")
        dot = shutil.which("dot")
        if dot:
            ran = subprocess.run([dot, "-V"], capture_output=True, timeout=60)
            h.update(ran.stdout + ran.stderr)
    return h.hexdigest()


_KEPT = frozenset({PumlReason.MALFORMED, PumlReason.TIMEOUT})
"""Failures a cache keeps: the code's own (a syntax error) and the CPU budget's verdict
(the limits are in the key, as TeX's cache keeps a timeout only for the same limits); a
JVM that failed for another reason may fail for the machine's, and is tried again."""


def _cached(key: str) -> Drawn | None:
    if _CACHE is None:
        return None
    hit = _CACHE.get(key)
    if not isinstance(hit, dict):
        return None
    err = hit.get("error")
    return Drawn(svg=hit["svg"], kind=hit["kind"], images=hit["images"], model=hit["model"],
                 error=PumlError(*err) if err else None)


def _keep(key: str, d: Drawn) -> None:
    if _CACHE is None or (d.error is not None and d.error.reason not in _KEPT):
        return
    _CACHE.put(key, {"svg": d.svg, "kind": d.kind, "images": d.images, "model": d.model,
                     "error": [str(d.error.reason), d.error.detail] if d.error else None})


def draw_many(codes: list[str], timeout_s: float = 20.0, memory_mb: int = 1536
              ) -> list[Drawn]:
    """Each diagram drawn by PlantUML (SVG), in as few JVMs as the batch's failures allow:
    a diagram that is killed (its own CPU budget) is ledgered and the rest drawn again.

    A batch is drawn as given, every time, and not looked up.  PlantUML numbers some of
    its model's entities with a counter global to the JVM (a concurrent state's regions are
    ``CONC<n>``); the driver sets it back before each diagram, so a diagram's drawing does
    not depend on what its JVM drew before (a test draws one twice in a batch).  One
    diagram alone is drawn in a JVM of its own, so its drawing is a function of its code,
    the limits and the engine (:func:`engine_id`): that drawing is kept, in this process
    (the edit stage reads a step's graph then checks it; the twin stage draws a twin then
    exports its SVG) and in the cache of :func:`use_cache` (edit, twin and synth read the same code
    again; a rerun; the second clone of ``tests/test_reproducible.py``, whose byte
    identity with the first checks it), and a diagram asked for alone again is not
    redrawn — a JVM start costs ~0.45 CPU-s, and the edit stage starts one per edit it
    verifies.  A verdict of the CPU budget (a timeout) is the same under the same
    limits."""
    if find_java() is None:
        err = PumlError(PumlReason.NOT_INSTALLED, "java or plantuml.jar missing (./dev setup)")
        return [Drawn(error=err) for _ in codes]
    if len(codes) != 1:
        return _draw_fresh(codes, timeout_s, memory_mb)
    key = (codes[0], float(timeout_s), int(memory_mb))
    disk = _disk_key(key) if _CACHE is not None else ""
    d = _MEMO.get(key) or (_cached(disk) if disk else None)
    if d is None:
        d = _draw_fresh(codes, timeout_s, memory_mb)[0]
        if d.error is not None and d.error.reason not in _KEPT:
            return [d]  # kept nowhere: the next ask draws it again
        if disk:
            _keep(disk, d)
    _MEMO[key] = d
    _MEMO.move_to_end(key)
    while len(_MEMO) > MEMO_SIZE:
        _MEMO.popitem(last=False)
    return [d]


def _disk_key(key: tuple[str, float, int]) -> str:
    return content_key("plantuml", engine_id(), *key)


def _draw_fresh(codes: list[str], timeout_s: float, memory_mb: int) -> list[Drawn]:
    results: dict[int, Drawn] = {}
    with tempfile.TemporaryDirectory(prefix="df-puml-") as tmp:
        job = Path(tmp)
        for sub in ("in", "out", "tmp"):
            (job / sub).mkdir()
        (job / "DfPlantUML.java").write_text(driver.SOURCE, "utf-8")
        classes = compiled_driver()
        if classes is not None:  # in the job directory: all the sandbox lets the JVM read
            shutil.copytree(classes, job / "classes")
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
