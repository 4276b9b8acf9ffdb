"""The sandbox for a whole program run on a temporary copy (a fix's verification under
`autodbg run`): it may write inside the copy only, and may not reach the network or start
processes. Model-written code runs only like this.

    python -m autodbg.program.confined ROOT ...   enters these layers, then runs the program

Layers, each skipped (and said so) where the machine does not give it: a network namespace,
resource limits for a whole program (no core files, files up to FILE_LIMIT), and an audit
hook refusing writes outside ROOT, reads outside it and the interpreter's libraries, network,
processes and ctypes.
"""

from __future__ import annotations

import os

from autodbg.probe import sandbox

FILE_LIMIT = 256 << 20  # bytes: the largest file the program may write in its copy

_FILE_EVENTS = frozenset({"os.remove", "os.rename", "os.mkdir", "os.rmdir", "os.chmod", "os.chown", "os.truncate",
                          "os.link", "os.symlink", "os.utime", "os.setxattr", "os.removexattr", "os.chflags",
                          "os.lchflags", "os.listxattr"})
_ELSE_REFUSED = frozenset(e for e in sandbox._REFUSED_EVENTS if not e.startswith("os.") or e in (
    "os.system", "os.exec", "os.fork", "os.forkpty", "os.posix_spawn", "os.spawn", "os.startfile", "os.kill",
    "os.killpg"))


def enter(root: str) -> list[str]:
    """Confine this process to ROOT; the names of the layers applied (the rest are skipped)."""
    import resource

    root = os.path.realpath(root)
    applied = []
    try:
        sandbox._enter_network_namespace()
        applied.append("network namespace")
    except OSError:
        pass
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_LIMIT, FILE_LIMIT))
    applied.append("resource limits")

    readable = (root, *sandbox._readable_roots())  # the copy, the interpreter and its libraries

    def audit(event: str, args: tuple) -> None:
        if event == "open":
            path, mode, flags = args
            writes = (isinstance(mode, str) and sandbox._WRITE_MODE & set(mode)) or \
                (isinstance(flags, int) and flags & sandbox._WRITE_FLAGS)
            if not (_inside(path, root) or not writes and any(_inside(path, r) for r in readable)
                    or path in sandbox._DEVICES):
                raise sandbox._refusal(event, args[:2])
        elif event in _FILE_EVENTS or event.startswith("shutil."):
            if not all(_inside(a, root) for a in args if isinstance(a, (str, bytes, os.PathLike))):
                raise sandbox._refusal(event, args)
        elif event in _ELSE_REFUSED or event.startswith(("ctypes.", "_winapi.", "winreg.")):
            raise sandbox._refusal(event, args)

    import sys
    sys.addaudithook(audit)
    applied.append("audit hook")
    return applied


def _inside(path, root: str) -> bool:
    if isinstance(path, int):
        return True  # an open descriptor: its opening was checked
    try:
        real = os.path.realpath(os.fsdecode(path))
    except (TypeError, ValueError):
        return False
    return real == root or real.startswith(root + os.sep)
