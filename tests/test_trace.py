"""`trace CALL`: a call whose frame is gone, re-run in a probe under the line tracer. Real crashes
of a real program under `autodbg run -i`, and the grammar of real crashed frames."""

from __future__ import annotations

import json
import time

import pytest

from autodbg.debugger.grammar import Known, step_grammar
from autodbg.investigate.loop import investigate
from autodbg.investigate.plan import Budget
from autodbg.investigate.strategies import MAX_OPTIONS
from autodbg.crash import CrashSession
from conftest import clean_env, run_py
from crashkit import ScriptedStandInModel, crash, load_program

VICTIM = '''\
import sys
import time

MODE, MARK = sys.argv[1], sys.argv[2]


def parse(text):
    parts = text.split("+")
    scores = [int(p) for p in parts]
    return scores[1:]


def check(s):
    assert parse(s) == 3


def log(text):
    with open(MARK, "a") as out:
        out.write(text)
    return len(text)


def wait_for(job, pause):
    job["runs"] += 1
    while job["runs"] > 1:  # never at the crash; a replay finds the job already run once
        time.sleep(pause)
    return job["runs"]


def login(user):
    password = "correct-horse-battery-staple"
    return user + ":" + password


def main(mode):
    s = "1+2"
    job = {"runs": 0}
    if mode == "parse":
        check(s)
    elif mode == "write":
        assert log(s) == 0
    elif mode == "spin":
        assert wait_for(job, 0) == 2
    elif mode == "nap":
        assert wait_for(job, 0.5) == 2
    elif mode == "secret":
        assert login(s) == "1+2"


main(MODE)
'''


REPLAYED = "what the failing line's calls did (run again in a sandboxed copy, no model):"


def session(tmp_path, mode: str, commands: str, **env) -> tuple[str, str]:
    """What `autodbg run -i` printed for COMMANDS on the crash of MODE (the evidence on stderr, then
    stdout), and the mark file's text."""
    (tmp_path / "victim.py").write_text(VICTIM)
    mark = tmp_path / "mark"
    run = run_py(["-m", "autodbg", "run", "-i", "--no-rerun", "victim.py", mode, str(mark)], cwd=tmp_path,
                 input=commands + "print 1 + 1\nquit\n", timeout=120,
                 env=clean_env(AUTODBG_MODEL="none", AUTODBG_VERBOSE="1", **env))  # the whole evidence: its replays
    assert run.returncode == 1, run.stderr
    assert "AssertionError" in run.stderr.split("autodbg · ")[0]
    assert answer(run.stdout, "print 1 + 1") == "1 + 1 = 2"  # the session goes on after each trace
    return run.stderr + run.stdout, mark.read_text() if mark.exists() else ""


def answer(out: str, command: str) -> str:
    return out.split(f"(autodbg) {command}\n", 1)[1].split("\n(autodbg)", 1)[0]


@pytest.mark.slow
def test_trace_replays_a_call_of_the_failing_line_and_the_frames_own_call(tmp_path):
    out, _ = session(tmp_path, "parse", "trace parse(s)\ntrace check( s )\ntrace nosuch(s)\n"
                                        "trace parse(s.strip())\ntrace\n")
    assert answer(out, "trace parse(s)") == (
        "line 8: parts = ['1', '2'] · line 9: scores = [1, 2] · line 10: return scores[1:] → [2] · "
        "⇒ returned [2]")
    assert answer(out, "trace check( s )") == (  # check's own call, at main's line: parse is traced inside it
        "line 14: assert parse(s) == 3 !! AssertionError · parse line 8: parts = ['1', '2'] · "
        "parse line 9: scores = [1, 2] · parse line 10: return scores[1:] → [2] · ⇒ raised AssertionError")
    assert answer(out, "trace nosuch(s)") == (
        "error: nosuch(s) is not a call to replay from this frame; these are: parse(s), check(s)")
    assert answer(out, "trace parse(s.strip())") == (
        "error: CALL must be a call of the current line whose arguments are names and literals, "
        "like `parse(s)`, not 'parse(s.strip())'")
    assert answer(out, "trace") == "error: usage: trace CALL"
    # and for the evidence, before the session started:
    assert f"{REPLAYED}\n  parse(s): line 8: parts = ['1', '2'] · line 9: scores = [1, 2]" in out


def test_a_replay_that_writes_a_file_is_not_replayable_and_writes_nothing(tmp_path):
    out, mark = session(tmp_path, "write", "trace log(s)\n")
    assert answer(out, "trace log(s)") == (
        f"error: not replayable: refused by the sandbox: open('{tmp_path / 'mark'}', 'a'); "
        "a replay may not write files, reach the network or start processes")
    assert mark == "1+2"  # the crash's own write, once: not the evidence's replay either
    assert REPLAYED not in out


@pytest.mark.slow
def test_an_endless_replay_is_stopped_at_the_line_limit(tmp_path):
    out, _ = session(tmp_path, "spin", "trace wait_for(job, 0)\n")
    history = answer(out, "trace wait_for(job, 0)")
    assert "line 26 ×" in history and history.endswith("⇒ stopped at the line limit")


@pytest.mark.slow
def test_a_replay_that_sleeps_forever_is_killed_at_the_deadline(tmp_path):
    out, _ = session(tmp_path, "nap", "trace wait_for(job, 0.5)\n")
    assert answer(out, "trace wait_for(job, 0.5)") == "error: timed out after 3.0 s"
    assert REPLAYED not in out and "job = {'runs': 1}" in out  # the evidence's replay timed out, its values stand


@pytest.mark.slow
def test_a_replays_secrets_are_redacted(tmp_path):
    out, _ = session(tmp_path, "secret", "trace login(s)\n")
    history = answer(out, "trace login(s)")
    assert history.startswith("line 31: password = <redacted str, 28 chars> · line 32:"), history
    assert "correct" not in out and "staple" not in out  # the evidence's replay too
    assert f"{REPLAYED}\n  login(s): line 31: password = <redacted str, 28 chars>" in out


def test_not_offered_nor_run_where_probes_are_off(tmp_path):
    out, _ = session(tmp_path, "parse", "trace parse(s)\n", AUTODBG_PROBE="0")
    assert answer(out, "trace parse(s)") == (
        "error: `trace` runs the program's code: only in a probe, and probes are off here")
    assert REPLAYED not in out


# --- the grammar offers exactly the calls there are ------------------------------------------------

PROGRAM = '''
def parse(s):
    return [int(x) for x in s.split(",")]


def pick(scores):
    return scores[5]


def check(s):
    assert parse(s) == 3


def main():
    return pick(parse("1,2"))
'''


@pytest.fixture(scope="module")
def prog(tmp_path_factory):
    return load_program(tmp_path_factory.mktemp("trace"), PROGRAM)


def trace_rule(session: CrashSession, known: Known = Known()) -> str | None:
    grammar = step_grammar(session.state(), known, session.available_commands())
    return dict(line.split(" ::= ", 1) for line in grammar.splitlines()).get("cmd-trace")


def test_the_grammar_offers_the_failing_lines_calls(prog):
    s = CrashSession.of_crash(crash(prog.check, "1,2"))
    assert s.mode == "fork"
    assert s.state().calls == ["parse(s)"]  # check's own call is made by the test, not the program's code
    assert trace_rule(s) == '"trace" " " ("parse(s)")'
    assert trace_rule(s, Known(traced=frozenset({"parse(s)"}))) is None  # seen already
    assert s.execute("trace parse(s)").output.endswith("⇒ returned [1, 2]")


def test_no_trace_in_a_frame_without_replayable_calls(prog):
    s = CrashSession.of_crash(crash(prog.main))
    assert s.state().current == 2 and s.state().calls == []  # `return scores[5]`; pick(parse(...)) is not plain
    assert trace_rule(s) is None
    assert s.execute("frame 1").ok  # main: `return pick(parse("1,2"))`
    assert s.state().calls == ["parse('1,2')"]
    assert trace_rule(s) == '"trace" " " ("parse(\'1,2\')")'


def test_no_trace_inline(prog):
    s = CrashSession.of_crash(crash(prog.check, "1,2"), probes=False)
    assert s.state().calls == [] and "trace" not in s.available_commands()
    assert trace_rule(s) is None


def test_the_evidence_replays_the_failing_lines_calls_and_the_grammar_no_longer_offers_them(prog):
    s = CrashSession.of_crash(crash(prog.check, "1,2"))
    dossier = s.dossier()
    assert [(r.call, r.function, r.lines) for r in dossier.replays] == [("parse(s)", "parse", [2])]
    assert dossier.replays[0].history == "line 2: return [int(x) for x in s.split(\",\")] → [1, 2] · ⇒ returned [1, 2]"
    line = "prog.py:1| x"
    answer = json.dumps({"root_cause": "x", "first_line": line, "last_line": line, "new_code": None})
    model = ScriptedStandInModel(["Thought: so\nCommand: done", answer])
    investigate(s, dossier, model, Budget(deadline=time.monotonic() + 60))
    assert "parse(s) run again, what its lines made: line 2: return" in model.calls[0]["messages"][1]["content"]
    assert "cmd-trace" not in model.calls[0]["grammar"]  # its history is known


def test_the_investigation_offers_a_call_until_it_was_traced(prog):
    s = CrashSession.of_crash(crash(prog.main))
    assert s.execute("frame 1").ok  # main: `return pick(parse("1,2"))`, not replayed for the evidence
    model = ScriptedStandInModel(["Thought: what parse made\nCommand: trace parse('1,2')", "Thought: so\nCommand: done",
                                  *["null"] * MAX_OPTIONS])
    found = investigate(s, s.dossier(), model, Budget(deadline=time.monotonic() + 60, planned=10_000))  # the script decides
    assert 'cmd-trace ::= "trace" " " ("parse(\'1,2\')")' in model.calls[0]["grammar"]
    assert "cmd-trace" not in model.calls[1]["grammar"]  # its history is known now
    assert found.transcript[0].output.endswith("⇒ returned [1, 2]") and found.transcript[0].ended == "ok"
