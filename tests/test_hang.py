"""Hangs: a program interrupted (Ctrl-C, or a watchdog) is told where it was, and investigated only
when it was stuck. Real processes and real signals; the analysis itself on real frames here."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from autodbg.analysis import hang as hangs
from autodbg.records import Hang
from conftest import clean_env

STUCK = """\
def read_settings(lines):
    settings = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line:
            continue  # i is never advanced past a blank line
        settings[line] = i
        i += 1
    return settings

print("ready", flush=True)
read_settings(["a", "", "b"])
"""

PROGRESSING = """\
def total_of(n):
    total = 0
    for k in range(n):
        total += k * k
    return total

print("ready", flush=True)
total_of(10 ** 12)
"""


def interrupt(script, env, after: float = 0.5) -> tuple[subprocess.CompletedProcess, float]:
    """Run SCRIPT, send it SIGINT (Ctrl-C) AFTER seconds past its "ready" line; (how it ended,
    seconds from the signal to autodbg's "where it was")."""
    proc = subprocess.Popen([sys.executable, script.name], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env, text=True, cwd=script.parent)
    assert proc.stdout.readline() == "ready\n"
    time.sleep(after)
    os.kill(proc.pid, signal.SIGINT)
    sent = time.monotonic()
    err = ""
    while "where it was" not in err and proc.poll() is None:
        line = proc.stderr.readline()
        if not line:
            break
        err += line
    seen = time.monotonic() - sent
    rest, out = proc.stderr.read(), proc.stdout.read()  # after readline(): through the same buffers
    proc.wait(timeout=60)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err + rest), seen


def plain_interrupt(script) -> subprocess.CompletedProcess:
    return interrupt(script, clean_env())[0]


@pytest.mark.slow
def test_ctrl_c_on_a_stuck_loop_says_where_and_that_it_is_stuck(hooked, tmp_path):
    script = tmp_path / "settings.py"
    script.write_text(STUCK)
    plain = plain_interrupt(script)
    run, seen = interrupt(script, hooked(AUTODBG="1", AUTODBG_MODEL="none"))
    assert run.returncode == plain.returncode == -signal.SIGINT  # as Python gives it
    assert plain.stderr.startswith("Traceback") and plain.stderr.endswith("KeyboardInterrupt\n")
    traceback, ours = run.stderr.split("KeyboardInterrupt\n", 1)
    assert traceback.startswith("Traceback") and "settings.py\", line 7, in read_settings" in traceback
    assert "autodbg · where it was (Ctrl-C" in ours.splitlines()[0]
    assert "interrupted thread: settings.py:7 in read_settings   continue" in ours
    assert "in the loop settings.py:4: while i < len(lines):" in ours
    assert "i = 1" in ours
    said = " ".join(ours.split())
    assert "stuck: `i` stays 1 and `while i < len(lines)` never changes over" in said
    assert "autodbg · " in ours  # a stuck program goes on to the investigation
    assert seen < 2.0  # the README says 0.5 s; two loaded cores get some slack


@pytest.mark.slow
def test_ctrl_c_on_a_progressing_computation_gets_only_where_it_was(hooked, tmp_path):
    script = tmp_path / "squares.py"
    script.write_text(PROGRESSING)
    nowhere = tmp_path / "no-such-model.gguf"  # were the model started, it would say it is missing
    run, _ = interrupt(script, hooked(AUTODBG="1", AUTODBG_MODEL=str(nowhere)))
    assert run.returncode == -signal.SIGINT
    ours = run.stderr.split("KeyboardInterrupt\n", 1)[1]
    said = " ".join(ours.split())
    assert "in the loop squares.py:3: for k in range(n): (iteration" in said
    assert "not stuck: `k` went" in said and "it was still working" in said
    assert "evidence" not in ours and "model" not in ours  # no investigation, no model


def test_a_keyboard_interrupt_the_program_raises_itself_adds_nothing(hooked, tmp_path):
    script = tmp_path / "prog.py"
    script.write_text("def stop():\n    raise KeyboardInterrupt\n\nstop()\n")
    plain = subprocess.run([sys.executable, str(script)], env=clean_env(), capture_output=True, text=True)
    run = subprocess.run([sys.executable, str(script)], env=hooked(AUTODBG="1", AUTODBG_MODEL="none"),
                         capture_output=True, text=True)
    assert (run.returncode, run.stderr) == (plain.returncode, plain.stderr) == (-signal.SIGINT, plain.stderr)


@pytest.mark.slow
def test_autodbg_run_hang_after_interrupts_a_stuck_loop(tmp_path):
    script = tmp_path / "settings.py"
    script.write_text(STUCK)
    run = subprocess.run([sys.executable, "-m", "autodbg", "run", "--hang-after", "1", str(script)],
                         env=clean_env(AUTODBG_MODEL="none"), capture_output=True, text=True, timeout=60)
    assert run.returncode == 130
    traceback, ours = run.stderr.split("KeyboardInterrupt\n", 1)
    assert "line 7, in read_settings" in traceback
    assert "autodbg · where it was (--hang-after 1;" in ours
    assert "stuck: `i` stays 1" in " ".join(ours.split())


@pytest.mark.slow
def test_autodbg_run_without_hang_after_runs_a_finishing_program_to_its_end(tmp_path):
    script = tmp_path / "quick.py"
    script.write_text("import time\ntime.sleep(1.5)\nprint('done')\n")
    run = subprocess.run([sys.executable, "-m", "autodbg", "run", "--hang-after", "5", str(script)],
                         env=clean_env(AUTODBG_MODEL="none"), capture_output=True, text=True, timeout=60)
    assert (run.returncode, run.stdout, run.stderr) == (0, "done\n", "")


HANGING_TESTS = """\
def test_first():
    assert 1 + 1 == 2


def test_hangs():
    lines = ["a", "", "b"]
    i = 0
    while i < len(lines):
        if not lines[i]:
            continue
        i += 1


def test_last():
    assert "x".upper() == "X"
"""


@pytest.mark.slow
def test_pytest_hang_after_fails_the_hanging_test_and_goes_on(tmp_path):
    (tmp_path / "test_shop.py").write_text(HANGING_TESTS)
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--autodbg",
                          "--autodbg-hang-after", "1", "-rA", "test_shop.py"],
                         cwd=tmp_path, env=clean_env(AUTODBG_MODEL="none"), capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 1, run.stdout
    assert "1 failed, 2 passed" in run.stdout
    assert "FAILED test_shop.py::test_hangs" in run.stdout
    assert "autodbg.errors.HangTimeout: still running after 1 s" in run.stdout
    section = run.stdout.split("- autodbg -", 1)[1]
    assert "where it was (--autodbg-hang-after 1;" in section
    assert "stuck: `i` stays 1 and `while i < len(lines)` never changes" in " ".join(section.split())


# --- the analysis, on real frames -----------------------------------------------------------------

def interrupted_at_depth(function, *args) -> KeyboardInterrupt:
    try:
        function(*args)
    except KeyboardInterrupt as exc:
        return exc
    raise AssertionError("not interrupted")


def resolve(path, hops=0, seen=[]):  # noqa: B006 -- the depth at which the test interrupts it
    seen.append(path)
    location = head(path)
    return resolve(location, hops)  # hops never grows: the redirect loop is never stopped


def head(path):
    if len(resolve.__defaults__[1]) > 6:
        raise KeyboardInterrupt  # interrupted in a function the recursion calls
    return {"/sale": "/sale/index", "/sale/index": "/sale"}[path]


def countdown(n):
    if n == 0:
        raise KeyboardInterrupt
    return countdown(n - 1)


def found(exc) -> Hang:
    hang = hangs.where_it_was(exc, "Ctrl-C", others={})
    hang.stuck, hang.verdict = hangs.verdict(hang)
    return hang


def test_a_recursion_whose_arguments_come_back_is_stuck():
    hang = found(interrupted_at_depth(resolve, "/sale"))
    assert hang.recursion.depth == 7 and hang.recursion.unchanged["hops"] == "0"
    assert hang.stuck and hang.verdict.startswith("stuck: resolve() calls itself 7 deep") and "`hops` stays 0" in hang.verdict


def test_a_recursion_whose_argument_shrinks_is_not_stuck():
    hang = found(interrupted_at_depth(countdown, 5))
    assert hang.recursion.depth == 6 and not hang.recursion.repeated and not hang.stuck


def loop_check(tmp_path, source: str, call: str):
    """The loop of SOURCE's function f, interrupted at its line 4 (in the loop), then run on."""
    path = tmp_path / f"program{len(list(tmp_path.iterdir()))}.py"
    path.write_text(source)
    namespace = {}
    exec(compile(source, str(path), "exec"), namespace)
    frames = []

    def tracer(frame, event, arg):
        if event == "line" and frame.f_code.co_name == "f" and frame.f_lineno == 4:
            frames.append(frame)
            raise KeyboardInterrupt
        return tracer

    sys.settrace(tracer)
    try:
        eval(call, namespace)
    except KeyboardInterrupt:
        pass
    finally:
        sys.settrace(None)
    return hangs.run_loop_on(frames[0], 4, seconds=0.2)


def test_run_loop_on_tells_a_frozen_loop_from_a_moving_one(tmp_path):
    frozen = loop_check(tmp_path, "def f(n):\n    i = 0\n    while i < n:\n        n = n + 0\n", "f(3)")
    assert frozen.iterations > 100 and not frozen.ended and frozen.unchanged["i"] == "0" and frozen.repeated
    moving = loop_check(tmp_path, "def f(n):\n    i = 0\n    while i < n:\n        i = i + 1\n", "f(10 ** 9)")
    assert moving.changed["i"][:3] == ["0", "1", "2"] and not moving.repeated and not moving.ended
    ending = loop_check(tmp_path, "def f(n):\n    i = 0\n    while i < n:\n        i = i + 1\n", "f(5)")
    assert ending.ended and ending.iterations == 5


# --- threads and locks ------------------------------------------------------------------------------

LOCK_ORDER = """\
import threading
import time

books, stock = threading.Lock(), threading.Lock()


def restock():
    with stock:
        time.sleep(0.2)
        with books:
            pass


def audit():
    with books:
        time.sleep(0.2)
        with stock:
            pass


clerks = [threading.Thread(target=restock, daemon=True), threading.Thread(target=audit, daemon=True)]
for clerk in clerks:
    clerk.start()
time.sleep(0.5)
print("ready", flush=True)
for clerk in clerks:
    clerk.join()
"""


@pytest.mark.slow
def test_a_lock_order_deadlock_of_two_threads_is_named(hooked, tmp_path):
    script = tmp_path / "shop.py"
    script.write_text(LOCK_ORDER)
    run, _ = interrupt(script, hooked(AUTODBG="1", AUTODBG_MODEL="none"), after=0.2)
    assert run.returncode == -signal.SIGINT
    ours = " ".join(run.stderr.split("KeyboardInterrupt\n", 1)[1].split())
    assert "interrupted thread: shop.py:27 in <module> clerk.join()" in ours
    assert "stuck: deadlock: " in ours
    restock = "(restock) holds `stock` (lock {}, with at shop.py:8) and waits for `books` (lock {}, shop.py:10)"
    audit = "(audit) holds `books` (lock {}, with at shop.py:15) and waits for `stock` (lock {}, shop.py:17)"
    assert restock.format("A", "B") in ours and audit.format("B", "A") in ours \
        or restock.format("B", "A") in ours and audit.format("A", "B") in ours
    assert "No fix found." in ours or "Suggested fix" in ours  # stuck: investigated, to the final screen


QUEUE = """\
import queue
import threading
import time


def produce(jobs, count):
    for n in range(count):
        {produce}
        jobs.put(n)
    jobs.put(None)


def consume(jobs):
    done = []
    while True:
        job = jobs.get()
        if job is None:
            return done
        done.append(job)


jobs = queue.Queue()
threading.Thread(target=produce, args=(jobs, 3), daemon=True).start()
time.sleep(0.3)
print("ready", flush=True)
consume(jobs)
"""


@pytest.mark.slow
def test_a_queue_nobody_feeds_any_more_is_stuck(hooked, tmp_path):
    script = tmp_path / "jobs.py"
    script.write_text(QUEUE.format(produce="if n == 1:\n            return  # the end marker is never put"))
    run, _ = interrupt(script, hooked(AUTODBG="1", AUTODBG_MODEL="none"), after=0.2)
    ours = " ".join(run.stderr.split("KeyboardInterrupt\n", 1)[1].split())
    assert "stuck: it waits in `jobs.get()` (jobs.py:17) on a Queue, and no other thread is running" in ours
    assert "one iteration ran longer" not in ours  # decided without running the loop on


@pytest.mark.slow
def test_a_queue_whose_producer_still_runs_is_not_called_stuck(hooked, tmp_path):
    script = tmp_path / "jobs.py"
    script.write_text(QUEUE.format(produce="time.sleep(30)  # slow, but it will put"))
    run, _ = interrupt(script, hooked(AUTODBG="1", AUTODBG_MODEL="none"), after=0.2)
    ours = " ".join(run.stderr.split("KeyboardInterrupt\n", 1)[1].split())
    assert "interrupted thread: jobs.py:16 in consume job = jobs.get()" in ours
    assert "nothing can end the wait" not in ours and "stuck: " not in ours.replace("not stuck", "")
    assert "or it waited on a lock another thread held when the probe forked" in ours  # the probe's wait, bounded


def user_stack(frame):
    return [(f, f.f_lineno) for f in hangs._outward(frame) if "threading" not in f.f_code.co_filename]


@pytest.mark.slow
def test_lock_waits_reads_holders_and_waits_off_live_threads():
    books, stock = __import__("threading").Lock(), __import__("threading").Lock()
    started = __import__("threading").Barrier(3)

    def restock():
        with stock:
            started.wait()
            books.acquire(timeout=3)

    def audit():
        with books:
            started.wait()
            stock.acquire(timeout=3)

    import threading
    clerks = [threading.Thread(target=restock), threading.Thread(target=audit)]
    for clerk in clerks:
        clerk.start()
    started.wait()
    time.sleep(0.2)
    frames = sys._current_frames()
    stacks = [(clerk.name, user_stack(frames[clerk.ident])) for clerk in clerks]
    locks, blocked = hangs.lock_waits(stacks, others_running=True)
    for clerk in clerks:
        clerk.join()
    assert [(w.holds[0].split(" ")[0], w.waits_for.split(" ")[0]) for w in locks] == [
        ("`stock`", "`books.acquire(timeout=3)`"), ("`books`", "`stock.acquire(timeout=3)`")]
    assert blocked.startswith("deadlock: Thread-") and blocked.count("holds") == 2


@pytest.mark.slow
def test_a_condition_wait_holds_nothing_and_a_lock_taken_twice_is_a_deadlock():
    import threading
    ready, lock = threading.Condition(), threading.Lock()

    def wait_for_ready():
        with ready:
            ready.wait(timeout=3)  # wait() lets go of the condition

    def take_twice():
        with lock:
            lock.acquire(timeout=3)  # a Lock is not re-entrant

    workers = [threading.Thread(target=wait_for_ready), threading.Thread(target=take_twice)]
    for worker in workers:
        worker.start()
    time.sleep(0.3)
    frames = sys._current_frames()
    locks, blocked = hangs.lock_waits([(w.name, user_stack(frames[w.ident])) for w in workers], others_running=True)
    with ready:
        ready.notify_all()
    for worker in workers:
        worker.join()
    assert locks[0].holds == [] and locks[0].waits_for.startswith("`ready.wait(timeout=3)`")
    assert blocked.startswith("deadlock: Thread-") and blocked.endswith(
        "(take_twice) holds `lock` (lock A, with at tests/test_hang.py:%d) and waits for `lock.acquire(timeout=3)` "
        "(lock A, tests/test_hang.py:%d)" % (take_twice.__code__.co_firstlineno + 1, take_twice.__code__.co_firstlineno + 2))


# --- asyncio ----------------------------------------------------------------------------------------

AWAITS_FOREVER = """\
import asyncio


async def price(pending, sku):
    reply = asyncio.get_running_loop().create_future()
    pending[sku] = reply
    return await reply  # nobody ever sets it


async def stock(sku):
    await asyncio.sleep(0.01)
    return 4


async def main():
    pending = {}
    print("ready", flush=True)
    print(await asyncio.gather(stock("TEA-1"), price(pending, "TEA-1")))


asyncio.run(main())
"""


@pytest.mark.skipif(sys.version_info < (3, 11), reason="3.10's asyncio.run has no Ctrl-C handler to look from: "
                    "its tasks are cancelled before the excepthook, and only `asyncio.run(main())` is left")
@pytest.mark.slow
def test_ctrl_c_under_asyncio_run_says_which_await_it_was_stuck_at(hooked, tmp_path):
    script = tmp_path / "shop.py"
    script.write_text(AWAITS_FOREVER)
    plain = plain_interrupt(script)
    run, _ = interrupt(script, hooked(AUTODBG="1", AUTODBG_MODEL="none"), after=0.3)
    assert run.returncode == plain.returncode == -signal.SIGINT
    assert run.stderr.startswith(plain.stderr.split("asyncio.run(main())")[0])  # the user's traceback as Python's
    ours = " ".join(run.stderr.rsplit("KeyboardInterrupt\n", 1)[1].split())
    # asyncio.run cancelled the main task before the KeyboardInterrupt: its frames come from that cancellation
    assert "interrupted thread: shop.py:7 in price return await reply # nobody ever sets it" in ours
    # the tasks as asyncio.run's Ctrl-C handler found them, before it cancelled them
    assert "task Task-1: shop.py:18 in main print(await asyncio.gather(stock(\"TEA-1\"), price(pending, \"TEA-1\"))) awaits gather(task Task-2, task Task-3)" in ours
    assert "task Task-3: shop.py:7 in price return await reply # nobody ever sets it awaits a Future nobody had set yet" in ours


NEVER_RETRIEVED = """\
import asyncio


def quantity(row):
    return int(row["qty"])


async def load(row):
    return quantity(row)


async def main():
    asyncio.get_running_loop().create_task(load({"qty": "x2"}))  # nobody awaits it
    await asyncio.sleep(0.1)
    print("done", flush=True)


asyncio.run(main())
"""


def test_a_task_exception_never_retrieved_gets_the_evidence(hooked, tmp_path):
    script = tmp_path / "stock.py"
    script.write_text(NEVER_RETRIEVED)
    run = subprocess.run([sys.executable, script.name], env=hooked(AUTODBG="1", AUTODBG_MODEL="none", AUTODBG_VERBOSE="1"),
                         capture_output=True, text=True, timeout=60, cwd=tmp_path)  # short paths: no line wraps
    assert (run.returncode, run.stdout) == (0, "done\n")
    assert run.stderr.startswith("Task exception was never retrieved")
    ours = run.stderr.split("autodbg · evidence", 1)[1]
    assert "stock.py:5 in quantity  (crash site)" in ours and "row['qty'] = 'x2'" in ours


TRANSFER = """\
import threading
import time


class Till:
    def __init__(self, name):
        self.name, self.lock, self.cash = name, threading.Lock(), 100


def move(src, dst, amount):
    with src.lock:
        time.sleep(0.1)
        with dst.lock:  # each thread holds its source and waits for the other's
            src.cash -= amount
            dst.cash += amount


front, back = Till("front"), Till("back")
clerk = threading.Thread(target=move, args=(back, front, 5), daemon=True)
clerk.start()
move(front, back, 10)
"""


@pytest.mark.slow
def test_the_watchdog_sees_a_deadlock_of_the_main_thread_as_it_was(tmp_path):
    # By the time the crash handler runs, the main thread's `with` has let go of its lock and the
    # clerk went on: only the stacks the watchdog took as it fired show the cycle.
    (tmp_path / "tills.py").write_text(TRANSFER)
    run = subprocess.run([sys.executable, "-m", "autodbg", "run", "--hang-after", "1", "tills.py"], cwd=tmp_path,
                         env=clean_env(AUTODBG_MODEL="none"), capture_output=True, text=True, timeout=60)
    assert run.returncode == 130
    said = " ".join(run.stderr.split("KeyboardInterrupt\n", 1)[1].split())
    assert ("stuck: deadlock: interrupted thread holds `src.lock` (lock A, with at tills.py:11) and waits for "
            "`dst.lock` (lock B, tills.py:13); Thread-") in said  # the watchdog's timer is a thread too
    assert ("(move) holds `src.lock` (lock B, with at tills.py:11) and waits for `dst.lock` (lock A, tills.py:13)"
            in said)
