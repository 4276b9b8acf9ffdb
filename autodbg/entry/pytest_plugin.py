"""The pytest plugin (entry point `pytest11`): `pytest --autodbg`, or `pytest = true` in
`[tool.autodbg]`, adds an "autodbg" section to each failing test's report: the evidence (with
pytest's own assertion message) and the model's diagnosis.

pytest keeps a failing test's frames until `pytest_exception_interact`, where `--pdb` gets them
too. A budget per session (at most N investigations, a total time) keeps a suite with 200
failures from taking an hour; `-x` and `--maxfail` stop it as they stop pytest. Nothing here
changes a test's outcome or pytest's exit status: whatever fails here becomes one line in the
section. Loaded in every pytest run of the venv, so it imports nothing of autodbg until a test
fails with the plugin on, but autodbg.startup (stdlib only), which remembers the settings then.
"""

from __future__ import annotations

import time

import pytest

import autodbg.startup as startup

startup.remember()  # as pytest loads its plugins, before any conftest.py can change the environment

DEFAULT_MAX = 5  # investigations per session
DEFAULT_SECONDS = 300.0  # for all of them


def pytest_addoption(parser) -> None:
    group = parser.getgroup("autodbg", "autodbg: a local model debugs each failing test")
    group.addoption("--autodbg", action="store_true", default=False,
                    help="add autodbg's evidence and diagnosis to each failing test's report")
    group.addoption("--autodbg-max", type=int, default=DEFAULT_MAX, metavar="N",
                    help=f"investigate at most N failures in this session (default {DEFAULT_MAX})")
    group.addoption("--autodbg-seconds", type=float, default=DEFAULT_SECONDS, metavar="S",
                    help=f"investigate for at most S seconds in all (default {DEFAULT_SECONDS:g})")
    group.addoption("--autodbg-hang-after", type=float, default=None, metavar="S",
                    help="fail a test still running after S seconds, and say where it was stuck")
    group.addoption("--autodbg-workers", action="store_true", default=False,
                    help="investigate in pytest-xdist workers too (off: N workers would run N models)")


def pytest_configure(config) -> None:
    from autodbg.settings import load_settings, turned_off

    if turned_off():
        return
    in_worker = hasattr(config, "workerinput")
    wanted = config.getoption("autodbg") or load_settings().pytest
    if wanted and (not in_worker or config.getoption("autodbg_workers")):
        config.pluginmanager.register(Investigator(config), "autodbg-investigator")


class Investigator:
    def __init__(self, config) -> None:
        self.left = config.getoption("autodbg_max")
        self.until = time.monotonic() + config.getoption("autodbg_seconds")
        self.skipped = 0  # failures past the budget
        self.hang_after = config.getoption("autodbg_hang_after")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item):
        """With --autodbg-hang-after, a watchdog for the test: SIGALRM raises HangTimeout in it (an
        Exception, so pytest fails that test and runs the next; a KeyboardInterrupt would end the session)."""
        if self.hang_after is None:
            yield
            return
        import signal

        from autodbg.errors import HangTimeout

        def on_alarm(signum, frame):
            raise HangTimeout(self.hang_after)

        previous = signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, self.hang_after)
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)

    def pytest_exception_interact(self, node, call, report) -> None:
        if not report.failed:
            return
        remaining = self.until - time.monotonic()
        if self.left <= 0 or remaining <= 1:
            self.skipped += 1
            return
        self.left -= 1
        report.sections.append(("autodbg", investigate(call.excinfo.value, remaining)))

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if self.skipped:
            terminalreporter.write_line(f"autodbg: {self.skipped} more failures not investigated "
                                        "(--autodbg-max / --autodbg-seconds)")


def investigate(exc: BaseException, seconds: float) -> str:
    """The autodbg section for EXC, as plain text; never raises."""
    import dataclasses
    import io

    from autodbg.errors import AutodbgError, HangTimeout
    from autodbg.pipeline import handle_crash
    from autodbg.report import make_console
    from autodbg.settings import load_settings

    out = io.StringIO()
    try:
        settings = load_settings()
        settings = dataclasses.replace(settings, timeout=min(settings.timeout, seconds))
        handle_crash(exc, console=make_console(file=out, width=100), settings=settings,
                     interrupted_by=f"--autodbg-hang-after {exc.seconds:g}" if isinstance(exc, HangTimeout) else "Ctrl-C")
    except AutodbgError as err:
        out.write(f"autodbg: {err}\n")
    except Exception as err:  # never the test's outcome: one line instead
        out.write(f"autodbg: internal error: {type(err).__name__}: {' '.join(str(err).split())}\n")
    return out.getvalue()
