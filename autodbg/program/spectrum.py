"""Spectrum-based fault localization: which lines the failing tests ran and the passing ones did
not (Ochiai), from the program's own tests run on a confined copy with a line tracer."""

from __future__ import annotations

import json
import math
import os
import tempfile

from autodbg.program.judge import Tests
from autodbg.probe import confine
from autodbg.program.verify import confined_env, patched_copy, run_confined


def suspiciousness(tests: Tests, budget: float, first: tuple[str, ...]) -> dict[tuple[str, int], float] | str:
    """{(file, line): Ochiai score} of the lines TESTS ran, files as in the project (not its copy);
    or why the tests could not say. Empty where no test failed: then they point nowhere. The test
    functions FIRST run first; a run cut at BUDGET counts the tests that ended before."""
    unconfined = confine.available()
    if unconfined is not None:
        return f"not run: {unconfined}"
    with tempfile.TemporaryDirectory(prefix="autodbg-spectrum-") as tmp:
        copy, problem = patched_copy(tests.root, None, tmp)
        if problem is not None:
            return problem
        out = os.path.join(tmp, "spectrum.json")
        env = {**confined_env(tmp), "AUTODBG_SPECTRUM_ROOT": copy, "AUTODBG_SPECTRUM_OUT": out,
               "AUTODBG_SPECTRUM_FIRST": ",".join(first)}
        files = [os.path.relpath(f, tests.root) for f in tests.files]
        run = run_confined(tmp, ["-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
                                 "-p", "autodbg.program.coverage_plugin", *files], copy, None, env, budget)
        if isinstance(run, str) and run.startswith("not run"):
            return run
        try:
            with open(out, encoding="utf-8") as f:
                runs = [json.loads(line) for line in f if line.endswith("\n")]  # the last may be cut
        except (OSError, ValueError):
            runs = []
        if not runs:
            return f"the tests {run}" if isinstance(run, str) else "pytest gave no results"
    real = os.path.realpath(copy)
    back = lambda file: os.path.join(tests.root, os.path.relpath(os.path.realpath(file), real))  # noqa: E731
    return ochiai([(run.get("passed", True), {(back(f), n) for f, n in run.get("lines", [])}) for run in runs])


def ochiai(runs: list[tuple[bool, set[tuple[str, int]]]]) -> dict[tuple[str, int], float]:
    """Ochiai's score of each line RUNS (passed, lines run) ran: failed(line) / sqrt(failed *
    (failed(line) + passed(line))); lines no failing run ran score nothing."""
    failed = sum(not passed for passed, _ in runs)
    if not failed:
        return {}
    in_failed: dict[tuple[str, int], int] = {}
    in_passed: dict[tuple[str, int], int] = {}
    for passed, lines in runs:
        for line in lines:
            counts = in_passed if passed else in_failed
            counts[line] = counts.get(line, 0) + 1
    return {line: n / math.sqrt(failed * (n + in_passed.get(line, 0))) for line, n in in_failed.items()}
