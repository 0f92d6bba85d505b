"""Landlock through ``ctypes``: the kernel calls behind the process sandbox (Linux only, stdlib only).

Why ``ctypes`` and no library: the rules must be applied in the forked
child between ``fork`` and ``exec`` (a ``preexec_fn``) -- no shell, no extra
process -- so what runs there has to be a couple of plain system calls.  The
PyPI candidates are a pre-release (``landlock`` 1.0.0.dev5) or new 0.x
projects (``landlockpy``, ``py-landlock``, ``sandlock``), and none documents
preparing a ruleset in the parent for a ``preexec_fn``.  The ABI is small and
stable (three syscalls with unified numbers on every architecture), so
owning these ~150 lines is cheaper than a dependency.

This module imports nothing from the package: :mod:`sandbox_exec` loads it
in a ``python -I -S`` launcher for the stdio MCP servers, which anyio starts
without a ``preexec_fn``.

Design: the ruleset is built in the *parent* (paths opened ``O_PATH``, rules
added, errors raised there with the path named); the child only calls
``prctl(PR_SET_NO_NEW_PRIVS)`` and ``landlock_restrict_self`` on the
inherited close-on-exec ruleset descriptor.  That keeps the per-spawn cost
in the child to two system calls.
"""

from __future__ import annotations

import ctypes
import os
import stat
import sys
from collections.abc import Callable, Iterable

# Unified syscall numbers (the same on x86_64, aarch64, riscv64, ...).
_SYS_CREATE_RULESET = 444
_SYS_ADD_RULE = 445
_SYS_RESTRICT_SELF = 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38

FS_EXECUTE = 1 << 0
FS_WRITE_FILE = 1 << 1
FS_READ_FILE = 1 << 2
FS_READ_DIR = 1 << 3
FS_REMOVE_DIR = 1 << 4
FS_REMOVE_FILE = 1 << 5
FS_MAKE_CHAR = 1 << 6
FS_MAKE_DIR = 1 << 7
FS_MAKE_REG = 1 << 8
FS_MAKE_SOCK = 1 << 9
FS_MAKE_FIFO = 1 << 10
FS_MAKE_BLOCK = 1 << 11
FS_MAKE_SYM = 1 << 12
FS_REFER = 1 << 13  # ABI 2
FS_TRUNCATE = 1 << 14  # ABI 3
FS_IOCTL_DEV = 1 << 15  # ABI 5

NET_BIND_TCP = 1 << 0  # ABI 4
NET_CONNECT_TCP = 1 << 1  # ABI 4

SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0  # ABI 6
SCOPE_SIGNAL = 1 << 1  # ABI 6

FILE_RIGHTS = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV
READ_RIGHTS = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1  # __attribute__((packed)) in the uapi header
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _load_libc() -> tuple[Callable[..., int], Callable[..., int]] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        syscall: Callable[..., int] = libc.syscall
        prctl: Callable[..., int] = libc.prctl
    except (OSError, AttributeError):
        return None
    return syscall, prctl


_LIBC = _load_libc()


def _fail(what: str) -> OSError:
    err = ctypes.get_errno()
    return OSError(err, f"landlock {what}: {os.strerror(err)}")


def abi_version() -> int:
    """The kernel's Landlock ABI (0: none -- not Linux, not built in, or disabled at boot)."""
    if _LIBC is None:
        return 0
    syscall, _ = _LIBC
    version = syscall(
        ctypes.c_long(_SYS_CREATE_RULESET), None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION)
    )
    return max(version, 0)


def handled_fs(abi: int) -> int:
    """Every filesystem right this ABI knows (all handled: what no rule grants is denied)."""
    rights = (1 << 13) - 1
    if abi >= 2:
        rights |= FS_REFER
    if abi >= 3:
        rights |= FS_TRUNCATE
    if abi >= 5:
        rights |= FS_IOCTL_DEV
    return rights


def create_ruleset(abi: int, *, net: int, scoped: int) -> int:
    """A new ruleset descriptor (close-on-exec) handling every FS right of ``abi``, ``net`` and ``scoped``."""
    if _LIBC is None:
        raise OSError(0, "landlock: not available on this system")
    syscall, _ = _LIBC
    attr = _RulesetAttr(handled_fs(abi), net if abi >= 4 else 0, scoped if abi >= 6 else 0)
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8
    fd = syscall(
        ctypes.c_long(_SYS_CREATE_RULESET), ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0)
    )
    if fd < 0:
        raise _fail("create_ruleset")
    return int(fd)


def allow_path(ruleset: int, path: str, access: int) -> None:
    """Grant ``access`` beneath ``path`` (a file gets only the file rights)."""
    assert _LIBC is not None
    syscall, _ = _LIBC
    fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    try:
        if not stat.S_ISDIR(os.fstat(fd).st_mode):
            access &= FILE_RIGHTS
        rule = _PathBeneathAttr(access, fd)
        if (
            syscall(
                ctypes.c_long(_SYS_ADD_RULE),
                ctypes.c_int(ruleset),
                ctypes.c_int(_RULE_PATH_BENEATH),
                ctypes.byref(rule),
                ctypes.c_uint32(0),
            )
            != 0
        ):
            raise _fail(f"add_rule ({path})")
    finally:
        os.close(fd)


def build_ruleset(abi: int, rules: Iterable[tuple[str, int]], *, net: int, scoped: int) -> int:
    """Create a ruleset and add ``(path, access)`` rules; access is masked to what ``abi`` handles."""
    ruleset = create_ruleset(abi, net=net, scoped=scoped)
    mask = handled_fs(abi)
    try:
        for path, access in rules:
            allow_path(ruleset, path, access & mask)
    except BaseException:
        os.close(ruleset)
        raise
    return ruleset


def restricter(ruleset: int) -> Callable[[], None]:
    """What the child runs: no new privileges, then enforce ``ruleset``; raises (the spawn fails) on error."""
    assert _LIBC is not None
    syscall, prctl = _LIBC

    def restrict() -> None:
        if (
            prctl(
                ctypes.c_int(_PR_SET_NO_NEW_PRIVS),
                ctypes.c_ulong(1),
                ctypes.c_ulong(0),
                ctypes.c_ulong(0),
                ctypes.c_ulong(0),
            )
            != 0
        ):
            raise _fail("no_new_privs")
        if syscall(ctypes.c_long(_SYS_RESTRICT_SELF), ctypes.c_int(ruleset), ctypes.c_uint32(0)) != 0:
            raise _fail("restrict_self")

    return restrict
