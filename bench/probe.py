"""What a probe costs: fork + sandbox set-up + a trivial function + its reply, in ms, for a small
parent and for one holding ~300 MB of Python objects (the copy-on-write image), and what each
sandbox layer adds to it. Not a model benchmark. Usage: python bench/probe.py [RUNS]
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from autodbg.probe.fork import run_in_probe  # noqa: E402
from autodbg.probe.sandbox import Limits, layers  # noqa: E402
from autodbg.probe import sandbox  # noqa: E402


def summary(samples_ms: list[float]) -> str:
    ordered = sorted(samples_ms)
    p90 = ordered[int(0.9 * (len(ordered) - 1))]
    return f"median {statistics.median(ordered):7.2f} ms   p90 {p90:7.2f} ms"


def bare_fork_ms() -> float:
    """fork, a one-byte reply over a pipe, exit, reap: the floor under any probe."""
    start = time.perf_counter()
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.write(write_fd, b"1")
        os._exit(0)
    os.close(write_fd)
    os.read(read_fd, 1)
    os.close(read_fd)
    os.waitpid(pid, 0)
    return (time.perf_counter() - start) * 1000


def probe_ms(function) -> float:
    outcome = run_in_probe(function, deadline=10)
    assert outcome.status == "ok", outcome
    return outcome.seconds * 1000


def layer_costs_ms() -> dict[str, float]:
    """Each layer's set-up time, measured inside one bare fork (in the order enter applies them)."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        costs = {}
        for name, step in sandbox.steps(10, Limits(), {write_fd}):
            start = time.perf_counter()
            try:
                step()
            except OSError:
                pass
            costs[name] = (time.perf_counter() - start) * 1000
        os.write(write_fd, json.dumps(costs).encode())
        os._exit(0)
    os.close(write_fd)
    with os.fdopen(read_fd, "rb") as pipe:
        data = pipe.read()
    os.waitpid(pid, 0)
    return json.loads(data)


def measure(label: str, runs: int, walk) -> None:
    rss = int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE") >> 20
    print(f"{label} (RSS {rss} MiB), {runs} runs each:")
    for name, sample in (("bare fork + pipe + reap", bare_fork_ms),
                         ("run_in_probe(lambda: 1)", lambda: probe_ms(lambda: 1)),
                         ("run_in_probe(walk every object)", lambda: probe_ms(walk))):
        for _ in range(3):  # warm up
            sample()
        print(f"  {name:<34} {summary([sample() for _ in range(runs)])}")
    costs = [layer_costs_ms() for _ in range(runs)]
    for name in costs[0]:
        print(f"    layer {name:<28} {summary([c[name] for c in costs])}")


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    print(f"Python {sys.version.split()[0]}; layers here: "
          + ", ".join(layer.name for layer in layers() if layer.available))
    objects: list = []
    measure("small parent", runs, lambda: sum(1 for _ in objects))
    # ~300 MB: dicts holding a str and an int each, the shape of ordinary program state
    objects = [{"name": f"item {i}", "value": i} for i in range(1_300_000)]
    measure("parent holding ~300 MB of Python objects", runs, lambda: sum(len(o) for o in objects))


if __name__ == "__main__":
    main()
