"""Token sampling under a grammar, the way llama.cpp's own common sampler does it: sample from
the model's distribution first, check only that token against the grammar, and run the grammar
over the whole vocabulary only when the token is refused.

llama-cpp-python puts the grammar in front of the sampler chain, so every token pays a grammar
match of all 151k Qwen vocabulary entries: 30-40 % of the generation time. Almost every token the
model picks is allowed anyway. Runs inside the worker process only (imports llama_cpp).
"""

from __future__ import annotations

import ctypes
import math

import llama_cpp
import numpy as np

TOP_K = 40
TOP_P = 0.95
MIN_P = 0.05


class Sampler:
    def __init__(self, llm, grammar: str | None, temperature: float, seed: int) -> None:
        self.ctx = llm._ctx.ctx
        self.n_vocab = llm.n_vocab()
        self.chain = llama_cpp.llama_sampler_chain_init(llama_cpp.llama_sampler_chain_default_params())
        if temperature <= 0:
            stages = [llama_cpp.llama_sampler_init_greedy()]
        else:
            stages = [llama_cpp.llama_sampler_init_top_k(TOP_K), llama_cpp.llama_sampler_init_top_p(TOP_P, 1),
                      llama_cpp.llama_sampler_init_min_p(MIN_P, 1), llama_cpp.llama_sampler_init_temp(temperature),
                      llama_cpp.llama_sampler_init_dist(seed)]
        for stage in stages:
            llama_cpp.llama_sampler_chain_add(self.chain, stage)  # the chain owns and frees them
        self.grammar = None
        if grammar:
            self.grammar = llama_cpp.llama_sampler_init_grammar(llm._model.vocab, grammar.encode("utf-8"), b"root")
            if not self.grammar:
                self.close()
                raise ValueError("invalid grammar")
        self.one = llama_cpp.llama_token_data()
        self.full = None  # the whole-vocabulary candidates, made on the first refused token
        self.refused = 0

    def sample(self, index: int = -1) -> int:
        """The next token from the logits of position INDEX of the last batch (-1: its last)."""
        token = llama_cpp.llama_sampler_sample(self.chain, self.ctx, index)
        if self.grammar is None:
            return token
        if not self._allowed(token):
            self.refused += 1
            token = self._sample_constrained(index)
        llama_cpp.llama_sampler_accept(self.grammar, token)
        return token

    def _allowed(self, token: int) -> bool:
        self.one.id, self.one.logit, self.one.p = token, 0.0, 0.0
        single = llama_cpp.llama_token_data_array(data=ctypes.pointer(self.one), size=1, selected=-1, sorted=False)
        llama_cpp.llama_sampler_apply(self.grammar, ctypes.byref(single))
        return not math.isinf(single.data[0].logit)

    def _sample_constrained(self, index: int) -> int:
        if self.full is None:
            self.full = np.recarray((self.n_vocab,), dtype=np.dtype(
                [("id", np.intc), ("logit", np.single), ("p", np.single)], align=True))
        logits = np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(self.ctx, index), shape=(self.n_vocab,))
        self.full.id[:] = np.arange(self.n_vocab, dtype=np.intc)
        self.full.logit[:] = logits
        self.full.p[:] = 0.0
        candidates = llama_cpp.llama_token_data_array(
            data=self.full.ctypes.data_as(llama_cpp.llama_token_data_p), size=self.n_vocab, selected=-1, sorted=False)
        llama_cpp.llama_sampler_apply(self.grammar, ctypes.byref(candidates))
        llama_cpp.llama_sampler_apply(self.chain, ctypes.byref(candidates))
        return candidates.data[candidates.selected].id  # samplers may move `data`: read through it

    def close(self) -> None:
        llama_cpp.llama_sampler_free(self.chain)
        if self.grammar:
            llama_cpp.llama_sampler_free(self.grammar)
