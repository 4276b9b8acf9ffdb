"""The turns: ask the model for a command under a grammar built from the live state, run it,
show it the output, while the plan has room; then hand over to the answer strategies."""

from __future__ import annotations

from typing import Callable

from autodbg.crash import CrashSession
from autodbg.debugger.grammar import LiveState, step_grammar
from autodbg.investigate.conversation import Conversation
from autodbg.investigate.findings import Findings
from autodbg.investigate.plan import STEP_TOKENS, Budget, Plan
from autodbg.investigate.prompt import SYSTEM_PROMPT, candidates_text, dossier_text
from autodbg.investigate.seen import Seen, place, unseen_sources
from autodbg.investigate.strategies import Answers
from autodbg.llm.model import EngineError, Model
from autodbg.records import Dossier, Ended, Proof, Purpose, Search, StoppedBy, Turn


def parse_step(text: str) -> tuple[str, str]:
    thought, _, command = text.partition("\nCommand: ")
    return thought.removeprefix("Thought: ").strip(), command.strip()


class Investigation:
    """One investigation of one crash: `run()` asks, runs the turns, then gets the answer."""

    def __init__(self, session: CrashSession, dossier: Dossier, model: Model, budget: Budget,
                 on_step: Callable[[Turn | None], None] = lambda turn: None, search: Search | None = None) -> None:
        self.session, self.dossier, self.budget, self.on_step = session, dossier, budget, on_step
        # Changes the search found: proven by the failing test (the model picks and explains), or
        # changes with which the program runs to its end (the first stands).
        found = search.passing if search is not None else []
        self.passing = found if search is not None and search.proof == Proof.TEST else []
        self.ran_to_end = found if not self.passing else []
        self.seen = Seen(session.state(), dossier)
        self.findings = Findings()
        self.talk = Conversation(model, session.redactor.scrub, self.findings)
        self.plan = Plan(budget, self.findings)
        self.answers = Answers(session, dossier, self.seen, self.talk, self.plan, self.findings)

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
        self.talk.add("system", SYSTEM_PROMPT)
        self.talk.add("user", "\n\n".join(filter(None, [dossier_text(self.dossier), question])))
        if self.passing:
            self.on_step(None)
            self.answers.choose(self.passing)
            self.findings.stopped_by = StoppedBy.SEARCH
            return
        reserve = self.plan.answer_reserve()
        self.findings.stopped_by = StoppedBy.TURNS
        for _ in range(self.budget.max_turns):
            stop = self.plan.stop_reason(reserve) or (None if self.state() is not None else StoppedBy.PROBE)
            if stop is None and not self.plan.another_turn_fits(lambda: self.talk.unread_tokens(self.budget.deadline)):
                stop = StoppedBy.TIME
            if stop:
                self.findings.stopped_by = stop
                break
            if not self.turn(self.budget.deadline - reserve / 2):
                break
        self.on_step(None)
        if self.session.rerun is not None:
            self.session.rerun.stop()  # back to the crash: the answer quotes what was shown
        transcript = self.findings.transcript
        if transcript and transcript[-1].command == "done":
            self.talk.add("assistant", f"Thought: {transcript[-1].thought}\nCommand: done")
        changes = self.session.changes
        if changes is not None:  # what `try` ran is a candidate like any; one that passed the tests stands
            self.findings.candidates += changes.tried
        self.answers.answer((changes.passed if changes is not None else []) or self.ran_to_end)

    def first_question(self) -> str:
        """The question after the evidence: for its first command, when the plan has room for one
        (at the default budget it has none, and the answer's request follows the evidence)."""
        if not (self.budget.max_turns and self.plan.command_fits()):
            return ""
        ask = "What is your first command?"
        state = self.session.state()
        unseen = unseen_sources(state, self.seen) if state is not None else []
        if unseen:  # where a wrong value was made, most often: what the session can show and the evidence cannot
            ask = f"Used by the code above, source not shown: {', '.join(unseen)}.\n{ask}"
        return ask

    def state(self) -> LiveState:
        rerun = self.session.rerun
        return rerun.state() if rerun is not None and rerun.stopped else self.session.state()

    def turn(self, deadline: float) -> bool:
        """Ask for one command and run it; False when the turns are over."""
        state = self.state()
        known = self.seen.known(state, place(self.session, state))
        completion = self.talk.ask(Purpose.STEP, step_grammar(state, known, self.session.available_commands()),
                                   STEP_TOKENS, deadline)
        thought, command = parse_step(completion.text)
        if f"{place(self.session, state)}/{command}" in self.seen.asked:
            self.findings.stopped_by = StoppedBy.REPEAT  # asking again what it saw: it has nothing new to ask
            return False
        outcome = self.session.execute(command) if command else None
        output = outcome.output if outcome else "error: no command given"
        self.seen.add_command(f"{place(self.session, self.state())}/{command}", command,
                              outcome.lines if outcome and outcome.ok else (),
                              outcome is not None and outcome.ok and command.startswith("source "))
        turn = Turn(thought=thought, command=command, valid=bool(outcome and outcome.valid), output=output,
                    tokens=completion.completion_tokens, seconds=self.findings.calls[-1].seconds,
                    ended=outcome.ended if outcome else Ended.ERROR)
        self.findings.transcript.append(turn)
        self.on_step(turn)
        if outcome and outcome.ends_session:
            self.findings.stopped_by = StoppedBy.DONE
            return False
        self.talk.add("assistant", completion.text)
        self.talk.add("user", f"Output:\n{output}\n\nNext command, or done.")
        return True


def investigate(session: CrashSession, dossier: Dossier, model: Model, budget: Budget,
                on_step: Callable[[Turn | None], None] = lambda turn: None, search: Search | None = None) -> Findings:
    return Investigation(session, dossier, model, budget, on_step, search).run()
