"""The answer strategies, once the turns are over: choose among the changes a failing test passed
with (`choose`); stand by the search's change that ran to the end (`take_search_change`); have
the model rewrite the likeliest lines one by one, each run in a probe (`rewrite_options`); or
let it answer freely, asked again while the plan allows (`free_answers`).

Why each is as it is, measured: bench/HISTORY.md, "The answer strategies".
"""

from __future__ import annotations

import json
import re
import time
from typing import NamedTuple

from autodbg.analysis.source import function_head
from autodbg.crash import CrashSession
from autodbg.debugger.grammar import (
    ROOT_CAUSE_CHARS, answer_grammar, answer_max_chars, choice_grammar, choice_max_chars, code_grammar, code_max_chars,
    fenced_code, reason_grammar, reason_max_chars,
)
from autodbg.debugger.output import ShownLine
from autodbg.fix.check import check_fix
from autodbg.frames.core import display_path, file_line, source_lines
from autodbg.investigate.answer import (
    diagnosis_of, echo, junk, likeliest_first, make_diagnosis, quotable, source_window, unreadable,
)
from autodbg.investigate.conversation import Conversation
from autodbg.investigate.findings import Findings
from autodbg.investigate.plan import Plan
from autodbg.investigate.seen import Seen
from autodbg.llm.model import EngineError
from autodbg.records import Candidate, Diagnosis, Dossier, FixTrial, Purpose, Replay, TrialResult

MAX_ANSWERS = 2  # free answers: the first, then (time allowing) its line again with the values it ran with, or a suspect
MAX_OPTIONS = 5  # lines the rewrites choose among: the suspects' first lines and the line that crashed
NAMED_CODE_CHARS = 12  # a line of code this long, quoted in a root cause, names that line
SUSPECT_ROOT_CAUSE_CHARS = 120  # a suspect's answer: a short why, then the line's code
REPLAY_SUSPECT_LINES = 12  # of a replayed call's lines offered as one suspect
MIN_SENTENCE_CHARS = 30  # a root cause cut back to its whole sentences keeps at least this much
CUT_SLACK = 8  # characters short of its limit at which a root cause may have been cut (escapes count double)
OPTIONS_HEADER = "The wrong code is most likely one of these lines, which made the values that failed:\n"
NO_LINE_TO_CHANGE = "no line a fix may change was shown: the crash's frames are tests and the driver that runs them"
TRIED_AND_FAILED = (TrialResult.STILL_FAILS, TrialResult.FAILS_DIFFERENTLY, TrialResult.HANGS)


class Answers:
    """The answer to one crash's investigation, written into FINDINGS; TALK holds the conversation so far."""

    def __init__(self, session: CrashSession, dossier: Dossier, seen: Seen, talk: Conversation, plan: Plan,
                 findings: Findings) -> None:
        self.session, self.dossier, self.seen, self.talk, self.plan = session, dossier, seen, talk, plan
        self.findings = findings
        self.deadline = plan.budget.deadline

    def answer(self, standing: list[Candidate]) -> None:
        """The final answer. Where changes were shown to work (a `try` that passed the program's
        tests, or the search's changes with which the crashed program ran to its end), the first
        stands. Where there are lines that most likely hold the bug (`options`),
        the model rewrites them one by one, likeliest first, and each rewrite runs on the crashed
        program in a probe until one passes: a small model recognises a wrong line, seen alone,
        better than it finds one, and a run tells which rewrite works. Elsewhere it answers freely."""
        if standing:
            self.take_search_change(standing[0])
            return
        quotes = self.seen.answerable()  # what the answer may name: every line shown a fix may change
        if not quotes:  # an answer could only name the test or its driver
            self.findings.error = NO_LINE_TO_CHANGE
            return
        suspects = self.suspects()
        options = self.options(quotes, suspects)
        if len(options) > 1:
            self.rewrite_options(options)
        else:
            self.free_answers(quotes, suspects)

    def choose(self, passing: list[Candidate]) -> None:
        """Ask which of the changes the failing test passed with (the search's) corrects the root
        cause, and why. One of them stands whatever the answer: the test is the proof, the model
        only picks and explains; an answer cut short or unreadable twice keeps the first, said plainly."""
        labels = [chr(ord("A") + i) for i in range(len(passing))]
        for attempt in range(2):
            completion = self.talk.ask(Purpose.CHOICE, choice_grammar(labels), choice_max_chars(labels), self.deadline,
                                       seed=attempt)
            try:
                answer = json.loads(completion.text)
                candidate, why = passing[labels.index(answer["fix"])], answer["root_cause"]
            except (json.JSONDecodeError, KeyError, TypeError, ValueError):  # an answer cut short
                candidate, why = passing[0], ""
            diagnosis = candidate_diagnosis(candidate, why)
            problem = unreadable(diagnosis, self.dossier)
            if problem is None or attempt == 1:
                if problem is not None:  # the fix stands; its reason is said plainly instead
                    diagnosis.root_cause = plain_reason(diagnosis)
                self.findings.diagnosis = diagnosis
                return
            self.talk.add("assistant", completion.text)
            self.talk.add("user", f"That answer is not usable: {problem}. Answer in JSON again.")

    def take_search_change(self, change: Candidate) -> None:
        """The search's first change with which the crashed program ran to its end stands, before
        the model is asked for any (such a change is right more often than the model's own that
        ran to the end, and costs none of its time). The model says why."""
        diagnosis = candidate_diagnosis(change, "")
        line = ShownLine(change.edit.file, change.edit.first, change.code.splitlines()[0] if change.code else "")
        diagnosis.root_cause = self.reason(quotable(line) or f"{change.display_file}:{change.edit.first}", diagnosis,
                                           told=True)
        self.findings.diagnosis = diagnosis

    def rewrite_options(self, options: list[str]) -> None:
        """Ask for the corrected code of each of OPTIONS in turn, likeliest first, while the plan has
        room, and run each fix on the crashed program in a probe. Each line is asked from the same
        point of the conversation (its evaluated state shared): after copying a line or two it was
        told were suspect, a small model copies the next as well. The first fix that passes stands,
        with the model's reason for it. A line whose fix ran and failed is asked once more, after
        the others, in its own branch and told how the fix ran. When no fix passes, the first that
        ran to the end behind a guard it added to the line that crashed stands (TrialResult.GUARDS), then the first option whose fix moved the failure on (FixTrial.moved_on),
        else the likeliest option, with its fix (if any), how that ran, and a reason said plainly:
        the model's reasons for a line it could not fix are guesses."""
        trials: dict[tuple, FixTrial] = {}
        answers: dict[str, Diagnosis] = {}  # option -> its diagnosis (with the fix the model wrote, if any)
        retried: set[str] = set()
        conversation = self.talk.messages + [{"role": "user", "content": OPTIONS_HEADER + "\n".join(options)}]
        asks = [(quote, conversation + [{"role": "user", "content": self.rewrite_request(quote)}]) for quote in options]
        while asks:
            quote, self.talk.messages = asks.pop(0)
            line = self.seen.lines[quote]
            if answers and not self.plan.rewrite_fits():
                break
            try:
                reply = self.talk.ask(Purpose.ANSWER, code_grammar(line.code), code_max_chars(line.code), self.deadline)
            except EngineError:
                if not answers:
                    raise
                break  # out of time: the answers so far stand
            self.talk.add("assistant", reply.text)
            diagnosis = self.rewrite(quote, reply.text)
            fix = diagnosis.fix
            earlier = answers.get(quote)
            if earlier is not None and (fix is None or not fix.usable or fix.edit.replacement == earlier.fix.edit.replacement):
                continue  # asked again, it gave nothing new: its first fix stands
            answers[quote] = diagnosis
            if fix is not None and fix.usable:
                self.try_fix(diagnosis, trials)
                self.findings.candidates.append(model_candidate(diagnosis))
                trial = fix.trial
                if trial.passes or (trial.result == TrialResult.NOT_RUN and not trial.stopped_by_fix):
                    break  # it works; or the program cannot run again here, so no other fix could be judged
                if failed(diagnosis) and quote not in retried:  # once more, told how it ran, after the others
                    retried.add(quote)
                    asks.append((quote, self.talk.messages + [{"role": "user", "content": retry_request(trial)}]))
        ran = {q: d.fix.trial for q, d in answers.items() if d.fix is not None and d.fix.trial is not None}
        passing = [q for q, trial in ran.items() if trial.passes]
        guarding = [q for q, trial in ran.items() if trial.result == TrialResult.GUARDS]
        moved_on = [q for q, trial in ran.items() if trial.moved_on]
        quote = (passing or guarding or moved_on or options)[0]
        kept = answers[quote]
        kept.root_cause = self.reason(quote, kept) if passing else plain_reason(kept)
        self.findings.diagnosis = kept

    def rewrite_request(self, quote: str) -> str:
        """The request for the line QUOTE's corrected code. The line that crashed comes with what it
        raised (shown alone, a small model copies it as right); any other line with its function's
        signature and docstring, which say what the line is for. Not the crash line with its
        function: so shown, it is copied more often."""
        line = self.seen.lines[quote]
        crash = self.dossier.crash_site
        if (line.file, line.line) == (crash.file, crash.line):
            return rewrite_request(line, raised=f"It raised {self.dossier.exception.title}.\n")
        lines = source_lines(line.file)
        head = function_head("\n".join(lines), line.line)
        return rewrite_request(line, head="\n".join(lines[head[0] - 1:head[1]]) if head else "")

    def rewrite(self, quote: str, reply: str) -> Diagnosis:
        """The diagnosis that REPLY, the corrected code of the line QUOTE, makes."""
        line = self.seen.lines[quote]
        diagnosis = diagnosis_of(line, line, "", fenced_code(reply), self.dossier)
        fix = diagnosis.fix
        if fix is not None and fix.usable and junk(fix.edit.replacement, code=True):
            fix.problem = "it is not code but a run of junk"
        return diagnosis

    def reason(self, quote: str, diagnosis: Diagnosis, told: bool = False) -> str:
        """Why the line QUOTE was wrong, DIAGNOSIS's fix of it having passed: in the model's words
        when the plan has room and it gives a readable answer, else said plainly. TOLD: the fix is
        not the model's own (the search found it), so it is shown first."""
        if self.plan.reason_fits():
            fix = diagnosis.fix
            ran = (f"I changed it to:\n```python\n{fix.edit.replacement.rstrip()}\n```\nand ran it" if told else "I ran it")
            self.talk.add("user", f"{ran}: {fix.trial.detail}. In one or two sentences: what was wrong in "
                                  f"{quote}, and why did it make the crash? Answer in JSON: root_cause.")
            try:
                completion = self.talk.ask(Purpose.WHY, reason_grammar(), reason_max_chars(), self.deadline)
                why = json.loads(completion.text)["root_cause"]
                self.talk.add("assistant", completion.text)
            except (EngineError, json.JSONDecodeError, KeyError, TypeError):
                why = ""
            if readable(why, self.dossier):
                return whole_sentences(why)
        return plain_reason(diagnosis)

    def free_answers(self, quotes: list[str], suspects: list[Suspect]) -> None:
        """Ask for the final answer, naming any line of QUOTES, and try its fix on the crashed
        program, in a probe; while time and MAX_ANSWERS allow, ask again (see `next_request`).
        The best answer stands (`rank`)."""
        tried: set[tuple[str, int]] = set()  # (file, line) of each answer's fix and each suspect asked for
        outcome = ""  # how the last fix that ran ended, for the next request
        trials: dict[tuple, FixTrial] = {}  # each fix tried, so the same one given again is not run again
        why_chars = ROOT_CAUSE_CHARS
        self.talk.add("user", "Give the final answer as JSON now.")
        for attempt in range(MAX_ANSWERS):
            started = time.monotonic()
            try:
                completion = self.talk.ask(Purpose.ANSWER, answer_grammar(quotes, why_chars),
                                           answer_max_chars(quotes, why_chars), self.deadline, seed=attempt)
            except EngineError:
                if attempt == 0:
                    raise
                return  # a later answer ran out of time: the answers so far stand
            text, made = completion.text, completion.completion_tokens
            diagnosis = make_diagnosis(text, self.seen.lines, self.dossier)
            problem = unreadable(diagnosis, self.dossier) if diagnosis is not None else None
            if diagnosis is not None and not problem and diagnosis.fix is not None and diagnosis.fix.usable:
                self.try_fix(diagnosis, trials)
                self.findings.candidates.append(model_candidate(diagnosis))
                outcome = f"it {diagnosis.fix.trial.result}: {diagnosis.fix.trial.detail}"
            if rank(diagnosis, problem) > rank(self.findings.diagnosis, self.findings.problem):
                self.findings.diagnosis, self.findings.problem = diagnosis, problem
            if diagnosis is not None:
                tried.add((diagnosis.file, diagnosis.line))
                suspects = [suspect for suspect in named_first(self.seen, diagnosis.root_cause, suspects)
                            if any((self.seen.lines[q].file, self.seen.lines[q].line) not in tried
                                   for q in suspect.lines)]
            own_lines = self.same_lines(diagnosis) if attempt == 0 and diagnosis is not None else []
            request = next_request(diagnosis, problem, outcome, own_lines, suspects)
            if request is None or not self.plan.another_answer_fits(started, made):
                return
            asked, lines = request
            tried.update((self.seen.lines[q].file, self.seen.lines[q].line) for q in lines)
            quotes = lines or self.seen.answerable()
            why_chars = SUSPECT_ROOT_CAUSE_CHARS if lines else ROOT_CAUSE_CHARS
            self.talk.messages += [{"role": "assistant", "content": text}, {"role": "user", "content": asked}]

    def options(self, quotes: list[str], suspects: list[Suspect]) -> list[str]:
        """The lines the answer chooses among, in the order they are asked: the likeliest suspect
        (a line that made the failing values), the line that crashed, then the other suspects;
        only lines QUOTES (what an answer may name) holds, at most MAX_OPTIONS. The crash line
        second, not last: by default only the first two or three are asked in time."""
        allowed = set(quotes)
        crash = self.dossier.crash_site
        crashed = [q for q, line in self.seen.lines.items() if (line.file, line.line) == (crash.file, crash.line)]
        picked = list(dict.fromkeys(q for suspect in suspects for q in suspect.lines if q in allowed and q not in crashed))
        return (picked[:1] + [q for q in crashed[:1] if q in allowed] + picked[1:])[:MAX_OPTIONS]


    def same_lines(self, diagnosis: Diagnosis) -> list[str]:
        """Quotes of the shown lines DIAGNOSIS's fix changes."""
        return [q for q, line in self.seen.lines.items()
                if line.file == diagnosis.file and diagnosis.line <= line.line <= diagnosis.line_end]

    def suspects(self) -> list[Suspect]:
        """Where a fix goes when the model's own did not pass: the lines that made the failing
        line's values, likeliest first (provenance by kind), then the lines the failing tests point
        to (Dossier.pointed). A `return` of a call the evidence
        replayed stands for all the lines that ran in that call: which of them is wrong, the
        replay's values tell better than the return line alone."""
        quotes = {(line.file, line.line): quote for quote, line in self.seen.lines.items()}
        replayed = {(replay.function, replay.file): replay for replay in self.dossier.replays}
        suspects, grouped = [], set()
        for origin in likeliest_first(self.dossier.origins):
            replay = replayed.get((origin.via.removesuffix("()").rsplit(".", 1)[-1], origin.file))
            if origin.kind == "return" and replay is not None:
                if replay.call not in grouped:
                    grouped.add(replay.call)
                    suspects.append(replay_suspect(replay, quotes))
            elif (origin.file, origin.line) in quotes:
                suspects.append(Suspect((quotes[(origin.file, origin.line)],)))
        suspects += [replay_suspect(r, quotes) for r in self.dossier.replays if r.call not in grouped]
        # Then the lines the failing tests point to: the suspects where the frames show only a test.
        suspects += [Suspect((quotes[(p.file, p.line)],)) for p in self.dossier.pointed if (p.file, p.line) in quotes]
        return list(dict.fromkeys(suspect for suspect in suspects if suspect.lines))

    def try_fix(self, diagnosis: Diagnosis, trials: dict[tuple, FixTrial]) -> None:
        fix = diagnosis.fix
        key = (fix.edit.file, fix.edit.first, fix.edit.last, fix.edit.replacement)
        if key not in trials:
            started = time.monotonic()
            trials[key] = self.session.try_fix(fix.edit, self.dossier.exception.type)
            self.findings.trials.append(round(time.monotonic() - started, 3))
        fix.trial = trials[key]


def candidate_diagnosis(candidate: Candidate, root_cause: str) -> Diagnosis:
    """The diagnosis that CANDIDATE, a fix that passed in a probe, is the fix of."""
    fix = check_fix(candidate.edit, as_written=True)
    fix.trial = candidate.trial
    return Diagnosis(file=fix.edit.file, display_file=candidate.display_file, line=fix.edit.first, line_end=fix.edit.last, root_cause=root_cause, fix=fix, source_window=source_window(fix.edit.file, fix.edit.first, fix.edit.last))


def whole_sentences(text: str, limit: int = ROOT_CAUSE_CHARS) -> str:
    """TEXT without a last sentence its length LIMIT cut short (a small model runs on to the limit), or
    ending in an ellipsis where there is no whole sentence before it."""
    text = text.strip()
    if len(text) < limit - CUT_SLACK or re.search(r"[.!?][\"'`)]*$", text):
        return text
    end = max(text.rfind(". "), text.rfind(".\n"), text.rfind("! "), text.rfind("? "))
    return text[:end + 1] if end >= MIN_SENTENCE_CHARS else text.rstrip(" ,;:") + "…"


def readable(root_cause: str, dossier: Dossier) -> bool:
    """Whether ROOT_CAUSE says in words what is wrong: not empty, not junk, not the error message
    again, nor the list of lines it was asked about (a small model may copy it)."""
    return (bool(root_cause) and not junk(root_cause, code=False) and echo(root_cause, dossier) is None
            and OPTIONS_HEADER[:40] not in root_cause)


def model_candidate(diagnosis: Diagnosis) -> Candidate:
    """DIAGNOSIS's fix, tried in a probe, as a candidate of the report."""
    fix = diagnosis.fix
    lines = source_lines(diagnosis.file)
    code = "".join(lines[n - 1] + "\n" for n in range(fix.edit.first, fix.edit.last + 1) if n <= len(lines))
    return Candidate(edit=fix.edit, display_file=diagnosis.display_file, code=code, trial=fix.trial)


def plain_reason(diagnosis: Diagnosis) -> str:
    """Why DIAGNOSIS's line is wrong, said from what its fix changed and how that ran, no model."""
    lines = source_lines(diagnosis.file)
    was = " ".join(" ".join(lines[n - 1].split()) for n in range(diagnosis.line, diagnosis.line_end + 1)
                   if n <= len(lines)) or "(nothing)"
    where = f"{file_line(diagnosis.display_file, diagnosis.line)}: `{was}`"
    fix = diagnosis.fix
    if fix is None or not fix.usable:
        return f"{where} made a value the failing line used and is most likely wrong."
    change = change_text([lines[n - 1] for n in range(diagnosis.line, diagnosis.line_end + 1) if n <= len(lines)],
                         fix.edit.replacement.splitlines())
    if fix.trial is not None and fix.trial.passes:
        return f"{where} is wrong: {fix.trial.detail.replace('with this fix ', f'with {change}, ', 1)}."
    ran = f", and with it the crashed program {ran_text(fix.trial)}" if fix.trial is not None else ""
    return f"{where} is most likely wrong; {change} was tried{ran}."


def change_text(old: list[str], new: list[str]) -> str:
    """What a fix of lines OLD to NEW does, in a few words: "`x` instead", or, where it keeps them
    and adds lines, "`return merged` added after it"."""
    added = [line.strip() for line in new if line.strip() and line.strip() not in {o.strip() for o in old}]
    kept = [line.strip() for line in new if line.strip() in {o.strip() for o in old}]
    if added and len(kept) == len([o for o in old if o.strip()]) and new and new[0].strip() == old[0].strip():
        return f"`{'; '.join(added)}` added after it"
    return f"`{' '.join(' '.join(new).split()) or 'nothing'}` instead"


def ran_text(trial: FixTrial) -> str:
    """How a fix's run ended, to follow "the crashed program"."""
    if trial.passes:
        return "ran to its end"
    if trial.result == TrialResult.GUARDS:
        return trial.detail.removeprefix("with this fix the crashed program ")
    if trial.result == TrialResult.NOT_RUN:
        return f"was not run ({trial.detail})"
    return f"{trial.result}: {trial.detail}" if trial.result != TrialResult.HANGS else "hangs"


def rank(diagnosis: Diagnosis | None, problem: str | None) -> int:
    """Which answer to keep: one whose fix ran and passed, then one whose fix ran to the end behind
    a guard, then one with a usable fix, then any readable one; one that only repeats the error
    message before none; junk never."""
    if diagnosis is None or (problem is not None and "junk" in problem):
        return 0
    if problem is not None:
        return 1
    fix = diagnosis.fix
    if fix is None or not fix.usable:
        return 2
    if fix.trial is not None and fix.trial.passes:
        return 5
    return 4 if fix.trial is not None and fix.trial.result == TrialResult.GUARDS else 3


def failed(diagnosis: Diagnosis | None) -> bool:
    """Whether DIAGNOSIS's fix ran and did not work."""
    fix = diagnosis.fix if diagnosis is not None else None
    return fix is not None and fix.trial is not None and fix.trial.result in TRIED_AND_FAILED


class Suspect(NamedTuple):
    """Lines a fix may go to, offered together: one line that made a failing value, or the lines
    that ran in a replayed call (CALL) whose result the failing line used."""
    lines: tuple[str, ...]  # quotes, in source order
    call: str = ""


def rewrite_request(line: ShownLine, raised: str = "", head: str = "") -> str:
    """The request for LINE's corrected code, the line shown as it stands in a block of its own,
    after HEAD (its function's signature and docstring), followed by RAISED (what it raised).
    Asked for a line only named, a small model writes a whole new function in its place; shown
    the line, it rewrites or copies it."""
    lines = source_lines(line.file)
    code = lines[line.line - 1].rstrip() if 0 < line.line <= len(lines) else line.code
    return ((f"It is in:\n```python\n{head}\n```\n" if head else "")
            + f"Line {display_path(line.file)}:{line.line} is:\n```python\n{code}\n```\n{raised}"
            "Give its corrected code, only this line's, in a ```python block; or null if the line is right.")


def retry_request(trial: FixTrial) -> str:
    """The request for a line's corrected code again, its fix having run as TRIAL says."""
    return (f"I ran the program with that fix: it {trial.result}: {trial.detail}.\nGive the line's corrected code "
            "again, in a ```python block, so that it works for those values; or null if the line is right.")


def replay_suspect(replay: Replay, quotes: dict[tuple[str, int], str]) -> Suspect:
    ran = sorted(line for line in replay.lines if (replay.file, line) in quotes)
    return Suspect(tuple(quotes[(replay.file, line)] for line in ran[:REPLAY_SUSPECT_LINES]), replay.call)


def named_first(seen: Seen, root_cause: str, suspects: list[Suspect]) -> list[Suspect]:
    """SUSPECTS with the lines whose code the root cause quotes first (a small model often says
    the right line in words, then quotes another): a shown line it quotes is a suspect too."""
    named = [Suspect((quote,)) for quote, line in seen.lines.items()
             if len(line.code.strip()) >= NAMED_CODE_CHARS and line.code.strip() in root_cause]
    return list(dict.fromkeys(named + suspects))


def next_request(diagnosis: Diagnosis | None, problem: str | None, outcome: str, own_lines: list[str],
                 suspects: list[Suspect]) -> tuple[str, list[str]] | None:
    """What to ask next, and the lines the answer may name ([]: any line shown); None when nothing
    more is worth asking. OUTCOME: how the last fix that ran ended; OWN_LINES: the lines the answer's
    fix changed, when they may be tried again; SUSPECTS: lines that made the failing values."""
    if diagnosis is None:
        return None
    if problem is not None:
        return f"That answer is not usable: {problem}. Give the final answer as JSON again.", []
    fix = diagnosis.fix
    if fix is not None and fix.usable and fix.trial is not None and fix.trial.result in (TrialResult.PASSES, TrialResult.NOT_RUN):
        return None
    if failed(diagnosis) and own_lines:  # its line is often right: the values it ran with show what it missed
        return (f"I ran the program again with that fix, in a sandbox: {outcome}.\nIf that is the line to change, "
                "give the final answer as JSON again with a fix that works for those values; if it is not, "
                "new_code null."), own_lines
    if not suspects:
        return None
    # Short of a fix that ran, a suspect line: the model rewrites a given line far better than it finds it.
    if fix is None:
        said = ""  # it found nothing to change there
    elif not fix.usable:
        said = f"That fix is not usable: {fix.problem}.\n"
    else:
        said = f"I ran the program again with that fix, in a sandbox: {outcome}.\n"
    suspect = suspects[0]
    if len(suspect.lines) == 1:
        return (f"{said}This line made a value the failing line used:\n{suspect.lines[0]}\nIf it is wrong, give the "
                "final answer as JSON with that line as first_line and last_line and its corrected code as new_code; "
                "if it is right, new_code null."), list(suspect.lines)
    listed = "\n".join(suspect.lines)
    return (f"{said}The failing line used the result of {suspect.call}; these of its lines ran:\n{listed}\nIf one of "
            "them is wrong, give the final answer as JSON with that line as first_line and last_line and its corrected "
            "code as new_code; if none is, new_code null."), list(suspect.lines)

