"""A pytest plugin for `autodbg.program.spectrum`: the lines of the project each test ran, and
whether it passed, written as a JSON line as each test ends, the crash's own tests first. Loaded only in a confined copy
(`-p autodbg.program.coverage_plugin`); the project's folder and the output file come from
AUTODBG_SPECTRUM_ROOT and AUTODBG_SPECTRUM_OUT."""

from __future__ import annotations

import json
import os
import sys
import threading

import pytest

from autodbg.frames.core import is_test_file

ROOT = os.path.realpath(os.environ.get("AUTODBG_SPECTRUM_ROOT", "/nonexistent")) + os.sep
_runs: dict[str, dict] = {}


TRACED_CALLS = 20  # calls of one function traced line by line per test; later calls run at full speed


class LineRecorder:
    """Lines run in files under ROOT, by a tracer that looks only into those files' frames called
    from those files (or tests called by pytest), and only into the first TRACED_CALLS calls of
    each function: a test that calls one function in a
    loop ran 30 times slower traced throughout, and its later calls mostly run the same lines."""

    def __init__(self) -> None:
        self.lines: set[tuple[str, int]] = set()
        self._ours: dict[str, bool] = {}
        self._calls: dict[object, int] = {}

    def _inside(self, filename: str) -> bool:
        inside = self._ours.get(filename)
        if inside is None:
            inside = self._ours[filename] = os.path.isabs(filename) and os.path.realpath(filename).startswith(ROOT)
        return inside

    def global_trace(self, frame, event, arg):
        code = frame.f_code
        if not self._inside(code.co_filename):
            return None
        caller = frame.f_back
        if caller is not None and not self._inside(caller.f_code.co_filename) and not is_test_file(code.co_filename):
            # The program's code called back from a library's: mostly the report of a failure
            # (unittest formats repr(cache) for a failing assertIn), which only failing tests run.
            return None
        calls = self._calls[code] = self._calls.get(code, 0) + 1
        return self.local_trace if calls <= TRACED_CALLS else None

    def local_trace(self, frame, event, arg):
        if event == "line":
            self.lines.add((frame.f_code.co_filename, frame.f_lineno))
        return self.local_trace

    def __enter__(self) -> LineRecorder:
        threading.settrace(self.global_trace)
        sys.settrace(self.global_trace)
        return self

    def __exit__(self, *exc) -> None:
        sys.settrace(None)
        threading.settrace(None)


def pytest_collection_modifyitems(items):
    """The tests the crash ran through first (AUTODBG_SPECTRUM_FIRST, their function names): a run cut
    at its budget still holds a failing test, against which the passing ones so far point."""
    first = set(filter(None, os.environ.get("AUTODBG_SPECTRUM_FIRST", "").split(",")))
    items.sort(key=lambda item: getattr(item, "originalname", item.name) not in first)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    with LineRecorder() as recorder:
        yield
    run = _runs.setdefault(item.nodeid, {"passed": True})
    out = os.environ.get("AUTODBG_SPECTRUM_OUT")
    if out:  # one line a test, as it ends: what ran before a cut at the budget counts
        with open(out, "a", encoding="utf-8") as f:
            f.write(json.dumps({"passed": run["passed"], "lines": sorted(recorder.lines)}) + "\n")


def pytest_runtest_logreport(report):
    run = _runs.setdefault(report.nodeid, {"passed": True})
    if report.failed:
        run["passed"] = False
