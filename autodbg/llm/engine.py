"""The parent side of the model worker: start it, talk to it, bound it in time, kill it.

Knows nothing of debuggers: it sends chat messages and a grammar, and gets text and counters
back. A dead or silent worker becomes an `EngineError`, never a lost report.
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Callable

from autodbg.channel import Channel, ChannelClosed, ChannelError, ChannelTimeout
from autodbg.files import state_dir
from autodbg.llm.model import Completion, EngineError, Model

STATE_LIMIT = 256 << 20  # bytes of saved prompt state kept on disk


def missing_local_engine() -> str | None:
    """Why the local engine cannot run here, or None. llama-cpp-python is the `local` extra: it is
    built from source, so a plain `pip install autodbg` (evidence, search, remote engine) needs no
    compiler. Found without importing it: that takes a second, and the worker does it."""
    import importlib.util

    if importlib.util.find_spec("llama_cpp") is None:
        return ("the local engine needs llama-cpp-python: pip install 'autodbg[local]' "
                "(or AUTODBG_ENGINE=remote for a model server)")
    return None


def free_cores() -> int:
    """Cores this process may use that nothing else is running on right now.

    ggml's threads spin-wait for each other: two threads on two busy cores run 20x slower than
    one, so count what is runnable at this instant (not the 1-minute load average, which still
    remembers the program that just crashed).
    """
    try:
        allowed = len(os.sched_getaffinity(0))
    except AttributeError:
        allowed = os.cpu_count() or 1
    try:
        with open("/proc/loadavg") as f:
            running = int(f.read().split()[3].split("/")[0]) - 1  # minus this process
    except (OSError, ValueError, IndexError):
        running = round(os.getloadavg()[0]) if hasattr(os, "getloadavg") else 0
    return max(1, allowed - max(0, running))


def context_size_for(model_size: int, trained: int, ceiling: int = 4096) -> int:
    """Context tokens to ask for: up to CEILING (the evidence and a few turns fit; more only costs
    time and memory), within what the model was trained on, and smaller when memory is short."""
    n_ctx = min(ceiling, trained)
    try:
        with open("/proc/meminfo") as f:
            available = next(int(line.split()[1]) * 1024 for line in f if line.startswith("MemAvailable:"))
    except (OSError, StopIteration, ValueError):
        return n_ctx
    if available < model_size + (1 << 30):  # weights plus a margin for the KV cache and Python
        n_ctx = min(n_ctx, 2048)
    return n_ctx


# Replies of the worker, by kind, and the fields each carries (see autodbg.llm.worker).
REPLIES = {
    "loaded": ("load_seconds", "n_ctx", "n_ctx_train", "chat_template"),
    "token": ("text",),
    "done": tuple(Completion.__dataclass_fields__),
    "tokens": ("tokens",),
    "error": ("error",),
}


class Engine(Model):
    """One worker process holding one loaded model."""

    def __init__(self, model_path: str | os.PathLike, *, threads: int, n_ctx: int, state_key: str = "") -> None:
        self.model_path = str(model_path)
        self.threads = threads
        self.n_ctx = n_ctx
        self.state_key = state_key
        self.process: subprocess.Popen | None = None
        self.channel: Channel | None = None
        self.info: dict | None = None

    # --- lifecycle ---------------------------------------------------------------------------

    def start(self) -> None:
        """Start the worker and ask it to load the model; returns at once (loading overlaps
        with whatever the caller does next)."""
        env = {**os.environ, "AUTODBG": "0", "HF_HUB_DISABLE_PROGRESS_BARS": "1"}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "autodbg.llm.worker"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, env=env, close_fds=True,
            start_new_session=True,  # the terminal's Ctrl-C reaches us, and we decide
        )
        self.channel = Channel(self.process.stdout.fileno(), self.process.stdin.fileno())
        self._send("load", path=self.model_path, n_ctx=self.n_ctx, threads=self.threads, state_key=self.state_key,
                   state_dir=str(state_dir()), state_limit=STATE_LIMIT)

    def wait_loaded(self, deadline: float) -> dict:
        if self.info is None:
            reply = self._receive(deadline)
            if reply["kind"] != "loaded":
                raise EngineError(f"model failed to load: {reply.get('error', 'unexpected reply')}")
            self.info = reply
        return self.info

    def close(self) -> None:
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.kill()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        for stream in (self.process.stdin, self.process.stdout):
            try:
                stream.close()
            except OSError:
                pass
        self.process = None

    # --- requests ----------------------------------------------------------------------------

    def complete(self, messages: list[dict], *, grammar: str | None, max_tokens: int, deadline: float,
                 seed: int = 0, cache_prefix_messages: int = 0, temperature: float = 0.2,
                 on_token: Callable[[str], None] | None = None) -> Completion:
        self.wait_loaded(deadline)
        self._send("complete", messages=messages, grammar=grammar, max_tokens=max_tokens, temperature=temperature,
                   seed=seed, cache_prefix_messages=cache_prefix_messages)
        while True:
            reply = self._receive(deadline)
            if reply["kind"] == "token":
                if on_token is not None:
                    on_token(reply["text"])
                continue
            if reply["kind"] == "done":
                return Completion(**{k: reply[k] for k in Completion.__dataclass_fields__})
            raise EngineError(f"model error: {reply.get('error', 'unexpected reply')}")

    def context_size(self, deadline: float) -> int:
        return self.wait_loaded(deadline)["n_ctx"]

    def count_tokens(self, messages: list[dict], deadline: float) -> int:
        self.wait_loaded(deadline)
        self._send("count_tokens", messages=messages)
        reply = self._receive(deadline)
        if reply["kind"] != "tokens":
            raise EngineError(f"model error: {reply.get('error', 'unexpected reply')}")
        return reply["tokens"]

    # --- channel -----------------------------------------------------------------------------

    def _send(self, kind: str, **fields) -> None:
        if self.process is None or self.process.poll() is not None:
            raise EngineError(self._death())
        try:
            self.channel.send(kind, **fields)
        except ChannelClosed:
            raise EngineError(self._death()) from None

    def _receive(self, deadline: float) -> dict:
        if self.process is None:
            raise EngineError("model worker is not running")
        try:
            return self.channel.receive(REPLIES, deadline)
        except ChannelTimeout:
            self.close()
            raise EngineError("model did not answer in time") from None
        except ChannelClosed:
            raise EngineError(self._death()) from None
        except ChannelError as exc:
            self.close()
            raise EngineError(f"model worker sent a bad reply: {exc}") from None

    def _death(self) -> str:
        if self.process is None:
            return "model worker is not running"
        try:
            code = self.process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return "model worker stopped answering"
        self.process = None
        if code < 0:
            return f"model worker died (signal {-code})"
        return f"model worker exited with status {code}"
