"""Where autodbg keeps its files, and how it writes and removes them without being turned against you.

Paths, under platformdirs' user dirs for autodbg (models themselves are in the Hugging Face cache):
    cache_root()/verified/      one sidecar per verified model file (private)
    cache_root()/locks/         one pull of a model at a time, across processes
    cache_root()/prompt-state/  saved llama.cpp prompt state (private)
    config_dir()                the user's autodbg configuration
    history_file()              the (autodbg) prompt's history, under the user's state dir
    last_report_file()          the last crash's JSON report when AUTODBG_REPORT names none (for `autodbg fix`)

Writing: a new file is created exclusively under an unpredictable name in the target's own
directory (so a symlink planted there is never followed, and nobody can guess the name in advance),
written, fsync'd and renamed onto the target, which a reader therefore sees whole or not at all;
a symlink planted at the target itself is replaced, not followed. On any failure the temporary is
removed and the target is untouched.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

from autodbg.errors import AutodbgError

PRIVATE = 0o600
SHARED = 0o644  # files every user of a venv reads: its marker and sitecustomize.py


class UnsafePath(AutodbgError):
    """A path autodbg will not write into or delete: someone else's, a symlink, or outside its cache."""


def cache_root() -> Path:
    import platformdirs

    return Path(platformdirs.user_cache_dir("autodbg", appauthor=False))


def verified_dir() -> Path:
    return cache_root() / "verified"


def locks_dir() -> Path:
    return cache_root() / "locks"


def state_dir() -> Path:
    """The saved prompt state of the fixed system prompt, reused by the next crash."""
    return cache_root() / "prompt-state"


def config_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_config_dir("autodbg", appauthor=False))


def history_file() -> Path:
    import platformdirs

    return Path(platformdirs.user_state_dir("autodbg", appauthor=False)) / "history"


def last_report_file() -> Path:
    import platformdirs

    return Path(platformdirs.user_state_dir("autodbg", appauthor=False)) / "last-crash.json"


def write_private(path: Path, data: bytes | str) -> None:
    """Replace PATH by a file holding DATA that only this user can read (0600)."""
    _write(path, data, PRIVATE)


def write_shared(path: Path, data: bytes | str) -> None:
    """Replace PATH by a file holding DATA that everybody can read (0644)."""
    _write(path, data, SHARED)


def _write(path: Path, data: bytes | str, mode: int) -> None:
    with _new_file_for(path) as (fd, _), open(fd, "wb") as f:
        f.write(data.encode("utf-8") if isinstance(data, str) else data)
        f.flush()
        os.fchmod(fd, mode)
        os.fsync(fd)


@contextlib.contextmanager
def replacing(target: Path) -> Iterator[Path]:
    """The path of a new empty private file next to TARGET, for a writer that opens its file by
    name (llama.cpp); when the block ends without an exception the file replaces TARGET, else it
    is removed."""
    with _new_file_for(target) as (fd, tmp):
        os.close(fd)
        yield tmp


@contextlib.contextmanager
def _new_file_for(target: Path) -> Iterator[tuple[int, Path]]:
    # tempfile.mkstemp: O_CREAT|O_EXCL|O_NOFOLLOW, mode 0600, a random name; its fd is the caller's.
    fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    tmp = Path(name)
    try:
        yield fd, tmp
        os.replace(tmp, target)  # renames over a symlink at TARGET; never writes through it
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def head_of(path: Path, size: int) -> bytes | None:
    """The first SIZE bytes of the regular file at PATH; None where nothing is there, b"" where
    something else is (a symlink, which is not followed; a folder; a FIFO, which is not waited on)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError as err:
        if err.errno == errno.ELOOP:  # a symlink
            return b""
        raise
    try:
        return os.read(fd, size) if stat.S_ISREG(os.fstat(fd).st_mode) else b""
    finally:
        os.close(fd)


def private_dir(path: Path) -> Path:
    """PATH as a directory only this user can enter (0700), created if missing; refused when it is
    a symlink or someone else's, since files written there are opened by name."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileExistsError):
        os.mkdir(path, 0o700)
    st = os.lstat(path)
    if not stat.S_ISDIR(st.st_mode):
        raise UnsafePath(f"{path} is not a directory (a symlink?): autodbg does not write there")
    if st.st_uid != os.geteuid():
        raise UnsafePath(f"{path} belongs to user id {st.st_uid}, not to you: autodbg does not write there")
    if stat.S_IMODE(st.st_mode) != 0o700:
        os.chmod(path, 0o700)  # ours, made by an older autodbg or another umask
    return path


def is_inside(path: Path, root: Path) -> bool:
    """Whether PATH, every symlink on the way resolved, is ROOT or inside it."""
    real, real_root = os.path.realpath(path), os.path.realpath(root)
    return os.path.commonpath([real, real_root]) == real_root


def unlink_inside(path: Path, root: Path) -> None:
    """Remove the file or symlink PATH, which must lie inside ROOT once its directories are resolved.
    A symlink is removed as a link: what it points to is left alone."""
    entry = Path(os.path.realpath(path.parent)) / path.name
    if not is_inside(entry.parent, root):
        raise UnsafePath(f"{path} leads outside {root}: autodbg does not delete it")
    entry.unlink(missing_ok=True)
