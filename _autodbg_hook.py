"""autodbg's start-up hook, at the root of site-packages: autodbg.pth imports it and calls `install()`
in every interpreter of a venv where autodbg is enabled.

It runs before every Python program, so it is one small module: stdlib modules `site` has loaded
already, no autodbg package. At start-up it remembers the settings (before the program can change
them) and chains small hooks onto sys.excepthook, threading's excepthook and logging; the crash
handler (autodbg._boot, then the pipeline) is imported only when one of them sees an exception.

PYTEST_DONT_REWRITE: pytest would mark this module of autodbg's distribution for rewriting, though
the hook imported it long before; it has no asserts.
"""

import os
import sys

# The words of a boolean setting, in any case; autodbg.pth spells them out too (it imports nothing).
ON_WORDS = ("1", "true", "yes", "on")
OFF_WORDS = ("0", "false", "no", "off")

# `autodbg install` writes this file into the venv's prefix; it enables the hook there.
MARKER = "autodbg.enabled"

# What the remote engine reads of the environment besides AUTODBG_*: its proxy and certificates.
NETWORK_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "SSL_CERT_FILE", "SSL_CERT_DIR")

seen = None  # (variables, working directory) at start-up, once remembered
# autodbg's own os.fork and time.monotonic, taken before the program could replace them (a patched
# fork, a frozen clock); only references to functions already loaded, so start-up pays nothing.
own = {}

# asyncio.run's tasks as its Ctrl-C handler found them: [(task, [(frame, line)], what it awaited)]
interrupted_tasks = None


def remember():
    """Keep the AUTODBG_* and network variables and the working directory as they are now; the
    first call wins."""
    global seen
    if seen is None:
        own["fork"] = getattr(os, "fork", None)
        clock = sys.modules.get("time")
        own["monotonic"] = getattr(clock, "monotonic", None)
        environ = os.environ  # its keys, then the few values kept: decoding every value costs more
        variables = {k: environ[k] for k in environ if k.startswith("AUTODBG") or k.upper() in NETWORK_VARIABLES}
        try:
            cwd = os.getcwd()
        except OSError:  # the working directory was removed
            cwd = None
        seen = (variables, cwd)


def switch(value):
    """A boolean setting's VALUE: True (1/true/yes/on, any case), False (0/false/no/off), or None
    (unset, or anything else: the caller's default)."""
    word = (value or "").strip().lower()
    return True if word in ON_WORDS else False if word in OFF_WORDS else None


def enabled():
    """(is autodbg enabled for this interpreter, why)."""
    remember()
    setting = seen[0].get("AUTODBG")
    if switch(setting) is False:
        return False, f"AUTODBG={setting} turns it off"
    if switch(setting) is True:
        return True, f"AUTODBG={setting} turns it on"
    marker = os.path.join(sys.prefix, MARKER)
    if os.path.exists(marker):
        return True, f"{marker} exists"
    return False, f"no {marker}; `autodbg install` writes it"


def install():
    """Hook sys.excepthook and threading's excepthook (and logging, once imported), if autodbg is
    enabled for this interpreter."""
    remember()  # before the program runs
    if not enabled()[0] or getattr(sys.excepthook, "_autodbg", False):
        return  # off, or already ours: a venv runs each .pth twice
    # If something replaced our hook since the last call (a sitecustomize that runs after the
    # .pth), wrap again so the autodbg section still comes after that hook's output.
    sys.excepthook = _chained_excepthook(sys.excepthook)
    if not getattr(sys, "_autodbg_hooked", False):
        sys._autodbg_hooked = True
        _hook_threads()
        _hook_logging()


def investigate(exc, thread_name):
    """Hand EXC, nobody having caught it, to the crash handler; silent where autodbg was removed."""
    try:
        import autodbg._boot as boot
    except Exception:  # autodbg half-removed: the traceback is all there is
        return
    boot.investigate(exc, thread_name)


def _chained_excepthook(previous):
    def excepthook(exc_type, exc, tb):
        previous(exc_type, exc, tb)  # the user's traceback first, exactly as without autodbg
        investigate(exc, None)

    excepthook._autodbg = True
    excepthook.__wrapped__ = previous
    return excepthook


def _chained_thread_excepthook(previous):
    def thread_excepthook(args):
        previous(args)  # "Exception in thread ..." as usual
        investigate(args.exc_value, getattr(args.thread, "name", "unknown thread"))

    thread_excepthook._autodbg = True
    thread_excepthook.__wrapped__ = previous
    return thread_excepthook


def _hook_threads():
    threading = sys.modules.get("threading")
    if threading is not None:
        threading.excepthook = _chained_thread_excepthook(threading.excepthook)
    else:
        # Importing threading costs milliseconds. Its default excepthook is copied from
        # _thread._excepthook when threading is first imported, so wrap that one instead.
        import _thread  # built in and already loaded by the import system: costs nothing
        _thread._excepthook = _chained_thread_excepthook(_thread._excepthook)


def _hook_logging():
    """Investigate an exception logged at the top of a program (`logging.exception` in the
    `except` around main) or by asyncio ("Task exception was never retrieved"), while its frames
    are still there; and look at asyncio.run's tasks at Ctrl-C (_wrap_asyncio_runner). Each module
    is hooked once the program imports it: importing it here would cost milliseconds at every start."""
    wrappers = {"logging": _wrap_logging, "asyncio.runners": _wrap_asyncio_runner}
    for name in list(wrappers):
        if name in sys.modules:
            wrappers.pop(name)(sys.modules[name])
    if wrappers:
        sys.meta_path.insert(0, _ImportWatcher(wrappers))


class _ImportWatcher:
    """A meta path finder that steps aside at once for every module but those it wraps as they load."""

    def __init__(self, wrappers):
        self.wrappers = wrappers

    def find_spec(self, name, path=None, target=None):
        wrap = self.wrappers.pop(name, None)
        if wrap is None:
            return None
        if not self.wrappers:
            sys.meta_path.remove(self)
        from importlib.machinery import PathFinder  # loaded by the import system already

        spec = PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            wrap(module)

        spec.loader.exec_module = exec_module  # this module's own loader
        return spec


def _wrap_logging(logging):
    handle = logging.Logger.handle

    def handle_and_investigate(self, record):
        handle(self, record)
        exc = record.exc_info[1] if record.exc_info else None
        if exc is not None and record.levelno >= logging.ERROR and _logged_at_top(record):
            investigate(exc, None)

    handle_and_investigate._autodbg = True
    if not getattr(handle, "_autodbg", False):
        logging.Logger.handle = handle_and_investigate


def _wrap_asyncio_runner(runners):
    """At Ctrl-C asyncio.run's handler cancels the main task, and the KeyboardInterrupt comes after
    every task was cancelled: keep each task's frames (at their lines) and what it awaited as the
    handler is called, for the crash handler."""
    on_sigint = getattr(getattr(runners, "Runner", None), "_on_sigint", None)  # 3.11+
    if on_sigint is None or getattr(on_sigint, "_autodbg", False):
        return

    def look_then_cancel(self, signum, frame, main_task):
        global interrupted_tasks
        try:
            interrupted_tasks = [(task, [(f, f.f_lineno) for f in task.get_stack()], getattr(task, "_fut_waiter", None))
                                 for task in runners.tasks.all_tasks(self._loop)]
        except Exception:  # the program's own handler goes first whatever happens here
            interrupted_tasks = None
        return on_sigint(self, signum, frame, main_task)

    look_then_cancel._autodbg = True
    runners.Runner._on_sigint = look_then_cancel


def _logged_at_top(record):
    """Whether RECORD was logged by asyncio about an exception nobody will see, or from the top
    of the program: the main module's own code, or a function it called there."""
    if record.name == "asyncio":
        return True
    main = getattr(sys.modules.get("__main__"), "__file__", None)
    if not main or os.path.abspath(record.pathname) != os.path.abspath(main):
        return False
    if record.funcName == "<module>":
        return True
    frame = sys._getframe(0)
    while frame is not None and not (frame.f_code.co_filename == record.pathname and frame.f_lineno == record.lineno):
        frame = frame.f_back
    caller = frame.f_back if frame is not None else None
    return caller is not None and caller.f_code.co_name == "<module>" and caller.f_globals.get("__name__") == "__main__"
