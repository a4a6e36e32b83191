"""Landlock: a confined child reads only what it was given, writes only its directory, and
reaches nothing over TCP; the parent is never confined."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

from diagramforge.sandbox.landlock import FileAccess, abi_version
from diagramforge.sandbox.process import run_sandboxed
from tests.conftest import needs_landlock

pytestmark = needs_landlock

PROBE = r"""
import socket, sys
def attempt(f):
    try:
        f()
        return "ok"
    except OSError as exc:
        return type(exc).__name__
print("read-secret", attempt(lambda: open(sys.argv[1]).read()))
print("read-usr", attempt(lambda: open(sys.executable, "rb").read(16)))
print("write-job", attempt(lambda: open("here.txt", "w").write("x")))
print("write-outside", attempt(lambda: open(sys.argv[2], "w").write("x")))
print("connect", attempt(lambda: socket.create_connection(("127.0.0.1", int(sys.argv[3])), 2)))
"""


def test_a_confined_child_reads_writes_and_connects_only_where_allowed(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("do not read")
    job = tmp_path / "job"
    job.mkdir()
    outside = tmp_path / "outside.txt"
    (job / "probe.py").write_text(PROBE)
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    py = str(Path(sys.executable).resolve())
    access = FileAccess(read=(), execute=("/usr", "/lib", "/lib64", "/bin", "/etc",
                                          str(Path(py).parent.parent), sys.prefix,
                                          sys.base_prefix),
                        write=(str(job),))
    try:
        res = run_sandboxed([py, "probe.py", str(secret), str(outside), str(port)], job,
                            {"PATH": "/usr/bin:/bin"}, timeout_s=60, access=access)
    finally:
        server.close()
    got = dict(line.split() for line in res.stdout.splitlines() if line.strip())
    assert got["read-usr"] == "ok" and got["write-job"] == "ok", res.stdout
    assert got["read-secret"] == "PermissionError"
    assert got["write-outside"] == "PermissionError" and not outside.exists()
    if abi_version() >= 4:  # network rules
        assert got["connect"] == "PermissionError"
    # the parent stays free
    assert secret.read_text() == "do not read"

