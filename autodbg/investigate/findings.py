"""What an investigation found, filled in as it goes: kept when the model stops answering."""

from __future__ import annotations

from dataclasses import dataclass, field

from autodbg.records import Candidate, Diagnosis, ModelCall, StoppedBy, Tokens, Turn


@dataclass
class Findings:
    transcript: list[Turn] = field(default_factory=list)
    diagnosis: Diagnosis | None = None
    problem: str | None = None  # why the kept diagnosis is hard to use (investigate.answer.unreadable)
    tokens: Tokens = field(default_factory=Tokens)
    calls: list[ModelCall] = field(default_factory=list)  # each completion, with its cost
    trials: list[float] = field(default_factory=list)  # seconds of each fix tried in a probe
    candidates: list[Candidate] = field(default_factory=list)  # each fix the model wrote that ran, in order
    stopped_by: StoppedBy | None = None
    error: str | None = None  # why the model stopped answering (what was found until then is kept)
