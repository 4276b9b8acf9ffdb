"""`autodbg bench`: run crash cases with autodbg active and score its diagnoses.

Each case runs in a scratch copy, in the Python that runs this command (its `bin` first on
PATH, so the case's `python3` is this one, with autodbg's hook). The JSON report says what
autodbg concluded; the case's truth says what is right. The corpus is never modified.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import sys
import sysconfig
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from autodbg.errors import AutodbgError
from autodbg.textsafe import say

TEST_TIMEOUT = 60.0  # seconds for a case's test_cmd


def case_timeout(budget: float) -> float:
    """How long a whole case may run: the program, then autodbg's own time budget."""
    return budget * 1.5 + 15


def register(sub) -> None:
    p = sub.add_parser("bench", help="score autodbg on crash cases with known root causes",
                       description="Run every case under CORPUS_DIR with autodbg active and score root-cause "
                                   "line and fix against the case's truth.json.")
    p.add_argument("corpus", nargs="+", type=Path, metavar="CORPUS_DIR")
    p.add_argument("--model", default="none", help="registry id, path to a .gguf, or none (default: none, "
                                                   "the evidence-only baseline)")
    p.add_argument("--repeat", type=int, default=1, help="run each case N times")
    p.add_argument("--jobs", type=int, default=1, help="cases run at once (keep 1 for model timings)")
    p.add_argument("--json", type=Path, dest="json_out", metavar="OUT", help="write every record and the totals here")
    p.add_argument("--filter", metavar="GLOB", help="only cases whose name or path matches")
    p.add_argument("--timeout", type=float, default=60.0, help="autodbg's time budget per crash (AUTODBG_TIMEOUT)")
    p.add_argument("--mode", choices=("hook", "run"), default="hook",
                   help="hook: crashes meet the installed excepthook (post-mortem only); run: cases run under "
                        "`autodbg run`, so the model may set breakpoints, re-run, and fixes are verified")
    p.add_argument("--turns", type=int, default=None,
                   help="debugger commands the model may run (AUTODBG_TURNS); 0 is the one-shot baseline")
    p.add_argument("--verify", action="store_true",
                   help="instead of scoring autodbg, check that every case crashes, and that its fix passes its test")
    p.set_defaults(func=bench_command)


def bench_command(args) -> int:
    from autodbg import corpus

    for root in args.corpus:
        if not root.is_dir():
            raise AutodbgError(f"no such corpus directory: {root}")
    if args.verify:
        return corpus.verify_main(args.corpus, args.filter, jobs=args.jobs)
    if args.repeat < 1 or args.jobs < 1:
        raise AutodbgError("--repeat and --jobs must be at least 1")
    check_hook_installed()
    cases = corpus.find_cases(args.corpus, args.filter)
    if not cases:
        raise AutodbgError("no cases found (a case is a folder holding truth.json)")
    records = run_bench(cases, model=args.model, repeat=args.repeat, jobs=args.jobs, timeout=args.timeout,
                        turns=args.turns, mode=args.mode)
    totals = summarize(records)
    print_results(records, totals, args.model)
    if args.json_out:
        args.json_out.write_text(json.dumps({"machine": machine(), "model": args.model, "turns": args.turns,
                                             "timeout": args.timeout, "mode": args.mode,
                                             "records": records,
                                             "totals": totals}, indent=2))
    return 0


def check_hook_installed() -> None:
    purelib = Path(sysconfig.get_path("purelib"))
    if not (purelib / "autodbg.pth").exists():
        raise AutodbgError(f"autodbg's hook is not installed in {sys.prefix}; install autodbg there (./install.sh) first")


def run_bench(cases, *, model: str, repeat: int, jobs: int, timeout: float, turns: int | None = None,
              mode: str = "hook") -> list[dict]:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    work = [case for case in cases for _ in range(repeat)]
    console = Console(stderr=True)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    started = time.monotonic()
    # On a terminal a bar with an ETA; otherwise (a log, CI) one line per case.
    with Progress(*columns, console=console, transient=True, disable=not console.is_terminal) as bar, \
            ThreadPoolExecutor(jobs) as pool:
        task = bar.add_task("cases", total=len(work))
        futures = [pool.submit(run_case, case, model=model, timeout=timeout, turns=turns, mode=mode) for case in work]
        records = []
        for done, future in enumerate(futures, 1):
            records.append(future.result())
            bar.advance(task)
            if not console.is_terminal:
                elapsed = time.monotonic() - started
                eta = elapsed / done * (len(work) - done)
                r = records[-1]
                say(f"autodbg bench: {done}/{len(work)} {r['case']}: {r['status']}, line "
                      f"{'hit' if r['root_cause_hit'] else 'miss'}, fix {'hit' if r['fix_hit'] else 'miss'}, "
                      f"{r['seconds'] if r['seconds'] is not None else '-'} s; ETA {eta:.0f} s", file=sys.stderr)
    return records


def case_env(model: str, report: Path, timeout: float, turns: int | None = None, shim_dir: Path | None = None) -> dict[str, str]:
    # The case is a program of its own: none of our settings, nor a test runner's marker, apply to it.
    env = {k: v for k, v in os.environ.items() if not k.startswith("AUTODBG") and k != "PYTEST_CURRENT_TEST"}
    env.update(AUTODBG="1", AUTODBG_MODEL=model, AUTODBG_REPORT=str(report), AUTODBG_TIMEOUT=str(timeout),
               AUTODBG_DOWNLOAD="0", NO_COLOR="1", COLUMNS="100")
    if turns is not None:
        env["AUTODBG_TURNS"] = str(turns)
    first = [str(shim_dir)] if shim_dir else []
    env["PATH"] = os.pathsep.join([*first, os.path.dirname(sys.executable), env.get("PATH", "")])
    return env


# `python3 SCRIPT ...` and `python3 -m MODULE ...` become `autodbg run ...`; anything else runs as is.
RUN_SHIM = """#!/bin/sh
case "$1" in
  -m|[!-]*) exec "{python}" -m autodbg run "$@" ;;
  *) exec "{python}" "$@" ;;
esac
"""


def write_run_shim(directory: Path) -> Path:
    """A `python3` that runs programs under `autodbg run`, for --mode run."""
    directory.mkdir(parents=True, exist_ok=True)
    for name in ("python3", "python"):
        shim = directory / name
        shim.write_text(RUN_SHIM.format(python=sys.executable))
        shim.chmod(0o755)
    return directory


def run_case(case, *, model: str, timeout: float, turns: int | None = None, mode: str = "hook") -> dict:
    from autodbg import corpus

    record = {"case": case.rel, "corpus": case.corpus, "exception": case.exception, "crash_kind": case.crash_kind,
              "mode": mode, "fix_verified": None, "fix_trial": None,
              "status": "ok", "root_cause_hit": False, "fix_hit": False, "origin_hit": False,
              "root_cause_on_crash_line": case.crash_at_buggy_line, "commands_valid": None, "turns": 0,
              "seconds": None, "tokens": {}, "diagnosis": None, "fallback_reason": None, "transcript": [],
              "stopped_by": None, "search": None, "candidates": [], "model_calls": []}
    with tempfile.TemporaryDirectory(prefix="autodbg-bench-") as tmp, corpus.scratch_copy(case) as work:
        report_path = Path(tmp) / "report.json"
        shim = write_run_shim(Path(tmp) / "bin") if mode == "run" else None
        run = corpus.run_crash(work, case_env(model, report_path, timeout, turns, shim), case_timeout(timeout))
        if run.timed_out:
            record["status"] = "timeout"
            return record
        if run.returncode == 0:
            record["status"] = "no crash"
            return record
        if not report_path.exists():
            record["status"] = "no report"
            return record
        report = json.loads(report_path.read_text())
        differently = crashed_differently(report, case, work)
        if differently:
            record["status"], record["crashed_differently"] = "crashed differently", differently
            return record
        record["seconds"] = report["timings"].get("total")
        record["fallback_reason"] = report.get("fallback_reason")
        record["stopped_by"] = report.get("stopped_by")
        record["search"] = searched(report.get("search"), case, work)
        record["candidates"] = [tried(candidate, case, work) for candidate in report.get("candidates") or []]
        record["tokens"] = report.get("tokens") or {}
        record["model_calls"] = report.get("model_calls") or []  # where each crash's model time went
        transcript = report.get("transcript") or []
        record["turns"] = sum(1 for t in transcript if t["command"] != "done")
        record["transcript"] = [{"thought": t["thought"], "command": t["command"]} for t in transcript]
        record["commands_valid"] = all(t["valid"] for t in transcript) if transcript else None
        fix = (report.get("diagnosis") or {}).get("fix") or {}
        record["fix_verified"] = fix.get("verified")
        record["fix_trial"] = (fix.get("trial") or {}).get("result")
        record["label"] = fix.get("label")
        record["judge_edited"] = edits_judge(report, fix)
        record["origin_hit"] = any(in_case(origin["file"], work) == case.buggy_file and origin["line"] in case.acceptable_lines
                                   for origin in report["dossier"].get("origins", []))
        diagnosis = located_diagnosis(report, work)
        record["diagnosis"] = diagnosis
        if diagnosis is None:
            return record
        record["root_cause_hit"] = (diagnosis["file"] == case.buggy_file and diagnosis["line"] in case.acceptable_lines)
    record["fix_hit"] = fix_passes(case, diagnosis)
    return record


def crashed_differently(report: dict, case, work: Path) -> str:
    """How the case's run crashed otherwise than its truth.json says (another exception type, or
    another site), or "": such a run says nothing of the bug the case holds and is not scored."""
    dossier = report["dossier"]
    exception, site = dossier["exception"]["type"], dossier["crash_site"]
    if exception != case.exception:
        return f"{exception}: {dossier['exception']['message'][:120]} (expected {case.exception})"
    where = (in_case(site["file"], work), site["line"])
    expected = (case.crash_site["file"], case.crash_site["line"])
    # A deep recursion ends wherever the limit meets it: the recorded site on the stack is the same crash.
    stack = {(in_case(frame["file"], work), frame["line"]) for frame in dossier["frames"]}
    # A stuck loop is interrupted at whichever of its lines it is on: its header names the crash.
    loop = (dossier.get("hang") or {}).get("loop")
    looped = loop is not None and (in_case(loop["file"], work), loop["line"]) == expected
    return "" if where == expected or expected in stack or looped else f"at {where[0]}:{where[1]} (expected {expected[0]}:{expected[1]})"


def edits_judge(report: dict, fix: dict) -> bool:
    """Whether the diagnosis's fix changes what judges it: a test file or the driver that ran one."""
    from autodbg.frames.core import is_test_file
    from autodbg.investigate.answer import judging_files
    from autodbg.records import Dossier

    edit = fix.get("edit")
    return edit is not None and fix.get("problem") is None and (
        is_test_file(edit["file"]) or edit["file"] in judging_files(Dossier.from_json(report["dossier"])))


def searched(search: dict | None, case, work: Path) -> dict | None:
    """What the search found without a model: how many changes it tried and passed, whether the
    first that passed is at the root cause, and whether it makes the case's own test pass."""
    if search is None:
        return None
    first = search["passing"][0]["edit"] if search["passing"] else None
    at = in_case(first["file"], work) if first is not None else None
    return {"tried": search["tried"], "seconds": search["seconds"], "passing": len(search["passing"]),
            "first_at_root_cause": at == case.buggy_file and first["first"] in case.acceptable_lines,
            "first_fix_hit": at is not None and fix_passes(case, {"file": at, "line": first["first"],
                                                                  "line_end": first["last"], "fix": first["replacement"]})}


def tried(candidate: dict, case, work: Path) -> dict:
    """A fix the model wrote that ran in a probe: where, how it ran, whether it is at the root
    cause, and (when it ran and passed) whether it makes the case's own test pass: the label's trust."""
    edit = candidate["edit"]
    at = in_case(edit["file"], work)
    result = candidate["trial"]["result"]
    fix = {"file": at, "line": edit["first"], "line_end": edit["last"], "fix": edit["replacement"]}
    return {"line": edit["first"], "result": result, "moved_on": candidate["trial"]["moved_on"],
            "at_root_cause": at == case.buggy_file and edit["first"] in case.acceptable_lines,
            "fix_hit": fix_passes(case, fix) if result == "passes" else None}


def fix_passes(case, diagnosis: dict) -> bool:
    """Whether the diagnosis's fix, applied to a scratch copy, makes the case's test pass."""
    from autodbg import corpus

    if diagnosis.get("fix") is None:
        return False
    with corpus.scratch_copy(case) as fixed:
        if not (fixed / diagnosis["file"]).is_file():
            return False
        try:
            corpus.apply_fix(fixed, diagnosis["file"], diagnosis["line"], diagnosis["line_end"], diagnosis["fix"])
        except AutodbgError:  # lines outside the file: a wrong diagnosis is a miss
            return False
        env = {**os.environ, "AUTODBG": "0", "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")}
        return corpus.run_test(fixed, timeout=TEST_TIMEOUT, env=env)


def located_diagnosis(report: dict, work: Path) -> dict | None:
    """The diagnosis as {file (relative to the case), line, line_end, fix}; with no model, the
    crash site stands in for the root cause (the baseline every model must beat)."""
    diagnosis = report.get("diagnosis")
    if diagnosis is not None:
        fix = diagnosis.get("fix")
        usable_fix = fix["edit"]["replacement"] if fix and fix.get("problem") is None else None
        file, line, line_end = diagnosis["file"], diagnosis["line"], diagnosis["line_end"]
    else:
        site = report["dossier"]["crash_site"]
        file, line, usable_fix = site["file"], site["line"], None
        line_end = line
    rel = in_case(file, work)
    if rel is None:
        return None  # outside the case: a library file
    return {"file": rel, "line": line, "line_end": line_end, "fix": usable_fix}


def in_case(file: str, work: Path) -> str | None:
    """FILE relative to the case folder WORK, or None when it is outside."""
    try:
        return Path(os.path.realpath(file)).relative_to(os.path.realpath(work)).as_posix()
    except ValueError:
        return None


def summarize(records: list[dict]) -> dict:
    def group(every):
        rows = [r for r in every if r["status"] != "crashed differently"]  # not the case's crash: not scored
        seconds = sorted(r["seconds"] for r in rows if r["seconds"] is not None)
        valid = [r["commands_valid"] for r in rows if r["commands_valid"] is not None]
        agreeing = agreement(rows)
        return {
            "cases": len(rows),
            "crashed_differently": len(every) - len(rows),
            "crashed": sum(r["status"] == "ok" for r in rows),
            # Per label, how many diagnoses carried it and how many of those pass the case's test (its precision).
            "labels": {label: [sum(r.get("label") == label for r in rows),
                               sum(r.get("label") == label and r["fix_hit"] for r in rows)]
                       for label in sorted({r["label"] for r in rows if r.get("label")})},
            "judge_edited": sum(bool(r.get("judge_edited")) for r in rows),
            "root_cause_hit": sum(r["root_cause_hit"] for r in rows),
            # The evidence's provenance names the root cause, where it is not the crash line.
            "origin_hit": sum(r.get("origin_hit", False) for r in rows if not r.get("root_cause_on_crash_line")),
            "away_from_crash": sum(not r.get("root_cause_on_crash_line") for r in rows),
            "fix_hit": sum(r["fix_hit"] for r in rows),
            # Fixes labelled "ran: passes" (tried in a probe), and how many of those pass the case's test.
            "fix_ran_passes": sum(r.get("fix_trial") == "passes" for r in rows),
            "fix_ran_passes_hit": sum(r.get("fix_trial") == "passes" and r["fix_hit"] for r in rows),
            "commands_valid": f"{sum(valid)}/{len(valid)}" if valid else "-",
            # Cases run more than once (--repeat), and in how many every run gave the same answer.
            "repeated": len(agreeing),
            "agree": sum(agreeing.values()),
            "median_seconds": round(statistics.median(seconds), 2) if seconds else None,
            "p90_seconds": round(seconds[min(len(seconds) - 1, int(0.9 * len(seconds)))], 2) if seconds else None,
            "median_turns": statistics.median([r["turns"] for r in rows]) if rows else 0,
            "median_prompt_tokens": _median([r["tokens"].get("prompt_tokens_evaluated") for r in rows]),
            "median_generated": _median([r["tokens"].get("generated") for r in rows]),
            # The search (no model): cases it ran on, where some change passed, where the first one
            # that passed is at the root cause.
            "searched": sum(r.get("search") is not None for r in rows),
            "search_passed": sum(bool(r.get("search") and r["search"]["passing"]) for r in rows),
            "search_at_root_cause": sum(bool(r.get("search") and r["search"]["first_at_root_cause"]) for r in rows),
            "search_fix_hit": sum(bool(r.get("search") and r["search"]["first_fix_hit"]) for r in rows),
            "timed_out": sum(r.get("fallback_reason") == "model did not answer in time" for r in rows),
            # The model's fixes run in probes: how many, in how many cases one was at the root cause,
            # and in how many one passed.
            "candidates": sum(len(r.get("candidates") or []) for r in rows),
            "candidate_at_root_cause": sum(any(c["at_root_cause"] for c in r.get("candidates") or []) for r in rows),
            "candidate_passed": sum(any(c["result"] == "passes" for c in r.get("candidates") or []) for r in rows),
        }

    by = lambda key: {value: group([r for r in records if r[key] == value])  # noqa: E731
                      for value in sorted({r[key] for r in records})}
    return {"all": group(records), "by_crash_kind": by("crash_kind"), "by_exception": by("exception")}


def answer_of(record: dict) -> tuple:
    """What one run of a case answered: the line, the change and its label (or how it ended)."""
    d = record["diagnosis"]
    where = (d["file"], d["line"], d["line_end"], d["fix"]) if d else (record["fallback_reason"],)
    return (record["status"], *where, record.get("label"))


def agreement(records: list[dict]) -> dict[str, bool]:
    """{case: whether all its runs answered the same} for the cases run more than once."""
    answers: dict[str, list[tuple]] = {}
    for r in records:
        answers.setdefault(r["case"], []).append(answer_of(r))
    return {case: len(set(runs)) == 1 for case, runs in answers.items() if len(runs) > 1}


def _median(values: list) -> float | None:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def print_results(records: list[dict], totals: dict, model: str) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(highlight=False)
    table = Table(title=f"autodbg bench · model {model}")
    for column in ("case", "status", "line", "fix", "valid", "turns", "seconds", "diagnosed"):
        table.add_column(column)
    for r in records:
        d = r["diagnosis"]
        where = f"{d['file']}:{d['line']}" if d else (r["fallback_reason"] or "-")
        table.add_row(r["case"], r["status"], "hit" if r["root_cause_hit"] else "miss",
                      "hit" if r["fix_hit"] else "miss", str(r["commands_valid"] if r["commands_valid"] is not None else "-"),
                      str(r["turns"]), f"{r['seconds']:.1f}" if r["seconds"] is not None else "-", where)
    console.print(table)
    totals_table = Table(title="totals")
    for column in ("group", "cases", "crashed", "line hit", "fix hit", "ran: passes (hit)", "commands valid",
                   "median s", "p90 s", "turns"):
        totals_table.add_column(column)
    rows = [("all", totals["all"])] + [(f"kind {k}", v) for k, v in totals["by_crash_kind"].items()] + \
           [(f"{k}", v) for k, v in totals["by_exception"].items()]
    for name, g in rows:
        totals_table.add_row(name, str(g["cases"]), str(g["crashed"]), _share(g["root_cause_hit"], g["cases"]),
                             _share(g["fix_hit"], g["cases"]), f"{g['fix_ran_passes']} ({g['fix_ran_passes_hit']})",
                             g["commands_valid"], str(g["median_seconds"]),
                             str(g["p90_seconds"]), str(g["median_turns"]))
    console.print(totals_table)
    g = totals["all"]
    labels = ", ".join(f"{label} {n} ({hit} pass the case's test)" for label, (n, hit) in g["labels"].items()) or "none"
    agree = f"; runs that agree: {g['agree']}/{g['repeated']} cases" if g["repeated"] else ""
    console.print(f"labels (precision): {labels}; fixes that change what judges: {g['judge_edited']}; "
                  f"crashed differently (not scored): {g['crashed_differently']}{agree}")


def _share(hits: int, total: int) -> str:
    return f"{hits}/{total} ({100 * hits / total:.0f}%)" if total else "-"


def machine() -> dict:
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count()
    return {"python": platform.python_version(), "platform": platform.platform(), "cores": cores,
            "time": time.strftime("%Y-%m-%d %H:%M:%S")}
