"""After the traceback: whatever goes wrong while starting or talking to the model, the evidence
is printed, the report is written and the exit status is Python's."""

from __future__ import annotations

import json

import pytest

from conftest import clean_env, run_py

CLOSED_STDIN = "import sys\nsys.stdin.close()\ncount = 0\nprint(10 / count)\n"
BROKEN_STDIN = '''\
import sys


class Stdin:
    def isatty(self):
        raise RuntimeError("stdin broke")


sys.stdin = Stdin()
count = 0
print(10 / count)
'''


def crash(tmp_path, source: str, **env):
    (tmp_path / "app.py").write_text(source)
    report = tmp_path / "report.json"
    run = run_py(["app.py"], cwd=tmp_path, timeout=300,
                 env=clean_env(AUTODBG="1", AUTODBG_REPORT=str(report), XDG_CACHE_HOME=str(tmp_path / "cache"), **env))
    assert run.returncode == 1
    assert run.stderr.startswith("Traceback (most recent call last):")
    assert "ZeroDivisionError: division by zero" in run.stderr.split("autodbg · ")[0]
    return run, json.loads(report.read_text())


@pytest.mark.model
def test_a_closed_stdin_keeps_the_evidence_and_the_model(tmp_path):
    run, report = crash(tmp_path, CLOSED_STDIN, AUTODBG_MODEL="smollm2-135m", AUTODBG_TURNS="0")
    assert "autodbg · " in run.stderr and "count = 0" in run.stderr
    assert "internal error" not in run.stderr
    assert report["model"]["id"] == "smollm2-135m" and report["timings"]["model_load"] > 0


# A model not downloaded yet: whether to ask about it reads the broken stdin.
NOT_HERE = {"AUTODBG_MODEL": "qwen2.5-coder-0.5b", "HF_HUB_OFFLINE": "0"}


def test_any_error_starting_the_model_is_a_fallback_reason(tmp_path):
    run, report = crash(tmp_path, BROKEN_STDIN, HF_HOME=str(tmp_path / "hf"), **NOT_HERE)
    assert report["fallback_reason"] == "model unavailable: RuntimeError: stdin broke"
    assert report["dossier"]["frames"][0]["line_values"] == [{"expr": "count", "value": "0"}]
    ours = run.stderr.split("autodbg · ", 1)[1]
    assert "autodbg: evidence only (model unavailable: RuntimeError: stdin broke)" in ours
    assert "Traceback" not in ours and "internal error" not in ours


def test_autodbg_debug_shows_autodbgs_own_traceback(tmp_path):
    run, report = crash(tmp_path, BROKEN_STDIN, HF_HOME=str(tmp_path / "hf"), AUTODBG_DEBUG="1", **NOT_HERE)
    before_evidence = run.stderr.split("autodbg · ", 1)[0]
    ours = before_evidence.split("ZeroDivisionError: division by zero", 1)[1]
    assert "Traceback (most recent call last):" in ours and "autodbg/pipeline.py" in ours
    assert "RuntimeError: stdin broke" in ours
    assert report["fallback_reason"] == "model unavailable: RuntimeError: stdin broke"


def test_autodbg_debug_shows_the_traceback_of_an_internal_error(tmp_path):
    # A setting that cannot be parsed, and a handler that then fails: one line, or with
    # AUTODBG_DEBUG=1 the whole traceback of autodbg's own failure.
    program = ("import autodbg.pipeline as p\n"
               "def broken(exc, **kw):\n    raise LookupError('handler broke')\n"
               "p.handle_crash = broken\n1 / 0\n")
    (tmp_path / "app.py").write_text(program)
    quiet = run_py(["app.py"], cwd=tmp_path, env=clean_env(AUTODBG="1"))
    assert quiet.stderr.splitlines()[-1] == "autodbg: internal error: LookupError: handler broke"
    loud = run_py(["app.py"], cwd=tmp_path, env=clean_env(AUTODBG="1", AUTODBG_DEBUG="1"))
    assert "autodbg: internal error (AUTODBG_DEBUG=1):" in loud.stderr
    assert loud.stderr.rstrip().endswith("LookupError: handler broke") and loud.stderr.count("Traceback") == 2
    assert quiet.returncode == loud.returncode == 1


THREAD_CRASH = '''\
import threading


def work():
    count = 0
    return 10 / count


t = threading.Thread(target=work, name="worker")
t.start()
t.join()
print("main goes on")
'''


@pytest.mark.model
def test_a_thread_crash_gets_the_whole_investigation(tmp_path):
    (tmp_path / "app.py").write_text(THREAD_CRASH)
    report = tmp_path / "report.json"
    run = run_py(["app.py"], cwd=tmp_path, timeout=300, env=clean_env(
        AUTODBG="1", AUTODBG_MODEL="smollm2-135m", AUTODBG_REPORT=str(report), XDG_CACHE_HOME=str(tmp_path / "c")))
    assert run.returncode == 0 and run.stdout == "main goes on\n"
    assert run.stderr.startswith("Exception in thread worker:")
    result = json.loads(report.read_text())
    assert result["thread"] == "worker" and result["model"]["id"] == "smollm2-135m"
    assert result["timings"]["model_load"] > 0 and (result["model_calls"] or result["fallback_reason"])


LOGGED_AT_TOP = '''\
import logging
import sys


def total(items):
    return sum(items) / len(items)


def helper():
    try:
        total([])
    except ZeroDivisionError:
        logging.exception("inside: handled, not the top")  # the program goes on: not investigated


def main():
    helper()
    total([])


try:
    main()
except Exception:
    logging.exception("report failed")
    sys.exit(3)
'''

NEVER_RETRIEVED = '''\
import asyncio
import gc


async def fetch(prices):
    return sum(prices) / len(prices)


async def main():
    task = asyncio.create_task(fetch([]))
    await asyncio.sleep(0.05)
    del task
    gc.collect()


asyncio.run(main())
print("done")
'''


@pytest.mark.parametrize("source, status, stdout", [(LOGGED_AT_TOP, 3, ""), (NEVER_RETRIEVED, 0, "done\n")],
                         ids=["logging.exception at the top", "asyncio task exception never retrieved"])
def test_an_exception_logged_where_nobody_will_handle_it_is_investigated(tmp_path, source, status, stdout):
    (tmp_path / "app.py").write_text(source)
    plain = run_py(["app.py"], cwd=tmp_path, env=clean_env(AUTODBG="0"))
    report = tmp_path / "report.json"
    run = run_py(["app.py"], cwd=tmp_path, env=clean_env(AUTODBG="1", AUTODBG_MODEL="none", AUTODBG_REPORT=str(report)))
    assert run.returncode == plain.returncode == status and run.stdout == plain.stdout == stdout
    ours = run.stderr.split("autodbg · ")
    assert len(ours) == 2  # one investigation: the exception the program gave up on, not the handled one
    assert run.stderr.startswith(plain.stderr.rsplit("ZeroDivisionError: division by zero", 1)[0])
    result = json.loads(report.read_text())
    assert result["dossier"]["frames"][0]["line_values"] == [{"expr": "items", "value": "[]"}] or \
        result["dossier"]["frames"][0]["line_values"] == [{"expr": "prices", "value": "[]"}]


def test_the_logging_hook_imports_nothing_at_start_up(tmp_path):
    run = run_py(["-c", "import sys; print('logging' in sys.modules, type(sys.meta_path[0]).__name__)"],
                 env=clean_env(AUTODBG="1"))
    assert run.stdout.split()[0] == "False"
