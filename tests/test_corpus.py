"""autodbg.corpus on real tiny cases written into temporary folders and run for real."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest

from autodbg.corpus import (apply_fix, find_cases, load_case, parse_traceback, run_crash,
                            scratch_copy, verify_case, verify_main)
from autodbg.errors import AutodbgError
from conftest import clean_env, run_py

# Cases run `python3` from PATH: make that the interpreter running the tests.
PYTHON_BIN_DIR = Path(sys.executable).parent

PROGRAM = """\
PRICES = {"apple": 3, "pear": 4}


def price_of(item):
    return PRICES[item]


def total(items):
    return sum(price_of(item) for item in items)


print(total(["apple", "pera"]))
"""

HANG_PROGRAM = """\
def count_down(n):
    while n != 0:
        n -= 2
    return n


print(count_down(5))
"""


def make_case(folder: Path, program: str = PROGRAM, run: str = "python3 prog.py", **truth) -> Path:
    """A case folder holding prog.py and run.sh; TRUTH overrides the keys of a good exception case."""
    folder.mkdir(parents=True)
    (folder / "prog.py").write_text(program)
    (folder / "run.sh").write_text(f'cd "$(dirname "$0")"\n{run}\n')
    good = {
        "case": folder.name, "corpus": "test", "source": "written for the tests",
        "buggy_file": "prog.py", "buggy_line": 12, "buggy_line_end": 12,
        "buggy_code": 'print(total(["apple", "pera"]))',
        "fixed_code": 'print(total(["apple", "pear"]))',
        "acceptable_lines": [12], "exception": "KeyError", "crash_kind": "exception",
        "crash_cmd": "sh run.sh", "test_cmd": "sh run.sh | grep -qx 7",
        "crash_site": {"file": "prog.py", "line": 5}, "crash_at_buggy_line": False,
        "root_cause_frames_up": -1, "description": "A misspelt item name.",
    }
    (folder / "truth.json").write_text(json.dumps({**good, **truth}, indent=2))
    return folder


HANG_TRUTH = {"buggy_line": 3, "buggy_line_end": 3, "buggy_code": "        n -= 2",
              "fixed_code": "        n -= 1", "acceptable_lines": [3], "exception": "KeyboardInterrupt",
              "crash_kind": "hang", "crash_site": {"file": "prog.py", "line": 2}, "test_cmd": "sh run.sh"}


def verify(folder: Path, timeout: float = 30) -> list[str]:
    return verify_case(load_case(folder), PYTHON_BIN_DIR, timeout)


def test_good_case_verifies(tmp_path):
    assert verify(make_case(tmp_path / "good")) == []


def test_verifying_leaves_the_case_untouched(tmp_path):
    folder = make_case(tmp_path / "good")
    verify(folder)
    assert (folder / "prog.py").read_text() == PROGRAM
    assert sorted(p.name for p in folder.iterdir()) == ["prog.py", "run.sh", "truth.json"]


def test_case_that_does_not_crash(tmp_path):
    fixed = PROGRAM.replace('"pera"', '"pear"')
    folder = make_case(tmp_path / "calm", fixed, buggy_code='print(total(["apple", "pear"]))')
    problems = verify(folder)
    assert "crash_cmd exited 0: it does not crash" in problems
    assert "test_cmd passes before the fix" in problems


def test_wrong_buggy_code(tmp_path):
    folder = make_case(tmp_path / "stale", buggy_code='print(total(["apple"]))')
    assert verify(folder) == ["buggy_code does not match lines 12-12 of prog.py"]


def test_fix_that_does_not_pass_the_test(tmp_path):
    folder = make_case(tmp_path / "badfix", fixed_code='print(total(["apple", "apple"]))')
    assert verify(folder) == ["test_cmd does not pass after the fix"]


def test_wrong_exception_and_crash_site(tmp_path):
    folder = make_case(tmp_path / "wrong", exception="IndexError",
                       crash_site={"file": "prog.py", "line": 9})
    assert verify(folder) == ["crash ends in KeyError, not IndexError"]
    folder = make_case(tmp_path / "elsewhere", crash_site={"file": "prog.py", "line": 4})
    assert verify(folder) == ["crash_site prog.py:4 is not in the traceback"]


def test_buggy_line_must_be_acceptable(tmp_path):
    folder = make_case(tmp_path / "unacceptable", acceptable_lines=[5])
    assert verify(folder) == ["buggy_line is not in acceptable_lines"]


@pytest.mark.slow
def test_hang_case_stopped_by_its_own_sigint(tmp_path):
    folder = make_case(tmp_path / "hang", HANG_PROGRAM, run="timeout -s INT 3 python3 prog.py",
                       **HANG_TRUTH)
    assert verify(folder) == []


@pytest.mark.slow
def test_hang_case_stopped_by_the_verifier_timeout(tmp_path):
    folder = make_case(tmp_path / "endless", HANG_PROGRAM, **HANG_TRUTH)
    start = time.monotonic()
    problems = verify(folder, timeout=1.5)
    assert problems == ["crash_cmd was still running after 1.5s: a hang case must stop itself with SIGINT"]
    assert time.monotonic() - start < 15


@pytest.mark.parametrize("command", ["sleep 30 & sleep 30", "timeout 30 sleep 30"])
def test_run_crash_timeout_kills_every_process_it_started(tmp_path, command):
    # A survivor would keep stdout open and make run_crash wait for it.
    folder = make_case(tmp_path / "sleepy", crash_cmd=command)
    run = run_crash(folder, None, timeout=1)
    assert run.timed_out
    assert run.seconds < 10


def test_run_crash_reports_output(tmp_path):
    folder = make_case(tmp_path / "good")
    with scratch_copy(load_case(folder)) as case_dir:
        run = run_crash(case_dir, None, timeout=30)
        frames, exception = parse_traceback(run.stderr, case_dir)
    assert run.returncode == 1 and not run.timed_out
    assert exception == "KeyError"
    assert [(f.file, f.line, f.function) for f in frames] == [
        ("prog.py", 12, "<module>"), ("prog.py", 9, "total"), ("prog.py", 9, "<genexpr>"),
        ("prog.py", 5, "price_of")]


def test_parse_traceback_takes_the_last_one_and_strips_module_names(tmp_path):
    stderr = (f'Traceback (most recent call last):\n  File "{tmp_path}/a.py", line 3, in f\n'
              "ValueError: first\n\nDuring handling of the above exception, another exception occurred:\n\n"
              f'Traceback (most recent call last):\n  File "{tmp_path}/sub/b.py", line 7, in <module>\n'
              "    g()\n  File \"/usr/lib/python3/json/__init__.py\", line 2, in g\n"
              "inventory.OutOfStock: no pears\nmore message\n")
    frames, exception = parse_traceback(stderr, tmp_path)
    assert exception == "OutOfStock"
    assert [(f.file, f.line, f.function) for f in frames] == [
        ("sub/b.py", 7, "<module>"), ("/usr/lib/python3/json/__init__.py", 2, "g")]


@pytest.mark.parametrize("line, line_end, replacement, expected", [
    (2, 3, "X\nY\nZ", "a\nX\nY\nZ\nd\n"),
    (2, 3, "X\n", "a\nX\nd\n"),
    (1, 4, "only", "only\n"),
    (3, 3, "", "a\nb\nd\n"),
    (4, 4, "    D", "a\nb\nc\n    D\n"),
])
def test_apply_fix_replaces_inclusive_line_ranges(tmp_path, line, line_end, replacement, expected):
    (tmp_path / "f.py").write_text("a\nb\nc\nd\n")
    apply_fix(tmp_path, "f.py", line, line_end, replacement)
    assert (tmp_path / "f.py").read_text() == expected


def test_apply_fix_at_end_of_file_without_newline(tmp_path):
    (tmp_path / "f.py").write_text("a\nb")
    apply_fix(tmp_path, "f.py", 2, 2, "B")
    assert (tmp_path / "f.py").read_text() == "a\nB\n"


@pytest.mark.parametrize("file, line, line_end", [("f.py", 2, 3), ("f.py", 0, 1), ("../f.py", 1, 1)])
def test_apply_fix_refuses_lines_it_cannot_replace(tmp_path, file, line, line_end):
    (tmp_path / "case").mkdir()
    (tmp_path / "case" / "f.py").write_text("a\n")
    (tmp_path / "f.py").write_text("a\n")
    with pytest.raises(AutodbgError):
        apply_fix(tmp_path / "case", file, line, line_end, "x")


def test_load_case_names_the_file_and_the_key(tmp_path):
    folder = make_case(tmp_path / "broken")
    truth = json.loads((folder / "truth.json").read_text())
    del truth["buggy_line"]
    (folder / "truth.json").write_text(json.dumps(truth))
    with pytest.raises(AutodbgError, match=r"broken/truth.json: missing key 'buggy_line'"):
        load_case(folder)
    (folder / "truth.json").write_text(json.dumps({**truth, "buggy_line": "12"}))
    with pytest.raises(AutodbgError, match=r"truth.json: bad key 'buggy_line'"):
        load_case(folder)
    (folder / "truth.json").write_text(json.dumps({**truth, "buggy_line": 12, "crash_kind": "oops"}))
    with pytest.raises(AutodbgError, match=r"truth.json: bad key 'crash_kind'"):
        load_case(folder)


def test_find_cases_nested_sorted_and_filtered(tmp_path):
    for rel in ["dev/zeta", "dev/group/beta", "other/alpha"]:
        make_case(tmp_path / rel)
    assert [c.rel for c in find_cases([tmp_path])] == ["dev/group/beta", "dev/zeta", "other/alpha"]
    assert [c.rel for c in find_cases([tmp_path], "*a")] == ["dev/group/beta", "dev/zeta", "other/alpha"]
    assert [c.rel for c in find_cases([tmp_path], "dev/*")] == ["dev/group/beta", "dev/zeta"]
    assert [c.rel for c in find_cases([tmp_path], "alpha")] == ["other/alpha"]
    assert [c.rel for c in find_cases([tmp_path / "dev", tmp_path])] == ["group/beta", "other/alpha", "zeta"]
    with pytest.raises(AutodbgError, match="no such folder"):
        find_cases([tmp_path / "missing"])


def test_verify_main_prints_a_line_per_case_and_the_totals(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PATH", f"{PYTHON_BIN_DIR}{os.pathsep}{os.environ['PATH']}")
    make_case(tmp_path / "a-good")
    make_case(tmp_path / "b-bad", fixed_code='print(total(["apple", "apple"]))')
    assert verify_main([tmp_path], jobs=2) == 1
    assert capsys.readouterr().out.splitlines() == [
        "ok  a-good", "FAIL b-bad: test_cmd does not pass after the fix", "1 passed, 1 failed"]
    assert verify_main([tmp_path], pattern="a-*") == 0


def test_module_command_line(tmp_path):
    make_case(tmp_path / "corpus" / "good")
    env = clean_env(PATH=f"{PYTHON_BIN_DIR}{os.pathsep}{os.environ['PATH']}")
    result = run_py(["-m", "autodbg.corpus", "verify", str(tmp_path / "corpus")], env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["ok  good", "1 passed, 0 failed"]
    result = run_py(["-m", "autodbg.corpus", "verify", str(tmp_path / "nowhere")])
    assert result.returncode == 2
    assert result.stderr.strip() == f"autodbg: {tmp_path / 'nowhere'}: no such folder"
