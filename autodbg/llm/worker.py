"""The model worker: llama.cpp in its own process, so a segfault or abort() there cannot take
the crashed program's report down. Run as `python -m autodbg.llm.worker`.

Protocol (autodbg.channel, one JSON object per line): requests on stdin, replies on the original
stdout; file descriptors 1 and 2 are pointed at /dev/null so llama.cpp's own output goes nowhere.

  load {path, n_ctx, threads, state_key, state_dir, state_limit}
      -> loaded {load_seconds, n_ctx, n_ctx_train, chat_template}
  complete {messages, grammar, max_tokens, temperature, seed, cache_prefix_messages: K}
      (the first K messages are a fixed prefix kept on disk)
      -> token {text} ... then done {text, finish_reason, prompt_tokens, prompt_tokens_evaluated,
         prompt_tokens_reused, completion_tokens, drafted, accepted, system_prompt_from_disk,
         system_prompt_tokens, grammar_refusals, seconds, prompt_seconds}
  count_tokens {messages} -> tokens {tokens}
Any failure -> error {error: one line}; the worker then keeps serving.
"""

from __future__ import annotations

import codecs
import ctypes
import hashlib
import os
import stat
import sys
import time
from pathlib import Path

from autodbg.channel import Channel, ChannelClosed, ChannelError
from autodbg.errors import AutodbgError
from autodbg.files import private_dir, replacing
from autodbg.llm.lookup import Lookup

CHATML = ("{% for message in messages %}{{'<|im_start|>' + message['role'] + '\n' + message['content']"
          " + '<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}")


class Worker:
    def __init__(self, reply) -> None:
        self.reply = reply
        self.llm = None
        self.formatter = None
        self.state_dir: Path | None = None
        self.state_key = ""
        self.state_limit = 0

    # --- requests ----------------------------------------------------------------------------

    def load(self, path: str, n_ctx: int, threads: int, state_key: str = "", state_dir: str | None = None,
             state_limit: int = 256 << 20) -> dict:
        import llama_cpp
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        started = time.monotonic()
        self.llm = llama_cpp.Llama(model_path=path, n_ctx=n_ctx, n_threads=threads, n_threads_batch=threads,
                                   n_batch=512, verbose=False, seed=0)
        template = self.llm.metadata.get("tokenizer.chat_template")
        model = self.llm._model
        self.formatter = Jinja2ChatFormatter(
            template or CHATML,
            eos_token=model.token_get_text(model.token_eos()),
            bos_token=model.token_get_text(model.token_bos()) if model.token_bos() >= 0 else "",
        )
        self.state_dir = usable_state_dir(state_dir)
        self.state_key = "|".join([state_key, str(n_ctx), llama_cpp.__version__])
        self.state_limit = state_limit
        return {"kind": "loaded", "load_seconds": round(time.monotonic() - started, 3), "n_ctx": self.llm.n_ctx(),
                "n_ctx_train": self.llm._model.n_ctx_train(), "chat_template": bool(template)}

    def tokens_for(self, messages: list[dict], generation_prompt: bool = True) -> list[int]:
        self.formatter.add_generation_prompt = generation_prompt
        prompt = self.formatter(messages=messages).prompt
        add_bos = self.llm._model.add_bos_token() and not prompt.startswith(self.formatter.bos_token or "\0")
        return self.llm.tokenize(prompt.encode("utf-8"), add_bos=add_bos, special=True)

    def count_tokens(self, messages: list[dict]) -> dict:
        return {"kind": "tokens", "tokens": len(self.tokens_for(messages))}

    def complete(self, messages: list[dict], grammar: str | None, max_tokens: int, temperature: float,
                 seed: int, cache_prefix_messages: int) -> None:
        from autodbg.llm.sampling import Sampler

        if self.llm is None:
            raise RuntimeError("no model loaded")
        started = time.monotonic()
        llm = self.llm
        tokens = self.tokens_for(messages)
        if len(tokens) + max_tokens > llm.n_ctx():
            raise RuntimeError(f"prompt of {len(tokens)} tokens does not fit the context of {llm.n_ctx()}")
        sampler = Sampler(llm, grammar, temperature, seed)  # first: an invalid grammar changes nothing
        try:
            live = _common_prefix(llm._input_ids.tolist(), tokens)  # already in the KV cache
            from_disk = False
            prefix: list[int] = []
            if cache_prefix_messages and self.state_dir is not None:
                prefix = self.tokens_for(messages[:cache_prefix_messages], generation_prompt=False)
                if tokens[:len(prefix)] == prefix:
                    from_disk = self.restore_or_save_prefix(prefix)
                else:
                    prefix = []  # the template renders the prefix differently inside the whole prompt
            kept = self.keep_prefix(tokens)
            llm.eval(tokens[kept:])
            prompt_seconds = time.monotonic() - started
            reused = kept if from_disk else min(live, kept)  # not the prefix just evaluated to save it
            decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")  # a character may span tokens
            parts: list[str] = []

            def emit(token: int) -> None:
                text = decoder.decode(llm.detokenize([token]))
                if text:
                    parts.append(text)
                    self.reply({"kind": "token", "text": text})

            finish, generated, drafted, accepted = self.generate(sampler, Lookup(tokens), max_tokens, emit)
        finally:
            sampler.close()
        self.reply({
            "kind": "done", "text": "".join(parts), "finish_reason": finish,
            "prompt_tokens": len(tokens), "prompt_tokens_evaluated": len(tokens) - reused,
            "prompt_tokens_reused": reused,
            "completion_tokens": generated, "drafted": drafted, "accepted": accepted,
            "system_prompt_from_disk": from_disk,
            "system_prompt_tokens": len(prefix), "grammar_refusals": sampler.refused,
            "seconds": round(time.monotonic() - started, 3), "prompt_seconds": round(prompt_seconds, 3),
        })

    def generate(self, sampler, lookup: Lookup, max_tokens: int, emit) -> tuple[str, int, int, int]:
        """Sample up to MAX_TOKENS tokens after the evaluated prompt, passing each to EMIT; returns
        (finish reason, tokens made, tokens drafted, drafts the model took).

        Each token is evaluated in one batch with what followed its context last time (LOOKUP's
        draft, autodbg.llm.lookup), with logits at every position: the draft tokens the sampler
        picks anyway -- the same sampler, at the same positions -- are made without a decode step
        each, so the reply is what it would have been, sooner. The positions of drafts not taken
        are forgotten."""
        import llama_cpp

        llm = self.llm

        def end(token: int) -> bool:
            return llama_cpp.llama_vocab_is_eog(llm._model.vocab, token)

        generated = drafted = accepted = 0
        token = sampler.sample()
        while not end(token):
            emit(token)
            lookup.add(token)
            generated += 1
            if generated == max_tokens:
                return "length", generated, drafted, accepted
            draft = lookup.draft(max_tokens - generated - 1)
            base = llm.n_tokens
            _evaluate_all(llm, [token, *draft])  # the logits at position i follow draft[:i]
            drafted += len(draft)
            kept = 0
            token = sampler.sample(0)
            while kept < len(draft) and token == draft[kept] and not end(token):
                emit(token)
                lookup.add(token)
                generated += 1
                kept += 1
                if generated == max_tokens:
                    break
                token = sampler.sample(kept)
            accepted += kept
            _forget_after(llm, base + 1 + kept)
            if generated == max_tokens:
                return "length", generated, drafted, accepted
        return "stop", generated, drafted, accepted

    def keep_prefix(self, tokens: list[int]) -> int:
        """Keep the KV cache's longest prefix of TOKENS, but at least the last token is evaluated:
        its logits are what the first sample reads. Returns the tokens kept."""
        llm = self.llm
        keep = min(_common_prefix(llm._input_ids.tolist(), tokens), len(tokens) - 1)
        if keep > 0 and llm._ctx.kv_cache_seq_rm(-1, keep, -1):
            llm.n_tokens = keep
            return keep
        llm.reset()
        return 0

    # --- prompt state on disk ----------------------------------------------------------------

    def state_path(self, prefix: list[int]) -> Path:
        digest = hashlib.sha256((self.state_key + "|" + ",".join(map(str, prefix))).encode()).hexdigest()[:32]
        return self.state_dir / f"{digest}.llstate"

    def restore_or_save_prefix(self, prefix: list[int]) -> bool:
        """Make the KV cache hold PREFIX: from disk when a previous crash saved it (True), else
        by evaluating it now and saving it for the next crash (False)."""
        import llama_cpp

        llm = self.llm
        if _common_prefix(llm._input_ids.tolist(), prefix) == len(prefix):
            return False  # already live in this process
        path = self.state_path(prefix)
        if path.exists():
            capacity = llm.n_ctx()
            tokens_out = (llama_cpp.llama_token * capacity)()
            count = ctypes.c_size_t(0)
            if llama_cpp.llama_state_load_file(llm._ctx.ctx, str(path).encode(), tokens_out, capacity,
                                               ctypes.byref(count)) and list(tokens_out[:count.value]) == prefix:
                llm.n_tokens = count.value
                llm.input_ids[:count.value] = prefix
                llm._requires_eval = True
                os.utime(path)  # most recently used survives pruning
                return True
            llm.reset()
        llm.reset()
        llm.eval(prefix)
        array = (llama_cpp.llama_token * len(prefix))(*prefix)
        try:
            with replacing(path) as tmp:  # atomic: concurrent writers each replace with a whole file
                if not llama_cpp.llama_state_save_file(llm._ctx.ctx, str(tmp).encode(), array, len(prefix)):
                    raise OSError(f"llama.cpp could not write {tmp}")
            prune(self.state_dir, self.state_limit)
        except (OSError, AutodbgError):
            pass  # not kept: the next crash evaluates the prefix again
        return False


def usable_state_dir(state_dir: str | None) -> Path | None:
    """STATE_DIR as a private directory of ours (llama.cpp opens files there by name), or None:
    then no prompt state is kept on disk."""
    if not state_dir:
        return None
    try:
        return private_dir(Path(state_dir))
    except (OSError, AutodbgError):
        return None


def prune(directory: Path, limit: int) -> None:
    """Keep the saved states under LIMIT bytes, dropping the least recently used. Only regular
    files directly in DIRECTORY count or go: a symlink there is never followed nor removed."""
    files = []
    for p in private_dir(directory).glob("*.llstate"):
        try:
            st = p.lstat()
        except FileNotFoundError:
            continue
        if stat.S_ISREG(st.st_mode):
            files.append((st.st_mtime, st.st_size, p))
    total = sum(size for _, size, _ in files)
    for _, size, p in sorted(files):
        if total <= limit:
            break
        p.unlink(missing_ok=True)
        total -= size


def _evaluate_all(llm, tokens: list[int]) -> None:
    """Evaluate TOKENS after the KV cache's tokens in one batch, keeping the logits of every position
    (llama_cpp.Llama.eval keeps only the last one's)."""
    llm._ctx.kv_cache_seq_rm(-1, llm.n_tokens, -1)
    llm._batch.set_batch(batch=tokens, n_past=llm.n_tokens, logits_all=True)
    llm._ctx.decode(llm._batch)
    llm.input_ids[llm.n_tokens:llm.n_tokens + len(tokens)] = tokens
    llm.n_tokens += len(tokens)


def _forget_after(llm, keep: int) -> None:
    """Drop the KV cache's positions from KEEP on (drafts the model did not take)."""
    if keep < llm.n_tokens:
        llm._ctx.kv_cache_seq_rm(-1, keep, -1)
        llm.n_tokens = keep


def _common_prefix(a: list[int], b: list[int]) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


REQUESTS = {
    "load": ("path", "n_ctx", "threads", "state_key", "state_dir", "state_limit"),
    "complete": ("messages", "grammar", "max_tokens", "temperature", "seed", "cache_prefix_messages"),
    "count_tokens": ("messages",),
}


def main() -> int:
    channel = Channel(0, os.dup(1))
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)

    def reply(message: dict) -> None:
        channel.send(**message)

    worker = Worker(reply)
    handlers = {"load": lambda r: reply(worker.load(**r)), "complete": lambda r: worker.complete(**r),
                "count_tokens": lambda r: reply(worker.count_tokens(**r))}
    while True:
        try:
            request = channel.receive(REQUESTS)
        except ChannelClosed:
            return 0
        except ChannelError as exc:
            reply({"kind": "error", "error": str(exc)})
            continue
        kind = request.pop("kind")
        try:
            handlers[kind](request)
        except Exception as exc:
            reply({"kind": "error", "error": f"{type(exc).__name__}: {exc}".splitlines()[0][:500]})


if __name__ == "__main__":
    sys.exit(main())
