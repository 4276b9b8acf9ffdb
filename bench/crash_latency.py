"""How long after a crash autodbg starts talking: from the exception being raised to the first
line of autodbg's output on stderr, with AUTODBG=1 AUTODBG_MODEL=none (evidence only).

The crashing program prints the time (CLOCK_MONOTONIC, the same for every process here) just
before it raises; this script stamps each stderr line as it arrives. The hook is installed as
autodbg.pth does it, its line run as a sitecustomize. Usage: python bench/crash_latency.py [RUNS]
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

CRASH = """\
import time
def divide(a, b):
    return a / b
print(time.monotonic_ns(), flush=True)
divide(1, 0)
"""


def one_crash(script: Path, env: dict[str, str]) -> tuple[float, float, float]:
    """(traceback, autodbg, exit) in ms after the raise."""
    proc = subprocess.Popen([sys.executable, str(script)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    raised = int(proc.stdout.readline())
    first_line = autodbg_line = None
    for line in proc.stderr:
        now = time.monotonic_ns()
        first_line = first_line or now
        if autodbg_line is None and "autodbg" in line:
            autodbg_line = now
    proc.wait()
    exited = time.monotonic_ns()
    if autodbg_line is None:
        raise SystemExit("no autodbg output: is autodbg/pipeline.py there?")
    return tuple((stamp - raised) / 1e6 for stamp in (first_line, autodbg_line, exited))


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "sitecustomize.py").write_text((REPO / "autodbg" / "_hook" / "autodbg.pth").read_text())
        script = tmp / "crash.py"
        script.write_text(CRASH)
        path = os.pathsep.join(filter(None, [str(tmp), str(REPO), os.environ.get("PYTHONPATH")]))
        env = {**os.environ, "AUTODBG": "1", "AUTODBG_MODEL": "none", "NO_COLOR": "1", "PYTHONPATH": path}
        one_crash(script, env)  # warm up: .pyc files, page cache
        samples = [one_crash(script, env) for _ in range(runs)]
    print(f"crash with AUTODBG_MODEL=none, {runs} runs; ms after the exception was raised:")
    for name, column in zip(("first traceback line", "first autodbg line", "process exit"), zip(*samples)):
        print(f"  {name:<21} median {statistics.median(column):7.1f}   min {min(column):7.1f}"
              f"   max {max(column):7.1f}")


if __name__ == "__main__":
    main()
