"""What the investigation needs from a model: the `Model` interface, its reply, its error.

The in-process engine (`autodbg.llm.engine.Engine`) implements it, and so does the tests'
scripted stand-in, so the two cannot drift apart.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

from autodbg.errors import AutodbgError


class EngineError(AutodbgError):
    """The model cannot answer: the worker died, timed out or refused the request."""


@dataclass
class Completion:
    text: str
    finish_reason: str
    prompt_tokens: int
    prompt_tokens_evaluated: int
    prompt_tokens_reused: int
    completion_tokens: int
    drafted: int  # tokens drafted from the context (autodbg.llm.lookup), and of them
    accepted: int  # those the model took: made without a decode step each
    system_prompt_from_disk: bool
    system_prompt_tokens: int  # length of the fixed prefix kept on disk (0: none)
    grammar_refusals: int  # sampled tokens the grammar refused, so the whole vocabulary was matched
    seconds: float
    prompt_seconds: float  # of SECONDS, evaluating the prompt (the rest made the reply)


class Model(ABC):
    """A chat model that answers under a GBNF grammar, within a deadline (time.monotonic())."""

    def close(self) -> None:
        """Free what the model holds (a worker process); it cannot answer afterwards."""

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @abstractmethod
    def wait_loaded(self, deadline: float) -> dict:
        """Block until the model can answer; the dict holds at least load_seconds."""

    @abstractmethod
    def context_size(self, deadline: float) -> int:
        """Tokens the prompt and the reply must fit in."""

    @abstractmethod
    def count_tokens(self, messages: list[dict], deadline: float) -> int:
        """Tokens MESSAGES take as a prompt."""

    @abstractmethod
    def complete(self, messages: list[dict], *, grammar: str | None, max_tokens: int, deadline: float,
                 seed: int = 0, cache_prefix_messages: int = 0) -> Completion:
        """The reply to MESSAGES under GRAMMAR; the first CACHE_PREFIX_MESSAGES are a fixed prefix
        worth keeping evaluated. Raises EngineError."""
