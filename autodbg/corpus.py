"""Crash-case corpora in the format of shared/CORPUS.md: find and load cases, run them, apply fixes,
and verify that each case crashes as its truth.json says and that its recorded fix passes its test.

Stdlib only: the bench harness, `autodbg bench verify` and the corpus builder scripts all use it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fnmatch
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Iterator, NamedTuple

from autodbg.errors import AutodbgError
from autodbg.textsafe import say
from autodbg.fix.lines import python_lines, replace_lines

CRASH_KINDS = ("exception", "assertion", "hang")

# truth.json keys and their JSON types, in CORPUS.md order.
REQUIRED_KEYS = {
    "case": str, "corpus": str, "source": str, "buggy_file": str,
    "buggy_line": int, "buggy_line_end": int, "buggy_code": str, "fixed_code": str,
    "acceptable_lines": list, "exception": str, "crash_kind": str, "crash_cmd": str,
    "test_cmd": str, "crash_site": dict, "crash_at_buggy_line": bool,
}
OPTIONAL_KEYS = {"root_cause_frames_up": int, "description": str}


@dataclasses.dataclass
class Case:
    """One crash case: every truth.json field, plus where the case lives."""

    case: str
    corpus: str
    source: str
    buggy_file: str
    buggy_line: int
    buggy_line_end: int
    buggy_code: str
    fixed_code: str
    acceptable_lines: list[int]
    exception: str
    crash_kind: str
    crash_cmd: str
    test_cmd: str
    crash_site: dict  # {"file": path relative to the case folder, "line": int}
    crash_at_buggy_line: bool
    path: Path  # the case folder
    rel: str  # the case folder relative to its corpus root: the display name
    root_cause_frames_up: int | None = None
    description: str = ""


@dataclasses.dataclass
class CrashRun:
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool


class Frame(NamedTuple):
    file: str  # relative to the case folder when the file is inside it, else as printed
    line: int
    function: str


def _is_a(value: object, kind: type) -> bool:
    # JSON true/false load as bool, which is also an int: a line number must not be one.
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, kind)


def _value_problem(truth: dict) -> str | None:
    """What is wrong with the values of a truth.json whose keys all have the right JSON type."""
    if truth["crash_kind"] not in CRASH_KINDS:
        return f"bad key 'crash_kind': must be one of {', '.join(CRASH_KINDS)}"
    if not 1 <= truth["buggy_line"] <= truth["buggy_line_end"]:
        return "bad key 'buggy_line_end': must be at least buggy_line, which must be at least 1"
    if not all(_is_a(line, int) for line in truth["acceptable_lines"]):
        return "bad key 'acceptable_lines': must be a list of line numbers"
    site = truth["crash_site"]
    if not (_is_a(site.get("file"), str) and _is_a(site.get("line"), int)):
        return "bad key 'crash_site': must be {\"file\": str, \"line\": int}"
    return None


def load_case(path: Path, root: Path | None = None) -> Case:
    """The case in folder PATH; `rel` is PATH relative to ROOT (default: the folder's name)."""
    path = Path(path)
    truth_file = path / "truth.json"
    try:
        truth = json.loads(truth_file.read_text(encoding="utf-8"))
    except OSError as exc:
        raise AutodbgError(f"{truth_file}: cannot read it: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise AutodbgError(f"{truth_file}: not valid JSON: {exc}") from None
    if not isinstance(truth, dict):
        raise AutodbgError(f"{truth_file}: must hold a JSON object")
    for key in REQUIRED_KEYS:
        if key not in truth:
            raise AutodbgError(f"{truth_file}: missing key '{key}'")
    for key, kind in {**REQUIRED_KEYS, **OPTIONAL_KEYS}.items():
        if truth.get(key) is not None and not _is_a(truth[key], kind):
            raise AutodbgError(f"{truth_file}: bad key '{key}': must be a JSON {kind.__name__}")
    problem = _value_problem(truth)
    if problem:
        raise AutodbgError(f"{truth_file}: {problem}")
    fields = {key: truth[key] for key in REQUIRED_KEYS}
    fields.update({key: truth[key] for key in OPTIONAL_KEYS if truth.get(key) is not None})
    rel = path.name if root is None or path == root else path.relative_to(root).as_posix()
    return Case(**fields, path=path, rel=rel)


def find_cases(roots: list[Path], pattern: str | None = None) -> list[Case]:
    """Every case (a folder holding truth.json) under ROOTS, sorted by `rel`; PATTERN is a glob
    that the case name or `rel` must match."""
    found: dict[Path, Case] = {}
    for root in map(Path, roots):
        if not root.is_dir():
            raise AutodbgError(f"{root}: no such folder")
        for truth_file in root.rglob("truth.json"):
            # Overlapping roots (a corpus and one of its sub-folders) must not list a case twice.
            found.setdefault(truth_file.parent.resolve(), load_case(truth_file.parent, root))
    cases = sorted(found.values(), key=lambda case: (case.rel, str(case.path)))
    if pattern:
        cases = [case for case in cases
                 if fnmatch.fnmatchcase(case.case, pattern) or fnmatch.fnmatchcase(case.rel, pattern)]
    return cases


@contextlib.contextmanager
def scratch_copy(case: Case) -> Iterator[Path]:
    """A throw-away copy of the case folder, so that running or fixing it never touches the corpus."""
    with tempfile.TemporaryDirectory(prefix="autodbg-case-") as tmp:
        # Resolved, so traceback paths (which are resolved) can be made relative to it.
        copy = Path(tmp).resolve() / case.path.name
        shutil.copytree(case.path, copy, ignore=shutil.ignore_patterns("__pycache__"))
        yield copy


def _kill_session(session_id: int) -> None:
    # Killing the process group is not enough: `timeout`, which hang cases use, moves its child to a
    # group of its own. Both stay in the session, so on Linux kill every process of the session.
    with contextlib.suppress(OSError):
        os.killpg(session_id, signal.SIGKILL)
    with contextlib.suppress(OSError):
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                with contextlib.suppress(OSError):
                    if os.getsid(int(entry)) == session_id:
                        os.kill(int(entry), signal.SIGKILL)


def run_shell(command: str, cwd: Path, env: dict[str, str] | None, timeout: float) -> CrashRun:
    """Run COMMAND with `sh -c` in CWD; past TIMEOUT seconds, kill it and all it started."""
    start = time.monotonic()
    proc = subprocess.Popen(["sh", "-c", command], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            errors="replace", start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        _kill_session(proc.pid)
        stdout, stderr = proc.communicate()
        timed_out = True
    return CrashRun(proc.returncode, stdout, stderr, time.monotonic() - start, timed_out)


def run_crash(case_dir: Path, env: dict[str, str] | None, timeout: float) -> CrashRun:
    """Run the `crash_cmd` of the case in CASE_DIR (normally a scratch copy) with `sh -c`."""
    return run_shell(load_case(case_dir).crash_cmd, Path(case_dir), env, timeout)


def run_test(case_dir: Path, timeout: float, env: dict[str, str] | None = None) -> bool:
    """Whether the `test_cmd` of the case in CASE_DIR exits 0 within TIMEOUT seconds."""
    result = run_shell(load_case(case_dir).test_cmd, Path(case_dir), env, timeout)
    return result.returncode == 0 and not result.timed_out


def read_lines(path: Path) -> list[str]:
    """The lines of a text file with their endings, split where Python counts lines."""
    with open(path, encoding="utf-8", newline="") as f:
        return python_lines(f.read())


def apply_fix(case_dir: Path, file: str, line: int, line_end: int, replacement: str) -> None:
    """Replace lines LINE..LINE_END (1-based, inclusive) of FILE in CASE_DIR with REPLACEMENT."""
    case_dir = Path(case_dir).resolve()
    target = (case_dir / file).resolve()
    if not target.is_relative_to(case_dir):
        raise AutodbgError(f"{file}: not inside the case folder")
    with open(target, encoding="utf-8", newline="") as f:
        text = f.read()
    try:
        patched = replace_lines(text, line, line_end, replacement)
    except ValueError as exc:
        raise AutodbgError(f"{file}: {exc}") from None
    with open(target, "w", encoding="utf-8", newline="") as f:
        f.write(patched)


_FRAME_LINE = re.compile(r'  File "(?P<file>.+)", line (?P<line>\d+)(?:, in (?P<function>.+))?')


def _frame_file(printed: str, case_dir: Path) -> str:
    path = Path(printed)
    if not path.is_absolute():  # "<frozen runpy>", "<string>", or relative to the case folder
        return printed
    try:
        return path.resolve().relative_to(case_dir).as_posix()
    except ValueError:
        return printed


def parse_traceback(stderr: str, case_dir: Path) -> tuple[list[Frame], str | None]:
    """The frames (outermost first) and the exception type name of the last traceback in STDERR,
    with file names made relative to CASE_DIR; ([], None) when STDERR holds no traceback."""
    parts = stderr.rsplit("Traceback (most recent call last):", 1)
    if len(parts) < 2:
        return [], None
    case_dir = Path(case_dir).resolve()
    frames = []
    for text in parts[1].splitlines():
        match = _FRAME_LINE.fullmatch(text)
        if match:
            frames.append(Frame(_frame_file(match["file"], case_dir), int(match["line"]),
                                match["function"] or ""))
        elif text and not text[0].isspace():
            # The first unindented line is "module.ExceptionType: message" (or just the type).
            return frames, type_name(text.split(":", 1)[0])
    return frames, None


def type_name(exception: str) -> str:
    """The bare class name: tracebacks print `mod.Error` for classes outside __main__ and builtins."""
    return exception.strip().rsplit(".", 1)[-1]


def _source_problems(case: Case) -> list[str]:
    """Problems found by reading the case (whose buggy_file exists), without running anything."""
    lines = read_lines(case.path / case.buggy_file)
    problems = []
    current = "".join(lines[case.buggy_line - 1:case.buggy_line_end])
    if current.rstrip("\n") != case.buggy_code.rstrip("\n"):
        problems.append(f"buggy_code does not match lines {case.buggy_line}-{case.buggy_line_end} "
                        f"of {case.buggy_file}")
    if case.buggy_line not in case.acceptable_lines:
        problems.append("buggy_line is not in acceptable_lines")
    site = case.crash_site
    at_buggy_line = (site["file"] == case.buggy_file
                     and case.buggy_line <= site["line"] <= case.buggy_line_end)
    if at_buggy_line != case.crash_at_buggy_line:
        problems.append(f"crash_at_buggy_line should be {str(at_buggy_line).lower()}")
    if case.crash_kind == "hang" and case.exception != "KeyboardInterrupt":
        problems.append("a hang case must end in KeyboardInterrupt (it stops itself with SIGINT)")
    return problems


def _crash_problems(case: Case, run: CrashRun, case_dir: Path, timeout: float) -> list[str]:
    """Problems with how the case crashed in CASE_DIR."""
    if run.timed_out:
        hint = ": a hang case must stop itself with SIGINT" if case.crash_kind == "hang" else ""
        return [f"crash_cmd was still running after {timeout:g}s{hint}"]
    if run.returncode == 0:
        return ["crash_cmd exited 0: it does not crash"]
    frames, exception = parse_traceback(run.stderr, case_dir)
    if exception is None:
        return [f"crash_cmd exited {run.returncode} without a traceback"]
    problems = []
    if exception != type_name(case.exception):
        problems.append(f"crash ends in {exception}, not {case.exception}")
    site = case.crash_site
    if case.crash_kind == "hang":
        # SIGINT lands wherever the loop happens to be, so only the file is fixed.
        if site["file"] not in {frame.file for frame in frames}:
            problems.append(f"crash_site file {site['file']} is not in the traceback")
    elif (site["file"], site["line"]) not in {(frame.file, frame.line) for frame in frames}:
        problems.append(f"crash_site {site['file']}:{site['line']} is not in the traceback")
    return problems


def verify_case(case: Case, python_bin_dir: Path | None = None, timeout: float = 60) -> list[str]:
    """What is wrong with CASE (empty when nothing): it must crash as recorded, its test must fail,
    and pass once `fixed_code` replaces the buggy lines. Runs in scratch copies; PYTHON_BIN_DIR goes
    first on PATH so that `python3` in the case's commands is that interpreter."""
    if not (case.path / case.buggy_file).is_file():
        return [f"buggy_file {case.buggy_file} does not exist"]
    env = dict(os.environ)
    # Verifying must see the plain crash, not autodbg debugging it.
    env["AUTODBG"] = "0"
    if python_bin_dir is not None:
        env["PATH"] = os.pathsep.join([str(python_bin_dir), env.get("PATH", "")])
    problems = _source_problems(case)
    with scratch_copy(case) as case_dir:
        problems += _crash_problems(case, run_crash(case_dir, env, timeout), case_dir, timeout)
    with scratch_copy(case) as case_dir:
        if run_test(case_dir, timeout, env):
            problems.append("test_cmd passes before the fix")
    with scratch_copy(case) as case_dir:
        try:
            apply_fix(case_dir, case.buggy_file, case.buggy_line, case.buggy_line_end, case.fixed_code)
        except AutodbgError as exc:
            return problems + [f"cannot apply fixed_code: {exc}"]
        if not run_test(case_dir, timeout, env):
            problems.append("test_cmd does not pass after the fix")
    return problems


def verify_main(roots: list[Path], pattern: str | None = None, jobs: int = 1) -> int:
    """Verify every case under ROOTS, one line each, then a total line; 0 when all are ok."""
    cases = find_cases(roots, pattern)
    if not cases:
        where = ", ".join(map(str, roots)) + (f" matching {pattern}" if pattern else "")
        raise AutodbgError(f"no cases under {where}")
    failed = 0
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        # map() yields in case order, so the output does not depend on JOBS.
        for case, problems in zip(cases, pool.map(verify_case, cases)):
            if problems:
                failed += 1
                say(f"FAIL {case.rel}: {'; '.join(problems)}")
            else:
                say(f"ok  {case.rel}")
    say(f"{len(cases) - failed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    import argparse
    import sys

    parser = argparse.ArgumentParser(prog="python -m autodbg.corpus",
                                     description="Check crash-case corpora (format: CORPUS.md).")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    verify = commands.add_parser("verify", help="check that every case crashes as recorded and "
                                                "that its fix passes its test")
    verify.add_argument("roots", nargs="+", type=Path, metavar="DIR")
    verify.add_argument("-k", "--pattern", help="only cases whose name or path matches this glob")
    verify.add_argument("-j", "--jobs", type=int, default=1, help="cases verified at once")
    args = parser.parse_args()
    try:
        sys.exit(verify_main(args.roots, args.pattern, args.jobs))
    except AutodbgError as exc:
        say(f"autodbg: {exc}", file=sys.stderr)
        sys.exit(2)
