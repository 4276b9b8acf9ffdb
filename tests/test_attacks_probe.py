"""Attacks on the fork probe by the crashed program's own code (issue 34, items 3-5): signals and
scheduling through the kernel paths `kill(2)` is not, a program that leaves the probe without its
sandbox, the program's process-wide state (handlers, timers, profilers, patched functions) running
while autodbg works, and replies the program writes itself.

Each test is a real crashing program run under the installed hook (AUTODBG=1, no model). Its
attack sits in a `__repr__` the evidence calls (so it runs in a probe) or in what it sets up before
the crash; each asserts the effect did not happen: the crashed process exits 1 with its traceback,
bystanders live with their priority, affinity and scheduler unchanged, no canary file appears, and
no reply of the program's is taken for autodbg's.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import clean_env
from crashkit import try_fix_in_crash

GUARD = 60  # only to stop a hung crash; not a speed assertion

PROGRAM = '''\
import fcntl, json, os, signal, socket, struct, subprocess, sys, time
MAIN = os.getpid()
HERE = os.path.dirname(os.path.abspath(__file__))
{setup}

class Evil:
    def __repr__(self):
        if os.getpid() == MAIN:
            return "Evil()"
{attack}
        return "attack ran"


def main(x):
    return 1 / 0


main(Evil())
'''

# Started by the program before it crashes: in its process group, its pid in bystander.pid.
BYSTANDER = '''\
bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
open(os.path.join(HERE, "bystander.pid"), "w").write(str(bystander.pid))
'''

# Written by the crashed process when it exits: what its own scheduling was then.
AT_EXIT = '''\
import atexit
START = (os.getpriority(os.PRIO_PROCESS, 0), sorted(os.sched_getaffinity(0)), os.sched_getscheduler(0))
def record():
    now = (os.getpriority(os.PRIO_PROCESS, 0), sorted(os.sched_getaffinity(0)), os.sched_getscheduler(0))
    open(os.path.join(HERE, "at_exit.json"), "w").write(json.dumps({"start": START, "now": now}))
atexit.register(record)
'''

# Program code in the probe writing a reply of its own on the pipe autodbg's reply goes through.
FIND_PIPE = '''\
def reply_pipes():
    for name in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{name}").startswith("pipe:"):
                yield int(name)
        except OSError:
            pass
'''


@dataclass
class Crash:
    status: int
    stderr: str
    folder: Path

    def bystander(self) -> int:
        return int((self.folder / "bystander.pid").read_text())


def crash(tmp_path: Path, attack: str, setup: str = "") -> Crash:
    """Run the program whose Evil.__repr__ runs ATTACK in a probe (SETUP runs first, at the top)."""
    folder = tmp_path / "app"
    folder.mkdir()
    source = PROGRAM.format(setup=setup, attack=textwrap.indent(textwrap.dedent(attack), " " * 8))
    (folder / "app.py").write_text(source)
    env = clean_env(AUTODBG="1", AUTODBG_MODEL="none", AUTODBG_TIMEOUT="20", PYTHONDONTWRITEBYTECODE="1",
                    AUTODBG_VERBOSE="1")  # the whole evidence, which the attacks try to reach
    proc = subprocess.Popen([sys.executable, "app.py"], cwd=folder, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        _, err = proc.communicate(timeout=GUARD)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"the crash hook was still running after {GUARD} s")
    finally:
        _kill_bystander(folder)
    return Crash(proc.returncode, err.decode(errors="replace"), folder)


def _kill_bystander(folder: Path) -> None:
    try:
        os.kill(int((folder / "bystander.pid").read_text()), signal.SIGKILL)
    except (OSError, ValueError):
        pass


def assert_python_exit(run: Crash) -> None:
    """Status 1, the traceback, the evidence, and no error of autodbg's."""
    assert run.status == 1, run.stderr[-2000:]
    assert "ZeroDivisionError: division by zero" in run.stderr
    assert "autodbg: internal error" not in run.stderr, run.stderr[-2000:]
    assert "autodbg · evidence" in run.stderr, run.stderr[-2000:]


def bystander_alive(pid: int) -> bool:
    """Alive, not stopped, not a zombie (it has no reaper once the crashed process is gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state not in ("Z", "T", "t", "X")


def crash_with_bystander(tmp_path: Path, attack: str, setup: str = "") -> tuple[Crash, dict]:
    """Crash with a bystander in the program's process group, and how it was once the crash ended."""
    folder = tmp_path / "app"
    folder.mkdir()
    source = PROGRAM.format(setup=BYSTANDER + setup, attack=textwrap.indent(textwrap.dedent(attack), " " * 8))
    (folder / "app.py").write_text(source)
    env = clean_env(AUTODBG="1", AUTODBG_MODEL="none", AUTODBG_TIMEOUT="20", PYTHONDONTWRITEBYTECODE="1",
                    AUTODBG_VERBOSE="1")  # the whole evidence, which the attacks try to reach
    proc = subprocess.Popen([sys.executable, "app.py"], cwd=folder, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        _, err = proc.communicate(timeout=GUARD)
        pid = int((folder / "bystander.pid").read_text())
        seen = {"alive": bystander_alive(pid), "nice": os.getpriority(os.PRIO_PROCESS, pid),
                "affinity": os.sched_getaffinity(pid), "scheduler": os.sched_getscheduler(pid)}
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"the crash hook was still running after {GUARD} s")
    except (OSError, ValueError) as exc:
        seen = {"alive": False, "error": str(exc)}
    finally:
        _kill_bystander(folder)
    return Crash(proc.returncode, err.decode(errors="replace"), folder), seen


def untouched(seen: dict) -> None:
    assert seen["alive"], seen
    assert seen["nice"] == os.getpriority(os.PRIO_PROCESS, 0), seen
    assert seen["affinity"] == os.sched_getaffinity(0), seen
    assert seen["scheduler"] == os.sched_getscheduler(0), seen


def own_scheduling_kept(run: Crash) -> None:
    recorded = json.loads((run.folder / "at_exit.json").read_text())
    assert recorded["now"] == recorded["start"], recorded


# --- item 3: signals and scheduling past kill(2) ------------------------------------------------

SIGIO_TO = '''\
a, b = socket.socketpair()
fcntl.fcntl(a, fcntl.F_SETOWN, {owner})
fcntl.fcntl(a, 10, {signal})  # F_SETSIG
fcntl.fcntl(a, fcntl.F_SETFL, os.O_ASYNC | os.O_NONBLOCK)
b.send(b"x")
time.sleep(0.2)
'''


def test_fcntl_setsig_sends_sigkill_to_the_crashed_process(tmp_path):
    assert_python_exit(crash(tmp_path, SIGIO_TO.format(owner="os.getppid()", signal="signal.SIGKILL")))


def test_fcntl_setsig_sends_sigstop_to_the_crashed_process(tmp_path):
    assert_python_exit(crash(tmp_path, SIGIO_TO.format(owner="os.getppid()", signal="signal.SIGSTOP")))


def test_fcntl_setown_sends_sigterm_to_the_process_group(tmp_path):
    run, seen = crash_with_bystander(tmp_path, SIGIO_TO.format(owner="-os.getpgid(os.getppid())",
                                                               signal="signal.SIGTERM"))
    assert_python_exit(run)
    untouched(seen)


def test_fcntl_setown_ex_sends_sigkill_to_the_crashed_process(tmp_path):
    attack = '''\
    a, b = socket.socketpair()
    fcntl.fcntl(a, 15, struct.pack("ii", 1, os.getppid()))  # F_SETOWN_EX, F_OWNER_PID
    fcntl.fcntl(a, 10, signal.SIGKILL)
    fcntl.fcntl(a, fcntl.F_SETFL, os.O_ASYNC | os.O_NONBLOCK)
    b.send(b"x")
    time.sleep(0.2)
    '''
    assert_python_exit(crash(tmp_path, attack))


def test_fcntl_sigio_without_setsig_reaches_the_crashed_process(tmp_path):
    attack = '''\
    a, b = socket.socketpair()
    fcntl.fcntl(a, fcntl.F_SETOWN, os.getppid())  # plain SIGIO: its default ends the process
    fcntl.fcntl(a, fcntl.F_SETFL, os.O_ASYNC | os.O_NONBLOCK)
    b.send(b"x")
    time.sleep(0.2)
    '''
    assert_python_exit(crash(tmp_path, attack))


def test_fcntl_setlease_on_a_users_file(tmp_path):
    attack = '''\
    with open(os.path.join(HERE, "app.py")) as f:
        fcntl.fcntl(f, 1024, fcntl.F_RDLCK)  # F_SETLEASE
        return "LEASE-TAKEN"
    '''
    run = crash(tmp_path, attack)
    assert_python_exit(run)
    assert "LEASE-TAKEN" not in run.stderr


def test_fcntl_notify_on_the_users_folder(tmp_path):
    attack = '''\
    fd = os.open(HERE, os.O_RDONLY)
    fcntl.fcntl(fd, 1026, 0x80000000 | 0x2)  # F_NOTIFY, DN_MULTISHOT | DN_MODIFY
    return "NOTIFY-SET"
    '''
    run = crash(tmp_path, attack)
    assert_python_exit(run)
    assert "NOTIFY-SET" not in run.stderr


def test_flock_on_a_users_file(tmp_path):
    attack = '''\
    with open(os.path.join(HERE, "app.py")) as f:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return "FLOCK-TAKEN"
    '''
    run = crash(tmp_path, attack)
    assert_python_exit(run)
    assert "FLOCK-TAKEN" not in run.stderr


def test_setpriority_of_a_bystander(tmp_path):
    attack = '''\
    os.setpriority(os.PRIO_PROCESS, int(open(os.path.join(HERE, "bystander.pid")).read()), 19)
    '''
    run, seen = crash_with_bystander(tmp_path, attack)
    assert_python_exit(run)
    untouched(seen)


def test_setpriority_of_the_crashed_process(tmp_path):
    run = crash(tmp_path, "os.setpriority(os.PRIO_PROCESS, os.getppid(), 19)\n", setup=AT_EXIT)
    assert_python_exit(run)
    own_scheduling_kept(run)


def test_setpriority_of_the_process_group(tmp_path):
    run, seen = crash_with_bystander(tmp_path, "os.setpriority(os.PRIO_PGRP, os.getpgid(os.getppid()), 19)\n")
    assert_python_exit(run)
    untouched(seen)


def test_sched_setaffinity_of_the_crashed_process(tmp_path):
    run = crash(tmp_path, "os.sched_setaffinity(os.getppid(), {min(os.sched_getaffinity(0))})\n", setup=AT_EXIT)
    assert_python_exit(run)
    if len(os.sched_getaffinity(0)) > 1:
        own_scheduling_kept(run)


def test_sched_setaffinity_of_a_bystander(tmp_path):
    attack = '''\
    pid = int(open(os.path.join(HERE, "bystander.pid")).read())
    os.sched_setaffinity(pid, {min(os.sched_getaffinity(0))})
    return "AFFINITY-SET"
    '''
    run, seen = crash_with_bystander(tmp_path, attack)
    assert_python_exit(run)
    assert "AFFINITY-SET" not in run.stderr
    untouched(seen)


def test_sched_setscheduler_of_the_crashed_process(tmp_path):
    attack = "os.sched_setscheduler(os.getppid(), os.SCHED_IDLE, os.sched_param(0))\n"
    run = crash(tmp_path, attack, setup=AT_EXIT)
    assert_python_exit(run)
    own_scheduling_kept(run)


def test_sched_setscheduler_of_a_bystander(tmp_path):
    attack = '''\
    pid = int(open(os.path.join(HERE, "bystander.pid")).read())
    os.sched_setscheduler(pid, os.SCHED_BATCH, os.sched_param(0))
    '''
    run, seen = crash_with_bystander(tmp_path, attack)
    assert_python_exit(run)
    untouched(seen)


def test_sched_setparam_of_the_crashed_process(tmp_path):
    attack = '''\
    os.sched_setparam(os.getppid(), os.sched_param(0))
    return "SETPARAM-DONE"
    '''
    run = crash(tmp_path, attack)
    assert_python_exit(run)
    assert "SETPARAM-DONE" not in run.stderr


def test_pidfd_send_signal_taken_before_the_crash(tmp_path):
    attack = '''\
    pid = int(open(os.path.join(HERE, "bystander.pid")).read())
    SEND(os.pidfd_open(pid), signal.SIGKILL)
    '''
    run, seen = crash_with_bystander(tmp_path, attack, setup="from signal import pidfd_send_signal as SEND\n")
    assert_python_exit(run)
    untouched(seen)


def test_killpg_of_the_process_group(tmp_path):
    run, seen = crash_with_bystander(tmp_path, "os.killpg(os.getpgid(os.getppid()), signal.SIGTERM)\n")
    assert_python_exit(run)
    untouched(seen)


def test_hardening_hook_refusing_ctypes_leaves_the_probe_without_seccomp(tmp_path):
    setup = '''\
from signal import pidfd_send_signal as SEND
def hardening(event, args):
    if event.startswith("ctypes"):
        raise RuntimeError("ctypes is off in this service")
sys.addaudithook(hardening)
'''
    attack = '''\
    pid = int(open(os.path.join(HERE, "bystander.pid")).read())
    SEND(os.pidfd_open(pid), signal.SIGKILL)
    '''
    run, seen = crash_with_bystander(tmp_path, attack, setup=setup)
    assert_python_exit(run)
    untouched(seen)
    assert "probes off: the sandbox could not be installed" in " ".join(run.stderr.split())


def test_hook_refusing_addaudithook_leaves_the_probe_without_its_audit_hook(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("OUTSIDE-TEXT-7f3a")
    setup = f'''\
def no_more_hooks(event, args):
    if event == "sys.addaudithook":
        raise RuntimeError("no more audit hooks")
sys.addaudithook(no_more_hooks)
# (not named like a secret: its path, redacted by pieces, would cut the words the test reads)
OUTSIDE_FILE = {str(outside / "secret.txt")!r}
'''
    run = crash(tmp_path, "return open(OUTSIDE_FILE).read()\n", setup=setup)
    assert_python_exit(run)
    assert "OUTSIDE-TEXT-7f3a" not in run.stderr
    assert "probes off: the sandbox could not be installed" in " ".join(run.stderr.split())


# --- item 4: the program's process-wide state, disarmed -----------------------------------------

def test_patched_os_fork_ends_the_crashed_process(tmp_path):
    run = crash(tmp_path, "", setup="os.fork = lambda: os._exit(70)\n")
    assert_python_exit(run)
    assert "x = attack ran" in run.stderr  # the probe ran, through autodbg's own fork


@pytest.mark.slow
def test_frozen_monotonic_hangs_the_hook(tmp_path):
    setup = "time.monotonic = lambda: 1000.0\n"
    started = time.monotonic()
    run = crash(tmp_path, "time.sleep(30)\n", setup=setup)  # a probe that outlives its deadline
    assert_python_exit(run)
    assert time.monotonic() - started < 40


def test_lowered_recursion_limit_is_an_internal_error(tmp_path):
    assert_python_exit(crash(tmp_path, "", setup="sys.setrecursionlimit(60)\n"))


CANARY_SETUP = '''\
CANARY = os.path.join(HERE, "canary.txt")
AUTODBGS_WORK = os.path.join("autodbg", "pipeline.py")  # past the hook's entry: the investigation
def touch(*args):
    with open(CANARY, "a") as f:
        f.write(f"{os.getpid()} {args[:1]!r}\\n")
'''


def no_canary(run: Crash) -> None:
    canary = run.folder / "canary.txt"
    assert not canary.exists(), canary.read_text()[:500]


def test_sigchld_handler_runs_each_time_a_probe_exits(tmp_path):
    run = crash(tmp_path, "", setup=CANARY_SETUP + "signal.signal(signal.SIGCHLD, touch)\n")
    assert_python_exit(run)
    no_canary(run)


def test_interval_timer_handler_runs_during_the_investigation(tmp_path):
    setup = CANARY_SETUP + '''\
def during_the_investigation(signum, frame):
    while frame is not None:  # what the signal interrupted: autodbg's work, or the program's exit
        if AUTODBGS_WORK in frame.f_code.co_filename:
            touch(signum)
        frame = frame.f_back
signal.signal(signal.SIGALRM, during_the_investigation)
signal.setitimer(signal.ITIMER_REAL, 0.01, 0.01)
import atexit
atexit.register(signal.setitimer, signal.ITIMER_REAL, 0)  # the program's own exit stops it
'''
    run = crash(tmp_path, "", setup=setup)
    assert_python_exit(run)
    no_canary(run)


def test_armed_alarm_kills_the_crashed_process(tmp_path):
    run = crash(tmp_path, "time.sleep(0.3)\n", setup="signal.setitimer(signal.ITIMER_REAL, 0.2)\n")
    assert_python_exit(run)


def test_profiler_runs_on_autodbgs_code(tmp_path):
    setup = CANARY_SETUP + '''\
def profiler(frame, event, arg):
    if AUTODBGS_WORK in frame.f_code.co_filename and os.getpid() == MAIN:
        touch(frame.f_code.co_name)
sys.setprofile(profiler)
'''
    run = crash(tmp_path, "", setup=setup)
    assert_python_exit(run)
    no_canary(run)


def test_tracer_runs_on_autodbgs_code(tmp_path):
    setup = CANARY_SETUP + '''\
def tracer(frame, event, arg):
    if AUTODBGS_WORK in frame.f_code.co_filename and os.getpid() == MAIN:
        touch(frame.f_code.co_name)
    return None
sys.settrace(tracer)
'''
    run = crash(tmp_path, "", setup=setup)
    assert_python_exit(run)
    no_canary(run)


def test_gc_callback_runs_during_the_investigation(tmp_path):
    setup = CANARY_SETUP + ("import gc\ngc.callbacks.append(lambda phase, info: os.getpid() == MAIN and "
                            "'autodbg.pipeline' in sys.modules and not sys.is_finalizing() and touch(phase))\n")
    run = crash(tmp_path, "", setup=setup)
    assert_python_exit(run)
    no_canary(run)


def test_patched_select_runs_in_the_crashed_process(tmp_path):
    setup = CANARY_SETUP + '''\
import select
real_select = select.select
def patched(*args):
    if os.getpid() == MAIN:
        touch("select")
    return real_select(*args)
select.select = patched
'''
    run = crash(tmp_path, "", setup=setup)
    assert_python_exit(run)
    no_canary(run)
    assert "x = attack ran" in run.stderr


# --- item 5: replies are data -------------------------------------------------------------------

def test_deep_json_reply_raises_recursionerror_in_the_parent(tmp_path):
    attack = '''\
    for fd in reply_pipes():
        os.write(fd, b"[" * 100000 + b"]" * 100000)
    os._exit(0)
    '''
    run = crash(tmp_path, attack, setup=FIND_PIPE)
    assert_python_exit(run)
    assert "RecursionError" not in run.stderr


def test_reply_of_the_wrong_shape_breaks_the_parent(tmp_path):
    attack = '''\
    for fd in reply_pipes():
        os.write(fd, json.dumps({"status": "error", "detail": {"a": 1}, "refusals": 5}).encode())
    os._exit(0)
    '''
    run = crash(tmp_path, attack, setup=FIND_PIPE)
    assert_python_exit(run)


def test_forged_reply_then_a_crash_counts_as_autodbgs(tmp_path):
    attack = '''\
    for fd in reply_pipes():
        os.write(fd, json.dumps({"status": "error", "detail": "FORGED-BY-THE-PROGRAM"}).encode())
    os.kill(os.getpid(), signal.SIGSEGV)
    '''
    run = crash(tmp_path, attack, setup=FIND_PIPE)
    assert_python_exit(run)
    assert "FORGED-BY-THE-PROGRAM" not in run.stderr


DIVIDING_PROGRAM = """\
def divisor(b):
    return b


def ratio(a, b):
    return a / divisor(b)


print(ratio(1, 0))
"""


def test_an_honest_fix_still_passes(tmp_path):
    """The unchanged program's trial (the check against replies a program writes itself) fails,
    so a real fix still passes."""
    program = tmp_path / "prog"
    program.mkdir()
    source = DIVIDING_PROGRAM
    (program / "app.py").write_text(source)
    line = source.splitlines().index("    return a / divisor(b)") + 1
    fix = {"file": str(program / "app.py"), "first": line, "last": line, "new": "    return a / divisor(b) if b else 0.0\n"}
    trial = try_fix_in_crash(tmp_path / "hook", program, ["app.py"], fix)
    assert trial["result"] in ("passes", "guards"), trial
