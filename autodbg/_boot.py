"""The crash handler's first floor: whether a crash is investigated, and handing it on. The start-up
hook (_autodbg_hook, at the root of site-packages) imports this module only when it sees an
exception; `autodbg status` asks it what the hook would do.
"""

import os
import sys

import autodbg.startup as startup
from _autodbg_hook import MARKER, enabled  # noqa: F401 -- for autodbg.installer and `autodbg status`

# Variables that mean "running in CI": the hook stays quiet there unless AUTODBG=1.
CI_VARS = ("CI", "GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE", "CIRCLECI", "TRAVIS", "TF_BUILD",
           "JENKINS_URL", "TEAMCITY_VERSION", "CODEBUILD_BUILD_ID", "BITBUCKET_BUILD_NUMBER",
           "CIRRUS_CI", "HEROKU_TEST_RUN_ID", "BUILD_ID")

# The exception last handed to the crash handler. When another hook of ours sits further up the
# chain (see _autodbg_hook.install), it sees the same exception and leaves it alone.
_handled = None


def should_investigate(exc):
    """Whether the crash handler should look at EXC, an exception nobody caught. A KeyboardInterrupt
    is one: the handler says where the program was, and investigates it if it was stuck."""
    if isinstance(exc, (SystemExit, GeneratorExit)):
        return False
    return decision()[0]


def decision():
    """(would a crash now be investigated, why), apart from the exception's type."""
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


def investigate(exc, thread_name):
    """Investigate EXC, an exception nobody caught (in the thread THREAD_NAME, None: the main one),
    if should_investigate says so; whatever fails here is one line, after the user's traceback."""
    global _handled
    limit = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(max(limit, _RECURSION))  # a program may have lowered it
        if exc is None or exc is _handled or not should_investigate(exc):
            return
        _handled = exc
        if thread_name is None:
            saved = _disarm()
            try:
                from autodbg.pipeline import handle_crash
                handle_crash(exc)
            finally:
                _rearm(saved)
                if isinstance(exc, KeyboardInterrupt):
                    _keep_interrupted_exit()
        else:
            from autodbg.pipeline import handle_crash
            handle_crash(exc, thread_name=thread_name)  # in the dying thread: the others go on
    except KeyboardInterrupt:
        pass  # the user wants out; their traceback is already printed
    except BaseException as error:  # ours failed; the user's traceback is already printed
        _report_internal_error(error)
    finally:
        sys.setrecursionlimit(limit)


# Signals the program's handlers or timers could raise while autodbg works: SIGCHLD each time a
# probe exits, an armed alarm or profiling timer, SIGIO.
_DISARMED_SIGNALS = ("SIGCHLD", "SIGALRM", "SIGVTALRM", "SIGPROF", "SIGIO", "SIGURG")
_RECURSION = 3000  # frames autodbg's own work may need, whatever limit the program set


def _disarm():
    """Stop the program's process-wide hooks from running while autodbg works after a crash in
    the main thread (and in every probe, which forks from here): its signal handlers and interval
    timers, profiler and tracer (threading's too), gc callbacks. What it returns is what _rearm
    puts back for the program's exit, timers with the time they had left (not the profiler and
    tracer: only autodbg's own frames are left in this thread)."""
    import gc
    import signal
    import threading

    saved = {"threading": (threading._profile_hook, threading._trace_hook), "gc": list(gc.callbacks),
             "signals": {}, "timers": {}}
    sys.setprofile(None)
    sys.settrace(None)
    threading.setprofile(None)
    threading.settrace(None)
    gc.callbacks.clear()
    for which in ("ITIMER_REAL", "ITIMER_VIRTUAL", "ITIMER_PROF"):
        if hasattr(signal, which):
            saved["timers"][getattr(signal, which)] = signal.setitimer(getattr(signal, which), 0)
    for name in _DISARMED_SIGNALS:
        number = getattr(signal, name, None)
        if number is not None:
            # Defaults, except for signals whose default would end the process mid-report.
            quiet = signal.SIG_DFL if name in ("SIGCHLD", "SIGURG") else signal.SIG_IGN
            saved["signals"][number] = signal.signal(number, quiet)
    return saved


def _rearm(saved):
    import gc
    import signal
    import threading

    for number, handler in saved["signals"].items():
        if handler is not None:  # None: set from C, cannot be put back from Python
            signal.signal(number, handler)
    gc.callbacks[:] = saved["gc"]
    for which, (remaining, interval) in saved["timers"].items():
        if remaining or interval:
            signal.setitimer(which, remaining, interval)
    threading.setprofile(saved["threading"][0])
    threading.settrace(saved["threading"][1])


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
        if startup.switch(startup.environ().get("AUTODBG_DEBUG")):
            import traceback
            sys.stderr.write("autodbg: internal error (AUTODBG_DEBUG=1):\n")
            traceback.print_exception(type(error), error, error.__traceback__)
            return
        from autodbg.textsafe import terminal_safe  # only here, at a failure: not on the start-up path

        message = " ".join(str(error).splitlines())
        what = f"{type(error).__name__}: {message}" if message else type(error).__name__
        sys.stderr.write(terminal_safe(f"autodbg: internal error: {what}") + "\n")
        sys.stderr.flush()
    except BaseException:
        pass  # stderr itself is gone: nothing left to tell
