"""requirements.lock: the Python packages `./dev` installs, the same on every machine.

The lock must cover pyproject.toml (a dependency added without `./dev lock` fails here, not
on a fresh clone), pin every package exactly with its hashes (pip's --require-hashes mode),
hold torch's CPU build and no CUDA packages, and describe the environment the tests run in.
"""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import PackageNotFoundError, version

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from tests.conftest import REPO

_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)")


def _lock() -> dict[str, tuple[str, list[str]]]:
    """name → (version, hashes) from requirements.lock."""
    out: dict[str, tuple[str, list[str]]] = {}
    current = None
    for line in (REPO / "requirements.lock").read_text().splitlines():
        m = _PIN.match(line)
        if m:
            current = canonicalize_name(m.group(1))
            out[current] = (m.group(2), [])
        elif current and line.strip().startswith("--hash=sha256:"):
            out[current][1].append(line.strip().removeprefix("--hash=").rstrip(" \\"))
        elif line and not line.startswith(" ") and not line.startswith("#"):
            pytest.fail(f"requirements.lock: unexpected line {line!r} (only exact pins)")
    return out


def _declared() -> list[Requirement]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    reqs = project["dependencies"] + project["optional-dependencies"]["dev"]
    tools = [x.split("#")[0].strip() for x in
             (REPO / "requirements-tools.in").read_text().splitlines()]
    return [Requirement(r) for r in reqs + [t for t in tools if t]]


def test_every_declared_dependency_is_pinned_within_its_range():
    lock = _lock()
    for req in _declared():
        name = canonicalize_name(req.name)
        assert name in lock, f"{req} is not in requirements.lock: run ./dev lock"
        pinned = Version(lock[name][0])
        assert req.specifier.contains(pinned, prereleases=True), \
            f"{req}: the lock pins {pinned}; run ./dev lock"


def test_every_pin_is_exact_and_hashed():
    lock = _lock()
    assert len(lock) > 100
    unhashed = [n for n, (_, hashes) in lock.items() if not hashes]
    assert not unhashed, f"pins without hashes: {unhashed}"
    assert all(len(h) == len("sha256:") + 64 for _, hs in lock.values() for h in hs)


def test_torch_is_the_cpu_build_and_nothing_pulls_cuda():
    lock = _lock()
    assert lock["torch"][0].endswith("+cpu"), lock["torch"]
    cuda = [n for n in lock if n.startswith(("nvidia-", "cuda-")) or n == "triton"]
    assert not cuda, f"CUDA packages in the lock: {cuda}"


def test_the_environment_is_the_locked_one():
    """What the tests import is what every other machine installs (a no-op resolve of the
    lock here); a package upgraded by hand shows up as a difference."""
    differ = {}
    for name, (pinned, _) in _lock().items():
        try:
            got = version(name)
        except PackageNotFoundError:
            got = None
        if got is None or Version(got) != Version(pinned):
            differ[name] = (pinned, got)
    assert not differ, f"installed ≠ locked (locked, installed): {differ}"
