"""Rendering of the evidence and the diagnosis summary: snapshots at a fixed width with colour
off, and untrusted text printed literally (never as rich markup)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from autodbg.debugger.session import Session
from autodbg.frames.core import PostMortem
from autodbg.evidence import build_dossier
from autodbg.fix.check import check_fix
from autodbg.investigate.answer import source_window
from autodbg.records import ChainLink, Diagnosis, Edit, FixTrial, Judgement, ModelInfo, Result, Timings, Turn
from autodbg.pipeline import suggested_patch
from autodbg.report import EvidenceView, SummaryView, footer, make_console
from crashkit import crash, load_program

CRASHY = '''
def mean(values):
    total = sum(values)
    count = len(values)
    return total / count


def main():
    scores = []
    return mean(scores)


def run():
    try:
        main()
    except BaseException as exc:
        return exc
'''


def render(renderable, width=80) -> str:
    buf = io.StringIO()
    Console(file=buf, width=width, color_system=None, force_terminal=False).print(renderable)
    return "\n".join(line.rstrip() for line in buf.getvalue().splitlines())


@pytest.fixture
def crashy(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # so the program is shown as `crashy.py`
    return load_program(tmp_path, CRASHY, "crashy")


@pytest.fixture
def dossier(crashy):
    return build_dossier(Session(PostMortem(crashy.run())))


EVIDENCE = """\
────────────────────────────── autodbg · evidence ──────────────────────────────
ZeroDivisionError: division by zero

crashy.py:4 in mean  (crash site)
  1 def mean(values):
  2     total = sum(values)
  3     count = len(values)
❱ 4     return total / count
  values on this line:
    total = 0
    count = 0
  other locals: values = []

crashy.py:9 in main  (called from here)
  7 def main():
  8     scores = []
❱ 9     return mean(scores)
  values on this line:
    scores = []

crashy.py:14 in run  (called from here)
  12 def run():
  13     try:
❱ 14         main()
  15     except BaseException as exc:
  16         return exc

where the values came from (read from the source, no model):
  total ← crashy.py:2: total = sum(values)
  count ← crashy.py:3: count = len(values)
  values ← crashy.py:9: return mean(scores)
  scores ← crashy.py:8: scores = []"""


def test_evidence_view_snapshot(dossier):
    assert render(EvidenceView(dossier)) == EVIDENCE


def test_evidence_view_lists_chain_and_folded_frames(dossier):
    dossier.chain = [ChainLink(0, "KeyError: 'port'", "cause of #1"),
                     ChainLink(1, "ZeroDivisionError: division by zero", "raised")]
    dossier.folded_user_frames = 7
    dossier.library_frames = 3
    lines = render(EvidenceView(dossier)).splitlines()
    assert lines[1:4] == ["ZeroDivisionError: division by zero",
                          "  #0 KeyError: 'port'  (cause of #1)",
                          "  #1 ZeroDivisionError: division by zero  (raised)"]
    assert lines[-1] == "(7 more user frames and 3 library frames not shown)"


def result_for(dossier, transcript, diagnosis, model_id: str, total: float) -> Result:
    return Result(autodbg_version="0", python="3", argv=[], cwd="/", thread=None, dossier=dossier, transcript=transcript, diagnosis=diagnosis, model=ModelInfo(model_id, "", None), timings=Timings(total=total))


def make_result(dossier, fix) -> Result:
    path = str(Path("crashy.py").resolve())
    return result_for(dossier, [
        Turn(thought="look", command="print count", valid=True, output="count = 0", tokens=10, seconds=0.5),
        Turn(thought="typo", command="print nope", valid=False, output="error: NameError", tokens=10, seconds=0.5),
        Turn(thought="caller", command="up", valid=True, output="frame 1: crashy.py:9 in main\n  9 -> return mean(scores)", tokens=10, seconds=0.5),
        Turn(thought="found it", command="done", valid=True, output="", tokens=3, seconds=0.1),
    ], Diagnosis(file=path, display_file="crashy.py", line=4, line_end=4, root_cause="mean() divides by len(values), which is 0 for an empty list.", fix=fix, source_window=source_window(path, 4, 4)), "tiny-model", 12.34)


def summary(dossier, fix, width=80, verbose=False) -> str:
    result = make_result(dossier, fix)
    result.patch = suggested_patch(result)
    return render(SummaryView(result, verbose=verbose), width=width)


def test_summary_view_with_a_checked_fix(dossier):
    fix = check_fix(Edit(file="crashy.py", first=4, last=4, replacement="return total / count if count else 0.0", origin="model"))
    assert fix.problem is None
    out = summary(dossier, fix)
    lines = [line.rstrip() for line in out.splitlines()]
    assert lines[0].startswith("autodbg · ZeroDivisionError: division by zero ──")
    assert lines[1:4] == ["mean() divides by len(values), which is 0 for an empty list.", "crashy.py:4",
                          "Untried change · it could not be run here (applies and compiles)"]
    assert "\n".join(lines[4:11]) == "\n".join([  # a plain diff, no box, nothing to strip before `patch` reads it
        "--- a/crashy.py",
        "+++ b/crashy.py",
        "@@ -1,7 +1,7 @@",
        " def mean(values):",
        "     total = sum(values)",
        "     count = len(values)",
        "-    return total / count",
    ])
    assert "+    return total / count if count else 0.0" in lines
    assert "│" not in out and "╭" not in out and "No checked fix" not in out
    assert "`autodbg fix`" not in out  # nothing ran it: nothing to take


def test_summary_view_with_a_verified_fix_only_stops_the_crash(dossier):
    fix = check_fix(Edit(file="crashy.py", first=4, last=4, replacement="return total / count if count else 0.0", origin="model"))
    fix.verified, fix.outcome = True, "verified by re-running: the program now exits 0"
    out = summary(dossier, fix, width=160)
    assert "Suggested fix · stops the crash (the run goes on to its end; no test judged it)" in out
    assert "passes your tests" not in out
    assert "+++ b/crashy.py" in out and "`autodbg fix` applies the change" in out


def test_summary_view_of_a_fix_that_fails_differently_is_no_suggested_fix(dossier):
    fix = check_fix(Edit(file="crashy.py", first=4, last=4, replacement="return total / count if count else 0.0", origin="model"))
    fix.trial = FixTrial("fails differently", "TypeError: unsupported operand (crashy.py:9)")
    out = summary(dossier, fix, width=160)
    assert "Tried, did not work · no fix found" in out and "Suggested fix" not in out
    assert "`autodbg fix`" not in out


def test_summary_view_of_a_fix_that_passes_the_programs_tests_names_them(dossier):
    fix = check_fix(Edit(file="crashy.py", first=4, last=4, replacement="return total / count if count else 0.0", origin="model"))
    fix.trial = FixTrial("passes", "with this fix the crashed program runs to its end")
    fix.judgement = Judgement(tests=["test_crashy.py"], passed_before=4, kept=4, broken=[], fixed=["test_empty"],
                              still_failing=[])
    out = summary(dossier, fix, width=160)
    assert "Suggested fix · passes your tests" in out
    assert "your tests (test_crashy.py): now passes: test_empty; 4 of 4 tests that passed before still pass" in out


def test_summary_view_of_a_fix_that_breaks_a_test_did_not_work(dossier):
    fix = check_fix(Edit(file="crashy.py", first=4, last=4, replacement="return total / count if count else 0.0", origin="model"))
    fix.trial = FixTrial("passes", "with this fix the crashed program runs to its end")
    fix.judgement = Judgement(tests=["test_crashy.py"], passed_before=4, kept=3, broken=["test_mean"], fixed=[],
                              still_failing=[])
    out = summary(dossier, fix, width=160)
    assert "Tried, did not work" in out and "now fails: test_mean" in out and "Suggested fix" not in out


def test_summary_view_without_a_fix(dossier):
    out = summary(dossier, None)
    lines = out.splitlines()
    assert lines[1:4] == ["mean() divides by len(values), which is 0 for an empty list.", "crashy.py:4",
                          "No checked fix (the model gave none)."]
    assert "the evidence (no model):" in lines  # then the failing line's values, each frame once
    assert "  crashy.py:4: total = 0 · count = 0" in lines
    assert sum("crashy.py:4" in line for line in lines) == 2 and "❱" not in out  # no source windows: the traceback has them


def test_summary_view_with_an_unusable_fix_says_why(dossier):
    fix = check_fix(Edit(file="crashy.py", first=4, last=4, replacement="return (total / count", origin="model"))
    assert fix.compiles is False
    out = summary(dossier, fix, width=160)
    assert f"No checked fix ({fix.problem})." in out
    assert "Suggested fix" not in out and "+++ b/crashy.py" not in out


def test_verbose_summary_has_the_commands_and_the_footer(dossier):
    out = summary(dossier, None, verbose=True)
    assert "  print count  → count = 0" in out and "  up  → frame 1: crashy.py:9 in main" in out
    assert "print nope" not in out  # an invalid command showed nothing
    assert out.rstrip().endswith("tiny-model · 3 commands · 12.3s · AUTODBG=0 turns autodbg off")


def test_footer(dossier):
    turns = [Turn(thought="", command="where", valid=True, output="", tokens=1, seconds=0.1), Turn(thought="", command="done", valid=True, output="", tokens=1, seconds=0.1)]
    assert footer(result_for(dossier, turns, None, "m", 1.26)) == "m · 1 commands · 1.3s · AUTODBG=0 turns autodbg off"
    bare = Result(autodbg_version="0", python="3", argv=[], cwd="/", thread=None, dossier=dossier)
    assert footer(bare) == "? · 0 commands · 0.0s · AUTODBG=0 turns autodbg off"
    bare.reruns = 2
    assert "re-ran the program 2x" in footer(bare)


# --- markup-looking text is printed literally ----------------------------------------------------

MARKUP = "[bold]x[/bold] [/x] [red]"

MARKUP_PROGRAM = '''
def explode(label):
    note = "[bold]x[/bold] [/x] [red]"
    raise ValueError("bad [bold]x[/bold] [/x] [red] " + label)
'''


@pytest.fixture
def markup_dossier(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    module = load_program(tmp_path, MARKUP_PROGRAM, "markup_prog")
    return build_dossier(Session(PostMortem(crash(module.explode, "[/]"))))


def test_markup_in_exception_message_and_values_is_literal(markup_dossier):
    out = render(EvidenceView(markup_dossier), width=200)
    assert "ValueError: bad [bold]x[/bold] [/x] [red] [/]" in out
    assert f"note = '{MARKUP}'" in out
    assert "label = '[/]'" in out
    assert "[/x]" in out.splitlines()[1]


def test_markup_in_the_diagnosis_is_literal(markup_dossier, tmp_path):
    path = str(tmp_path / "markup_prog.py")
    result = result_for(markup_dossier, [Turn(thought="t", command='print d["[red]"]', valid=True, output="[/bold] oops [link=x]", tokens=1, seconds=0.1)],
                        Diagnosis(file=path, display_file="markup_prog.py", line=3, line_end=3, root_cause=f"the note {MARKUP} is wrong [/]", fix=None, source_window=source_window(path, 3, 3)), "[model]", 1.0)
    out = render(SummaryView(result, verbose=True), width=200)
    assert f"the note {MARKUP} is wrong [/]" in out
    assert 'print d["[red]"]  → [/bold] oops [link=x]' in out
    assert "[model] · 1 commands" in out
    result.diagnosis.fix = check_fix(Edit(file=path, first=3, last=3, replacement='note = "[/x] [bold]"', origin="model"))
    assert '+    note = "[/x] [bold]"' in render(SummaryView(result), width=200)


def test_make_console_follows_no_color(monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    buf = io.StringIO()
    console = make_console(file=buf)
    assert console.no_color
    console.print(EvidenceView.__name__)
    assert buf.getvalue() == "EvidenceView\n"
    monkeypatch.delenv("NO_COLOR")
    assert not make_console(file=io.StringIO()).no_color


def test_a_long_added_line_is_shown_whole(dossier):
    payload = "return total / count if count else 0.0  # " + "x" * 150 + " END-OF-PAYLOAD"
    fix = check_fix(Edit(file="crashy.py", first=4, last=4, replacement=payload, origin="model"))
    assert fix.problem is None
    out = summary(dossier, fix)
    joined = "".join(line.rstrip() for line in out.splitlines())
    assert "END-OF-PAYLOAD" in out and "x" * 150 in joined
