"""The functions a probe's parent relies on, as they were before the program could replace them:
a program may wrap os.fork (a wrapper that exits), freeze time.monotonic (freezegun) or patch
select.select, and the crashed process must neither hang nor run that code while it probes."""

from __future__ import annotations

import importlib.util
import os
import select as _loaded_select
import sys
import time


def _taken(name: str, now):
    """The function _autodbg_hook took at start-up under NAME, else NOW (no hook ran: a library)."""
    hook = sys.modules.get("_autodbg_hook")
    taken = getattr(hook, "own", {}).get(name) if hook is not None else None
    return taken if callable(taken) else now


def _fresh_select():
    """A new instance of the select extension, from the file it was loaded from (no finder the
    program installed is asked): its functions are the C ones, whatever the program set on the
    module it imported."""
    spec = getattr(_loaded_select, "__spec__", None)
    try:
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module.select
    except Exception:  # noqa: BLE001 — a built-in select (no file), or an odd loader
        return _loaded_select.select


fork = _taken("fork", getattr(os, "fork", None))
monotonic = _taken("monotonic", time.monotonic)
select = _fresh_select()
