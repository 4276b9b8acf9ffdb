"""Written by `autodbg install --sitecustomize`; `autodbg uninstall` removes it.

Python imports one sitecustomize module at start-up, after every .pth file. This one first runs the
sitecustomize it displaced -- the venv's own, kept beside it as _autodbg_prev_sitecustomize.py, or
else the next one on sys.path -- and then installs autodbg's hook, so that the hook comes last and
chains to whatever sys.excepthook the other one set.
"""

import os
import sys


def _run_displaced_sitecustomize():
    here = os.path.dirname(os.path.abspath(__file__))
    if os.path.exists(os.path.join(here, "_autodbg_prev_sitecustomize.py")):
        import _autodbg_prev_sitecustomize  # noqa: F401 -- importing it runs it
        return
    import importlib.machinery
    import importlib.util

    dirs = [os.path.abspath(entry) for entry in sys.path]
    later = sys.path[dirs.index(here) + 1:] if here in dirs else []
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", later)
    if spec is not None:
        spec.loader.exec_module(importlib.util.module_from_spec(spec))


try:
    _run_displaced_sitecustomize()  # its errors reach `site`, which reports them as before
finally:
    try:
        import _autodbg_hook
        _autodbg_hook.install()
    except Exception:  # autodbg half-removed: stay silent, as autodbg.pth does
        pass
