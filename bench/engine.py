"""Model engine speed on this machine: worker start, model load, time to first token cold and
warm (with and without the system prompt's state on disk), prompt and generation tokens/s (free,
and under the answer grammars: a free JSON answer, and a line's corrected code), and peak memory of the parent and the worker. Prints numbers; run by hand, one model at a time:

    python bench/engine.py /work/bench-models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf [...]
"""

from __future__ import annotations

import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from autodbg.frames.core import PostMortem  # noqa: E402
from autodbg.debugger.grammar import answer_grammar, answer_max_chars, code_grammar, code_max_chars  # noqa: E402
from autodbg.debugger.session import Session  # noqa: E402
from autodbg.evidence import build_dossier  # noqa: E402
from autodbg.investigate.seen import Seen  # noqa: E402
from autodbg.investigate.strategies import rewrite_request  # noqa: E402
from autodbg.investigate.prompt import SYSTEM_PROMPT, dossier_text  # noqa: E402
from autodbg.llm.engine import Engine, free_cores  # noqa: E402


def sample_crash() -> tuple[list[dict], dict]:
    """The first prompt of a real investigation (system prompt and the dossier of a real crash),
    and the source lines the answer grammar lets the model quote (quote -> ShownLine)."""
    def mean(values):
        total = sum(values)
        return total / len(values)

    def load(text):
        return [int(x) for x in text.split(",")][1:]

    try:
        mean(load("42"))
    except ZeroDivisionError as exc:
        session = Session(PostMortem(exc))
        dossier = build_dossier(session)
    return ([{"role": "system", "content": SYSTEM_PROMPT},
             {"role": "user", "content": dossier_text(dossier) + "\n\nWhat is your first command?"}],
            Seen(None, dossier).lines)  # no live state: the lines the evidence showed


def peak_rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def first_token(model: Path, threads: int, cache_prefix: bool) -> dict:
    """A fresh worker (as at a crash): spawn, load, then the first token of the first prompt."""
    started = time.monotonic()
    engine = Engine(model, threads=threads, n_ctx=4096, state_key=f"bench:{model}")
    engine.start()
    info = engine.wait_loaded(time.monotonic() + 300)
    loaded = time.monotonic()
    done = engine.complete(sample_crash()[0], grammar=None, max_tokens=1, deadline=time.monotonic() + 600,
                           cache_prefix_messages=1 if cache_prefix else 0)
    finished = time.monotonic()
    worker_rss = peak_rss_kib(engine.process.pid)
    engine.close()
    return {"load": info["load_seconds"], "spawn_and_load": loaded - started, "ttft": finished - loaded,
            "crash_to_first_token": finished - started, "evaluated": done.prompt_tokens_evaluated,
            "prompt_tokens": done.prompt_tokens, "from_disk": done.system_prompt_from_disk,
            "worker_rss_mib": worker_rss / 1024}


def generation_speed(model: Path, threads: int) -> tuple[float, float, float, str, float, str]:
    """Prompt tokens/s; generation tokens/s free, under the answer grammar and under the code
    grammar of a line's rewrite (a sampled token the grammar refuses costs a grammar match of the
    whole vocabulary)."""
    engine = Engine(model, threads=threads, n_ctx=4096)
    engine.start()
    messages, shown = sample_crash()
    done = engine.complete(messages, grammar=None, max_tokens=1, deadline=time.monotonic() + 600)
    prompt_speed = done.prompt_tokens_evaluated / done.seconds
    messages = messages + [{"role": "assistant", "content": "Thought: check the caller."},
                           {"role": "user", "content": "Explain the crash in detail."}]
    done = engine.complete(messages, grammar=None, max_tokens=96, temperature=0.0, deadline=time.monotonic() + 600)
    free_speed = made_per_second(done)
    messages = messages[:2] + [{"role": "user", "content": "Give the final answer as JSON now."}]
    done = engine.complete(messages, grammar=answer_grammar(list(shown)), max_tokens=answer_max_chars(list(shown)),
                           temperature=0.0, deadline=time.monotonic() + 600)
    answer = (made_per_second(done), f"{done.grammar_refusals} of {done.completion_tokens} tokens refused")
    line = next(line for line in shown.values() if "total / len(values)" in line.code)  # the crash line
    messages = messages[:2] + [{"role": "user", "content": rewrite_request(line)}]
    done = engine.complete(messages, grammar=code_grammar(line.code), max_tokens=code_max_chars(line.code),
                           temperature=0.0, deadline=time.monotonic() + 600)
    engine.close()
    code = (made_per_second(done),
            f"{done.grammar_refusals} of {done.completion_tokens} tokens refused, {done.text!r}")
    return prompt_speed, free_speed, *answer, *code


def made_per_second(done) -> float:
    """Tokens made per second of making them (the new part of the prompt read apart)."""
    return done.completion_tokens / max(done.seconds - done.prompt_seconds, 1e-9)


def main(paths: list[str]) -> None:
    threads = int(os.environ.get("AUTODBG_THREADS") or free_cores())
    print(f"threads={threads} cores={len(os.sched_getaffinity(0))}")
    for path in map(Path, paths):
        with tempfile.TemporaryDirectory() as cache:
            os.environ["XDG_CACHE_HOME"] = cache  # empty prompt-state cache: the first run is cold
            no_disk = first_token(path, threads, cache_prefix=False)
            cold = first_token(path, threads, cache_prefix=True)  # evaluates and saves the system prompt
            warm = [first_token(path, threads, cache_prefix=True) for _ in range(3)]
        prompt_tps, gen_tps, grammar_tps, refusals, code_tps, code_refusals = generation_speed(path, threads)
        w = {k: statistics.median(r[k] for r in warm) for k in ("spawn_and_load", "ttft", "crash_to_first_token", "evaluated")}
        print(f"\n{path.name}")
        print(f"  spawn+load (cold page cache first run)   {no_disk['spawn_and_load']:.2f} s  (llama load {no_disk['load']:.2f} s)")
        print(f"  spawn+load (warm page cache)             {w['spawn_and_load']:.2f} s")
        print(f"  first token, no disk state               {no_disk['ttft']:.2f} s  ({no_disk['evaluated']} of {no_disk['prompt_tokens']} prompt tokens evaluated)")
        print(f"  first token, saving the state            {cold['ttft']:.2f} s  ({cold['evaluated']} evaluated)")
        print(f"  first token, system prompt from disk     {w['ttft']:.2f} s  ({w['evaluated']:.0f} evaluated, from_disk={warm[0]['from_disk']})  median of 3")
        print(f"  crash->first token, warm                 {w['crash_to_first_token']:.2f} s")
        print(f"  prompt {prompt_tps:.0f} tokens/s, generation {gen_tps:.1f} tokens/s, "
              f"under the answer grammar {grammar_tps:.1f} tokens/s ({refusals}), "
              f"under the code grammar {code_tps:.1f} tokens/s ({code_refusals})")
        print(f"  peak RSS: worker {max(r['worker_rss_mib'] for r in warm + [cold, no_disk]):.0f} MiB, "
              f"parent {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
