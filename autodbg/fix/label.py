"""The label of a fix: what was run and what it showed, in the one vocabulary (records.Label)."""

from __future__ import annotations

from autodbg.records import Fix, Label, TrialResult


def label_of(fix: Fix) -> Label:
    """What FIX was shown to do: only a change with which the crash is gone and the program's
    tests still pass is green; a run to the end that nothing else judged stops the crash, no more."""
    trial, judged = fix.trial, fix.judgement
    if trial is not None and trial.result == TrialResult.GUARDS:
        return Label.GUARD
    ran_to_end = (trial is not None and trial.passes) or (
        (trial is None or trial.result == TrialResult.NOT_RUN) and bool(fix.verified)
        and (fix.outcome or "").endswith("exits 0"))
    if trial is not None and trial.result in (TrialResult.STILL_FAILS, TrialResult.FAILS_DIFFERENTLY, TrialResult.HANGS):
        return Label.DID_NOT_WORK
    outcome = fix.outcome or ""
    if outcome.startswith("re-run with the fix still fails") or "fails differently" in outcome:
        return Label.DID_NOT_WORK
    if judged is not None and not judged.detail and not judged.holds:
        return Label.DID_NOT_WORK
    if not ran_to_end:
        return Label.NOT_RUN
    # Tests that failed before and still fail: the crash's own test may be one of them, unless one was fixed.
    shown = judged is not None and judged.holds and (judged.fixed or not judged.still_failing)
    return Label.PASSES_YOUR_TESTS if shown else Label.STOPS_THE_CRASH
