"""Crash to summary with the model on a server against the in-process engine: the same model file,
the same real crash, the same settings. Starts `python -m llama_cpp.server` on 127.0.0.1 with
MODEL (it needs llama-cpp-python's [server] extra: ./install.sh --dev), then runs the crashing
program RUNS times with AUTODBG_MODEL=MODEL and RUNS times with AUTODBG_ENGINE=remote, each after
one warm-up run that is not counted (the local engine saves its system prompt's state to disk;
the server fills its prompt cache). Both use all the machine's cores as threads (AUTODBG_THREADS
for the local one), so run it on a quiet machine. Prints seconds from the raise to the exit:

    python bench/remote.py MODEL.gguf [RUNS]
"""

from __future__ import annotations

import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ALIAS = "bench-model"
CONTEXT = 4096  # as the local engine's ceiling (autodbg/crash.py MAX_CONTEXT)
THREADS = os.cpu_count() or 1

CRASH = """\
import time

def mean(values):
    total = sum(values)
    return total / len(values)

def load(text):
    return [int(x) for x in text.split(",")][1:]

scores = load("42")
print(time.monotonic_ns(), flush=True)
print(mean(scores))
"""


def start_server(model: str, log: Path) -> tuple[subprocess.Popen, str, float]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    started = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", model, "--model_alias", ALIAS, "--host", "127.0.0.1",
         "--port", str(port), "--n_ctx", str(CONTEXT), "--n_threads", str(THREADS)],
        stdout=subprocess.DEVNULL, stderr=log.open("wb"), env={**os.environ, "AUTODBG": "0"})
    while proc.poll() is None:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2).close()
            return proc, f"http://127.0.0.1:{port}/v1", time.monotonic() - started
        except OSError:
            time.sleep(0.2)
    raise SystemExit(f"llama_cpp.server exited: {log.read_text(errors='replace')[-1500:]}")


def one_crash(script: Path, env: dict[str, str], report: Path) -> dict:
    """Seconds from the raise to the exit, and what the report says."""
    proc = subprocess.Popen([sys.executable, str(script)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    raised = int(proc.stdout.readline())
    proc.communicate()
    seconds = (time.monotonic_ns() - raised) / 1e9
    result = json.loads(report.read_text())
    return {"seconds": seconds, "model_load": result["timings"].get("model_load", 0.0),
            "turns": [call["seconds"] for call in result["model_calls"]], "diagnosis": result["diagnosis"] is not None,
            "fallback_reason": result["fallback_reason"]}


def measure(name: str, script: Path, env: dict[str, str], report: Path, runs: int) -> None:
    one_crash(script, env, report)  # warm-up, not counted
    samples = [one_crash(script, env, report) for _ in range(runs)]
    seconds = [s["seconds"] for s in samples]
    completions = [t for s in samples for t in s["turns"]]
    reasons = sorted({s["fallback_reason"] for s in samples if s["fallback_reason"]})
    print(f"  {name:<18} median {statistics.median(seconds):6.2f}   min {min(seconds):6.2f}   max {max(seconds):6.2f}"
          f"   model load {statistics.median(s['model_load'] for s in samples):5.2f}"
          f"   per completion {statistics.median(completions) if completions else 0:5.2f} ({len(completions)})"
          f"   diagnoses {sum(s['diagnosis'] for s in samples)}/{runs}"
          + (f"   fallbacks: {'; '.join(reasons)}" if reasons else ""))


def main() -> None:
    if len(sys.argv) not in (2, 3):
        raise SystemExit(__doc__.rsplit("\n\n", 1)[1])
    model, runs = str(Path(sys.argv[1]).resolve()), int(sys.argv[2]) if len(sys.argv) == 3 else 3
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "sitecustomize.py").write_text((REPO / "autodbg" / "_hook" / "autodbg.pth").read_text())
        script = tmp / "crash.py"
        script.write_text(CRASH)
        report = tmp / "report.json"
        path = os.pathsep.join(filter(None, [str(tmp), str(REPO), os.environ.get("PYTHONPATH")]))
        env = {k: v for k, v in os.environ.items() if not k.startswith("AUTODBG")}
        env.update(AUTODBG="1", AUTODBG_REPORT=str(report), NO_COLOR="1", PYTHONPATH=path)
        server, base_url, server_start = start_server(model, tmp / "server.log")
        try:
            print(f"{Path(model).name}: crash → exit in seconds, {runs} runs each after one warm-up, "
                  f"{THREADS} threads (server started in {server_start:.1f} s, not counted)")
            measure("in-process engine", script, {**env, "AUTODBG_MODEL": model, "AUTODBG_THREADS": str(THREADS)},
                    report, runs)
            measure("llama_cpp.server", script, {**env, "AUTODBG_ENGINE": "remote", "AUTODBG_BASE_URL": base_url,
                                                 "AUTODBG_REMOTE_MODEL": ALIAS,
                                                 "AUTODBG_REMOTE_CONTEXT": str(CONTEXT)}, report, runs)
        finally:
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":
    main()
