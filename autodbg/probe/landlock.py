"""Kernel path rules (Landlock, Linux >= 5.13) for a whole program run: writes of any kind only
beneath the folders it is given, reads everywhere; from ABI 6 (Linux >= 6.12) also no signal to a
process outside the run and no abstract unix socket outside it. Irreversible, inherited.

Through the raw system calls (ctypes): glibc has no wrappers. Their numbers are the same on
every architecture.
"""

from __future__ import annotations

import os
import struct

from autodbg.probe import native

_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38

_EXECUTE, _WRITE_FILE, _TRUNCATE, _IOCTL_DEV = 1 << 0, 1 << 1, 1 << 14, 1 << 15
# Every right that changes the file system, by the ABI that added it.
_WRITES_BY_ABI = {
    1: _EXECUTE | _WRITE_FILE | sum(1 << bit for bit in range(4, 13)),  # remove, make dir/reg/sock/fifo/char/block/sym
    2: 1 << 13,  # REFER: link or rename a file into another folder
    3: _TRUNCATE,
    5: _IOCTL_DEV,
}
_FILE_RIGHTS = _WRITE_FILE | _TRUNCATE | _IOCTL_DEV  # those a rule on a single file may grant
_NET_BIND_CONNECT_TCP = 3  # ABI 4
_SCOPE_ABSTRACT_UNIX_SOCKET, _SCOPE_SIGNAL = 1, 2  # ABI 6
_WRITABLE_DEVICES = ("/dev/null",)


def abi() -> int | str:
    """The Landlock ABI version this kernel gives, or why there is none."""
    if native.libc() is None:
        return "no ctypes here"
    import ctypes
    version = native.libc().syscall(_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION))
    if version < 0:
        return f"no Landlock in this kernel ({os.strerror(ctypes.get_errno())})"
    return version


def restrict(writable: tuple[str, ...]) -> str:
    """Confine this process: it may change the file system only beneath WRITABLE (and write
    /dev/null); the one-line detail. OSError where the kernel cannot."""
    import ctypes
    version = abi()
    if isinstance(version, str):
        raise OSError(version)
    writes = sum(rights for added, rights in _WRITES_BY_ABI.items() if version >= added)
    net = _NET_BIND_CONNECT_TCP if version >= 4 else 0
    scoped = _SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL if version >= 6 else 0
    attr = struct.pack("QQQ", writes, net, scoped)
    size = 8 if version < 4 else 16 if version < 6 else 24
    libc = native.libc()
    ruleset = libc.syscall(_CREATE_RULESET, attr, ctypes.c_size_t(size), ctypes.c_uint32(0))
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), f"landlock_create_ruleset: {os.strerror(ctypes.get_errno())}")
    try:
        for path in (*writable, *_WRITABLE_DEVICES):
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            try:
                allowed = writes & ~_EXECUTE if os.path.isdir(path) else writes & _FILE_RIGHTS
                rule = struct.pack("=Qi", allowed, fd)
                if libc.syscall(_ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(_RULE_PATH_BENEATH), rule,
                                ctypes.c_uint32(0)) != 0:
                    raise OSError(ctypes.get_errno(), f"landlock_add_rule {path}: {os.strerror(ctypes.get_errno())}")
            finally:
                os.close(fd)
        native.call("prctl", _PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        if libc.syscall(_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0)) != 0:
            raise OSError(ctypes.get_errno(), f"landlock_restrict_self: {os.strerror(ctypes.get_errno())}")
    finally:
        os.close(ruleset)
    scopes = "; no signal or abstract unix socket out of the run" if scoped else ""
    return f"Landlock ABI {version}: writes only in the run's folders, no TCP{scopes}"
