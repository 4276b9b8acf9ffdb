"""The judge of one change, for the `try` command and for the summary's fix: the change checked
(it applies, compiles, and leaves alone what judges it), run on the crashed program in a probe, then
by the program's own tests where it has them, and labelled with what that showed."""

from __future__ import annotations

import dataclasses
import time

from autodbg.crash import CrashSession
from autodbg.debugger.output import ShownLine
from autodbg.fix.label import label_of
from autodbg.investigate.answer import diagnosis_of
from autodbg.investigate.strategies import model_candidate
from autodbg.program.judge import Tests, find_tests, judge_change, run_tests
from autodbg.records import Candidate, Dossier, Edit, Fix, Judgement, Label, TrialResult
from autodbg.report import judgement_line, trial_line

TRY_TEST_SECONDS = 20.0  # one run of the related tests for `try`: the baseline, then the change


class RelatedTests:
    """The program's tests as the judge of one crash's changes; remembers how each set of tests ran
    without a change (the baseline), so it runs once for every change judged."""

    def __init__(self, dossier: Dossier) -> None:
        self.dossier = dossier
        self._baselines: dict[Tests, dict[str, bool] | str] = {}

    def tests_for(self, edit: Edit) -> Tests | None:
        """The tests that judge EDIT (autodbg.program.judge.find_tests)."""
        return find_tests(edit.file, [frame.file for frame in self.dossier.frames])

    def judgement(self, tests: Tests, edit: Edit, seconds: float) -> Judgement:
        """How TESTS ran with EDIT, against how they ran without it."""
        if tests not in self._baselines:
            started = time.monotonic()
            self._baselines[tests] = run_tests(tests, None, seconds)
            seconds = max(1.0, seconds - (time.monotonic() - started))
        return judge_change(tests, edit, self._baselines[tests], seconds)


class ChangeJudge:
    """What `try` runs: a change of one crash's program, checked, run on the crashed program in a
    probe, then judged by its tests."""

    def __init__(self, session: CrashSession, dossier: Dossier) -> None:
        self.session, self.dossier = session, dossier
        self.tests = RelatedTests(dossier)
        self.tried: list[Candidate] = []  # each change `try` ran, in order
        self.passed: list[Candidate] = []  # those that passed the program's tests

    def try_line(self, line: ShownLine, code: str) -> str:
        """LINE replaced by CODE: checked, run on the crashed program, then by the tests; what showed."""
        diagnosis = diagnosis_of(line, line, "", code, self.dossier)
        fix = diagnosis.fix
        if not fix.usable:
            return f"not tried: {fix.problem}"
        fix.edit = dataclasses.replace(fix.edit, origin="try")
        fix.trial = self.session.try_fix(fix.edit, self.dossier.exception.type)
        if fix.trial.result in (TrialResult.PASSES, TrialResult.GUARDS) and not fix.trial.refused:
            tests = self.tests.tests_for(fix.edit)
            if tests is not None:
                fix.judgement = self.tests.judgement(tests, fix.edit, TRY_TEST_SECONDS)
        fix.label = label_of(fix)
        self.tried.append(model_candidate(diagnosis))
        if fix.label == Label.PASSES_YOUR_TESTS:
            self.passed.append(self.tried[-1])
        return tried_text(fix)


def tried_text(fix: Fix) -> str:
    """What `try` says of FIX: its label, how the crashed run went, how the tests went."""
    said = [str(fix.label), trial_line(fix.trial).plain]
    if fix.judgement is not None:
        said.append(judgement_line(fix.judgement).plain)
    elif fix.trial.passes:
        said.append("no tests of the program import the changed file: nothing else judged it")
    return "\n".join(said)
