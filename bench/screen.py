"""How much autodbg prints after the traceback: lines per crash on the dev corpus at 80 columns,
the default output and the verbose one, and the autodbg section of a failing pytest suite.

    .venv/bin/python bench/screen.py [--corpus bench/corpus/dev] [-k GLOB] [-j 2]

No model runs (AUTODBG_MODEL=none): it measures the layout, not the diagnosis. Each case runs
once with AUTODBG=0 and once per output with autodbg; the lines after the traceback are the
difference, so the measure does not depend on what autodbg's output looks like.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from autodbg import corpus  # noqa: E402
from autodbg.bench import case_env  # noqa: E402

TIMEOUT = 60.0

# Two failing tests: one with a cause away from the assert, one plain crash.
FAILING_SUITE = '''
def average(scores):
    total = sum(scores[1:])
    return total / len(scores)


def parse_prices(rows):
    return {row["sku"]: row["price"] for row in rows}


def test_average():
    assert average([2, 4, 6]) == 4


def test_prices():
    rows = [{"sku": "A-1", "cost": 3.5}]
    assert parse_prices(rows)["A-1"] == 3.5
'''


def lines_after_traceback(case, verbose: bool) -> int:
    """How many more stderr lines the case's crash prints with autodbg than without it."""
    with tempfile.TemporaryDirectory(prefix="autodbg-screen-") as tmp, corpus.scratch_copy(case) as work:
        env = case_env("none", Path(tmp) / "report.json", TIMEOUT)
        env.update(COLUMNS="80", AUTODBG_VERBOSE="1" if verbose else "0")
        plain = corpus.run_crash(work, {**env, "AUTODBG": "0"}, TIMEOUT * 2)
        run = corpus.run_crash(work, env, TIMEOUT * 2)
    return len(run.stderr.splitlines()) - len(plain.stderr.splitlines())


def pytest_section() -> tuple[int, int]:
    """(failures, lines of the autodbg sections) of a failing suite at 80 columns."""
    with tempfile.TemporaryDirectory(prefix="autodbg-screen-") as tmp:
        Path(tmp, "test_suite.py").write_text(textwrap.dedent(FAILING_SUITE))
        env = {k: v for k, v in os.environ.items() if not k.startswith("AUTODBG")}
        env.update(AUTODBG_MODEL="none", COLUMNS="80", NO_COLOR="1")
        out = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly",
                              "--autodbg", "test_suite.py"], cwd=tmp, env=env, capture_output=True, text=True,
                             timeout=TIMEOUT * 4).stdout
    failures, lines, inside = 0, 0, False
    for line in out.splitlines():
        if "Captured autodbg" in line or line.startswith("-" * 10) and "autodbg" in line:
            failures, inside = failures + 1, True
            continue
        if inside and (line.startswith("___") or line.startswith("===") or line.startswith("---")):
            inside = False
        lines += inside
    return failures, lines


def distribution(values: list[int]) -> str:
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]
    return f"median {statistics.median(ordered):g}, p90 {p90}, max {ordered[-1]} (n={len(ordered)})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=str(Path(__file__).resolve().parent / "corpus" / "dev"))
    parser.add_argument("-k", dest="pattern", help="only the cases matching this glob")
    parser.add_argument("-j", dest="jobs", type=int, default=2)
    args = parser.parse_args()
    cases = corpus.find_cases([Path(args.corpus)], args.pattern)
    for verbose in (False, True):
        with ThreadPoolExecutor(args.jobs) as pool:
            counts = list(pool.map(lambda case: lines_after_traceback(case, verbose), cases))
        print(f"{'verbose' if verbose else 'default'} lines after the traceback: {distribution(counts)}", flush=True)
    failures, lines = pytest_section()
    per = f"{lines / failures:.1f}" if failures else "-"
    print(f"pytest: {failures} failures, {lines} lines of autodbg sections ({per} per failure)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
