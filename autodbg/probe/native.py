"""libc through ctypes, for the few calls Python has no function for (prctl; unshare before 3.12).
Only ever used in a probe before its audit hook forbids ctypes."""

from __future__ import annotations

import functools
import os
import sys


@functools.lru_cache(maxsize=None)
def libc():
    """The C library, or None. Loaded in the parent once, so a probe does not pay for it."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes
        return ctypes.CDLL(None, use_errno=True)
    except Exception:  # noqa: BLE001 — no ctypes, or the program's own audit hook refuses it
        return None


def call(name: str, *args: int) -> None:
    """Call libc's NAME with unsigned long ARGS; OSError when it returns non-zero."""
    import ctypes
    # Subscript, not attribute: the attribute would be cached on the CDLL where program code
    # in the probe could find it and call it without any audit event.
    if libc()[name](*(ctypes.c_ulong(a) if isinstance(a, int) else a for a in args)) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
