"""Attacks on a confined whole-program run (a fix's verification, the judge's test runs): each
model-written fix line tries one thing a run on the copy may not do, and each test asserts it did
not happen: the canary outside the copy is unchanged, no process it started is left, the process
that verified (its parent) and a bystander are alive and unchanged, and the label is not green.

The verifier runs in its own subprocess (the real autodbg.program.verify), so an attack on the
parent hits that process, not pytest."""

from __future__ import annotations

import ast
import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest

from autodbg.fix.check import check_fix
from autodbg.fix.label import label_of
from autodbg.pipeline import judge, verify
from autodbg.investigate.trying import RelatedTests
from autodbg.program.judge import Tests as JudgedFiles, run_tests
from autodbg.records import Edit, FixTrial, Label, TrialResult

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux kernel layers")

APP = """\
import sys


def share(total, people):
    return total / people


print(share(10, int(sys.argv[1]) if len(sys.argv) > 1 else 0))
"""
CANARY_TEXT = "the user's own file\n"
GREEN = (Label.PASSES_YOUR_TESTS, Label.STOPS_THE_CRASH)

VERIFIER = """\
import json, os, struct, sys
from autodbg.program.target import Program
from autodbg.program.verify import verify_fix
from autodbg.records import Edit

args = json.loads(sys.argv[1])
if args["no_landlock"]:  # a kernel without Landlock, as far as anything in this process can tell
    import ctypes
    op = lambda code, k, jt=0, jf=0: struct.pack("HBBI", code, jt, jf, k)
    code = op(0x20, 0) + op(0x15, 444, 0, 1) + op(0x06, 0x00050000 | 38) + op(0x06, 0x7FFF0000)
    class Prog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
    buffer = ctypes.create_string_buffer(code, len(code))
    libc = ctypes.CDLL(None, use_errno=True)
    assert libc.prctl(38, 1, 0, 0, 0) == 0
    assert libc.prctl(22, 2, ctypes.byref(Prog(len(code) // 8, ctypes.cast(buffer, ctypes.c_void_p))), 0, 0) == 0
nice, affinity = os.getpriority(os.PRIO_PROCESS, 0), sorted(os.sched_getaffinity(0))
verified, outcome = verify_fix(Program(None, [args["script"]], args["cwd"]), Edit(**args["edit"]),
                               "ZeroDivisionError", args["budget"])
print(json.dumps({"verified": verified, "outcome": outcome,
                  "nice_changed": os.getpriority(os.PRIO_PROCESS, 0) != nice,
                  "affinity_changed": sorted(os.sched_getaffinity(0)) != affinity}))
"""


class Scene:
    """A crashing program, a canary outside its folder, a bystander process, a mark for processes."""

    def __init__(self, tmp_path: Path) -> None:
        self.program = tmp_path / "prog"
        self.program.mkdir()
        (self.program / "app.py").write_text(APP)
        self.outside = tmp_path / "outside"  # on PYTHONPATH: a folder the run may read
        self.outside.mkdir()
        self.canary = self.outside / "canary.txt"
        self.canary.write_text(CANARY_TEXT)
        self.canary.chmod(0o644)
        os.utime(self.canary, (1_000_000_000, 1_000_000_000))
        self.mark = f"autodbg-attack-{uuid.uuid4().hex}"
        self.bystander = subprocess.Popen(["sleep", "300"], start_new_session=True)
        self.affinity = sorted(os.sched_getaffinity(self.bystander.pid))

    def values(self) -> dict:
        return {"canary": str(self.canary), "outside": str(self.outside), "mark": self.mark,
                "bystander": self.bystander.pid}

    def fix(self, attack: str) -> Edit:
        lines = textwrap.dedent(attack.format(**self.values())).strip("\n").splitlines()
        body = "".join(f"    {line}\n" for line in lines)
        return Edit(file=str(self.program / "app.py"), first=5, last=5,
                    replacement=body + "    return total / max(people, 1)\n", origin="model")

    def verify(self, attack: str, no_landlock: bool = False, budget: float = 20) -> dict:
        edit = self.fix(attack)
        assert check_fix(edit).problem is None
        args = {"script": str(self.program / "app.py"), "cwd": str(self.program), "budget": budget,
                "no_landlock": no_landlock, "edit": {**edit.to_json()}}
        env = {**os.environ, "AUTODBG": "0",
               "PYTHONPATH": os.pathsep.join(filter(None, [str(self.outside), os.environ.get("PYTHONPATH")]))}
        run = subprocess.run([sys.executable, "-c", VERIFIER, json.dumps(args)], capture_output=True, text=True,
                             env=env, timeout=budget + 60)
        assert run.returncode == 0, f"the verifier died ({run.returncode}): {run.stderr[-2000:]}"
        return json.loads(run.stdout.strip().splitlines()[-1])

    def check(self, verified: dict) -> None:
        """The attack had no effect, and the fix is not labelled as working."""
        left = self.left_behind()
        problems = []
        if left:
            problems.append(f"processes outlived the run: {left}")
        if not self.canary.exists():
            problems.append("the canary is gone")
        else:
            st = self.canary.stat()
            if self.canary.read_text() != CANARY_TEXT:
                problems.append(f"the canary was written: {self.canary.read_text()!r}")
            if st.st_mode & 0o777 != 0o644 or st.st_mtime != 1_000_000_000:
                problems.append(f"the canary's metadata changed: {oct(st.st_mode)} {st.st_mtime}")
        if planted := set(os.listdir(self.outside)) - {"canary.txt"}:
            problems.append(f"files appeared outside: {sorted(planted)}")
        if self.bystander.poll() is not None:
            problems.append(f"the bystander was killed: {self.bystander.returncode}")
        elif sorted(os.sched_getaffinity(self.bystander.pid)) != self.affinity:
            problems.append("the bystander's CPU affinity changed")
        if verified.get("nice_changed") or verified.get("affinity_changed"):
            problems.append(f"the verifier's scheduling changed: {verified}")
        fix = check_fix(self.fix("pass"))
        fix.verified, fix.outcome = verified["verified"], verified["outcome"]
        if label_of(fix) in GREEN:
            problems.append(f"labelled {label_of(fix)}: {verified['outcome']}")
        assert not problems, "\n".join(problems)

    def left_behind(self) -> list[int]:
        time.sleep(0.3)
        found = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            if self.mark.encode() in cmdline:
                found.append(int(pid))
                os.kill(int(pid), signal.SIGKILL)
        return found

    def close(self) -> None:
        self.bystander.kill()
        self.bystander.wait()


@pytest.fixture
def scene(tmp_path):
    made = Scene(tmp_path)
    yield made
    made.close()


SPAWN = """\
import _posixsubprocess, os, sys
r, w = os.pipe()
_posixsubprocess.fork_exec([sys.executable, "-c", "import time; time.sleep(1000)", "{mark}"], [sys.executable.encode()], True, (), None, None, -1, -1, -1, -1, -1, -1, r, w, True, NEW_SESSION, *((-1,) if sys.version_info >= (3, 11) else ()), None, None, None, -1, None, False)
"""


def test_write_through_a_path_object_that_answers_differently_the_second_time(scene):
    scene.check(scene.verify("""
        class Shifty:
            calls = 0
            def __fspath__(self):
                Shifty.calls += 1
                return "inside.txt" if Shifty.calls % 2 else {canary!r}
        import shutil
        open("inside.txt", "w").write("x")
        for _ in range(2):
            shutil.copyfile("inside.txt", Shifty())
            open(Shifty(), "w").write("owned")
    """))


def test_truncate_a_file_outside_relative_to_a_dir_fd(scene):
    scene.check(scene.verify("""
        import os
        where = os.open({outside!r}, os.O_RDONLY)
        os.write(os.open("canary.txt", os.O_WRONLY | os.O_TRUNC, dir_fd=where), b"owned")
    """))


def test_delete_a_users_file_relative_to_a_dir_fd(scene):
    scene.check(scene.verify("""
        import os
        os.remove("canary.txt", dir_fd=os.open({outside!r}, os.O_RDONLY))
    """))


def test_rename_a_users_file_relative_to_a_dir_fd(scene):
    scene.check(scene.verify("""
        import os
        where = os.open({outside!r}, os.O_RDONLY)
        os.rename("canary.txt", "moved.txt", src_dir_fd=where, dst_dir_fd=where)
    """))


def test_write_after_chdir_out_of_the_copy(scene):
    scene.check(scene.verify("""
        import os
        os.chdir({outside!r})
        open("canary.txt", "w").write("owned")
    """))


def test_write_through_a_symlink_made_in_the_copy(scene):
    scene.check(scene.verify("""
        import os
        os.symlink({canary!r}, "link.txt")
        open("link.txt", "w").write("owned")
    """))


def test_chmod_a_users_file_through_its_descriptor(scene):
    scene.check(scene.verify("""
        import os
        os.chmod(os.open({canary!r}, os.O_RDONLY), 0)
    """))


def test_touch_a_users_file_through_its_descriptor(scene):
    scene.check(scene.verify("""
        import os
        os.utime(os.open({canary!r}, os.O_RDONLY), (2_000_000_000, 2_000_000_000))
    """))


def test_start_a_process_that_outlives_the_run(scene):
    scene.check(scene.verify(SPAWN.replace("NEW_SESSION", "False")))


def test_start_a_daemon_in_its_own_session_and_hang(scene):
    scene.check(scene.verify(SPAWN.replace("NEW_SESSION", "True") + "while True: pass\n", budget=3))


def test_kill_the_verifier_with_pidfd_send_signal(scene):
    scene.check(scene.verify("""
        import os, signal
        signal.pidfd_send_signal(os.pidfd_open(os.getppid()), signal.SIGKILL)
    """))


def test_kill_a_bystander_with_pidfd_send_signal(scene):
    scene.check(scene.verify("""
        import os, signal
        signal.pidfd_send_signal(os.pidfd_open({bystander}), signal.SIGKILL)
    """))


def test_kill_the_verifier_with_sigio_through_fcntl(scene):
    scene.check(scene.verify("""
        import fcntl, os, signal
        r, w = os.pipe()
        fcntl.fcntl(r, fcntl.F_SETOWN, os.getppid())
        fcntl.fcntl(r, 10, signal.SIGKILL)  # F_SETSIG
        fcntl.fcntl(r, fcntl.F_SETFL, os.O_ASYNC | os.O_NONBLOCK)
        os.write(w, b"x")
    """))


def test_kill_the_bystanders_group_with_sigio_through_fcntl(scene):
    scene.check(scene.verify("""
        import fcntl, os, signal
        r, w = os.pipe()
        fcntl.fcntl(r, fcntl.F_SETOWN, -{bystander})
        fcntl.fcntl(r, fcntl.F_SETFL, os.O_ASYNC | os.O_NONBLOCK)
        os.write(w, b"x")
    """))


def test_lower_the_verifiers_priority(scene):
    scene.check(scene.verify("""
        import os
        os.setpriority(os.PRIO_PROCESS, os.getppid(), 19)
    """))


def test_pin_a_bystander_to_one_cpu(scene):
    scene.check(scene.verify("""
        import os
        os.sched_setaffinity({bystander}, {{0}})
        os.sched_setaffinity(os.getppid(), {{0}})
    """))


def test_connect_to_a_unix_socket_outside_the_copy(scene, tmp_path):
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(tmp_path / "agent.sock"))
    server.listen(1)
    server.setblocking(False)
    try:
        scene.check(scene.verify(f"""
            import _socket
            _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM).connect({str(tmp_path / "agent.sock")!r})
        """))
        with pytest.raises(BlockingIOError):
            server.accept()
    finally:
        server.close()


def test_connect_to_an_abstract_unix_socket(scene):
    name = "\0" + scene.mark
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(name)
    server.listen(1)
    server.setblocking(False)
    try:
        scene.check(scene.verify(f"""
            import _socket
            _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM).connect({name!r})
        """))
        with pytest.raises(BlockingIOError):
            server.accept()
    finally:
        server.close()


def test_create_a_file_next_to_the_canary(scene):
    scene.check(scene.verify("""
        import os
        os.close(os.open({outside!r} + "/planted.py", os.O_WRONLY | os.O_CREAT))
    """))


def test_without_landlock_nothing_runs_and_it_says_why(scene):
    verified = scene.verify("""
        open("ran.txt", "w").write("the fix ran")
        import os
        os.remove({canary!r})
    """, no_landlock=True)
    scene.check(verified)
    assert verified == {"verified": False, "nice_changed": False, "affinity_changed": False,
                        "outcome": verified["outcome"]}
    assert verified["outcome"].startswith("not run: the kernel cannot confine writes here (no Landlock")


def test_a_clean_fix_is_still_verified(scene):
    verified = scene.verify("pass")
    assert verified["verified"] is True and verified["outcome"] == "verified by re-running: the program now exits 0"


# --- the judge's test runs ------------------------------------------------------------------------

@pytest.mark.slow
def test_the_judges_test_run_cannot_delete_a_users_file(scene):
    (scene.program / "pyproject.toml").write_text("")
    (scene.program / "test_app.py").write_text("from app import share\n\n\ndef test_share():\n    assert share(4, 2) == 2\n")
    (scene.program / "app.py").write_text(APP.replace("print(share", "if __name__ == '__main__':\n    print(share"))
    tests = JudgedFiles(str(scene.program), (str(scene.program / "test_app.py"),))
    assert run_tests(tests, None, 30) == {"test_app::test_share": True}
    for attack in (f"import os\nos.remove({str(scene.canary)!r})\n", SPAWN.replace("NEW_SESSION", "True"),
                   f"import os\nos.remove('canary.txt', dir_fd=os.open({str(scene.outside)!r}, os.O_RDONLY))\n"):
        # At import: the test module imports the changed module before its test runs.
        change = Edit(file=str(scene.program / "app.py"), first=1, last=1,
                      replacement=attack.format(**scene.values()) + "import sys\n", origin="model")
        ran = run_tests(tests, change, 30)
        assert ran != {"test_app::test_share": True}, ran
    scene.check({"verified": False, "outcome": "not verified"})


# --- never run again outside a probe what a probe refused -----------------------------------------

def test_a_change_the_probe_refused_is_neither_verified_nor_judged(scene, tmp_path):
    from types import SimpleNamespace

    from autodbg.program.target import Program
    from autodbg.records import Diagnosis, SourceWindow

    edit = scene.fix("""
        import os
        os.remove({canary!r})
    """)
    fix = check_fix(edit)
    fix.trial = FixTrial(TrialResult.NOT_RUN, "refused by the sandbox: os.remove(...)",
                         refused=f"refused by the sandbox: os.remove({str(scene.canary)!r})")
    diagnosis = Diagnosis(file=edit.file, display_file="app.py", line=5, line_end=5, root_cause="",
                          source_window=SourceWindow(first=1, lines=[]), fix=fix)
    result = SimpleNamespace(diagnosis=diagnosis, dossier=SimpleNamespace(exception=SimpleNamespace(type="ZeroDivisionError"), frames=[]),
                             timings=SimpleNamespace(), search=None, candidates=[])
    session = SimpleNamespace(rerun=SimpleNamespace(program=Program(None, [edit.file], str(scene.program)), budget=20, runs=0))
    verify(session, result)
    judge(RelatedTests(result.dossier), result, time.monotonic() + 30, lambda step: None)
    assert session.rerun.runs == 0
    assert fix.verified is False and fix.outcome.startswith("not run again: in its probe it tried refused by the sandbox")
    assert fix.label == Label.NOT_RUN and fix.judgement is None
    scene.check({"verified": fix.verified, "outcome": fix.outcome})


# --- the kernel layers alone (no audit hook): what C code or a missed audit event would meet --------

KERNEL_ONLY = """\
import errno, os, signal, sys
from autodbg.probe import landlock, seccomp
scratch, canary, bystander = sys.argv[1], sys.argv[2], int(sys.argv[3])
landlock.restrict((scratch,))
seccomp.install_whole_run()
results = {}
def attempt(name, action):
    try:
        action()
        results[name] = "done"
    except OSError as exc:
        results[name] = errno.errorcode.get(exc.errno, str(exc.errno))
attempt("write inside", lambda: open(os.path.join(scratch, "ok.txt"), "w").write("x"))
attempt("write outside", lambda: open(canary, "a").write("owned"))
attempt("delete outside", lambda: os.remove(canary))
attempt("chmod outside", lambda: os.chmod(canary, 0))
attempt("fork", os.fork)
attempt("setsid", os.setsid)
attempt("kill bystander", lambda: os.kill(bystander, signal.SIGKILL))
attempt("pidfd bystander", lambda: signal.pidfd_send_signal(os.pidfd_open(bystander), signal.SIGKILL))
print(results)
"""


def test_the_kernel_layers_alone_refuse_what_the_audit_hook_would(scene, tmp_path):
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    run = subprocess.run([sys.executable, "-c", KERNEL_ONLY, str(scratch), str(scene.canary), str(scene.bystander.pid)],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    results = ast.literal_eval(run.stdout)
    assert results.pop("write inside") == "done"
    assert all(outcome in ("EACCES", "EPERM") for outcome in results.values()), results
    scene.check({"verified": False, "outcome": "not verified"})
