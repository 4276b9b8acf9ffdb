"""The layers a probe child enters before it touches a program object. Irreversible, for the child
only; each layer the machine does not give is skipped and reported, never fatal.

In the order `enter` applies them:
  session              own session (no controlling terminal, no terminal signals), killed when
                       the process that forked it dies (Linux PR_SET_PDEATHSIG)
  network namespace    unshare(CLONE_NEWUSER|CLONE_NEWNET): no interface but a downed loopback,
                       and (user namespace) no capabilities in the machine's namespace
  resource limits      RLIMIT_FSIZE 0 (no write to any regular file, even from C code; SIGXFSZ
                       ignored so it fails with EFBIG), RLIMIT_AS, RLIMIT_CPU, RLIMIT_CORE 0,
                       RLIMIT_NPROC 0 (not enforced for root)
  inherited descriptors  every descriptor inherited from the program points at /dev/null: no send
                       on its sockets or pipes, no move of a file offset it shares with the program
  system call filter   seccomp: the kernel refuses writes, connects, exec, fork and signals to
                       others even to C code and ctypes functions the program resolved (seccomp.py)
  unaudited functions  timer changes and the few writes and spawns without an audit event
                       (os.mkfifo, os.mknod, _posixsubprocess.fork_exec) refuse
  audit hook           PEP 578 hook refusing writes, network, processes, ctypes, further hooks,
                       and opening terminals, devices and FIFOs (stealing input or writing to
                       them); reads stay allowed
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import stat
import sys
from dataclasses import dataclass
from typing import Callable, Iterator

from autodbg.probe import native, own, seccomp

CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
PR_SET_PDEATHSIG = 1
_NULL_DEVICES = {os.makedev(1, n) for n in (3, 5, 7, 8, 9)} if hasattr(os, "makedev") else set()  # null zero full random urandom
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
_WRITE_MODE = set("wax+")
# Taken before the probe's user namespace, where the euid reads 65534 but the kernel still
# counts the process as root (real uid 0), which RLIMIT_NPROC never limits.
_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


class Refused(PermissionError):
    """What the sandbox raises in a probe for an operation it does not allow; the message names
    the operation, e.g. "refused by the sandbox: open('/tmp/x', 'w')"."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        _refusals.append(message)


# Every refusal made in this process (a probe), in order: program code that catches one runs on
# differently than it did outside, and whoever ran that code can still tell (the probe's reply
# carries them; `refusals_during` tells a part of the probe's work).
_refusals: list[str] = []


def refusals() -> tuple[str, ...]:
    """The refusals made in this probe so far, in order."""
    return tuple(_refusals)


@contextlib.contextmanager
def refusals_during() -> Iterator[list[str]]:
    """The refusals made while the block runs: the list it yields holds them once it is left."""
    made: list[str] = []
    start = len(_refusals)
    try:
        yield made
    finally:
        made.extend(_refusals[start:])


@dataclass(frozen=True)
class Layer:
    name: str
    available: bool  # layers(): this machine gives it; enter(): it was applied
    detail: str  # one line


@dataclass(frozen=True)
class Limits:
    memory_margin: int = 1 << 30  # bytes of address space the probe may add to what it inherits
    reply_bytes: int = 4 << 20  # largest JSON reply the parent accepts


_SESSION = "own session, no terminal; killed when its parent dies"
_SESSION_ALONE = "own session, no terminal; not killed with its parent (no ctypes/prctl here)"
_UNAUDITED_DETAIL = "timer changes, os.mkfifo/mknod, _posixsubprocess.fork_exec refuse"
_HOOK_DETAIL = ("writes, network, processes, ctypes, terminals and devices refused; reads only of the "
                "program's folders and libraries")

# Events refused outright. Names and argument shapes checked on CPython 3.10-3.13.
_REFUSED_EVENTS = frozenset({
    # files (open is checked by mode/flags below)
    "os.remove", "os.rename", "os.mkdir", "os.rmdir", "os.chmod", "os.chown", "os.chflags",
    "os.lchflags", "os.truncate", "os.link", "os.symlink", "os.utime", "os.setxattr",
    "os.removexattr", "sqlite3.enable_load_extension", "sqlite3.load_extension",
    # network
    "socket.connect", "socket.bind", "socket.sendto", "socket.sendmsg", "socket.getaddrinfo",
    "socket.gethostbyname", "socket.gethostbyaddr", "socket.getnameinfo", "socket.sethostname",
    # processes, signals, limits
    "subprocess.Popen", "os.system", "os.exec", "os.fork", "os.forkpty", "os.posix_spawn",
    "os.spawn", "os.startfile", "os.kill", "os.killpg", "signal.pthread_kill",
    "resource.setrlimit", "resource.prlimit",
    # ways around this hook: a new hook, a subinterpreter (has no Python hooks), terminal ioctls
    "sys.addaudithook", "cpython.PyInterpreterState_New", "fcntl.ioctl",
})
_REFUSED_PREFIXES = ("shutil.", "ctypes.", "syslog.", "winreg.", "_winapi.")
# Importing one of these afresh would give back the functions `_refuse_unaudited` replaced.
_PATCHED_MODULES = frozenset({"os", "posix", "signal", "_signal", "_posixsubprocess"})
_UNAUDITED = {
    "posix": ("mkfifo", "mknod"),
    "os": ("mkfifo", "mknod"),
    "_posixsubprocess": ("fork_exec",),
    # Not signal.signal: a probe's own handlers touch the probe alone (asyncio.run sets one), and
    # the parent's deadline, not a signal the program could catch, is what stops it.
    "_signal": ("setitimer", "alarm", "siginterrupt", "pidfd_send_signal"),
    "signal": ("setitimer", "alarm", "siginterrupt", "pidfd_send_signal"),
}


def _show(value: object) -> str:
    try:
        text = repr(value)
    except Exception:
        text = f"<{type(value).__name__}>"
    return text if len(text) <= 80 else text[:77] + "..."


def _refusal(event: str, args: tuple) -> Refused:
    shown = list(args)
    while shown and shown[-1] in (None, -1):  # unused dir_fd / follow_symlinks defaults
        shown.pop()
    return Refused(f"refused by the sandbox: {event}({', '.join(_show(a) for a in shown)})")


def _flag_names(flags: int) -> str:
    names = [n for n in ("O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND") if flags & getattr(os, n)]
    return "|".join(names)


def _check_open(args: tuple) -> None:
    path, mode, flags = args
    if (isinstance(mode, str) and _WRITE_MODE & set(mode)) or (isinstance(flags, int) and flags & _WRITE_FLAGS):
        shown = _show(mode) if isinstance(mode, str) else _flag_names(flags)
        raise Refused(f"refused by the sandbox: open({_show(path)}, {shown})")
    if isinstance(path, int):
        return  # an inherited descriptor: /dev/null by now
    try:
        st = os.stat(path)
    except (OSError, TypeError, ValueError):
        st = None  # open itself will fail, or it is a name the program made up
    if st is not None and (stat.S_ISFIFO(st.st_mode) or (stat.S_ISCHR(st.st_mode) and st.st_rdev not in _NULL_DEVICES)):
        raise Refused(f"refused by the sandbox: open({_show(path)}): a terminal, device or FIFO")
    if not _readable_path(path):
        raise Refused(f"refused by the sandbox: open({_show(path)}): outside the program and its libraries")


# Where a probe may read: the program's folders and libraries (sys.path), its working directory,
# the interpreter's own files; set by _install_hook, before anything the program runs.
_readable: tuple[str, ...] = ()
_DEVICES = ("/dev/null", "/dev/zero", "/dev/urandom", "/dev/random")


def _readable_path(path) -> bool:
    try:
        real = os.path.realpath(os.fsdecode(path))
    except (TypeError, ValueError):
        return True  # open itself will refuse it
    return real in _DEVICES or any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in _readable)


def _readable_roots() -> tuple[str, ...]:
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, os.getcwd(), "/proc/self"}
    roots |= {entry or os.getcwd() for entry in sys.path if isinstance(entry, str)}
    roots |= {os.path.dirname(path) for module in list(sys.modules.values())
              if isinstance(path := getattr(module, "__file__", None), str)}
    return tuple(sorted({os.path.realpath(root) for root in roots if root}))


_CHECK_EVENT = "autodbg.sandbox.hooked"  # raised once the hook is added: it must see it
_hooked: list[bool] = []


def _audit(event: str, args: tuple) -> None:
    if event == _CHECK_EVENT:
        _hooked.append(True)
    elif event == "open":
        _check_open(args)
    elif event in _REFUSED_EVENTS or event.startswith(_REFUSED_PREFIXES):
        raise _refusal(event, args)
    elif event == "import" and args[0] in _PATCHED_MODULES:
        raise _refusal(event, args[:1])


def _refusing(qualified: str):
    def refuse(*args, **kwargs):
        raise Refused(f"refused by the sandbox: {qualified}()")
    refuse.__name__ = qualified.rpartition(".")[2]
    return refuse


@functools.lru_cache(maxsize=None)
def prepare() -> None:
    """Load, in the parent and once, what every probe's set-up needs, so no child pays for it."""
    native.libc()
    try:
        import _posixsubprocess  # noqa: F401  (loaded so the child can replace its fork_exec)
    except ImportError:
        pass


def _refuse_unaudited() -> str:
    prepare()
    if hasattr(signal, "SIGXFSZ"):
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past RLIMIT_FSIZE fails, not kills
    for module_name, names in _UNAUDITED.items():
        module = sys.modules.get(module_name)
        for name in names:
            if module is not None and hasattr(module, name):
                setattr(module, name, _refusing(f"{module_name.lstrip('_')}.{name}"))
    if "ctypes" in sys.modules:  # made from raw addresses at import: calls raise no audit event
        for name in ("memmove", "memset", "cast", "string_at", "wstring_at"):
            setattr(sys.modules["ctypes"], name, _refusing(f"ctypes.{name}"))
    return _UNAUDITED_DETAIL


def fork_quietly() -> int:
    """os.fork without the DeprecationWarning Python 3.12+ gives in a process with threads:
    it would reach the user's stderr, and the probe does not run the other threads' code."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return own.fork()  # autodbg's own: the program may have replaced os.fork


# --- session and namespaces (ctypes, before the audit hook forbids it) ---------------------------

def _enter_session() -> str:
    os.setsid()
    if native.libc() is None:
        return _SESSION_ALONE
    parent = os.getppid()
    native.call("prctl", PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)
    return _SESSION


def _unshare(flags: int) -> None:
    if hasattr(os, "unshare"):
        os.unshare(flags)
    elif native.libc() is not None:
        native.call("unshare", flags)
    else:
        raise OSError("no unshare here")


def _enter_network_namespace() -> str:
    try:
        _unshare(CLONE_NEWUSER | CLONE_NEWNET)
        return "own user and network namespace: no network, no capabilities outside"
    except OSError:
        _unshare(CLONE_NEWNET)  # root where user namespaces are off
        return "own network namespace: no network"


def _set_limits(deadline: float, limits: Limits) -> str:
    import math
    import resource
    cpu = math.ceil(deadline) + 1  # backstop only: the parent kills at the deadline
    address_space = _address_space() + limits.memory_margin
    for which, soft, hard in ((resource.RLIMIT_FSIZE, 0, 0), (resource.RLIMIT_CORE, 0, 0),
                              (resource.RLIMIT_CPU, cpu, cpu + 1),  # SIGXCPU, then SIGKILL
                              (resource.RLIMIT_AS, address_space, address_space),
                              (resource.RLIMIT_NPROC, 0, 0)):
        resource.setrlimit(which, (soft, hard))
    root = " (NPROC not enforced for root)" if _ROOT else ""
    return f"FSIZE 0, AS {address_space >> 20} MiB, CPU {cpu} s, CORE 0, NPROC 0{root}"


def _address_space() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def _replace_descriptors(keep: set[int]) -> str:
    null = os.open(os.devnull, os.O_RDWR)
    inherited = [int(fd) for fd in os.listdir("/proc/self/fd")]
    count = 0
    for fd in inherited:
        if fd > 2 and fd != null and fd not in keep:
            try:
                os.dup2(null, fd)
                count += 1
            except OSError:
                pass  # the descriptor listdir itself used, closed by now
    os.close(null)
    return f"{count} inherited descriptors point at /dev/null"


def _install_hook() -> str:
    global _readable
    _readable = _readable_roots()
    sys.addaudithook(_audit)
    # A hook of the program's that raises a RuntimeError for sys.addaudithook makes Python drop
    # this one without a word: only an event it sees shows it is in.
    sys.audit(_CHECK_EVENT)
    if not _hooked:
        raise OSError("the program's own audit hook kept it out")
    return _HOOK_DETAIL


# --- the two entry points ------------------------------------------------------------------------

def steps(deadline: float, limits: Limits, keep_fds: set[int]) -> tuple[tuple[str, Callable[[], str]], ...]:
    """The layers in the order they must be entered (each returns its one-line detail); apart
    from enter, only bench/probe.py uses this, to time them one by one."""
    return (
        ("session", _enter_session),
        ("network namespace", _enter_network_namespace),
        ("resource limits", lambda: _set_limits(deadline, limits)),
        ("inherited descriptors", lambda: _replace_descriptors(keep_fds)),  # opens /dev/null read-write
        ("system call filter", seccomp.install),  # refuses what the steps above do; uses ctypes.cast
        ("unaudited functions", _refuse_unaudited),  # replaces ctypes.cast
        ("audit hook", _install_hook),  # last: it forbids ctypes
    )


def enter(deadline: float, limits: Limits, keep_fds: set[int]) -> list[Layer]:
    """Apply every layer this machine gives, in the child, and say which applied and how.
    KEEP_FDS (the reply pipe) survive the descriptor layer."""
    applied = []
    for name, step in steps(deadline, limits, keep_fds):
        try:
            applied.append(Layer(name, True, step()))
        except Exception as exc:  # noqa: BLE001 — the kernel says no, or the program's own audit hook does
            applied.append(Layer(name, False, f"skipped: {exc}"))
    return applied


def missing(applied: list[Layer]) -> str | None:
    """Why the layers APPLIED are no sandbox for program code, or None: the audit hook, and the
    system call filter wherever this machine has one, must be in (a program's own audit hook may
    refuse ctypes or a second hook, and the probe must not then run with neither)."""
    required = {"audit hook"} | ({"system call filter"} if seccomp.supported() is None else set())
    failed = [f"{layer.name} {layer.detail}" for layer in applied if layer.name in required and not layer.available]
    return "; ".join(failed) or None


@functools.lru_cache(maxsize=None)
def layers() -> tuple[Layer, ...]:
    """Which layers this machine gives probes, in the order enter applies them, for `autodbg
    status`. Tries the network namespace in a throwaway child (a few ms, once per process)."""
    if not hasattr(os, "fork"):
        return tuple(Layer(name, False, "no os.fork here") for name, _ in steps(1, Limits(), set()))
    try:
        import resource  # noqa: F401
        limits = Layer("resource limits", True, "RLIMIT_FSIZE 0, AS inherited + margin, CPU from the "
                       "deadline, CORE 0, NPROC 0" + (" (NPROC not enforced for root)" if _ROOT else ""))
    except ImportError:
        limits = Layer("resource limits", False, "no resource module")
    proc_fd = os.path.isdir("/proc/self/fd")
    return (
        Layer("session", True, _SESSION if native.libc() is not None else _SESSION_ALONE),
        _probe_network_namespace(),
        limits,
        Layer("inherited descriptors", proc_fd,
              "every inherited descriptor points at /dev/null" if proc_fd else "no /proc/self/fd"),
        Layer("system call filter", seccomp.supported() is None, seccomp.supported() or seccomp.DETAIL),
        Layer("unaudited functions", True, _UNAUDITED_DETAIL),
        Layer("audit hook", True, _HOOK_DETAIL),
    )


def _probe_network_namespace() -> Layer:
    name = "network namespace"
    read_fd, write_fd = os.pipe()
    pid = fork_quietly()
    if pid == 0:
        try:
            message = _enter_network_namespace()
        except BaseException as exc:  # noqa: BLE001 — anything: report it, then leave
            message = f"! {exc}"
        os.write(write_fd, message.encode()[:500])
        os._exit(0)
    os.close(write_fd)
    with os.fdopen(read_fd, "rb") as pipe:
        message = pipe.read().decode(errors="replace")
    os.waitpid(pid, 0)
    if not message or message.startswith("! "):
        return Layer(name, False, f"unavailable: {message[2:] or 'the test child died'}")
    return Layer(name, True, message)
