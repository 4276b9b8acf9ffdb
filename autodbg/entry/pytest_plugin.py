"""The pytest plugin (entry point `pytest11`): `pytest --autodbg`, or `pytest = true` in
`[tool.autodbg]`, adds an "autodbg" section to each failing test's report: the evidence (with
pytest's own assertion message) and the model's diagnosis.

The section is added as pytest makes the report, while the test's frames are still there and
before the report is logged: under pytest-xdist a worker sends its reports to the controller when
they are logged, so the section travels with its report to the terminal. Each worker investigates
its own failures, without a model unless `--autodbg-workers` (N workers would run N models), as
wide as the controller's terminal. With `--pdb` the section is printed before pdb starts.

A budget per session (at most N investigations, a total time; per worker under xdist) keeps a
suite with 200 failures from taking an hour; `-x` and `--maxfail` stop it as they stop pytest.
Nothing here changes a test's outcome or pytest's exit status: whatever fails here becomes one
line in the section. Loaded in every pytest run of the venv, so it imports nothing of autodbg
until a test fails with the plugin on, but autodbg.startup (stdlib only), which remembers the
settings then.
"""

from __future__ import annotations

import time

import pytest

import autodbg.startup as startup

startup.remember()  # as pytest loads its plugins, before any conftest.py can change the environment

DEFAULT_MAX = 5  # investigations per session
DEFAULT_SECONDS = 300.0  # for all of them
WIDTH = "autodbg_width"  # the controller's terminal width, in each xdist worker's workerinput
WORKER_WIDTH = 80  # for a worker not told it (pytest's own fallback)
WITHOUT_MODEL = "an xdist worker: --autodbg-workers runs the model there too"


def pytest_addoption(parser) -> None:
    group = parser.getgroup("autodbg", "autodbg: a local model debugs each failing test")
    group.addoption("--autodbg", action="store_true", default=False,
                    help="add autodbg's evidence and diagnosis to each failing test's report")
    group.addoption("--autodbg-max", type=int, default=DEFAULT_MAX, metavar="N",
                    help=f"investigate at most N failures in this session (default {DEFAULT_MAX})")
    group.addoption("--autodbg-seconds", type=float, default=DEFAULT_SECONDS, metavar="S",
                    help=f"investigate for at most S seconds in all (default {DEFAULT_SECONDS:g})")
    group.addoption("--autodbg-workers", action="store_true", default=False,
                    help="run the model in pytest-xdist workers too (off: the evidence only, N workers "
                         "would run N models)")
    group.addoption("--autodbg-hang-after", type=float, default=None, metavar="S",
                    help="fail a test still running after S seconds, and say where it was stuck")


def pytest_configure(config) -> None:
    from autodbg.settings import load_settings, turned_off

    if turned_off():
        return
    if config.getoption("autodbg") or load_settings().pytest:
        config.pluginmanager.register(Investigator(config), "autodbg-investigator")


class Investigator:
    """Where tests run (pytest, or an xdist worker), investigates their failures into their
    reports; where the terminal is (pytest, or xdist's controller), counts the failures the budget
    left out."""

    def __init__(self, config) -> None:
        self.config = config
        self.left = config.getoption("autodbg_max")
        self.until = time.monotonic() + config.getoption("autodbg_seconds")
        self.skipped = 0  # failures past the budget
        in_worker = hasattr(config, "workerinput")
        self.without_model = WITHOUT_MODEL if in_worker and not config.getoption("autodbg_workers") else None
        self.hang_after = config.getoption("autodbg_hang_after")

    @property
    def width(self) -> int:
        """The terminal's width (read when used: pytest's terminal writer comes after this plugin)."""
        workerinput = getattr(self.config, "workerinput", None)
        if workerinput is not None:
            return workerinput.get(WIDTH, WORKER_WIDTH)
        return self.config.get_terminal_writer().fullwidth

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item):
        """With --autodbg-hang-after, a watchdog for the test: SIGALRM raises HangTimeout in it (an
        Exception, so pytest fails that test and runs the next; a KeyboardInterrupt would end the session)."""
        if self.hang_after is None:
            return (yield)
        import signal
        import threading

        from autodbg.errors import HangTimeout

        def on_alarm(signum, frame):
            from autodbg.analysis.hang import thread_stacks

            raise HangTimeout(self.hang_after, thread_stacks({threading.get_ident()}))

        previous = signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, self.hang_after)
        try:
            return (yield)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)

    # tryfirst: the outermost wrapper, so the report it sees is final (an xfail is no failure)
    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_makereport(self, item, call):
        report = yield
        if not report.failed or call.excinfo is None:
            return report
        remaining = self.until - time.monotonic()
        if self.left <= 0 or remaining <= 1:
            report.autodbg_skipped = True  # an attribute of the report: xdist sends it to the controller
            return report
        self.left -= 1
        report.sections.append(("autodbg", investigate(call.excinfo.value, remaining, self.width,
                                                       self.without_model)))
        return report

    @pytest.hookimpl(tryfirst=True)  # before pdb's own, which starts pdb
    def pytest_exception_interact(self, node, call, report) -> None:
        if not self.config.getoption("usepdb"):
            return
        writer = self.config.get_terminal_writer()
        for name, content in report.sections:
            if name == "autodbg":
                writer.line()
                writer.sep(">", "autodbg")
                writer.line(content.rstrip("\n"))

    def pytest_runtest_logreport(self, report) -> None:
        self.skipped += getattr(report, "autodbg_skipped", False)

    @pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist's controller, when it is installed
    def pytest_configure_node(self, node) -> None:
        node.workerinput[WIDTH] = self.width

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if self.skipped:
            terminalreporter.write_line(f"autodbg: {self.skipped} more failures not investigated "
                                        "(--autodbg-max / --autodbg-seconds)")


def investigate(exc: BaseException, seconds: float, width: int, without_model: str | None) -> str:
    """The autodbg section for EXC, as plain text WIDTH columns wide; never raises."""
    import dataclasses
    import io

    from autodbg.errors import AutodbgError, HangTimeout
    from autodbg.pipeline import handle_crash
    from autodbg.report import make_console
    from autodbg.settings import load_settings
    from autodbg.textsafe import say

    out = io.StringIO()
    try:
        settings = load_settings()
        settings = dataclasses.replace(settings, timeout=min(settings.timeout, seconds))
        hang_timeout = isinstance(exc, HangTimeout)
        handle_crash(exc, console=make_console(file=out, width=width), settings=settings, without_model=without_model,
                     interrupted_by=f"--autodbg-hang-after {exc.seconds:g}" if hang_timeout else "Ctrl-C",
                     threads=exc.threads if hang_timeout else None)
    except AutodbgError as err:
        say(f"autodbg: {err}", file=out)
    except Exception as err:  # never the test's outcome: one line instead
        say(f"autodbg: internal error: {type(err).__name__}: {' '.join(str(err).split())}", file=out)
    return out.getvalue()
