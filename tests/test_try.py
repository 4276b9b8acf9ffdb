"""`try FILE:LINE CODE`: the judge as a command of the session. The change runs on the crashed
program in a probe, then on the program's own tests (real pytest, confined copy), and the output
says what that showed, in the labels' words; what judges is never changed."""

import time
from pathlib import Path

import pytest

from autodbg.debugger.commands import parse
from autodbg.debugger.grammar import step_grammar
from autodbg.debugger.output import CommandError, ShownLine
from autodbg.investigate.seen import Seen
from autodbg.records import Label
from conftest import clean_env, run_py
from test_judge import PRICING

TEST_PRICING = """\
from pricing import discounted


def test_ten_percent():
    assert discounted(100, 10) == 90


def test_nothing_off():
    assert discounted(50, 0) == 50


def test_half():
    assert discounted(80, 50) == 40
"""

APP = """\
from pricing import total

print(100 / total([100], 10))
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    root.mkdir()
    (root / "pyproject.toml").write_text("[project]\nname = 'shop'\n")
    (root / "pricing.py").write_text(PRICING)
    (root / "test_pricing.py").write_text(TEST_PRICING)
    (root / "app.py").write_text(APP)
    return root


def session_output(project: Path, typed: str) -> dict[str, str]:
    """{command: its output} of `autodbg run -i app.py` with TYPED piped to its prompt."""
    run = run_py(["-m", "autodbg", "run", "-i", "app.py"], cwd=project, timeout=240,
                 env=clean_env(AUTODBG_MODEL="none", XDG_STATE_HOME=str(project.parent / "state")), input=typed)
    assert run.returncode == 1 and "ZeroDivisionError" in run.stderr, run.stderr
    parts = run.stdout.split("(autodbg) ")[1:]
    return {part.split("\n", 1)[0]: part.split("\n", 1)[1].strip() for part in parts}


@pytest.mark.slow
def test_try_at_the_prompt_says_what_the_run_and_the_tests_showed(project):
    right = "try pricing.py:2 return price - price * percent / 100"
    crash_only = "try pricing.py:2 return price"  # the crashed run goes on, two of the tests still fail
    wrong = "try pricing.py:2 return 0"
    outputs = session_output(project, "\n".join([right, crash_only, wrong, "try nothere.py:2 x = 1",
                                                 "try pricing.py:3 x = 1", "try pricing.py:2", "quit"]) + "\n")
    assert outputs[right].splitlines()[0] == "passes your tests"
    assert "your tests (test_pricing.py): now passes: test_ten_percent, test_half; 1 of 1 tests that passed before " \
           "still pass" in outputs[right]
    assert outputs[crash_only].splitlines()[0] == "stops the crash"
    assert "still fails: test_ten_percent, test_half" in outputs[crash_only]
    assert outputs[wrong].splitlines()[0] == "tried, did not work"
    assert "ZeroDivisionError" in outputs[wrong]
    assert outputs["try nothere.py:2 x = 1"] == "error: no file 'nothere.py' in the program"
    assert outputs["try pricing.py:3 x = 1"] == "error: pricing.py:3 is not a line of code"
    assert outputs["try pricing.py:2"].startswith("error: FILE:LINE CODE must be a line and its new code")
    assert (project / "pricing.py").read_text() == PRICING  # tried on copies and in probes only


def test_try_parses_a_line_and_its_code():
    command, values = parse("try app.py:12   return total / count ")
    assert command.name == "try" and values == [("app.py:12", "return total / count")]
    with pytest.raises(CommandError, match="must be a line and its new code"):
        parse("try app.py return x")


FAILING_TEST = """\
def count_big(prices):
    return len([p for p in prices if p < 10])


def test_count_big():
    assert count_big([5, 20, 30]) == 2


test_count_big()
"""


def crashed_test(tmp_path: Path, monkeypatch):
    """The session and evidence of count.py's failing assert (its own test, as in HumanEvalFix), crashed for real."""
    from autodbg.pipeline import new_result
    from crashkit import uncaught_assertion

    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'count'\n")
    script = tmp_path / "count.py"
    script.write_text(FAILING_TEST)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))  # as for a script run: its folder is on the path
    session = uncaught_assertion(script)
    return session, new_result(session, None).dossier, str(script)


def test_try_never_changes_what_judges_and_the_grammar_offers_only_lines_a_fix_may_change(tmp_path, monkeypatch):
    session, dossier, script = crashed_test(tmp_path, monkeypatch)
    refused = session.changes.try_line(ShownLine(script, 6, "    assert count_big([5, 20, 30]) == 2"), "assert True")
    assert refused.startswith("not tried: it rewrites the failing assertion")
    assert session.changes.tried == []  # nothing ran
    seen = Seen(session.state(), dossier)
    known = seen.known(session.state(), "0/0")
    assert (script, 2) in known.changeable and (script, 6) not in known.changeable
    rule = dict(line.split(" ::= ", 1) for line in step_grammar(session.state(), known,
                                                                 session.available_commands()).splitlines())["cmd-try"]
    assert rule == '"try" " " ("count.py:" (([1-2]))) " " new-code'  # count_big's lines, not its test's


@pytest.mark.slow
def test_scripted_a_try_that_passes_the_tests_is_the_answer(tmp_path, monkeypatch):
    """The scripted stand-in model runs `try` on the line the failing test points to; that change
    passed the program's tests, so it stands, with the model's reason, and keeps its green label."""
    from io import StringIO

    from rich.console import Console

    from autodbg.pipeline import new_result, run_investigation
    from autodbg.settings import load_settings
    from crashkit import ScriptedStandInModel, uncaught_assertion

    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'count'\n")
    (tmp_path / "counting.py").write_text("def count_big(prices):\n    return len([p for p in prices if p < 10])\n")
    (tmp_path / "test_counting.py").write_text("from counting import count_big\n\n\ndef test_count_big():\n"
                                               "    assert count_big([5, 20, 30]) == 2\n\n\n"
                                               "def test_nothing():\n    assert count_big([]) == 0\n")
    (tmp_path / "crash.py").write_text("from test_counting import test_count_big\n\ntest_count_big()\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    session = uncaught_assertion(tmp_path / "crash.py")
    result = new_result(session, None)
    model = ScriptedStandInModel(["Thought: the filter is reversed\nCommand: try counting.py:2 "
                                  "return len([p for p in prices if p > 10])",
                                  "Thought: it passed\nCommand: done",
                                  '{"root_cause": "the filter keeps the small prices instead of the big ones"}'])
    settings = load_settings({"AUTODBG_TURNS": "2", "AUTODBG_TIMEOUT": "300"})
    console = Console(file=StringIO(), width=100, color_system=None)
    reason = run_investigation(model, session, result, settings, console, time.monotonic(), lambda step: None)
    assert reason is None
    tried = result.transcript[0]
    assert tried.command.startswith("try counting.py:2") and tried.output.startswith("passes your tests"), tried
    assert "now passes: test_count_big; 1 of 1 tests that passed before still pass" in tried.output
    fix = result.diagnosis.fix
    assert fix.edit.replacement == "    return len([p for p in prices if p > 10])\n" and fix.edit.origin == "try"
    assert fix.label == Label.PASSES_YOUR_TESTS
    assert result.diagnosis.root_cause == "the filter keeps the small prices instead of the big ones"
    assert result.candidates[0].edit == fix.edit
