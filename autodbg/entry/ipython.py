"""The IPython / Jupyter extension: `%load_ext autodbg` (or `c.InteractiveShellApp.extensions =
["autodbg"]` in an IPython profile) prints, after IPython's own traceback of a failing cell,
autodbg's evidence and diagnosis; `%autodbg` investigates the last exception on demand.

IPython never calls sys.excepthook: it shows a cell's exception itself, so the extension hooks
that (`set_custom_exc`), and shows IPython's traceback first, unchanged. Cells are named as
IPython names them, `Cell In[2], line 3`.
"""

from __future__ import annotations

import sys


def load(ipython) -> None:
    import autodbg.startup as startup
    from autodbg.frames.core import name_files

    startup.remember()  # the environment as the notebook had it when autodbg was loaded
    ipython.set_custom_exc((Exception,), show_and_investigate)
    ipython.register_magic_function(autodbg_magic, "line", "autodbg")
    name_files(lambda filename: cell_name(ipython, filename))


def unload(ipython) -> None:
    from autodbg.frames.core import name_files

    ipython.set_custom_exc((), None)
    name_files(None)


def cell_name(ipython, filename: str) -> str | None:
    """`Cell In[N]` for the file IPython compiled cell N into (`<ipython-input-N-...>` in a shell,
    `ipykernel_PID/HASH.py` in Jupyter), as its tracebacks name it: its compiler's
    format_code_name. None for any other file."""
    named = ipython.compile.format_code_name(filename)
    return " ".join(named) if named is not None else None


def show_and_investigate(shell, etype, value, tb, tb_offset=None):
    shell.showtraceback((etype, value, tb), tb_offset=tb_offset)  # IPython's own traceback first
    investigate(value)


def autodbg_magic(line: str = "") -> None:
    """%autodbg: investigate the last exception (sys.last_value); `%autodbg -v` shows all the evidence."""
    from autodbg.textsafe import say

    exc = getattr(sys, "last_value", None)
    if exc is None:
        say("autodbg: no exception to investigate yet")
        return
    investigate(exc, verbose=line.split() == ["-v"])


def investigate(exc: BaseException, verbose: bool = False) -> None:
    """Evidence and diagnosis for EXC on the shell's output; a failure of autodbg is one line."""
    import dataclasses

    from autodbg.errors import AutodbgError
    from autodbg.pipeline import handle_crash
    from autodbg.report import make_console
    from autodbg.settings import load_settings
    from autodbg.textsafe import say

    try:
        settings = load_settings()
        handle_crash(exc, console=make_console(file=sys.stdout),
                     settings=dataclasses.replace(settings, verbose=True) if verbose else settings)
    except AutodbgError as err:
        say(f"autodbg: {err}")
    except Exception as err:  # the notebook goes on
        say(f"autodbg: internal error: {type(err).__name__}: {' '.join(str(err).split())}")
