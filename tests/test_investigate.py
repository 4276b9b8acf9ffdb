"""The investigation loop. Loop logic uses a scripted stand-in model (named as such); the end
to end tests use the real tiny model in a real crashing subprocess."""

from __future__ import annotations

import json
import os
import runpy
import signal
import subprocess
import sys
import time
from io import StringIO

import pytest
from rich.console import Console

from autodbg.crash import CrashSession
from autodbg.debugger.grammar import answer_grammar
from autodbg.investigate.conversation import TRIMMED
from autodbg.investigate.loop import investigate
from autodbg.investigate.plan import PLANNED_TOKENS, Budget, planned_tokens
from autodbg.investigate.seen import Seen
from autodbg.investigate.strategies import NO_LINE_TO_CHANGE, whole_sentences
from autodbg.investigate.answer import make_diagnosis, specification_lines
from autodbg.investigate.prompt import SYSTEM_PROMPT, dossier_text
from autodbg.llm.model import EngineError
from autodbg.investigate.search import proof
from autodbg.records import Candidate, Edit, ModelCall, ModelInfo, Proof, Rates, Result, Search, Timings
from autodbg.report import SummaryView
from conftest import clean_env
from crashkit import BELOW_ZERO, ScriptedStandInModel, fixed, uncaught_assertion

PROGRAM = '''\
def mean(values):
    total = sum(values)
    return total / len(values)


def load_scores(text):
    scores = [int(x) for x in text.split(",") if x.strip()]
    return scores[1:]


def main():
    print(mean(load_scores("42")))


main()
'''
BUGGY = 'app.py:8| return scores[1:]'
CRASH = 'app.py:3| return total / len(values)'
ASK = "Give its corrected code, only this line's, in a ```python block; or null if the line is right."


RAISED = "It raised ZeroDivisionError: division by zero.\n"  # said under the line that crashed, app.py:3
OPTIONS = ("The wrong code is most likely one of these lines, which made the values that failed:\n"
           'app.py:8| return scores[1:]\napp.py:3| return total / len(values)\napp.py:2| total = sum(values)\n'
           'app.py:7| scores = [int(x) for x in text.split(",") if x.strip()]\napp.py:12| print(mean(load_scores("42")))')


# The signature shown with each line of PROGRAM's functions (the line that crashed gets what it raised instead).
HEADS = {"app.py:2": "def mean(values):", "app.py:7": "def load_scores(text):", "app.py:8": "def load_scores(text):",
         "app.py:12": "def main():"}


def request_for(place: str, code: str, raised: str = "") -> str:
    """The request for the corrected code of the line at PLACE (`app.py:8`), which reads CODE."""
    head = f"It is in:\n```python\n{HEADS[place]}\n```\n" if place in HEADS and not raised else ""
    return f"{head}Line {place} is:\n```python\n{code}\n```\n{raised}{ASK}"


def answer(root_cause="drops the first score", first=BUGGY, last=BUGGY, fix="    return scores"):
    return json.dumps({"root_cause": root_cause, "first_line": first, "last_line": last, "new_code": fix})


def rewrites(*codes):
    """Replies with the corrected code of one line offered each (None: null, the line is right)."""
    return [fixed(code) if code is not None else "null" for code in codes]


def reason(text):
    """The reply to "what is wrong in that line, and why"."""
    return json.dumps({"root_cause": text})


def crashed_session(directory, name: str, source: str):
    """Run SOURCE as DIRECTORY/NAME; the session and dossier of its crash."""
    (directory / name).write_text(source)
    try:
        runpy.run_path(str(directory / name), run_name="__main__")
    except Exception as exc:
        session = CrashSession.of_crash(exc)
        return session, session.dossier()
    pytest.fail("the program did not crash")


@pytest.fixture
def crash(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return crashed_session(tmp_path, "app.py", PROGRAM)


@pytest.fixture
def uncaught_crash(tmp_path, monkeypatch):
    """The crash as sys.excepthook gets it: its traceback starts at the program's own frames (a
    fix is tried by running the outermost one again), not at this test's helper."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "app.py").write_text(PROGRAM)
    try:
        runpy.run_path(str(tmp_path / "app.py"), run_name="__main__")
    except Exception as exc:
        session = CrashSession.of_crash(exc.with_traceback(exc.__traceback__.tb_next))
        return session, session.dossier()
    pytest.fail("the program did not crash")


def later(seconds=60, turns=3):
    return Budget(deadline=time.monotonic() + seconds, max_turns=turns, planned=10_000)  # the script decides


def test_scripted_done_ends_the_turns_and_the_fix_is_checked(crash):
    session, dossier = crash
    model = ScriptedStandInModel(["Thought: where do values come from\nCommand: frame 5",
                                  "Thought: look at it\nCommand: source load_scores",
                                  "Thought: found it\nCommand: done", *rewrites("    return scores")])
    found = investigate(session, dossier, model, later())
    assert [t.command for t in found.transcript] == ["frame 5", "source load_scores", "done"]
    assert all(t.valid for t in found.transcript)
    assert found.stopped_by == "done"
    d = found.diagnosis
    assert (d.display_file, d.line, d.line_end) == ("app.py", 8, 8)
    assert d.fix.problem is None and "-    return scores[1:]" in d.fix.diff and "+    return scores" in d.fix.diff
    # The step grammar was rebuilt after `frame 5` (the caller's names); the answer is code or null.
    assert '"load_scores"' in model.calls[1]["grammar"] and model.calls[0]["grammar"] != model.calls[1]["grammar"]
    assert model.calls[-1]["grammar"].startswith('root ::= "null" | "```python\\n" line')


def test_scripted_the_answer_rewrites_the_likeliest_line_first_and_asks_why_its_fix_passed(uncaught_crash):
    session, dossier = uncaught_crash
    model = ScriptedStandInModel(["Thought: x\nCommand: done", *rewrites("    return scores"), reason("drops the first score")])
    found = investigate(session, dossier, model, later())
    # The suspects, likeliest first, then the line that crashed; then the first of them asked for.
    assert [m["content"] for m in model.calls[1]["messages"][-2:]] == [
        OPTIONS, request_for("app.py:8", "    return scores[1:]")]
    assert model.calls[2]["messages"][-1]["content"] == (
        "I ran it: with this fix the crashed program now runs to the end without an exception. In one or two "
        f"sentences: what was wrong in {BUGGY}, and why did it make the crash? Answer in JSON: root_cause.")
    assert [c.purpose for c in found.calls] == ["step", "answer", "why"]
    d = found.diagnosis
    assert (d.line, d.root_cause) == (8, "drops the first score") and d.fix.trial.passes


def test_scripted_turn_budget(crash):
    session, dossier = crash
    model = ScriptedStandInModel(["Thought: a\nCommand: list 1 5", "Thought: b\nCommand: frame 5",
                                  "Thought: c\nCommand: list 1 3",
                                  *rewrites("    return scores")])
    budget = later()
    budget.max_turns = 3
    found = investigate(session, dossier, model, budget)
    assert found.stopped_by == "turns" and len(found.transcript) == 3
    assert found.diagnosis is not None


def test_scripted_repeated_command_ends_the_turns(crash):
    session, dossier = crash
    model = ScriptedStandInModel(["Thought: a\nCommand: list 1 5", "Thought: a\nCommand: list 1 5", *rewrites("    return scores")])
    found = investigate(session, dossier, model, later())
    assert found.stopped_by == "repeat" and [t.command for t in found.transcript] == ["list 1 5"]
    assert found.diagnosis is not None


def test_scripted_time_budget_goes_straight_to_the_answer(crash):
    session, dossier = crash
    model = ScriptedStandInModel(rewrites("    return scores"))
    found = investigate(session, dossier, model, Budget(deadline=time.monotonic() + 1))
    assert found.stopped_by == "time" and found.transcript == []
    assert found.diagnosis.line == 8


def test_scripted_token_budget(crash):
    session, dossier = crash
    model = ScriptedStandInModel(["Thought: a\nCommand: list 1 5", *rewrites("    return scores")], tokens_per_reply=50)
    budget = later()
    budget.max_generated = 40
    found = investigate(session, dossier, model, budget)
    assert found.stopped_by == "tokens" and len(found.transcript) == 1


def test_scripted_each_option_is_asked_from_the_same_point_and_the_crash_line_with_what_it_raised(uncaught_crash):
    session, dossier = uncaught_crash
    broken = "    return scores[1:"  # does not compile
    model = ScriptedStandInModel(["Thought: x\nCommand: done", *rewrites(broken, None, None, None, None)])
    found = investigate(session, dossier, model, later())
    assert not model.replies  # every other option was rewritten (each said it is right)
    first = model.calls[1]["messages"]
    assert first[-2]["content"] == OPTIONS
    # What was answered for one line (a fix that does not compile, a copy) is not in the conversation
    # the next is asked in.
    assert model.calls[2]["messages"][-1]["content"] == request_for("app.py:3", "    return total / len(values)", RAISED)
    for call, (place, code) in zip(model.calls[3:], [("app.py:2", "    total = sum(values)"),
                                                     ("app.py:7", '    scores = [int(x) for x in text.split(",") if x.strip()]'),
                                                     ("app.py:12", '    print(mean(load_scores("42")))')]):
        assert call["messages"] == first[:-1] + [{"role": "user", "content": request_for(place, code)}]
    assert "does not compile" in found.diagnosis.fix.problem  # the pick stands, with no fix that ran
    assert found.candidates == []
    text = render_summary(found, dossier)
    assert "No checked fix" in text and "does not compile" in text
    assert "+    return scores[1:" not in text


def test_scripted_a_fix_that_still_fails_is_kept_as_a_candidate_and_a_passing_one_kept_with_its_reason(
        uncaught_crash):
    session, dossier = uncaught_crash
    line7 = 'app.py:7| scores = [int(x) for x in text.split(",") if x.strip()]'
    doubled = '    scores = [int(x) for x in text.split(",") if x.strip()] * 2'
    model = ScriptedStandInModel(["Thought: x\nCommand: done", *rewrites("    return scores[2:]", None, None, doubled),
                                  reason("the list is too short")])
    found = investigate(session, dossier, model, later())
    assert model.calls[3]["messages"][-1]["content"] == request_for("app.py:2", "    total = sum(values)")
    assert model.calls[4]["messages"][-1]["content"] == (
        request_for("app.py:7", '    scores = [int(x) for x in text.split(",") if x.strip()]'))
    assert [c.purpose for c in found.calls] == ["step", "answer", "answer", "answer", "answer", "why"]
    assert f"what was wrong in {line7}, and why did it make the crash?" in model.calls[-1]["messages"][-1]["content"]
    d = found.diagnosis
    assert (d.line, d.root_cause, d.fix.edit.replacement) == (7, "the list is too short", doubled + "\n")
    assert d.fix.trial.passes and len(found.trials) == 2
    assert [(c.edit.first, c.edit.origin, c.trial.result) for c in found.candidates] == [(8, "model", "still fails"),
                                                                              (7, "model", "passes")]
    assert "ran: with this fix the crashed program now runs to the end" in render_summary(found, dossier)


def test_scripted_a_line_whose_fix_failed_is_asked_again_after_the_others_told_how_it_ran(uncaught_crash):
    session, dossier = uncaught_crash
    model = ScriptedStandInModel(["Thought: x\nCommand: done", *rewrites("    return scores[2:]", None, None, None, None),
                                  *rewrites("    return scores"), reason("drops the first score")])
    found = investigate(session, dossier, model, later())
    assert not model.replies
    first, again = model.calls[1]["messages"], model.calls[6]["messages"]
    assert again[:-1] == first + [{"role": "assistant", "content": fixed("    return scores[2:]")}]  # its own branch
    assert again[-1]["content"] == (
        "I ran the program with that fix: it still fails: ZeroDivisionError: division by zero (app.py:3); with the "
        "fix, load_scores(text='42') returned [].\nGive the line's corrected code again, in a ```python block, "
        "so that it works for those values; or null if the line is right.")
    d = found.diagnosis
    assert (d.line, d.fix.edit.replacement, d.root_cause) == (8, "    return scores\n", "drops the first score")
    assert [(c.edit.first, c.edit.replacement, c.trial.result) for c in found.candidates] == [
        (8, "    return scores[2:]\n", "still fails"), (8, "    return scores\n", "passes")]


def test_scripted_a_fix_that_passes_is_not_asked_again(uncaught_crash):
    session, dossier = uncaught_crash
    model = ScriptedStandInModel(["Thought: x\nCommand: done", *rewrites("    return scores"), reason("drops the first score"),
                                  *rewrites("    return scores[2:]")])
    found = investigate(session, dossier, model, later())
    assert len(model.replies) == 1  # no other option was asked for
    assert found.diagnosis.fix.trial.passes and found.diagnosis.root_cause == "drops the first score"


def test_scripted_when_no_fix_passes_the_pick_stands_and_says_so(uncaught_crash):
    session, dossier = uncaught_crash
    model = ScriptedStandInModel(["Thought: x\nCommand: done",
                                  *rewrites("    return scores[2:]", None, None, "    scores = []", None),
                                  *rewrites("    return scores[2:]", None)])  # asked again: the same fix; null
    found = investigate(session, dossier, model, later())
    assert not model.replies
    assert len(found.trials) == 2  # the fix given again was not run again
    assert [(c.edit.first, c.trial.result) for c in found.candidates] == [(8, "still fails"), (7, "still fails")]
    assert found.diagnosis.line == 8 and found.diagnosis.root_cause.startswith(  # said plainly: no fix worked
        "app.py:8: `return scores[1:]` is most likely wrong; `return scores[2:]` instead was tried, and with it the "
        "crashed program still fails: ZeroDivisionError: division by zero (app.py:3)")
    assert found.diagnosis.fix.edit.replacement == "    return scores[2:]\n"
    assert found.diagnosis.fix.trial.result == "still fails"
    assert "ran: it still fails: ZeroDivisionError" in render_summary(found, dossier)


def test_scripted_when_no_fix_passes_the_first_that_moved_the_failure_on_stands(uncaught_crash):
    """Line 7's fix makes `sum` fail on line 2 instead of the division on line 3: that line has a
    part in the failure, the likeliest option (line 8, which the model left as it is) has none shown."""
    session, dossier = uncaught_crash
    padded = '    scores = [int(x) for x in text.split(",") if x.strip()] + [None]'
    model = ScriptedStandInModel(["Thought: x\nCommand: done", *rewrites(None, None, None, padded, None),
                                  *rewrites(None)])  # line 7, asked again after the others
    found = investigate(session, dossier, model, later())
    assert not model.replies
    assert [(c.edit.first, c.trial.result, c.trial.moved_on) for c in found.candidates] == [(7, "fails differently", True)]
    d = found.diagnosis
    assert (d.line, d.fix.edit.replacement) == (7, padded + "\n")
    assert "fails differently: TypeError: unsupported operand type(s) for +: 'int' and 'NoneType' (app.py:2)" \
        in d.root_cause


def test_scripted_a_guard_on_the_line_that_crashed_is_no_pass_and_stands_only_when_nothing_passes(uncaught_crash):
    """`... if values else 0.0` on the line that crashed runs to the end whatever `values` was: the
    other lines are asked, and with none fixed it stands, said to be only a guard."""
    session, dossier = uncaught_crash
    guarded = "    return total / len(values) if values else 0.0"
    model = ScriptedStandInModel(["Thought: x\nCommand: done", *rewrites(None, guarded, None, None, None)])
    found = investigate(session, dossier, model, later())
    assert not model.replies  # every option was asked: the guard did not end the answer
    assert [(c.edit.first, c.trial.result) for c in found.candidates] == [(3, "guards")]
    d = found.diagnosis
    assert (d.line, d.fix.edit.replacement, d.fix.trial.result) == (3, guarded + "\n", "guards")
    assert d.root_cause == (
        "app.py:3: `return total / len(values)` is most likely wrong; `return total / len(values) if values else 0.0` "
        "instead was tried, and with it the crashed program runs to the end, but only because the fix adds a "
        "condition to the line that failed: the value it failed on may still be wrong.")
    assert "ran: with this fix the crashed program runs to the end, but only because" in render_summary(found, dossier)


def test_scripted_a_change_the_search_ran_to_the_end_stands_before_any_rewrite(uncaught_crash):
    """Where only a run can tell, the search tries only kinds of change a run rarely misjudges: its
    first change that ran to the end stands, and the model, shown it, says why."""
    session, dossier = uncaught_crash
    code, new = "    return scores[1:]\n", "    return scores\n"
    trial = session.try_fix(Edit(file=dossier.crash_site.file, first=8, last=8, replacement=new, origin="model"),
                            "ZeroDivisionError")  # a real run, in a probe
    assert trial.passes
    found_by_search = Search(proof="run", lines=5, tried=9, outcomes={"passes": 1, "still fails": 8}, seconds=0.1, passing=[Candidate(edit=Edit(file=dossier.crash_site.file, first=8, last=8, replacement=new, origin="drop"),
                                        display_file="app.py", code=code, trial=trial)])
    model = ScriptedStandInModel(["Thought: x\nCommand: done", reason("it drops the only score")])
    found = investigate(session, dossier, model, later(), search=found_by_search)
    assert [c.purpose for c in found.calls] == ["step", "why"]  # no line was asked for
    assert model.calls[-1]["messages"][-1]["content"] == (
        "I changed it to:\n```python\n    return scores\n```\nand ran it: with this fix the crashed program now runs "
        f"to the end without an exception. In one or two sentences: what was wrong in {BUGGY}, and why did it make "
        "the crash? Answer in JSON: root_cause.")
    d = found.diagnosis
    assert (d.line, d.fix.edit.replacement, d.fix.trial.passes, d.root_cause) == (8, new, True, "it drops the only score")
    assert found.candidates == []  # the model wrote no fix: the report lists the search's under `search`


def test_a_reason_cut_short_by_its_limit_keeps_its_whole_sentences():
    assert whole_sentences("The loop returns after the first customer. So every other one gets None, which", 80) == \
        "The loop returns after the first customer."
    assert whole_sentences("It returned None, which caused the", 36) == "It returned None, which caused the…"
    assert whole_sentences("It uses `x`.", 12) == "It uses `x`."
    assert whole_sentences("drops the first score", 160) == "drops the first score"  # short of its limit: whole


@pytest.mark.parametrize("bad", ["(null) (null) (null) (null) (null)", "division by zero"])
def test_scripted_when_the_reason_stays_unreadable_it_is_said_plainly(uncaught_crash, bad):
    session, dossier = uncaught_crash
    model = ScriptedStandInModel(["Thought: x\nCommand: done", *rewrites("    return scores"), reason(bad)])
    found = investigate(session, dossier, model, later())
    assert found.diagnosis.root_cause == ("app.py:8: `return scores[1:]` is wrong: with `return scores` instead, the "
                                          "crashed program now runs to the end without an exception.")
    assert found.problem is None


def test_scripted_a_fix_of_junk_is_not_run(uncaught_crash):
    session, dossier = uncaught_crash
    junk_fix = '    return scores or "' + ' '.join(['(null)'] * 9) + '"'  # compiles
    model = ScriptedStandInModel(["Thought: x\nCommand: done", *rewrites(junk_fix, None, None, None, None)])
    found = investigate(session, dossier, model, later())
    assert found.diagnosis.line == 8 and found.diagnosis.fix.problem == "it is not code but a run of junk"
    assert found.candidates == [] and found.trials == []


def test_code_that_repeats_itself_is_not_junk():
    from autodbg.investigate.answer import junk

    assert not junk("grid = [0, 0, 0, 0, 0, 0]", code=True)
    assert not junk("print('=' * 20, '==============')", code=True)
    assert junk("x = 1 (null) (null) (null) (null) (null) (null) (null) (null)", code=True)
    assert not junk("the total is the sum of the items in the cart", code=False)


def test_scripted_old_outputs_are_trimmed_to_fit_the_context(crash, tmp_path):
    session, dossier = crash
    replies = ["Thought: a\nCommand: list 1 15", "Thought: b\nCommand: frame 5", "Thought: c\nCommand: list 1 10",
               "Thought: d\nCommand: done", *rewrites("    return scores")]
    budget = later()
    budget.max_turns = 6
    roomy = ScriptedStandInModel(list(replies))
    investigate(session, dossier, roomy, budget)
    needed = roomy.count_tokens(roomy.calls[-1]["messages"], None) + roomy.calls[-1]["max_tokens"]
    assert session.execute(f"frame {len(session.state().stack) - 1}").ok  # back where it started
    tight = ScriptedStandInModel(list(replies), context=needed - 60)  # the whole transcript no longer fits
    found = investigate(session, dossier, tight, budget)
    last = tight.calls[-1]["messages"]
    assert tight.count_tokens(last, None) + tight.calls[-1]["max_tokens"] <= tight.context
    assert last[0]["content"] == SYSTEM_PROMPT and last[1]["content"].startswith(dossier_text(dossier))
    outputs = [m["content"] for m in last[2:] if m["role"] == "user" and m["content"].startswith(("Output", "[older"))]
    assert outputs[0] == TRIMMED and outputs[-1].startswith("Output:")  # the oldest went first
    assert found.diagnosis is not None


def test_scripted_evidence_too_big_for_the_context_is_a_clear_error(crash):
    session, dossier = crash
    model = ScriptedStandInModel(["Thought: a\nCommand: done", answer()], context=50)
    found = investigate(session, dossier, model, later())
    assert found.error == "the evidence does not fit the model's context" and found.diagnosis is None


class SilentAfter(ScriptedStandInModel):
    """The scripted stand-in, that stops answering after its replies (as a model out of time)."""

    def complete(self, messages, **kwargs):
        if not self.replies:
            raise EngineError("model did not answer in time")
        return super().complete(messages, **kwargs)


def test_scripted_what_was_found_survives_a_model_that_stops_answering(crash):
    session, dossier = crash
    model = SilentAfter(["Thought: a\nCommand: list 1 5", "Thought: b\nCommand: frame 5"])
    found = investigate(session, dossier, model, later())
    assert found.error == "model did not answer in time"
    assert [t.command for t in found.transcript] == ["list 1 5", "frame 5"]
    assert [c.purpose for c in found.calls] == ["step", "step"] and found.tokens.generated == 20


def test_a_fix_never_runs_on_into_the_next_function(crash):
    """An answer naming the crash line and, as its last line, the buggy line of another function
    would replace every line between them, deleting code: the fix stays inside the first line's function."""
    session, dossier = crash
    fix = "    return total / len(values) if values else 0.0"
    d = make_diagnosis(answer(first=CRASH, last=BUGGY, fix=fix), Seen(session.state(), dossier).lines, dossier)
    assert (d.line, d.line_end) == (3, 3) and d.fix.problem is None
    assert not any(line.startswith("-def load_scores") for line in d.fix.diff.splitlines())  # not deleted


def test_an_unknown_location_gives_no_diagnosis(crash):
    session, dossier = crash
    assert make_diagnosis(answer(first="app.py:99| nothing"), Seen(session.state(), dossier).lines, dossier) is None


def test_scripted_unparsable_command_is_recorded_invalid(crash):
    session, dossier = crash
    model = ScriptedStandInModel(["Thought: x\nCommand: launch rockets", "Thought: y\nCommand: done", *rewrites("    return scores")])
    found = investigate(session, dossier, model, later())
    assert found.transcript[0].valid is False and found.transcript[0].output.startswith("error:")


def render_summary(found, dossier) -> str:
    result = Result(autodbg_version="0", python="3", argv=[], cwd="/", thread=None, dossier=dossier, transcript=found.transcript, diagnosis=found.diagnosis, model=ModelInfo("scripted", "", None), timings=Timings(total=1.0))
    out = StringIO()
    Console(file=out, width=100, color_system=None, force_terminal=False).print(SummaryView(result))
    return out.getvalue()


# --- the real thing -------------------------------------------------------------------------------

def run_crash(tmp_path, **env):
    (tmp_path / "app.py").write_text(PROGRAM)
    full_env = clean_env(XDG_CACHE_HOME=str(tmp_path / "cache"), **env)
    return subprocess.run([sys.executable, "app.py"], cwd=tmp_path, env=full_env, capture_output=True, text=True,
                          timeout=300)


@pytest.mark.model
@pytest.mark.parametrize("probe, mode", [("1", "fork"), ("0", "inline")])
def test_real_tiny_model_end_to_end(tmp_path, probe, mode):
    plain = run_crash(tmp_path, AUTODBG="0")
    report = tmp_path / "report.json"
    run = run_crash(tmp_path, AUTODBG="1", AUTODBG_MODEL="smollm2-135m", AUTODBG_REPORT=str(report),
                    AUTODBG_PROBE=probe, AUTODBG_TIMEOUT="120")  # 120: the plan has room for commands
    assert run.returncode == plain.returncode == 1
    assert run.stderr.startswith(plain.stderr)  # the user's traceback first, unchanged
    assert "autodbg · " in run.stderr
    result = json.loads(report.read_text())
    assert result["probe"] == {"mode": mode, "evidence": "ok"}
    assert result["model"]["id"] == "smollm2-135m" and result["model"]["sha256"]
    assert result["transcript"], result["fallback_reason"]
    assert all(t["valid"] for t in result["transcript"])
    for turn in result["transcript"]:
        assert set(turn) == {"thought", "command", "valid", "output", "tokens", "seconds", "ended"}
    timings = result["timings"]
    assert {"worker_start", "evidence", "model_load", "total"} <= set(timings)
    calls = result["model_calls"]
    assert calls and {c["purpose"] for c in calls} <= {"step", "answer", "choice", "why"}
    assert all(c["generated"] > 0 and c["grammar_bytes"] > 0 for c in calls)
    assert sum(c["generated"] for c in calls) == result["tokens"]["generated"]
    assert result["tokens"]["generated"] > 0 and result["tokens"]["prompt_tokens_reused"] > 0
    if result["diagnosis"] is not None:
        d = result["diagnosis"]
        assert d["file"].endswith("app.py") and 1 <= d["line"] <= d["line_end"] <= PROGRAM.count("\n")
        assert "autodbg · ZeroDivisionError" in run.stderr
    else:
        assert "autodbg: evidence only" in run.stderr
    # The model's rates here are kept for the next crash's plan.
    rates = json.loads((tmp_path / "cache" / "autodbg" / "prompt-state" / "rates.json").read_text())
    assert list(rates) == [f"{result['model']['sha256']}|smollm2-135m"] and rates[list(rates)[0]]["per_token"] > 0
    # A second crash loads the system prompt's state from disk.
    again = tmp_path / "again.json"
    run_crash(tmp_path, AUTODBG="1", AUTODBG_MODEL="smollm2-135m", AUTODBG_REPORT=str(again), AUTODBG_PROBE=probe)
    assert json.loads(again.read_text())["tokens"]["system_prompt_from_disk"] is True


@pytest.mark.model
def test_ctrl_c_during_the_investigation_keeps_the_exit_status(tmp_path):
    (tmp_path / "app.py").write_text(PROGRAM)
    env = clean_env(AUTODBG="1", AUTODBG_MODEL="smollm2-135m", AUTODBG_VERBOSE="1", XDG_CACHE_HOME=str(tmp_path / "cache"),
                    AUTODBG_REPORT=str(tmp_path / "r.json"))
    proc = subprocess.Popen([sys.executable, "app.py"], cwd=tmp_path, env=env, stderr=subprocess.PIPE, text=True)
    seen = ""
    while "autodbg · " not in seen:
        line = proc.stderr.readline()
        assert line, seen
        seen += line
    proc.send_signal(signal.SIGINT)
    rest = proc.stderr.read()
    assert proc.wait(timeout=60) == 1
    assert "ZeroDivisionError: division by zero" in seen
    assert "autodbg: evidence only (interrupted)" in rest
    assert "KeyboardInterrupt" not in rest
    assert json.loads((tmp_path / "r.json").read_text())["fallback_reason"] == "interrupted"


def test_worker_death_falls_back_to_evidence(tmp_path):
    bogus = tmp_path / "broken.gguf"
    bogus.write_bytes(b"GGUF" + os.urandom(256))
    run = run_crash(tmp_path, AUTODBG="1", AUTODBG_MODEL=str(bogus), AUTODBG_REPORT=str(tmp_path / "r.json"))
    assert run.returncode == 1
    assert "autodbg: evidence only (model failed to load" in run.stderr
    assert "Traceback" not in run.stderr.split("autodbg · ")[1]


ASSERTING = '''\
def double(x):
    return x + 2


def test_double():
    assert double(3) == 6


test_double()
'''


def cheat_then_honest(tmp_path, monkeypatch, cheat_line: str, cheat_code: str):
    """ASSERTING's crash, answered first with a fix of CHEAT_LINE, then with the honest fix."""
    monkeypatch.chdir(tmp_path)
    session, dossier = crashed_session(tmp_path, "t.py", ASSERTING)
    cheat = json.dumps({"root_cause": "the test is wrong", "first_line": cheat_line, "last_line": cheat_line,
                        "new_code": cheat_code})
    honest = json.dumps({"root_cause": "adds instead of multiplying", "first_line": "t.py:2| return x + 2",
                         "last_line": "t.py:2| return x + 2", "new_code": "    return x * 2"})
    model = ScriptedStandInModel(["Thought: x\nCommand: done", cheat, honest])
    return model, investigate(session, dossier, model, later())


def test_scripted_fix_that_rewrites_the_failing_assertion_is_refused(tmp_path, monkeypatch):
    model, found = cheat_then_honest(tmp_path, monkeypatch, "t.py:6| assert double(3) == 6", "    assert double(3) == 5")
    assert "failing assertion, which is the specification" in model.calls[-1]["messages"][-1]["content"]
    assert found.diagnosis.line == 2 and found.diagnosis.fix.problem is None


def test_scripted_fix_that_stops_running_the_failing_assertion_is_refused(tmp_path, monkeypatch):
    model, found = cheat_then_honest(tmp_path, monkeypatch, "t.py:9| test_double()", "print('ok')")
    assert "changes the test that runs the failing assertion" in model.calls[-1]["messages"][-1]["content"]
    assert found.diagnosis.line == 2 and found.diagnosis.fix.problem is None
    answer_grammar = model.calls[1]["grammar"]  # names no line of the test: it checks double()
    assert "t.py:2| return x + 2" in answer_grammar
    assert not any(f"t.py:{n}|" in answer_grammar for n in (5, 6, 9))


def test_scripted_the_lines_a_replayed_call_ran_are_one_suspect_and_a_fix_among_them_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bz.py").write_text(BELOW_ZERO)
    with pytest.raises(AssertionError) as raised:
        runpy.run_path(str(tmp_path / "bz.py"), run_name="__main__")
    session = CrashSession.of_crash(raised.value.with_traceback(raised.value.__traceback__.tb_next))
    dossier = session.dossier()
    assert [(r.call, sorted(r.lines)) for r in dossier.replays] == [("below_zero([1, 2, -3, 1, 2, -3])", [2, 3, 4, 5, 6])]
    assert "line 4: balance = 0 · line 5: if balance == 0: · line 6: return True → True" in dossier.replays[0].history
    model = ScriptedStandInModel(["Thought: x\nCommand: done", *rewrites(None, None, None, "        if balance < 0:"),
                                  reason("it checks for zero, not below zero")])
    found = investigate(session, dossier, model, later())
    # The lines the replay ran are offered; check() is the specification, not offered.
    options = model.calls[1]["messages"][-2]["content"]
    assert options.endswith("failed:\nbz.py:2| balance = 0\nbz.py:3| for op in operations:\nbz.py:4| balance += op\n"
                            "bz.py:5| if balance == 0:\nbz.py:6| return True")
    # Each is right, it says, until a fix of one passes.
    asked = [call["messages"][-1]["content"].rsplit("Line ", 1)[1].split(ASK)[0] for call in model.calls[1:5]]
    assert asked == ["bz.py:2 is:\n```python\n    balance = 0\n```\n", "bz.py:3 is:\n```python\n    for op in operations:\n```\n",
                     "bz.py:4 is:\n```python\n        balance += op\n```\n",
                     "bz.py:5 is:\n```python\n        if balance == 0:\n```\n"]
    assert found.diagnosis.line == 5 and found.diagnosis.fix.trial.passes
    assert found.diagnosis.root_cause == "it checks for zero, not below zero"


def test_a_bare_assert_in_program_code_leaves_its_callers_fixable(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _, dossier = crashed_session(tmp_path, "sale.py", "def apply(rate):\n    assert 0 < rate < 1\n    return rate\n\n\n"
                                                      "def main():\n    return apply(1.5)\n\n\nmain()\n")
    assert dossier.assertion and specification_lines(dossier) == set()
    _, dossier = crashed_session(tmp_path, "t.py", ASSERTING)  # a test of double(): it and its callers
    assert {n for file, n in specification_lines(dossier) if file.endswith("t.py")} == {5, 6, 9}


def test_a_failing_assert_in_a_test_file_is_the_specification_whatever_it_calls(tmp_path, monkeypatch):
    """unittest's `self.assertIn(...)` calls no function of the program on its line (the test used the
    program on the lines before): the test still specifies, so the search may try every kind of change."""
    monkeypatch.chdir(tmp_path)
    program = ("import unittest\n\n\nclass CacheTest(unittest.TestCase):\n    def test_keeps(self):\n"
               "        cache = {1: 1}\n        self.assertIn(2, cache)\n\n\nCacheTest('test_keeps').test_keeps()\n")
    _, dossier = crashed_session(tmp_path, "test_cache.py", program)
    assert dossier.assertion and not dossier.frames[0].called_functions and not dossier.replays
    assert {n for file, n in specification_lines(dossier) if file.endswith("test_cache.py")} == {5, 6, 7, 10}
    assert proof(dossier) == Proof.TEST


def test_scripted_a_copy_of_the_line_is_taken_as_right_and_not_told(uncaught_crash):
    session, dossier = uncaught_crash
    model = ScriptedStandInModel(["Thought: x\nCommand: done", *rewrites("    return scores[1:]", None, "    total = sum(values) ",
                                                                          None, None)])
    found = investigate(session, dossier, model, later())
    assert not model.replies
    assert model.calls[3]["messages"][-1]["content"] == request_for("app.py:2", "    total = sum(values)")
    assert model.calls[4]["messages"][-1]["content"].startswith("It is in:\n```python\ndef load_scores(text):\n```\nLine app.py:7 is:")
    assert found.candidates == [] and found.diagnosis.line == 8


def test_scripted_fix_that_deletes_the_crashing_line_is_refused(uncaught_crash):
    session, dossier = uncaught_crash
    model = ScriptedStandInModel(["Thought: x\nCommand: done", *rewrites(None, "None", None, None, None),
                                  "null"])
    found = investigate(session, dossier, model, later())
    assert model.calls[2]["messages"][-1]["content"] == request_for("app.py:3", "    return total / len(values)", RAISED)
    assert found.candidates == [] and found.trials == []  # not run: it was refused
    assert found.diagnosis.line == 8 and found.diagnosis.fix is None


class SlowStandIn(ScriptedStandInModel):
    """Not a model: the scripted replies, each after SECONDS, as a slow model would give them."""

    def __init__(self, replies, seconds):
        super().__init__(replies)
        self.seconds = seconds

    def complete(self, messages, **kwargs):
        time.sleep(self.seconds)
        done = super().complete(messages, **kwargs)
        done.prompt_seconds = self.seconds / 4
        return done


@pytest.mark.slow
@pytest.mark.parametrize("target, turns", [(60, 3), (2, 1)])
def test_scripted_commands_run_only_while_they_and_two_answers_fit_the_plan(crash, target, turns):
    """At 10 tokens per 0.3 s, two answers take about 4 s: with 2 s to the budget's target there is
    room for no command after the first; with 60 s, for all three the turn limit allows."""
    session, dossier = crash
    steps = ["Thought: a\nCommand: list 1 5", "Thought: b\nCommand: frame 5", "Thought: c\nCommand: list 1 3"]
    model = SlowStandIn(steps[:turns] + rewrites("    return scores"), seconds=0.3)
    now = time.monotonic()
    found = investigate(session, dossier, model, Budget(deadline=now + 60, max_turns=3, target=now + target, planned=10_000))
    assert len(found.transcript) == turns
    assert found.stopped_by == ("turns" if turns == 3 else "time") and found.diagnosis is not None


def test_scripted_commands_and_answers_stop_at_the_planned_tokens(uncaught_crash):
    """The plan's tokens bound the work whatever the time: at 80 tokens a reply, after the first
    command no other fits 200, and after two rewrites no third."""
    session, dossier = uncaught_crash
    model = ScriptedStandInModel(["Thought: a\nCommand: list 1 5", *rewrites("    return scores[2:]", None, None)],
                                 tokens_per_reply=80)
    found = investigate(session, dossier, model, Budget(deadline=time.monotonic() + 60, max_turns=3, planned=200))
    assert len(found.transcript) == 1 and found.stopped_by == "time"
    assert [c.purpose for c in found.calls] == ["step", "answer", "answer"]  # its fix failed, then one more rewrite
    assert found.diagnosis.fix.trial.result == "still fails"


@pytest.mark.parametrize("target, purposes", [(2.2, ["answer"]), (30, ["answer", "why"])])
def test_scripted_a_reason_is_asked_only_when_its_prose_fits_the_plan(uncaught_crash, target, purposes):
    """A reason is prose, made at about half the rate the rewrites showed: 0.2 s a reply of 10
    tokens (0.05 s of it reading 10), so about 2.1 s (0.45 s + 55 tokens at 0.03 s), which does not
    fit the 1.8 s left of a 2.2 s plan after the rewrite and its run (at the rewrites' rate, 1.3 s,
    it would)."""
    session, dossier = uncaught_crash
    model = SlowStandIn([*rewrites("    return scores"), reason("drops the first score")], seconds=0.2)
    now = time.monotonic()
    found = investigate(session, dossier, model, Budget(deadline=now + 60, max_turns=0, target=now + target,
                                                        planned=10_000))
    assert [c.purpose for c in found.calls] == purposes and found.diagnosis.fix.trial.passes
    assert found.diagnosis.root_cause == ("drops the first score" if "why" in purposes else
                                          "app.py:8: `return scores[1:]` is wrong: with `return scores` instead, the "
                                          "crashed program now runs to the end without an exception.")


def test_a_longer_timeout_plans_more_of_the_models_writing():
    assert planned_tokens(60) == PLANNED_TOKENS  # the default AUTODBG_TIMEOUT: the measured plan
    assert planned_tokens(600) == 10 * PLANNED_TOKENS
    assert planned_tokens(5) == PLANNED_TOKENS  # a short timeout is bounded by time, not by fewer tokens


@pytest.mark.parametrize("planned, asks_for_a_command", [(PLANNED_TOKENS, False), (planned_tokens(180), True)])
def test_the_first_command_is_asked_for_only_when_the_plan_has_room_for_one(uncaught_crash, planned,
                                                                            asks_for_a_command):
    """At the default budget no command runs: the evidence is followed by the answer's request, not
    by a question the model may not answer."""
    session, dossier = uncaught_crash
    steps = ["Thought: a\nCommand: done"] if asks_for_a_command else []
    model = ScriptedStandInModel(steps + rewrites("    return scores") + [reason("drops the first score")])
    found = investigate(session, dossier, model, Budget(deadline=time.monotonic() + 60, max_turns=3, planned=planned))
    evidence = model.calls[0]["messages"][1]["content"]
    assert evidence.startswith(dossier_text(dossier))
    assert (evidence != dossier_text(dossier)) == asks_for_a_command == ("What is your first command?" in evidence)
    assert [c.purpose for c in found.calls][0] == ("step" if asks_for_a_command else "answer")


@pytest.mark.parametrize("seconds_per_token, turns", [(0.001, 3), (0.2, 0)])
def test_scripted_the_first_command_runs_only_when_the_rates_of_the_crash_before_say_it_fits(crash, seconds_per_token, turns):
    """Before the model's first reply nothing is measured in this crash: the rates of the crash
    before decide. At 0.2 s a token the evidence and two answers alone pass a 10 s target."""
    session, dossier = crash
    steps = ["Thought: a\nCommand: list 1 5", "Thought: b\nCommand: frame 5", "Thought: c\nCommand: list 1 3"]
    model = ScriptedStandInModel(steps[:turns] + rewrites("    return scores"))
    now = time.monotonic()
    rates = Rates(per_token=seconds_per_token, per_prompt_token=seconds_per_token / 4)
    found = investigate(session, dossier, model, Budget(deadline=now + 60, max_turns=3, target=now + 10, planned=10_000,
                                                        rates=rates))
    assert len(found.transcript) == turns and found.diagnosis is not None
    assert found.stopped_by == ("turns" if turns else "time")


def test_rates_are_kept_for_the_next_crash_and_bad_files_count_as_none(tmp_path, monkeypatch):
    from autodbg.investigate import pace

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert pace.load_rates("m") is None
    calls = [ModelCall(purpose="step", seconds=2.0, prompt_seconds=1.5, prompt_tokens=900, prompt_tokens_evaluated=300, generated=20, accepted=0, grammar_refusals=0, grammar_bytes=100), ModelCall(purpose="answer", seconds=3.0, prompt_seconds=0.5, prompt_tokens=950, prompt_tokens_evaluated=50, generated=60, accepted=0, grammar_refusals=0, grammar_bytes=100)]
    rates = pace.measured(calls)
    assert rates == Rates(per_token=3.0 / 80, per_prompt_token=2.0 / 350)
    assert pace.measured([ModelCall(purpose="step", seconds=2.0, prompt_seconds=0.0, prompt_tokens=900, prompt_tokens_evaluated=300, generated=20, accepted=0, grammar_refusals=0, grammar_bytes=100)]) is None  # a server that does not split
    for i in range(pace.MAX_MODELS + 5):
        pace.save_rates(f"model-{i}", rates)
    pace.save_rates("m", rates)
    assert pace.load_rates("m") == rates and pace.load_rates("model-0") is None  # the oldest went first
    path = tmp_path / "autodbg" / "prompt-state" / pace.RATES_FILE
    assert oct(path.stat().st_mode & 0o777) == "0o600" and len(json.loads(path.read_text())) == pace.MAX_MODELS
    for bad in ("not json", '{"m": {"per_token": "x"}}', '{"m": {"per_token": -1, "per_prompt_token": 1}}', "[1]"):
        path.write_text(bad)
        assert pace.load_rates("m") is None
    pace.save_rates("m", rates)  # over a bad file
    assert pace.load_rates("m") == rates



def test_scripted_a_crash_in_a_test_alone_asks_for_no_answer_it_could_not_give(tmp_path, monkeypatch):
    """Where the crash's only frames are a test and the driver that runs it, nothing shown may be
    changed: no answer grammar is built from no lines (it would be no grammar at all), and the
    reason says why there is no diagnosis."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "test_alone_cache.py").write_text("def test_size():\n    cache = {1: 1}\n    assert len(cache) == 2\n")
    (tmp_path / "crash.py").write_text("from test_alone_cache import test_size\n\ntest_size()\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    session = uncaught_assertion(tmp_path / "crash.py")
    model = ScriptedStandInModel(["Thought: the test fails\nCommand: done"])
    found = investigate(session, session.dossier(), model, later())
    assert found.diagnosis is None and found.error == NO_LINE_TO_CHANGE
    assert [call["grammar"] for call in model.calls if "first_line" in call["grammar"]] == []


def test_a_grammar_rule_of_no_alternatives_is_refused():
    with pytest.raises(ValueError, match="no alternatives"):
        answer_grammar([])
