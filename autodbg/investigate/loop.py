"""The turns: ask the model for a command under a grammar built from the live state, run it,
show it the output; then ask for the answer under the answer grammar, and check it."""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, NamedTuple

from autodbg.analysis.source import function_head
from autodbg.debugger.commands import COMMANDS
from autodbg.debugger.output import ShownLine
from autodbg.frames.core import display_path, file_line, source_lines
from autodbg.debugger.grammar import (
    ROOT_CAUSE_CHARS, THOUGHT_CHARS, Known, LiveState, answer_grammar, answer_max_chars,
    choice_grammar, choice_max_chars, code_grammar, code_max_chars, fenced_code, reason_grammar, reason_max_chars,
    step_grammar,
)
from autodbg.fix.check import check_fix
from autodbg.investigate.answer import (
    diagnosis_of, echo, junk, likeliest_first, make_diagnosis, quotable, source_window, specification_lines, unreadable,
)
from autodbg.investigate.prompt import SYSTEM_PROMPT, candidates_text, dossier_text
from autodbg.llm.model import Completion, EngineError, Model
from autodbg.crash import CrashSession
from autodbg.investigate.pace import measured
from autodbg.records import (
    Candidate, Diagnosis, Dossier, FixTrial, ModelCall, Rates, Replay, Search, Tokens, TrialResult, Turn,
)
from autodbg.settings import DEFAULT_TIMEOUT, DEFAULT_TURNS

MAX_GENERATED_TOKENS = 1500
# The model work a crash plans for at the default AUTODBG_TIMEOUT: the corrected code of five or
# six lines and a reason for the one that passed, and no command, which left the dev corpus's
# results as they were (1.5b one-shot 15/7 root-cause lines/fixes, with commands 14/7) and cost the
# 0.5b 3-5 s a crash. The same work for every model (the 0.5b does it in about half the 1.5b's time);
# a longer timeout plans proportionally more (`planned_tokens`), commands included.
PLANNED_TOKENS = 150
# Where no lines are likelier than others (no options): the first free answer, then (time allowing)
# its line again with the values it ran with, or a suspect line. Each answer is ~5 s with the 1.5b; a third found nothing more on the dev corpus, twice, and
# moved its median from 20.4 s to 26.5 s, then (with the evidence's replays) to 27.1 s.
MAX_ANSWERS = 2
NAMED_CODE_CHARS = 12  # a line of code this long, quoted in a root cause, names that line
SUSPECT_ROOT_CAUSE_CHARS = 120  # a suspect's answer: a short why, then the line's code
REPLAY_SUSPECT_LINES = 12  # of a replayed call's lines offered as one suspect
# Lines the first answer chooses among: the suspects' first lines and the line that crashed. On the
# dev corpus the root cause is the crash line or among the first three suspects in 26 of 37 cases;
# the 1.5b's fixes that passed were all of the first three options, and a fifth suspect (the root
# cause in 3 cases) was never fixed, at about a second a request for the 0.5b, two for the 1.5b.
MAX_OPTIONS = 5
ANSWER_SHARE = 0.35  # of the time budget kept back for the final answer, so there always is one
ANSWER_RESERVE_MIN = 12.0
STEP_TOKENS = THOUGHT_CHARS + 80  # the grammar's longest step, even at one token per character
# What a turn and an answer usually cost (dev corpus, both bench models): the step's tokens, its
# output as prompt tokens, an answer's tokens. With the rates measured in this crash, they say
# whether one more command fits before the budget's target.
TYPICAL_STEP, TYPICAL_OUTPUT, TYPICAL_ANSWER = 25, 150, 80
# What one more rewrite of an option costs: the request (the line, shown as it stands) read as
# prompt tokens, and the corrected line made.
REWRITE_REQUEST, TYPICAL_REWRITE = 90, 25
TYPICAL_REASON = 55  # tokens of a root cause asked for on its own (the 1.5b's: 46-57)
# A reason is prose, made with few drafts from the context: at about half the rate the rewrites
# showed (scaling, 1.5b: rewrites 14-30 tokens/s, reasons 11).
REASON_SLOWER = 2
UNSEEN_SOURCES = 6
TRIMMED = "[older output trimmed to fit the context]"
MIN_SENTENCE_CHARS = 30  # a root cause cut back to its whole sentences keeps at least this much
CUT_SLACK = 8  # characters short of its limit at which a root cause may have been cut (escapes count double)
OPTIONS_HEADER = "The wrong code is most likely one of these lines, which made the values that failed:\n"


def planned_tokens(timeout: float) -> int:
    """The model's writing a crash plans for, given AUTODBG_TIMEOUT: who gives it more time asks for more work."""
    return max(PLANNED_TOKENS, round(PLANNED_TOKENS * timeout / DEFAULT_TIMEOUT))


@dataclass
class Budget:
    deadline: float  # time.monotonic() by which the answer must be in
    max_turns: int = DEFAULT_TURNS
    max_generated: int = MAX_GENERATED_TOKENS
    planned: int = PLANNED_TOKENS  # tokens to make, as the plan sees it (another step or answer must fit)
    # By when the investigation plans to be done (default: the deadline): a command is run only
    # when it and two answers are likely to fit before it, at the rates this model shows here.
    target: float = 0.0
    rates: Rates | None = None  # the model's rates in the crash before (investigate.pace), for the first command

    def __post_init__(self) -> None:
        self.target = self.target or self.deadline


@dataclass
class Findings:
    transcript: list[Turn] = field(default_factory=list)
    diagnosis: Diagnosis | None = None
    problem: str | None = None  # why the kept diagnosis is hard to use (investigate.answer.unreadable)
    tokens: Tokens = field(default_factory=Tokens)
    calls: list[ModelCall] = field(default_factory=list)  # each completion, with its cost
    trials: list[float] = field(default_factory=list)  # seconds of each fix tried in a probe
    candidates: list[Candidate] = field(default_factory=list)  # each fix the model wrote that ran, in order
    stopped_by: str = ""  # search | done | repeat | turns | tokens | time | probe (no live state could be read)
    error: str | None = None  # why the model stopped answering (what was found until then is kept)


class Seen:
    """What the model has been shown, and what it has asked where."""

    def __init__(self, state: LiveState | None, dossier: Dossier) -> None:
        self.lines: dict[str, ShownLine] = {}  # quotable `FILE:N| code` -> the line
        for frame in dossier.frames:
            self.add_lines(ShownLine(frame.file, frame.source.first + i, code) for i, code in enumerate(frame.source.lines))
            for called in frame.called_functions:
                self.add_lines(ShownLine(called.file, called.line + i, code) for i, code in enumerate(called.lines))
        self.add_lines(ShownLine(origin.file, origin.line, origin.code) for origin in dossier.origins)
        # Sources the evidence showed: functions it called on the failing lines, and the frames' own.
        self.sources = {called.name for frame in dossier.frames for called in frame.called_functions}
        self.sources |= {frame.function for frame in dossier.frames}
        self.frames = frames_shown(state, dossier)
        self.asked: set[str] = set()  # commands with where they ran (state_key)
        if state is not None and dossier.frames:  # the evidence replayed these, from the crash frame
            crash = f"{state.exception}/{dossier.frames[0].index}"
            self.asked |= {f"{crash}/trace {replay.call}" for replay in dossier.replays}
            if specification_lines(dossier) and len(dossier.frames) > 1:
                # The crash frame is a test: replaying the call that ran it is replaying the whole
                # test, whose calls of the program the evidence already replayed.
                self.asked |= {f"{crash}/trace {call}" for call in state.calls if call in dossier.frames[1].code}
        self.uses: Counter[str] = Counter()  # command name -> turns that used it

    def add_lines(self, lines) -> None:
        for line in lines:
            quote = quotable(line)
            if quote:
                self.lines[quote] = line

    def add_command(self, key: str, line: str, lines: tuple[ShownLine, ...], source_shown: bool) -> None:
        self.asked.add(key)
        self.uses[line.split(" ", 1)[0]] += 1
        self.add_lines(lines)
        if source_shown:
            self.sources.add(line.removeprefix("source "))

    def known(self, state: LiveState, where: str) -> Known:
        """What the step grammar must not offer in STATE, at WHERE (see `place`)."""
        exclude = {c.name for c in COMMANDS if not c.args and f"{where}/{c.name}" in self.asked}
        exclude |= {c.name for c in COMMANDS if c.limit is not None and self.uses[c.name] >= c.limit}
        if state.exception < 0:  # a live stop of a re-run
            return Known(commands=frozenset(exclude - {"done"}))
        if state.on_crash and state.current in self.frames:
            exclude |= {"locals", "args"}  # the dossier showed them
        here = f"{where}/trace "
        traced = frozenset(key.removeprefix(here) for key in self.asked if key.startswith(here))
        return Known(commands=frozenset(exclude - {"done"}), sources=frozenset(self.sources), frames=self.frames if state.on_crash else frozenset(), lines=frozenset((line.file, line.line) for line in self.lines.values()), traced=traced)


def place(session: CrashSession, state: LiveState) -> str:
    """Where commands run now: `locals` in frame 2 is not `locals` in frame 3."""
    if session.rerun is not None and session.rerun.stopped:
        return session.rerun.where
    return f"{state.exception}/{state.current}"


def frames_shown(state: LiveState | None, dossier: Dossier) -> frozenset[int]:
    """Frames of the crash whose lines and locals the evidence showed, including the calls a
    recursion repeats (the evidence folds them into the one it shows)."""
    places = {(f.file, f.line, f.function) for f in dossier.frames if not f.locals_cut}
    return frozenset(i for i, here in enumerate(state.stack) if here in places) if state else frozenset()


def unseen_sources(state: LiveState, seen: Seen) -> list[str]:
    """User functions, classes and methods the shown lines use, whose source was not shown;
    not tests (they are the specification) nor exception classes (they only carry the error)."""
    code = "\n".join(line.code for line in seen.lines.values())
    names = [name for name in state.sources
             if name not in seen.sources and not name.rsplit(".", 1)[-1].startswith("test")
             and name not in state.exception_classes
             and re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", code)]
    return names[:UNSEEN_SOURCES]


def parse_step(text: str) -> tuple[str, str]:
    thought, _, command = text.partition("\nCommand: ")
    return thought.removeprefix("Thought: ").strip(), command.strip()


class Investigation:
    """One investigation of one crash: `run()` asks, runs the turns, then gets the answer."""

    def __init__(self, session: CrashSession, dossier: Dossier, model: Model, budget: Budget,
                 on_step: Callable[[Turn | None], None] = lambda turn: None, search: Search | None = None) -> None:
        self.session, self.dossier, self.model, self.budget, self.on_step = session, dossier, model, budget, on_step
        # Changes the search found: proven by the failing test (the model picks and explains), or
        # changes with which the program runs to its end (the first stands; take_search_change).
        found = search.passing if search is not None else []
        self.passing = found if search is not None and search.proof == "test" else []
        self.ran_to_end = found if not self.passing else []
        self.seen = Seen(session.state(), dossier)
        self.findings = Findings()
        self.messages: list[dict] = []

    def run(self) -> Findings:
        """ON_STEP gets each turn, then None while the answer is written. When the model fails
        (EngineError), the findings so far come back with the error."""
        try:
            self.steps()
        except EngineError as err:
            self.findings.error = str(err)
        return self.findings

    def steps(self) -> None:
        question = candidates_text(self.passing) if self.passing else self.first_question()
        self.messages = [{"role": "system", "content": SYSTEM_PROMPT},
                         {"role": "user", "content": "\n\n".join(filter(None, [dossier_text(self.dossier), question]))}]
        if self.passing:
            self.on_step(None)
            self.choose()
            self.findings.stopped_by = "search"
            return
        reserve = max(ANSWER_RESERVE_MIN, ANSWER_SHARE * (self.budget.deadline - time.monotonic()))
        self.findings.stopped_by = "turns"
        for turn in range(self.budget.max_turns):
            stop = self.stop_reason(reserve) or (None if self.state() is not None else "probe")
            if stop is None and not self.another_turn_fits():
                stop = "time"
            if stop:
                self.findings.stopped_by = stop
                break
            if not self.turn(self.budget.deadline - reserve / 2):
                break
        self.on_step(None)
        self.answer()

    def first_question(self) -> str:
        """The question after the evidence: for its first command, when the plan has room for one
        (at the default budget it has none, and the answer's request follows the evidence)."""
        if not (self.budget.max_turns and self.command_fits_plan()):
            return ""
        ask = "What is your first command?"
        state = self.session.state()
        unseen = unseen_sources(state, self.seen) if state is not None else []
        if unseen:  # where a wrong value was made, most often: what the session can show and the evidence cannot
            ask = f"Used by the code above, source not shown: {', '.join(unseen)}.\n{ask}"
        return ask

    def command_fits_plan(self) -> bool:
        """Whether one more command and two answers fit the plan's tokens, after those made so far."""
        return self.findings.tokens.generated + TYPICAL_STEP + 2 * TYPICAL_ANSWER <= self.budget.planned

    def another_turn_fits(self) -> bool:
        """Whether one more command and two answers are likely done by the budget's target, within
        its planned tokens, at the rates the model showed in this crash or, before its first reply,
        in the crash before (then the evidence, still to be read, counts too)."""
        calls = self.findings.calls
        if not self.command_fits_plan():
            return False
        rates = measured(calls) if calls else self.budget.rates
        if rates is None:
            return True  # nothing measured (a model that reports no split, or no crash before): the turn limit decides
        unread = 0 if calls else self.unread_tokens()
        turn = TYPICAL_STEP * rates.per_token + TYPICAL_OUTPUT * rates.per_prompt_token
        answers = 2 * TYPICAL_ANSWER * rates.per_token
        return time.monotonic() + unread * rates.per_prompt_token + turn + answers <= self.budget.target

    def unread_tokens(self) -> int:
        """The prompt's tokens after the system prompt, whose evaluated state the engine keeps."""
        deadline = self.budget.deadline
        return self.model.count_tokens(self.messages, deadline) - self.model.count_tokens(self.messages[:1], deadline)

    def stop_reason(self, reserve: float) -> str | None:
        if time.monotonic() > self.budget.deadline - reserve:
            return "time"
        if self.findings.tokens.generated >= self.budget.max_generated:
            return "tokens"
        return None

    def state(self) -> LiveState:
        rerun = self.session.rerun
        return rerun.state() if rerun is not None and rerun.stopped else self.session.state()

    def turn(self, deadline: float) -> bool:
        """Ask for one command and run it; False when the turns are over."""
        state = self.state()
        known = self.seen.known(state, place(self.session, state))
        completion = self.ask("step", step_grammar(state, known, self.session.available_commands()), STEP_TOKENS,
                              deadline)
        thought, command = parse_step(completion.text)
        if f"{place(self.session, state)}/{command}" in self.seen.asked:
            self.findings.stopped_by = "repeat"  # asking again what it already saw: it has nothing new to ask
            return False
        outcome = self.session.execute(command) if command else None
        output = outcome.output if outcome else "error: no command given"
        self.seen.add_command(f"{place(self.session, self.state())}/{command}", command,
                              outcome.lines if outcome and outcome.ok else (),
                              outcome is not None and outcome.ok and command.startswith("source "))
        turn = Turn(thought=thought, command=command, valid=bool(outcome and outcome.valid), output=output, tokens=completion.completion_tokens, seconds=self.findings.calls[-1].seconds, ended=outcome.ended if outcome else "error")
        self.findings.transcript.append(turn)
        self.on_step(turn)
        if outcome and outcome.ends_session:
            self.findings.stopped_by = "done"
            return False
        self.messages += [{"role": "assistant", "content": completion.text},
                          {"role": "user", "content": f"Output:\n{output}\n\nNext command, or done."}]
        return True

    def choose(self) -> None:
        """Ask which of the changes the failing test passed with (the search's) corrects the root
        cause, and why. One of them stands whatever the answer: the test is the proof, the model
        only picks and explains; an answer cut short or unreadable twice keeps the first, said plainly."""
        labels = [chr(ord("A") + i) for i in range(len(self.passing))]
        for attempt in range(2):
            completion = self.ask("choice", choice_grammar(labels), choice_max_chars(labels), self.budget.deadline,
                                  seed=attempt)
            try:
                answer = json.loads(completion.text)
                candidate, why = self.passing[labels.index(answer["fix"])], answer["root_cause"]
            except (json.JSONDecodeError, KeyError, TypeError, ValueError):  # an answer cut short
                candidate, why = self.passing[0], ""
            diagnosis = candidate_diagnosis(candidate, why)
            problem = unreadable(diagnosis, self.dossier)
            if problem is None or attempt == 1:
                if problem is not None:  # the fix stands; its reason is said plainly instead
                    diagnosis.root_cause = plain_reason(diagnosis)
                self.findings.diagnosis = diagnosis
                return
            self.messages += [{"role": "assistant", "content": completion.text},
                              {"role": "user", "content": f"That answer is not usable: {problem}. Answer in JSON again."}]

    def answer(self) -> None:
        """The final answer. Where there are lines that most likely hold the bug (`options`), the
        model rewrites them one by one, likeliest first, and each rewrite runs on the crashed
        program in a probe until one passes (`rewrite_options`): a small model recognises a wrong
        line, seen alone, better than it finds one, and a run tells which rewrite works. Elsewhere
        it answers freely (`free_answers`)."""
        if self.session.rerun is not None:
            self.session.rerun.stop()  # back to the crash: the answer quotes what was shown
        transcript = self.findings.transcript
        if transcript and transcript[-1].command == "done":
            self.messages.append({"role": "assistant", "content": f"Thought: {transcript[-1].thought}\nCommand: done"})
        if self.ran_to_end:
            self.take_search_change()
            return
        quotes = self.answerable()  # what the answer may name: every line shown a fix may change
        suspects = self.suspects()
        options = self.options(quotes, suspects)
        if len(options) > 1:
            self.rewrite_options(options)
        else:
            self.free_answers(quotes, suspects)

    def take_search_change(self) -> None:
        """The search's first change with which the crashed program ran to its end stands, before
        the model is asked for any: of the kinds it tries where only a run can tell, such a change
        was right in 12 of 13 dev cases, the model's own fixes that ran to the end in about 4 of 5
        (and they cost its time). The model says why."""
        change = self.ran_to_end[0]
        diagnosis = candidate_diagnosis(change, "")
        line = ShownLine(change.edit.file, change.edit.first, change.code.splitlines()[0] if change.code else "")
        diagnosis.root_cause = self.reason(quotable(line) or f"{change.display_file}:{change.edit.first}", diagnosis,
                                           told=True)
        self.findings.diagnosis = diagnosis

    def rewrite_options(self, options: list[str]) -> None:
        """Ask for the corrected code of each of OPTIONS in turn, likeliest first, while the plan has
        room, and run each fix on the crashed program in a probe. Each line is asked from the same
        point of the conversation (its evaluated state shared): after copying a line or two it was
        told were suspect, the 1.5b copied the next as well, the crash line too. The first fix that
        passes stands, with the model's reason for it. A line whose fix ran and failed is asked once
        more, after the others, in its own branch and told how the fix ran: the 1.5b swapped
        `strptime`'s arguments back only so. When no fix passes,
        the first that ran to the end behind a guard it added to the line that crashed stands
        (FixTrial "guards"), then the first option whose fix moved the failure on (FixTrial.moved_on),
        else the likeliest option, with its fix (if any), how that ran, and a reason said plainly:
        the model's reasons for a line it could not fix are guesses."""
        trials: dict[tuple, FixTrial] = {}
        answers: dict[str, Diagnosis] = {}  # option -> its diagnosis (with the fix the model wrote, if any)
        retried: set[str] = set()
        conversation = self.messages + [{"role": "user", "content": OPTIONS_HEADER + "\n".join(options)}]
        asks = [(quote, conversation + [{"role": "user", "content": self.rewrite_request(quote)}]) for quote in options]
        while asks:
            quote, self.messages = asks.pop(0)
            line = self.seen.lines[quote]
            if answers and not self.rewrite_fits():
                break
            try:
                reply = self.ask("answer", code_grammar(line.code), code_max_chars(line.code), self.budget.deadline)
            except EngineError:
                if not answers:
                    raise
                break  # out of time: the answers so far stand
            self.messages.append({"role": "assistant", "content": reply.text})
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
                    asks.append((quote, self.messages + [{"role": "user", "content": retry_request(trial)}]))
        ran = {q: d.fix.trial for q, d in answers.items() if d.fix is not None and d.fix.trial is not None}
        passing = [q for q, trial in ran.items() if trial.passes]
        guarding = [q for q, trial in ran.items() if trial.result == "guards"]
        moved_on = [q for q, trial in ran.items() if trial.moved_on]
        quote = (passing or guarding or moved_on or options)[0]
        kept = answers[quote]
        kept.root_cause = self.reason(quote, kept) if passing else plain_reason(kept)
        self.findings.diagnosis = kept

    def rewrite_request(self, quote: str) -> str:
        """The request for the line QUOTE's corrected code. The line that crashed comes with what it
        raised: shown alone, the 1.5b copied `product["name"] + " - " + ... + " - " + product["stock"]
        + ...` as right; told it raised "can only concatenate str (not "int") to str", it added
        `str()`. Any other line comes with its function's signature and docstring: the 1.5b then
        wrote `range((last - first).days + 1)` for "Every night from FIRST to LAST, both included."
        and `strptime(text, DATE_FORMAT)` for `def parse_date(text):`, lines it had copied or
        swapped wrongly when shown alone. Not the crash line: shown with its function too, the 1.5b
        copied it in `env-file-split-equals` and `shelf-label-concat-int`, which it fixes without."""
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

    def rewrite_fits(self) -> bool:
        """Whether one more rewrite and its run are likely done by the budget's target, within its
        planned tokens, at the rates this crash showed."""
        if self.findings.tokens.generated + TYPICAL_REWRITE > self.budget.planned:
            return False
        rates = measured(self.findings.calls)
        if rates is None:
            return time.monotonic() < self.budget.target
        trial = self.findings.trials[-1] if self.findings.trials else 0.0
        cost = REWRITE_REQUEST * rates.per_prompt_token + TYPICAL_REWRITE * rates.per_token + trial
        return time.monotonic() + cost <= self.budget.target

    def reason(self, quote: str, diagnosis: Diagnosis, told: bool = False) -> str:
        """Why the line QUOTE was wrong, DIAGNOSIS's fix of it having passed: in the model's words
        when the plan has room and it gives a readable answer, else said plainly. TOLD: the fix is
        not the model's own (the search found it), so it is shown first."""
        if self.findings.tokens.generated + TYPICAL_REASON <= self.budget.planned and self.reason_fits():
            fix = diagnosis.fix
            ran = (f"I changed it to:\n```python\n{fix.edit.replacement.rstrip()}\n```\nand ran it" if told else "I ran it")
            self.messages.append({"role": "user", "content": f"{ran}: {fix.trial.detail}. In one or two "
                                  f"sentences: what was wrong in {quote}, and why did it make the crash? Answer in "
                                  "JSON: root_cause."})
            try:
                completion = self.ask("why", reason_grammar(), reason_max_chars(), self.budget.deadline)
                why = json.loads(completion.text)["root_cause"]
                self.messages.append({"role": "assistant", "content": completion.text})
            except (EngineError, json.JSONDecodeError, KeyError, TypeError):
                why = ""
            if readable(why, self.dossier):
                return whole_sentences(why)
        return plain_reason(diagnosis)

    def reason_fits(self) -> bool:
        rates = measured(self.findings.calls)
        if rates is None:
            return time.monotonic() < self.budget.target
        cost = REWRITE_REQUEST * rates.per_prompt_token + TYPICAL_REASON * REASON_SLOWER * rates.per_token
        return time.monotonic() + cost <= self.budget.target

    def free_answers(self, quotes: list[str], suspects: list[Suspect]) -> None:
        """Ask for the final answer, naming any line of QUOTES, and try its fix on the crashed
        program, in a probe; while time and MAX_ANSWERS allow, ask again (see `next_request`).
        The best answer stands (`rank`)."""
        tried: set[tuple[str, int]] = set()  # (file, line) of each answer's fix and each suspect asked for
        outcome = ""  # how the last fix that ran ended, for the next request
        trials: dict[tuple, FixTrial] = {}  # each fix tried, so the same one given again is not run again
        why_chars = ROOT_CAUSE_CHARS
        self.messages.append({"role": "user", "content": "Give the final answer as JSON now."})
        for attempt in range(MAX_ANSWERS):
            started = time.monotonic()
            try:
                completion = self.ask("answer", answer_grammar(quotes, why_chars),
                                      answer_max_chars(quotes, why_chars), self.budget.deadline, seed=attempt)
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
            # Another answer costs about what this one did: only when it fits the budget's plan.
            if request is None or time.monotonic() + (time.monotonic() - started) > self.budget.target \
                    or self.findings.tokens.generated + made > self.budget.planned:
                return
            asked, lines = request
            tried.update((self.seen.lines[q].file, self.seen.lines[q].line) for q in lines)
            quotes = lines or self.answerable()
            why_chars = SUSPECT_ROOT_CAUSE_CHARS if lines else ROOT_CAUSE_CHARS
            self.messages += [{"role": "assistant", "content": text}, {"role": "user", "content": asked}]

    def options(self, quotes: list[str], suspects: list[Suspect]) -> list[str]:
        """The lines the answer chooses among, in the order they are asked: the likeliest suspect
        (a line that made the failing values), the line that crashed, then the other suspects;
        only lines QUOTES (what an answer may name) holds, at most MAX_OPTIONS. The crash line
        second, not last: by default only the first two or three are asked in time, and where the
        crash line was the root cause (8 dev cases) it was asked last and so never fixed."""
        allowed = set(quotes)
        crash = self.dossier.crash_site
        crashed = [q for q, line in self.seen.lines.items() if (line.file, line.line) == (crash.file, crash.line)]
        picked = list(dict.fromkeys(q for suspect in suspects for q in suspect.lines if q in allowed and q not in crashed))
        return (picked[:1] + [q for q in crashed[:1] if q in allowed] + picked[1:])[:MAX_OPTIONS]

    def answerable(self) -> list[str]:
        """The shown lines an answer may name: for a failing assert, not the test that runs it,
        which a fix may not change (investigate.answer.specification_lines)."""
        spec = specification_lines(self.dossier)
        return [q for q, line in self.seen.lines.items() if (line.file, line.line) not in spec]

    def same_lines(self, diagnosis: Diagnosis) -> list[str]:
        """Quotes of the shown lines DIAGNOSIS's fix changes."""
        return [q for q, line in self.seen.lines.items()
                if line.file == diagnosis.file and diagnosis.line <= line.line <= diagnosis.line_end]

    def suspects(self) -> list[Suspect]:
        """Where a fix goes when the model's own did not pass: the lines that made the failing
        line's values, likeliest first (provenance by kind). A `return` of a call the evidence
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
        return list(dict.fromkeys(suspect for suspect in suspects if suspect.lines))

    def try_fix(self, diagnosis: Diagnosis, trials: dict[tuple, FixTrial]) -> None:
        fix = diagnosis.fix
        key = (fix.edit.file, fix.edit.first, fix.edit.last, fix.edit.replacement)
        if key not in trials:
            started = time.monotonic()
            trials[key] = self.session.try_fix(fix.edit, self.dossier.exception.type)
            self.findings.trials.append(round(time.monotonic() - started, 3))
        fix.trial = trials[key]

    def ask(self, purpose: str, grammar: str, max_tokens: int, deadline: float, seed: int = 0) -> Completion:
        started = time.monotonic()
        for message in self.messages:  # what the model gets leaves autodbg (a remote server, a log)
            message["content"] = self.session.redactor.scrub(message["content"])
        fit_context(self.messages, self.model, max_tokens, deadline)
        completion = self.model.complete(self.messages, grammar=grammar, max_tokens=max_tokens, deadline=deadline,
                                         cache_prefix_messages=1, seed=seed)
        self.findings.calls.append(ModelCall(purpose=purpose, seconds=round(time.monotonic() - started, 3), prompt_seconds=completion.prompt_seconds, prompt_tokens=completion.prompt_tokens, prompt_tokens_evaluated=completion.prompt_tokens_evaluated, generated=completion.completion_tokens, accepted=completion.accepted, grammar_refusals=completion.grammar_refusals, grammar_bytes=len(grammar.encode())))
        tokens = self.findings.tokens
        tokens.prompt_tokens_evaluated += completion.prompt_tokens_evaluated
        tokens.prompt_tokens_reused += completion.prompt_tokens_reused
        tokens.generated += completion.completion_tokens
        if tokens.system_prompt_from_disk is None:
            tokens.system_prompt_from_disk = completion.system_prompt_from_disk
        return completion


def candidate_diagnosis(candidate: Candidate, root_cause: str) -> Diagnosis:
    """The diagnosis that CANDIDATE, a fix that passed in a probe, is the fix of."""
    fix = check_fix(candidate.edit, as_written=True)
    fix.trial = candidate.trial
    return Diagnosis(file=fix.edit.file, display_file=candidate.display_file, line=fix.edit.first, line_end=fix.edit.last, root_cause=root_cause, fix=fix, source_window=source_window(fix.edit.file, fix.edit.first, fix.edit.last))


def whole_sentences(text: str, limit: int = ROOT_CAUSE_CHARS) -> str:
    """TEXT without a last sentence its length LIMIT cut short (the 1.5b runs on to the limit), or
    ending in an ellipsis where there is no whole sentence before it."""
    text = text.strip()
    if len(text) < limit - CUT_SLACK or re.search(r"[.!?][\"'`)]*$", text):
        return text
    end = max(text.rfind(". "), text.rfind(".\n"), text.rfind("! "), text.rfind("? "))
    return text[:end + 1] if end >= MIN_SENTENCE_CHARS else text.rstrip(" ,;:") + "…"


def readable(root_cause: str, dossier: Dossier) -> bool:
    """Whether ROOT_CAUSE says in words what is wrong: not empty, not junk, not the error message
    again, nor the list of lines it was asked about (the 0.5b copied it once)."""
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
    if trial.result == "guards":
        return trial.detail.removeprefix("with this fix the crashed program ")
    if trial.result == "not run":
        return f"was not run ({trial.detail})"
    return f"{trial.result}: {trial.detail}" if trial.result != "hangs" else "hangs"


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
    return 4 if fix.trial is not None and fix.trial.result == "guards" else 3


def failed(diagnosis: Diagnosis | None) -> bool:
    """Whether DIAGNOSIS's fix ran and did not work."""
    fix = diagnosis.fix if diagnosis is not None else None
    return fix is not None and fix.trial is not None and fix.trial.result in ("still fails", "fails differently", "hangs")


class Suspect(NamedTuple):
    """Lines a fix may go to, offered together: one line that made a failing value, or the lines
    that ran in a replayed call (CALL) whose result the failing line used."""
    lines: tuple[str, ...]  # quotes, in source order
    call: str = ""


def rewrite_request(line: ShownLine, raised: str = "", head: str = "") -> str:
    """The request for LINE's corrected code, the line shown as it stands in a block of its own,
    after HEAD (its function's signature and docstring), followed by RAISED (what it raised).
    Asked for a line only named (`Give the corrected code of FILE:N| code`), the 0.5b wrote a whole new
    function in its place (17 of its 24 kept fixes on the dev corpus, 1 of them right, at 45-75
    tokens each), and a grammar that forbade the `def` made it write `defaverage_price(...`. Shown
    the line, it rewrites or copies it; the 1.5b's results stayed (dev corpus 14/6 against 14/7)."""
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
    if fix is not None and fix.usable and fix.trial is not None and fix.trial.result in ("passes", "not run"):
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


def investigate(session: CrashSession, dossier: Dossier, model: Model, budget: Budget,
                on_step: Callable[[Turn | None], None] = lambda turn: None, search: Search | None = None) -> Findings:
    return Investigation(session, dossier, model, budget, on_step, search).run()


def fit_context(messages: list[dict], model: Model, max_tokens: int, deadline: float) -> None:
    """Trim the oldest command outputs (never the system prompt or the evidence) until the prompt
    and the longest possible reply fit the model's context."""
    limit = model.context_size(deadline)
    for message in messages[2:]:
        if model.count_tokens(messages, deadline) + max_tokens <= limit:
            return
        if message["role"] == "user" and message["content"].startswith("Output:") and message["content"] != TRIMMED:
            message["content"] = TRIMMED
    if model.count_tokens(messages, deadline) + max_tokens > limit:
        raise EngineError("the evidence does not fit the model's context")
