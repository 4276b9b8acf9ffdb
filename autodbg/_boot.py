"""The start-up hook: autodbg.pth calls `install()` at every start of an interpreter in the venv.

It runs before every Python program, so it stays tiny: stdlib only, nothing imported at module level
beyond `sys` and `os` (both already loaded by `site`), and at start-up only autodbg.startup, which
remembers the settings before the program can change them. The crash handler is imported at a crash.
"""

import os
import sys

# Variables that mean "running in CI": the hook stays quiet there unless AUTODBG=1.
CI_VARS = ("CI", "GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE", "CIRCLECI", "TRAVIS", "TF_BUILD",
           "JENKINS_URL", "TEAMCITY_VERSION", "CODEBUILD_BUILD_ID", "BITBUCKET_BUILD_NUMBER",
           "CIRRUS_CI", "HEROKU_TEST_RUN_ID", "BUILD_ID")

# `autodbg install` writes this file into the venv's prefix; it enables the hook there.
MARKER = "autodbg.enabled"

# The exception last handed to the crash handler. When another hook of ours sits further up the
# chain (see install()), it sees the same exception and leaves it alone.
_handled = None


def install():
    """Hook sys.excepthook and threading.excepthook, if autodbg is enabled for this interpreter."""
    import autodbg.startup as startup

    startup.remember()  # before the program runs
    if not enabled()[0] or getattr(sys.excepthook, "_autodbg", False):
        return  # off, or already ours: a venv runs each .pth twice
    # If something replaced our hook since the last call (a sitecustomize that runs after the
    # .pth), wrap again so the autodbg section still comes after that hook's output.
    sys.excepthook = _chained_excepthook(sys.excepthook)
    if not getattr(sys, "_autodbg_hooked", False):
        sys._autodbg_hooked = True
        _hook_threads()
        _hook_logging()


def enabled():
    """(is autodbg enabled for this interpreter, why)."""
    import autodbg.startup as startup

    setting = startup.environ().get("AUTODBG")
    if startup.switch(setting) is False:
        return False, f"AUTODBG={setting} turns it off"
    if startup.switch(setting) is True:
        return True, f"AUTODBG={setting} turns it on"
    marker = os.path.join(sys.prefix, MARKER)
    if os.path.exists(marker):
        return True, f"{marker} exists"
    return False, f"no {marker}; `autodbg install` writes it"


def should_investigate(exc):
    """Whether the crash handler should look at EXC, an exception nobody caught. A KeyboardInterrupt
    is one: the handler says where the program was, and investigates it if it was stuck."""
    if isinstance(exc, (SystemExit, GeneratorExit)):
        return False
    return decision()[0]


def decision():
    """(would a crash now be investigated, why), apart from the exception's type."""
    import autodbg.startup as startup

    env = os.environ  # as it is now, for what the program is doing: running under pytest, or in CI
    setting = startup.environ().get("AUTODBG")
    if startup.switch(setting) is False:
        return False, f"AUTODBG={setting} turns it off"
    if hasattr(sys, "ps1") or sys.flags.interactive:
        return False, "interactive interpreter: its errors are not crashes"
    if "PYTEST_CURRENT_TEST" in env:
        return False, "running under pytest"
    if _in_multiprocessing_child():
        return False, "multiprocessing child: the parent process gets the failure"
    if startup.switch(setting) is True:
        return True, f"AUTODBG={setting} forces it"
    ci = next((name for name in CI_VARS if env.get(name)), None)
    if ci:
        return False, f"{ci} is set, so this is CI (AUTODBG=1 forces it)"
    from autodbg.terminal import is_tty  # only when a crash or `autodbg status` asks

    if not is_tty(sys.stderr):
        return False, "stderr is not a terminal (AUTODBG=1 forces it)"
    return True, "stderr is a terminal and no CI variable is set"


def status():
    """(what, state, why) rows for `autodbg status`, from the checks the hook itself makes."""
    on, why = enabled()
    rows = [("enabled", "yes" if on else "no", why)]
    if not on:
        return rows
    if not getattr(sys, "_autodbg_hooked", False):
        rows.append(("start-up hook", "did not run",
                     "python -S, or autodbg.pth is missing from site-packages"))
        return rows
    rows.append(("start-up hook", "ran", "sys.excepthook and threading.excepthook are hooked"))
    investigate, why = decision()
    rows.append(("on a crash", "investigate" if investigate else "traceback only", why))
    return rows


def _in_multiprocessing_child():
    # A crash in a pool worker reaches the parent, which investigates it; N children each running a
    # model at once would not help. multiprocessing is always loaded in a child, so no import here.
    process = sys.modules.get("multiprocessing.process")
    return process is not None and process.parent_process() is not None


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
    are still there. logging is hooked once the program imports it: importing it here would cost
    milliseconds at every start."""
    logging = sys.modules.get("logging")
    if logging is not None:
        _wrap_logging(logging)
    else:
        sys.meta_path.insert(0, _LoggingImportWatcher())


class _LoggingImportWatcher:
    """A meta path finder that steps aside at once for every module but logging."""

    def find_spec(self, name, path=None, target=None):
        if name != "logging":
            return None
        sys.meta_path.remove(self)
        from importlib.machinery import PathFinder  # loaded by the import system already

        spec = PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            _wrap_logging(module)

        spec.loader.exec_module = exec_module  # this module's own loader
        return spec


def _wrap_logging(logging):
    handle = logging.Logger.handle

    def handle_and_investigate(self, record):
        handle(self, record)
        exc = record.exc_info[1] if record.exc_info else None
        if exc is not None and record.levelno >= logging.ERROR and _logged_at_top(record):
            _investigate(exc, None)

    handle_and_investigate._autodbg = True
    if not getattr(handle, "_autodbg", False):
        logging.Logger.handle = handle_and_investigate


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


def _chained_excepthook(previous):
    def excepthook(exc_type, exc, tb):
        previous(exc_type, exc, tb)  # the user's traceback first, exactly as without autodbg
        _investigate(exc, None)

    excepthook._autodbg = True
    excepthook.__wrapped__ = previous
    return excepthook


def _chained_thread_excepthook(previous):
    def thread_excepthook(args):
        previous(args)  # "Exception in thread ..." as usual
        _investigate(args.exc_value, getattr(args.thread, "name", "unknown thread"))

    thread_excepthook._autodbg = True
    thread_excepthook.__wrapped__ = previous
    return thread_excepthook


def _investigate(exc, thread_name):
    global _handled
    try:
        if exc is None or exc is _handled or not should_investigate(exc):
            return
        _handled = exc
        from autodbg.pipeline import handle_crash
        if thread_name is None:
            try:
                handle_crash(exc)
            finally:
                if isinstance(exc, KeyboardInterrupt):
                    _keep_interrupted_exit()
        else:
            handle_crash(exc, thread_name=thread_name)  # in the dying thread: the others go on
    except KeyboardInterrupt:
        pass  # the user wants out; their traceback is already printed
    except BaseException as error:  # ours failed; the user's traceback is already printed
        _report_internal_error(error)


def _keep_interrupted_exit():
    """Python ends a program that a KeyboardInterrupt ended by killing itself with SIGINT (status
    -2, 130 in a shell), from a flag that every exec() of a string resets -- and importing the crash
    handler runs many (dataclasses). Running code that raises KeyboardInterrupt through the same
    path sets the flag again, so the exit status stays what Python gives."""
    try:
        exec("raise KeyboardInterrupt")
    except KeyboardInterrupt:
        pass


def _report_internal_error(error):
    """One line, or with AUTODBG_DEBUG=1 autodbg's own traceback, for a bug report."""
    try:
        import autodbg.startup as startup

        if startup.switch(startup.environ().get("AUTODBG_DEBUG")):
            import traceback
            sys.stderr.write("autodbg: internal error (AUTODBG_DEBUG=1):\n")
            traceback.print_exception(type(error), error, error.__traceback__)
            return
        message = " ".join(str(error).splitlines())
        what = f"{type(error).__name__}: {message}" if message else type(error).__name__
        sys.stderr.write(f"autodbg: internal error: {what}\n")
        sys.stderr.flush()
    except BaseException:
        pass  # stderr itself is gone: nothing left to tell
