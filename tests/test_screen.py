"""The screen after the traceback (issue 35): the answer first and short, progress only on a real
terminal, and `autodbg fix` taking the change from the report. Real crashes, a real pty."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import clean_env, run_in_terminal, run_py

# The search finds the fix without a model: the key the mapping has in place of the missing one.
TYPO = """\
def report(order):
    return f"{order['amount']} {order['curency']}"


order = {"currency": "EUR", "amount": 3}
print(report(order))
"""

ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def after_traceback(stderr: str) -> list[str]:
    lines = stderr.splitlines()
    end = next(i for i, line in enumerate(lines) if line.startswith("KeyError: "))
    return lines[end + 1:]


def crash(folder: Path, cwd: Path | None = None, **env) -> tuple[subprocess.CompletedProcess, dict]:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "app.py").write_text(TYPO)
    report = folder.parent / "report.json"
    run = run_py([str(folder / "app.py")], cwd=cwd or folder, timeout=120,
                 env=clean_env(AUTODBG="1", AUTODBG_MODEL="none", AUTODBG_REPORT=str(report), COLUMNS="80", **env))
    assert run.returncode == 1 and "KeyError: 'curency'" in run.stderr
    return run, json.loads(report.read_text())


def test_in_a_pipe_the_answer_comes_first_plain_and_short(tmp_path):
    run, report = crash(tmp_path / "proj")
    shown = after_traceback(run.stderr)
    assert shown[0].startswith("autodbg · KeyError: 'curency' ──")
    assert shown[1:10] == [
        "Found by trying small changes in a sandbox, no model:",
        "app.py:2",
        "--- a/app.py",
        "+++ b/app.py",
        "@@ -1,3 +1,3 @@",
        " def report(order):",
        "-    return f\"{order['amount']} {order['curency']}\"",
        "+    return f\"{order['amount']} {order['currency']}\"",
        " ",
    ]
    assert shown[10].startswith("Suggested fix · stops the crash")  # its label: the run went on, nothing else judged it
    assert "  app.py:2: order = {'currency': 'EUR', 'amount': 3}" in " ".join(shown)  # the failing line's values
    assert len(shown) <= 20
    assert "Ctrl-C skips" not in run.stderr and "\x1b" not in run.stderr  # no progress, no escapes in a pipe
    assert "│" not in run.stderr and "❱" not in run.stderr  # no box, no source window again
    assert shown[-1] == "autodbg: evidence only (AUTODBG_MODEL=none)"


def test_the_report_carries_the_patch_and_the_files_hash(tmp_path):
    _, report = crash(tmp_path / "proj")
    patch = report["patch"]
    app = tmp_path / "proj" / "app.py"
    assert patch["label"] == "stops the crash" and patch["path"] == "app.py" and patch["root"] == str(tmp_path / "proj")
    assert patch["sha256"] == hashlib.sha256(app.read_bytes()).hexdigest()
    assert patch["diff"].startswith("--- a/app.py\n+++ b/app.py\n@@ ")


def test_a_file_outside_the_working_directory_is_named_from_its_project(tmp_path):
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (tmp_path / "elsewhere").mkdir()
    run, report = crash(tmp_path / "proj" / "src", cwd=tmp_path / "elsewhere")
    assert "--- a/src/app.py" in run.stderr and "+++ b/src/app.py" in run.stderr and "a//" not in run.stderr
    assert report["patch"]["root"] == str(tmp_path / "proj")


def test_verbose_shows_the_whole_evidence(tmp_path):
    run, _ = crash(tmp_path / "proj", AUTODBG_VERBOSE="1")
    shown = after_traceback(run.stderr)
    assert "autodbg · evidence" in shown[0]  # as it is gathered, before the answer
    assert "where the values came from (read from the source, no model):" in shown
    assert any(line.startswith("with these changes the crashed program runs to its end") for line in shown)
    assert "--- a/app.py" in shown and len(shown) > 20


def test_in_a_terminal_progress_shows_then_goes_and_the_summary_stays(tmp_path):
    (tmp_path / "app.py").write_text(TYPO)
    status, _, terminal = run_in_terminal([sys.executable, str(tmp_path / "app.py")],
                                          env=clean_env(AUTODBG_MODEL="none", COLUMNS="80",
                                                        AUTODBG_REPORT=str(tmp_path / "r.json")))
    assert status == 1
    assert re.search(r"autodbg: \d+ s / 60 s · (gathering evidence|trying changes in a sandbox: \d+ of \d+) · Ctrl-C skips",
                     terminal)
    last_progress = terminal.rindex("Ctrl-C skips")
    summary = terminal.index("autodbg · KeyError")
    assert last_progress < summary  # the final screen comes after the wait
    assert "\x1b[2K" in terminal[last_progress:summary]  # and the progress region was erased
    assert "--- a/app.py" in terminal[summary:] and "Ctrl-C skips" not in terminal[summary:]


def test_a_dumb_terminal_gets_no_progress_and_no_escapes(tmp_path):
    (tmp_path / "app.py").write_text(TYPO)
    status, _, terminal = run_in_terminal([sys.executable, str(tmp_path / "app.py")],
                                          env=clean_env(AUTODBG_MODEL="none", TERM="dumb",
                                                        AUTODBG_REPORT=str(tmp_path / "r.json")))
    assert status == 1 and "autodbg · KeyError" in terminal
    assert "Ctrl-C skips" not in terminal and not ESCAPE.search(terminal)


def autodbg(*args: str, cwd: Path, report: Path) -> subprocess.CompletedProcess:
    return run_py(["-m", "autodbg", *args], cwd=cwd, env=clean_env(AUTODBG_REPORT=str(report)), timeout=60)


def test_autodbg_fix_yes_applies_the_change_and_the_program_then_runs(tmp_path):
    crash(tmp_path / "proj")
    proj, report = tmp_path / "proj", tmp_path / "report.json"
    done = autodbg("fix", "--yes", cwd=proj, report=report)
    assert done.returncode == 0, done.stderr
    assert "Suggested fix · stops the crash" in done.stdout and "+++ b/app.py" in done.stdout
    assert "order['currency']" in (proj / "app.py").read_text()
    ran = run_py([str(proj / "app.py")], cwd=proj, env=clean_env(AUTODBG="0"))
    assert ran.returncode == 0 and ran.stdout == "3 EUR\n"


def test_autodbg_fix_asks_in_a_terminal_and_applies_after_a_yes(tmp_path):
    crash(tmp_path / "proj")
    proj = tmp_path / "proj"
    status, _, terminal = run_in_terminal([sys.executable, "-m", "autodbg", "fix"], typed="y\n",
                                          env=clean_env(AUTODBG_REPORT=str(tmp_path / "report.json")))
    assert "Apply this change (stops the crash) to app.py? [y/N]" in terminal
    assert status == 0 and "order['currency']" in (proj / "app.py").read_text()


def test_autodbg_fix_without_a_terminal_or_yes_applies_nothing_and_says_how(tmp_path):
    crash(tmp_path / "proj")
    before = (tmp_path / "proj" / "app.py").read_text()
    done = autodbg("fix", cwd=tmp_path / "proj", report=tmp_path / "report.json")
    assert done.returncode == 1 and "--yes" in done.stderr and "not applied" in done.stderr
    assert (tmp_path / "proj" / "app.py").read_text() == before


def test_autodbg_fix_refuses_a_file_changed_since_the_crash(tmp_path):
    crash(tmp_path / "proj")
    app = tmp_path / "proj" / "app.py"
    app.write_text(TYPO + "# edited since\n")
    done = autodbg("fix", "--yes", cwd=tmp_path / "proj", report=tmp_path / "report.json")
    assert done.returncode == 2 and done.stderr == "autodbg: app.py changed since the crash: not patching it " \
                                                   "(run the program again for a new fix)\n"
    assert app.read_text() == TYPO + "# edited since\n"


@pytest.mark.skipif(shutil.which("patch") is None, reason="no patch(1) here")
def test_autodbg_fix_patch_writes_a_diff_patch_accepts(tmp_path):
    crash(tmp_path / "proj")
    proj, diff = tmp_path / "proj", tmp_path / "fix.diff"
    done = autodbg("fix", "--patch", str(diff), cwd=proj, report=tmp_path / "report.json")
    assert done.returncode == 0 and "patch -p1" in done.stdout
    assert TYPO == (proj / "app.py").read_text()  # written, not applied
    applied = subprocess.run(["patch", "-p1", "-i", str(diff)], cwd=proj, capture_output=True, text=True)
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert run_py([str(proj / "app.py")], cwd=proj, env=clean_env(AUTODBG="0")).stdout == "3 EUR\n"


def test_the_first_crash_makes_the_state_dir_and_autodbg_fix_finds_its_report_there(tmp_path):
    proj, state = tmp_path / "proj", tmp_path / "fresh" / "state"  # not there yet, as on a new machine
    proj.mkdir()
    (proj / "app.py").write_text(TYPO)
    env = clean_env(AUTODBG="1", AUTODBG_MODEL="none", XDG_STATE_HOME=str(state))
    run = run_py([str(proj / "app.py")], cwd=proj, env=env)
    assert run.returncode == 1 and "KeyError: 'curency'" in run.stderr
    assert "cannot write the report" not in run.stderr
    assert (state / "autodbg" / "last-crash.json").stat().st_mode & 0o777 == 0o600
    assert (state / "autodbg").stat().st_mode & 0o777 == 0o700
    done = run_py(["-m", "autodbg", "fix", "--yes"], cwd=proj, env=env)
    assert done.returncode == 0, done.stderr
    assert "order['currency']" in (proj / "app.py").read_text()


def test_autodbg_fix_without_a_report_is_one_line(tmp_path):
    done = autodbg("fix", cwd=tmp_path, report=tmp_path / "none.json")
    assert done.returncode == 2
    assert done.stderr == f"autodbg: no crash report at {tmp_path / 'none.json'}: run the program that crashed first\n"


SUITE = '''
def average(scores):
    total = sum(scores[1:])
    return total / len(scores)


def parse_prices(rows):
    return {row["sku"]: row["price"] for row in rows}


def test_average():
    assert average([2, 4, 6]) == 4


def test_prices():
    rows = [{"sku": "A-1", "cost": 3.5}]
    assert parse_prices(rows)["A-1"] == 3.5
'''


@pytest.mark.slow
def test_the_pytest_section_is_at_most_twelve_lines_a_failure(tmp_path):
    (tmp_path / "test_suite.py").write_text(textwrap.dedent(SUITE))
    run = run_py(["-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly", "--autodbg", "test_suite.py"],
                 cwd=tmp_path, env=clean_env(AUTODBG_MODEL="none", COLUMNS="80"), timeout=300)
    sections = run.stdout.split("- autodbg -")[1:]
    assert len(sections) == 2
    for section in sections:
        body = re.split(r"\n(?:_{3,}|={3,})", section.split("\n", 1)[1])[0].rstrip("\n").splitlines()
        assert body[0].startswith("autodbg · ") and len(body) <= 12, "\n".join(body)
    assert "KeyError: 'price'" in run.stdout and "total = 10" in run.stdout  # the replay that made the bad value
