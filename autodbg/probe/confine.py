"""The sandbox for a whole program run on a temporary copy (a fix's verification under
`autodbg run`, the judge's and the spectrum's test runs): it may write inside its scratch folder
only, and may not reach the network, start processes, or signal anything outside itself. Model-
written code runs only like this.

    python -m autodbg.program.confined ROOT ...   enters these layers, then runs the program

Kernel layers, every one required (`enter` raises Unconfined where one cannot be applied, and the
program is not run): killed when its parent dies, resource limits, Landlock path rules (writes
beneath ROOT only; no signal or abstract unix socket out of the run), and the whole-run seccomp
filter (no exec, fork, connect, new session, signal owner, metadata change). Then, where the
machine gives it, a network namespace; last an audit hook refusing writes outside ROOT, reads
outside it and the interpreter's libraries, network, processes, ctypes and `dir_fd` paths.
"""

from __future__ import annotations

import os
import signal

from autodbg.probe import landlock, native, sandbox, seccomp

FILE_LIMIT = 256 << 20  # bytes: the largest file the program may write in its copy
UNCONFINED_STATUS = 125  # the exit status of a confined run that refused to start
UNCONFINED_MARK = "autodbg-unconfined: "  # its one line on stderr, then why

_FILE_EVENTS = frozenset({"os.remove", "os.rename", "os.mkdir", "os.rmdir", "os.chmod", "os.chown", "os.truncate",
                          "os.link", "os.symlink", "os.utime", "os.setxattr", "os.removexattr", "os.chflags",
                          "os.lchflags", "os.listxattr"})
# Where each event's dir_fd arguments are (-1: none given): a path relative to one would escape the check.
_DIR_FD_ARGS = {"os.remove": (1,), "os.rmdir": (1,), "os.mkdir": (2,), "os.chmod": (2,), "os.chown": (3,),
                "os.rename": (2, 3), "os.link": (2, 3), "os.symlink": (2,), "os.utime": (3,)}
_ELSE_REFUSED = frozenset(e for e in sandbox._REFUSED_EVENTS if not e.startswith("os.") or e in (
    "os.system", "os.exec", "os.fork", "os.forkpty", "os.posix_spawn", "os.spawn", "os.startfile", "os.kill",
    "os.killpg"))
_PR_SET_PDEATHSIG = 1


class Unconfined(Exception):
    """The machine cannot give a layer the run needs; the message says which, in one line."""


def available() -> str | None:
    """Why a whole run cannot be confined on this machine, or None when it can."""
    version = landlock.abi()
    if isinstance(version, str):
        return f"the kernel cannot confine writes here ({version})"
    return seccomp.supported()


def enter(root: str) -> list[str]:
    """Confine this process to ROOT; the layers applied. Unconfined where a kernel layer cannot be."""
    import resource

    root = os.path.realpath(root)
    applied = []
    try:
        parent = os.getppid()
        native.call("prctl", _PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:
            os._exit(1)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_LIMIT, FILE_LIMIT))
        applied.append("killed with its parent; resource limits")
    except (OSError, TypeError, ValueError) as exc:
        raise Unconfined(f"no parent-death signal or limits here ({exc})") from None
    try:
        sandbox._enter_network_namespace()  # before seccomp, which refuses unshare
        applied.append("network namespace")
    except OSError:
        pass  # connect and bind stay refused by seccomp and Landlock
    reason = available()
    if reason is not None:
        raise Unconfined(reason)
    try:
        applied.append(landlock.restrict((root,)))
    except OSError as exc:
        raise Unconfined(f"the kernel cannot confine writes here ({exc})") from None
    try:
        applied.append(seccomp.install_whole_run())
    except OSError as exc:
        raise Unconfined(f"no system call filter here ({exc})") from None
    _refuse_dir_fd_open()
    _install_hook(root)
    applied.append("audit hook")
    return applied


def _refuse_dir_fd_open() -> None:
    """os.open's audit event does not carry its dir_fd: a path relative to one is refused here."""
    original = os.open

    def open_at_cwd(path, flags, mode=0o777, *, dir_fd=None):
        if dir_fd is not None:
            raise sandbox.Refused(f"refused by the sandbox: os.open({sandbox._show(path)}, dir_fd={dir_fd!r})")
        return original(path, flags, mode)
    open_at_cwd.__name__ = "open"
    for module in (os, __import__("posix")):
        module.open = open_at_cwd


def _install_hook(root: str) -> None:
    readable = (root, *sandbox._readable_roots())  # the copy, the interpreter and its libraries

    def audit(event: str, args: tuple) -> None:
        if event == "open":
            path, mode, flags = args
            path = _path_text(path)
            writes = (isinstance(mode, str) and sandbox._WRITE_MODE & set(mode)) or \
                (isinstance(flags, int) and flags & sandbox._WRITE_FLAGS)
            if not (_inside(path, root) or not writes and any(_inside(path, r) for r in readable)
                    or path in sandbox._DEVICES):
                raise sandbox._refusal(event, args[:2])
        elif event in _FILE_EVENTS or event.startswith("shutil."):
            if any(isinstance(args[i], int) and args[i] != -1 for i in _DIR_FD_ARGS.get(event, ()) if i < len(args)):
                raise sandbox._refusal(event, args)
            paths = [a for i, a in enumerate(args) if i not in _DIR_FD_ARGS.get(event, ())
                     and isinstance(a, (str, bytes, os.PathLike))]
            if event in ("os.chmod", "os.chown", "os.utime") and isinstance(args[0], int):
                raise sandbox._refusal(event, args)  # a descriptor: it may be of a file outside, opened to read
            if not all(_inside(_path_text(a), root) for a in paths):
                raise sandbox._refusal(event, args)
        elif event in _ELSE_REFUSED or event.startswith(("ctypes.", "_winapi.", "winreg.")):
            raise sandbox._refusal(event, args)

    import sys
    sys.addaudithook(audit)


def _path_text(path) -> str | int | None:
    """PATH as the one string it is checked as: a path object answers once (os.fspath), and one
    that is neither str, bytes nor a descriptor is never read again."""
    if isinstance(path, int):
        return path
    try:
        text = os.fsdecode(path if isinstance(path, (str, bytes)) else os.fspath(path))
    except (TypeError, ValueError):
        return None
    return text


def _inside(path, root: str) -> bool:
    if isinstance(path, int):
        return True  # an open descriptor: its opening was checked
    if not isinstance(path, str):
        return False
    real = os.path.realpath(path)
    return real == root or real.startswith(root + os.sep)
