"""Look for a fix without a model: small changes (autodbg.fix.mutate) of the lines that made the
failing values, each run on the crashed program in a probe (autodbg.fix.trial), likeliest first.

Where the crash is a failing test of the program's own functions (`assert parse(s) == 3`), its
assertion -- and the rest of its test function -- is the specification a change must meet: "with
this change the failing test runs to its end" is strong evidence (proof "test"), and every kind of
change is tried. Elsewhere a run can only show that the program no longer raises, which a change
that hides the crash shows too (proof "run"): there only the kinds of change that were right
whenever they let a dev-corpus program run to its end are tried (RUN_KINDS), and the line that
crashed is among the places. Small models recognise a right line better than they find one; the
search finds, the model (when there is one) explains.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass
from collections.abc import Callable
from typing import Iterator

from autodbg.frames.core import display_path, is_test_file, source_lines
from autodbg.fix.lines import replace_lines
from autodbg.fix.mutate import conversion, conversions, mutants
from autodbg.investigate.answer import hiding, judging_files, likeliest_first, specification_lines
from autodbg.crash import CrashSession
from autodbg.records import Candidate, Dossier, Edit, PointedLine, Proof, Search, Step

SEARCH_SECONDS = 4.0  # at most, of the crash's budget
SEARCH_SHARE = 0.15  # of the crash's budget, when that is less
CANDIDATE_SECONDS = 1.0  # one changed program's run: tests run in milliseconds; a change that loops stops here
MAX_PASSING = 3  # changes that pass, offered to the model
MORE_AFTER_PASSING = 30  # changes tried after the first that passes, looking for others to offer
POINTED_LINES = 5  # lines the failing tests point to most, shown to the model with the evidence
SPECTRUM_PLACES = 30  # lines the failing tests point to, beyond those the evidence names (the deadline stops the search)
LATER_KINDS = ("variable", "delete")  # many per line and seldom right: tried after every line's other changes
# The changes tried where only a run can tell (proof "run"): the kinds a single run rarely
# misjudges (bench/HISTORY.md, "The search's kinds"). Before them all, for a KeyError, keys the
# program's own mapping has in place of the missing one (autodbg.fix.keys); for a TypeError of
# text and numbers, the conversion it asks for (mutate.conversion).
RUN_KINDS = ("arguments", "list", "return", "call", "typo", "dedent")


@dataclass(frozen=True)
class Place:
    file: str
    line: int


def proof(dossier: Dossier) -> Proof:
    """What says a change works: a failing test of the program's functions ("test"), or only that
    the crashed program runs to its end ("run")."""
    return Proof.TEST if specification_lines(dossier) else Proof.RUN


def search_places(dossier: Dossier) -> list[Place]:
    """The lines to change, likeliest first: for a plain crash the line that crashed, then the lines
    that ran in the calls the failing line made (replayed; the last to run first), then the lines
    that made the failing line's values; not the test itself."""
    spec = specification_lines(dossier)
    site = dossier.crash_site
    places = [] if spec else [Place(site.file, site.line)]
    places += [Place(replay.file, line) for replay in dossier.replays for line in replay.lines]
    places += [Place(o.file, o.line) for o in likeliest_first(dossier.origins)]
    judging = judging_files(dossier)
    return [p for p in dict.fromkeys(places) if (p.file, p.line) not in spec and p.file not in judging
            and not is_test_file(p.file)]


def ranked_places(dossier: Dossier, scores: dict[tuple[str, int], float]) -> list[Place]:
    """`search_places` with the lines the program's failing tests ran and its passing tests did not
    first (SCORES: autodbg.program.spectrum, ties kept in the evidence's order), and the best such
    lines the evidence did not name added; never a test or what runs one."""
    spec, judging = specification_lines(dossier), judging_files(dossier)
    pointed = [Place(file, line) for (file, line), score in sorted(scores.items(), key=lambda item: -item[1])
               if score > 0 and not is_test_file(file) and file not in judging and (file, line) not in spec]
    places = list(dict.fromkeys(search_places(dossier) + pointed[:SPECTRUM_PLACES]))
    order = {place: i for i, place in enumerate(places)}
    return sorted(places, key=lambda place: (-scores.get((place.file, place.line), 0.0), order[place]))


def pointed_lines(dossier: Dossier, scores: dict[tuple[str, int], float]) -> list[PointedLine]:
    """The POINTED_LINES lines the failing tests point to most (SCORES: autodbg.program.spectrum),
    with their code; never a test or what runs one, nor a blank line."""
    spec, judging = specification_lines(dossier), judging_files(dossier)
    pointed = []
    for (file, line), score in sorted(scores.items(), key=lambda item: -item[1]):
        if len(pointed) == POINTED_LINES:
            break
        if score <= 0 or is_test_file(file) or file in judging or (file, line) in spec:
            continue
        lines = source_lines(file)
        code = lines[line - 1].strip() if 0 < line <= len(lines) else ""
        if code:
            pointed.append(PointedLine(file=file, display_file=display_path(file), line=line, code=code,
                                       score=round(score, 3)))
    return pointed


def budget_for(timeout: float) -> float:
    return min(SEARCH_SECONDS, SEARCH_SHARE * timeout)


def search(session: CrashSession, dossier: Dossier, deadline: float, places: list[Place] | None = None,
           on_step: Callable[[Step], None] = lambda step: None) -> Search:
    """Try changes of PLACES (default: search_places) on the crashed program until MAX_PASSING
    pass or DEADLINE (time.monotonic()) comes; each in a probe of its own. ON_STEP hears of each."""
    started = time.monotonic()
    places = search_places(dossier) if places is None else places
    first_tier, later = [], []
    programs: set[tuple[str, str]] = set()  # a `return` added after a loop's last line is added after the loop
    for change in _changes(session, dossier, places):
        program = (change.file, _patched(change))
        if program not in programs and hiding(dossier, change) is None:
            programs.add(program)
            (later if change.origin in LATER_KINDS else first_tier).append(change)
    passing: list[Candidate] = []
    outcomes: Counter[str] = Counter()
    tried_after = 0
    changes = first_tier + later
    for number, change in enumerate(changes, 1):
        on_step(Step("trying changes in a sandbox", number, len(changes)))
        if time.monotonic() + CANDIDATE_SECONDS > deadline or len(passing) == MAX_PASSING \
                or tried_after > MORE_AFTER_PASSING:
            break
        trial = session.try_fix(change, dossier.exception.type, seconds=CANDIDATE_SECONDS)
        outcomes[trial.result] += 1
        tried_after += bool(passing)
        if trial.passes:
            code = "".join(source_lines(change.file)[i - 1] + "\n" for i in range(change.first, change.last + 1))
            passing.append(Candidate(edit=change, display_file=display_path(change.file), code=code, trial=trial))
    return Search(proof=proof(dossier), lines=len(places), tried=sum(outcomes.values()), outcomes=dict(outcomes), seconds=round(time.monotonic() - started, 3), passing=passing)


def _changes(session: CrashSession, dossier: Dossier, places: list[Place]) -> Iterator[Edit]:
    """The changes to try, likeliest first. Where only a run can tell: for a KeyError the keys
    the program's mapping has, for a TypeError of text and numbers the conversion it asks for
    (where the value was made first, the line that crashed last), then RUN_KINDS' changes."""
    if proof(dossier) == Proof.TEST:
        yield from (change for place in places for change in _mutants(place))
        return
    yield from session.key_changes([(p.file, p.line) for p in places])
    to = conversion(dossier.exception.message) if dossier.exception.type == "TypeError" else None
    if to is not None:
        site = Place(dossier.crash_site.file, dossier.crash_site.line)
        for place in [p for p in places if p != site] + [site]:
            yield from conversions(place.file, _source(place.file), place.line, to, operands=place == site)
    for place in places:
        yield from (change for change in _mutants(place) if change.origin in RUN_KINDS)


def _patched(change: Edit) -> str:
    return replace_lines(_source(change.file), change.first, change.last, change.replacement)


def _mutants(place: Place) -> list[Edit]:
    return mutants(place.file, _source(place.file), place.line) if source_lines(place.file) else []


def _source(file: str) -> str:
    return "\n".join(source_lines(file)) + "\n"
