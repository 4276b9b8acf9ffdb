"""The system call filter: a seccomp BPF program the kernel runs on every system call of the
probe, so what the audit hook cannot see (C extensions, ctypes functions the program resolved
before the crash, raw memory writes) still cannot write, connect, spawn or signal.

Refused with EPERM: every call that changes the file system (unlink, rename, mkdir, chmod, chown,
utime, mknod, xattrs, truncate...), open/openat with a write, create, truncate or append flag,
openat2 (its flags are out of the filter's reach), connect, bind, sendto with an address, sendmsg,
exec, fork (clone without CLONE_THREAD), signals to any process but the probe itself (kill and
its kin, pidfd_send_signal, and the fcntl/ioctl commands that make the kernel send SIGIO, lease or
directory signals), ptrace and other processes' memory or descriptors, flock, scheduling and I/O
priority (setpriority, sched_set*, ioprio_set: they reach other processes), io_uring (it would do file work past the filter), terminal
input injection (TIOCSTI/TIOCLINUX), raising limits, and machine-wide settings (hostname, clock,
mounts, modules, reboot). clone3 answers ENOSYS, so thread creation falls back to clone.
Only x86_64 for now: the table of system call numbers is per architecture.
"""

from __future__ import annotations

import os
import platform
import struct
import sys

from autodbg.probe import native

# Numbers from <asm/unistd_64.h> (x86_64); the newest ones (>= 424) are the same on every arch.
_X86_64_DENIED = {
    "unlink": 87, "unlinkat": 263, "rename": 82, "renameat": 264, "renameat2": 316, "mkdir": 83,
    "mkdirat": 258, "rmdir": 84, "link": 86, "linkat": 265, "symlink": 88, "symlinkat": 266,
    "chmod": 90, "fchmod": 91, "fchmodat": 268, "fchmodat2": 452, "chown": 92, "fchown": 93,
    "lchown": 94, "fchownat": 260, "truncate": 76, "utime": 132, "utimes": 235, "utimensat": 280,
    "futimesat": 261, "mknod": 133, "mknodat": 259, "setxattr": 188, "lsetxattr": 189,
    "fsetxattr": 190, "removexattr": 197, "lremovexattr": 198, "fremovexattr": 199,
    "setxattrat": 463, "removexattrat": 466, "creat": 85, "openat2": 437, "io_uring_setup": 425,
    "open_by_handle_at": 304, "name_to_handle_at": 303,
    "connect": 42, "bind": 49, "sendmsg": 46, "sendmmsg": 307,
    "execve": 59, "execveat": 322, "fork": 57, "vfork": 58, "ptrace": 101, "process_vm_writev": 311,
    "process_vm_readv": 310, "pidfd_getfd": 438, "pidfd_send_signal": 424, "setns": 308,
    "setrlimit": 160, "sethostname": 170, "setdomainname": 171, "reboot": 169, "swapon": 167,
    "swapoff": 168, "mount": 165, "umount2": 166, "pivot_root": 155, "chroot": 161,
    "init_module": 175, "finit_module": 313, "delete_module": 176, "kexec_load": 246,
    "kexec_file_load": 320, "acct": 163, "settimeofday": 164, "clock_settime": 227,
    "clock_adjtime": 305, "adjtimex": 159, "mount_setattr": 442, "move_mount": 429, "fsopen": 430,
    "fsmount": 432, "open_tree": 428,
    # reach other processes' scheduling, locks and I/O priority
    "flock": 73, "setpriority": 141, "sched_setparam": 142, "sched_setscheduler": 144,
    "sched_setaffinity": 203, "sched_setattr": 314, "ioprio_set": 251, "migrate_pages": 256,
    "move_pages": 279,
}
_X86_64 = {"open": 2, "openat": 257, "clone": 56, "clone3": 435, "kill": 62, "tkill": 200,
           "tgkill": 234, "rt_sigqueueinfo": 129, "rt_tgsigqueueinfo": 297, "sendto": 44,
           "ioctl": 16, "prlimit64": 302, "fcntl": 72}
_AUDIT_ARCH_X86_64 = 0xC000003E
_X32_BIT = 0x40000000  # x32 system calls on x86_64: refuse them all

_LD_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JGE = 0x35
_JSET = 0x45
_RET = 0x06
_ALLOW = 0x7FFF0000
_ERRNO = 0x00050000
_NR, _ARCH = 0, 4
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
_CLONE_THREAD = 0x00010000
_TIOCSTI, _TIOCLINUX = 0x5412, 0x541C
_FIOSETOWN, _SIOCSPGRP = 0x8901, 0x8902  # an owner for SIGIO, as fcntl F_SETOWN sets
# fcntl commands that make the kernel signal a process (SIGIO, lease and directory notices)
_F_SETOWN, _F_SETSIG, _F_SETOWN_EX, _F_SETLEASE, _F_NOTIFY = 8, 10, 15, 1024, 1026
_PR_SET_NO_NEW_PRIVS, _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 38, 22, 2


def _arg(index: int, high: bool = False) -> int:
    return 16 + 8 * index + (4 if high else 0)  # seccomp_data.args[index], little-endian halves


def _op(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("HBBI", code, jt, jf, k & 0xFFFFFFFF)


def _when(number: int, body: list[bytes]) -> list[bytes]:
    """BODY runs only for system call NUMBER; it must leave the number in A again."""
    return [_op(_JEQ, number, 0, len(body)), *body]


def _deny(errno: int = 1) -> bytes:
    return _op(_RET, _ERRNO | errno)


def _deny_if_flags(index: int, mask: int) -> list[bytes]:
    return [_op(_LD_ABS, _arg(index)), _op(_JSET, mask, 0, 1), _deny(), _op(_LD_ABS, _NR)]


def _deny_unless_flags(index: int, mask: int) -> list[bytes]:
    return [_op(_LD_ABS, _arg(index)), _op(_JSET, mask, 1, 0), _deny(), _op(_LD_ABS, _NR)]


def _deny_unless_equal(index: int, value: int) -> list[bytes]:
    return [_op(_LD_ABS, _arg(index)), _op(_JEQ, value, 1, 0), _deny(), _op(_LD_ABS, _NR)]


def _deny_if_equal(index: int, value: int) -> list[bytes]:
    return [_op(_LD_ABS, _arg(index)), _op(_JEQ, value, 0, 1), _deny(), _op(_LD_ABS, _NR)]


def _deny_if_nonzero(index: int) -> list[bytes]:
    return [_op(_LD_ABS, _arg(index)), _op(_JEQ, 0, 0, 2), _op(_LD_ABS, _arg(index, high=True)),
            _op(_JEQ, 0, 1, 0), _deny(), _op(_LD_ABS, _NR)]


def program(own_pid: int) -> bytes:
    """The filter for a probe whose pid (and only thread's id) is OWN_PID."""
    nr = _X86_64
    code = [_op(_LD_ABS, _ARCH), _op(_JEQ, _AUDIT_ARCH_X86_64, 1, 0), _deny(),
            _op(_LD_ABS, _NR), _op(_JGE, _X32_BIT, 0, 1), _deny()]
    for number in _X86_64_DENIED.values():
        code += [_op(_JEQ, number, 0, 1), _deny()]
    code += _when(nr["clone3"], [_deny(38)])  # ENOSYS: glibc then uses clone, filtered below
    code += _when(nr["open"], _deny_if_flags(1, _WRITE_FLAGS))
    code += _when(nr["openat"], _deny_if_flags(2, _WRITE_FLAGS))
    code += _when(nr["clone"], _deny_unless_flags(0, _CLONE_THREAD))
    for name in ("kill", "tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo"):
        code += _when(nr[name], _deny_unless_equal(0, own_pid))
    code += _when(nr["sendto"], _deny_if_nonzero(4))  # an address: not a connected socket
    code += _when(nr["prlimit64"], _deny_if_nonzero(2))  # a new limit: reading stays allowed
    code += _when(nr["ioctl"], [op for request in (_TIOCSTI, _TIOCLINUX, _FIOSETOWN, _SIOCSPGRP)
                                for op in _deny_if_equal(1, request)])
    code += _when(nr["fcntl"], [op for command in (_F_SETOWN, _F_SETSIG, _F_SETOWN_EX, _F_SETLEASE, _F_NOTIFY)
                                for op in _deny_if_equal(1, command)])
    code.append(_op(_RET, _ALLOW))
    return b"".join(code)


DETAIL = "seccomp: the kernel refuses writes, connects, exec, fork, signals to others"


def supported() -> str | None:
    """Why there is no filter here, or None when there is one."""
    if platform.machine() not in ("x86_64", "AMD64"):
        return f"no system call table for {platform.machine()} yet"
    if not sys.platform.startswith("linux"):
        return "no seccomp outside Linux"
    return None


def install() -> str:
    """Load the filter into this process (the probe child): irreversible, inherited by anything
    it starts."""
    reason = supported()
    if reason:
        raise OSError(reason)
    if native.libc() is None:  # on Linux: ctypes missing, or the program's own audit hook refuses it
        raise OSError("no ctypes/prctl to load the filter with")
    import ctypes

    class Program(ctypes.Structure):  # struct sock_fprog
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
    code = program(os.getpid())
    buffer = ctypes.create_string_buffer(code, len(code))
    prog = Program(len(code) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    native.call("prctl", _PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    native.call("prctl", _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0)
    return DETAIL


# --- a whole program run (autodbg.probe.confine): writes by path are Landlock's, the rest as a probe's

# Changes the program's own files need; Landlock confines them to its copy (metadata changes,
# which Landlock does not see, stay refused).
_PATH_CONFINED = frozenset({"unlink", "unlinkat", "rename", "renameat", "renameat2", "mkdir", "mkdirat", "rmdir",
                            "link", "linkat", "symlink", "symlinkat", "truncate", "creat"})
# Ways out of the run's process group and to other processes' scheduling and signals.
_RUN_DENIED = {"setsid": 112, "setpgid": 109, "unshare": 272, "setpriority": 141, "sched_setscheduler": 144,
               "sched_setparam": 142, "sched_setaffinity": 203, "sched_setattr": 314, "ioprio_set": 251,
               "flock": 73, "landlock_create_ruleset": 444}
_FCNTL = 72
_F_SETOWN, _F_SETSIG, _F_SETOWN_EX, _F_SETLEASE, _F_NOTIFY = 8, 10, 15, 1024, 1026
_FIOSETOWN, _SIOCSPGRP, _TIOCSPGRP = 0x8901, 0x8902, 0x5410


def whole_run_program(own_pid: int) -> bytes:
    """The filter for a whole program run (pid OWN_PID): a probe's, but writing files is left to
    Landlock; no new session or group, no signal owner (SIGIO) or lease, no scheduling of others."""
    nr = _X86_64
    code = [_op(_LD_ABS, _ARCH), _op(_JEQ, _AUDIT_ARCH_X86_64, 1, 0), _deny(),
            _op(_LD_ABS, _NR), _op(_JGE, _X32_BIT, 0, 1), _deny()]
    denied = {name: number for name, number in _X86_64_DENIED.items() if name not in _PATH_CONFINED}
    for number in (*denied.values(), *_RUN_DENIED.values()):
        code += [_op(_JEQ, number, 0, 1), _deny()]
    code += _when(nr["clone3"], [_deny(38)])
    code += _when(nr["clone"], _deny_unless_flags(0, _CLONE_THREAD))
    for name in ("kill", "tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo"):
        code += _when(nr[name], _deny_unless_equal(0, own_pid))
    code += _when(nr["sendto"], _deny_if_nonzero(4))
    code += _when(nr["prlimit64"], _deny_if_nonzero(2))
    code += _when(_FCNTL, [rule for cmd in (_F_SETOWN, _F_SETSIG, _F_SETOWN_EX, _F_SETLEASE, _F_NOTIFY)
                           for rule in _deny_if_equal(1, cmd)])
    code += _when(nr["ioctl"], [rule for cmd in (_TIOCSTI, _TIOCLINUX, _FIOSETOWN, _SIOCSPGRP, _TIOCSPGRP)
                                for rule in _deny_if_equal(1, cmd)])
    code.append(_op(_RET, _ALLOW))
    return b"".join(code)


def install_whole_run() -> str:
    """Load the whole-run filter into this process (autodbg.probe.confine): irreversible."""
    reason = supported()
    if reason:
        raise OSError(reason)
    _load(whole_run_program(os.getpid()))
    return "seccomp: no exec, fork, connect, new session, signal to others, or metadata change"


def _load(code: bytes) -> None:
    import ctypes

    class Program(ctypes.Structure):  # struct sock_fprog
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
    buffer = ctypes.create_string_buffer(code, len(code))
    prog = Program(len(code) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    native.call("prctl", _PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    native.call("prctl", _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0)
