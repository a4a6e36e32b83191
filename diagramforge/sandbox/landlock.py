"""Landlock: confine a sandboxed tool to the files it needs, enforced by the kernel.

TeX's own ``openin_any=p`` guards only the files TeX itself opens. Other doors stay open:
``\\pdfobj file{/etc/passwd}`` (pdfTeX, LuaTeX) and ``\\special{pdf:fstream}`` (xdvipdfmx)
copy any file into the PDF, XeTeX and LuaTeX's ``img`` library embed any image by absolute
path, and LuaTeX's Lua ``io`` ignores ``openin_any`` altogether. Landlock (Linux ≥ 5.13,
no privileges, no namespaces) closes all of them at once: the process and its children may
read only the trees listed, write only in the job directory, connect nowhere over TCP and
signal no process outside their own domain.

Where the kernel has no Landlock (older kernels, seccomp profiles that refuse the syscalls)
:func:`abi_version` is 0 and callers run without it; the TeX-level guards still apply.

The PyPI package ``landlock`` (1.0.0.dev, alpha) handles neither network rules nor scopes,
so the three syscalls are called here directly.
"""

from __future__ import annotations

import ctypes
import functools
import os
from dataclasses import dataclass

_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446  # x86_64 and aarch64 alike
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38

EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_FILE_ONLY = EXECUTE | WRITE_FILE | READ_FILE | (1 << 14) | (1 << 15)  # + truncate, ioctl
_NET_BIND_TCP, _NET_CONNECT_TCP = 1 << 0, 1 << 1
_SCOPE_ABSTRACT_UNIX_SOCKET, _SCOPE_SIGNAL = 1 << 0, 1 << 1


def _fs_rights(abi: int) -> int:
    """Every filesystem right this ABI knows (all of them are handled, i.e. denied unless a
    rule grants them)."""
    bits = (1 << 13) - 1  # execute … make_sym
    if abi >= 2:
        bits |= 1 << 13  # refer
    if abi >= 3:
        bits |= 1 << 14  # truncate
    if abi >= 5:
        bits |= 1 << 15  # ioctl_dev
    return bits


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("fs", ctypes.c_uint64), ("net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


@functools.cache
def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


@functools.cache
def abi_version() -> int:
    """Landlock ABI of the running kernel; 0 when Landlock is unavailable."""
    if not hasattr(os, "uname") or os.uname().sysname != "Linux":
        return 0
    try:
        v = _libc().syscall(_CREATE_RULESET, None, 0, _CREATE_RULESET_VERSION)
    except (OSError, AttributeError):
        return 0
    return max(int(v), 0)


@dataclass(frozen=True)
class FileAccess:
    """What a confined process may touch: read (and list), read and execute, or do
    anything in (create, write, remove). Paths that do not exist are skipped."""

    read: tuple[str, ...] = ()
    execute: tuple[str, ...] = ()
    write: tuple[str, ...] = ()


def _syscall(*args: object) -> int:
    r = _libc().syscall(*args)
    if r < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"landlock: {os.strerror(err)}")
    return r


def restrict_self(access: FileAccess) -> None:
    """Confine the calling process (and everything it executes) to ``access``.

    Meant for a child between fork and exec (``preexec_fn``); irreversible.
    """
    abi = abi_version()
    if abi < 1:
        raise OSError("landlock unavailable")
    fs = _fs_rights(abi)
    attr = _RulesetAttr(fs, (_NET_BIND_TCP | _NET_CONNECT_TCP) if abi >= 4 else 0,
                        (_SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL) if abi >= 6 else 0)
    size = ctypes.sizeof(_RulesetAttr) if abi >= 6 else (16 if abi >= 4 else 8)
    ruleset = _syscall(_CREATE_RULESET, ctypes.byref(attr), size, 0)
    try:
        grants = [(p, READ_FILE | READ_DIR) for p in access.read]
        grants += [(p, READ_FILE | READ_DIR | EXECUTE) for p in access.execute]
        grants += [(p, fs & ~EXECUTE) for p in access.write]
        for path, rights in grants:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue  # a tree this machine does not have
            try:
                if not os.path.isdir(path):
                    rights &= _FILE_ONLY
                rule = _PathBeneath(rights & fs, fd)
                _syscall(_ADD_RULE, ruleset, _RULE_PATH_BENEATH, ctypes.byref(rule), 0)
            finally:
                os.close(fd)
        if _libc().prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
        _syscall(_RESTRICT_SELF, ruleset, 0)
    finally:
        os.close(ruleset)
