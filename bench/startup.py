"""What autodbg's start-up hook costs every Python program: `python -c pass` with and without it.

Builds the wheel, makes three venvs that differ only in autodbg (absent / installed but not enabled
/ enabled), runs `python -c pass` in each in turn, and prints medians. Target: enabled ≤ 1.01 × absent.
Also prints the import time of the hook module, _autodbg_hook (-X importtime), and the in-process
cost of import + install(). Needs hatchling (./install.sh --dev). Usage: python bench/startup.py [RUNS]
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


def make_venv(path: Path, wheel: Path | None, enabled: bool, env: dict[str, str]) -> str:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    python = str(path / "bin" / "python")
    if wheel:  # pip compiles the .pyc files, as in any normal install
        subprocess.run([sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-deps",
                        str(wheel)], check=True, env=env)
    if enabled:
        (path / "autodbg.enabled").write_text("")
    return python


def run_ms(python: str, env: dict[str, str]) -> tuple[float, float]:
    """(wall, CPU) milliseconds of one `python -c pass`. CPU time (user + system, from wait4) is
    the steadier number on a busy machine: waiting for a core does not count."""
    started = time.perf_counter()
    proc = subprocess.Popen([python, "-c", "pass"], env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = (time.perf_counter() - started) * 1000
    proc.returncode = os.waitstatus_to_exitcode(status)
    assert proc.returncode == 0
    return wall, (usage.ru_utime + usage.ru_stime) * 1000


def boot_import_us(python: str, env: dict[str, str]) -> float:
    """Self time of importing the start-up hook's modules, from -X importtime."""
    err = subprocess.run([python, "-X", "importtime", "-c", "pass"], env=env, check=True,
                         capture_output=True, text=True).stderr
    # Lines look like: "import time:       123 |        456 | _autodbg_hook"
    return sum(int(line.split("|")[0].split(":")[1]) for line in err.splitlines()
               if line.split("|")[-1].strip().startswith(("_autodbg_hook", "autodbg")))


def import_and_install_us(python: str, purelib: str, env: dict[str, str]) -> float:
    """import _autodbg_hook + install(), timed inside the process (-S: not done at start-up;
    os imported first, as site does)."""
    code = (f"import os, sys, time; sys.path.append({purelib!r}); t = time.perf_counter()\n"
            "import _autodbg_hook as h; h.install()\n"
            "print((time.perf_counter() - t) * 1e6); assert sys._autodbg_hooked")
    out = subprocess.run([python, "-S", "-c", code], env={**env, "AUTODBG": "1"}, check=True,
                         capture_output=True, text=True).stdout
    return float(out)


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    # Without PYTHONDONTWRITEBYTECODE, which would make pip skip the .pyc files and every start
    # compile the hook again.
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("AUTODBG") and k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                        "-w", str(tmp), str(REPO)], check=True)
        wheel = next(tmp.glob("autodbg-*.whl"))
        pythons = {
            "without autodbg": make_venv(tmp / "absent", None, False, env),
            "installed, not enabled": make_venv(tmp / "disabled", wheel, False, env),
            "installed and enabled": make_venv(tmp / "enabled", wheel, True, env),
        }
        enabled = pythons["installed and enabled"]
        purelib = subprocess.run([enabled, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                                 env=env, check=True, capture_output=True, text=True).stdout.strip()
        for python in pythons.values():  # warm the page cache and write .pyc files
            for _ in range(5):
                run_ms(python, env)
        times = {name: [] for name in pythons}
        for _ in range(runs):  # in turn, so that load from elsewhere hits all three alike
            for name, python in pythons.items():
                times[name].append(run_ms(python, env))
        imports = [boot_import_us(enabled, env) for _ in range(50)]
        installs = [import_and_install_us(enabled, purelib, env) for _ in range(50)]

    base_wall, base_cpu = (statistics.median(column) for column in zip(*times["without autodbg"]))
    print(f"python -c pass, {runs} runs each, in turn; medians:")
    for name, samples in times.items():
        wall, cpu = (statistics.median(column) for column in zip(*samples))
        print(f"  {name:<24} wall {wall:6.2f} ms (ratio {wall / base_wall:.3f})"
              f"   CPU {cpu:6.2f} ms (ratio {cpu / base_cpu:.3f}, +{(cpu - base_cpu) * 1000:.0f} us)")
    print(f"import of the hook's modules (-X importtime self, median of 50): "
          f"{statistics.median(imports):.0f} us")
    print(f"import + install() timed in-process (median of 50): {statistics.median(installs):.0f} us")


if __name__ == "__main__":
    main()
