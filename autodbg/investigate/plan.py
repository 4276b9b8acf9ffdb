"""The plan: whether the next piece of model work (a command, a rewrite, a reason, another
answer) fits the budget's time and tokens, at the rates the model shows in this crash.

Reads what was spent from the findings; asks nothing and runs nothing. Where the constants'
values come from: bench/HISTORY.md, "The plan's constants".
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

from autodbg.debugger.grammar import THOUGHT_CHARS
from autodbg.investigate.findings import Findings
from autodbg.investigate.pace import measured
from autodbg.records import Rates, StoppedBy
from autodbg.settings import DEFAULT_TIMEOUT, DEFAULT_TURNS

MAX_GENERATED_TOKENS = 1500
# The model's writing a crash plans for at the default AUTODBG_TIMEOUT: the corrected code of a
# few lines and a reason for the one that passed, no command; the same for every model.
PLANNED_TOKENS = 150
ANSWER_SHARE = 0.35  # of the time budget kept back for the final answer, so there always is one
ANSWER_RESERVE_MIN = 12.0
STEP_TOKENS = THOUGHT_CHARS + 80  # the grammar's longest step, even at one token per character
# What a turn and an answer usually cost: the step's tokens, its output read as prompt tokens, an answer's tokens.
TYPICAL_STEP, TYPICAL_OUTPUT, TYPICAL_ANSWER = 25, 150, 80
# One more rewrite of an option: its request read as prompt tokens, and the corrected line made.
REWRITE_REQUEST, TYPICAL_REWRITE = 90, 25
TYPICAL_REASON = 55  # tokens of a root cause asked for on its own
REASON_SLOWER = 2  # a reason is prose, made with few drafts from the context: slower per token than code


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


class Plan:
    """BUDGET, against what FINDINGS say was spent so far."""

    def __init__(self, budget: Budget, findings: Findings) -> None:
        self.budget, self.findings = budget, findings

    def answer_reserve(self) -> float:
        """Seconds kept back for the answer, from now."""
        return max(ANSWER_RESERVE_MIN, ANSWER_SHARE * (self.budget.deadline - time.monotonic()))

    def stop_reason(self, reserve: float) -> StoppedBy | None:
        if time.monotonic() > self.budget.deadline - reserve:
            return StoppedBy.TIME
        if self.findings.tokens.generated >= self.budget.max_generated:
            return StoppedBy.TOKENS
        return None

    def command_fits(self) -> bool:
        """Whether one more command and two answers fit the plan's tokens, after those made so far."""
        return self.findings.tokens.generated + TYPICAL_STEP + 2 * TYPICAL_ANSWER <= self.budget.planned

    def another_turn_fits(self, unread_tokens: Callable[[], int]) -> bool:
        """Whether one more command and two answers are likely done by the budget's target, within
        its planned tokens, at the rates the model showed in this crash or, before its first reply,
        in the crash before (then the evidence, UNREAD_TOKENS still to be read, counts too)."""
        calls = self.findings.calls
        if not self.command_fits():
            return False
        rates = measured(calls) if calls else self.budget.rates
        if rates is None:
            return True  # nothing measured (a model that reports no split, or no crash before): the turn limit decides
        unread = 0 if calls else unread_tokens()
        turn = TYPICAL_STEP * rates.per_token + TYPICAL_OUTPUT * rates.per_prompt_token
        answers = 2 * TYPICAL_ANSWER * rates.per_token
        return time.monotonic() + unread * rates.per_prompt_token + turn + answers <= self.budget.target

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

    def reason_fits(self) -> bool:
        """Whether the model's own reason for a fix that passed fits, in tokens and in time."""
        if self.findings.tokens.generated + TYPICAL_REASON > self.budget.planned:
            return False
        rates = measured(self.findings.calls)
        if rates is None:
            return time.monotonic() < self.budget.target
        cost = REWRITE_REQUEST * rates.per_prompt_token + TYPICAL_REASON * REASON_SLOWER * rates.per_token
        return time.monotonic() + cost <= self.budget.target

    def another_answer_fits(self, started: float, made: int) -> bool:
        """Whether one more free answer fits: it costs about what the last did (begun at STARTED, MADE tokens)."""
        return (time.monotonic() + (time.monotonic() - started) <= self.budget.target
                and self.findings.tokens.generated + made <= self.budget.planned)
