"""The judge: a change is judged by the program's own tests (real pytest, on a confined copy), what
judges is never changed, and the label says only what was run and seen."""

import time
from pathlib import Path

import pytest

from autodbg.fix.check import check_fix
from autodbg.fix.label import label_of
from autodbg.investigate.answer import hiding, judging_files
from autodbg.investigate.search import ranked_places
from autodbg.investigate.trying import RelatedTests
from autodbg.pipeline import judge
from autodbg.program.judge import find_tests, judge_change, project_root, run_tests
from autodbg.program.spectrum import ochiai, suspiciousness
from autodbg.records import (
    Candidate, CrashSite, Diagnosis, Dossier, Edit, ExceptionInfo, FixTrial, FrameEvidence, Label, Result, Search,
    SourceWindow, Timings,
)

PRICING = """\
def discounted(price, percent):
    return price - price * percent / 10


def total(prices, percent):
    return sum(discounted(p, percent) for p in prices)
"""

TEST_PRICING = """\
import pytest

from shop.pricing import discounted, total


@pytest.mark.parametrize("price, percent, expected", [(100, 10, 90), (200, 50, 100), (80, 0, 80)])
def test_discounted(price, percent, expected):
    assert discounted(price, percent) == expected


def test_total_of_nothing():
    assert total([], 30) == 0
"""

RIGHT = "    return price - price * percent / 100\n"
NUDGED = "    return price * 0.9\n"  # passes the case (100, 10, 90), breaks (80, 0, 80) that passed before


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "shop").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "pyproject.toml").write_text("[project]\nname = 'shop'\n")
    (root / "shop" / "__init__.py").write_text("")
    (root / "shop" / "pricing.py").write_text(PRICING)
    (root / "tests" / "test_pricing.py").write_text(TEST_PRICING)
    (root / "tests" / "test_other.py").write_text("def test_unrelated():\n    assert True\n")
    return root


def edit(root: Path, replacement: str) -> Edit:
    return Edit(file=str(root / "shop" / "pricing.py"), first=2, last=2, replacement=replacement, origin="model")


def test_the_judge_is_the_tests_that_import_the_changed_module(project):
    tests = find_tests(str(project / "shop" / "pricing.py"), [])
    assert tests is not None and tests.root == str(project)
    assert tests.files == (str(project / "tests" / "test_pricing.py"),)  # not test_other.py


def test_a_script_without_tests_has_no_judge(tmp_path):
    (tmp_path / "app.py").write_text("print(1 / 0)\n")
    assert project_root(str(tmp_path)) == str(tmp_path)
    assert find_tests(str(tmp_path / "app.py"), [str(tmp_path / "app.py")]) is None


@pytest.mark.slow
def test_the_right_fix_passes_every_case_and_a_nudged_constant_breaks_them(project):
    tests = find_tests(str(project / "shop" / "pricing.py"), [])
    before = run_tests(tests, None, 60)
    assert isinstance(before, dict) and sorted(before.values()) == [False, False, True, True]  # 80/0 and the empty total pass
    right = judge_change(tests, edit(project, RIGHT), before, 60)
    assert right.holds and right.kept == right.passed_before == 2 and len(right.fixed) == 2 and not right.still_failing
    nudged = judge_change(tests, edit(project, NUDGED), before, 60)
    assert nudged.fixed == ["test_discounted[100-10-90]"] and nudged.broken == ["test_discounted[80-0-80]"]
    assert not nudged.holds
    assert (project / "shop" / "pricing.py").read_text() == PRICING  # judged on a copy, never the user's files


@pytest.mark.slow
def test_a_test_module_that_could_not_import_and_now_runs_is_judged_by_its_tests(project):
    (project / "shop" / "pricing.py").write_text(PRICING.replace("def total(prices, percent):", "def total(prices, percent:"))
    tests = find_tests(str(project / "shop" / "pricing.py"), [])
    before = run_tests(tests, None, 60)
    assert before == {"::tests.test_pricing": False}  # the collection error, pytest's one entry for the module
    syntax = Edit(file=str(project / "shop" / "pricing.py"), first=5, last=5, replacement="def total(prices, percent):\n",
                  origin="model")
    collected = judge_change(tests, syntax, before, 60)
    assert collected.still_failing == ["tests.test_pricing"] and not collected.fixed  # it imports; 2 of its cases still fail
    both = Edit(file=syntax.file, first=2, last=5, replacement=RIGHT + "\n\n" + syntax.replacement, origin="model")
    fixed = judge_change(tests, both, before, 60)
    assert fixed.fixed == ["tests.test_pricing"] and not fixed.still_failing and fixed.holds


@pytest.mark.slow
def test_labels_say_only_what_was_run_and_seen(project):
    tests = find_tests(str(project / "shop" / "pricing.py"), [])
    before = run_tests(tests, None, 60)
    ran = FixTrial("passes", "with this fix the crashed program runs to its end")
    fix = check_fix(edit(project, RIGHT))
    fix.trial = ran
    assert label_of(fix) == Label.STOPS_THE_CRASH  # nothing but the crashed run judged it
    fix.judgement = judge_change(tests, fix.edit, before, 60)
    assert label_of(fix) == Label.PASSES_YOUR_TESTS
    wrong = check_fix(edit(project, NUDGED))
    wrong.trial, wrong.judgement = ran, judge_change(tests, wrong.edit, before, 60)
    assert label_of(wrong) == Label.DID_NOT_WORK  # the crashed run ends, the tests say otherwise
    guard = check_fix(edit(project, RIGHT))
    guard.trial = FixTrial("guards", "with this fix the crashed program runs to its end behind a condition")
    assert label_of(guard) == Label.GUARD
    differently = check_fix(edit(project, RIGHT))
    differently.trial = FixTrial("fails differently", "TypeError (pricing.py:2)")
    assert label_of(differently) == Label.DID_NOT_WORK


def frame(file: str, line: int, index: int) -> FrameEvidence:
    return FrameEvidence(index=index, file=file, display_file=Path(file).name, function="f", line=line,
                         is_crash_frame=index == 0, code="", source=SourceWindow(line, [""]), line_values=[], locals={},
                         locals_cut=0, called_functions=[])


def dossier_of(*files: str) -> Dossier:
    return Dossier(exception=ExceptionInfo("AssertionError", "", "AssertionError"), chain=[],
                   crash_site=CrashSite(files[0], 2, "f"), frames=[frame(f, 2, i) for i, f in enumerate(files)],
                   folded_user_frames=0, library_frames=0, assertion=False, origins=[], replays=[])


def test_a_change_of_a_test_or_of_the_driver_that_runs_it_is_refused(project):
    library, test, driver = (str(project / "shop" / "pricing.py"), str(project / "tests" / "test_pricing.py"),
                             str(project / "crash.py"))
    dossier = dossier_of(library, test, driver)  # the driver called the test, which called the library
    assert judging_files(dossier) == {test, driver}
    for file in (test, driver):
        problem = hiding(dossier, Edit(file=file, first=5, last=5, replacement="x = 1\n", origin="model"))
        assert problem is not None and "judges the fix" in problem
    assert hiding(dossier, edit(project, RIGHT)) is None
    helper = str(project / "tests" / "__init__.py")  # a test helper the crash did not run through: a test all the same
    assert "judges the fix" in hiding(dossier, Edit(file=helper, first=1, last=1, replacement="x = 1\n", origin="model"))
    assert judging_files(dossier_of(library, str(project / "main.py"))) == set()  # no test ran: nothing judges


@pytest.mark.slow
def test_where_the_fix_breaks_the_tests_another_change_that_holds_them_takes_its_place(project):
    tests_file = project / "tests" / "test_pricing.py"
    wrong = check_fix(edit(project, NUDGED))
    wrong.trial = FixTrial("passes", "with this fix the crashed program runs to its end")
    right = Candidate(edit=edit(project, RIGHT), display_file="shop/pricing.py", code=PRICING.splitlines(True)[1],
                      trial=FixTrial("passes", "with this fix the failing assertion holds"))
    dossier = dossier_of(str(project / "shop" / "pricing.py"), str(tests_file))
    result = Result(autodbg_version="0", python="3", argv=[], cwd=str(project), thread=None, dossier=dossier,
                    transcript=[], candidates=[], model=None, probe=None, timings=Timings(),
                    search=Search(proof="test", lines=1, tried=2, outcomes={}, seconds=0.1, passing=[right]),
                    diagnosis=Diagnosis(file=wrong.edit.file, display_file="shop/pricing.py", line=2, line_end=2,
                                        root_cause="the model's guess", fix=wrong, source_window=SourceWindow(2, [""])))
    judge(RelatedTests(dossier), result, time.monotonic() + 120, lambda step: None)
    kept = result.diagnosis.fix
    assert kept.edit == right.edit and kept.label == Label.PASSES_YOUR_TESTS
    assert "the model's guess" not in result.diagnosis.root_cause and result.timings.judge > 0


def test_ochiai_ranks_the_lines_only_failing_tests_ran_first():
    scores = ochiai([(False, {("a.py", 1), ("a.py", 2)}), (True, {("a.py", 1)}), (True, {("a.py", 3)})])
    assert scores[("a.py", 2)] == 1.0 and 0 < scores[("a.py", 1)] < 1 and ("a.py", 3) not in scores
    assert ochiai([(True, {("a.py", 1)})]) == {}  # no test failed: the tests point nowhere


def test_the_programs_failing_tests_point_the_search_at_the_lines_they_ran(project):
    tests = find_tests(str(project / "shop" / "pricing.py"), [])
    scores = suspiciousness(tests, 60, ())
    pricing, test = str(project / "shop" / "pricing.py"), str(project / "tests" / "test_pricing.py")
    assert scores[(pricing, 2)] > 0  # discounted's line: run by the failing cases (and one passing one)
    assert (pricing, 6) not in scores  # total's line: only the passing test ran it
    # The evidence named only the test's line; the tests add the library's line, never the test's own.
    places = ranked_places(dossier_of(test), scores)
    assert [(p.file, p.line) for p in places] == [(pricing, 2)]


@pytest.mark.slow
def test_the_crashs_own_test_runs_first_and_a_run_cut_at_its_budget_still_points(project):
    # A slow test ahead of the failing one in the file: run in order, the budget ends before any test fails.
    tests_file = project / "tests" / "test_pricing.py"
    tests_file.write_text("import time\n\n\ndef test_slow_first():\n    time.sleep(60)\n\n\n" + TEST_PRICING)
    tests = find_tests(str(project / "shop" / "pricing.py"), [])
    assert suspiciousness(tests, 8, ()) == "the tests ran past 8s"
    scores = suspiciousness(tests, 8, ("test_discounted",))
    assert scores[(str(project / "shop" / "pricing.py"), 2)] > 0


COUNTER = """\
class Counter:
    def __init__(self):
        self.counts = {}

    def add(self, key):
        if key in self.counts:
            self.counts[key] = len(key)
        else:
            self.counts[key] = 1

    def count(self, key):
        return self.counts.get(key, 0)
"""

TEST_COUNTER = """\
import unittest

from tally.counter import Counter


class CounterTest(unittest.TestCase):
    def test_once(self):
        counter = Counter()
        counter.add("a")
        self.assertEqual(counter.count("a"), 1)

    def test_twice(self):
        counter = Counter()
        counter.add("a")
        counter.add("a")
        self.assertEqual(counter.count("a"), 2)

    def test_none(self):
        self.assertEqual(Counter().count("a"), 0)
"""


@pytest.mark.slow
def test_scripted_where_the_frames_show_only_the_test_the_lines_the_failing_tests_point_to_are_rewritten(
        tmp_path, monkeypatch):
    """unittest's assertEqual fails after the test used the program: the crash's frames are the test
    and its driver, which a fix may not change. The failing test ran `self.counts[key] += 2` and the
    passing ones did not: that line is shown to the model, offered for a rewrite, and its fix judged
    (the search's small changes do not fix it)."""
    from io import StringIO

    from rich.console import Console

    from autodbg.pipeline import new_result, run_investigation, search_fixes
    from autodbg.settings import load_settings
    from crashkit import ScriptedStandInModel, rewrite_replies, uncaught_assertion

    root = tmp_path / "proj"
    (root / "tally").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'tally'\n")
    (root / "tally" / "__init__.py").write_text("")
    (root / "tally" / "counter.py").write_text(COUNTER)
    (root / "test_tally_counter.py").write_text(TEST_COUNTER)  # not tests/: this suite's own package has that name
    (root / "crash.py").write_text("from test_tally_counter import CounterTest\n\n"
                                   "CounterTest('test_twice').test_twice()\n")
    monkeypatch.chdir(root)
    monkeypatch.syspath_prepend(str(root))
    session = uncaught_assertion(root / "crash.py")
    settings = load_settings({"AUTODBG_TURNS": "1", "AUTODBG_TIMEOUT": "120"})
    result = new_result(session, None)
    console = Console(file=StringIO(), width=100, color_system=None)
    started = time.monotonic()
    search_fixes(session, result, settings, console, started, lambda step: None)
    buggy = str(root / "tally" / "counter.py")
    assert [(p.file, p.line) for p in result.dossier.pointed][:1] == [(buggy, 7)]
    model = ScriptedStandInModel(["Thought: the count\nCommand: done",
                                  *rewrite_replies(session, result.dossier, "tally/counter.py:7| self.counts[key] = len(key)",
                                                   "            self.counts[key] += 1", "it adds two for a repeated key")])
    assert run_investigation(model, session, result, settings, console, started, lambda step: None) is None
    prompt = model.calls[0]["messages"][-1]["content"]
    assert "lines the failing tests ran more than the passing ones:\ntally/counter.py:7| self.counts[key] = len(key)" in prompt
    diagnosis = result.diagnosis
    assert (diagnosis.file, diagnosis.line) == (buggy, 7) and diagnosis.fix.trial.passes
    assert label_of(diagnosis.fix) == Label.PASSES_YOUR_TESTS  # judged by the three tests
    assert result.search.passing == [] and diagnosis.fix.edit.origin == "model"
