"""Facts of the machine kept out of ``data/``: temp paths, HOME, the checkout's path, host names
and process ids.

A rejection's detail is usually a tool's own message, and tools name where they ran: TeX's
``mkdir: cannot create directory '/tmp/mt12121.tmp'`` carries a process id, Chromium's errors
the profile directory, a failed ``dot`` its temp dir. Written as they are, the ledger hashes
differently on every run and every machine, and ``dvc.lock`` stops being a function of the
repository. :func:`scrub` rewrites such facts into fixed placeholders before a row is written;
what the message *says* (which file, which error) is kept.
"""

from __future__ import annotations

import functools
import os
import re
import socket
import tempfile
from pathlib import Path

# an absolute path starts a token: not inside a relative path (``../../tmp/x`` is an input's
# own text) and not inside a word or XML (``</root>``)
_START = r"(?<![\w./~<-])"
_TEMP_ROOTS = ("/tmp", "/var/tmp", "/dev/shm")
_PID = re.compile(r"\b(pid|process)([ =:#]+)\d+\b", re.I)
_TEMP_NAME = re.compile(r"\bmt\d+\.tmp\b")  # kpathsea's mktex scripts: $TMPDIR/mt$$.tmp


def _prefixes() -> list[tuple[str, str]]:
    """(path, placeholder) pairs, longest path first, so the checkout under /tmp becomes
    ``.`` and not ``<tmp>/…``."""
    pairs: list[tuple[str, str]] = []
    cwd = os.getcwd()
    for p in {cwd, os.path.realpath(cwd)}:
        if p != "/":
            pairs.append((p, "."))
    home = os.environ.get("HOME") or str(Path.home())
    for p in {home, os.path.realpath(home)}:
        if p not in ("", "/"):
            pairs.append((p, "~"))
    temps = {*_TEMP_ROOTS, tempfile.gettempdir(), os.environ.get("TMPDIR", "")}
    for t in filter(None, temps):
        for p in {t.rstrip("/"), os.path.realpath(t)}:
            if p and p != "/":
                pairs.append((p + "/", "<tmp>/"))
    return sorted(set(pairs), key=lambda kv: -len(kv[0]))


@functools.lru_cache(maxsize=8)
def _compiled(key: tuple[str, ...]) -> tuple[re.Pattern[str], dict[str, str], re.Pattern | None]:
    pairs = _prefixes()
    table = dict(pairs)
    alternation = "|".join(re.escape(p) for p, _ in pairs)
    paths = re.compile(_START + f"({alternation})" + r"([^\s'\"`’‘)>\]]*)")
    host = socket.gethostname()
    hostre = re.compile(rf"\b{re.escape(host)}\b") if len(host) >= 4 else None
    return paths, table, hostre


def _replace_path(table: dict[str, str], m: re.Match[str]) -> str:
    prefix, rest = m.group(1), m.group(2)
    place = table[prefix]
    if place == "<tmp>/":
        # the first component under a temp root is a random or per-process name
        # (mt12121.tmp, dftex-k3j9x, tmpab12cd): only what lies below it is the input's
        _, _, below = rest.partition("/")
        return "<tmp>" + ("/" + below if below else "")
    if place == ".":
        return rest.lstrip("/") or "."
    return "~" + rest


def scrub(text: str) -> str:
    """``text`` with this machine's temp paths, HOME, checkout path, host name and process
    ids replaced by ``<tmp>``, ``~``, relative paths, ``<host>`` and ``<pid>``."""
    if not text:
        return text
    key = (os.getcwd(), os.environ.get("HOME", ""), os.environ.get("TMPDIR", ""))
    paths, table, hostre = _compiled(key)
    out = paths.sub(lambda m: _replace_path(table, m), text)
    out = _TEMP_NAME.sub("<tmp>", out)
    out = _PID.sub(lambda m: f"{m.group(1)}{m.group(2)}<pid>", out)
    if hostre is not None:
        out = hostre.sub("<host>", out)
    return out
