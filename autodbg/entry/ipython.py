"""The IPython / Jupyter extension: `%load_ext autodbg` (or `c.InteractiveShellApp.extensions =
["autodbg"]` in an IPython profile) prints, after IPython's own traceback of a failing cell,
autodbg's evidence and diagnosis; `%autodbg` investigates the last exception on demand.

IPython never calls sys.excepthook: it shows a cell's exception itself, so the extension hooks
that (`set_custom_exc`), and shows IPython's traceback first, unchanged.
"""

from __future__ import annotations

import sys


def load(ipython) -> None:
    import autodbg.startup as startup

    startup.remember()  # the environment as the notebook had it when autodbg was loaded
    ipython.set_custom_exc((Exception,), show_and_investigate)
    ipython.register_magic_function(autodbg_magic, "line", "autodbg")


def unload(ipython) -> None:
    ipython.set_custom_exc((), None)


def show_and_investigate(shell, etype, value, tb, tb_offset=None):
    shell.showtraceback((etype, value, tb), tb_offset=tb_offset)  # IPython's own traceback first
    investigate(value)


def autodbg_magic(line: str = "") -> None:
    """%autodbg: investigate the last exception (sys.last_value)."""
    exc = getattr(sys, "last_value", None)
    if exc is None:
        print("autodbg: no exception to investigate yet")
        return
    investigate(exc)


def investigate(exc: BaseException) -> None:
    """Evidence and diagnosis for EXC on the shell's output; a failure of autodbg is one line."""
    from autodbg.errors import AutodbgError
    from autodbg.pipeline import handle_crash
    from autodbg.report import make_console

    try:
        handle_crash(exc, console=make_console(file=sys.stdout))
    except AutodbgError as err:
        print(f"autodbg: {err}")
    except Exception as err:  # the notebook goes on
        print(f"autodbg: internal error: {type(err).__name__}: {' '.join(str(err).split())}")
