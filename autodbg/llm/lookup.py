"""Drafts for speculative decoding from the context itself ("prompt lookup"): what followed the
last time the newest few tokens appeared.

Much of what the model writes is copied: a source line it quotes, the code a fix keeps, JSON keys
and command names it wrote before. When the newest tokens appeared earlier in the context, the
tokens that followed them there are a likely continuation; the worker evaluates them in one batch
with the next token and keeps those the model would have sampled anyway (autodbg.llm.worker), so
the reply is the same (up to llama.cpp's rounding, which differs a little between batch sizes and
may break a near-tie the other way), in fewer decode steps. Pure Python; no model here.
"""

from __future__ import annotations

NGRAM = 3  # tokens matched to find a draft: fewer match by chance, more rarely match at all
MAX_DRAFT = 8


class Lookup:
    """The context's token n-grams, each with where it last ended, kept up to date as tokens come."""

    def __init__(self, tokens: list[int]) -> None:
        self.tokens: list[int] = []
        self.seen: dict[tuple[int, ...], int] = {}  # n-gram -> index just past its latest earlier end
        for token in tokens:
            self.add(token)

    def add(self, token: int) -> None:
        tokens = self.tokens
        if len(tokens) >= NGRAM:  # the n-gram ending at the previous token now has a follower
            self.seen[tuple(tokens[-NGRAM:])] = len(tokens)
        tokens.append(token)

    def draft(self, limit: int) -> list[int]:
        """Up to LIMIT (at most MAX_DRAFT) tokens that followed the newest n-gram where it appeared
        before; [] if it never did."""
        if len(self.tokens) < NGRAM or limit <= 0:
            return []
        start = self.seen.get(tuple(self.tokens[-NGRAM:]))
        return [] if start is None else self.tokens[start:start + min(limit, MAX_DRAFT)]
