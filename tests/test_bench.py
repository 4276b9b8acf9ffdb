"""`autodbg bench` on tiny real cases: crashes run in real subprocesses with the installed hook."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from autodbg import bench, corpus
from conftest import clean_env

CALLER_BUG = '''\
def average(values):
    return sum(values) / len(values)


def main():
    readings = []  # bug: the readings were never loaded
    print(average(readings))


main()
'''
CRASH_LINE_BUG = '''\
def first_word(text):
    return text.split()[1]  # bug: index 1 is the second word


print(first_word("hello"))
'''


def make_case(root: Path, name: str, program: str, *, buggy_line: int, fixed_code: str, exception: str,
              crash_line: int, crash_cmd: str = "sh run.sh", kind: str = "exception") -> Path:
    case = root / name
    case.mkdir(parents=True)
    (case / "app.py").write_text(program)
    (case / "run.sh").write_text('cd "$(dirname "$0")"\npython3 app.py\n')
    lines = program.splitlines()
    (case / "truth.json").write_text(json.dumps({
        "case": name, "corpus": "test", "source": "written for the tests", "buggy_file": "app.py",
        "buggy_line": buggy_line, "buggy_line_end": buggy_line, "buggy_code": lines[buggy_line - 1],
        "fixed_code": fixed_code, "acceptable_lines": [buggy_line], "exception": exception,
        "crash_kind": kind, "crash_cmd": crash_cmd, "test_cmd": "python3 app.py",
        "crash_site": {"file": "app.py", "line": crash_line}, "crash_at_buggy_line": buggy_line == crash_line,
    }))
    return case


@pytest.fixture
def tiny_corpus(tmp_path) -> Path:
    root = tmp_path / "corpus"
    make_case(root, "caller-bug", CALLER_BUG, buggy_line=6, fixed_code="    readings = [3, 4]",
              exception="ZeroDivisionError", crash_line=2)
    make_case(root, "crash-line-bug", CRASH_LINE_BUG, buggy_line=2, fixed_code="    return text.split()[0]",
              exception="IndexError", crash_line=2)
    make_case(root, "no-crash", "print('fine')\n", buggy_line=1, fixed_code="print('fine')",
              exception="ValueError", crash_line=1)
    return root


def by_case(records):
    return {r["case"]: r for r in records}


@pytest.mark.slow
def test_evidence_only_scores_the_crash_site(tiny_corpus):
    records = by_case(bench.run_bench(corpus.find_cases([tiny_corpus]), model="none", repeat=1, jobs=1, timeout=20))
    assert records["crash-line-bug"]["status"] == "ok" and records["crash-line-bug"]["root_cause_hit"]
    assert records["caller-bug"]["status"] == "ok" and not records["caller-bug"]["root_cause_hit"]
    assert records["caller-bug"]["diagnosis"]["line"] == 2  # the crash site stands in for the root cause
    assert records["no-crash"]["status"] == "no crash"  # reported, never dropped
    assert not any(r["fix_hit"] for r in records.values())  # no model, no fix
    totals = bench.summarize(list(records.values()))
    assert totals["all"]["cases"] == 3 and totals["all"]["root_cause_hit"] == 1
    assert set(totals["by_exception"]) == {"ZeroDivisionError", "IndexError", "ValueError"}


FAILING_TEST = '''\
def count_big(prices):
    return len([p for p in prices if p < 10])  # bug: the big ones are those over 10


def test_count_big():
    assert count_big([5, 20, 30]) == 2


test_count_big()
'''


def test_a_failing_test_case_records_the_search_and_scores_its_first_change(tmp_path):
    make_case(tmp_path / "corpus", "failing-test", FAILING_TEST, buggy_line=2, kind="assertion",
              fixed_code="    return len([p for p in prices if p > 10])", exception="AssertionError", crash_line=6)
    record = bench.run_case(corpus.find_cases([tmp_path / "corpus"])[0], model="none", timeout=20)
    assert record["status"] == "ok" and record["search"]["tried"] >= 1 and record["search"]["passing"] >= 1, record
    assert record["search"]["first_at_root_cause"] and record["search"]["first_fix_hit"]
    totals = bench.summarize([record])["all"]
    assert totals["searched"] == totals["search_passed"] == totals["search_fix_hit"] == 1


def test_a_case_that_crashes_for_another_reason_is_reported_and_not_scored(tmp_path):
    # The driver needs a module this venv lacks: it dies on its first line, not at the case's bug.
    make_case(tmp_path / "corpus", "missing-import", "import no_such_module_here\n" + CRASH_LINE_BUG, buggy_line=3,
              fixed_code="    return text.split()[0]", exception="IndexError", crash_line=3)
    make_case(tmp_path / "corpus", "crash-line-bug", CRASH_LINE_BUG, buggy_line=2, fixed_code="    return text.split()[0]",
              exception="IndexError", crash_line=2)
    records = by_case(bench.run_bench(corpus.find_cases([tmp_path / "corpus"]), model="none", repeat=1, jobs=1,
                                      timeout=20))
    differently = records["missing-import"]
    assert differently["status"] == "crashed differently"
    assert differently["crashed_differently"].startswith("ModuleNotFoundError") and "expected IndexError" in differently["crashed_differently"]
    totals = bench.summarize(list(records.values()))["all"]
    assert totals["cases"] == 1 and totals["crashed_differently"] == 1 and totals["root_cause_hit"] == 1


def test_fix_scoring_right_and_deliberately_wrong(tiny_corpus):
    case = corpus.load_case(tiny_corpus / "caller-bug")
    right = {"file": "app.py", "line": 6, "line_end": 6, "fix": "    readings = [3, 4]\n"}
    wrong = {"file": "app.py", "line": 6, "line_end": 6, "fix": "    readings = []  # still empty\n"}
    assert bench.fix_passes(case, right)
    assert not bench.fix_passes(case, wrong)
    assert not bench.fix_passes(case, {**right, "file": "missing.py"})
    assert (tiny_corpus / "caller-bug" / "app.py").read_text() == CALLER_BUG  # the corpus is never modified


@pytest.mark.slow
def test_a_hanging_case_is_killed_at_its_timeout(tmp_path):
    root = tmp_path / "corpus"
    make_case(root, "hang", "while True:\n    pass\n", buggy_line=1, fixed_code="while False:",
              exception="KeyboardInterrupt", crash_line=2, kind="hang")
    record = bench.run_case(corpus.find_cases([root])[0], model="none", timeout=1)
    assert record["status"] == "timeout"


@pytest.mark.slow
def test_jobs_2_gives_the_same_results_as_jobs_1(tiny_corpus):
    cases = corpus.find_cases([tiny_corpus])
    def strip(records):  # what is timed differs from run to run
        return [{k: ({**v, "seconds": None} if k == "search" and v else v) for k, v in r.items()
                 if k not in ("seconds", "tokens")} for r in records]
    one = bench.run_bench(cases, model="none", repeat=2, jobs=1, timeout=20)
    two = bench.run_bench(cases, model="none", repeat=2, jobs=2, timeout=20)
    assert strip(one) == strip(two) and len(one) == 6
    totals = bench.summarize(one)["all"]
    assert totals["repeated"] == 3 and totals["agree"] == 3  # the same crash, the same answer
    crash_line = next(r for r in one if r["case"] == "crash-line-bug")
    other_answer = {**crash_line, "diagnosis": {**crash_line["diagnosis"], "line": 1}}
    totals = bench.summarize([other_answer if r is crash_line else r for r in one])["all"]
    assert totals["repeated"] == 3 and totals["agree"] == 2


@pytest.mark.model
def test_real_tiny_model_case(tiny_corpus, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    case = corpus.load_case(tiny_corpus / "caller-bug")
    record = bench.run_case(case, model="smollm2-135m", timeout=120)  # 120: the plan has room for commands
    assert record["status"] == "ok", record
    assert record["fallback_reason"] in (None, "the model gave no usable answer"), record
    assert record["commands_valid"] is True and record["turns"] >= 1
    assert record["tokens"]["generated"] > 0
    assert sum(call["generated"] for call in record["model_calls"]) == record["tokens"]["generated"]


@pytest.mark.slow
def test_cli_writes_json_and_prints_totals(tiny_corpus, tmp_path):
    out = tmp_path / "out.json"
    run = subprocess.run([sys.executable, "-m", "autodbg", "bench", str(tiny_corpus), "--model", "none",
                          "--json", str(out), "--filter", "*bug"], env=clean_env(), capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "totals" in run.stdout and "caller-bug" in run.stdout and "no-crash" not in run.stdout
    data = json.loads(out.read_text())
    assert {r["case"] for r in data["records"]} == {"caller-bug", "crash-line-bug"}
    assert data["totals"]["all"]["root_cause_hit"] == 1 and data["machine"]["cores"] >= 1
    progress = [line for line in run.stderr.splitlines() if line.startswith("autodbg bench: ")]
    assert len(progress) == 2 and progress[0].startswith("autodbg bench: 1/2 ") and " ETA " in progress[0]


def test_cli_bad_input_is_one_line(tmp_path):
    run = subprocess.run([sys.executable, "-m", "autodbg", "bench", str(tmp_path / "nowhere")], env=clean_env(),
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and run.stderr.count("\n") == 1 and run.stderr.startswith("autodbg: no such corpus")


def test_mode_run_goes_through_autodbg_run(tiny_corpus):
    case = corpus.load_case(tiny_corpus / "caller-bug")
    hook = bench.run_case(case, model="none", timeout=20)
    run = bench.run_case(case, model="none", timeout=20, mode="run")
    assert run["status"] == hook["status"] == "ok" and run["mode"] == "run"
    assert run["diagnosis"] == hook["diagnosis"]  # the same crash site, reported by `autodbg run`
    shim = bench.write_run_shim(tiny_corpus.parent / "shim") / "python3"
    assert "-m autodbg run" in shim.read_text()


def test_a_stuck_loop_interrupted_on_another_of_its_lines_is_the_same_crash(tmp_path):
    case = corpus.load_case(Path(__file__).parent.parent / "bench" / "corpus" / "dev" / "quantity-tokenizer-decimal")
    work = tmp_path / "work"
    work.mkdir()
    file = str(work / "quantities.py")

    def report(loop_line: int | None) -> dict:
        loop = None if loop_line is None else {"file": file, "line": loop_line}
        return {"dossier": {"exception": {"type": "KeyboardInterrupt", "message": ""},
                            "crash_site": {"file": file, "line": 18}, "frames": [{"file": file, "line": 18}],
                            "hang": {"loop": loop}}}
    assert case.crash_site == {"file": "quantities.py", "line": 9}  # the loop's header
    assert bench.crashed_differently(report(9), case, work) == ""  # Ctrl-C landed on line 18 of that loop
    assert bench.crashed_differently(report(None), case, work) == "at quantities.py:18 (expected quantities.py:9)"
    assert bench.crashed_differently(report(20), case, work) != ""  # another loop
