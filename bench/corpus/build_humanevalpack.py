"""Build crash cases (format: shared/CORPUS.md) from HumanEvalPack's Python part (HumanEvalFix).

Each case's program.py is the task's function header, its human-written buggy body and its tests
(which end by calling `check(entry_point)`). The buggy lines are where the buggy body differs from
the canonical one; the fix is the canonical text of that hunk. A task is kept only when that
difference is one hunk, the program crashes (or hangs), and the written case passes verify_case.

    python3 bench/corpus/build_humanevalpack.py [--data FILE] [--out DIR]
"""

from __future__ import annotations

import argparse
import ast
import difflib
import json
import shutil
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))  # so the script runs from a checkout without installing autodbg

from autodbg.corpus import load_case, parse_traceback, run_shell, verify_case  # noqa: E402

DEFAULT_DATA = REPO.parent / "shared" / "data" / "humanevalpack-python.jsonl"
DEFAULT_OUT = REPO / "bench" / "corpus" / "humanevalpack"
PROGRAM = "program.py"
# Every HumanEval program ends within a second; one still running after this many seconds hangs.
HANG_SECONDS = 5
# run.sh of a hanging program interrupts it after this many seconds.
SIGINT_AFTER = 2

WRITTEN = "written"
NOT_ONE_HUNK = "skipped: the bug is not one hunk of replaced or deleted lines"
NO_CRASH = "skipped: runs to the end without crashing"
NO_TRACEBACK = "skipped: exits non-zero without a traceback"
NOT_VERIFIED = "skipped: the written case fails verification"


def buggy_hunk(buggy: list[str], canonical: list[str]) -> tuple[int, int, list[str]] | None:
    """(start, stop, replacement) when the lines of BUGGY differ from CANONICAL in exactly one hunk
    where BUGGY[start:stop] (not empty) become REPLACEMENT (possibly empty); else None."""
    changes = [op for op in difflib.SequenceMatcher(None, buggy, canonical, autojunk=False).get_opcodes()
               if op[0] != "equal"]
    if len(changes) != 1 or changes[0][0] not in ("replace", "delete"):
        return None
    _, start, stop, canonical_start, canonical_stop = changes[0]
    return start, stop, canonical[canonical_start:canonical_stop]


def enclosing_function(source: str, line: int) -> str | None:
    """The name of the innermost function whose body holds LINE."""
    names = [(node.lineno, node.name) for node in ast.walk(ast.parse(source))
             if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
             and node.lineno <= line <= node.end_lineno]
    return max(names)[1] if names else None


def frames_up(functions: list[str], buggy_function: str | None) -> int:
    """How many frames above the innermost one (FUNCTIONS is outermost first) the buggy function
    is; -1 when it is not on the stack."""
    for distance, function in enumerate(reversed(functions)):
        if function == buggy_function:
            return distance
    return -1


def write_run_sh(case_dir: Path, hangs: bool) -> None:
    command = f"timeout -s INT {SIGINT_AFTER} python3 {PROGRAM}" if hangs else f"python3 {PROGRAM}"
    (case_dir / "run.sh").write_text(f'cd "$(dirname "$0")"\n{command}\n', encoding="utf-8")


def build_case(task: dict, out: Path) -> str:
    """Write the case for TASK under OUT; return WRITTEN or why it was skipped."""
    number = int(task["task_id"].split("/")[1])
    name = f"python-{number:03d}-{task['entry_point']}"
    case_dir = out / name
    shutil.rmtree(case_dir, ignore_errors=True)  # rebuilding replaces the old case

    buggy = task["buggy_solution"].splitlines()
    hunk = buggy_hunk(buggy, task["canonical_solution"].splitlines())
    if hunk is None:
        return NOT_ONE_HUNK
    start, stop, fixed = hunk
    header_lines = len(task["declaration"].splitlines())
    buggy_line, buggy_line_end = header_lines + start + 1, header_lines + stop
    program = task["declaration"] + task["buggy_solution"] + task["test"].rstrip("\n") + "\n"

    case_dir.mkdir(parents=True)
    (case_dir / PROGRAM).write_text(program, encoding="utf-8")
    write_run_sh(case_dir, hangs=False)
    run = run_shell("sh run.sh", case_dir, None, HANG_SECONDS)
    hangs = run.timed_out
    if hangs:
        write_run_sh(case_dir, hangs=True)
        run = run_shell("sh run.sh", case_dir, None, HANG_SECONDS + SIGINT_AFTER)
    frames, exception = parse_traceback(run.stderr, case_dir)
    user_frames = [frame for frame in frames if frame.file == PROGRAM]
    if run.returncode == 0 or exception is None or not user_frames:
        shutil.rmtree(case_dir)
        return NO_CRASH if run.returncode == 0 else NO_TRACEBACK

    site = user_frames[-1]
    if hangs:
        crash_kind = "hang"
    elif exception == "AssertionError" and site.function == "check":
        crash_kind = "assertion"
    else:
        crash_kind = "exception"
    buggy_function = enclosing_function(program, buggy_line)
    truth = {
        "case": name,
        "corpus": "humanevalpack",
        "source": f"HumanEvalPack (HumanEvalFix) {task['task_id']}, MIT licence, OctoPack project",
        "buggy_file": PROGRAM,
        "buggy_line": buggy_line,
        "buggy_line_end": buggy_line_end,
        "buggy_code": "\n".join(buggy[start:stop]),
        "fixed_code": "\n".join(fixed),
        "acceptable_lines": list(range(buggy_line, buggy_line_end + 1)),
        "exception": exception,
        "crash_kind": crash_kind,
        "crash_cmd": "sh run.sh",
        "test_cmd": "sh run.sh",
        "crash_site": {"file": site.file, "line": site.line},
        "crash_at_buggy_line": buggy_line <= site.line <= buggy_line_end,
        "root_cause_frames_up": frames_up([frame.function for frame in user_frames], buggy_function),
        "description": f"{task['entry_point']}() has a {task['bug_type']} bug "
                       f"({task['failure_symptoms']}), as HumanEvalFix classifies it.",
    }
    (case_dir / "truth.json").write_text(json.dumps(truth, indent=2) + "\n", encoding="utf-8")

    problems = verify_case(load_case(case_dir, out))
    if problems:
        print(f"{name}: {'; '.join(problems)}", file=sys.stderr)
        shutil.rmtree(case_dir)
        return NOT_VERIFIED
    return WRITTEN


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="humanevalpack-python.jsonl")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="folder the cases go in")
    args = parser.parse_args()
    if not args.data.is_file():
        parser.error(f"{args.data}: no such file")
    with open(args.data, encoding="utf-8") as f:
        tasks = [json.loads(line) for line in f if line.strip()]
    outcomes = Counter(build_case(task, args.out) for task in tasks)
    print(f"{outcomes[WRITTEN]} cases written to {args.out} from {len(tasks)} tasks")
    for outcome, count in sorted(outcomes.items()):
        if outcome != WRITTEN:
            print(f"{count:4d} {outcome}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
