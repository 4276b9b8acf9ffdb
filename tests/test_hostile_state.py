"""Hostile program state under the real crash hook: whatever the crashed program's objects do when
they are looked at (log, write files, set themselves up, reorder, block, exit, cancel timers), the
user's traceback and exit status stay Python's, the JSON report is written, nothing in the crashed
process changes, and the crash ends within its budget.

Each victim (tests/hostile/) logs every call into its objects as `PID EVENT` lines, and its final
state at exit. The same program runs under AUTODBG=0 and under the hook: the lines the crashed
process itself wrote must be the same in both runs (a probe's lines carry another pid). Every case
also crashes in a thread (HOSTILE_MODE=thread), which the program outlives and then exits by itself.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import clean_env
from leftovers import survivors

HOSTILE = Path(__file__).resolve().parent / "hostile"
BUDGET = 10  # AUTODBG_TIMEOUT: seconds for the whole investigation
HANG_GUARD = BUDGET + 30  # only to stop a hung crash; not a speed assertion

# victim program -> the exception it crashes with
CASES = {
    "protocol": "ZeroDivisionError",  # every protocol method logged; __eq__ writes a file
    "generator": "ZeroDivisionError",
    "lazy": "KeyError",
    "lru": "ZeroDivisionError",
    "block_class": "KeyError",
    "block_repr": "KeyError",
    "block_meta": "KeyError",
    "exit_getitem": "ZeroDivisionError",
    "systemexit_getitem": "ZeroDivisionError",
    "mock_spec": "TypeError",
    "timer_repr": "KeyError",
    "own_timer": "ZeroDivisionError",
    "recursion": "KeyError",
    "huge": "ZeroDivisionError",
}


# Events in the victims that only a look at their objects causes, never their own run.
DEBUGGER_ONLY = ("blocks", "exits", "raises SystemExit", "cancels the timer", "LazySettings set up", "LocalProxy",
                 "__repr__", "__class__")


@dataclass
class Run:
    status: int | None
    stdout: str
    stderr: str
    log: list[str]  # the lines the program's own process wrote, pid removed
    seconds: float
    hung: bool
    left_behind: list[str]  # processes of the run still alive after it ended (killed then)


def run_victim(name: str, mode: str, tmp_path: Path, **env: str) -> Run:
    work = tmp_path / f"{'hooked' if env.get('AUTODBG') == '1' else 'plain'}-{mode}"
    work.mkdir()
    log_path = work / "log.txt"
    environ = clean_env(HOSTILE_LOG=str(log_path), HOSTILE_MODE=mode, PYTHONDONTWRITEBYTECODE="1", **env)
    started = time.monotonic()
    proc = subprocess.Popen([sys.executable, str(HOSTILE / f"{name}.py")], cwd=work, env=environ,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=HANG_GUARD)
        hung = False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        hung = True
    seconds = time.monotonic() - started
    left = survivors(proc.pid)
    lines = log_path.read_text().splitlines() if log_path.exists() else []
    own_pid = lines[0].split()[0] if lines else None  # `start` comes first, from the program's process
    own = [line.split(" ", 1)[1] for line in lines if line.split()[0] == own_pid]
    return Run(proc.returncode, out.decode(errors="replace"), err.decode(errors="replace"), own, seconds, hung, left)


def problems_with(hooked: Run, plain: Run, exception: str, report: Path, mode: str) -> list[str]:
    """Everything the hooked run did differently from Python's own run, one line each."""
    found = []
    if hooked.hung:
        found.append(f"still running after {HANG_GUARD} s (AUTODBG_TIMEOUT={BUDGET}): killed")
    if hooked.left_behind:
        found.append(f"processes left running after the program ended: {hooked.left_behind}")
    if not hooked.stderr.startswith(plain.stderr):
        found.append("the traceback is not Python's: stderr does not start with the AUTODBG=0 run's stderr; "
                     f"first {len(plain.stderr)} chars were {hooked.stderr[:len(plain.stderr)][-300:]!r}")
    ours = hooked.stderr[len(plain.stderr):] if hooked.stderr.startswith(plain.stderr) else hooked.stderr
    if "autodbg" not in ours:
        found.append("autodbg printed nothing after the traceback")
    for line in ours.splitlines():
        if line.startswith("autodbg: internal error"):
            found.append(line)
    if hooked.status != plain.status:
        found.append(f"exit status {hooked.status}, Python's is {plain.status}")
    if hooked.stdout != plain.stdout:
        found.append(f"stdout {hooked.stdout!r}, Python's is {plain.stdout!r}")
    if not report.exists():
        found.append("no JSON report was written")
    else:
        data = json.loads(report.read_text())
        if data["dossier"]["exception"]["type"] != exception:
            found.append(f"the report's exception is {data['dossier']['exception']['type']}, not {exception}")
        if data["thread"] != ("victim" if mode == "thread" else None):
            found.append(f"the report's thread is {data['thread']!r}")
        if report.stat().st_size > 1_000_000:
            found.append(f"the report is {report.stat().st_size} bytes: values are not size-capped")
    calls = [line for line in hooked.log if line not in plain.log and not line.startswith("state ")]
    if calls:
        found.append(f"the crashed process ran the program's code {len(calls)} times: {calls[:8]}")
    states = [[line for line in run.log if line.startswith("state ")] for run in (plain, hooked)]
    if states[0] != states[1]:
        found.append(f"the program's state at exit changed: {states[0]} became {states[1]}")
    cut_short = [line for line in plain.log if line not in hooked.log and not line.startswith("state ")]
    if cut_short:
        found.append(f"the program's own run was cut short: it never logged {cut_short}")
    return found


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["main", "thread"])
@pytest.mark.parametrize("name", list(CASES))
def test_hostile_state_under_the_hook(tmp_path, name, mode):
    plain = run_victim(name, mode, tmp_path, AUTODBG="0")
    assert not plain.hung and plain.log[0] == "start" and "state exited" in plain.log, plain
    report = tmp_path / "report.json"
    hooked = run_victim(name, mode, tmp_path, AUTODBG="1", AUTODBG_MODEL="none", AUTODBG_TIMEOUT=str(BUDGET),
                        AUTODBG_REPORT=str(report))
    problems = problems_with(hooked, plain, CASES[name], report, mode)
    assert not problems, "\n".join(problems)


@pytest.mark.slow
def test_victims_crash_as_designed_without_autodbg(tmp_path):
    """The victims themselves: each crashes with its exception, the thread cases go on and exit 0,
    and the program's own log has no call that only a debugger would make."""
    for name, exception in CASES.items():
        for mode in ("main", "thread"):
            folder = tmp_path / f"{name}-{mode}"
            folder.mkdir()
            run = run_victim(name, mode, folder, AUTODBG="0")
            assert run.status == (0 if mode == "thread" else 1), (name, mode, run.stderr)
            assert run.stderr.rstrip().splitlines()[-1].startswith(exception), (name, mode, run.stderr)
            assert run.stdout == ("main goes on\n" if mode == "thread" else "")
            assert not [line for line in run.log for marker in DEBUGGER_ONLY if marker in line], (name, mode, run.log)
