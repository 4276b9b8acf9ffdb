"""The conversation with the model: the messages, each completion asked under a grammar, its
cost written to the findings, the prompt redacted and fitted to the model's context."""

from __future__ import annotations

import time
from typing import Callable

from autodbg.investigate.findings import Findings
from autodbg.llm.model import Completion, EngineError, Model
from autodbg.records import ModelCall, Purpose

TRIMMED = "[older output trimmed to fit the context]"


class Conversation:
    """MESSAGES, sent to MODEL scrubbed by SCRUB, every call's cost added to FINDINGS."""

    def __init__(self, model: Model, scrub: Callable[[str], str], findings: Findings) -> None:
        self.model, self.scrub, self.findings = model, scrub, findings
        self.messages: list[dict] = []

    def add(self, role: str, content: str) -> None:
        self.messages.append({"role": role, "content": content})

    def ask(self, purpose: Purpose, grammar: str, max_tokens: int, deadline: float, seed: int = 0) -> Completion:
        started = time.monotonic()
        for message in self.messages:  # what the model gets leaves autodbg (a remote server, a log)
            message["content"] = self.scrub(message["content"])
        fit_context(self.messages, self.model, max_tokens, deadline)
        completion = self.model.complete(self.messages, grammar=grammar, max_tokens=max_tokens, deadline=deadline,
                                         cache_prefix_messages=1, seed=seed)
        self.findings.calls.append(ModelCall(
            purpose=purpose, seconds=round(time.monotonic() - started, 3), prompt_seconds=completion.prompt_seconds,
            prompt_tokens=completion.prompt_tokens, prompt_tokens_evaluated=completion.prompt_tokens_evaluated,
            generated=completion.completion_tokens, accepted=completion.accepted,
            grammar_refusals=completion.grammar_refusals, grammar_bytes=len(grammar.encode())))
        tokens = self.findings.tokens
        tokens.prompt_tokens_evaluated += completion.prompt_tokens_evaluated
        tokens.prompt_tokens_reused += completion.prompt_tokens_reused
        tokens.generated += completion.completion_tokens
        if tokens.system_prompt_from_disk is None:
            tokens.system_prompt_from_disk = completion.system_prompt_from_disk
        return completion

    def unread_tokens(self, deadline: float) -> int:
        """The prompt's tokens after the system prompt, whose evaluated state the engine keeps."""
        return (self.model.count_tokens(self.messages, deadline)
                - self.model.count_tokens(self.messages[:1], deadline))


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
